// EventsToRegister and the queueing hints that retry a gang's members when room or their gang changes.

package gang

import (
	"context"
	"maps"
	"math"
	"reflect"
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/util"

	"github.com/muster-project/muster/pkg/capacity"
	"github.com/muster-project/muster/pkg/gang"
)

// EventsToRegister names the cluster changes that can let a waiting member
// through, each with a hint so that members are retried only when the change
// concerns them.
func (pl *Gang) EventsToRegister(_ context.Context) ([]fwk.ClusterEventWithHint, error) {
	return pl.events(), nil
}

func (pl *Gang) events() []fwk.ClusterEventWithHint {
	events := []fwk.ClusterEventWithHint{
		// A new member can complete a quorum. The queue sends this event
		// only with GenericWorkload on (muster-scheduler runs with it off);
		// the plugin wakes the gang on the informer's notice
		// (quorumArrived).
		//
		// Bound pods (AssignedPod/Add) are no event of this plugin's: the
		// queue runs the hints of a gating plugin for every member parked
		// at its gate on every event the plugin registers, and a bind is
		// an AssignedPod/Add, so each bind asked about every parked member
		// of every gang. A member bound or arriving bound wakes its own
		// gang's parked members instead (memberPlaced, boundArrived).
		{Event: fwk.ClusterEvent{Resource: fwk.UnscheduledPod, ActionType: fwk.Add}, QueueingHintFn: pl.sameGang},
		// A member whose own gang labels or annotations were fixed may now
		// be valid. The queue hands an unscheduled pod's update only to
		// that pod, as TargetPod (never as UnscheduledPod to the others),
		// and an annotation-only change is a general Update.
		{Event: fwk.ClusterEvent{Resource: fwk.TargetPod, ActionType: fwk.Update}, QueueingHintFn: ownSpecChanged},
		// A pod leaving frees room, and a member leaving makes room under max.
		{Event: fwk.ClusterEvent{Resource: fwk.AssignedPod, ActionType: fwk.Delete}, QueueingHintFn: pl.roomFreed},
		// New or grown nodes make room for a gang that did not fit.
		{Event: fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.Add | fwk.UpdateNodeAllocatable | fwk.UpdateNodeLabel | fwk.UpdateNodeTaint}, QueueingHintFn: pl.roomFreed},
	}
	// PodGroups of either kind are no event of this plugin's either: the
	// plugin's own informers wake a gang's members when its PodGroup
	// comes or changes (onPodGroupChange).
	return events
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

// ownSpecChanged requeues a member whose own gang labels or gang
// annotations changed (a user fixing bad input). Annotations the
// scheduler and autoscalers write (stranded-since, consume marks,
// safe-to-evict) change nothing the gate judges: they requeue no one.
func ownSpecChanged(_ klog.Logger, _ *v1.Pod, oldObj, newObj any) (fwk.QueueingHint, error) {
	before, after, err := util.As[*v1.Pod](oldObj, newObj)
	if err != nil {
		return fwk.Queue, err
	}
	if before == nil || !maps.Equal(before.Labels, after.Labels) || !sameSpecAnnotations(before.Annotations, after.Annotations) {
		return fwk.Queue, nil
	}
	return fwk.QueueSkip, nil
}

// sameSpecAnnotations says whether two copies of a member carry the same
// muster.dev/ annotations, but for those the scheduler writes itself.
func sameSpecAnnotations(a, b map[string]string) bool {
	spec := func(k string) bool {
		return strings.HasPrefix(k, "muster.dev/") && k != gang.StrandedSinceAnnotation
	}
	for k, v := range a {
		if w, ok := b[k]; spec(k) && (!ok || w != v) {
			return false
		}
	}
	for k := range b {
		if _, ok := a[k]; spec(k) && !ok {
			return false
		}
	}
	return true
}

// roomFreed requeues a gang member when room may have appeared, and ends its
// gang's backoff: the backoff guards against retrying an unchanged cluster.
// A gang whose quorum is not placed is requeued through one member, the one
// that leads its attempts (firstUnplaced), as at the end of a backoff: that
// member's attempt checks room for the whole quorum and brings the rest
// forward at Permit. Requeueing every member had each pod that left, and
// each node that came, cost one scheduling cycle (and a FailedScheduling
// event) per member of every waiting gang.
func (pl *Gang) roomFreed(_ klog.Logger, pod *v1.Pod, oldObj, newObj any) (fwk.QueueingHint, error) {
	key, _, ok, _ := gang.GroupOf(pod)
	if !ok {
		return fwk.QueueSkip, nil
	}
	// A gang's own failed attempt releasing its reservations is no room for
	// it: the scheduler forgets an assumed member as a pod deleted, while
	// the API still has it, unbound. Taken as a change, every failed
	// attempt would end its own backoff. A member that really leaves does
	// make room (one gated at max may come in).
	if gone, isPod := podFrom(oldObj); isPod && pl.ownReservation(key, gone) {
		return fwk.QueueSkip, nil
	}
	// The gang's backoff ends on every ask, not once per delivery: the
	// queue asks again for a member that was in flight when the event came,
	// after its attempt failed and backed off, and that failure ran on the
	// cluster before the event (the attempt's token, Tracker.Attempt, says
	// so too when the event came first).
	pl.tracker.Unblock(key)
	// A member the gate holds behind its gang's lead (heldBy) is not
	// brought by room: its lead's attempt brings it at Permit, a placed
	// quorum wakes it (memberPlaced), a lead gone wakes the next
	// (leadGone). Finding the lead for each such member on each node
	// added cost a scheduler that listed its pods before its nodes seconds
	// before its first bind: 1000 nodes times every held member.
	//
	// A member held behind an elastic member of its kind (extraHeldBy) is
	// brought when that member holds a node or leaves; if its gang's
	// quorum is no longer placed, the gang is tried through its lead,
	// below, which may be this member.
	heldExtra := false
	if _, held := pl.heldPods.Load(pod.UID); held && pod.Spec.NodeName == "" {
		if _, extra := pl.heldExtras.Load(pod.UID); !extra {
			pl.planCache.invalidate()
			return fwk.QueueSkip, nil
		}
		heldExtra = true
	}
	// A pod leaving makes no room a parked gang could use (it is larger
	// than the cluster), and its next request waits out its backoff. Asked
	// here, after the members held behind the lead, once per lead.
	if _, isPod := podFrom(oldObj); isPod && pl.parked(key) != "" {
		pl.planCache.invalidate()
		return fwk.QueueSkip, nil
	}
	// A gang larger than the cluster's nodes were they empty gains nothing
	// from a node that could hold none of its members, were it empty
	// itself: neither room nor a smaller shortfall. On a cluster whose
	// CPU and small-GPU pools scale all day, every such node tried each
	// gang waiting for 8-GPU nodes beyond the pools' max. A node that could
	// hold one tries it again, and its attempt says afresh.
	// The same holds for a gang no domain of its required level could hold.
	// A node that could hold one unparks a parked gang's lead (parked).
	// Nor from a node that leaves the cluster's regular nodes with fewer
	// GPUs in all than its quorum asks for: a cluster growing node by node
	// toward a pool's max tried it again at each node, each try a
	// FailedScheduling event and two writes of its lead's condition.
	event := deliveryOf(oldObj, newObj)
	if n, isNode := newObj.(*v1.Node); isNode {
		gpus, beyond := pl.beyondCluster.Load(key)
		if beyond || pl.state.BeyondDomains(key) {
			if !pl.couldHoldAMember(n, key) {
				return fwk.QueueSkip, nil
			}
			if need, ok := gpus.(int64); ok && need > pl.memo.clusterGPUs(event, pl.clusterGPUs) {
				return fwk.QueueSkip, nil
			}
			pl.beyondCluster.Delete(key)
			pl.nodeCame.Store(key, struct{}{})
		}
	}
	// The queue asks once per waiting member, and MusterTopology asks
	// again for the members it rejected too: the plan is dropped and the
	// gang's lead found once per delivery of an event and gang.
	lead := pl.memo.of(key, event, func() types.UID {
		pl.planCache.invalidate()
		return pl.attemptLead(pod)
	})
	if (lead != "" && lead != pod.UID) || (lead == "" && heldExtra) {
		return fwk.QueueSkip, nil
	}
	return fwk.Queue, nil
}

// clusterGPUs is the GPUs of the cluster's regular nodes in all, as the
// node informer has them (spot nodes hold no quorum); the most an unknown
// count can be when there is no informer. A node event's hints count them
// once (eventMemo), not once per parked gang.
func (pl *Gang) clusterGPUs() int64 {
	if pl.nodes == nil {
		return math.MaxInt64
	}
	gpu := pl.shapes.GPU()
	var sum int64
	for _, o := range pl.nodes.List() {
		if n, ok := o.(*v1.Node); ok && !capacity.IsSpot(n) {
			if q, ok := n.Status.Allocatable[gpu]; ok {
				sum += q.Value()
			}
		}
	}
	return sum
}

// couldHoldAMember says whether node n, running nothing, has the
// allocatable for one of gang key's unplaced members.
func (pl *Gang) couldHoldAMember(n *v1.Node, key gang.Key) bool {
	for _, m := range pl.members(key) {
		if m.Spec.NodeName == "" && pl.shapes.Of(m).Demand.FitsEmpty(n.Status.Allocatable) {
			return true
		}
	}
	return false
}

// ownReservation says whether gone, delivered as a pod deleted, is a member
// of gang key the scheduler only forgot: the informer still holds it,
// unbound.
func (pl *Gang) ownReservation(key gang.Key, gone *v1.Pod) bool {
	if theirs, _, ok, _ := gang.GroupOf(gone); !ok || theirs != key {
		return false
	}
	obj, exists, err := pl.pods.GetByKey(gone.Namespace + "/" + gone.Name)
	if err != nil || !exists {
		return false
	}
	p, ok := obj.(*v1.Pod)
	return ok && p.UID == gone.UID && p.Spec.NodeName == "" && gang.Live(p)
}

// attemptLead is the member that leads the next attempt of pod's gang when
// its quorum is not placed and no member waits at Permit; "" when every
// unplaced member should be tried (elastic members above min are placed
// one by one, and an attempt under way brings its members itself).
func (pl *Gang) attemptLead(pod *v1.Pod) types.UID {
	spec, members, isGang, err := pl.resolveMembers(pod, true)
	if !isGang || err != nil {
		return ""
	}
	if counts := pl.tracker.Count(spec.Key, members, ""); spec.QuorumPlaced(counts) || counts.Waiting > 0 {
		return ""
	}
	if first := firstUnplaced(members); first != nil {
		return first.UID
	}
	return ""
}

// eventMemo keeps what the hints of the cluster event the queue is running
// share: each gang's attempt lead (the queue asks once per waiting member,
// and the lead is the same for all of a gang's members), and the GPUs of
// the cluster's regular nodes (asked once per parked gang). Each is worked
// out once per delivery of an event (every time for an event without a
// name).
type eventMemo struct {
	mu      sync.Mutex
	event   delivery
	leads   map[gang.Key]types.UID
	gpus    int64
	counted bool
}

// delivery tells one delivery of a cluster event from the next: its
// object's name and version, and the objects handed to the hints. One
// unchanged object can come again: the scheduler hands a pod it had
// assumed, each time it forgets it (Permit rejected it), as a pod
// deleted. By name alone the second such delivery reused the first's lead,
// and neither ended the gang's backoff nor dropped its stale capacity plan,
// so a gang waiting for that room could be left unretried.
type delivery struct {
	uid            types.UID
	version        string
	oldObj, newObj uintptr
}

func (m *eventMemo) of(key gang.Key, event delivery, lead func() types.UID) types.UID {
	m.mu.Lock()
	defer m.mu.Unlock()
	if event.uid == "" {
		return lead()
	}
	m.at(event)
	l, ok := m.leads[key]
	if !ok {
		l = lead()
		m.leads[key] = l
	}
	return l
}

// clusterGPUs is count's answer for event, counted once per delivery.
func (m *eventMemo) clusterGPUs(event delivery, count func() int64) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	if event.uid == "" {
		return count()
	}
	m.at(event)
	if !m.counted {
		m.gpus, m.counted = count(), true
	}
	return m.gpus
}

// at starts the memo afresh for a new delivery; m.mu is held.
func (m *eventMemo) at(event delivery) {
	if m.event != event {
		m.event, m.leads, m.counted = event, map[gang.Key]types.UID{}, false
	}
}

// deliveryOf names a cluster event's delivery by its object's UID and
// resource version (no UID when it has none) and the objects' addresses,
// without building a string: the queue asks once per waiting member.
func deliveryOf(oldObj, newObj any) delivery {
	obj := newObj
	if obj == nil {
		obj = oldObj
	}
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	o, err := meta.Accessor(obj)
	if err != nil || o.GetUID() == "" {
		return delivery{}
	}
	return delivery{uid: o.GetUID(), version: o.GetResourceVersion(), oldObj: address(oldObj), newObj: address(newObj)}
}

// address is where a hint's object lives (0 for one that is no pointer).
func address(obj any) uintptr {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	if v := reflect.ValueOf(obj); v.Kind() == reflect.Pointer {
		return v.Pointer()
	}
	return 0
}
