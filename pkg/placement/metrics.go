// The placement metrics: a gang's narrowest scope, snapshots, and Analysis of a run over a trace.

package placement

import (
	"fmt"
	"slices"

	"github.com/muster-project/muster/pkg/topology"
)

// PodState is one gang member pod as the metrics see it.
type PodState struct {
	Name string
	Gang string
	Node string // empty while pending
	GPUs int64
}

// Scope is the narrowest domain holding all of a gang's members.
type Scope int

const (
	ScopeNode Scope = iota
	ScopeClique
	ScopeRack
	ScopeZone
	ScopeSpansZones
	numScopes
)

var scopeNames = [numScopes]string{"node", "clique", "rack", "zone", "spans zones"}

func (s Scope) String() string {
	if s < 0 || s >= numScopes {
		return fmt.Sprintf("Scope(%d)", int(s))
	}
	return scopeNames[s]
}

// Levels are the topology levels the report measures, narrowest first; level
// i is Scope i.
var Levels = []topology.Level{
	{Name: "node", Label: topology.HostnameLabel},
	{Name: "clique", Label: topology.CliqueLabel},
	{Name: "rack", Label: topology.LeafLabel},
	{Name: "zone", Label: topology.ZoneLabel},
}

// Narrowest returns the narrowest scope holding all of nodes (names of nodes in
// byName). A node without a level's label is in no domain of that level, so
// a set including it is not within one domain of that level.
func Narrowest(byName map[string]Node, nodes []string) Scope {
	for i, l := range Levels {
		if sameDomain(byName, nodes, l.Label) {
			return Scope(i)
		}
	}
	return ScopeSpansZones
}

func sameDomain(byName map[string]Node, nodes []string, label string) bool {
	var want string
	for i, name := range nodes {
		v, ok := byName[name].Labels[label]
		if !ok || v == "" {
			return false
		}
		if i == 0 {
			want = v
		} else if v != want {
			return false
		}
	}
	return len(nodes) > 0
}

// DomainsNeeded is the fewest domains of level that can hold members members
// of gpus GPUs each on an empty cluster: ceil(members / slots), where slots is
// the most such members one domain holds (the sum over its nodes of floor(node
// GPUs / gpus)). When gpus divides every node's GPUs this is ceil(members x
// gpus / domain GPUs). It returns 0 if no domain holds even one member.
func DomainsNeeded(nodes []Node, level topology.Level, members int, gpus int64) int {
	slots := map[string]int64{}
	var most int64
	for _, n := range nodes {
		d, ok := n.Labels[level.Label]
		if !ok || d == "" || gpus <= 0 {
			continue
		}
		slots[d] += n.GPUs / gpus
		most = max(most, slots[d])
	}
	if most == 0 {
		return 0
	}
	return int((int64(members) + most - 1) / most)
}

// Snapshot is what one look at the cluster shows.
type Snapshot struct {
	Used       map[string]int64 // GPUs allocated, by node
	Bound      map[string]int   // bound members, by gang
	Live       map[string]int   // member pods that exist, by gang
	Stranded   int64            // free GPUs of partly used nodes with room for no member of the smallest shape
	PartlyUsed int              // nodes with some but not all GPUs allocated
	// Largest gangs still placeable, in members: whole nodes anywhere, whole
	// nodes within one clique, members of the smallest shape anywhere.
	FreeNodes         int
	FreeNodesInClique int
	SmallestMembers   int64
}

// Take computes a snapshot of nodes running pods; smallest is the trace's
// fewest GPUs per member. A pod on an unknown node, or a node with more GPUs
// allocated than it has, is an error naming the pod or node.
func Take(nodes []Node, pods []PodState, smallest int64) (Snapshot, error) {
	s := Snapshot{Used: map[string]int64{}, Bound: map[string]int{}, Live: map[string]int{}}
	known := make(map[string]Node, len(nodes))
	for _, n := range nodes {
		known[n.Name] = n
	}
	for _, p := range pods {
		s.Live[p.Gang]++
		if p.Node == "" {
			continue
		}
		if _, ok := known[p.Node]; !ok {
			return Snapshot{}, fmt.Errorf("pod %s: spec.nodeName: node %q is not in the cluster", p.Name, p.Node)
		}
		s.Used[p.Node] += p.GPUs
		s.Bound[p.Gang]++
	}
	freeInClique := map[string]int{}
	for _, n := range nodes {
		used := s.Used[n.Name]
		free := n.GPUs - used
		if free < 0 {
			return Snapshot{}, fmt.Errorf("node %s: %d GPUs allocated, more than its %d allocatable", n.Name, used, n.GPUs)
		}
		if smallest > 0 {
			s.SmallestMembers += free / smallest
		}
		switch {
		case used == 0:
			s.FreeNodes++
			if c := n.Labels[topology.CliqueLabel]; c != "" {
				freeInClique[c]++
				s.FreeNodesInClique = max(s.FreeNodesInClique, freeInClique[c])
			}
		case free > 0:
			s.PartlyUsed++
			if free < smallest {
				s.Stranded += free
			}
		}
	}
	return s, nil
}

// Analysis follows one scheduler through a trace: Observe it after every
// step, then read its Result.
type Analysis struct {
	trace    Trace
	nodes    []Node
	byName   map[string]Node
	smallest int64

	steps       int
	strandedSum int64
	last        Snapshot
	placed      map[string]Scope // first full placement, by gang
	misses      []Miss
	maxPartial  int
}

// Miss is a gang that fits one clique but was first fully placed wider.
type Miss struct {
	Gang  Gang
	Scope Scope
	Step  int // 1-based step at which it was first seen fully placed
	// RoomIn names a clique that, with every other pod where it was at
	// that step, had room for the whole gang; empty if none had.
	RoomIn string
}

// cliqueWithRoom returns the first clique (by name) that could hold all of g
// given the GPUs used on each node, not counting g's own (mine, by node).
func (a *Analysis) cliqueWithRoom(g Gang, used, mine map[string]int64) string {
	slots := map[string]int64{}
	for _, n := range a.nodes {
		c := n.Labels[topology.CliqueLabel]
		if c == "" {
			continue
		}
		slots[c] += (n.GPUs - used[n.Name] + mine[n.Name]) / g.GPUs
	}
	var names []string
	for c, n := range slots {
		if n >= int64(g.Members) {
			names = append(names, c)
		}
	}
	slices.Sort(names)
	if len(names) == 0 {
		return ""
	}
	return names[0]
}

// NewAnalysis starts an analysis of trace on nodes.
func NewAnalysis(trace Trace, nodes []Node) *Analysis {
	a := &Analysis{trace: trace, nodes: nodes, byName: map[string]Node{}, smallest: trace.SmallestGPUs(), placed: map[string]Scope{}}
	for _, n := range nodes {
		a.byName[n.Name] = n
	}
	return a
}

// Observe records the cluster after one trace step. Every pod must belong to
// a gang of the trace, and no gang may have more pods than members.
func (a *Analysis) Observe(pods []PodState) error {
	s, err := Take(a.nodes, pods, a.smallest)
	if err != nil {
		return err
	}
	on := map[string][]string{}
	gpusOn := map[string]map[string]int64{} // gang -> node -> GPUs
	for _, p := range pods {
		if _, ok := a.trace.Gang(p.Gang); !ok {
			return fmt.Errorf("pod %s: gang %q is not in the trace", p.Name, p.Gang)
		}
		if p.Node != "" {
			on[p.Gang] = append(on[p.Gang], p.Node)
			if gpusOn[p.Gang] == nil {
				gpusOn[p.Gang] = map[string]int64{}
			}
			gpusOn[p.Gang][p.Node] += p.GPUs
		}
	}
	partial := 0
	for _, g := range a.trace.Gangs {
		if s.Live[g.Name] > g.Members {
			return fmt.Errorf("gang %s: %d member pods, more than its %d members", g.Name, s.Live[g.Name], g.Members)
		}
		switch b := s.Bound[g.Name]; {
		case b == g.Members:
			if _, seen := a.placed[g.Name]; !seen {
				scope := Narrowest(a.byName, on[g.Name])
				a.placed[g.Name] = scope
				if scope > ScopeClique && DomainsNeeded(a.nodes, Levels[ScopeClique], g.Members, g.GPUs) == 1 {
					a.misses = append(a.misses, Miss{Gang: g, Scope: scope, Step: a.steps + 1,
						RoomIn: a.cliqueWithRoom(g, s.Used, gpusOn[g.Name])})
				}
			}
		case b > 0:
			partial++
		}
	}
	a.steps++
	a.strandedSum += s.Stranded
	a.maxPartial = max(a.maxPartial, partial)
	a.last = s
	return nil
}

// Steps is the number of snapshots observed.
func (a *Analysis) Steps() int { return a.steps }

// Result sums up the analysis for the profile named profile.
func (a *Analysis) Result(profile string) Result {
	r := Result{Profile: profile, Gangs: len(a.trace.Gangs), Steps: a.steps, SmallestGPUs: a.smallest,
		MaxPartial: a.maxPartial}
	for _, g := range a.trace.Gangs {
		scope, placed := a.placed[g.Name]
		if placed {
			r.Placed++
			r.ByScope[scope]++
			for i, l := range Levels {
				fits := DomainsNeeded(a.nodes, l, g.Members, g.GPUs) == 1
				within := scope <= Scope(i)
				if within {
					r.Within[i]++
				}
				if fits {
					r.CouldFit[i]++
					if within {
						r.FitAndWithin[i]++
					}
				}
			}
		}
		live, bound := a.last.Live[g.Name], a.last.Bound[g.Name]
		switch {
		case live == 0:
		case bound == 0:
			r.PendingEnd++
		case bound < g.Members:
			r.PartialEnd++
			r.PartialGPUsEnd += int64(bound) * g.GPUs
		}
	}
	if a.steps > 0 {
		r.StrandedMean = float64(a.strandedSum) / float64(a.steps)
	}
	r.StrandedEnd = a.last.Stranded
	r.PartlyUsedEnd = a.last.PartlyUsed
	r.FreeNodesEnd = a.last.FreeNodes
	r.FreeNodesInCliqueEnd = a.last.FreeNodesInClique
	r.SmallestMembersEnd = a.last.SmallestMembers
	r.CliqueMisses = slices.Clone(a.misses)
	return r
}

// Result is one scheduler's placement quality over a trace.
type Result struct {
	Profile string
	Gangs   int // in the trace
	Steps   int // snapshots taken
	Placed  int // gangs fully placed at some step

	// Indexed by level (Levels): of the placed gangs, how many landed within
	// one domain of the level, how many could fit one at all, and how many of
	// those that could fit did land within one.
	Within       [4]int
	CouldFit     [4]int
	FitAndWithin [4]int
	ByScope      [numScopes]int // placed gangs by narrowest scope

	PendingEnd     int   // live gangs with no member bound at the end
	PartialEnd     int   // live gangs with some but not all members bound at the end
	PartialGPUsEnd int64 // GPUs those partial gangs hold
	MaxPartial     int   // most partial gangs at any step

	SmallestGPUs  int64
	StrandedMean  float64
	StrandedEnd   int64
	PartlyUsedEnd int

	FreeNodesEnd         int
	FreeNodesInCliqueEnd int
	SmallestMembersEnd   int64

	// CliqueMisses are the placed gangs that fit one clique but landed wider,
	// in the order they were placed.
	CliqueMisses []Miss
}

// Scopes lists the scope names, narrowest first.
func Scopes() []string { return slices.Clone(scopeNames[:]) }
