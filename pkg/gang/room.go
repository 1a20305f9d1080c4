package gang

import (
	"math"

	v1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"
)

// Demand is what one member asks of a node, in the units the scheduler counts
// (millicores, bytes, pod slots, extended resources such as nvidia.com/gpu).
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

// Free is the room left on one node.
type Free struct {
	MilliCPU int64
	Memory   int64
	Pods     int64
	// Scalar returns the free amount of an extended resource.
	Scalar func(v1.ResourceName) int64
}

// CopiesIn returns how many members with this demand fit into free.
func (d Demand) CopiesIn(f Free) int64 {
	n := f.Pods
	n = min(n, copies(f.MilliCPU, d.MilliCPU))
	n = min(n, copies(f.Memory, d.Memory))
	for _, s := range d.Scalars {
		n = min(n, copies(f.Scalar(s.Name), s.Value))
	}
	return max(n, 0)
}

func copies(free, want int64) int64 {
	if want <= 0 {
		return math.MaxInt64
	}
	if free <= 0 {
		return 0
	}
	return free / want
}
