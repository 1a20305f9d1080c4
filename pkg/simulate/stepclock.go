// StepClock: trace time that moves only when the simulator steps it, with its timers.

package simulate

import (
	"container/heap"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// StepClock is trace time that moves only when the simulator steps it. Its
// timers fire in deadline order (ties in the order they were set) while it
// steps, each with the clock reading its deadline, so that what depends on
// time happens in the same order in every replay, however fast the machine
// is. AfterFunc's functions run in the stepping goroutine; timers with a
// channel get their time sent on it (buffered, never blocking the step).
type StepClock struct {
	mu     sync.Mutex
	now    time.Time
	timers timerHeap
	seq    uint64
}

var _ clock.WithDelayedExecution = (*StepClock)(nil)

// NewStepClock returns a clock reading start.
func NewStepClock(start time.Time) *StepClock { return &StepClock{now: start} }

// Now is the trace time.
func (c *StepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Since is the trace time passed since t.
func (c *StepClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// Next is the earliest deadline of a pending timer.
func (c *StepClock) Next() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.timers) == 0 {
		return time.Time{}, false
	}
	return c.timers[0].at, true
}

// StepTo moves the clock to t, firing every timer due by then in order; a
// timer set by a firing function fires in the same step if it is due. A t
// before the clock's time is ignored: trace time never runs back. It
// returns how many timers fired.
func (c *StepClock) StepTo(t time.Time) int {
	fired := 0
	for {
		c.mu.Lock()
		if len(c.timers) == 0 || c.timers[0].at.After(t) {
			if t.After(c.now) {
				c.now = t
			}
			c.mu.Unlock()
			return fired
		}
		tm := heap.Pop(&c.timers).(*stepTimer)
		tm.index = -1
		if tm.at.After(c.now) {
			c.now = tm.at
		}
		at := c.now
		c.mu.Unlock()
		fired++
		if tm.fn != nil {
			tm.fn()
		} else {
			tm.c <- at
		}
	}
}

// AfterFunc runs f in the stepping goroutine once d of trace time has passed.
func (c *StepClock) AfterFunc(d time.Duration, f func()) clock.Timer {
	return c.add(d, f)
}

// NewTimer is a timer on trace time.
func (c *StepClock) NewTimer(d time.Duration) clock.Timer { return c.add(d, nil) }

// After is NewTimer(d).C().
func (c *StepClock) After(d time.Duration) <-chan time.Time { return c.add(d, nil).C() }

// Tick sends the time every d of trace time. Stepping a long way fires it
// once per step, not once per d: a ticker never queues ticks.
func (c *StepClock) Tick(d time.Duration) <-chan time.Time {
	if d <= 0 {
		return nil
	}
	ch := make(chan time.Time, 1)
	var tick func()
	tick = func() {
		select {
		case ch <- c.Now():
		default:
		}
		c.AfterFunc(d, tick)
	}
	c.AfterFunc(d, tick)
	return ch
}

// Sleep blocks until another goroutine has stepped the clock d on.
func (c *StepClock) Sleep(d time.Duration) { <-c.After(d) }

func (c *StepClock) add(d time.Duration, f func()) *stepTimer {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	t := &stepTimer{clock: c, at: c.now.Add(max(d, 0)), seq: c.seq, fn: f}
	if f == nil {
		t.c = make(chan time.Time, 1)
	}
	heap.Push(&c.timers, t)
	return t
}

type stepTimer struct {
	clock *StepClock
	at    time.Time
	seq   uint64
	fn    func()
	c     chan time.Time
	index int
}

func (t *stepTimer) C() <-chan time.Time { return t.c }

// Stop cancels the timer; false if it had fired or been stopped.
func (t *stepTimer) Stop() bool {
	c := t.clock
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.index < 0 {
		return false
	}
	heap.Remove(&c.timers, t.index)
	t.index = -1
	return true
}

// Reset sets the timer to fire d from now; true if it was pending.
func (t *stepTimer) Reset(d time.Duration) bool {
	c := t.clock
	c.mu.Lock()
	defer c.mu.Unlock()
	pending := t.index >= 0
	if pending {
		heap.Remove(&c.timers, t.index)
	}
	c.seq++
	t.at, t.seq = c.now.Add(max(d, 0)), c.seq
	heap.Push(&c.timers, t)
	return pending
}

type timerHeap []*stepTimer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	if !h[i].at.Equal(h[j].at) {
		return h[i].at.Before(h[j].at)
	}
	return h[i].seq < h[j].seq
}
func (h timerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *timerHeap) Push(x any) {
	t := x.(*stepTimer)
	t.index = len(*h)
	*h = append(*h, t)
}
func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return t
}
