// Permit holds members until the quorum has nodes; Reserve, Unreserve and PostBind.

package gang

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/muster-project/muster/pkg/gang"
)

// Permit holds members until min of them (counting bound ones) have nodes,
// then lets them all bind at once; elastic members beyond min bind directly.
func (pl *Gang) Permit(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodeName string) (*fwk.Status, time.Duration) {
	spec, isGang, err := pl.specFor(state, pod)
	if !isGang {
		return nil, 0
	}
	if err != nil {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, err.Error()), 0
	}
	defer pl.status.touch(spec.Key)
	counts := pl.tracker.Count(spec.Key, pl.members(spec.Key), pod.UID)
	switch spec.Permit(counts) {
	case gang.PermitRejectOverMax:
		// Two members passed the gate together and the other took the last
		// slot. This one waits like any member beyond max: shown as gated, not
		// Unschedulable, so no autoscaler adds nodes for it.
		_, msg := spec.Admit(gang.Counts{Members: counts.Members + 1, Placed: counts.Placed})
		pl.status.gated(spec.Key, pod, msg)
		return fwk.NewStatus(fwk.Unschedulable, msg), 0
	case gang.PermitBind:
		pl.tracker.PermitAll(spec.Key, pod.UID)
		pl.extraPlaced(ctx, spec.Key, pod)
		return nil, 0
	case gang.PermitBindAll:
		// The quorum is placed: room made for it is no longer being made,
		// and the capacity plan holds none for it any more (it drops this
		// gang; the other gangs are as they were).
		pl.state.ReportCondition(spec.Key, metav1.Condition{Type: gang.ConditionPreempting})
		pl.planCache.gangChanged(spec.Key.String())
		for _, uid := range pl.tracker.PermitAll(spec.Key, pod.UID) {
			if wp := pl.handle.GetWaitingPod(uid); wp != nil {
				wp.Allow(Name)
			}
		}
		return nil, 0
	}
	first := pl.tracker.Wait(spec.Key, pod.UID)
	if counts.Waiting == 0 {
		// The gang's attempt starts: bring members sitting out a backoff
		// forward once, rather than once per waiting member.
		pl.activate(klog.FromContext(ctx), spec.Key, pod.UID)
	}
	return fwk.NewStatus(fwk.Wait, fmt.Sprintf("gang %s: waiting for %d more members to be placed", spec.Key, int(spec.MinMember)-counts.Placed-counts.Waiting-1)),
		spec.Remaining(first, pl.clock.Now())
}

// Reserve has nothing to hold beyond what Permit tracks.
func (pl *Gang) Reserve(context.Context, fwk.CycleState, *v1.Pod, string) *fwk.Status { return nil }

// Unreserve runs when a member loses its node. A member still waiting at
// Permit (timed out or rejected) fails the gang's attempt, releasing every
// reservation. A permitted member that failed to bind only returns to the
// queue: its siblings may already be bound, and the bound ones still count.
func (pl *Gang) Unreserve(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodeName string) {
	key, _, isGang, err := gang.GroupOf(pod)
	if !isGang || err != nil {
		return
	}
	wasWaiting, since := pl.tracker.Release(key, pod.UID)
	if !wasWaiting {
		// Its bound siblings may be short of min again: the stranded
		// count, left alone while the quorum was placed, is looked at.
		pl.status.touch(key)
		return
	}
	spec, _, err := pl.resolve(pod)
	if err != nil {
		pl.fail(ctx, key, err.Error(), pl.attemptOf(state, key))
		return
	}
	counts := pl.tracker.Count(key, pl.members(key), pod.UID)
	if spec.QuorumPlaced(counts) {
		return
	}
	msg := fmt.Sprintf("gang %s could not place its quorum: member %s lost its reservation (%d of min %d placed)", key, pod.Name, counts.Placed, spec.MinMember)
	if !since.IsZero() && pl.clock.Since(since) >= spec.Timeout {
		msg = fmt.Sprintf("gang %s could not place its quorum within its %s timeout (%d of min %d placed, %d waited)", key, spec.Timeout, counts.Placed, spec.MinMember, counts.Waiting+1)
	}
	pl.fail(ctx, key, msg, pl.attemptOf(state, key))
}

// PostBind refreshes the gang's status.
func (pl *Gang) PostBind(_ context.Context, _ fwk.CycleState, pod *v1.Pod, _ string) {
	if key, _, isGang, _ := gang.GroupOf(pod); isGang {
		pl.status.touch(key)
	}
}
