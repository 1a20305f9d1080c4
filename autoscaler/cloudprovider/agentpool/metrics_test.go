// Tests of the provider's metrics: ARM calls named by operation, scale-ups timed and rollbacks counted, 429s and refused calls, every metric the Grafana dashboard queries.

package agentpool

import (
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/component-base/metrics/testutil"

	"github.com/muster-project/muster/autoscaler/armlocal"
)

func TestARMOperation(t *testing.T) {
	for path, want := range map[string]string{
		"/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/gpu-heavy":                     "virtualMachineScaleSets",
		"/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/gpu-heavy/virtualMachines/12":  "virtualMachineScaleSets/virtualMachines",
		"/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/gpu-heavy/delete":              "virtualMachineScaleSets/delete",
		"/subscriptions/s/providers/Microsoft.Compute/skus":                                                                    "skus",
		"/subscriptions/s/providers/Microsoft.Compute/locations/westeurope/operations/0f9c":                                    "locations/operations",
		"/subscriptions/s/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/aks1/agentPools/gpu/machines": "managedClusters/agentPools/machines",
		"/subscriptions/s/resourceGroups/rg": "other",
	} {
		if got := armOperation(&http.Request{Method: http.MethodGet, URL: &url.URL{Path: path}}); got != "GET "+want {
			t.Errorf("%s: %q, want %q", path, got, "GET "+want)
		}
	}
}

// The provider's metrics move with real calls (the SDK's clients against
// armlocal): an all-or-nothing scale-up that fails is timed and counted as
// rolled back, one that succeeds is timed, and a 429 counts its answer,
// its Retry-After, and the calls refused while it lasts.
func TestProviderMetrics(t *testing.T) {
	e := newEnv(t, 100*time.Millisecond)
	p := e.provider(t)
	g := group(t, p, "cpu")
	counter := func(op, code string) float64 {
		v, err := testutil.GetCounterMetricValue(armRequests.WithLabelValues(op, code))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	histCount := func(pool, result string) int {
		n, err := testutil.GetHistogramMetricCount(scaleUpDuration.WithLabelValues(pool, result))
		if err != nil {
			t.Fatal(err)
		}
		return int(n)
	}
	rollbacks := func() float64 {
		v, err := testutil.GetCounterMetricValue(atomicRollbacks.WithLabelValues("cpu"))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	puts, failed, succeeded, rolled := counter("PATCH virtualMachineScaleSets", "2xx"), histCount("cpu", "failed"), histCount("cpu", "succeeded"), rollbacks()

	e.srv.InjectPartialProvisioning("cpu", 1, "AllocationFailed")
	if err := g.AtomicIncreaseSize(2); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the failed scale-up to be cleaned up", func() bool { return histCount("cpu", "failed") == failed+1 })
	if got := rollbacks() - rolled; got != 1 {
		t.Errorf("atomic rollbacks of cpu: %v more, want 1", got)
	}
	if got := counter("PATCH virtualMachineScaleSets", "2xx") - puts; got < 1 {
		t.Errorf("capacity writes counted: %v more, want at least 1", got)
	}
	eventually(t, "the pool to settle", func() bool { return settled(e, "cpu") })

	if err := g.AtomicIncreaseSize(1); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the scale-up to succeed", func() bool { return histCount("cpu", "succeeded") == succeeded+1 })

	retryAfters, err := testutil.GetHistogramMetricCount(armRetryAfter.ObserverMetric)
	if err != nil {
		t.Fatal(err)
	}
	// The 429 may answer the pool read or the write: count both.
	reads := []string{"GET virtualMachineScaleSets", "GET virtualMachineScaleSets/virtualMachines", "PATCH virtualMachineScaleSets"}
	sum := func(code string) (n float64) {
		for _, op := range reads {
			n += counter(op, code)
		}
		return n
	}
	throttled, got429 := sum("throttled"), sum("429")
	e.srv.InjectThrottle(armlocal.OpAny, 1, 30*time.Second)
	time.Sleep(5 * time.Millisecond)
	_ = g.IncreaseSize(1) // answered 429
	_ = g.IncreaseSize(1) // refused before it is sent
	if n, _ := testutil.GetHistogramMetricCount(armRetryAfter.ObserverMetric); n != retryAfters+1 {
		t.Errorf("Retry-After observations: %d more, want 1", n-retryAfters)
	}
	if n := sum("429") - got429; n != 1 {
		t.Errorf("429 answers counted: %v more, want 1", n)
	}
	if sum("throttled") <= throttled {
		t.Error("no call counted as throttled while the Retry-After lasted")
	}

	// Every provider metric the shipped Grafana dashboard queries exists.
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	for _, f := range families {
		served[f.GetName()] = true
	}
	raw, err := os.ReadFile("../../../manifests/grafana/muster-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	queried := 0
	for _, m := range regexp.MustCompile(`muster_autoscaler_[a-z_]+`).FindAllString(string(raw), -1) {
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			m = strings.TrimSuffix(m, suffix)
		}
		queried++
		if !served[m] {
			t.Errorf("the Grafana dashboard queries %s, which the provider does not serve", m)
		}
	}
	if queried == 0 {
		t.Error("the Grafana dashboard queries no provider metric")
	}
}
