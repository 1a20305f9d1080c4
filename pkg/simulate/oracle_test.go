// Tests of the oracle: which pool and how many nodes each job's members take, and what that costs.

package simulate

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestOracleOf(t *testing.T) {
	m := time.Minute
	pools := []OraclePool{
		{Name: "cpu", MilliCPU: 16000, Max: 10, Boot: 3 * m, Price: 0.768},
		{Name: "t4x4", GPUs: 4, MilliCPU: 64000, Max: 8, Boot: 5 * m, Price: 4.352},
		{Name: "h100", GPUs: 8, MilliCPU: 96000, Max: 8, Boot: 10 * m, Price: 98.32, PlacementGroup: true},
		{Name: "h100-spot", GPUs: 8, MilliCPU: 96000, Max: 4, Boot: 10 * m, Price: 30, Spot: true},
	}
	for _, tc := range []struct {
		name, line  string
		pool, lpool string
		nodes       int
		paid, used  float64 // GPU-hours
		cost        float64
		unplaceable bool
		unplacedWhy string
	}{
		// Two 8-GPU members: two H100 nodes for 10 boot minutes and the
		// 30-minute run, 16 GPUs x 40 minutes.
		{name: "a 2-node gang", line: "0 g gang 2 8 16 30 require=placement-group", pool: "h100", nodes: 2,
			paid: 16 * 40.0 / 60, used: 16 * 30.0 / 60, cost: 2 * 98.32 * 40 / 60},
		// The launcher tolerates no GPU taint: a CPU node of its own, 3
		// boot minutes and the run, beside the workers' two H100 nodes.
		{name: "a launcher", line: "0 l gang 2 8 16 30 launcher=4", pool: "h100", lpool: "cpu", nodes: 2,
			paid: 16 * 40.0 / 60, used: 16 * 30.0 / 60, cost: 2*98.32*40/60 + 0.768*33/60},
		// Six 1-GPU pods, four to a 4-GPU T4 node: two nodes (one H100
		// would hold all six but costs more).
		{name: "single-GPU pods packed", line: "0 r gpu 6 1 2 20", pool: "t4x4", nodes: 2,
			paid: 8 * 25.0 / 60, used: 6 * 20.0 / 60, cost: 2 * 4.352 * 25 / 60},
		// A spot job takes the cheaper spot pool; at max, 3 workers.
		{name: "a job on spot", line: "0 s gang 3 8 16 30 min=1 spot=true", pool: "h100-spot", nodes: 3,
			paid: 24 * 40.0 / 60, used: 24 * 30.0 / 60, cost: 3 * 30 * 40.0 / 60},
		// The same job without spot: the regular H100s.
		{name: "a job off spot", line: "0 s gang 3 8 16 30 min=1", pool: "h100", nodes: 3,
			paid: 24 * 40.0 / 60, used: 24 * 30.0 / 60, cost: 3 * 98.32 * 40.0 / 60},
		// CPU pods: two 6-CPU pods to a 16-vCPU node.
		{name: "CPU pods", line: "0 e cpu 3 0 6 15", pool: "cpu", nodes: 2, cost: 2 * 0.768 * 18 / 60},
		// Nine 8-GPU members in a placement group: more than the H100
		// pool's max of 8 nodes; the job never runs and costs nothing.
		{name: "a gang no pool holds", line: "0 h gang 9 8 16 30 require=placement-group", unplaceable: true, unplacedWhy: "no pool holds 9 x 8 GPU"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := ParseTrace(strings.NewReader(tc.line + "\n"))
			if err != nil {
				t.Fatal(err)
			}
			o := OracleOf(tr, pools)
			if len(o.Jobs) != 1 {
				t.Fatalf("%d jobs, want 1", len(o.Jobs))
			}
			j := o.Jobs[0]
			if j.Unplaceable != tc.unplaceable || j.UnplaceableBy != tc.unplacedWhy {
				t.Errorf("unplaceable %v (%q), want %v (%q)", j.Unplaceable, j.UnplaceableBy, tc.unplaceable, tc.unplacedWhy)
			}
			if j.Pool != tc.pool || j.Nodes != tc.nodes || j.LauncherPool != tc.lpool {
				t.Errorf("pool %q x %d nodes, launcher on %q; want %q x %d, launcher on %q", j.Pool, j.Nodes, j.LauncherPool, tc.pool, tc.nodes, tc.lpool)
			}
			close := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
			if !close(o.PaidGPUHours, tc.paid) || !close(o.UsedGPUHours, tc.used) || !close(o.IdleGPUHours, tc.paid-tc.used) || !close(o.Cost, tc.cost) {
				t.Errorf("GPU-hours paid %.4f, used %.4f, idle %.4f, cost $%.4f; want %.4f, %.4f, %.4f, $%.4f",
					o.PaidGPUHours, o.UsedGPUHours, o.IdleGPUHours, o.Cost, tc.paid, tc.used, tc.paid-tc.used, tc.cost)
			}
		})
	}
}

func TestOraclePools(t *testing.T) {
	pf, err := ParsePools(strings.NewReader(ExamplePools))
	if err != nil {
		t.Fatal(err)
	}
	pools, err := OraclePools(pf)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]OraclePool{
		"cpu":       {Name: "cpu", MilliCPU: 16000, Max: 10, Boot: 3 * time.Minute, Price: 0.768},
		"gpu-light": {Name: "gpu-light", GPUs: 1, MilliCPU: 4000, Max: 8, Boot: 5 * time.Minute, Price: 0.526},
		"gpu-heavy": {Name: "gpu-heavy", GPUs: 8, MilliCPU: 96000, Max: 8, Boot: 10 * time.Minute, Price: 98.32, PlacementGroup: true},
	}
	for _, p := range pools {
		if p != want[p.Name] {
			t.Errorf("pool %s: %+v, want %+v", p.Name, p, want[p.Name])
		}
	}
	pf.Pools[0].VMSize = "Standard_Nope"
	if _, err := OraclePools(pf); err == nil || !strings.Contains(err.Error(), `pool "cpu": field vmSize: unknown size "Standard_Nope"`) {
		t.Errorf("unknown size: %v, want an error naming the pool and field", err)
	}
}

// TestWriteSummary: the random table holds every side's value in each
// column, in the header's order, and the multiples of each trace's oracle.
func TestWriteSummary(t *testing.T) {
	oracle := &Oracle{IdleGPUHours: 2, Cost: 100}
	var sb strings.Builder
	err := WriteSummary(&sb, []TraceSummary{{Seed: 3, Sides: []string{"muster", "upstream", "baseline"}, Oracle: oracle,
		Runs: [][]Figures{{{PartialGangs: 0, IdleGPUHours: 4, Cost: 150, GangsFinished: 5, MeanTurnaround: 42 * time.Minute}},
			{{PartialGangs: 1, IdleGPUHours: 8, Cost: 200, GangsFinished: 4, MeanTurnaround: 30 * time.Minute, JobsNotDone: 1}},
			{{PartialGangs: 2, IdleGPUHours: 10, Cost: 300, GangsFinished: 5, MeanTurnaround: 50 * time.Minute}}}}})
	if err != nil {
		t.Fatal(err)
	}
	out := sb.String()
	for _, want := range []string{"PARTIAL GANGS (MUSTER/UPSTREAM/BASELINE)", "0 / 1 / 2", "4.0 / 8.0 / 10.0", "2.00x / 4.00x / 5.00x", "150 / 200 / 300", "1.50x / 2.00x / 3.00x",
		"5 (42.0m) / 4 (30.0m) / 5 (50.0m)", "0 / 1 / 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}

// TestWriteSummaryOfRepeats: a side replayed several times shows each
// figure's median and, where its replays differ, their range; a side whose
// replays agree shows the one value.
func TestWriteSummaryOfRepeats(t *testing.T) {
	oracle := &Oracle{IdleGPUHours: 10, Cost: 1000}
	var sb strings.Builder
	err := WriteSummary(&sb, []TraceSummary{{Seed: 9, Sides: []string{"muster", "upstream"}, Oracle: oracle,
		Runs: [][]Figures{
			{{IdleGPUHours: 40.4, Cost: 1982, GangsFinished: 9, MeanTurnaround: 82 * time.Minute}, {IdleGPUHours: 40.4, Cost: 1982, GangsFinished: 9, MeanTurnaround: 82 * time.Minute}, {IdleGPUHours: 40.4, Cost: 1982, GangsFinished: 9, MeanTurnaround: 82 * time.Minute}},
			{{IdleGPUHours: 24.7, Cost: 1798, GangsFinished: 9, MeanTurnaround: 59 * time.Minute, GangsBroken: 1}, {IdleGPUHours: 47.5, Cost: 2071, GangsFinished: 8, MeanTurnaround: 77 * time.Minute, GangsBroken: 1, JobsNotDone: 1}, {IdleGPUHours: 41.4, Cost: 1997, GangsFinished: 9, MeanTurnaround: 88 * time.Minute, GangsBroken: 1}},
		}}})
	if err != nil {
		t.Fatal(err)
	}
	out := sb.String()
	for _, want := range []string{"40.4 / 41.4 (24.7–47.5)", "4.04x / 4.14x (2.47x–4.75x)", "1982 / 1997 (1798–2071)", "1.98x / 2.00x (1.80x–2.07x)",
		"9 (82.0m) / 9 (8–9) (77.0m (59.0m–88.0m))", "0 / 1", "0 / 0 (0–1)"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}

func TestCanRun(t *testing.T) {
	m := time.Minute
	pools := []OraclePool{
		{Name: "cpu", MilliCPU: 16000, Max: 10, Boot: 3 * m, Price: 0.768},
		{Name: "h100", GPUs: 8, MilliCPU: 96000, Max: 4, Boot: 10 * m, Price: 98.32, PlacementGroup: true},
		{Name: "t4", GPUs: 1, MilliCPU: 4000, Max: 6, Boot: 5 * m, Price: 0.526},
	}
	gpuOnly := []OraclePool{pools[1]}
	for _, tc := range []struct {
		name, line string
		pools      []OraclePool
		want       bool
	}{
		{name: "a gang within the pool's max", line: "0 g gang 4 8 16 30 require=placement-group", pools: pools, want: true},
		{name: "a rigid gang past the max", line: "0 g gang 5 8 16 30 require=placement-group", pools: pools},
		// Elastic: min 3 workers fit the 4 nodes though max 6 does not.
		{name: "an elastic gang whose min fits", line: "0 g gang 6 8 16 30 min=3", pools: pools, want: true},
		{name: "an elastic gang whose min does not", line: "0 g gang 6 8 16 30 min=5", pools: pools},
		// A launcher is a member beside the workers: 4 workers and a CPU
		// launcher, which no GPU pool takes.
		{name: "a launcher on a CPU pool", line: "0 l gang 4 8 16 30 launcher=2", pools: pools, want: true},
		{name: "a launcher with no CPU pool", line: "0 l gang 4 8 16 30 launcher=2", pools: gpuOnly},
		// Seven 1-GPU pods: the T4 pool holds six, the H100s 32.
		{name: "plain GPU pods on the bigger pool", line: "0 r gpu 7 1 2 20", pools: pools, want: true},
		{name: "plain pods no pool takes", line: "0 r gpu 7 2 2 20", pools: []OraclePool{pools[2]}},
		{name: "a spot job on regular pools", line: "0 s gang 3 8 16 30 min=1 spot=true", pools: pools, want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := ParseTrace(strings.NewReader(tc.line + "\n"))
			if err != nil {
				t.Fatal(err)
			}
			if got := CanRun(tr.Jobs[0], tc.pools); got != tc.want {
				t.Errorf("CanRun(%q) = %v, want %v", tc.line, got, tc.want)
			}
		})
	}
}
