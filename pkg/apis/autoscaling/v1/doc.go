// Package v1 holds Muster's Go types for the cluster-autoscaler's
// ProvisioningRequest API (autoscaling.x-k8s.io/v1, Kind ProvisioningRequest,
// resource provisioningrequests), written from the upstream definition in
// k8s.io/autoscaler/cluster-autoscaler/apis with the same JSON names and
// validation, so a stock cluster-autoscaler started with
// --enable-provisioning-requests reads the requests Muster writes. The module
// proxy serves only a version of the upstream apis module that predates v1,
// which is why Muster carries the types itself.
//
// Muster's scheduler creates one request per gang that is short of capacity,
// naming exactly the members it lacks through PodTemplates, and mirrors the
// request's conditions into the gang's status. The CRD generated from this
// package is in manifests/crds.
//
// +kubebuilder:object:generate=true
// +groupName=autoscaling.x-k8s.io
package v1
