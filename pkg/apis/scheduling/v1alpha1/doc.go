// Package v1alpha1 holds Muster's Go types for the PodGroup API
// (scheduling.x-k8s.io/v1alpha1, Kind PodGroup, resource podgroups).
//
// The types are a wire-compatible superset of the PodGroup defined by
// sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1: every spec and status
// field of that type is copied here with the same JSON name and the same
// kubebuilder markers, so a PodGroup written by anyone who uses the upstream
// type (the coscheduling plugin, Kubeflow's training operators and other
// batch controllers) decodes unchanged, and the CustomResourceDefinition that
// Muster generates from this package and installs (manifests/crds) also serves
// those clients' PodGroups. Muster only adds status fields:
//
//   - status.scheduled: how many members have been placed (bound or binding);
//   - status.conditions: standard metav1.Condition entries keyed by type.
//
// Muster reads PodGroup specs through the scheduler-plugins clientset and
// informers; because the upstream type does not know the extra fields, Muster
// writes them with a JSON merge patch on the status subresource, which leaves
// every field it does not name untouched. These types describe that patch and
// the full schema of the CRD.
//
// Only k8s.io/api and k8s.io/apimachinery are imported, so the package can be
// used by the scheduler, the autoscaler and tests alike.
package v1alpha1
