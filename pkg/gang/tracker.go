// Tracker: gangs in flight (waiting and permitted members, attempts, backoffs, wakes).

package gang

import (
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Tracker holds what the API server does not show about gangs in flight: which
// members wait at Permit holding a reservation, which were permitted but are
// not yet seen bound, and which gangs back off after a failed attempt. All of
// it is rebuilt from nothing after a restart: waiting members were never bound,
// so forgetting them leaks nothing.
type Tracker struct {
	mu    sync.Mutex
	now   func() time.Time
	gangs map[Key]*inflight
}

type inflight struct {
	waiting      map[types.UID]struct{}
	permitted    map[types.UID]struct{}
	firstWait    time.Time
	backoffUntil time.Time
	lastFailure  string
	// wakeArmed: a timer will end this gang's backoff (Fail, WakeDue).
	wakeArmed bool
	// changes counts the cluster changes that may let the gang fit
	// (Unblock); an attempt that saw an older count (Attempt) ran on a
	// cluster that is gone and does not back off when it fails.
	changes uint64
}

// NewTracker returns an empty tracker; now is the clock (time.Now if nil).
func NewTracker(now func() time.Time) *Tracker {
	if now == nil {
		now = time.Now
	}
	return &Tracker{now: now, gangs: map[Key]*inflight{}}
}

func (t *Tracker) get(k Key) *inflight {
	g := t.gangs[k]
	if g == nil {
		g = &inflight{waiting: map[types.UID]struct{}{}, permitted: map[types.UID]struct{}{}}
		t.gangs[k] = g
	}
	return g
}

// Live reports whether a pod counts as a member: it exists, is not being
// deleted and has not terminated.
func Live(p *v1.Pod) bool {
	return p.DeletionTimestamp == nil && p.Status.Phase != v1.PodSucceeded && p.Status.Phase != v1.PodFailed
}

// Count counts a gang's members from the pods the API server lists for it,
// adding what only the tracker knows. Members permitted earlier that now show
// as bound stop being tracked here. exclude (may be empty) is left out of the
// counts: the member the caller is deciding for.
func (t *Tracker) Count(k Key, pods []*v1.Pod, exclude types.UID) Counts {
	t.mu.Lock()
	defer t.mu.Unlock()
	g := t.gangs[k]
	var c Counts
	for _, p := range pods {
		if !Live(p) {
			continue
		}
		if p.UID == exclude {
			continue
		}
		c.Members++
		switch {
		case p.Spec.NodeName != "":
			c.Placed++
			if g != nil {
				delete(g.permitted, p.UID)
			}
		case g == nil:
		case has(g.permitted, p.UID):
			c.Placed++
		case has(g.waiting, p.UID):
			c.Waiting++
		}
	}
	return c
}

func has(m map[types.UID]struct{}, uid types.UID) bool { _, ok := m[uid]; return ok }

// IsWaiting says the member holds a reservation at Permit.
func (t *Tracker) IsWaiting(k Key, uid types.UID) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	g := t.gangs[k]
	return g != nil && has(g.waiting, uid)
}

// Wait records that a member holds a reservation at Permit and returns when the
// gang's first waiting member started, which bounds everyone's wait.
func (t *Tracker) Wait(k Key, uid types.UID) time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	g := t.get(k)
	if len(g.waiting) == 0 {
		g.firstWait = t.now()
	}
	g.waiting[uid] = struct{}{}
	return g.firstWait
}

// PermitAll moves every waiting member (and uid, if not empty) to permitted and
// returns the ones that were waiting, for the caller to allow.
func (t *Tracker) PermitAll(k Key, uid types.UID) []types.UID {
	t.mu.Lock()
	defer t.mu.Unlock()
	g := t.get(k)
	out := make([]types.UID, 0, len(g.waiting))
	for w := range g.waiting {
		out = append(out, w)
		g.permitted[w] = struct{}{}
	}
	clear(g.waiting)
	g.firstWait = time.Time{}
	if uid != "" {
		g.permitted[uid] = struct{}{}
	}
	g.lastFailure, g.backoffUntil = "", time.Time{}
	return out
}

// Release forgets a member's reservation (it was unreserved or failed to bind).
// It reports whether the member was waiting and since when the gang waited.
func (t *Tracker) Release(k Key, uid types.UID) (wasWaiting bool, since time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	g := t.gangs[k]
	if g == nil {
		return false, time.Time{}
	}
	wasWaiting, since = has(g.waiting, uid), g.firstWait
	delete(g.waiting, uid)
	delete(g.permitted, uid)
	if len(g.waiting) == 0 {
		g.firstWait = time.Time{}
	}
	return wasWaiting, since
}

// Attempt starts an attempt to place the gang's quorum. Its token, given
// back to Fail, says whether the cluster changed while the attempt ran.
func (t *Tracker) Attempt(k Key) uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.get(k).changes
}

// Wake says what is to start a failed gang's next attempt.
type Wake int

const (
	// WakeArmed: nothing new to do; a wake is armed already, or the
	// gang does not back off.
	WakeArmed Wake = iota
	// WakeAfterBackoff: the caller arms a wake for the end of the backoff.
	WakeAfterBackoff
	// WakeByEvent: room may have appeared while the attempt ran (Unblock),
	// so its failure says nothing of the cluster as it is now. The gang
	// does not back off; the change that came during the attempt requeues
	// it (the queue hands it to the member in flight once its cycle ends),
	// after the member's own backoff, so gangs that fail in turn do not
	// retry one another in a loop.
	WakeByEvent
)

// Fail records a failed attempt to place the gang's quorum, started with
// token attempt (Attempt): the gang backs off until now+backoff with
// reason, and the members still waiting are returned for the caller to
// reject so that nothing stays reserved. An attempt that overlapped a
// change (Unblock after Attempt) does not back off: the event that
// unblocked the gang came while its attempt ran on the cluster before it,
// and backing off now would ignore it for the whole backoff.
func (t *Tracker) Fail(k Key, reason string, backoff time.Duration, attempt uint64) (reject []types.UID, wake Wake) {
	t.mu.Lock()
	defer t.mu.Unlock()
	g := t.get(k)
	g.lastFailure = reason
	if g.changes != attempt {
		backoff, wake = 0, WakeByEvent
	}
	g.backoffUntil = t.now().Add(backoff)
	if backoff > 0 && !g.wakeArmed {
		g.wakeArmed, wake = true, WakeAfterBackoff
	}
	return t.rejectWaiting(g), wake
}

// RejectWaiting releases every reservation of the gang (its members are
// to be decided afresh: its PodGroup changed or is gone) without backing
// off (a backoff under way ends), and returns the members that waited for
// the caller to reject.
func (t *Tracker) RejectWaiting(k Key, reason string) []types.UID {
	t.mu.Lock()
	defer t.mu.Unlock()
	g := t.get(k)
	g.lastFailure, g.backoffUntil = reason, time.Time{}
	return t.rejectWaiting(g)
}

func (t *Tracker) rejectWaiting(g *inflight) []types.UID {
	out := make([]types.UID, 0, len(g.waiting))
	for w := range g.waiting {
		out = append(out, w)
	}
	clear(g.waiting)
	g.firstWait = time.Time{}
	return out
}

// WakeDue is what a gang's armed wake asks when its timer fires. While the
// gang still backs off (a failure since pushed the backoff out) it returns
// how long is left, and the wake stays armed for the caller to wait again;
// otherwise the wake is disarmed and due is true. Fail and WakeDue decide
// under one lock, so a failure comes either before the check (and pushes the
// wake out) or after it (and arms a new one): a gang that backs off always
// has a wake armed, and it has one at most.
func (t *Tracker) WakeDue(k Key) (left time.Duration, due bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	g := t.gangs[k]
	if g == nil {
		return 0, true
	}
	if left := g.backoffUntil.Sub(t.now()); left > 0 {
		return left, false
	}
	g.wakeArmed = false
	return 0, true
}

// WakesArmed is how many gangs have a wake armed.
func (t *Tracker) WakesArmed() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, g := range t.gangs {
		if g.wakeArmed {
			n++
		}
	}
	return n
}

// BackingOff returns the failure reason while the gang backs off, and how long is left.
func (t *Tracker) BackingOff(k Key) (string, time.Duration, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	g := t.gangs[k]
	if g == nil {
		return "", 0, false
	}
	left := g.backoffUntil.Sub(t.now())
	if left <= 0 {
		return "", 0, false
	}
	return g.lastFailure, left, true
}

// Unblock ends a gang's backoff early: the cluster changed in a way that may
// let it fit (room freed, a node added), so waiting out the backoff would only
// delay it. The last failure stays as the gang's status until it is placed.
func (t *Tracker) Unblock(k Key) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if g := t.gangs[k]; g != nil {
		g.backoffUntil = time.Time{}
		g.changes++
	}
}

// LastFailure is the latest reason the gang's quorum could not be placed.
func (t *Tracker) LastFailure(k Key) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if g := t.gangs[k]; g != nil {
		return g.lastFailure
	}
	return ""
}

// Len is how many gangs the tracker holds state for.
func (t *Tracker) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.gangs)
}

// Forget drops a gang that has no members left.
func (t *Tracker) Forget(k Key) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.gangs, k)
}
