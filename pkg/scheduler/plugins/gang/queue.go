// Queue order and the quorum gate: PreEnqueue, Less, and members woken once the quorum exists.

package gang

import (
	"context"
	"fmt"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/muster-project/muster/pkg/capacity"
	"github.com/muster-project/muster/pkg/gang"
)

// PreEnqueue is the quorum gate: members of a gang with fewer than min
// members, or of a gang already at max, wait gated, neither retried in a loop
// nor reported Unschedulable (so no autoscaler scales for them). With
// MusterGangGate in the profile it gates only a parked gang's lead, which
// a node can let through, and leaves the rest to MusterGangGate: only a
// parked gang's members are judged twice (the queue runs PreEnqueue
// plugins in no set order, so neither can count on the other's verdict).
func (pl *Gang) PreEnqueue(ctx context.Context, pod *v1.Pod) *fwk.Status {
	if !pl.state.GateServed() {
		st, _ := pl.judge(ctx, pod)
		return st
	}
	if k, _, isGang, err := gang.GroupOf(pod); !isGang || err != nil || pl.parked(k) == "" {
		return nil
	}
	if st, parked := pl.judge(ctx, pod); parked {
		return st
	}
	return nil
}

// gateJudge is the gate MusterGangGate serves (gangstate.Gate.Judge): every
// verdict but a parked lead's.
func (pl *Gang) gateJudge(ctx context.Context, pod *v1.Pod) *fwk.Status {
	if st, parked := pl.judge(ctx, pod); !parked {
		return st
	}
	return nil
}

// judge is the gate's verdict on pod; parked says a node could change it
// (the lead of a parked gang), where otherwise only pods can.
func (pl *Gang) judge(ctx context.Context, pod *v1.Pod) (_ *fwk.Status, parked bool) {
	if _, _, isGang, err := gang.GroupOf(pod); !isGang && err == nil {
		return nil, false
	}
	if !pl.queueing.Load() {
		pl.queueing.Store(true)
	}
	// A member held behind its gang's lead is marked so before the gate
	// counts its gang: a sibling placed after the count, which would have
	// let it through, finds the mark and wakes it (memberPlaced). The queue
	// runs PreEnqueue and parks the pod under one hold of its lock, so the
	// wake, which takes that lock, finds the pod parked.
	pl.heldPods.Store(pod.UID, struct{}{})
	st, held, parked := pl.admit(ctx, pod)
	if held {
		pl.storeWhileLive(&pl.heldPods, pod)
	} else {
		pl.heldPods.Delete(pod.UID)
		pl.heldExtras.Delete(pod.UID)
	}
	return st, parked
}

// gateEvents are the events that can change a verdict of MusterGangGate's:
// MusterGang's pod events, no node event.
func (pl *Gang) gateEvents() []fwk.ClusterEventWithHint {
	var out []fwk.ClusterEventWithHint
	for _, e := range pl.events() {
		if e.Event.Resource != fwk.Node {
			out = append(out, e)
		}
	}
	return out
}

// admit is the gate's verdict on a gang member; held says the member waits
// behind its gang's lead (heldBy), parked that it leads a parked gang.
func (pl *Gang) admit(ctx context.Context, pod *v1.Pod) (_ *fwk.Status, held, parked bool) {
	spec, members, isGang, err := pl.resolveMembers(pod, true)
	if !isGang {
		return nil, false, false
	}
	if err != nil {
		pl.gate(pod)
		pl.status.invalid(spec.Key, pod, err)
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, err.Error()), false, false
	}
	counts := pl.tracker.Count(spec.Key, members, "")
	verdict, msg := spec.Admit(counts)
	pl.status.touch(spec.Key)
	if verdict == gang.Admit {
		pl.gatedPods.Delete(pod.UID)
		if lead := heldBy(spec, counts, members, pod); lead != nil {
			pl.status.held(spec.Key, pod)
			if _, gated := pl.gatedPods.Load(lead.UID); gated {
				// The quorum came by a change the gate's wake does not
				// see (a member's spec fixed, not a member added): the
				// lead still waits at the gate, and would hold the rest.
				pl.status.wakeLead(spec.Key)
			}
			pl.heldExtras.Delete(pod.UID)
			return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, fmt.Sprintf("gang %s: member %s tries for the gang; this member joins it once it holds a node", spec.Key, lead.Name)), true, false
		}
		if lead := pl.extraHeldBy(spec, counts, members, pod); lead != nil {
			pl.storeWhileLive(&pl.heldExtras, pod)
			pl.status.heldBehind(spec.Key, pod, lead.Name)
			return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, fmt.Sprintf("gang %s has its quorum: its elastic member %s tries for room for members like this one, which is tried once %s holds a node", spec.Key, lead.Name, lead.Name)), true, false
		}
		if msg := pl.parkedLead(spec, counts, pod); msg != "" {
			pl.status.gated(spec.Key, pod, msg)
			return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, msg), false, true
		}
		pl.status.admitted(pod)
		return nil, false, false
	}
	pl.gate(pod)
	pl.status.gated(spec.Key, pod, msg)
	return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, msg), false, false
}

// gate records that the gate turned pod away. The queue may run PreEnqueue
// on a pod whose deletion the plugin has already handled (podDeleted):
// then the record would outlive the pod, so it is dropped again once the
// pod is gone from the informer, which removes it before its delete
// handlers run.
func (pl *Gang) gate(pod *v1.Pod) { pl.storeWhileLive(&pl.gatedPods, pod) }

// storeWhileLive records pod in m (keyed by UID) unless the pod is gone from
// the informer: a scheduling cycle can run after the pod's delete was
// handled (podDeleted), and a record made then would never be removed.
func (pl *Gang) storeWhileLive(m *sync.Map, pod *v1.Pod) {
	m.Store(pod.UID, struct{}{})
	if o, ok, err := pl.pods.Get(pod); err != nil || !ok || o.(*v1.Pod).UID != pod.UID {
		m.Delete(pod.UID)
	}
}

// heldBy is the member that leads the attempts of pod's gang when pod is
// to wait at the gate meanwhile, else nil. While a gang's quorum is not
// placed and no member holds a reservation, its lead (firstUnplaced) alone
// goes through scheduling cycles: its attempt checks room for the whole
// quorum, and once it waits at Permit it brings the others in (Permit
// activates them, and the gate lets them through). Each cycle that fails
// has the framework write a FailedScheduling event and the PodScheduled
// condition of the pod it tried: of one member, not of every member per
// retry. The members held are shown Unschedulable by the gang's status
// writer (markHeld), once per change of what the gang waits for.
func heldBy(spec gang.Spec, counts gang.Counts, members []*v1.Pod, pod *v1.Pod) *v1.Pod {
	if spec.QuorumPlaced(counts) || counts.Waiting > 0 || pod.Spec.NodeName != "" {
		return nil
	}
	lead := firstUnplaced(members)
	if lead == nil || lead.UID == pod.UID {
		return nil
	}
	return lead
}

// extraKind is what makes elastic members above min of one gang try for
// the same room: their shape and priority, when their shape alone decides
// where they fit (capacity.PlacedByShape).
type extraKind struct {
	gang     gang.Key
	shape    string
	priority int32
}

// extraKindOf is pod's kind in gang k; ok is false when more than its shape
// decides where it fits: it is tried for itself.
func (pl *Gang) extraKindOf(k gang.Key, pod *v1.Pod) (_ extraKind, ok bool) {
	if !capacity.PlacedByShape(pod) {
		return extraKind{}, false
	}
	return extraKind{gang: k, shape: pl.shapes.Of(pod).Key, priority: corev1helpers.PodPriority(pod)}, true
}

// extraHeldBy is the elastic member that tries for room for pod's kind
// when pod is to wait at the gate meanwhile, else nil. Once a gang's
// quorum is placed its members above min are placed one by one, each
// where room is: one that failed for room leads its kind (PostFilter), and
// the others of its kind, which would find no room either, wait at the
// gate until it holds a node (extraPlaced) or leaves (extraGone), instead
// of each going through a scheduling cycle, and having the framework write
// its condition and a FailedScheduling event, at every node that comes or
// pod that leaves (their message counts the cluster's nodes). A lead
// placed or gone by a way those miss is found here, and lets pod through.
func (pl *Gang) extraHeldBy(spec gang.Spec, counts gang.Counts, members []*v1.Pod, pod *v1.Pod) *v1.Pod {
	if !spec.QuorumPlaced(counts) || pod.Spec.NodeName != "" {
		return nil
	}
	kind, ok := pl.extraKindOf(spec.Key, pod)
	if !ok {
		return nil
	}
	v, ok := pl.extraLeads.Load(kind)
	if !ok || v == pod.UID {
		return nil
	}
	for _, m := range members {
		if m.UID == v && m.Spec.NodeName == "" && len(m.Spec.SchedulingGates) == 0 && gang.Live(m) {
			return m
		}
	}
	pl.extraLeads.CompareAndDelete(kind, v)
	return nil
}

// extraFailed records that pod, a member above min of gang k, found no
// room: it leads its kind's tries unless another member does.
func (pl *Gang) extraFailed(k gang.Key, pod *v1.Pod) {
	if kind, ok := pl.extraKindOf(k, pod); ok {
		pl.extraLeads.LoadOrStore(kind, pod.UID)
	}
}

// extraPlaced lets the members held behind pod's kind through once a
// member of that kind holds a node: room came, and each tries for it.
func (pl *Gang) extraPlaced(ctx context.Context, k gang.Key, pod *v1.Pod) {
	if kind, ok := pl.extraKindOf(k, pod); ok {
		if _, led := pl.extraLeads.LoadAndDelete(kind); led {
			pl.wakeHeldExtras(ctx, kind)
		}
	}
}

// extraGone does the same when the lead of a kind left unplaced.
func (pl *Gang) extraGone(ctx context.Context, k gang.Key, pod *v1.Pod) {
	if kind, ok := pl.extraKindOf(k, pod); ok && pl.extraLeads.CompareAndDelete(kind, pod.UID) {
		pl.wakeHeldExtras(ctx, kind)
	}
}

func (pl *Gang) wakeHeldExtras(ctx context.Context, kind extraKind) {
	pods := map[string]*v1.Pod{}
	for _, m := range pl.members(kind.gang) {
		if _, held := pl.heldExtras.Load(m.UID); held && m.Spec.NodeName == "" {
			if mk, ok := pl.extraKindOf(kind.gang, m); ok && mk == kind {
				pods[m.Namespace+"/"+m.Name] = m
			}
		}
	}
	if len(pods) > 0 {
		pl.handle.Activate(klog.FromContext(ctx), pods)
	}
}

// parkedLead says why pod, the lead of its gang's attempts, waits at the
// gate ("" when it may go on): its gang is parked.
func (pl *Gang) parkedLead(spec gang.Spec, counts gang.Counts, pod *v1.Pod) string {
	if spec.QuorumPlaced(counts) || counts.Waiting > 0 || pod.Spec.NodeName != "" {
		return ""
	}
	return pl.parked(spec.Key)
}

// parked says why gang k's lead waits at the gate ("" when it does not):
// its quorum does not fit the cluster's nodes were they empty (nor, for a
// gang that requires a domain, any domain's nodes), and the autoscaler
// found that no node pool can hold it, its next request not due yet. Only
// a node that could hold a member and leaves the cluster's regular nodes
// with the GPUs its quorum asks for (roomFreed), or that request, can
// change that: each attempt meanwhile (the queue's flush of unschedulable pods
// every five minutes, each pod that leaves) would fail the same, and write
// the lead's condition and a FailedScheduling event again. Parked, it costs
// a PreEnqueue per flush. Its next request is written from the shortfall
// its last attempt found: no pool can hold the gang whatever that is.
func (pl *Gang) parked(k gang.Key) string {
	why, due, never := pl.state.NeverFits(k)
	if !never {
		return ""
	}
	if _, came := pl.nodeCame.Load(k); came {
		return ""
	}
	gpus, beyond := pl.beyondCluster.Load(k)
	if !beyond && !pl.state.BeyondDomains(k) {
		return ""
	}
	node := "a node that could hold one of its members"
	if need, ok := gpus.(int64); ok && need > 0 {
		node += fmt.Sprintf(", the cluster's regular nodes then having the %d GPUs its quorum asks for at least", need)
	}
	return fmt.Sprintf("gang %s waits for %s, or its next ProvisioningRequest at %s: its quorum does not fit the cluster's nodes were they empty, and its last request %s",
		k, node, due.UTC().Format(time.RFC3339), why)
}

// Less orders the queue by priority, then gang age, keeping a gang's members together.
func (pl *Gang) Less(a, b fwk.QueuedEntityInfo) bool {
	return gang.Less(pl.queueKey(a), pl.queueKey(b))
}

func (pl *Gang) queueKey(e fwk.QueuedEntityInfo) gang.QueueKey {
	k := gang.QueueKey{Priority: e.GetPriority(), Since: e.GetTimestamp(), Enqueued: e.GetTimestamp()}
	pi, ok := e.(interface{ GetPodInfo() fwk.PodInfo })
	if !ok {
		return k
	}
	pod := pi.GetPodInfo().GetPod()
	k.Namespace, k.Name = pod.Namespace, pod.Name
	if pl.ageFromFirstSeen {
		// On a trace clock the queue's stamps are wall time: pods a step
		// let in together would go in whatever order they were
		// activated, so they go by name.
		k.Enqueued = time.Time{}
	}
	key, _, isGang, err := gang.GroupOf(pod)
	if !isGang || err != nil {
		// On a trace clock a gang's age is trace time (created), so a
		// lone pod's is too: the queue's own stamps are wall time.
		if seen, ok := pl.loneSeen.Load(pod.UID); ok {
			k.Since = seen.(time.Time)
		}
		return k
	}
	k.Gang = key.String()
	if since, ok := pl.gangSince.Load(key); ok {
		k.Since = since.(time.Time)
	}
	return k
}

// quorumArrived wakes a gang's gated members when a new member completes its
// quorum. The framework only turns unscheduled pod additions into queue events
// with the GenericWorkload feature, so the gate is lifted here instead.
func (pl *Gang) quorumArrived(ctx context.Context, obj any) {
	pod, ok := obj.(*v1.Pod)
	if !ok || pod.Spec.NodeName != "" {
		return
	}
	spec, members, isGang, err := pl.resolveMembers(pod, true)
	if !isGang || err != nil {
		return
	}
	pl.status.arrival(spec.Key, pl.clock.Now())
	counts := pl.tracker.Count(spec.Key, members, "")
	if counts.Members < int(spec.MinMember) {
		pl.quorate.Delete(spec.Key)
		return
	}
	if _, done := pl.quorate.LoadOrStore(spec.Key, struct{}{}); !done {
		// A new quorum takes its place in the capacity plan at once: in a
		// plan made before it, it would stand behind every gang.
		pl.planCache.arrived(capacity.Waiting{Key: spec.Key.String(), Priority: corev1helpers.PodPriority(pod), Since: pl.created(spec)})
		// Every member, this one too: the informer's notices reach this
		// handler late, and the member this notice is about may have
		// been gated already, when the queue added it before the
		// others were in. A member not queued yet is left alone by the
		// queue, and passes the gate when it is added.
		pl.activate(klog.FromContext(ctx), spec.Key, "")
	}
}

// memberPlaced wakes the members of a gang that the gate holds behind its
// lead (heldBy) when a member of that gang is bound: its quorum may be
// placed now (a gang of min 1, or one whose lead completed it with bound
// members, never brings them in at Permit), or its lead may have changed.
// The plugin wakes them itself instead of registering bound pods as a
// queue event: the queue asks a gating plugin's hint about every member
// parked at its gate, of every gang, on each event the plugin registers,
// under the queue's lock, so every bind cost one hint per parked member of
// every other gang (make bench-perf, 1000 gangs of 3: the queue's requeue
// scan on binds took more CPU than the scheduling cycles).
func (pl *Gang) memberPlaced(ctx context.Context, oldObj, newObj any) {
	before, ok := podFrom(oldObj)
	after, ok2 := podFrom(newObj)
	if !ok || !ok2 || before.Spec.NodeName != "" || after.Spec.NodeName == "" {
		return
	}
	key, _, isGang, err := gang.GroupOf(after)
	if !isGang || err != nil {
		return
	}
	pods := map[string]*v1.Pod{}
	for _, m := range pl.members(key) {
		if _, held := pl.heldPods.Load(m.UID); held && m.Spec.NodeName == "" {
			pods[m.Namespace+"/"+m.Name] = m
		}
	}
	if len(pods) > 0 {
		pl.handle.Activate(klog.FromContext(ctx), pods)
	}
}

// boundArrived wakes a gang's unplaced members when a member arrives bound
// (a pod created with its node, or listed so when the scheduler starts):
// it counts toward min, and toward the quorum placed. Every unplaced
// member is woken, as for an arrival completing the quorum
// (quorumArrived), unless the gang is at its max, which no one passes.
func (pl *Gang) boundArrived(ctx context.Context, obj any) {
	pod, ok := obj.(*v1.Pod)
	if !ok || pod.Spec.NodeName == "" {
		return
	}
	spec, members, isGang, err := pl.resolveMembers(pod, true)
	if !isGang || err != nil {
		return
	}
	if counts := pl.tracker.Count(spec.Key, members, ""); counts.Placed >= int(spec.MaxMember) {
		return
	}
	pl.activate(klog.FromContext(ctx), spec.Key, "")
}

// leadGone brings the next lead of a gang whose lead left unplaced out of
// the gate: the members it held stay held (Gang.heldBy), and without a
// lead none of them would be tried again.
func (pl *Gang) leadGone(ctx context.Context, obj any) {
	pod, ok := podFrom(obj)
	if !ok || pod.Spec.NodeName != "" {
		return
	}
	pl.activateLead(ctx, pod)
	if key, _, isGang, err := gang.GroupOf(pod); isGang && err == nil {
		pl.extraGone(ctx, key, pod)
	}
}

// ungated does the same for a member whose last scheduling gate was lifted:
// it may be older than the lead, and so lead now.
func (pl *Gang) ungated(ctx context.Context, oldObj, newObj any) {
	before, ok := podFrom(oldObj)
	after, ok2 := podFrom(newObj)
	if !ok || !ok2 || len(before.Spec.SchedulingGates) == 0 || len(after.Spec.SchedulingGates) > 0 || after.Spec.NodeName != "" {
		return
	}
	pl.activateLead(ctx, after)
}

// activateLead moves the lead of pod's gang to the active queue, when the
// gate holds the gang's other members behind it.
func (pl *Gang) activateLead(ctx context.Context, pod *v1.Pod) {
	key, _, isGang, err := gang.GroupOf(pod)
	if !isGang || err != nil {
		return
	}
	if lead := firstUnplaced(pl.members(key)); lead != nil && lead.UID != pod.UID {
		pl.handle.Activate(klog.FromContext(ctx), map[string]*v1.Pod{lead.Namespace + "/" + lead.Name: lead})
	}
}
