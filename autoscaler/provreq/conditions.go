// Condition reasons and helpers: setting and finding conditions, supported, booked, terminal.

package provreq

import (
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/muster-project/muster/autoscaler/provreq/apis/v1"
)

// Condition reasons; the ones upstream's cluster-autoscaler also uses keep
// its spelling, so readers of either autoscaler's requests see the same.
const (
	ReasonAccepted              = "Accepted"
	ReasonCapacityIsFound       = "CapacityIsFound"
	ReasonCapacityIsProvisioned = "CapacityIsProvisioned"
	ReasonCapacityIsNotFound    = "CapacityIsNotFound"
	ReasonFailedToCreatePods    = "FailedToCreatePods"
	ReasonBookingExpired        = "CapacityReservationTimeExpired"
	ReasonExpired               = "Expired"
	// ReasonNoNodeGroupCanHold (Muster): no node pool, empty and at its
	// max size, holds all the request's pods; retrying cannot help until
	// the pools change.
	ReasonNoNodeGroupCanHold = "NoNodeGroupCanHold"
)

// setCondition adds or replaces the condition of type t. Like upstream, the
// transition time is always now: a Provisioned=False condition's time is
// the time of the last attempt, from which the retry backoff counts.
func setCondition(pr *v1.ProvisioningRequest, t string, status metav1.ConditionStatus, reason, message string, now metav1.Time) {
	c := metav1.Condition{Type: t, Status: status, Reason: reason, Message: message,
		ObservedGeneration: pr.Generation, LastTransitionTime: now}
	for i := range pr.Status.Conditions {
		if pr.Status.Conditions[i].Type == t {
			pr.Status.Conditions[i] = c
			return
		}
	}
	pr.Status.Conditions = append(pr.Status.Conditions, c)
}

func isTrue(pr *v1.ProvisioningRequest, t string) bool {
	return apimeta.IsStatusConditionTrue(pr.Status.Conditions, t)
}

func findCondition(pr *v1.ProvisioningRequest, t string) *metav1.Condition {
	return apimeta.FindStatusCondition(pr.Status.Conditions, t)
}

// supported: only best-effort-atomic is served by this consumer.
func supported(pr *v1.ProvisioningRequest) bool {
	return pr.Spec.ProvisioningClassName == v1.ProvisioningClassBestEffortAtomicScaleUp
}

// shouldBook: capacity added (or found) for the request stays reserved
// while it is Provisioned and neither Failed nor BookingExpired.
func shouldBook(pr *v1.ProvisioningRequest) bool {
	return supported(pr) && isTrue(pr, v1.Provisioned) && !isTrue(pr, v1.Failed) && !isTrue(pr, v1.BookingExpired)
}

// terminal: nothing more to do for the request.
func terminal(pr *v1.ProvisioningRequest) bool {
	return isTrue(pr, v1.Failed) || isTrue(pr, v1.BookingExpired) || isTrue(pr, v1.Provisioned)
}
