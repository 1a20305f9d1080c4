// Whether the scheduler is quiet: nothing in hand, writers done, pods at Permit; Flush.

package controlplane

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
)

// Quiet reports whether the scheduler holds nothing in hand: no pod in its
// active or backoff queue, none popped and not yet past Permit, none
// waiting at Permit, none assumed and not yet seen bound. Unschedulable
// pods wait for something to happen and do not count (Flush retries them);
// backing-off ones do, as the queue pops them as soon as its active queue
// is empty (SchedulerPopFromBackoffQ, on by default). held says what it
// still holds, for a caller that waits too long.
func (s *Scheduler) Quiet() (quiet bool, held string) { return s.quiet(true) }

// QuietButHints is Quiet but for the verdicts Muster's hint writer owes
// a sync: the scheduler holds nothing else, so a hint sync begun now
// writes what it decided. A stepped replay, whose hint writer syncs when
// kicked, kicks one then (muster simulate).
func (s *Scheduler) QuietButHints() (quiet bool, held string) { return s.quiet(false) }

// HintsOwed says whether a Muster hint writer owes a sync for a verdict
// set since its last.
func (s *Scheduler) HintsOwed() bool {
	for _, f := range s.sched.Profiles {
		if s.muster.HintsOwed(f) {
			return true
		}
	}
	return false
}

func (s *Scheduler) quiet(hints bool) (quiet bool, held string) {
	q := s.sched.SchedulingQueue
	active, backoff := 0, 0
	if a, ok := q.(interface{ PodsInActiveQ() []*v1.Pod }); ok {
		active = len(a.PodsInActiveQ())
	}
	if b, ok := q.(interface{ PodsInBackoffQ() []*v1.Pod }); ok && (s.gate.groups || utilfeature.DefaultFeatureGate.Enabled(features.SchedulerPopFromBackoffQ)) {
		for _, p := range b.PodsInBackoffQ() {
			// Upstream's pod groups back off whatever failed them
			// (stepGate.groups): one tried since the last release waits
			// for the next step's changes.
			if !s.gate.groups || !s.gate.triedSinceRelease(p) {
				backoff++
			}
		}
	}
	inFlight := len(q.InFlightPods())
	if written, pending := s.written(hints); !written {
		return false, pending
	}
	waiting := s.WaitingAtPermit()
	if active+backoff+inFlight+waiting > 0 {
		return false, fmt.Sprintf("active %d, backing off %d, in flight %d, waiting at Permit %d", active, backoff, inFlight, waiting)
	}
	// Only then the cache's copy, for the pods bound but not yet seen so:
	// it clones every node.
	assumed := s.sched.Cache.Dump().AssumedPods.Len()
	return assumed == 0, fmt.Sprintf("assumed %d", assumed)
}

// RetryUntried activates the pod groups backing off that the scheduler has
// not tried since the last Release (stepGate.groups), when they are all it
// holds: nothing active, in flight or waiting at Permit. It returns how many
// pods it activated.
//
// Release activates the groups backing off then, but a group the scheduler
// had taken from its queue before the release (its wall-time backoff ended
// while the queue was held, and upstream moves an entity from its backoff
// queue to the active one without PreEnqueue) was in flight and not in the
// queue: its attempt fails, and it goes back to the backoff queue for
// errors, which the queue does not pop early, for up to ten seconds times
// the square root of its size (35 s for the default trace's 12-member gang).
// Quiet waits for it, as it has not been tried with the release's changes,
// and the step sat idle until its backoff ended. Nothing else is in hand
// then, so retrying it now is the attempt the scheduler would make at the
// end of that backoff, sooner.
func (s *Scheduler) RetryUntried() int {
	if !s.gate.groups {
		return 0
	}
	q := s.sched.SchedulingQueue
	a, okA := q.(interface{ PodsInActiveQ() []*v1.Pod })
	b, okB := q.(interface{ PodsInBackoffQ() []*v1.Pod })
	if !okA || !okB || len(a.PodsInActiveQ()) > 0 || len(q.InFlightPods()) > 0 || s.WaitingAtPermit() > 0 {
		return 0
	}
	pods := map[string]*v1.Pod{}
	for _, p := range b.PodsInBackoffQ() {
		if !s.gate.triedSinceRelease(p) {
			pods[p.Namespace+"/"+p.Name] = p
		}
	}
	if len(pods) > 0 {
		q.Activate(klog.Background(), pods)
	}
	return len(pods)
}

// Written reports whether Muster's writers (gang status and pod marks,
// ProvisioningRequests) have written all they owe, in every profile; held
// says what they still owe.
func (s *Scheduler) Written() (written bool, held string) { return s.written(true) }

// written is Written, the hint writer's owed syncs left out unless hints.
func (s *Scheduler) written(hints bool) (written bool, held string) {
	for name, f := range s.sched.Profiles {
		if pending := s.muster.WritesPending(f, hints); pending != "" {
			return false, fmt.Sprintf("profile %s: %s are not all written", name, pending)
		}
	}
	return true, ""
}

// WaitingAtPermit is how many pods wait at Permit, in every profile: a
// gang's members holding reservations until its quorum is there.
func (s *Scheduler) WaitingAtPermit() int {
	waiting := 0
	for _, f := range s.sched.Profiles {
		f.IterateOverWaitingPods(func(fwk.WaitingPod) { waiting++ })
	}
	return waiting
}

// Flush moves pending pods to the active queue, as the end of a backoff or a
// cluster event would: those backing off, and with unschedulable also those
// found unschedulable. muster simulate retries the first every trace step
// and the second as often as the scheduler's periodic flush would, since
// the scheduler's own backoffs and flush run on wall time. It returns how
// many pods it moved.
func (s *Scheduler) Flush(unschedulable bool) int {
	q := s.sched.SchedulingQueue
	pods := map[string]*v1.Pod{}
	if unschedulable {
		pending, _ := q.PendingPods()
		for _, p := range pending {
			pods[p.Namespace+"/"+p.Name] = p
		}
		if a, ok := q.(interface{ PodsInActiveQ() []*v1.Pod }); ok {
			for _, p := range a.PodsInActiveQ() {
				delete(pods, p.Namespace+"/"+p.Name)
			}
		}
	} else if b, ok := q.(interface{ PodsInBackoffQ() []*v1.Pod }); ok {
		for _, p := range b.PodsInBackoffQ() {
			pods[p.Namespace+"/"+p.Name] = p
		}
	}
	if len(pods) > 0 {
		q.Activate(klog.Background(), pods)
	}
	return len(pods)
}
