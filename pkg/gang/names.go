// The label and annotation names users put on pods and PodGroups.

package gang

import schedv1alpha1 "sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

// Label and annotation names users put on pods and PodGroups. They are part of
// Muster's public contract (the autoscaler side reads some of them too), so they
// live in one place.
const (
	// PodGroupLabel names a scheduler-plugins PodGroup (scheduling.x-k8s.io/v1alpha1)
	// in the pod's namespace; the gang's spec comes from that object.
	PodGroupLabel = schedv1alpha1.PodGroupLabel

	// GroupLabel names a CRD-free gang: the spec comes from the annotations below
	// on the member pods themselves.
	GroupLabel = "muster.dev/pod-group"

	// MinMemberAnnotation is the quorum of a CRD-free gang.
	MinMemberAnnotation = "muster.dev/min-member"
	// MaxMemberAnnotation is the most members a gang may run. On a PodGroup it
	// supplements spec.minMember, which has no max counterpart.
	MaxMemberAnnotation = "muster.dev/max-member"
	// ScheduleTimeoutAnnotation is how long (seconds) a CRD-free gang may hold
	// placed members while waiting for its quorum to be placed.
	ScheduleTimeoutAnnotation = "muster.dev/schedule-timeout-seconds"
	// SpotExtrasAnnotation ("true" or "false"), on a PodGroup or a CRD-free
	// gang's members, says whether members above min may run on spot nodes;
	// without it the scheduler's spotExtras applies.
	SpotExtrasAnnotation = "muster.dev/spot-extras"
)
