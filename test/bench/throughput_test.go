// The throughput benchmark, and tests of its scenarios end to end: small, mixed, upstream PodGroups and Scale through StartScheduler, every gang at min.

package bench

import (
	"context"
	"flag"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/features"

	"github.com/muster-project/muster/pkg/controlplane"
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
	env, err := controlplane.StartWith(b, controlplane.Options{WorkloadAPI: true})
	if err != nil {
		b.Fatal(err)
	}
	cfg := Config{Nodes: *benchNodes, Pods: *benchPods}
	if err := EnsureNodes(ctx, env.Client, cfg.Nodes); err != nil {
		b.Fatal(err)
	}
	for _, sc := range Scenarios(true) {
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
	env, err := controlplane.Start(t)
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
	if n, err := controlplane.Bound(ctx, env.Client, res.Namespace, ""); err != nil || n != 0 {
		t.Errorf("after the run: %d pods still bound in %s (err %v)", n, res.Namespace, err)
	}
}

// TestThroughputPreCreated runs gangs of 8 with every pod created before the
// scheduler starts: every pod binds after the warm-up pod, and the
// scheduling-only throughput, the start-up and the breakdown from the
// scheduler's metrics are there. It asserts no timing.
func TestThroughputPreCreated(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	env, err := controlplane.Start(t)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(ctx, env, Config{Nodes: 50, Pods: 64, Timeout: 2 * time.Minute, PreCreate: true}, Gang8)
	if err != nil {
		t.Fatal(err)
	}
	if res.Bound != 64 || res.GangsAtMin() != 8 {
		t.Errorf("%d of 64 pods bound, %d of 8 gangs at min", res.Bound, res.GangsAtMin())
	}
	if res.Startup <= 0 || res.SchedPodsPerSec <= 0 || res.Scheduling <= 0 {
		t.Errorf("start-up %v, scheduling %v, %.1f pods/s: want all set", res.Startup, res.Scheduling, res.SchedPodsPerSec)
	}
	// The warm-up pod is among the pods the metrics count.
	if b := res.Breakdown; b.Pods != 65 || b.Attempts < 1 || b.SLI <= 0 || b.Points["PreFilter"] <= 0 || b.Points["Bind"] <= 0 {
		t.Errorf("breakdown %+v: want 65 pods, at least one attempt each, SLI, PreFilter and Bind times", b)
	}
	t.Logf("%s: start-up %v, %.1f pods/s; %s", res.Scenario, res.Startup, res.SchedPodsPerSec, res.Breakdown)
}

// TestThroughputScenarioMixed runs one round of the mixed scenario's gang
// sizes (1 to 64, launcher plus workers): every gang reaches its min.
func TestThroughputScenarioMixed(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	env, err := controlplane.Start(t)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(ctx, env, Config{Nodes: 50, Pods: 127, Timeout: 2 * time.Minute}, Mixed)
	if err != nil {
		t.Fatal(err)
	}
	if res.Pods != 127 || res.Gangs != len(MixedSizes) {
		t.Fatalf("created %d pods in %d gangs, want 127 in %d", res.Pods, res.Gangs, len(MixedSizes))
	}
	if got := res.GangsAtMin(); got != res.Gangs || res.Bound != res.Pods {
		t.Errorf("%d of %d gangs at min, %d of %d pods bound", got, res.Gangs, res.Bound, res.Pods)
	}
	if res.Writes["POST pods/binding"] != 127 {
		t.Errorf("%v binds counted, want 127", res.Writes["POST pods/binding"])
	}
	t.Logf("%s: %d pods in %v (%.1f pods/s), gang latency p50 %v p99 %v, %.2f API writes per pod", res.Scenario, res.Pods, res.Elapsed, res.PodsPerSec, res.P50, res.P99, res.WritesPerPod())
}

// TestThroughputScenarioUpstream runs gangs of 8, and one round of the
// mixed sizes (launcher plus workers), as upstream v1beta1 PodGroups under
// the default profile's GangScheduling: every gang reaches its min, every
// pod binds, one PodGroup per gang.
func TestThroughputScenarioUpstream(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	env, err := controlplane.StartWith(t, controlplane.Options{WorkloadAPI: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		sc          Scenario
		pods, gangs int
	}{
		{Upstream8, 64, 8},
		{UpstreamMixed, 127, len(MixedSizes)},
	} {
		res, err := Run(ctx, env, Config{Nodes: 50, Pods: tc.pods, Timeout: 2 * time.Minute}, tc.sc)
		if err != nil {
			t.Fatalf("%s: %v", tc.sc.Name, err)
		}
		if res.Pods != tc.pods || res.Gangs != tc.gangs {
			t.Fatalf("%s: created %d pods in %d gangs, want %d in %d", tc.sc.Name, res.Pods, res.Gangs, tc.pods, tc.gangs)
		}
		if got := res.GangsAtMin(); got != res.Gangs || res.Bound != res.Pods {
			t.Errorf("%s: %d of %d gangs at min, %d of %d pods bound", tc.sc.Name, got, res.Gangs, res.Bound, res.Pods)
		}
		groups, err := env.Client.SchedulingV1beta1().PodGroups(res.Namespace).List(ctx, metav1.ListOptions{})
		if err != nil || len(groups.Items) != tc.gangs {
			t.Errorf("%s: PodGroups in %s: %d (err %v), want %d", tc.sc.Name, res.Namespace, len(groups.Items), err, tc.gangs)
		}
		t.Logf("%s: %d pods in %v (%.1f pods/s), gang latency p50 %v p99 %v", res.Scenario, res.Pods, res.Elapsed, res.PodsPerSec, res.P50, res.P99)
	}
}

func TestUpstreamOf(t *testing.T) {
	for _, sc := range Scenarios(false) {
		u, ok := UpstreamOf(sc)
		if sc == Plain {
			if ok {
				t.Errorf("plain has upstream scenario %s", u.Name)
			}
			continue
		}
		if !ok || !u.Upstream || u.GangSize != sc.GangSize || u.Mixed != sc.Mixed {
			t.Errorf("UpstreamOf(%s) = %+v, %v; want the same gangs upstream", sc.Name, u, ok)
		}
	}
}

// TestThroughputScenarioScale runs a small Scale load (gangs of 50, a
// launcher and 49 workers, every other gang at HighPriority) through a
// scheduler started by Config.StartScheduler: every pod binds, the hooks run
// once each, and half the gangs carry the high priority.
func TestThroughputScenarioScale(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	env, err := controlplane.Start(t)
	if err != nil {
		t.Fatal(err)
	}
	var started, creating, bound, high int
	cfg := Config{Nodes: 50, Pods: 200, Timeout: 2 * time.Minute,
		StartScheduler: func(ctx context.Context, config string, _ Scenario) (func(), error) {
			started++
			s, err := env.StartScheduler(ctx, config)
			if err != nil {
				return nil, err
			}
			return s.Stop, nil
		},
		Creating: func() { creating++ },
		Bound: func() {
			bound++
			pods, err := env.Client.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Error(err)
				return
			}
			for _, p := range pods.Items {
				if p.Spec.Priority != nil && *p.Spec.Priority == 1000 {
					high++
				}
			}
		},
	}
	res, err := Run(ctx, env, cfg, Scale)
	if err != nil {
		t.Fatal(err)
	}
	if res.Pods != 200 || res.Gangs != 4 || res.Bound != 200 || res.GangsAtMin() != 4 {
		t.Errorf("%d pods in %d gangs, %d bound, %d gangs at min; want 200 in 4, all bound and at min", res.Pods, res.Gangs, res.Bound, res.GangsAtMin())
	}
	if started != 1 || creating != 1 || bound != 1 {
		t.Errorf("StartScheduler, Creating, Bound called %d, %d, %d times; want once each", started, creating, bound)
	}
	if high != 100 {
		t.Errorf("%d pods at priority 1000, want 100 (every other gang of 50)", high)
	}
}

// TestMusterScenariosRunWithTheWorkloadGatesOff: on a control plane serving
// the Workload API, a Muster scenario runs with GenericWorkload off, as
// muster-scheduler ships (with it on, the in-process framework requeued
// every parked member on each pod added), and an upstream scenario after it
// finds the gates back on, so the API server keeps its pods'
// spec.schedulingGroup.
func TestMusterScenariosRunWithTheWorkloadGatesOff(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	env, err := controlplane.StartWith(t, controlplane.Options{WorkloadAPI: true})
	if err != nil {
		t.Fatal(err)
	}
	genericWorkload := func() bool { return utilfeature.DefaultFeatureGate.Enabled(features.GenericWorkload) }
	for _, sc := range []Scenario{Gang8, Upstream8} {
		var during bool
		cfg := Config{Nodes: 20, Pods: 32, Timeout: 2 * time.Minute, Creating: func() { during = genericWorkload() }}
		res, err := Run(ctx, env, cfg, sc)
		if err != nil {
			t.Fatalf("%s: %v", sc.Name, err)
		}
		if during != sc.Upstream {
			t.Errorf("%s: GenericWorkload %v while its pods were created, want %v", sc.Name, during, sc.Upstream)
		}
		if !genericWorkload() {
			t.Errorf("after %s: GenericWorkload off, want the control plane's (on)", sc.Name)
		}
		if res.Bound != res.Pods || res.GangsAtMin() != res.Gangs {
			t.Errorf("%s: %d of %d pods bound, %d of %d gangs at min", sc.Name, res.Bound, res.Pods, res.GangsAtMin(), res.Gangs)
		}
		if sc.Upstream {
			groups, err := env.Client.SchedulingV1beta1().PodGroups(res.Namespace).List(ctx, metav1.ListOptions{})
			if err != nil || len(groups.Items) != res.Gangs {
				t.Errorf("%s: PodGroups in %s: %d (err %v), want %d", sc.Name, res.Namespace, len(groups.Items), err, res.Gangs)
			}
		}
	}
}
