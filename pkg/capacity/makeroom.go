// MakeRoom: what must leave for a quorum to fit (extras shed, gangs preempted); preemption policies.

package capacity

import (
	"fmt"
	"maps"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
)

// Gang is what room-making knows of a gang: who it is, how it ranks, and
// the members that hold nodes.
type Gang struct {
	Key      string
	Priority int32
	// Since is the gang's age: when its first member was created.
	Since time.Time
	Min   int64
	// WholeOnly: the gang is disrupted only as a whole (an upstream
	// PodGroup's disruptionMode.all); its members above min are not shed.
	WholeOnly bool
	// Bound lists the live members holding nodes. Terminating members are
	// leaving and are not listed: their room counts as free.
	Bound []Member
	// Starving says the gang's quorum has waited past the starvation
	// bound: it may shed members above min of equal-priority gangs older
	// than it too. A quorum that starved comes before any equal-priority
	// gang's growth beyond min; before it starves, an older gang's extras
	// are the older gang's.
	Starving bool
}

// Member is one bound member of a gang.
type Member struct {
	// Name is the pod's namespace/name.
	Name  string
	Node  string
	Shape *Shape
	// Started is when the member was bound (or started): shed newest first,
	// and the work a preemption loses grows with it.
	Started time.Time
}

// Victim is what a gang gives up for another: members above its min
// (Whole false), or all its members (Whole true).
type Victim struct {
	Gang    *Gang
	Members []Member
	Whole   bool
}

// What says in words what the victim gives up: "shed 2 of 4 members",
// "preempted all 3 members".
func (v Victim) What() string {
	if v.Whole {
		return fmt.Sprintf("preempted all %d members", len(v.Members))
	}
	return fmt.Sprintf("shed %d of %d members", len(v.Members), len(v.Gang.Bound))
}

// Message says in words what the victim gives up and for whom.
func (v Victim) Message(forGang string, priority int32) string {
	return fmt.Sprintf("%s for %s (priority %d)", v.What(), forGang, priority)
}

// Rule says which room-making sources a gang may draw on.
type Rule struct {
	// Shed allows taking members above min of elastic gangs of lower
	// priority, or of equal priority and younger (any age, for a starving
	// gang: Gang.Starving).
	Shed bool
	// Preempt allows taking whole gangs of lower priority.
	Preempt bool
}

// Room is MakeRoom's answer.
type Room struct {
	// Fits says the quorum fits once the victims are gone (with no victims:
	// it fits already).
	Fits    bool
	Victims []Victim
}

// unit is one thing MakeRoom may take: a member above min, or a whole gang.
type unit struct {
	gang    int
	members []Member
	whole   bool
}

// MakeRoom finds what must leave for gang g's quorum q to fit, drawing on
// the sources of room in order: the free room nodes have, then members
// above min of elastic gangs of lower priority or of equal priority and
// younger, or of any age when g is starving (lower priority first, the
// youngest gang first, its newest member first, never below a gang's
// min), then whole gangs of lower priority (the lowest priority first,
// then the least work lost, in GPU-time, then the fewest members). A gang
// is never left with 1..min-1 members bound: it loses members above its
// min, or all of them.
// Victims not needed once the rest are chosen are given back, latest first.
// When all sources together do not make the quorum fit, MakeRoom takes
// nothing: no gang is disrupted for one that still could not run. Room
// held for others (the plan's, for gangs served before g) stays theirs:
// the quorum must fit around it, as its members' Filter will have it; and
// members on nodes that a starving gang served before g could use are not
// taken (Held.ClaimedAhead): the room they free would be held for that gang.
func MakeRoom(logger klog.Logger, q Quorum, g Gang, nodes []Node, held Held, others []Gang, inDomain func(*v1.Node) bool, rule Rule, now time.Time) Room {
	if PackAround(logger, q, nodes, inDomain, held).Fits() {
		return Room{Fits: true}
	}
	if !rule.Shed && !rule.Preempt {
		return Room{}
	}
	index := make(map[string]int, len(nodes))
	base := make([]used, len(nodes))
	for i := range nodes {
		index[nodes[i].Node.Name] = i
		if u, ok := held.on(nodes[i].Node.Name); ok {
			base[i] = u.clone()
		}
	}
	if held.plan != nil {
		inDomain = held.plan.admitFor(held.key, inDomain)
	}
	apply := func(u unit, sign int64) {
		for _, m := range u.members {
			if i, ok := index[m.Node]; ok {
				base[i].add(m.Shape, -sign)
			}
		}
	}
	fits := func() bool { return pack(logger, q, nodes, inDomain, base).Fits() }
	free := (&claims{logger: logger, nodes: nodes, index: index, held: held}).free

	var chosen []unit
	if rule.Shed {
		for _, u := range free(extras(g, others)) {
			apply(u, 1)
			chosen = append(chosen, u)
			if fits() {
				return room(prune(chosen, apply, fits), others)
			}
		}
	}
	if rule.Preempt {
		for _, u := range free(wholeGangs(g, others, chosen, now)) {
			apply(u, 1)
			chosen = append(chosen, u)
			if fits() {
				return room(prune(chosen, apply, fits), others)
			}
		}
	}
	return Room{}
}

// Sheddable lists the members above min of other gangs that g may shed
// under rule, in the order MakeRoom sheds them (none when the rule sheds
// nothing). A gang short of room counts their room as its own when it
// works out what to ask new nodes for: once the nodes come, MakeRoom sheds
// those members for it, so the nodes bought are only what shedding cannot
// make.
//
// Members on nodes a starving gang served before g could use (held, on
// nodes; Held.ClaimedAhead) are left out: MakeRoom does not shed them.
func Sheddable(logger klog.Logger, g Gang, others []Gang, rule Rule, nodes []Node, held Held) []Member {
	if !rule.Shed {
		return nil
	}
	var out []Member
	for _, u := range (&claims{logger: logger, nodes: nodes, held: held}).free(extras(g, others)) {
		out = append(out, u.members...)
	}
	return out
}

// claims tells the units whose members free room of the gang held is for
// from those whose room would go to a starving gang served before it
// (Held.ClaimedAhead): taking those makes no room for it.
// index, when set, is the nodes' index by name (MakeRoom's); else built
// on first use.
type claims struct {
	logger  klog.Logger
	nodes   []Node
	index   map[string]int
	held    Held
	claimed map[string]bool
}

// free lists the units none of whose members is on a claimed node, in order.
func (c *claims) free(units []unit) []unit {
	if c.held.plan == nil || len(c.held.plan.starved) == 0 {
		return units
	}
	if c.index == nil {
		c.index = make(map[string]int, len(c.nodes))
		for i := range c.nodes {
			c.index[c.nodes[i].Node.Name] = i
		}
	}
	if c.claimed == nil {
		c.claimed = map[string]bool{}
	}
	out := units[:0:0]
	for _, u := range units {
		mine := true
		for _, m := range u.members {
			claimed, seen := c.claimed[m.Node]
			if !seen {
				if i, ok := c.index[m.Node]; ok {
					claimed = c.held.ClaimedAhead(c.logger, &c.nodes[i])
				}
				c.claimed[m.Node] = claimed
			}
			mine = mine && !claimed
		}
		if mine {
			out = append(out, u)
		}
	}
	return out
}

// Freed is the node's room once members leave it (those of members bound
// to it): counted as a terminating pod's room is, free (Release).
func (n Node) Freed(members []Member) Node {
	for _, m := range members {
		if n.Node != nil && m.Node == n.Node.Name {
			n.Release(m.Shape.Demand)
		}
	}
	return n
}

// Release counts the room of a pod of demand d that is leaving the node
// as free: its CPU, memory and slot in the free amounts, its extended
// resources in Leaving. Leaving is copied before it is written, so the map
// a caller handed over is never changed.
func (n *Node) Release(d Demand) {
	n.MilliCPU += d.MilliCPU
	n.Memory += d.Memory
	n.Pods++
	if len(d.Scalars) == 0 {
		return
	}
	leaving := make(map[v1.ResourceName]int64, len(n.Leaving)+len(d.Scalars))
	maps.Copy(leaving, n.Leaving)
	for _, sc := range d.Scalars {
		leaving[sc.Name] += sc.Value
	}
	n.Leaving = leaving
}

// extras lists members above min that g may shed (of gangs that may lose
// members singly), in the order to shed
// them: gangs of lower priority first, then equal-priority gangs younger
// than g (of any age, when g is starving); within those the youngest gang
// first, its newest member first.
func extras(g Gang, others []Gang) []unit {
	var eligible []int
	for i, o := range others {
		if o.Key == g.Key || o.WholeOnly || int64(len(o.Bound)) <= o.Min {
			continue
		}
		if o.Priority < g.Priority || (o.Priority == g.Priority && (g.Starving || o.Since.After(g.Since))) {
			eligible = append(eligible, i)
		}
	}
	sort.SliceStable(eligible, func(a, b int) bool {
		x, y := others[eligible[a]], others[eligible[b]]
		if x.Priority != y.Priority {
			return x.Priority < y.Priority
		}
		return x.Since.After(y.Since)
	})
	var out []unit
	for _, i := range eligible {
		for _, m := range aboveMin(others[i]) {
			out = append(out, unit{gang: i, members: []Member{m}})
		}
	}
	return out
}

// aboveMin lists a gang's bound members beyond its min, newest first: the
// ones it loses first.
func aboveMin(o Gang) []Member {
	if int64(len(o.Bound)) <= o.Min {
		return nil
	}
	members := append([]Member(nil), o.Bound...)
	sort.SliceStable(members, func(a, b int) bool {
		if !members[a].Started.Equal(members[b].Started) {
			return members[a].Started.After(members[b].Started)
		}
		return members[a].Name > members[b].Name // timestamps have second resolution
	})
	return members[:int64(len(members))-o.Min]
}

// wholeGangs lists the gangs of lower priority than g that it may preempt,
// the lowest priority first, then the least work lost (GPU-time since each
// member started: what a restart throws away), then the fewest members;
// each unit holds the members not already taken as extras. Work comes
// before the count: two gangs that just started cost the cluster less than
// one about to finish.
func wholeGangs(g Gang, others []Gang, taken []unit, now time.Time) []unit {
	gone := map[string]bool{}
	for _, u := range taken {
		for _, m := range u.members {
			gone[m.Name] = true
		}
	}
	type cand struct {
		i    int
		lost time.Duration
	}
	var cands []cand
	for i, o := range others {
		if o.Key == g.Key || o.Priority >= g.Priority || len(o.Bound) == 0 {
			continue
		}
		var lost time.Duration
		for _, m := range o.Bound {
			lost += now.Sub(m.Started) * time.Duration(max(m.Shape.GPUs, 1))
		}
		cands = append(cands, cand{i: i, lost: lost})
	}
	sort.SliceStable(cands, func(a, b int) bool {
		x, y := others[cands[a].i], others[cands[b].i]
		if x.Priority != y.Priority {
			return x.Priority < y.Priority
		}
		if cands[a].lost != cands[b].lost {
			return cands[a].lost < cands[b].lost
		}
		if len(x.Bound) != len(y.Bound) {
			return len(x.Bound) < len(y.Bound)
		}
		return x.Key < y.Key
	})
	out := make([]unit, 0, len(cands))
	for _, c := range cands {
		var rest []Member
		for _, m := range others[c.i].Bound {
			if !gone[m.Name] {
				rest = append(rest, m)
			}
		}
		out = append(out, unit{gang: c.i, members: rest, whole: true})
	}
	return out
}

// prune gives back, latest first, the units the quorum fits without.
func prune(chosen []unit, apply func(unit, int64), fits func() bool) []unit {
	keep := make([]bool, len(chosen))
	for i := range keep {
		keep[i] = true
	}
	for i := len(chosen) - 1; i >= 0; i-- {
		apply(chosen[i], -1)
		if fits() {
			keep[i] = false
			continue
		}
		apply(chosen[i], 1)
	}
	var out []unit
	for i, u := range chosen {
		if keep[i] {
			out = append(out, u)
		}
	}
	return out
}

// room groups the chosen units by gang. A gang that loses its extras and,
// after pruning, also the rest is a whole victim; one that keeps a whole
// unit only keeps the extras taken before it too.
func room(units []unit, others []Gang) Room {
	byGang := map[int]*Victim{}
	var order []int
	for _, u := range units {
		v, ok := byGang[u.gang]
		if !ok {
			v = &Victim{Gang: &others[u.gang]}
			byGang[u.gang] = v
			order = append(order, u.gang)
		}
		v.Members = append(v.Members, u.members...)
		v.Whole = v.Whole || u.whole
	}
	r := Room{Fits: true}
	for _, i := range order {
		v := byGang[i]
		if v.Whole {
			// Extras pruned away still go with the rest of the gang.
			v.Members = append([]Member(nil), v.Gang.Bound...)
		}
		r.Victims = append(r.Victims, *v)
	}
	return r
}

// Policy is a gang's preemption policy, as configured for its priority.
type Policy struct {
	// Preempt is false for policy Never.
	Preempt bool
	// MaxWaitForNodes is how long a gang that new nodes could serve waits
	// for them before it preempts whole gangs instead.
	MaxWaitForNodes time.Duration
}

// Rule arbitrates between preemption and new nodes for a gang that has
// waited this long. Shedding members above min disrupts no job, so it never
// waits; preempting whole gangs waits for new nodes while they could serve
// the gang and it has waited less than MaxWaitForNodes.
func (p Policy) Rule(waited time.Duration, nodesCanHelp bool) Rule {
	if !p.Preempt {
		return Rule{}
	}
	return Rule{Shed: true, Preempt: !nodesCanHelp || waited >= p.MaxWaitForNodes}
}
