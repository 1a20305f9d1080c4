// Tests of the placement metrics: snapshots' stranded, free and placeable GPUs, a gang's narrowest scope, domains needed, and analyses checked against hand counts.

package placement

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/muster-project/muster/pkg/topology"
)

// node builds a node of gpus GPUs in the given clique, rack and zone (empty
// leaves the label off).
func node(name string, gpus int64, clique, rack, zone string) Node {
	l := map[string]string{topology.HostnameLabel: name}
	for k, v := range map[string]string{topology.CliqueLabel: clique, topology.LeafLabel: rack, topology.ZoneLabel: zone} {
		if v != "" {
			l[k] = v
		}
	}
	return Node{Name: name, GPUs: gpus, Labels: l}
}

func pod(name, gang, node string, gpus int64) PodState {
	return PodState{Name: name, Gang: gang, Node: node, GPUs: gpus}
}

func TestTakeCountsStrandedFreeAndPlaceable(t *testing.T) {
	nodes := []Node{
		node("n0", 8, "c0", "r0", "z0"),
		node("n1", 8, "c0", "r0", "z0"),
		node("n2", 8, "c0", "r0", "z0"),
		node("n3", 8, "c1", "r0", "z0"),
		node("n4", 8, "c1", "r0", "z0"),
		node("n5", 8, "c2", "r1", "z0"),
		node("n6", 8, "c2", "r1", "z0"),
		node("n7", 8, "c2", "r1", "z0"),
		node("n8", 8, "c3", "r1", "z0"),
	}
	pods := []PodState{
		pod("a-0", "a", "n0", 3), pod("b-0", "b", "n0", 4), // n0: 7 used, 1 free
		pod("c-0", "c", "n1", 8),                           // n1: full
		pod("d-0", "d", "n3", 2), pod("e-0", "e", "n3", 3), // n3: 5 used, 3 free
		pod("f-0", "f", "n4", 6), // n4: 6 used, 2 free
		pod("g-0", "g", "", 8),   // pending: uses nothing
	}
	// Wholly free: n2 (c0), n5, n6, n7 (c2), n8 (c3): 5 nodes, 3 in clique c2.
	for _, tc := range []struct {
		smallest        int64
		stranded        int64
		smallestMembers int64
	}{
		// Smallest 2: only n0's 1 free GPU is stranded; members of 2 fit
		// 0 (n0) + 4 (n2) + 1 (n3) + 1 (n4) + 4 x 4 (n5-n8) = 22.
		{smallest: 2, stranded: 1, smallestMembers: 22},
		// Smallest 3: n0's 1 and n4's 2 are stranded, n3's 3 hold one;
		// members of 3: 2 (n2) + 1 (n3) + 4 x 2 (n5-n8) = 11.
		{smallest: 3, stranded: 3, smallestMembers: 11},
		// Smallest 1: nothing is ever stranded; every free GPU is a member.
		{smallest: 1, stranded: 0, smallestMembers: 1 + 8 + 3 + 2 + 32},
		// Smallest 4: n0 (1), n3 (3) and n4 (2) are stranded.
		{smallest: 4, stranded: 6, smallestMembers: 2 + 4*2},
	} {
		s, err := Take(nodes, pods, tc.smallest)
		if err != nil {
			t.Fatalf("smallest %d: %v", tc.smallest, err)
		}
		if s.Stranded != tc.stranded {
			t.Errorf("smallest %d: stranded %d, want %d", tc.smallest, s.Stranded, tc.stranded)
		}
		if s.SmallestMembers != tc.smallestMembers {
			t.Errorf("smallest %d: smallest-shape members %d, want %d", tc.smallest, s.SmallestMembers, tc.smallestMembers)
		}
		if s.PartlyUsed != 3 {
			t.Errorf("smallest %d: partly used nodes %d, want 3 (n0, n3, n4)", tc.smallest, s.PartlyUsed)
		}
		if s.FreeNodes != 5 || s.FreeNodesInClique != 3 {
			t.Errorf("smallest %d: free nodes %d, in one clique %d; want 5 and 3", tc.smallest, s.FreeNodes, s.FreeNodesInClique)
		}
	}
	s, _ := Take(nodes, pods, 2)
	if s.Used["n0"] != 7 || s.Used["n3"] != 5 || s.Used["n2"] != 0 {
		t.Errorf("used n0 %d, n3 %d, n2 %d; want 7, 5, 0", s.Used["n0"], s.Used["n3"], s.Used["n2"])
	}
	if s.Bound["g"] != 0 || s.Live["g"] != 1 || s.Bound["a"] != 1 {
		t.Errorf("gang g bound %d live %d, gang a bound %d; want 0, 1, 1", s.Bound["g"], s.Live["g"], s.Bound["a"])
	}
}

func TestTakeRejectsUnknownNodeAndOvercommit(t *testing.T) {
	nodes := []Node{node("n0", 8, "c0", "r0", "z0")}
	for _, tc := range []struct {
		name string
		pods []PodState
		want string
	}{
		{"unknown node", []PodState{pod("a-0", "a", "n9", 2)}, `pod a-0: spec.nodeName: node "n9" is not in the cluster`},
		{"overcommitted", []PodState{pod("a-0", "a", "n0", 8), pod("b-0", "b", "n0", 2)}, "node n0: 10 GPUs allocated, more than its 8 allocatable"},
	} {
		_, err := Take(nodes, tc.pods, 2)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestNarrowest(t *testing.T) {
	byName := map[string]Node{}
	for _, n := range []Node{
		node("a", 8, "c0", "r0", "z0"),
		node("b", 8, "c0", "r0", "z0"),
		node("c", 8, "c1", "r0", "z0"),
		node("d", 8, "c2", "r1", "z0"),
		node("e", 8, "c3", "r2", "z1"),
		node("x", 8, "", "r0", "z0"), // no clique label
		node("y", 8, "", "r0", "z0"),
	} {
		byName[n.Name] = n
	}
	for _, tc := range []struct {
		nodes []string
		want  Scope
	}{
		{[]string{"a"}, ScopeNode},
		{[]string{"a", "a", "a"}, ScopeNode},
		{[]string{"a", "b"}, ScopeClique},
		{[]string{"a", "b", "c"}, ScopeRack},
		{[]string{"a", "d"}, ScopeZone},
		{[]string{"a", "e"}, ScopeSpansZones},
		{[]string{"x", "x"}, ScopeNode},
		// Nodes without a clique label are in no clique: same rack only.
		{[]string{"x", "y"}, ScopeRack},
		{[]string{"a", "x"}, ScopeRack},
		{nil, ScopeSpansZones},
	} {
		if got := Narrowest(byName, tc.nodes); got != tc.want {
			t.Errorf("Narrowest(%v) = %s, want %s", tc.nodes, got, tc.want)
		}
	}
}

func TestDomainsNeeded(t *testing.T) {
	nodes := DefaultCluster().NodeList() // 8 GPUs; cliques of 8 nodes, racks of 16, zones of 32
	level := func(name string) topology.Level {
		for _, l := range Levels {
			if l.Name == name {
				return l
			}
		}
		t.Fatalf("no level %s", name)
		return topology.Level{}
	}
	for _, tc := range []struct {
		level   string
		members int
		gpus    int64
		want    int
	}{
		{"node", 1, 8, 1},
		{"node", 2, 4, 1},
		{"node", 3, 4, 2},
		{"node", 2, 3, 1},   // 6 GPUs on one node
		{"node", 3, 3, 2},   // ceil(9/8) = 2
		{"clique", 8, 8, 1}, // exactly one clique
		{"clique", 9, 8, 2},
		{"clique", 16, 8, 2},
		{"clique", 16, 4, 1},
		{"clique", 16, 3, 1}, // 2 members of 3 per node, 16 per clique
		// ceil(21 x 3 / 64) = 1, but a clique holds only 16 members of 3.
		{"clique", 21, 3, 2},
		{"rack", 16, 8, 1},
		{"rack", 17, 8, 2},
		{"zone", 32, 8, 1},
		{"zone", 40, 8, 2},
		{"zone", 65, 8, 3},
		{"node", 1, 9, 0}, // fits no node at all
	} {
		if got := DomainsNeeded(nodes, level(tc.level), tc.members, tc.gpus); got != tc.want {
			t.Errorf("DomainsNeeded(%s, %dx%d) = %d, want %d", tc.level, tc.members, tc.gpus, got, tc.want)
		}
	}
}

// analysisTrace is seven gangs on SmallCluster (16 nodes of 8 GPUs; cliques
// gpu-000/001, 002/003, ...; racks of 4; zones gpu-000..007 and 008..015).
const analysisTrace = `
+ a 2x8
+ b 3x2
+ c 2x3
+ d 4x8
- b
+ e 2x8
+ f 3x4
+ g 1x2
`

// TestAnalysisHandComputed drives an analysis through seven hand-made
// snapshots and checks every figure of the result against a hand count.
func TestAnalysisHandComputed(t *testing.T) {
	tr, err := ParseTrace(analysisTrace)
	if err != nil {
		t.Fatal(err)
	}
	nodes := SmallCluster().NodeList()
	a := NewAnalysis(tr, nodes)
	aPods := []PodState{pod("a-0", "a", "gpu-000", 8), pod("a-1", "a", "gpu-001", 8)}
	bPods := []PodState{pod("b-0", "b", "gpu-002", 2), pod("b-1", "b", "gpu-002", 2), pod("b-2", "b", "gpu-003", 2)}
	cPods := []PodState{pod("c-0", "c", "gpu-002", 3), pod("c-1", "c", "gpu-004", 3)}
	dPartial := []PodState{pod("d-0", "d", "gpu-005", 8), pod("d-1", "d", "", 8), pod("d-2", "d", "gpu-008", 8), pod("d-3", "d", "", 8)}
	dPods := []PodState{pod("d-0", "d", "gpu-005", 8), pod("d-1", "d", "gpu-006", 8), pod("d-2", "d", "gpu-008", 8), pod("d-3", "d", "gpu-009", 8)}
	ePartial := []PodState{pod("e-0", "e", "gpu-012", 8), pod("e-1", "e", "", 8)}
	fPartial := []PodState{pod("f-0", "f", "gpu-010", 4), pod("f-1", "f", "", 4), pod("f-2", "f", "", 4)}
	fPods := []PodState{pod("f-0", "f", "gpu-010", 4), pod("f-1", "f", "gpu-010", 4), pod("f-2", "f", "gpu-011", 4)}
	gPods := []PodState{pod("g-0", "g", "", 2)}
	cat := func(sets ...[]PodState) []PodState {
		var out []PodState
		for _, s := range sets {
			out = append(out, s...)
		}
		return out
	}
	steps := [][]PodState{
		aPods,                                            // a: one clique (clique-00); stranded 0
		cat(aPods, bPods),                                // b: gpu-002 and gpu-003, one clique; stranded 0
		cat(aPods, bPods, cPods),                         // c: gpu-002 (rack-00) and gpu-004 (rack-01), one zone; gpu-002 7/8 used: 1 stranded
		cat(aPods, bPods, cPods, dPartial),               // d partial; 1 stranded
		cat(aPods, bPods, cPods, dPods),                  // d spans zones; 1 stranded
		cat(aPods, cPods, dPods, ePartial, fPartial),     // b gone; e and f partial; 0 stranded
		cat(aPods, cPods, dPods, ePartial, fPods, gPods), // f in one clique (clique-05); e still partial, g pending; 0 stranded
	}
	for i, s := range steps {
		if err := a.Observe(s); err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
	}
	got := a.Result("test")
	want := Result{
		Profile: "test", Gangs: 7, Steps: 7, Placed: 5, // a, b, c, d, f
		// node, clique, rack, zone: a, b, f in one clique, c in one zone, d spans zones.
		Within: [4]int{0, 3, 3, 4},
		// Of a, b, c, d, f: one node could hold b (3x2) and c (2x3); one
		// clique (2 nodes) a, b, c, f; one rack (4 nodes) or zone all five.
		CouldFit:       [4]int{2, 4, 5, 5},
		FitAndWithin:   [4]int{0, 3, 3, 4},
		ByScope:        [numScopes]int{0, 3, 0, 1, 1},
		PendingEnd:     1, // g
		PartialEnd:     1, // e
		PartialGPUsEnd: 8,
		MaxPartial:     2, // e and f at step 6
		SmallestGPUs:   2,
		StrandedMean:   3.0 / 7, // 0, 0, 1, 1, 1, 0, 0
		StrandedEnd:    0,
		// gpu-002 (c: 3), gpu-004 (c: 3), gpu-011 (f: 4).
		PartlyUsedEnd: 3,
		// Free: gpu-003, 007, 013, 014, 015; clique-07 (014, 015) wholly free.
		FreeNodesEnd:         5,
		FreeNodesInCliqueEnd: 2,
		// Members of 2: gpu-002 5 free -> 2, gpu-004 -> 2, gpu-011 4 free -> 2, 5 free nodes x 4.
		SmallestMembersEnd: 2 + 2 + 2 + 5*4,
		// c fits one clique but landed in one zone at step 3, while
		// clique-01 (gpu-002 with 4 free without c, gpu-003 with 6) had
		// room for both of its 3-GPU members.
		CliqueMisses: []Miss{{Gang: Gang{Name: "c", Members: 2, GPUs: 3}, Scope: ScopeZone, Step: 3, RoomIn: "clique-01"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("result\n got  %+v\n want %+v", got, want)
	}
}

// A gang placed wider than a clique when no clique had room is a miss with no
// clique named.
func TestAnalysisForcedCliqueMiss(t *testing.T) {
	// Cliques of two nodes, 16 nodes: one node of every clique is full, so
	// c's two whole-node members can only go to different cliques.
	nodes := SmallCluster().NodeList()
	a := NewAnalysis(Trace{Gangs: []Gang{{Name: "fill", Members: 8, GPUs: 8}, {Name: "c", Members: 2, GPUs: 8}}}, nodes)
	var pods []PodState
	for i := 0; i < 16; i += 2 {
		pods = append(pods, pod(fmt.Sprintf("fill-%d", i/2), "fill", nodes[i].Name, 8))
	}
	pods = append(pods, pod("c-0", "c", "gpu-001", 8), pod("c-1", "c", "gpu-003", 8))
	if err := a.Observe(pods); err != nil {
		t.Fatal(err)
	}
	r := a.Result("x")
	want := []Miss{{Gang: Gang{Name: "c", Members: 2, GPUs: 8}, Scope: ScopeRack, Step: 1}}
	if !reflect.DeepEqual(r.CliqueMisses, want) {
		t.Errorf("misses %+v, want %+v", r.CliqueMisses, want)
	}
}

func TestAnalysisRecordsFirstFullPlacement(t *testing.T) {
	tr, err := ParseTrace("+ a 2x8\n")
	if err != nil {
		t.Fatal(err)
	}
	a := NewAnalysis(tr, SmallCluster().NodeList())
	// First fully placed within one clique; a later snapshot (impossible in
	// practice: members do not move) does not change the record.
	for _, s := range [][]PodState{
		{pod("a-0", "a", "gpu-000", 8), pod("a-1", "a", "gpu-001", 8)},
		{pod("a-0", "a", "gpu-000", 8), pod("a-1", "a", "gpu-015", 8)},
	} {
		if err := a.Observe(s); err != nil {
			t.Fatal(err)
		}
	}
	if r := a.Result("x"); r.Placed != 1 || r.ByScope[ScopeClique] != 1 {
		t.Errorf("placed %d, by scope %v; want 1 placed within one clique", r.Placed, r.ByScope)
	}
}

func TestObserveRejectsBadSnapshots(t *testing.T) {
	tr, err := ParseTrace("+ a 2x8\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		pods []PodState
		want string
	}{
		{"unknown gang", []PodState{pod("z-0", "z", "", 8)}, `pod z-0: gang "z" is not in the trace`},
		{"too many pods", []PodState{pod("a-0", "a", "", 8), pod("a-1", "a", "", 8), pod("a-2", "a", "", 8)}, "gang a: 3 member pods, more than its 2 members"},
		{"overcommitted", []PodState{pod("a-0", "a", "gpu-000", 8), pod("a-1", "a", "gpu-000", 8)}, "node gpu-000: 16 GPUs allocated, more than its 8 allocatable"},
	} {
		a := NewAnalysis(tr, SmallCluster().NodeList())
		if err := a.Observe(tc.pods); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}
