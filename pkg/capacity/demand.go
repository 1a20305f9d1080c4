// Demand: what one member asks of a node (CPU, memory, pods, extended resources), computed once.

package capacity

import (
	v1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"
)

// Demand is what one member asks of a node, in the units the scheduler counts
// (millicores, bytes, extended resources such as nvidia.com/gpu).
type Demand struct {
	MilliCPU int64
	Memory   int64
	Scalars  []Scalar
}

// Scalar is an extended resource request.
type Scalar struct {
	Name  v1.ResourceName
	Value int64
}

// DemandOf computes a member's demand once, so that counting room on many
// nodes does not re-read the pod spec per node.
func DemandOf(pod *v1.Pod) Demand {
	reqs := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
	d := Demand{MilliCPU: reqs.Cpu().MilliValue(), Memory: reqs.Memory().Value()}
	for name, q := range reqs {
		if name == v1.ResourceCPU || name == v1.ResourceMemory || name == v1.ResourceEphemeralStorage || q.IsZero() {
			continue
		}
		d.Scalars = append(d.Scalars, Scalar{Name: name, Value: q.Value()})
	}
	return d
}

// Scalar returns the demand's request of an extended resource.
func (d Demand) Scalar(name v1.ResourceName) int64 {
	for _, s := range d.Scalars {
		if s.Name == name {
			return s.Value
		}
	}
	return 0
}

// FitsEmpty says whether a node with allocatable alloc, running nothing,
// has room for the demand: every resource asked for is allocatable in
// that amount. Taints and affinity are not read: a caller asking whether
// a node could ever hold a member errs towards yes.
func (d Demand) FitsEmpty(alloc v1.ResourceList) bool {
	if d.MilliCPU > alloc.Cpu().MilliValue() || d.Memory > alloc.Memory().Value() {
		return false
	}
	if pods, ok := alloc[v1.ResourcePods]; ok && pods.Value() < 1 {
		return false
	}
	for _, s := range d.Scalars {
		if q, ok := alloc[s.Name]; !ok || q.Value() < s.Value {
			return false
		}
	}
	return true
}
