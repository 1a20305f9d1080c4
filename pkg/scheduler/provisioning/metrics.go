// The hint writer's metrics: what it asks of the autoscaler, and how each request ends.

package provisioning

import (
	"sync"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
)

// What the writer asks of the autoscaler, and how it ends. Labels are
// closed sets: no gang, pod or request names.
var (
	requestsWritten = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace:      "muster",
		Subsystem:      "provisioning_requests",
		Name:           "written_total",
		Help:           "ProvisioningRequests Muster wrote, by action: created, withdrawn (deleted by Muster).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"action"})
	membersRequested = metrics.NewCounter(&metrics.CounterOpts{
		Namespace:      "muster",
		Subsystem:      "provisioning_requests",
		Name:           "members_total",
		Help:           "Gang members Muster's ProvisioningRequests asked capacity for (the shortfalls), summed over the requests created.",
		StabilityLevel: metrics.ALPHA,
	})
	requestOutcomes = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace: "muster",
		Subsystem: "provisioning_requests",
		Name:      "outcomes_total",
		Help: "How Muster's ProvisioningRequests ended: bound (the gang's quorum was placed while its request was provisioned), " +
			"expired (BookingExpired), failed (Failed), revoked (CapacityRevoked), deleted (by someone else).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"outcome"})

	registerOnce sync.Once
)

func registerMetrics() {
	registerOnce.Do(func() { legacyregistry.MustRegister(requestsWritten, membersRequested, requestOutcomes) })
}

// Outcome labels of requestOutcomes.
const (
	OutcomeBound   = "bound"
	OutcomeExpired = "expired"
	OutcomeFailed  = "failed"
	OutcomeRevoked = "revoked"
	OutcomeDeleted = "deleted"
)
