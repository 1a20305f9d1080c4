// The provider's Prometheus metrics and the pipeline policy counting ARM calls per operation.

package agentpool

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
)

// The provider's metrics, on muster-autoscaler's /metrics beside the
// cluster-autoscaler's own. Labels are closed sets: operations are an HTTP
// method and ARM resource types, pools are the configured pools.
var (
	armRequests = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace: "muster",
		Subsystem: "autoscaler",
		Name:      "arm_requests_total",
		Help: "Azure Resource Manager calls, each try counted, by operation (method and resource types) and code " +
			"(2xx, 3xx, 4xx, 429, 5xx; error: no answer; throttled: not sent, a 429's Retry-After has not passed).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"operation", "code"})
	armRetryAfter = metrics.NewHistogram(&metrics.HistogramOpts{
		Namespace:      "muster",
		Subsystem:      "autoscaler",
		Name:           "arm_retry_after_seconds",
		Help:           "Retry-After of Azure's 429 answers, as honoured (capped at maxRetryAfter).",
		Buckets:        metrics.ExponentialBuckets(1, 2, 10),
		StabilityLevel: metrics.ALPHA,
	})
	scaleUpDuration = metrics.NewHistogramVec(&metrics.HistogramOpts{
		Namespace: "muster",
		Subsystem: "autoscaler",
		Name:      "scale_up_duration_seconds",
		Help: "How long pool scale-ups took, from the capacity write to all instances up (succeeded) or the failure " +
			"and its cleanup (failed), by pool. Scale-ups a restarted autoscaler took up are not timed.",
		Buckets:        metrics.ExponentialBuckets(5, 2, 12), // 5 s .. 2.8 h
		StabilityLevel: metrics.ALPHA,
	}, []string{"pool", "result"})
	atomicRollbacks = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace:      "muster",
		Subsystem:      "autoscaler",
		Name:           "atomic_rollbacks_total",
		Help:           "All-or-nothing scale-ups that failed and had the instances they created deleted, by pool.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"pool"})
	spotReclaimsRemoved = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace: "muster",
		Subsystem: "autoscaler",
		Name:      "spot_reclaimed_instances_removed_total",
		Help: "Spot VMs Azure reclaimed and left deallocated (eviction policy Deallocate) that the provider deleted, by pool. " +
			"Reclaimed VMs of pools with eviction policy Delete are gone without the provider's help.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"pool"})

	registerOnce sync.Once
)

func registerMetrics() {
	registerOnce.Do(func() {
		legacyregistry.MustRegister(armRequests, armRetryAfter, scaleUpDuration, atomicRollbacks, spotReclaimsRemoved)
	})
}

// countCalls is a per-retry pipeline policy counting every try, placed
// before the throttle gate so that calls it refuses count as throttled.
type countCalls struct{}

func (countCalls) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	code := "error"
	var throttled *ThrottledError
	switch {
	case errors.As(err, &throttled):
		code = "throttled"
	case resp != nil && resp.StatusCode == http.StatusTooManyRequests:
		code = "429"
	case resp != nil:
		code = strconv.Itoa(resp.StatusCode/100) + "xx"
	}
	armRequests.WithLabelValues(armOperation(req.Raw()), code).Inc()
	return resp, err
}

// armOperation names a call by its method and the resource types in its
// path, e.g. "PUT virtualMachineScaleSets" or "POST
// virtualMachineScaleSets/delete": never resource names.
func armOperation(r *http.Request) string {
	segs := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	var types []string
	for i := 0; i < len(segs); i++ {
		if !strings.EqualFold(segs[i], "providers") || i+1 >= len(segs) {
			continue
		}
		types = types[:0] // the innermost provider's types
		for j := i + 2; j < len(segs); j += 2 {
			types = append(types, segs[j])
		}
		i++
	}
	if len(types) == 0 {
		return r.Method + " other"
	}
	return r.Method + " " + strings.Join(types, "/")
}
