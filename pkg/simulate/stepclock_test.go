// Tests of StepClock: timers fire in deadline order as the clock steps, never backwards; After, Tick, Reset and Stop.

package simulate

import (
	"testing"
	"time"
)

func TestStepClockFiresInDeadlineOrder(t *testing.T) {
	start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	c := NewStepClock(start)
	var got []string
	at := map[string]time.Duration{}
	add := func(name string, d time.Duration) {
		c.AfterFunc(d, func() { got = append(got, name); at[name] = c.Since(start) })
	}
	add("c", 3*time.Minute)
	add("a", time.Minute)
	add("b1", 2*time.Minute)
	add("b2", 2*time.Minute) // same deadline: the order they were set
	stopped := c.AfterFunc(90*time.Second, func() { got = append(got, "stopped") })
	if !stopped.Stop() || stopped.Stop() {
		t.Fatal("Stop: want true once, then false")
	}
	if next, ok := c.Next(); !ok || !next.Equal(start.Add(time.Minute)) {
		t.Fatalf("Next = %s %v, want the first deadline", next, ok)
	}
	if n := c.StepTo(start.Add(150 * time.Second)); n != 3 {
		t.Fatalf("fired %d, want 3", n)
	}
	if want := []string{"a", "b1", "b2"}; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("fired %v, want %v", got, want)
	}
	if at["a"] != time.Minute || at["b2"] != 2*time.Minute {
		t.Errorf("clock while firing: %v, want each timer's deadline", at)
	}
	if d := c.Since(start); d != 150*time.Second {
		t.Errorf("after the step the clock reads %s, want 2m30s", d)
	}
	// A timer set while firing, due in the same step, fires in it.
	c.AfterFunc(time.Minute, func() { c.AfterFunc(10*time.Second, func() { got = append(got, "chained") }) })
	c.StepTo(start.Add(10 * time.Minute))
	if got[len(got)-1] != "chained" || got[len(got)-2] != "c" {
		t.Errorf("fired %v, want c then chained last", got)
	}
	// The clock never runs back.
	c.StepTo(start)
	if d := c.Since(start); d != 10*time.Minute {
		t.Errorf("stepping back moved the clock to %s", d)
	}
	if _, ok := c.Next(); ok {
		t.Error("Next with no timer pending: want none")
	}
}

func TestStepClockChannelsAndReset(t *testing.T) {
	start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	c := NewStepClock(start)
	ch := c.After(time.Minute)
	tm := c.NewTimer(time.Hour)
	if tm.Reset(2*time.Minute) != true {
		t.Error("Reset of a pending timer: want true")
	}
	tick := c.Tick(30 * time.Second)
	c.StepTo(start.Add(time.Minute))
	select {
	case got := <-ch:
		if !got.Equal(start.Add(time.Minute)) {
			t.Errorf("After sent %s", got)
		}
	default:
		t.Fatal("After did not fire at its deadline")
	}
	select {
	case <-tm.C():
		t.Fatal("the reset timer fired before its new deadline")
	default:
	}
	select {
	case <-tick:
	default:
		t.Fatal("Tick did not tick")
	}
	c.StepTo(start.Add(2 * time.Minute))
	select {
	case <-tm.C():
	default:
		t.Fatal("the reset timer did not fire at its new deadline")
	}
	if tm.Stop() {
		t.Error("Stop after firing: want false")
	}
}
