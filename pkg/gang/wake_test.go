// Tests of the Tracker's wakes: one armed whenever a gang backs off, none lost to interleavings, and no backoff for an attempt a change overlapped.

package gang

import (
	"math/rand"
	"slices"
	"testing"
	"time"
)

// TestWakeArmedWhileBackingOff: the failure that comes right after a wake
// found its gang's backoff over arms a new wake (the interleaving that lost
// the gang's wake when the plugin kept "a wake is pending" apart from the
// tracker), and a failure while a wake is armed arms none.
func TestWakeArmedWhileBackingOff(t *testing.T) {
	now := time.Unix(1000, 0)
	tr := NewTracker(func() time.Time { return now })
	k := Key{Namespace: "ns", Name: "g"}

	if _, wake := tr.Fail(k, "no room", 10*time.Second, tr.Attempt(k)); wake != WakeAfterBackoff {
		t.Fatal("the first failure armed no wake")
	}
	now = now.Add(5 * time.Second)
	if _, wake := tr.Fail(k, "no room", 10*time.Second, tr.Attempt(k)); wake != WakeArmed {
		t.Fatal("a failure while a wake is armed armed another")
	}
	// The wake's timer fires at the first deadline: the second failure
	// pushed the backoff out, so it waits again for what is left.
	now = now.Add(5 * time.Second)
	if left, due := tr.WakeDue(k); due || left != 5*time.Second {
		t.Fatalf("WakeDue = %s, %t; want 5s left, not due", left, due)
	}
	now = now.Add(5 * time.Second)
	if _, due := tr.WakeDue(k); !due {
		t.Fatal("the wake is not due once the backoff is over")
	}
	// The wake is spent; an attempt fails before the member it wakes is
	// tried: that failure must arm the next wake.
	if _, wake := tr.Fail(k, "no room", 10*time.Second, tr.Attempt(k)); wake != WakeAfterBackoff {
		t.Fatal("a failure right after a wake fired armed none: the gang would back off with nothing to wake it")
	}
	if tr.WakesArmed() != 1 {
		t.Errorf("%d wakes armed, want 1", tr.WakesArmed())
	}
	// A release (no backoff) arms nothing.
	k2 := Key{Namespace: "ns", Name: "released"}
	tr.RejectWaiting(k2, "PodGroup changed")
	if _, _, backingOff := tr.BackingOff(k2); backingOff || tr.WakesArmed() != 1 {
		t.Error("a release backs off or armed a wake")
	}
	// A gang forgotten while its wake is armed: the wake finds it due and
	// nothing is left armed.
	tr.Forget(k)
	if _, due := tr.WakeDue(k); !due || tr.WakesArmed() != 0 {
		t.Errorf("after Forget: due %t, %d wakes armed; want due and none", due, tr.WakesArmed())
	}
}

// TestWakeInvariant drives failures, early ends of backoff and timers in
// random order on a simulated clock: whenever a gang backs off, exactly one
// wake is pending for it, and every wake that fires with the backoff over
// is its last.
func TestWakeInvariant(t *testing.T) {
	for seed := int64(1); seed <= 200; seed++ {
		rng := rand.New(rand.NewSource(seed))
		now := time.Unix(0, 0)
		tr := NewTracker(func() time.Time { return now })
		k := Key{Namespace: "ns", Name: "g"}
		var timers []time.Time // pending wakes' deadlines
		for step := 0; step < 60; step++ {
			switch op := rng.Intn(4); {
			case op == 0 || len(timers) == 0:
				backoff := time.Duration(1+rng.Intn(10)) * time.Second
				if _, wake := tr.Fail(k, "no room", backoff, tr.Attempt(k)); wake == WakeAfterBackoff {
					timers = append(timers, now.Add(backoff))
				}
			case op == 1:
				tr.Unblock(k)
			default:
				// The earliest timer fires (time moves to it).
				slices.SortFunc(timers, func(a, b time.Time) int { return a.Compare(b) })
				if timers[0].After(now) {
					now = timers[0]
				}
				timers = timers[1:]
				if left, due := tr.WakeDue(k); !due {
					timers = append(timers, now.Add(left))
				}
			}
			_, _, backingOff := tr.BackingOff(k)
			if backingOff && len(timers) != 1 {
				t.Fatalf("seed %d step %d: backing off with %d wakes pending, want 1", seed, step, len(timers))
			}
			if len(timers) > 1 {
				t.Fatalf("seed %d step %d: %d wakes pending", seed, step, len(timers))
			}
			if tr.WakesArmed() != len(timers) {
				t.Fatalf("seed %d step %d: tracker says %d wakes armed, %d pending", seed, step, tr.WakesArmed(), len(timers))
			}
		}
	}
}

// TestChangeDuringAttemptDoesNotBackOff: an event that may let a gang fit
// (Unblock) comes while its attempt runs on the cluster before it; the
// attempt then fails. Backing off would ignore that event for the whole
// backoff (the lost retry behind TestRoomFreedRequeuesGangLeads failing in
// CI: the last pod leaving came while the lead's attempt ran, and the
// gang waited out a 10-minute backoff with room for its quorum). The
// failure does not back off, so the change requeues the gang, and a
// failure that overlapped no change backs off as before.
func TestChangeDuringAttemptDoesNotBackOff(t *testing.T) {
	now := time.Unix(1000, 0)
	tr := NewTracker(func() time.Time { return now })
	k := Key{Namespace: "ns", Name: "moe"}

	attempt := tr.Attempt(k)
	tr.Unblock(k) // a pod leaves while the attempt runs
	if _, wake := tr.Fail(k, "room for 2 of 3", 10*time.Minute, attempt); wake != WakeByEvent {
		t.Fatalf("Fail after a change during the attempt = %v, want WakeByEvent", wake)
	}
	if reason, left, backingOff := tr.BackingOff(k); backingOff {
		t.Fatalf("backing off %s (%q) after an attempt that overlapped a change", left, reason)
	}
	if tr.LastFailure(k) != "room for 2 of 3" {
		t.Errorf("last failure %q, want the attempt's", tr.LastFailure(k))
	}
	if tr.WakesArmed() != 0 {
		t.Errorf("%d wakes armed for a gang that does not back off", tr.WakesArmed())
	}

	// The next attempt sees no change and backs off.
	if _, wake := tr.Fail(k, "room for 2 of 3", 10*time.Minute, tr.Attempt(k)); wake != WakeAfterBackoff {
		t.Fatalf("Fail after an attempt with no change = %v, want WakeAfterBackoff", wake)
	}
	if _, left, backingOff := tr.BackingOff(k); !backingOff || left != 10*time.Minute {
		t.Fatalf("backing off %t for %s, want 10m", backingOff, left)
	}
	// A change after the failure ends the backoff (the queue asks the
	// hints again for the member that was in flight).
	tr.Unblock(k)
	if _, _, backingOff := tr.BackingOff(k); backingOff {
		t.Fatal("still backing off after a change that came after the failure")
	}
}
