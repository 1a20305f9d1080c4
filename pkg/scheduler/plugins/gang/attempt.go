// A gang's attempt: PreFilter's room check, PostFilter's failure, the backoff and its wake.

package gang

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/muster-project/muster/pkg/capacity"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/gangstate"
)

// PreFilter fails fast for a gang that is backing off, and, when a gang's
// attempt starts, checks once that the cluster has room for the whole quorum,
// every member shape of it at the same time (capacity.Pack), so no member
// reserves anything for a gang that cannot fit.
func (pl *Gang) PreFilter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	pl.leading.Scheduling()
	spec, members, isGang, err := pl.resolveMembers(pod, true)
	if !isGang {
		return nil, fwk.NewStatus(fwk.Skip)
	}
	if err != nil {
		pl.status.invalid(spec.Key, pod, err)
		return nil, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, err.Error())
	}
	cs := &gangstate.Cycle{Spec: spec}
	state.Write(gangstate.CycleKey, cs)
	if reason, left, backingOff := pl.tracker.BackingOff(spec.Key); backingOff {
		cs.Failed = true // not attempted: PostFilter has nothing to fail
		return nil, fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("%s (retrying in %s)", reason, left.Round(time.Second)))
	}
	cs.Attempt = pl.tracker.Attempt(spec.Key)
	pl.nodeCame.Delete(spec.Key) // this attempt looks again (parked)
	counts := pl.tracker.Count(spec.Key, members, pod.UID)
	// A member is above min once the quorum is placed or holds its
	// reservations.
	extra := counts.Placed+counts.Waiting >= int(spec.MinMember)
	// Room the capacity plan holds for gangs served first is not this
	// member's: Filter keeps it off, and the room check leaves it out. A
	// member above min comes before the quorums of lower priority that do
	// not fit yet (capacity.Plan.Growth), and may borrow room held for a
	// starving gang that would shed it (capacity.Plan.Lent), unless its
	// gang goes only as a whole.
	plan := pl.plan(ctx, nodes)
	held := plan.Ahead(spec.Key.String())
	switch priority := corev1helpers.PodPriority(pod); {
	case extra && spec.WholeOnly:
		held = plan.Growth(spec.Key.String(), priority)
	case extra:
		held = plan.Lent(spec.Key.String(), priority)
	}
	// Spot nodes matter only to members that tolerate their taint.
	spot := ""
	if capacity.TolerateSpot(pod) {
		spot = capacity.SpotRule(!extra, spec.SpotExtras)
	}
	if !held.Empty() || spot != "" {
		state.Write(gangstate.HeldKey, &gangstate.Held{Held: held, Shape: pl.shapes.DemandOf(pod), Spot: spot})
	}
	_, wide := pl.wideOnce.LoadAndDelete(pod.UID)
	cs.MayNarrow = held.Empty() && !wide
	if spec.QuorumPlaced(counts) || counts.Waiting > 0 {
		return nil, nil
	}
	need := int64(spec.MinMember) - int64(counts.Placed)
	left := unplaced(members)
	quorum := capacity.QuorumOfShapes(need, left, pod, pl.shapes.Of)
	logger := klog.FromContext(ctx)
	rooms := pl.roomsOf(nodes)
	if packing := capacity.PackAround(logger, quorum, rooms, nil, held); !packing.Fits() {
		msg := fmt.Sprintf("gang %s needs %d more members placed at once (min %d, %d placed: %s); the cluster has room for %d members, none for %s",
			spec.Key, need, spec.MinMember, counts.Placed, quorum, need-packing.Short.Members(), packing.Short)
		if !held.Empty() && capacity.Pack(logger, quorum, rooms, nil).Fits() {
			msg += " (room is held for gangs ahead in the capacity plan: higher priority, or older)"
		}
		if capacity.Pack(logger, quorum, pl.emptyRoomsOf(nodes), nil).Fits() {
			pl.beyondCluster.Delete(spec.Key)
		} else {
			// Only nodes coming let it in (roomFreed). Pods leaving
			// still try it again: they change its shortfall, which its
			// attempt writes for the autoscaler.
			pl.beyondCluster.Store(spec.Key, pl.fewestGPUs(need, left))
			msg += "; the cluster's nodes could not hold it were they empty"
		}
		if did := pl.makeRoom(ctx, cs, spec, pod, quorum, rooms, held); did != "" {
			msg += "; " + did
		}
		pl.roomShort.Store(spec.Key, true)
		cs.Failed = true
		pl.fail(ctx, spec.Key, msg, cs.Attempt)
		return nil, fwk.NewStatus(fwk.Unschedulable, msg)
	}
	return nil, nil
}

// fewestGPUs is the fewest GPUs any need of a gang's unplaced members
// (left) ask for in all.
func (pl *Gang) fewestGPUs(need int64, left []*v1.Pod) int64 {
	shapes := make([]*capacity.Shape, 0, len(left))
	for _, m := range left {
		shapes = append(shapes, pl.shapes.Of(m))
	}
	return capacity.FewestGPUs(need, shapes)
}

// unplaced lists a gang's live members that have no node yet.
func unplaced(members []*v1.Pod) []*v1.Pod {
	out := make([]*v1.Pod, 0, len(members))
	for _, m := range members {
		if m.Spec.NodeName == "" && gang.Live(m) {
			out = append(out, m)
		}
	}
	return out
}

// SignPod refuses batching for gang members: Filter keeps them off room the
// capacity plan holds, which depends on the member's gang, not its spec.
// Other pods add nothing to their signature.
func (pl *Gang) SignPod(_ context.Context, pod *v1.Pod) ([]fwk.SignFragment, *fwk.Status) {
	if _, _, isGang, _ := gang.GroupOf(pod); isGang {
		return nil, fwk.NewStatus(fwk.Unschedulable, "a gang member's nodes depend on the capacity plan of its gang")
	}
	return nil, nil
}

// PreFilterExtensions is nil: the plugin has no Filter to update incrementally.
func (pl *Gang) PreFilterExtensions() fwk.PreFilterExtensions { return nil }

// PostFilter runs when a member fits no node. Before the quorum is placed that
// fails the whole attempt: every waiting member is rejected so nothing stays
// reserved, and the gang backs off.
func (pl *Gang) PostFilter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, statuses fwk.NodeToStatusReader) (*fwk.PostFilterResult, *fwk.Status) {
	spec, isGang, err := pl.specFor(state, pod)
	if !isGang || err != nil {
		return nil, fwk.NewStatus(fwk.Unschedulable)
	}
	// The framework also runs PostFilter when PreFilter failed; a gang this
	// plugin already failed (in this cycle, or one that backs off) must not
	// be failed again.
	cs := gangstate.CycleOf(state)
	if cs != nil && cs.Failed {
		return nil, fwk.NewStatus(fwk.Unschedulable, pl.tracker.LastFailure(spec.Key))
	}
	if reason, _, backingOff := pl.tracker.BackingOff(spec.Key); backingOff {
		return nil, fwk.NewStatus(fwk.Unschedulable, reason)
	}
	if gangstate.NarrowedCycle(state) {
		// Only the gang's own nodes were tried: try every node at once,
		// before failing the gang's attempt. The member is in flight, so
		// the queue brings it back as soon as this cycle ends.
		pl.storeWhileLive(&pl.wideOnce, pod)
		pl.handle.Activate(klog.FromContext(ctx), map[string]*v1.Pod{pod.Namespace + "/" + pod.Name: pod})
		return nil, fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("gang %s: member %s fits none of the nodes holding its gang's members; trying every node", spec.Key, pod.Name))
	}
	members := pl.members(spec.Key)
	counts := pl.tracker.Count(spec.Key, members, pod.UID)
	if spec.QuorumPlaced(counts) {
		// The members of its kind wait behind it (extraHeldBy); holding
		// one marks its gang for the status writer (heldBehind).
		pl.extraFailed(spec.Key, pod)
		return nil, fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("gang %s has its quorum; elastic member waits for room", spec.Key))
	}
	if q, others := pl.othersComplete(ctx, spec, pod, members, counts, pl.attemptOf(state, spec.Key)); others != nil {
		// The attempt's room check counted the members most likely to
		// fit (a launcher), not this one: the queue only tried it first.
		// It waits; the others are tried while the reservations hold.
		pl.handle.Activate(klog.FromContext(ctx), others)
		return nil, fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("gang %s: member %s fits no node; its other pending members (%s) complete the quorum and are tried first", spec.Key, pod.Name, q))
	}
	why, roomShort := pl.whyNoNode(statuses)
	msg := fmt.Sprintf("gang %s could not place its quorum: member %s fits no node (%d of min %d placed, %d holding reservations released)%s",
		spec.Key, pod.Name, counts.Placed, spec.MinMember, counts.Waiting, why)
	// A gang short of room stays in the capacity plan, which may hold room
	// for it; one that failed for another reason (GPU class, affinity) is
	// left out until an attempt fails for room.
	pl.roomShort.Store(spec.Key, roomShort)
	// Release this attempt's reservations before counting room to make.
	pl.fail(ctx, spec.Key, msg, pl.attemptOf(state, spec.Key))
	if nodes, err := pl.handle.SnapshotSharedLister().NodeInfos().List(); err == nil {
		members := pl.members(spec.Key)
		counts := pl.tracker.Count(spec.Key, members, "")
		quorum := capacity.QuorumOfShapes(int64(spec.MinMember)-int64(counts.Placed), unplaced(members), pod, pl.shapes.Of)
		if did := pl.makeRoom(ctx, gangstate.CycleOf(state), spec, pod, quorum, pl.roomsOf(nodes), pl.plan(ctx, nodes).Ahead(spec.Key.String())); did != "" {
			msg += "; " + did
		}
	}
	return nil, fwk.NewStatus(fwk.Unschedulable, msg)
}

// passed is the members one attempt of a gang let wait (othersComplete).
type passed struct {
	attempt uint64
	uids    map[types.UID]bool
}

// othersComplete says whether, with an attempt under way (members holding
// reservations), the gang's other pending members complete its quorum in
// the room left (around room held for gangs ahead): then a member that fits
// no node need not fail the attempt. Only members of other shapes count (one
// of the same shape finds no node either), and none this attempt already
// let wait, so that two members never pass the attempt back and forth. It
// returns that quorum and the members to try for it, by namespace/name, or
// nil; when it returns them, pod is recorded as let wait.
func (pl *Gang) othersComplete(ctx context.Context, spec gang.Spec, pod *v1.Pod, members []*v1.Pod, counts gang.Counts, attempt uint64) (capacity.Quorum, map[string]*v1.Pod) {
	need := int64(spec.MinMember) - int64(counts.Placed) - int64(counts.Waiting)
	if counts.Waiting == 0 || need <= 0 {
		return nil, nil
	}
	var skipped map[types.UID]bool
	if v, ok := pl.passedOver.Load(spec.Key); ok && v.(passed).attempt == attempt {
		skipped = v.(passed).uids
	}
	mine := pl.shapes.Of(pod).Key
	var others []*v1.Pod
	for _, m := range unplaced(members) {
		if m.UID != pod.UID && !skipped[m.UID] && len(m.Spec.SchedulingGates) == 0 && !pl.tracker.IsWaiting(spec.Key, m.UID) && pl.shapes.Of(m).Key != mine {
			others = append(others, m)
		}
	}
	if int64(len(others)) < need {
		return nil, nil
	}
	nodes, err := pl.handle.SnapshotSharedLister().NodeInfos().List()
	if err != nil {
		return nil, nil
	}
	q := capacity.QuorumOfShapes(need, others, nil, pl.shapes.Of)
	if !capacity.PackAround(klog.FromContext(ctx), q, pl.roomsOf(nodes), nil, pl.plan(ctx, nodes).Ahead(spec.Key.String())).Fits() {
		return nil, nil
	}
	// The members the quorum counts, not every other member: those left
	// out wait with this one.
	left := map[string]int64{}
	for _, w := range q {
		left[w.Shape.Key] += w.Count
	}
	out := map[string]*v1.Pod{}
	for _, m := range others {
		if k := pl.shapes.Of(m).Key; left[k] > 0 {
			left[k]--
			out[m.Namespace+"/"+m.Name] = m
		}
	}
	uids := map[types.UID]bool{pod.UID: true}
	for u := range skipped {
		uids[u] = true
	}
	pl.passedOver.Store(spec.Key, passed{attempt: attempt, uids: uids})
	return q, out
}

// whyNoNode sums up why nodes rejected the member, most common reason first,
// so the gang's status says more than "fits no node", and says whether room
// is what the member lacked: some node rejected it for room alone
// (capacity.IsRoomReason). It runs once per failed attempt, not per member.
func (pl *Gang) whyNoNode(statuses fwk.NodeToStatusReader) (summary string, roomShort bool) {
	if statuses == nil {
		return "", false
	}
	nodes, err := pl.handle.SnapshotSharedLister().NodeInfos().List()
	if err != nil || len(nodes) == 0 {
		return "", false
	}
	count := map[string]int{}
	for _, ni := range nodes {
		st := statuses.Get(ni.Node().Name)
		if st == nil || st.IsSuccess() {
			continue
		}
		roomOnly := len(st.Reasons()) > 0
		for _, r := range st.Reasons() {
			count[r]++
			roomOnly = roomOnly && capacity.IsRoomReason(r)
		}
		roomShort = roomShort || roomOnly
	}
	return ": " + gang.SummarizeReasons(count, len(nodes)), roomShort
}

// fail ends a gang's attempt (token attempt): reject every waiting member,
// back off, and wake the gang when the backoff ends; when the cluster
// changed while the attempt ran, the change requeues it instead
// (gang.WakeByEvent).
func (pl *Gang) fail(ctx context.Context, key gang.Key, msg string, attempt uint64) {
	logger := klog.FromContext(ctx)
	reject, wake := pl.tracker.Fail(key, msg, pl.backoff, attempt)
	logger.V(2).Info("Gang attempt failed", "gang", key, "backoff", wake != gang.WakeByEvent, "reason", msg)
	for _, uid := range reject {
		if wp := pl.handle.GetWaitingPod(uid); wp != nil {
			wp.Reject(Name, msg)
		}
	}
	pl.status.touch(key)
	if wake == gang.WakeAfterBackoff {
		pl.wakeAfterBackoff(logger, key, pl.backoff)
	}
}

// wakeAfterBackoff starts the gang's next attempt once its backoff has
// ended. A failure while the timer runs pushes the backoff out; waking the
// gang at the first deadline would only have it rejected again, and nothing
// would wake it after. Whether a wake is armed is the tracker's to say
// (Fail, WakeDue), under its lock, so none is lost between a check and a
// failure.
//
// One member is woken, not all: the attempt's first member checks the room
// for the whole quorum in PreFilter, and once it waits at Permit it brings
// the others forward (Permit). A gang that still does not fit is rejected
// in one scheduling cycle instead of one per member, which is what a
// backlog of gangs too big for the cluster costs on every backoff.
func (pl *Gang) wakeAfterBackoff(logger klog.Logger, key gang.Key, d time.Duration) {
	pl.clock.AfterFunc(d, func() {
		if left, due := pl.tracker.WakeDue(key); !due {
			pl.wakeAfterBackoff(logger, key, left)
			return
		}
		if first := firstUnplaced(pl.members(key)); first != nil {
			pl.handle.Activate(logger, map[string]*v1.Pod{first.Namespace + "/" + first.Name: first})
		}
	})
}

// firstUnplaced is the oldest live member without a node (olderPod) and
// without scheduling gates (a pod that still has some cannot be tried), nil
// if there is none: the same member leads each attempt.
func firstUnplaced(members []*v1.Pod) *v1.Pod {
	var first *v1.Pod
	for _, m := range members {
		if m.Spec.NodeName == "" && len(m.Spec.SchedulingGates) == 0 && gang.Live(m) && (first == nil || olderPod(m, first)) {
			first = m
		}
	}
	return first
}

// activate moves a gang's unplaced members to the active queue.
func (pl *Gang) activate(logger klog.Logger, key gang.Key, except types.UID) {
	pods := map[string]*v1.Pod{}
	for _, m := range pl.members(key) {
		if m.Spec.NodeName == "" && m.UID != except && gang.Live(m) {
			pods[m.Namespace+"/"+m.Name] = m
		}
	}
	if len(pods) > 0 {
		pl.handle.Activate(logger, pods)
	}
}
