// Plan: free room promised to waiting quorums in serving order, the room held ahead, PackAround.

package capacity

import (
	"math"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
)

// Waiting is a gang whose quorum is not placed yet, all of whose quorum
// members exist.
type Waiting struct {
	Key      string
	Priority int32
	// Since is the gang's age; Waited how long its quorum has waited.
	Since  time.Time
	Waited time.Duration
	Quorum Quorum
	// CouldFit says the quorum fits the cluster's nodes were they empty:
	// only then is room held for it before it fits (new nodes, not held
	// room, serve a gang larger than the cluster).
	CouldFit bool
	// InDomain, when set, is the one topology domain the quorum's GPU
	// members must share (a required level): room is promised and held for
	// it there only.
	InDomain func(*v1.Node) bool
	// MayShed says the gang may shed members above min of elastic gangs
	// served after it (its preemption policy allows it): room held for it
	// while it starves is lent to those members, to be shed the moment
	// its quorum's room is complete.
	MayShed bool
}

// Plan is the free room promised to waiting quorums, in the order they are
// served: by priority, then age. A quorum that fits in the room the gangs
// before it left is promised the room it packs into; so is, once it has
// waited longer than the starvation bound, the part of a quorum that does
// not fit yet, so that room freed up accumulates for it instead of going to
// younger gangs. A quorum uses only room not promised to gangs before it.
// Elastic members beyond min use room promised to nobody, and room held for
// a starving quorum that may shed them (Lent): they give it back when that
// quorum's room is complete, instead of it idling until then.
type Plan struct {
	order []string
	rank  map[string]int
	// priorities is each ranked gang's priority, in rank order (Lent).
	priorities []int32
	// holds lists, per node with room held, what gangs hold there:
	// cumulative entries in rank order, so "held ahead of gang i" is the
	// last entry ranked before i. Only nodes a gang packs onto get entries,
	// so a plan costs what its gangs touch, not nodes x gangs.
	holds map[string][]cumulativeHold
	// lent is holds' counterpart for the room held for starving gangs
	// that may shed elastic members (Waiting.MayShed): cumulative in rank
	// order, that room only.
	lent map[string][]cumulativeHold
	// short is holds' counterpart for the room held for starving gangs
	// whose quorum does not fit even so: room for a quorum that cannot
	// run yet, which a higher priority's growth comes before (Growth).
	short map[string][]cumulativeHold
	// firstHeld is the rank of the first gang that holds room (len(order)
	// if none): a gang ranked no later holds nothing ahead of it.
	firstHeld int
	// booked names, by node, the gang whose booking holds the node.
	booked map[string]string
	// starved are the starving gangs whose quorum does not fit even with
	// the room held for them, in rank order: room freed where they could
	// use it goes to them first (ClaimedAhead).
	starved []starvedGang
	// last is the gang served last (its quorum left out).
	last Waiting
}

// starvedGang is a starving gang short of room, as ClaimedAhead reads it.
type starvedGang struct {
	rank   int
	quorum Quorum
	admit  func(*v1.Node) bool
}

// cumulativeHold is what the gangs ranked up to and including rank hold on
// one node.
type cumulativeHold struct {
	rank int
	u    used
}

// Served orders waiting gangs: higher priority first, then older, then by key.
func Served(w []Waiting) {
	sort.SliceStable(w, func(i, j int) bool { return servedBefore(&w[i], &w[j]) })
}

func servedBefore(a, b *Waiting) bool {
	if a.Priority != b.Priority {
		return a.Priority > b.Priority
	}
	if !a.Since.Equal(b.Since) {
		return a.Since.Before(b.Since)
	}
	return a.Key < b.Key
}

// ServedAfterAll says a gang (its Key, Priority and Since) that is not in
// the plan would be served after every gang that is: the plan, which sets
// aside all it holds for gangs it does not know, treats it rightly as it
// stands. A nil plan knows no gang.
func (p *Plan) ServedAfterAll(g Waiting) bool {
	if p == nil || len(p.order) == 0 {
		return true
	}
	return servedBefore(&p.last, &g)
}

// MakePlan promises free room to waiting quorums in order (see Plan).
// running lists the gangs with members bound (as MakeRoom reads them): a
// starving gang that may shed counts the room of the members it may shed
// as its own, so that room it lent stays its room, and the plan promises
// it its room once that is complete. booked names, by node, the gang whose
// booking holds it (nodes the autoscaler added for that gang's request):
// those nodes are room for that gang's GPU members only. starvationBound
// is how long a quorum that does not fit waits before the room it can use
// is held for it.
func MakePlan(logger klog.Logger, waiting []Waiting, nodes []Node, running []Gang, booked map[string]string, starvationBound time.Duration) *Plan {
	p := NewPlanner(logger, starvationBound)
	p.SetNodes(nodes, 0)
	p.SetRunning(running)
	p.SetBooked(booked)
	p.SetWaiting(waiting)
	return p.Plan()
}

// undo takes a journal's placements off base.
func undo(base []used, journal []placed) {
	for _, e := range journal {
		base[e.node].add(e.shape, -e.count)
	}
}

// sub takes room (by node; nil: none) off base (sign -1) or puts it back
// (sign 1).
func sub(base, room []used, sign int) {
	for i := range room {
		if sign < 0 {
			base[i].sub(room[i])
		} else {
			base[i].addUsed(room[i])
		}
	}
}

// credited is, by node, the room starving gang g counts as its own although
// gangs of higher priority use it: their members above min bound since g
// started to starve (g.Since plus the bound), less what gangs served before
// g counted already (spent); nil if none. That growth came before g's
// quorum (Plan.Growth), possibly on the room held for g: counted as g's,
// it keeps g's hold where it was, instead of g holding elsewhere the room
// a later gang was promised. g waits for it to end, as for any running
// gang; growth that was there before g starved is not counted, so a
// long-running higher priority does not draw g's hold onto its nodes.
// (A member the kubelet has not started yet counts from its creation: until
// its start time is written, growth created before g starved is not
// credited.)
func credited(g Waiting, running []Gang, idx *nodeIndex, starvationBound time.Duration, spent []used) []used {
	starved := g.Since.Add(starvationBound)
	var grown []Member
	for _, o := range running {
		if o.Key == g.Key || o.Priority <= g.Priority {
			continue
		}
		for _, m := range aboveMin(o) {
			if !m.Started.Before(starved) {
				grown = append(grown, m)
			}
		}
	}
	out := idx.roomOf(grown)
	if out != nil && spent != nil {
		for i := range out {
			out[i] = out[i].beyond(spent[i])
		}
	}
	return out
}

// sheddable is, by node, the room of the running members g may shed
// (MakeRoom's extras); nil if none.
func sheddable(g Waiting, running []Gang, idx *nodeIndex) []used {
	var members []Member
	for _, u := range extras(Gang{Key: g.Key, Priority: g.Priority, Since: g.Since, Starving: true}, running) {
		members = append(members, u.members...)
	}
	return idx.roomOf(members)
}

// nodeIndex finds nodes by name, the map built once per plan when a
// starving gang first needs it.
type nodeIndex struct {
	nodes  []Node
	byName map[string]int
}

// roomOf is, by node, the room the members use; nil if none is on nodes.
func (x *nodeIndex) roomOf(members []Member) []used {
	if len(members) == 0 {
		return nil
	}
	if x.byName == nil {
		x.byName = make(map[string]int, len(x.nodes))
		for i := range x.nodes {
			x.byName[x.nodes[i].Node.Name] = i
		}
	}
	var out []used
	for _, m := range members {
		if i, ok := x.byName[m.Node]; ok {
			if out == nil {
				out = make([]used, len(x.nodes))
			}
			out[i].add(m.Shape, 1)
		}
	}
	return out
}

// addPlaced adds what a journal entry places, for the gang ranked rank, to
// a node's cumulative holds.
func addPlaced(hs []cumulativeHold, rank int, e placed) []cumulativeHold {
	if n := len(hs); n > 0 && hs[n-1].rank == rank {
		hs[n-1].u.add(e.shape, e.count)
		return hs
	}
	var u used
	if n := len(hs); n > 0 {
		u = hs[n-1].u.clone()
	}
	u.add(e.shape, e.count)
	return append(hs, cumulativeHold{rank: rank, u: u})
}

// addHold is addPlaced for room u.
func addHold(hs []cumulativeHold, rank int, u used) []cumulativeHold {
	if n := len(hs); n > 0 && hs[n-1].rank == rank {
		hs[n-1].u.addUsed(u)
		return hs
	}
	var c used
	if n := len(hs); n > 0 {
		c = hs[n-1].u.clone()
	}
	c.addUsed(u)
	return append(hs, cumulativeHold{rank: rank, u: c})
}

// before is the last of a node's cumulative holds ranked before rank.
func before(hs []cumulativeHold, rank int) (used, bool) {
	for i := len(hs) - 1; i >= 0; i-- {
		if hs[i].rank < rank {
			return hs[i].u, true
		}
	}
	return used{}, false
}

// admitFor is the node test for gang key's GPU members (admitWith).
func (p *Plan) admitFor(key string, inDomain func(*v1.Node) bool) func(*v1.Node) bool {
	if p == nil {
		return inDomain
	}
	return admitWith(p.booked, key, inDomain)
}

// Held is room set aside on nodes, by node name, for gangs other than the
// one it was asked for: room the plan holds for them, and nodes booked for
// them.
type Held struct {
	plan *Plan
	key  string
	// rank: room held by gangs ranked before it is set aside.
	rank int
	// lenders: room lent by gangs ranked before it is not (Lent).
	lenders int
	// growth: room held for starving gangs that do not fit, ranked from
	// above on (lower priority than the growth's), is not (Growth).
	growth bool
	above  int
}

// Ahead returns the room held for gangs served before key, and the nodes
// booked for other gangs; for a key not waiting (an elastic member's gang)
// all the room held.
func (p *Plan) Ahead(key string) Held {
	if p == nil {
		return Held{}
	}
	if i, ok := p.rank[key]; ok {
		return Held{plan: p, key: key, rank: i}
	}
	return Held{plan: p, key: key, rank: len(p.order)}
}

// Growth returns the room held ahead of a member above min of gang key
// (of priority priority): the room held for every waiting gang, less the
// room held for starving gangs of lower priority whose quorums do not fit
// even so. A higher priority's growth comes before a quorum that cannot run
// yet: held from it, that room idled (on --random 1 --seed 3 a priority-1000
// gang ran at min for 42 trace minutes beside five nodes held for a
// priority-0 gang that needed six). Room promised to a quorum that fits is
// held from any growth: that gang runs now. The starving gang keeps
// counting the room as its own (credited), so its hold does not move onto a
// later gang's promise, and it waits for that growth to end.
func (p *Plan) Growth(key string, priority int32) Held {
	h := p.Ahead(key)
	if p == nil || len(p.short) == 0 {
		return h
	}
	h.growth, h.above = true, p.firstBelow(priority)
	return h
}

// Lent is Growth for a member above min of an elastic gang (not one
// disrupted only as a whole), less the room held for starving gangs that
// may shed it: those of higher or equal priority, of any age (a starving
// gang sheds an older gang's extras too: capacity.MakeRoom, Gang.Starving),
// whose preemption policy sheds. Such a gang sheds what it lent when its
// attempt finds its room complete.
func (p *Plan) Lent(key string, priority int32) Held {
	h := p.Growth(key, priority)
	if p == nil || len(p.lent) == 0 {
		return h
	}
	h.lenders = p.firstBelow(priority)
	return h
}

// firstBelow is the rank of the first gang of lower priority than priority
// (the plan ranks by priority first).
func (p *Plan) firstBelow(priority int32) int {
	return sort.Search(len(p.priorities), func(i int) bool { return p.priorities[i] < priority })
}

// on is the room held on the node, if any.
func (h Held) on(node string) (used, bool) {
	if h.plan == nil || h.rank <= h.plan.firstHeld {
		return used{}, false
	}
	u, ok := before(h.plan.holds[node], h.rank)
	if !ok || (h.lenders == 0 && !h.growth) {
		return u, ok
	}
	cloned := false
	take := func(o used) {
		if !cloned {
			u, cloned = u.clone(), true
		}
		u.sub(o)
	}
	if h.lenders > 0 {
		if l, lent := before(h.plan.lent[node], h.lenders); lent {
			take(l)
		}
	}
	if h.growth && h.above < h.rank {
		if s, short := before(h.plan.short[node], h.rank); short {
			take(s)
			if s, short := before(h.plan.short[node], h.above); short {
				u.addUsed(s)
			}
		}
	}
	return u, true
}

// bookedElsewhere says the node is booked for another gang.
func (h Held) bookedElsewhere(node string) bool {
	if h.plan == nil {
		return false
	}
	owner := h.plan.booked[node]
	return owner != "" && owner != h.key
}

// GPUs calls f with each node's GPUs of resource gpu set aside for gangs
// ahead (all its GPUs for a node booked for another gang), so a domain
// choice counts only the room left.
func (h Held) GPUs(gpu v1.ResourceName, f func(node string, gpus int64)) {
	if h.plan == nil {
		return
	}
	for node := range h.plan.holds {
		if _, booked := h.plan.booked[node]; booked {
			continue
		}
		if u, ok := h.on(node); ok && u.scalars[gpu] > 0 {
			f(node, u.scalars[gpu])
		}
	}
	for node, owner := range h.plan.booked {
		if owner != h.key {
			f(node, math.MaxInt32)
		}
	}
}

// ClaimedAhead says whether room freed on node would go first to a gang
// served before the one h was asked for that starves short of room: the
// node admits a GPU member of its quorum and has the extended resources
// (GPUs) it asks for, were it empty (CPU and memory are not read: a node
// is taken for claimed when in doubt; a launcher without GPUs claims no
// node, fitting beside others on most). The plan holds such room
// for that gang as it frees (and lends it to members above min it may
// shed), so it is no room the later gang can make by taking from others:
// on --random 1 --seed 1 a gang shed two elastic members of another for its
// quorum over and over, each shed's room held at once for an older
// starving gang and lent back to the shed gang's new members.
func (h Held) ClaimedAhead(logger klog.Logger, n *Node) bool {
	if h.plan == nil || n == nil || n.Node == nil {
		return false
	}
	for _, s := range h.plan.starved {
		if s.rank >= h.rank {
			break
		}
		for _, w := range s.quorum {
			if sh := w.Shape; sh != nil && sh.GPUs > 0 && n.couldEverHold(sh) && sh.Accepts(logger, n.Node) &&
				(s.admit == nil || s.admit(n.Node)) {
				return true
			}
		}
	}
	return false
}

// couldEverHold says whether the node has the extended resources a member
// of shape s asks for, were it empty.
func (n *Node) couldEverHold(s *Shape) bool {
	for _, sc := range s.Demand.Scalars {
		if n.AllocScalars[sc.Name] < sc.Value {
			return false
		}
	}
	return true
}

// On says whether room is held on the node.
func (h Held) On(node string) bool {
	_, ok := h.on(node)
	return ok || h.bookedElsewhere(node)
}

// Empty says nothing is held.
func (h Held) Empty() bool {
	return h.plan == nil || (h.rank <= h.plan.firstHeld && len(h.plan.booked) == 0)
}

// Waiting lists the waiting gangs in the order they are served.
func (p *Plan) Waiting() []string {
	if p == nil {
		return nil
	}
	return p.order
}

// Admits says whether a member of shape s fits on node n once the room held
// on it is set aside.
func (h Held) Admits(s *Shape, n *Node) bool {
	if s.GPUs > 0 && h.bookedElsewhere(n.Node.Name) {
		return false
	}
	u, ok := h.on(n.Node.Name)
	if !ok {
		return copiesOn(s, n, nil) > 0
	}
	return copiesOn(s, n, &u) > 0
}

// PackAround is Pack on the room left once what held sets aside is taken.
func PackAround(logger klog.Logger, q Quorum, nodes []Node, inDomain func(*v1.Node) bool, held Held) Packing {
	if held.Empty() {
		return Pack(logger, q, nodes, inDomain)
	}
	base := make([]used, len(nodes))
	for i := range nodes {
		if u, ok := held.on(nodes[i].Node.Name); ok {
			base[i] = u
		}
	}
	return pack(logger, q, nodes, held.plan.admitFor(held.key, inDomain), base)
}

func (u used) zero() bool {
	if u.milliCPU != 0 || u.memory != 0 || u.pods != 0 {
		return false
	}
	for _, v := range u.scalars {
		if v != 0 {
			return false
		}
	}
	return true
}
