// Tests of the demo's report: times since creation, the Board's results and progress, the verdict on each gang, the progress line, and the scenario's gangs and nodes.

package demo

import (
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

func TestSinceAndDuration(t *testing.T) {
	for _, tc := range []struct {
		name     string
		from, to time.Time
		want     string
	}{
		{"measured", at(0), at(1234), "1.23s"},
		{"rounds", at(0), at(1999), "2.00s"},
		{"reached before last creation clamps to zero", at(500), at(200), "0.00s"},
		{"never reached", at(0), time.Time{}, "-"},
		{"not created", time.Time{}, at(100), "-"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Duration(Since(tc.from, tc.to)); got != tc.want {
				t.Errorf("Duration(Since(%v, %v)) = %q, want %q", tc.from, tc.to, got, tc.want)
			}
		})
	}
}

func TestBoardResults(t *testing.T) {
	gangs := []Gang{
		{Name: "one", Source: SourceLabels, Min: 1, Max: 1, Members: 1, Fits: true, FitsMax: true},
		{Name: "elastic", Source: SourceLabels, Min: 2, Max: 3, Members: 4, Fits: true, FitsMax: true},
		{Name: "big", Source: SourcePodGroup, Min: 5, Max: 5, Members: 5, WaitReason: "room for"},
	}
	b := NewBoard(gangs)
	b.SetNodes([]Node{
		{Name: "n-one-0", Labels: map[string]string{"kubernetes.io/hostname": "n-one-0", "nvidia.com/gpu.clique": "c1", "topology.kubernetes.io/zone": "z"}},
		{Name: "n-elastic-0", Labels: map[string]string{"kubernetes.io/hostname": "n-elastic-0", "nvidia.com/gpu.clique": "c1", "topology.kubernetes.io/zone": "z"}},
		{Name: "n-elastic-1", Labels: map[string]string{"kubernetes.io/hostname": "n-elastic-1", "nvidia.com/gpu.clique": "c2", "topology.kubernetes.io/zone": "z"}},
		{Name: "n-elastic-2", Labels: map[string]string{"kubernetes.io/hostname": "n-elastic-2", "topology.kubernetes.io/zone": "z"}},
	})
	b.Created("one", at(0))
	b.Created("elastic", at(100))
	b.Created("big", at(200))
	b.Bound("one", "one-0", "n-one-0", at(300))
	b.Bound("one", "one-0", "n-one-0", at(900)) // a later sighting does not move the time
	b.Bound("elastic", "elastic-2", "n-elastic-2", at(1600))
	b.Bound("elastic", "elastic-0", "n-elastic-0", at(600))
	b.Bound("elastic", "elastic-1", "n-elastic-1", at(1100))
	b.Bound("nobody", "x", "n-x", at(1))
	if b.Settled() == false {
		t.Error("Settled() = false with every fitting gang at max")
	}
	if got, want := b.Progress(), (Progress{Bound: 4, Pods: 10, AtMin: 2, Gangs: 3}); got != want {
		t.Errorf("Progress() = %+v, want %+v", got, want)
	}
	rs := b.Results()
	check := func(r Result, toMin, toMax string) {
		t.Helper()
		if got := Duration(r.ToMin()); got != toMin {
			t.Errorf("%s: to min %s, want %s", r.Gang.Name, got, toMin)
		}
		if got := Duration(r.ToMax()); got != toMax {
			t.Errorf("%s: to max %s, want %s", r.Gang.Name, got, toMax)
		}
	}
	check(rs[0], "0.30s", "0.30s")
	check(rs[1], "1.00s", "1.50s") // second and third bind, from 100ms
	check(rs[2], "-", "-")

	if rs[0].Domain != "node n-one-0" || rs[1].Domain != "zone z" || rs[2].Domain != "-" {
		t.Errorf("domains %q, %q, %q; want node n-one-0, zone z, -", rs[0].Domain, rs[1].Domain, rs[2].Domain)
	}
	rs[2].Asked = "2 pods"
	if v := Verdict(rs); len(v) != 1 || !strings.Contains(v[0], `waits without saying "room for"`) {
		t.Errorf("Verdict without a reason = %q, want one complaint about the missing reason", v)
	}
	rs[2].Reason = "gang ml/big needs 5 more members placed at once (min 5, 0 placed); the cluster has room for 3 members like big-0"
	if v := Verdict(rs); len(v) != 0 {
		t.Errorf("Verdict = %q, want none", v)
	}

	var sb strings.Builder
	if err := WriteTable(&sb, rs); err != nil {
		t.Fatal(err)
	}
	want := `GANG     SOURCE    MIN  MAX  PLACED  WITHIN        TO MIN  TO MAX  ASKED AUTOSCALER  REASON
one      labels    1    1    1/1     node n-one-0  0.30s   0.30s   -                 -
elastic  labels    2    3    3/4     zone z        1.00s   1.50s   -                 -
big      PodGroup  5    5    0/5     -             -       -       2 pods            gang ml/big needs 5 more members placed at once (min 5, 0 placed); the cluster has room for 3 members like big-0
`
	if sb.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", sb.String(), want)
	}

	// With the upstream run, a column says how each gang fared there.
	up := append([]Result(nil), rs...)
	up[1].Placed = 4 // upstream has no max: all members of the elastic gang bound
	for i := range rs {
		rs[i].Upstream = UpstreamCell(up[i])
	}
	sb.Reset()
	if err := WriteTable(&sb, rs); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(sb.String(), "\n")
	if !strings.Contains(lines[0], "ASKED AUTOSCALER  UPSTREAM (PLACED WITHIN TO MIN)  REASON") ||
		!strings.Contains(lines[2], "4/4 zone z 1.00s") || !strings.Contains(lines[3], "0/5 - -") {
		t.Errorf("table with the upstream column:\n%s", sb.String())
	}
}

func TestVerdict(t *testing.T) {
	fit := Gang{Name: "fit", Min: 2, Max: 2, Members: 2, Fits: true, FitsMax: true}
	elastic := Gang{Name: "elastic", Min: 2, Max: 4, Members: 5, Fits: true, FitsMax: true}
	big := Gang{Name: "big", Min: 9, Max: 9, Members: 9, WaitReason: "room for"}
	near := Gang{Name: "near", Min: 2, Max: 2, Members: 2, Fits: true, FitsMax: true, Within: "clique"}
	for _, tc := range []struct {
		name string
		r    Result
		want string // substring of the only problem, "" for none
	}{
		{"fit at min", Result{Gang: fit, Placed: 2, MinAt: at(1), MaxAt: at(1)}, ""},
		{"fit short of min", Result{Gang: fit, Placed: 1}, "should fit but placed 1 of min 2"},
		{"elastic short of max", Result{Gang: elastic, Placed: 3, MinAt: at(1)}, "should reach max but placed 3 of max 4"},
		{"too big bound a pod", Result{Gang: big, Placed: 1, Reason: "room for 8", Asked: "1 pods"}, "cannot fit but got 1 members bound"},
		{"too big waiting with reason", Result{Gang: big, Reason: "the cluster has room for 8 members", Asked: "1 pods"}, ""},
		{"too big asked nothing", Result{Gang: big, Reason: "the cluster has room for 8 members"}, "asked the autoscaler for nothing"},
		{"within its clique", Result{Gang: near, Placed: 2, MinAt: at(1), MaxAt: at(1), Domain: "clique c3"}, ""},
		{"on one node is within a clique", Result{Gang: near, Placed: 2, MinAt: at(1), MaxAt: at(1), Domain: "node n1"}, ""},
		{"spans a rack", Result{Gang: near, Placed: 2, MinAt: at(1), MaxAt: at(1), Domain: "rack r1"}, "should sit within one clique but spans rack r1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := Verdict([]Result{tc.r})
			switch {
			case tc.want == "" && len(v) != 0:
				t.Errorf("Verdict = %q, want none", v)
			case tc.want != "" && (len(v) != 1 || !strings.Contains(v[0], tc.want)):
				t.Errorf("Verdict = %q, want one problem containing %q", v, tc.want)
			}
		})
	}
}

func TestProgressLine(t *testing.T) {
	got := ProgressLine(3040*time.Millisecond, Progress{Bound: 41, Pods: 122, AtMin: 6, Gangs: 10})
	if want := "[  3.0s] pods bound  41/122   gangs at min  6/10"; got != want {
		t.Errorf("ProgressLine = %q, want %q", got, want)
	}
}

func TestScenario(t *testing.T) {
	if _, err := NewScenario(MinNodes - 1); err == nil {
		t.Errorf("NewScenario(%d) succeeded, want an error", MinNodes-1)
	}
	for _, nodes := range []int{MinNodes, 48, 200} {
		s, err := NewScenario(nodes)
		if err != nil {
			t.Fatalf("NewScenario(%d): %v", nodes, err)
		}
		if err := s.Check(); err != nil {
			t.Errorf("NewScenario(%d).Check(): %v", nodes, err)
		}
		if got := len(s.Nodes()); got != nodes {
			t.Errorf("NewScenario(%d) has %d nodes", nodes, got)
		}
		var sources = map[Source]int{}
		var elastic, tooBig int
		for _, g := range s.Gangs {
			sources[g.Source]++
			if g.Min < g.Max && g.Members > g.Max {
				elastic++
			}
			if !g.Fits {
				tooBig++
			}
		}
		if sources[SourcePodGroup] == 0 || sources[SourceLabels] == 0 || elastic == 0 || tooBig != 1 || s.Waves() < 3 {
			t.Errorf("NewScenario(%d): sources %v, %d elastic gangs, %d too big, %d waves", nodes, sources, elastic, tooBig, s.Waves())
		}
	}
	a, _ := NewScenario(48)
	b, _ := NewScenario(48)
	if a.Nodes()[47].Name != b.Nodes()[47].Name || a.TotalMembers() != b.TotalMembers() {
		t.Error("the scenario is not deterministic")
	}
	if a.TotalMembers() != 122 {
		t.Errorf("48 nodes: %d members, want 122", a.TotalMembers())
	}
}
