// Planner: the capacity plan kept up to date as gangs, nodes and running gangs change, packing again only from the first gang a change can move.

package capacity

import (
	"maps"
	"math"
	"slices"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
)

// Planner keeps the plan MakePlan makes up to date as its inputs change:
// a waiting gang added, changed or gone (its quorum placed), nodes whose
// room changed, running gangs, bookings. The plan packs waiting quorums one
// by one in serving order, each on the room the gangs before it left; a
// change can only move the packing of the gangs from the first one whose
// packing read what changed. That is where the Planner packs again from:
//
//   - a gang added, changed or gone: from its rank;
//   - nodes from index i on changed: from the first gang whose packing read
//     a node at i or later. A quorum that fits read the nodes up to the
//     last one it placed a member on (first fit reads no further); one that
//     does not fit read them all;
//   - running gangs: from the first starving gang (only starving gangs read
//     them);
//   - bookings: from the first gang.
//
// The gangs before that keep their packing, and the room they hold is
// restored from what each recorded, so the plan equals the one MakePlan
// would make from scratch on the same inputs (TestPlannerEqualsMakePlan).
// A Planner is not safe for concurrent use; the plans it returns are not
// changed afterwards, and may be read concurrently.
type Planner struct {
	logger  klog.Logger
	bound   time.Duration
	gangs   []*rankedGang // in serving order
	nodes   []Node
	running []Gang
	booked  map[string]string
	// dirty is the rank of the first gang to pack again (len(gangs): none).
	dirty int
	// stale says the plan must be assembled again.
	stale bool
	plan  *Plan
	// base and spent are MakePlan's running sums, kept between replays
	// for their memory only; mark stamps the nodes a gang's packing wrote.
	base, spent []used
	mark        []int
	stamp       int
	journal     []placed
}

// rankedGang is a waiting gang and what its packing did.
type rankedGang struct {
	g        Waiting
	starving bool // g.Waited >= the starvation bound
	// fits: its quorum fits; kept: it holds room (fits, or starving).
	fits, kept bool
	// journal is what it holds, where took is nil; took is what a starving
	// gang holds beyond the room it counts as its own.
	journal []placed
	took    map[int]used
	// readsRunning: its packing read the running gangs (it starved).
	readsRunning bool
	// reach is the last node index its packing read (math.MaxInt: all).
	reach int
	// after and spentAfter are base's and spent's values, on the nodes
	// its packing wrote, once it was done: replaying from a later rank
	// restores them instead of packing it again.
	after, spentAfter []nodeUsed
}

type nodeUsed struct {
	node int
	u    used
}

// NewPlanner returns a Planner without gangs or nodes; starvationBound is
// MakePlan's.
func NewPlanner(logger klog.Logger, starvationBound time.Duration) *Planner {
	return &Planner{logger: logger, bound: starvationBound, stale: true}
}

func (pl *Planner) touch(rank int) {
	pl.dirty = min(pl.dirty, rank)
	pl.stale = true
}

// find returns the rank of gang key, or -1.
func (pl *Planner) find(key string) int {
	for i, r := range pl.gangs {
		if r.g.Key == key {
			return i
		}
	}
	return -1
}

// Remove drops waiting gang key (its quorum was placed, or it waits no
// more); a gang the Planner does not know is ignored.
func (pl *Planner) Remove(key string) {
	if i := pl.find(key); i >= 0 {
		pl.gangs = slices.Delete(pl.gangs, i, i+1)
		pl.touch(i)
	}
}

// Set adds waiting gang g, or changes it; a gang unchanged (same priority,
// age, quorum, starving or not, and so on) leaves the plan as it is.
func (pl *Planner) Set(g Waiting) {
	i := pl.find(g.Key)
	if i >= 0 {
		if pl.same(&pl.gangs[i].g, &g) {
			pl.gangs[i].g.Waited = g.Waited
			return
		}
		pl.gangs = slices.Delete(pl.gangs, i, i+1)
		pl.touch(i)
	}
	j := sort.Search(len(pl.gangs), func(k int) bool { return servedBefore(&g, &pl.gangs[k].g) })
	pl.gangs = slices.Insert(pl.gangs, j, &rankedGang{g: g, starving: g.Waited >= pl.bound})
	pl.touch(j)
}

// SetWaiting makes the waiting gangs exactly w: gangs not in it are
// removed, the others set.
func (pl *Planner) SetWaiting(w []Waiting) {
	keep := make(map[string]struct{}, len(w))
	for i := range w {
		keep[w[i].Key] = struct{}{}
	}
	for i := 0; i < len(pl.gangs); {
		if _, ok := keep[pl.gangs[i].g.Key]; ok {
			i++
			continue
		}
		pl.gangs = slices.Delete(pl.gangs, i, i+1)
		pl.touch(i)
	}
	for i := range w {
		pl.Set(w[i])
	}
}

// same says whether a gang's packing would read b as it read a. A domain
// test (InDomain) cannot be compared: a gang with one is taken as changed.
func (pl *Planner) same(a, b *Waiting) bool {
	if a.Priority != b.Priority || !a.Since.Equal(b.Since) || a.CouldFit != b.CouldFit || a.MayShed != b.MayShed ||
		(a.Waited >= pl.bound) != (b.Waited >= pl.bound) || a.InDomain != nil || b.InDomain != nil || len(a.Quorum) != len(b.Quorum) {
		return false
	}
	for i := range a.Quorum {
		x, y := a.Quorum[i], b.Quorum[i]
		if x.Count != y.Count || (x.Shape != y.Shape && x.Shape.Key != y.Shape.Key) {
			return false
		}
	}
	return true
}

// SetNodes gives the nodes' room; nodes before index firstChanged are the
// same nodes with the same room as in the last call (0: any may differ).
func (pl *Planner) SetNodes(nodes []Node, firstChanged int) {
	pl.nodes = nodes
	if firstChanged > len(nodes) {
		firstChanged = len(nodes)
	}
	for i, r := range pl.gangs[:min(pl.dirty, len(pl.gangs))] {
		if r.reach >= firstChanged {
			pl.touch(i)
			break
		}
	}
}

// SetRunning gives the gangs with members bound (MakePlan's running).
func (pl *Planner) SetRunning(running []Gang) {
	pl.running = running
	for i, r := range pl.gangs[:min(pl.dirty, len(pl.gangs))] {
		if r.readsRunning {
			pl.touch(i)
			break
		}
	}
}

// ReadsRunning says whether a gang's packing may read the running gangs:
// some gang has starved (waited the starvation bound) and could fit.
func (pl *Planner) ReadsRunning() bool {
	for _, r := range pl.gangs {
		if r.starving && r.g.CouldFit {
			return true
		}
	}
	return false
}

// SetBooked gives the booked nodes (MakePlan's booked).
func (pl *Planner) SetBooked(booked map[string]string) {
	if maps.Equal(booked, pl.booked) {
		return
	}
	pl.booked = booked
	pl.touch(0)
}

// Plan returns the plan for the inputs given so far.
func (pl *Planner) Plan() *Plan {
	if !pl.stale && pl.plan != nil {
		return pl.plan
	}
	pl.dirty = min(pl.dirty, len(pl.gangs))
	pl.restore()
	idx := &nodeIndex{nodes: pl.nodes}
	for i := pl.dirty; i < len(pl.gangs); i++ {
		pl.pack(i, idx)
	}
	pl.dirty = len(pl.gangs)
	pl.plan = pl.assemble()
	pl.stale = false
	return pl.plan
}

// restore sets base and spent to what the gangs ranked before dirty hold,
// from what each recorded.
func (pl *Planner) restore() {
	n := len(pl.nodes)
	pl.base = resize(pl.base, n)
	pl.spent = nil
	if cap(pl.mark) < n {
		pl.mark = make([]int, n)
		pl.stamp = 0
	}
	pl.mark = pl.mark[:n]
	for _, r := range pl.gangs[:pl.dirty] {
		for _, e := range r.after {
			pl.base[e.node] = e.u.clone()
		}
		for _, e := range r.spentAfter {
			if pl.spent == nil {
				pl.spent = make([]used, n)
			}
			pl.spent[e.node] = e.u.clone()
		}
	}
}

// resize returns s with n zero elements, reusing its memory.
func resize(s []used, n int) []used {
	if cap(s) < n {
		return make([]used, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// pack packs gang i on the room the gangs before it left (base), as
// MakePlan does for each gang, and records what it did.
func (pl *Planner) pack(i int, idx *nodeIndex) {
	r := pl.gangs[i]
	g := r.g
	nodes, base := pl.nodes, pl.base
	pl.stamp++
	wrote := []int(nil)
	write := func(n int) {
		if pl.mark[n] != pl.stamp {
			pl.mark[n] = pl.stamp
			wrote = append(wrote, n)
		}
	}
	writeRoom := func(room []used) {
		for n := range room {
			if !room[n].zero() || room[n].onePerNode {
				write(n)
			}
		}
	}
	*r = rankedGang{g: g, starving: g.Waited >= pl.bound, reach: math.MaxInt}
	journal := pl.journal[:0]
	admit := admitWith(pl.booked, g.Key, g.InDomain)
	fits := packInto(pl.logger, g.Quorum, nodes, admit, base, &journal).Fits()
	for _, e := range journal {
		write(e.node)
	}
	if fits {
		r.reach = -1
		for _, e := range journal {
			r.reach = max(r.reach, e.node)
		}
	}
	starving := !fits && r.starving && g.CouldFit
	if !fits && !starving {
		undo(base, journal)
	} else {
		r.kept = true
	}
	var took map[int]used
	if starving {
		r.readsRunning = true
		var shed []used
		if g.MayShed {
			shed = sheddable(g, pl.running, idx)
		}
		if shed != nil {
			writeRoom(shed)
			undo(base, journal)
			journal = journal[:0]
			sub(base, shed, -1)
			fits = packInto(pl.logger, g.Quorum, nodes, admit, base, &journal).Fits()
			sub(base, shed, 1)
			for _, e := range journal {
				write(e.node)
			}
		}
		credit := credited(g, pl.running, idx, pl.bound, pl.spent)
		if credit != nil {
			writeRoom(credit)
		}
		if !fits && credit != nil {
			undo(base, journal)
			journal = journal[:0]
			sub(base, shed, -1)
			sub(base, credit, -1)
			packInto(pl.logger, g.Quorum, nodes, admit, base, &journal)
			sub(base, shed, 1)
			sub(base, credit, 1)
			for _, e := range journal {
				write(e.node)
			}
		}
		if shed != nil || credit != nil {
			undo(base, journal)
			took = map[int]used{}
			for _, e := range journal {
				u := took[e.node]
				u.add(e.shape, e.count)
				took[e.node] = u
			}
			for n, u := range took {
				var own used
				if shed != nil {
					own = shed[n]
					u = u.beyond(own)
				}
				if credit != nil {
					c := u.beyond(u.beyond(credit[n]))
					u = u.beyond(credit[n])
					if pl.spent == nil {
						pl.spent = make([]used, len(nodes))
					}
					pl.spent[n].addUsed(c)
					r.spentAfter = append(r.spentAfter, nodeUsed{node: n})
				}
				took[n] = u
				base[n].addUsed(u)
			}
		}
	}
	r.fits = fits
	r.took = took
	if took == nil && r.kept {
		r.journal = append([]placed(nil), journal...)
	}
	for k := range r.spentAfter {
		r.spentAfter[k].u = pl.spent[r.spentAfter[k].node].clone()
	}
	r.after = make([]nodeUsed, len(wrote))
	for k, n := range wrote {
		r.after[k] = nodeUsed{node: n, u: base[n].clone()}
	}
	pl.journal = journal
}

// assemble lays the gangs' packings out as a Plan.
func (pl *Planner) assemble() *Plan {
	w := pl.gangs
	p := &Plan{rank: make(map[string]int, len(w)), priorities: make([]int32, 0, len(w)), holds: map[string][]cumulativeHold{}, firstHeld: len(w), booked: pl.booked}
	nodes := pl.nodes
	for i, r := range w {
		p.order = append(p.order, r.g.Key)
		p.rank[r.g.Key] = i
		p.priorities = append(p.priorities, r.g.Priority)
		if !r.kept {
			continue
		}
		fits := r.fits
		lends := !fits && r.g.MayShed
		if lends && p.lent == nil {
			p.lent = map[string][]cumulativeHold{}
		}
		if !fits && p.short == nil {
			p.short = map[string][]cumulativeHold{}
		}
		if !fits {
			p.starved = append(p.starved, starvedGang{rank: i, quorum: r.g.Quorum, admit: admitWith(pl.booked, r.g.Key, r.g.InDomain)})
		}
		if r.took != nil {
			for n, u := range r.took {
				if u.zero() {
					continue
				}
				name := nodes[n].Node.Name
				p.holds[name] = addHold(p.holds[name], i, u)
				if lends {
					p.lent[name] = addHold(p.lent[name], i, u)
				}
				if !fits {
					p.short[name] = addHold(p.short[name], i, u)
				}
				p.firstHeld = min(p.firstHeld, i)
			}
			continue
		}
		for _, e := range r.journal {
			name := nodes[e.node].Node.Name
			p.holds[name] = addPlaced(p.holds[name], i, e)
			if lends {
				p.lent[name] = addPlaced(p.lent[name], i, e)
			}
			if !fits {
				p.short[name] = addPlaced(p.short[name], i, e)
			}
		}
		if len(r.journal) > 0 {
			p.firstHeld = min(p.firstHeld, i)
		}
	}
	if len(w) > 0 {
		p.last = w[len(w)-1].g
		p.last.Quorum, p.last.InDomain = nil, nil
	}
	return p
}

// admitWith is the node test for gang key's GPU members: nodes booked for
// another gang are not theirs; then inDomain (nil: any node).
func admitWith(booked map[string]string, key string, inDomain func(*v1.Node) bool) func(*v1.Node) bool {
	if len(booked) == 0 {
		return inDomain
	}
	return func(n *v1.Node) bool {
		if owner := booked[n.Name]; owner != "" && owner != key {
			return false
		}
		return inDomain == nil || inDomain(n)
	}
}
