package gang

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/util"

	"github.com/muster-project/muster/pkg/gang"
)

// EventsToRegister names the cluster changes that can let a waiting member
// through, each with a hint so that members are retried only when the change
// concerns them.
func (pl *Gang) EventsToRegister(_ context.Context) ([]fwk.ClusterEventWithHint, error) {
	events := []fwk.ClusterEventWithHint{
		// A new member can complete a quorum.
		{Event: fwk.ClusterEvent{Resource: fwk.UnscheduledPod, ActionType: fwk.Add}, QueueingHintFn: pl.sameGang},
		{Event: fwk.ClusterEvent{Resource: fwk.AssignedPod, ActionType: fwk.Add}, QueueingHintFn: pl.sameGang},
		// A member or spec change (annotations fixed) can make a rejected gang valid.
		{Event: fwk.ClusterEvent{Resource: fwk.UnscheduledPod, ActionType: fwk.UpdatePodLabel}, QueueingHintFn: pl.sameGang},
		// A pod leaving frees room, and a member leaving makes room under max.
		{Event: fwk.ClusterEvent{Resource: fwk.AssignedPod, ActionType: fwk.Delete}, QueueingHintFn: pl.roomFreed},
		// New or grown nodes make room for a gang that did not fit.
		{Event: fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.Add | fwk.UpdateNodeAllocatable | fwk.UpdateNodeLabel | fwk.UpdateNodeTaint}, QueueingHintFn: pl.gangMember},
	}
	if pl.podGroups != nil {
		events = append(events, fwk.ClusterEventWithHint{
			Event: fwk.ClusterEvent{Resource: podGroupResource, ActionType: fwk.Add | fwk.Update}, QueueingHintFn: pl.podGroupChanged})
	}
	if pl.workloads != nil {
		events = append(events, fwk.ClusterEventWithHint{
			Event: fwk.ClusterEvent{Resource: workloadPodGroupResource, ActionType: fwk.Add | fwk.Update}, QueueingHintFn: pl.podGroupChanged})
	}
	return events, nil
}

func (pl *Gang) sameGang(_ klog.Logger, pod *v1.Pod, oldObj, newObj any) (fwk.QueueingHint, error) {
	_, other, err := util.As[*v1.Pod](oldObj, newObj)
	if err != nil {
		return fwk.Queue, err
	}
	mine, _, ok, _ := gang.GroupOf(pod)
	theirs, _, ok2, _ := gang.GroupOf(other)
	if !ok || !ok2 || mine != theirs {
		return fwk.QueueSkip, nil
	}
	// A new unscheduled member of a gang short of its quorum admits no one
	// (members wait for min to be present, and one beyond max waits for a
	// slot, which an arrival does not free); the member that completes
	// the quorum wakes the whole gang (quorumArrived). Requeueing every
	// gated member on every arrival ran PreEnqueue, which counts the
	// members, n times per arrival: cubic in the gang's size.
	if oldObj == nil && other.Spec.NodeName == "" {
		if _, quorate := pl.quorate.Load(mine); !quorate {
			return fwk.QueueSkip, nil
		}
	}
	return fwk.Queue, nil
}

// roomFreed requeues a gang member when room may have appeared, and ends its
// gang's backoff: the backoff guards against retrying an unchanged cluster.
func (pl *Gang) roomFreed(_ klog.Logger, pod *v1.Pod, _, _ any) (fwk.QueueingHint, error) {
	if key, _, ok, _ := gang.GroupOf(pod); ok {
		pl.tracker.Unblock(key)
		pl.planCache.invalidate()
		return fwk.Queue, nil
	}
	return fwk.QueueSkip, nil
}

func (pl *Gang) gangMember(_ klog.Logger, pod *v1.Pod, _, _ any) (fwk.QueueingHint, error) {
	return pl.roomFreed(klog.Logger{}, pod, nil, nil)
}

func (pl *Gang) podGroupChanged(_ klog.Logger, pod *v1.Pod, oldObj, newObj any) (fwk.QueueingHint, error) {
	// Custom resources reach hints from a dynamic informer, as unstructured objects.
	pg, err := meta.Accessor(newObj)
	if err != nil {
		return fwk.Queue, err
	}
	// Both PodGroup kinds come here; a pod's source says which it names.
	if key, src, ok, _ := gang.GroupOf(pod); ok && src != gang.SourceLabels && key.Namespace == pg.GetNamespace() && key.Name == pg.GetName() {
		return fwk.Queue, nil
	}
	return fwk.QueueSkip, nil
}
