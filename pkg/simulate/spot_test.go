// Tests of spot reclaims: ReclaimAfter the same per seed and node with a mean life of 1/rate, and the report of runs with reclaims.

package simulate

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestReclaimAfter(t *testing.T) {
	if _, ok := ReclaimAfter(1, "gpu-spot000000", 0); ok {
		t.Fatal("a pool without a reclaim rate reclaims")
	}
	a, _ := ReclaimAfter(7, "gpu-spot000003", 0.5)
	b, _ := ReclaimAfter(7, "gpu-spot000003", 0.5)
	c, _ := ReclaimAfter(8, "gpu-spot000003", 0.5)
	if a != b || a == c || a <= 0 {
		t.Fatalf("same seed and node %s and %s, other seed %s: want equal, positive, and different from the other seed", a, b, c)
	}
	// The mean of many nodes' lives is 1/rate (2 hours at 0.5 per hour).
	var sum time.Duration
	const n = 4000
	for i := range n {
		d, _ := ReclaimAfter(3, fmt.Sprintf("gpu-spot%06d", i), 0.5)
		sum += d
	}
	if mean := sum / n; mean < 105*time.Minute || mean > 135*time.Minute {
		t.Fatalf("mean life %s over %d nodes, want about 2h", mean, n)
	}
}

// The report of three runs, one with reclaims: a column per run, the
// reclaim rows, and the summary line naming gangs a reclaim took below min.
func TestReportWithSpot(t *testing.T) {
	tr, err := ParseTrace(strings.NewReader("0 el gang 2 8 16 30 min=1 spot=true\n"))
	if err != nil {
		t.Fatal(err)
	}
	m := time.Minute
	mk := func(name string, reclaims, below int, finished time.Duration) Run {
		r := NewRecord()
		r.JobCreated(tr.Jobs[0], 0)
		r.NodeUp("n0", "gpu-heavy", 8, 0)
		r.PodBound("el", "el-0", "n0", m)
		r.JobStarted("el", m)
		if finished > 0 {
			r.JobFinished("el", finished)
			r.PodDone("el", "el-0", "n0", 8, finished)
		}
		r.Reclaims, r.ReclaimedMembers = reclaims, reclaims
		if below > 0 {
			r.BelowMinByReclaim["el"] = true
		}
		r.End = 60 * m
		r.Prices = map[string]float64{"gpu-heavy": 10}
		return Run{Name: name, Record: r, Figures: r.Figures(nil)}
	}
	var sb strings.Builder
	if err := WriteReport(&sb, tr, nil, mk("muster", 2, 0, 31*m), mk("muster-no-spot", 0, 0, 61*m), mk("baseline", 3, 1, 0)); err != nil {
		t.Fatal(err)
	}
	out := sb.String()
	row := regexp.MustCompile(`(?m)^spot nodes reclaimed \(members on them\) +2 \(2\) +0 \(0\) +3 \(3\)$`)
	if !row.MatchString(out) {
		t.Errorf("report lacks the reclaims row:\n%s", out)
	}
	for _, want := range []string{"MUSTER-NO-SPOT TO MIN", "gangs a reclaim took below min", "1 (31.0m)",
		"muster: partial gangs 0, excess nodes 0, idle GPU-hours 4.0, cost $10.00, broken gangs 0, wait to min mean 1.0m p90 1.0m, gangs below min after a reclaim 0; muster-no-spot: partial gangs 0, excess nodes 0, idle GPU-hours 0.0, cost $10.00, broken gangs 0, wait to min mean 1.0m p90 1.0m; baseline: partial gangs 0, excess nodes 0, idle GPU-hours 0.1, cost $10.00, broken gangs 0, wait to min mean 1.0m p90 1.0m, gangs below min after a reclaim 1"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if err := WriteReport(&sb, tr, nil); err == nil {
		t.Error("a report of no run: no error")
	}
}
