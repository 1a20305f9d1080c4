package bench

import (
	"context"
	"flag"
	"testing"
	"time"

	"github.com/muster-project/muster/test/harness"
)

var (
	benchNodes = flag.Int("bench-nodes", 1000, "nodes for BenchmarkThroughput")
	benchPods  = flag.Int("bench-pods", 2000, "pods per scenario for BenchmarkThroughput")
)

// BenchmarkThroughput schedules the pods of each scenario once per iteration
// (run it with -benchtime=1x) and reports pods/s and the p50/p99 latency:
// per gang from its last member's creation to its min-th bind, per pod for
// plain pods.
//
//	go test ./test/bench -run '^$' -bench Throughput -benchtime=1x -timeout 30m
func BenchmarkThroughput(b *testing.B) {
	ctx := context.Background()
	env, err := harness.Start(b)
	if err != nil {
		b.Fatal(err)
	}
	cfg := Config{Nodes: *benchNodes, Pods: *benchPods}
	if err := EnsureNodes(ctx, env.Client, cfg.Nodes); err != nil {
		b.Fatal(err)
	}
	for _, sc := range Scenarios() {
		b.Run(sc.Name, func(b *testing.B) {
			var podsPerSec, p50, p99 float64
			for i := 0; i < b.N; i++ {
				res, err := Run(ctx, env, cfg, sc)
				if err != nil {
					b.Fatal(err)
				}
				podsPerSec += res.PodsPerSec
				p50 += Ms(res.P50)
				p99 += Ms(res.P99)
			}
			n := float64(b.N)
			b.ReportMetric(podsPerSec/n, "pods/s")
			b.ReportMetric(p50/n, "p50-ms")
			b.ReportMetric(p99/n, "p99-ms")
		})
	}
}

// TestThroughputScenarioSmall runs a small gang scenario end to end: every
// pod binds and every gang's min-th bind is seen.
func TestThroughputScenarioSmall(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	env, err := harness.Start(t)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(ctx, env, Config{Nodes: 50, Pods: 128, Timeout: 2 * time.Minute}, Gang8)
	if err != nil {
		t.Fatal(err)
	}
	if res.Pods != 128 || res.Gangs != 16 {
		t.Fatalf("created %d pods in %d gangs, want 128 in 16", res.Pods, res.Gangs)
	}
	if res.Bound != res.Pods {
		t.Errorf("%d of %d pods bound", res.Bound, res.Pods)
	}
	if got := res.GangsAtMin(); got != res.Gangs {
		t.Errorf("%d of %d gangs reached their min", got, res.Gangs)
	}
	if res.PodsPerSec <= 0 || res.P50 <= 0 || res.P99 < res.P50 {
		t.Errorf("implausible figures: %.1f pods/s, p50 %v, p99 %v", res.PodsPerSec, res.P50, res.P99)
	}
	t.Logf("%s: %d pods in %v (%.1f pods/s), gang latency p50 %v p99 %v", res.Scenario, res.Pods, res.Elapsed, res.PodsPerSec, res.P50, res.P99)

	// The pods are gone afterwards, so another scenario can follow.
	if n, err := harness.Bound(ctx, env.Client, res.Namespace, ""); err != nil || n != 0 {
		t.Errorf("after the run: %d pods still bound in %s (err %v)", n, res.Namespace, err)
	}
}
