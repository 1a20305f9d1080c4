// The ProvisioningRequest types: spec, pod sets, status, condition types, classes and annotations.

package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is autoscaling.x-k8s.io/v1.
var GroupVersion = schema.GroupVersion{Group: "autoscaling.x-k8s.io", Version: "v1"}

// Resource is the REST resource of ProvisioningRequests.
var Resource = GroupVersion.WithResource("provisioningrequests")

// ProvisioningRequest asks the cluster-autoscaler for capacity for a set of
// pods, all or nothing depending on its class.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:resource:shortName=provreq;provreqs
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"
type ProvisioningRequest struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec says what capacity is asked for. Immutable.
	// +kubebuilder:validation:Required
	Spec ProvisioningRequestSpec `json:"spec"`
	// Status is written by the autoscaler.
	// +optional
	Status ProvisioningRequestStatus `json:"status,omitempty"`
}

// ProvisioningRequestList is a list of ProvisioningRequests.
//
// +kubebuilder:object:root=true
type ProvisioningRequestList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`
	Items           []ProvisioningRequest `json:"items"`
}

// ProvisioningRequestSpec is the pods capacity is asked for and how.
type ProvisioningRequestSpec struct {
	// PodSets are groups of identical pods, each a PodTemplate and a count.
	// +kubebuilder:validation:Required
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="Value is immutable"
	PodSets []PodSet `json:"podSets"`

	// ProvisioningClassName selects how capacity is provisioned, e.g.
	// best-effort-atomic-scale-up.autoscaling.x-k8s.io.
	// +kubebuilder:validation:Required
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="Value is immutable"
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +kubebuilder:validation:MaxLength=253
	ProvisioningClassName string `json:"provisioningClassName"`

	// Parameters are class-specific settings.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="Value is immutable"
	// +kubebuilder:validation:MaxProperties=100
	Parameters map[string]Parameter `json:"parameters,omitempty"`
}

// Parameter is one class-specific setting.
// +kubebuilder:validation:MaxLength=255
type Parameter string

// PodSet is a number of pods shaped like one PodTemplate.
type PodSet struct {
	// PodTemplateRef names a PodTemplate in the request's namespace.
	// +kubebuilder:validation:Required
	PodTemplateRef Reference `json:"podTemplateRef"`
	// Count is how many such pods need capacity. Muster's CRD caps it
	// (upstream's does not), so one request cannot make an autoscaler build
	// millions of pods; Muster's autoscaler also caps a request's total.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10000
	Count int32 `json:"count"`
}

// Reference names an object in the same namespace.
type Reference struct {
	// +kubebuilder:validation:Required
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name,omitempty"`
}

// ProvisioningRequestStatus is what the autoscaler reports.
type ProvisioningRequestStatus struct {
	// Conditions: Accepted, Provisioned, Failed, BookingExpired, CapacityRevoked.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`

	// ProvisioningClassDetails are class-specific details.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	ProvisioningClassDetails map[string]Detail `json:"provisioningClassDetails,omitempty"`
}

// Detail is one class-specific detail.
// +kubebuilder:validation:MaxLength=32768
type Detail string

// Condition types the autoscaler sets.
const (
	// Accepted: the autoscaler understood the request.
	Accepted = "Accepted"
	// Provisioned: the capacity is there and booked for the request's pods.
	Provisioned = "Provisioned"
	// Failed: the capacity could not be added; final.
	Failed = "Failed"
	// BookingExpired: the booked capacity was released.
	BookingExpired = "BookingExpired"
	// CapacityRevoked: the capacity is no longer available.
	CapacityRevoked = "CapacityRevoked"
)

// CapacityIsNotFound is the reason of Provisioned=False the
// cluster-autoscaler gives a request it could not add capacity for now
// (upstream's, and muster-autoscaler's); it retries later.
const CapacityIsNotFound = "CapacityIsNotFound"

// Provisioning classes and the pod annotations that tie pods to a request.
const (
	// ClassBestEffortAtomicScaleUp adds all the capacity or none of it.
	ClassBestEffortAtomicScaleUp = "best-effort-atomic-scale-up.autoscaling.x-k8s.io"
	// ClassCheckCapacity only checks that the capacity exists.
	ClassCheckCapacity = "check-capacity.autoscaling.x-k8s.io"

	// ConsumeAnnotation on a pod names the request whose capacity it uses;
	// the autoscaler then leaves the pod out of ordinary scale-up.
	ConsumeAnnotation = "autoscaling.x-k8s.io/consume-provisioning-request"
	// ClassAnnotation on a pod names the request's class.
	ClassAnnotation = "autoscaling.x-k8s.io/provisioning-class-name"
)
