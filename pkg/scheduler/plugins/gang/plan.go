// The capacity plan in the plugin: its cache, shared domains and bookings, held room, Filter.

package gang

import (
	"context"
	"maps"
	"math"
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

// planCache holds the capacity planner and the last plan, and the snapshot
// it was made from: the nodes and the number of pods on them. Fewer pods,
// more nodes or a node that may have more room (roomMayGrow: a taint gone,
// allocatable changed) mean room has appeared, and the plan must hold it
// before anyone uses it; more pods only take room, and the plan stands until
// planTTL. The plan is then brought up to date (capacity.Planner): every
// waiting gang is read again, the nodes whose NodeInfo changed, and the
// planner packs again only from the first gang a change can move. A gang
// whose quorum was placed, or that arrived ahead of gangs in the plan, is
// read alone (changed): the other gangs are as they were.
type planCache struct {
	mu    sync.Mutex
	at    time.Time
	pods  int
	nodes []*v1.Node // in the snapshot's order
	plan  *capacity.Plan
	// full: read every waiting gang at the next cycle (invalidate);
	// changed: read these gangs (by key) only.
	full    bool
	changed map[string]struct{}
	planner *capacity.Planner
	// entries is the last snapshot's nodes, by index, and rooms the room
	// of those quorums may use (not spot nodes), in order: the planner's.
	entries []snapshotNode
	rooms   []capacity.Node
	// podCount is the number of pods on entries' nodes.
	podCount int
	// first is the first index of rooms changed since the planner was last
	// given them (math.MaxInt: none).
	first   int
	running bool // the planner was given running gangs
	// empty is the room of the same nodes were they empty, made again
	// only when a node object changed (emptyStale).
	empty      []capacity.Node
	emptyStale bool
}

// snapshotNode is one node of the snapshot as the plan last read it.
type snapshotNode struct {
	info       fwk.NodeInfo
	generation int64
	node       *v1.Node
	skip       bool // no node, or a spot node: no room for quorums
	pods       int  // pods on it
	room       capacity.Node
}

// stands says whether the cached plan still holds for nodes carrying pods
// pods at now; c.mu is held. A node object replaced by one whose room
// cannot have grown (a heartbeat) is remembered, so it is not compared
// again.
func (c *planCache) stands(now time.Time, nodes []fwk.NodeInfo, pods int) bool {
	if c.full || len(c.changed) > 0 || now.Sub(c.at) >= planTTL || pods < c.pods || len(nodes) != len(c.nodes) {
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

// invalidate makes the next cycle read every waiting gang afresh: room
// freed, or a gang's backoff ended.
func (c *planCache) invalidate() {
	c.mu.Lock()
	c.full = true
	c.mu.Unlock()
}

// gangChanged makes the next cycle read gang key afresh (its quorum was
// placed), and no other.
func (c *planCache) gangChanged(key string) {
	c.mu.Lock()
	if c.changed == nil {
		c.changed = map[string]struct{}{}
	}
	c.changed[key] = struct{}{}
	c.mu.Unlock()
}

// arrived makes the next cycle read a gang whose quorum just arrived,
// unless the plan would serve it after every gang it holds room for: then
// the plan already sets all its room aside for it, as it will for it once
// made again, and a burst of new gangs does not make the plan again for
// each.
func (c *planCache) arrived(g capacity.Waiting) {
	c.mu.Lock()
	if c.plan == nil || !c.plan.ServedAfterAll(g) {
		if c.changed == nil {
			c.changed = map[string]struct{}{}
		}
		c.changed[g.Key] = struct{}{}
	}
	c.mu.Unlock()
}

// readNodes brings c.rooms up to date with the snapshot's nodes, reading
// again only those whose NodeInfo changed (a new generation), and lowers
// c.first to the first index of a room that changed; c.mu is held.
func (c *planCache) readNodes(nodes []fwk.NodeInfo) {
	if c.rooms == nil {
		c.first = 0
	}
	first := c.first
	r := 0
	shifted := false // rooms from here on moved: a node came, went or turned spot
	for i, ni := range nodes {
		if i == len(c.entries) {
			c.entries = append(c.entries, snapshotNode{})
		}
		e := &c.entries[i]
		changed := false
		if e.info != ni || e.generation != ni.GetGeneration() || e.node != ni.Node() {
			n := ni.Node()
			if e.node != n {
				c.emptyStale = true
			}
			skip := n == nil || capacity.IsSpot(n)
			if skip != e.skip || e.info == nil || (e.node != nil && n != nil && e.node.Name != n.Name) {
				shifted = true
			}
			c.podCount -= e.pods
			*e = snapshotNode{info: ni, generation: ni.GetGeneration(), node: n, skip: skip, pods: len(ni.GetPods())}
			c.podCount += e.pods
			if !skip {
				e.room = nodefit.Room(ni)
			}
			changed = true
		}
		if e.skip {
			continue
		}
		if changed || shifted || r >= len(c.rooms) {
			if r < len(c.rooms) {
				c.rooms[r] = e.room
			} else {
				c.rooms = append(c.rooms, e.room)
			}
			first = min(first, r)
		}
		r++
	}
	for _, e := range c.entries[len(nodes):] {
		c.podCount -= e.pods
		c.emptyStale = true
	}
	clear(c.entries[len(nodes):])
	c.entries = c.entries[:len(nodes)]
	if r < len(c.rooms) {
		clear(c.rooms[r:])
		c.rooms = c.rooms[:r]
		first = min(first, r)
	}
	c.first = first
}

// roomsOf is the room of the snapshot's nodes that quorums may use
// (nodefit.Rooms), read again only where a NodeInfo changed. The slice is
// the plan cache's and changes in place: read it within the scheduling
// cycle only, which alone calls roomsOf and plan.
func (pl *Gang) roomsOf(nodes []fwk.NodeInfo) []capacity.Node {
	c := &pl.planCache
	c.mu.Lock()
	defer c.mu.Unlock()
	c.readNodes(nodes)
	return c.rooms
}

// emptyRoomsOf is the room of the snapshot's nodes that quorums may use,
// were no pod on them (nodefit.Empty): what the cluster could hold at all.
// Like roomsOf, read it within the scheduling cycle only.
func (pl *Gang) emptyRoomsOf(nodes []fwk.NodeInfo) []capacity.Node {
	c := &pl.planCache
	c.mu.Lock()
	defer c.mu.Unlock()
	c.readNodes(nodes)
	if c.empty == nil || c.emptyStale {
		c.empty, c.emptyStale = nodefit.Empty(nodes), false
	}
	return c.empty
}

// plan returns the capacity plan: free room promised to waiting quorums in
// the order they are served (capacity.MakePlan, kept up to date by a
// capacity.Planner).
func (pl *Gang) plan(ctx context.Context, nodes []fwk.NodeInfo) *capacity.Plan {
	c := &pl.planCache
	c.mu.Lock()
	defer c.mu.Unlock()
	// The nodes are read again where their NodeInfo changed, and counted.
	c.readNodes(nodes)
	pods := c.podCount
	now := pl.clock.Now()
	if c.stands(now, nodes, pods) {
		return c.plan
	}
	logger := klog.FromContext(ctx)
	// Room appeared (a node came or may have more room, pods left), the
	// plan is older than planTTL, or the cache was invalidated: every
	// waiting gang is read again. Otherwise only the gangs changed.
	full := c.full || c.planner == nil || now.Sub(c.at) >= planTTL || pods < c.pods || len(nodes) != len(c.nodes)
	if !full {
		for i, ni := range nodes {
			if n, was := ni.Node(), c.nodes[i]; n != was && (n == nil || was == nil || n.Name != was.Name || roomMayGrow(was, n)) {
				full = true
				break
			}
		}
	}
	if full {
		c.at = now
	}
	c.pods = pods
	c.nodes = c.nodes[:0]
	for _, ni := range nodes {
		c.nodes = append(c.nodes, ni.Node())
	}
	if c.planner == nil {
		c.planner = capacity.NewPlanner(logger, pl.starvationBound)
	}
	var empty []capacity.Node
	emptyNodes := func() []capacity.Node {
		if empty == nil {
			empty = nodefit.Empty(nodes)
		}
		return empty
	}
	if full {
		waiting := pl.waitingGangs()
		for i := range waiting {
			pl.couldFit(logger, &waiting[i], emptyNodes)
		}
		c.planner.SetWaiting(waiting)
	} else {
		for key := range c.changed {
			if w, ok := pl.waitingGang(key); ok {
				pl.couldFit(logger, &w, emptyNodes)
				c.planner.Set(w)
			} else {
				c.planner.Remove(key)
			}
		}
	}
	c.full, c.changed = false, nil
	c.planner.SetNodes(c.rooms, c.first)
	c.first = math.MaxInt
	booked := pl.bookedNodes(nodes)
	c.planner.SetBooked(booked)
	// A starving gang counts the room of the members it may shed (those it
	// lent room to) and of a higher priority's growth that came while it
	// starved as its own: read the running gangs only then, as they are
	// every bound pod.
	if c.planner.ReadsRunning() {
		running, _ := pl.runningGangs(gang.Key{})
		c.planner.SetRunning(running)
		c.running = true
	} else if c.running {
		c.planner.SetRunning(nil)
		c.running = false
	}
	plan := c.planner.Plan()
	if len(plan.Waiting()) == 0 && len(booked) == 0 {
		plan = nil
	}
	c.plan = plan
	return plan
}

// couldFit says whether a starving gang's quorum fits the cluster's nodes
// were they empty (capacity.Waiting.CouldFit); empty reads them.
func (pl *Gang) couldFit(logger klog.Logger, w *capacity.Waiting, empty func() []capacity.Node) {
	if w.Waited < pl.starvationBound {
		return
	}
	// Members without GPUs (a launcher) do not count: the autoscaler's
	// ordinary scale-up adds a CPU node for them once the GPUs come, so
	// a cluster without a free CPU node does not make the gang larger
	// than the cluster (it did, and such a gang was starved for ever).
	gpuPart, _ := w.Quorum.Split()
	w.CouldFit = capacity.Pack(logger, gpuPart, empty(), w.InDomain).Fits()
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
	var out []capacity.Waiting
	for _, key := range pl.pods.ListIndexFuncValues(gangstate.PendingGangIndex) {
		if w, ok := pl.waitingGang(key); ok {
			out = append(out, w)
		}
	}
	return out
}

// waitingGang is the gang of index key (gang.Key.String()) as waitingGangs
// lists it, if it is waiting.
func (pl *Gang) waitingGang(key string) (capacity.Waiting, bool) {
	objs, err := pl.pods.ByIndex(gangstate.PendingGangIndex, key)
	if err != nil || len(objs) == 0 {
		return capacity.Waiting{}, false
	}
	p, ok := objs[0].(*v1.Pod)
	if !ok {
		return capacity.Waiting{}, false
	}
	k, _, isGang, err := gang.GroupOf(p)
	if !isGang || err != nil {
		return capacity.Waiting{}, false
	}
	spec, _, err := pl.resolve(p)
	if err != nil {
		return capacity.Waiting{}, false
	}
	inDomain := pl.state.HeldDomain(k)
	if short, failed := pl.roomShort.Load(k); failed && short != true && inDomain == nil {
		// Its last attempt failed for a reason the plan does not see
		// (GPU class, affinity, a required level no domain of which
		// could hold it): room held for it could go unused, and keep
		// others waiting. Room short in MusterTopology (a required
		// domain, or the cluster's GPUs of its class) is room:
		// MusterTopology names the nodes to hold it on.
		return capacity.Waiting{}, false
	}
	members := pl.members(k)
	counts := pl.tracker.Count(k, members, "")
	if spec.QuorumPlaced(counts) || counts.Members < int(spec.MinMember) {
		return capacity.Waiting{}, false
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
		return capacity.Waiting{}, false
	}
	priority := corev1helpers.PodPriority(p)
	return capacity.Waiting{Key: k.String(), Priority: priority, Since: pl.created(spec), Waited: pl.clock.Since(pl.created(spec)),
		Quorum: capacity.QuorumOfShapes(need, ready, nil, pl.shapes.Of), InDomain: inDomain, MayShed: pl.preemption.policy(priority).Preempt}, true
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
