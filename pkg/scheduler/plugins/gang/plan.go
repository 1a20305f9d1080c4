// The capacity plan in the plugin: its cache, shared domains and bookings, held room, Filter.

package gang

import (
	"context"
	"maps"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/muster-project/muster/pkg/capacity"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/gangstate"
	"github.com/muster-project/muster/pkg/scheduler/nodefit"
)

// ReasonHeld is the Filter reason for a node whose free room the capacity
// plan holds for waiting gangs served before the member's gang.
const ReasonHeld = capacity.ReasonHeld

// planTTL bounds how stale the plan a scheduling cycle reads may be: it is
// computed from every waiting gang, not once per member.
const planTTL = 200 * time.Millisecond

// planCache holds the last capacity plan, and the snapshot it was made
// from: the nodes and the number of pods on them. Fewer pods, more nodes or
// a node that may have more room (roomMayGrow: a taint gone, allocatable
// changed) mean room has appeared, and the plan must hold it before anyone
// uses it; more pods only take room, and the plan stands until planTTL.
type planCache struct {
	mu    sync.Mutex
	at    time.Time
	pods  int
	nodes []*v1.Node // in the snapshot's order
	plan  *capacity.Plan
}

// stands says whether the cached plan still holds for nodes carrying pods
// pods; c.mu is held. A node object replaced by one whose room cannot have
// grown (a heartbeat) is remembered, so it is not compared again.
func (c *planCache) stands(nodes []fwk.NodeInfo, pods int) bool {
	if time.Since(c.at) >= planTTL || pods < c.pods || len(nodes) != len(c.nodes) {
		return false
	}
	for i, ni := range nodes {
		n, was := ni.Node(), c.nodes[i]
		if n == was {
			continue
		}
		if n == nil || was == nil || n.Name != was.Name || roomMayGrow(was, n) {
			return false
		}
		c.nodes[i] = n
	}
	return true
}

// roomMayGrow says whether a node's update may let pods onto it that its
// old version kept off: what the scheduler's fit reads of the node object.
func roomMayGrow(was, n *v1.Node) bool {
	return n.Spec.Unschedulable != was.Spec.Unschedulable ||
		!equality.Semantic.DeepEqual(n.Spec.Taints, was.Spec.Taints) ||
		!equality.Semantic.DeepEqual(n.Status.Allocatable, was.Status.Allocatable) ||
		!maps.Equal(n.Labels, was.Labels)
}

// invalidate makes the next cycle compute the plan afresh: room freed, or a
// gang's backoff ended.
func (c *planCache) invalidate() {
	c.mu.Lock()
	c.at = time.Time{}
	c.mu.Unlock()
}

// arrived makes the next cycle compute the plan afresh for a gang whose
// quorum just arrived, unless the plan would serve it after every gang it
// holds room for: then the plan already sets all its room aside for it, as
// it will for it once made again, and a burst of new gangs does not make
// the plan again for each (each pass reads every waiting member and node).
func (c *planCache) arrived(g capacity.Waiting) {
	c.mu.Lock()
	if c.plan == nil || !c.plan.ServedAfterAll(g) {
		c.at = time.Time{}
	}
	c.mu.Unlock()
}

// plan returns the capacity plan: free room promised to waiting quorums in
// the order they are served (capacity.MakePlan).
func (pl *Gang) plan(ctx context.Context, nodes []fwk.NodeInfo) *capacity.Plan {
	c := &pl.planCache
	pods := 0
	for _, ni := range nodes {
		pods += len(ni.GetPods())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stands(nodes, pods) {
		return c.plan
	}
	c.at, c.pods = time.Now(), pods
	c.nodes = c.nodes[:0]
	for _, ni := range nodes {
		c.nodes = append(c.nodes, ni.Node())
	}
	waiting := pl.waitingGangs()
	booked := pl.bookedNodes(nodes)
	if len(waiting) == 0 && len(booked) == 0 {
		c.plan = nil
		return nil
	}
	var empty []capacity.Node
	for i := range waiting {
		if waiting[i].Waited < pl.starvationBound {
			continue
		}
		if empty == nil {
			empty = nodefit.Empty(nodes)
		}
		// Members without GPUs (a launcher) do not count: the autoscaler's
		// ordinary scale-up adds a CPU node for them once the GPUs come, so
		// a cluster without a free CPU node does not make the gang larger
		// than the cluster (it did, and such a gang was starved for ever).
		gpuPart, _ := waiting[i].Quorum.Split()
		waiting[i].CouldFit = capacity.Pack(klog.FromContext(ctx), gpuPart, empty, waiting[i].InDomain).Fits()
	}
	// A starving gang counts the room of the members it may shed (those it
	// lent room to) and of a higher priority's growth that came while it
	// starved as its own: read the running gangs only then, as they are
	// every bound pod.
	var running []capacity.Gang
	for _, w := range waiting {
		if w.Waited >= pl.starvationBound && w.CouldFit {
			running, _ = pl.runningGangs(gang.Key{})
			break
		}
	}
	c.plan = capacity.MakePlan(klog.FromContext(ctx), waiting, pl.rooms.Rooms(nodes), running, booked, pl.starvationBound)
	return c.plan
}

// bookedNodes names, by node, the gang each booked node is kept for.
func (pl *Gang) bookedNodes(nodes []fwk.NodeInfo) map[string]string {
	byID := pl.state.Booked()
	if len(byID) == 0 {
		return nil
	}
	out := map[string]string{}
	for _, ni := range nodes {
		if n := ni.Node(); n != nil && n.Spec.ProviderID != "" {
			if k, ok := byID[strings.ToLower(n.Spec.ProviderID)]; ok {
				out[n.Name] = k.String()
			}
		}
	}
	return out
}

// waitingGangs lists the gangs whose quorum exists but is not placed, with
// the members that would complete the quorum; not gangs whose last attempt
// failed for a reason other than room (until an attempt fails for room).
func (pl *Gang) waitingGangs() []capacity.Waiting {
	pending := map[gang.Key]*v1.Pod{}
	for _, key := range pl.pods.ListIndexFuncValues(gangstate.PendingGangIndex) {
		objs, err := pl.pods.ByIndex(gangstate.PendingGangIndex, key)
		if err != nil || len(objs) == 0 {
			continue
		}
		p, ok := objs[0].(*v1.Pod)
		if !ok {
			continue
		}
		if k, _, isGang, err := gang.GroupOf(p); isGang && err == nil {
			pending[k] = p
		}
	}
	var out []capacity.Waiting
	for k, p := range pending {
		spec, _, err := pl.resolve(p)
		if err != nil {
			continue
		}
		inDomain := pl.state.HeldDomain(k)
		if short, failed := pl.roomShort.Load(k); failed && short != true && inDomain == nil {
			// Its last attempt failed for a reason the plan does not see
			// (GPU class, affinity, a required level no domain of which
			// could hold it): room held for it could go unused, and keep
			// others waiting. Room short in MusterTopology (a required
			// domain, or the cluster's GPUs of its class) is room:
			// MusterTopology names the nodes to hold it on.
			continue
		}
		members := pl.members(k)
		counts := pl.tracker.Count(k, members, "")
		if spec.QuorumPlaced(counts) || counts.Members < int(spec.MinMember) {
			continue
		}
		need := int64(spec.MinMember) - int64(counts.Placed) - int64(counts.Waiting)
		var ready []*v1.Pod
		for _, m := range unplaced(members) {
			if len(m.Spec.SchedulingGates) == 0 && !pl.tracker.IsWaiting(k, m.UID) {
				ready = append(ready, m)
			}
		}
		if int64(len(ready)) < need {
			// Members the quorum needs are gated: nothing can complete it
			// yet, and room held for it would only idle.
			continue
		}
		priority := corev1helpers.PodPriority(p)
		out = append(out, capacity.Waiting{Key: k.String(), Priority: priority, Since: pl.created(spec), Waited: pl.clock.Since(pl.created(spec)),
			Quorum: capacity.QuorumOfShapes(need, ready, nil, pl.shapes.Of), InDomain: inDomain, MayShed: pl.preemption.policy(priority).Preempt})
	}
	return out
}

// Filter keeps a member off room the capacity plan holds for gangs served
// before its own: a quorum member off room held for higher-priority or older
// waiting quorums, an elastic member off room held for any waiting quorum.
// It keeps quorum members, and members above min of gangs that did not opt
// in, off spot nodes. Nodes with nothing held pass at once.
func (pl *Gang) Filter(_ context.Context, state fwk.CycleState, _ *v1.Pod, ni fwk.NodeInfo) *fwk.Status {
	s := gangstate.HeldOf(state)
	if s == nil {
		return nil
	}
	if s.Spot != "" && capacity.IsSpot(ni.Node()) {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, s.Spot)
	}
	if !s.Held.On(ni.Node().Name) {
		return nil
	}
	room := nodefit.Room(ni)
	if !s.Held.Admits(s.Shape, &room) {
		return fwk.NewStatus(fwk.Unschedulable, ReasonHeld)
	}
	return nil
}
