// Integration test of the gang metrics moving with real gangs (requests, bookings, quorum waits, phases, evictions), and of every metric the Grafana dashboard queries.

package integration

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-base/metrics/legacyregistry"

	autoscalingv1 "github.com/muster-project/muster/pkg/apis/autoscaling/v1"
	"github.com/muster-project/muster/pkg/controlplane"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/provisioning"
)

// metric sums a metric's series whose labels include want, as the
// scheduler's /metrics serves them (the in-process scheduler registers in
// component-base's legacy registry): a counter's or gauge's value, a
// histogram's sample count.
func metric(t *testing.T, name string, want map[string]string) float64 {
	t.Helper()
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	series:
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			for k, v := range want {
				if labels[k] != v {
					continue series
				}
			}
			switch f.GetType() {
			case dto.MetricType_COUNTER:
				sum += m.GetCounter().GetValue()
			case dto.MetricType_GAUGE:
				sum += m.GetGauge().GetValue()
			case dto.MetricType_HISTOGRAM:
				sum += float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return sum
}

// waitFor polls cond for up to 30 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: timed out", what)
		}
	}
}

// The gang metrics move with a real gang: a PodGroup short of one node gets
// a request (created, one member asked), the request is provisioned, the
// node comes, the quorum binds (a booking bound, the request withdrawn, one
// quorum wait timed) and the gang shows as Running... or Scheduling until
// its pods run; an elastic gang shed for an older one counts its evictions.
func TestGangMetricsMove(t *testing.T) {
	ctx, env, _ := setup(t, controlplane.GangArgs{BackoffSeconds: 1})
	created := metric(t, "muster_provisioning_requests_written_total", map[string]string{"action": "created"})
	withdrawn := metric(t, "muster_provisioning_requests_written_total", map[string]string{"action": "withdrawn"})
	asked := metric(t, "muster_provisioning_requests_members_total", nil)
	bound := metric(t, "muster_provisioning_requests_outcomes_total", map[string]string{"outcome": "bound"})
	waits := metric(t, "muster_gang_quorum_wait_seconds", map[string]string{"source": "podgroup"})

	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 2, 8); err != nil {
		t.Fatal(err)
	}
	createPodGroup(t, env, 3, 0, 0, "llm")
	if err := controlplane.CreatePods(ctx, env.Client, controlplane.PodGroupMembers(ns, "llm", 3, 8)...); err != nil {
		t.Fatal(err)
	}
	pr := waitProvReqs(t, ctx, env, "llm", "for 1 member", oneRequestFor(1))[0]
	if got := metric(t, "muster_provisioning_requests_written_total", map[string]string{"action": "created"}) - created; got != 1 {
		t.Errorf("requests created: %v more, want 1", got)
	}
	if got := metric(t, "muster_provisioning_requests_members_total", nil) - asked; got != 1 {
		t.Errorf("members asked: %v more, want 1", got)
	}
	if got := metric(t, "muster_gangs", map[string]string{"phase": gang.PhasePending}); got < 1 {
		t.Errorf("muster_gangs{phase=Pending} = %v, want the waiting gang counted", got)
	}

	setProvReqCondition(t, ctx, env, pr.Name, metav1.Condition{Type: autoscalingv1.Provisioned, Status: metav1.ConditionTrue, Reason: "Provisioned", Message: "gpu pool adding 1 node"})
	waitExtraCondition(t, ctx, env, "llm", provisioning.ConditionCapacity, provisioning.ReasonProvisioned, "gpu pool adding 1 node")
	if err := controlplane.CreateNodes(ctx, env.Client, "new", 1, 8); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.PodGroupLabel, "llm", 3)
	waitProvReqs(t, ctx, env, "llm", "withdrawn once placed", noRequest)
	if got := metric(t, "muster_provisioning_requests_outcomes_total", map[string]string{"outcome": "bound"}) - bound; got != 1 {
		t.Errorf("bookings bound: %v more, want 1", got)
	}
	if got := metric(t, "muster_provisioning_requests_written_total", map[string]string{"action": "withdrawn"}) - withdrawn; got != 1 {
		t.Errorf("requests withdrawn: %v more, want 1", got)
	}
	waitPod(t, ctx, env, "llm-0", "bound", func(p *v1.Pod) bool { return p.Spec.NodeName != "" })
	waitFor(t, "one quorum wait timed", func() bool {
		return metric(t, "muster_gang_quorum_wait_seconds", map[string]string{"source": "podgroup"})-waits == 1
	})
	waitFor(t, "the gang counted as Scheduling", func() bool {
		return metric(t, "muster_gangs", map[string]string{"phase": gang.PhaseScheduling})+metric(t, "muster_gangs", map[string]string{"phase": gang.PhaseRunning}) >= 1
	})

	// Shedding counts each member evicted, by reason.
	shed := metric(t, "muster_gang_evictions_total", map[string]string{"reason": gang.ReasonShed})
	startKubelet(t, ctx, env)
	if err := controlplane.CreateNodes(ctx, env.Client, "more", 2, 8); err != nil {
		t.Fatal(err)
	}
	createPodGroup(t, env, 1, 0, 0, "rigid") // older than elastic
	time.Sleep(1100 * time.Millisecond)      // creation timestamps have second resolution
	createPodGroupWithPriority(t, ctx, env, "elastic", 1, 2, 2, "")
	waitBound(t, env, gang.PodGroupLabel, "elastic", 2)
	if err := controlplane.CreatePods(ctx, env.Client, controlplane.PodGroupMembers(ns, "rigid", 1, 8)...); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.PodGroupLabel, "rigid", 1)
	if got := metric(t, "muster_gang_evictions_total", map[string]string{"reason": gang.ReasonShed}) - shed; got != 1 {
		t.Errorf("members shed: %v more, want 1", got)
	}
	waitFor(t, "muster_gangs to count the three gangs", func() bool { return metric(t, "muster_gangs", nil) == 3 })
	// Every scheduler metric the shipped Grafana dashboard queries exists.
	served := map[string]bool{}
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		served[f.GetName()] = true
	}
	for _, name := range dashboardMetrics(t, "../../manifests/grafana/muster-dashboard.json") {
		if !strings.HasPrefix(name, "muster_autoscaler_") && !served[name] {
			t.Errorf("the Grafana dashboard queries %s, which the scheduler does not serve", name)
		}
	}
}

// dashboardMetrics lists the metric families a Grafana dashboard's queries
// name (histogram series folded into their family).
func dashboardMetrics(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	seen := map[string]bool{}
	var out []string
	for _, p := range d.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("%s: panel %q has no query", path, p.Title)
		}
		for _, tg := range p.Targets {
			for _, m := range regexp.MustCompile(`muster_[a-z_]+`).FindAllString(tg.Expr, -1) {
				for _, suffix := range []string{"_bucket", "_sum", "_count"} {
					m = strings.TrimSuffix(m, suffix)
				}
				if !seen[m] {
					seen[m] = true
					out = append(out, m)
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s queries no muster_ metric", path)
	}
	return out
}
