// Package v1 is a minimal local copy of the ProvisioningRequest API,
// autoscaling.x-k8s.io/v1, with the same JSON field names as upstream's
// k8s.io/autoscaler/cluster-autoscaler/apis/provisioningrequest/autoscaling.x-k8s.io/v1
// (and the root module's pkg/apis/autoscaling/v1, whose CRD is
// manifests/crds/autoscaling.x-k8s.io_provisioningrequests.yaml).
//
// It exists because the only served version of upstream's apis module
// predates v1 (it has v1beta1 only); field names are checked against that
// v1beta1 package, whose schema v1 kept, in this package's tests.
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is autoscaling.x-k8s.io/v1.
var GroupVersion = schema.GroupVersion{Group: "autoscaling.x-k8s.io", Version: "v1"}

// Resource is the REST resource of ProvisioningRequests.
var Resource = GroupVersion.WithResource("provisioningrequests")

// Kind is the object kind.
const Kind = "ProvisioningRequest"

// ProvisioningRequest asks the cluster-autoscaler for capacity for a set of
// pods.
type ProvisioningRequest struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ProvisioningRequestSpec   `json:"spec"`
	Status ProvisioningRequestStatus `json:"status,omitempty"`
}

// ProvisioningRequestList is a list of ProvisioningRequests.
type ProvisioningRequestList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`
	Items           []ProvisioningRequest `json:"items"`
}

// ProvisioningRequestSpec is the pods capacity is asked for, and how.
type ProvisioningRequestSpec struct {
	PodSets               []PodSet             `json:"podSets"`
	ProvisioningClassName string               `json:"provisioningClassName"`
	Parameters            map[string]Parameter `json:"parameters,omitempty"`
}

// Parameter is one class-specific setting.
type Parameter string

// PodSet is a number of pods shaped like one PodTemplate.
type PodSet struct {
	PodTemplateRef Reference `json:"podTemplateRef"`
	Count          int32     `json:"count"`
}

// Reference names an object in the same namespace.
type Reference struct {
	Name string `json:"name,omitempty"`
}

// ProvisioningRequestStatus is what the autoscaler reports.
type ProvisioningRequestStatus struct {
	Conditions               []metav1.Condition `json:"conditions,omitempty"`
	ProvisioningClassDetails map[string]Detail  `json:"provisioningClassDetails,omitempty"`
}

// Detail is one class-specific detail.
type Detail string

// Condition types.
const (
	Accepted        = "Accepted"
	Provisioned     = "Provisioned"
	Failed          = "Failed"
	BookingExpired  = "BookingExpired"
	CapacityRevoked = "CapacityRevoked"
)

// Provisioning classes and the pod annotations that tie pods to a request.
const (
	ProvisioningClassBestEffortAtomicScaleUp = "best-effort-atomic-scale-up.autoscaling.x-k8s.io"
	ProvisioningClassCheckCapacity           = "check-capacity.autoscaling.x-k8s.io"

	// ProvisioningRequestPodAnnotationKey on a pod names the request whose
	// capacity it consumes.
	ProvisioningRequestPodAnnotationKey = "autoscaling.x-k8s.io/consume-provisioning-request"
	// ProvisioningClassPodAnnotationKey on a pod names the request's class.
	ProvisioningClassPodAnnotationKey = "autoscaling.x-k8s.io/provisioning-class-name"

	// DeprecatedProvisioningRequestPodAnnotationKey is the older spelling
	// upstream still honours.
	DeprecatedProvisioningRequestPodAnnotationKey = "cluster-autoscaler.kubernetes.io/consume-provisioning-request"
	// DeprecatedProvisioningClassPodAnnotationKey is the older spelling of
	// the class annotation.
	DeprecatedProvisioningClassPodAnnotationKey = "cluster-autoscaler.kubernetes.io/provisioning-class-name"
)
