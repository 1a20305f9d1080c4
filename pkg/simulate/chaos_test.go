// Tests of chaos runs: the invariants on snapshots (partial gangs, unasked deletions, leaked VMs, pools past max), lost nodes, starved gangs, planned faults, the table, the first burst.

package simulate

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"
)

const m = time.Minute

func onePool(name string, capacity int, in ...InstanceSnapshot) []PoolSnapshot {
	return []PoolSnapshot{{Name: name, Capacity: capacity, Instances: in}}
}

func TestInvariants(t *testing.T) {
	vm := func(name, state string, created time.Duration) InstanceSnapshot {
		return InstanceSnapshot{Name: name, State: state, Created: created}
	}
	for _, tc := range []struct {
		name  string
		snaps []Snapshot
		final *Snapshot
		want  ChaosFigures
	}{{
		name: "a gang below min past the bound is partial, once",
		snaps: []Snapshot{
			{At: 0, Running: map[string]int{"a": 1}, Min: map[string]int{"a": 3}},
			{At: 10 * m, Running: map[string]int{"a": 2}, Min: map[string]int{"a": 3}},
			{At: 16 * m, Running: map[string]int{"a": 2}, Min: map[string]int{"a": 3}},
			{At: 20 * m, Running: map[string]int{"a": 1}, Min: map[string]int{"a": 3}},
		},
		want: ChaosFigures{PartialGangs: 1},
	}, {
		name: "a gang that reaches min, or runs nothing, in time is not partial",
		snaps: []Snapshot{
			{At: 0, Running: map[string]int{"a": 1, "b": 2}, Min: map[string]int{"a": 3, "b": 4}},
			{At: 14 * m, Running: map[string]int{"a": 3, "b": 0}, Min: map[string]int{"a": 3, "b": 4}},
			{At: 20 * m, Running: map[string]int{"a": 1, "b": 1}, Min: map[string]int{"a": 3, "b": 4}},
			{At: 30 * m, Running: map[string]int{"a": 0, "b": 4}, Min: map[string]int{"a": 3, "b": 4}},
		},
	}, {
		name: "the autoscaler deleting a VM with pods on it is unasked; injected or empty is not",
		snaps: []Snapshot{{At: m, PodsOnNode: map[string]int{"n1": 2, "n2": 1}, Deletions: []Deletion{
			{Pool: "gpu", Instance: "n1", Cause: "delete-instances"},
			{Pool: "gpu", Instance: "n2", Cause: CauseInjected},
			{Pool: "gpu", Instance: "n3", Cause: "scale-in"},
		}}, {At: 2 * m, PodsOnNode: map[string]int{"n1": 2}, Deletions: []Deletion{
			{Pool: "gpu", Instance: "n1", Cause: "delete-instances"},
			{Pool: "gpu", Instance: "n2", Cause: CauseInjected},
			{Pool: "gpu", Instance: "n3", Cause: "scale-in"},
		}}},
		want: ChaosFigures{DeletedUnasked: 1},
	}, {
		name: "a VM Creating or Failed past the bound leaks; a running one does not",
		snaps: []Snapshot{
			{At: 30 * m, PodsOnNode: map[string]int{"ok": 1}, Pools: onePool("gpu", 3, vm("stuck", "Creating", 2*m), vm("failed", "Failed", 10*m), vm("ok", "Succeeded", 0))},
			{At: 36 * m, PodsOnNode: map[string]int{"ok": 1}, Pools: onePool("gpu", 3, vm("stuck", "Creating", 2*m), vm("failed", "Failed", 10*m), vm("ok", "Succeeded", 0))},
		},
		want: ChaosFigures{LeakedVMs: 2},
	}, {
		name: "at the end, VMs idle past the bound beyond the pool's min leak",
		snaps: []Snapshot{
			{At: 10 * m, PodsOnNode: map[string]int{"a": 1, "b": 1, "c": 1}, Pools: onePool("gpu", 3, vm("a", "Succeeded", 0), vm("b", "Succeeded", 0), vm("c", "Succeeded", 0))},
			{At: 20 * m, PodsOnNode: map[string]int{"c": 1}, Pools: onePool("gpu", 3, vm("a", "Succeeded", 0), vm("b", "Succeeded", 0), vm("c", "Succeeded", 0))},
		},
		final: &Snapshot{At: 46 * m, PodsOnNode: map[string]int{"c": 1}, Pools: onePool("gpu", 3, vm("a", "Succeeded", 0), vm("b", "Succeeded", 0), vm("c", "Succeeded", 0))},
		// a and b idle since minute 10 (36 minutes), c busy; the pool's
		// min is 2, so one of the two idle ones may stay.
		want: ChaosFigures{LeakedVMs: 1},
	}, {
		name: "a pool past its max counts once per excursion",
		snaps: []Snapshot{
			{At: m, Pools: onePool("gpu", 3)},
			{At: 2 * m, Pools: onePool("gpu", 5)},
			{At: 3 * m, Pools: onePool("gpu", 5)},
			{At: 4 * m, Pools: onePool("gpu", 4)},
			{At: 5 * m, Pools: onePool("gpu", 4, vm("a", "Succeeded", 0), vm("b", "Succeeded", 0), vm("c", "Succeeded", 0), vm("d", "Succeeded", 0), vm("e", "Succeeded", 0))},
			{At: 6 * m, Pools: onePool("gpu", 4, vm("a", "Succeeded", 0), vm("b", "Succeeded", 0), vm("c", "Succeeded", 0), vm("d", "Succeeded", 0), vm("e", "Deleting", 0))},
		},
		want: ChaosFigures{PoolsPastMax: 2},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			inv := &Invariants{PartialBound: 15 * m, LeakBound: 25 * m, Max: map[string]int{"gpu": 4}}
			for _, s := range tc.snaps {
				inv.Observe(s)
			}
			if tc.final != nil {
				inv.Finish(*tc.final, map[string]int{"gpu": 2})
			}
			got := inv.Figures(Figures{}, nil, nil)
			details := got.Details
			got.Details = nil
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("figures %+v, want %+v; details:\n%s", got, tc.want, strings.Join(details, "\n"))
			}
			if got.Zero() != (len(details) == 0) {
				t.Errorf("zero %v but details %q", got.Zero(), details)
			}
		})
	}
}

func TestObserveReturnsLostNodesOnce(t *testing.T) {
	inv := &Invariants{PartialBound: m, LeakBound: m}
	d := []Deletion{{Pool: "gpu", Instance: "n1", Cause: CauseInjected}}
	if got := inv.Observe(Snapshot{Deletions: d}); !reflect.DeepEqual(got, []string{"n1"}) {
		t.Fatalf("lost %v, want [n1]", got)
	}
	d = append(d, Deletion{Pool: "gpu", Instance: "n2", Cause: "delete-instances"})
	if got := inv.Observe(Snapshot{Deletions: d}); !reflect.DeepEqual(got, []string{"n2"}) {
		t.Fatalf("lost %v, want [n2]", got)
	}
}

func TestStarvedGangs(t *testing.T) {
	inv := &Invariants{}
	run := Figures{Jobs: []JobFigures{
		{Name: "ran", Min: 2, AtMin: true},
		{Name: "starved", Min: 4, MostRunning: 1},
		{Name: "stuck", Min: 2, AtMin: true},
		{Name: "plain", Min: 1},
	}}
	f := inv.Figures(run, map[string]bool{"ran": true, "starved": true, "stuck": true}, map[string]bool{"ran": true})
	if f.StarvedGangs != 2 || len(f.Details) != 2 || !strings.Contains(f.Details[0], "starved") || !strings.Contains(f.Details[1], "stuck ran min 2 members but never finished") {
		t.Fatalf("figures %+v, want the starved and the stuck gang named", f)
	}
}

func TestPlanFaults(t *testing.T) {
	from, to := 2*m, 50*m
	a, b := PlanFaults(7, from, to), PlanFaults(7, from, to)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed planned different faults")
	}
	if reflect.DeepEqual(a, PlanFaults(8, from, to)) {
		t.Error("seeds 7 and 8 planned the same faults")
	}
	if len(a) != 13 {
		t.Errorf("%d faults over 48 minutes, want one per 4 minutes (13)", len(a))
	}
	seen := map[string]bool{}
	for i, f := range a {
		if f.At < from || f.At > to || (i > 0 && f.At < a[i-1].At) {
			t.Errorf("fault %d at %s: outside [%s, %s] or out of order", i, f.At, from, to)
		}
		seen[f.Kind] = true
	}
	if len(seen) != len(FaultKinds) {
		t.Errorf("kinds %v: want every one of %v", seen, FaultKinds)
	}
}

func TestWriteChaosTable(t *testing.T) {
	var out bytes.Buffer
	failed, err := WriteChaosTable(&out, []ChaosRun{
		{Seed: 1, Jobs: 10, Done: 10, Faults: map[string]int{FaultNodeLoss: 2}},
		{Seed: 2, Jobs: 9, Done: 9, Figures: ChaosFigures{LeakedVMs: 1, Details: []string{"VM gpu/x leaked"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(failed, []int64{2}) {
		t.Errorf("failed seeds %v, want [2]", failed)
	}
	text := out.String()
	for _, want := range []string{"node-loss 2", "seed 2: VM gpu/x leaked",
		"chaos: runs 2, partial gangs 0, leaked VMs 1, VMs deleted unasked 0, pools past max 0, starved gangs 0\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("table lacks %q:\n%s", want, text)
		}
	}
}

func TestFirstBurst(t *testing.T) {
	tr := Random(3)
	short := tr.FirstBurst()
	if len(short.Jobs) == 0 || len(short.Jobs) >= len(tr.Jobs) {
		t.Fatalf("first burst has %d of %d jobs", len(short.Jobs), len(tr.Jobs))
	}
	for _, j := range short.Jobs {
		if j.At >= 20*m {
			t.Errorf("job %s at %s is past the first burst", j.Name, j.At)
		}
	}
}
