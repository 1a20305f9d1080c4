package capacity

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// FitsEmpty reads every resource the demand asks for against a node's
// allocatable: an 8-GPU worker fits an 8-GPU node and no 1-GPU or CPU
// node, a CPU launcher fits any node with the CPU, a node with no pod
// slots holds nothing.
func TestDemandFitsEmpty(t *testing.T) {
	node := func(cpu, mem, gpus, pods string) v1.ResourceList {
		l := v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu), v1.ResourceMemory: resource.MustParse(mem), v1.ResourcePods: resource.MustParse(pods)}
		if gpus != "" {
			l["nvidia.com/gpu"] = resource.MustParse(gpus)
		}
		return l
	}
	worker := Demand{MilliCPU: 16000, Memory: 64 << 30, Scalars: []Scalar{{Name: "nvidia.com/gpu", Value: 8}}}
	launcher := Demand{MilliCPU: 2000, Memory: 4 << 30}
	h100, t4, cpu, full := node("96", "1800Gi", "8", "110"), node("4", "28Gi", "1", "110"), node("16", "64Gi", "", "110"), node("96", "1800Gi", "8", "0")
	for _, tc := range []struct {
		name  string
		d     Demand
		alloc v1.ResourceList
		want  bool
	}{
		{"worker on an 8-GPU node", worker, h100, true},
		{"worker on a 1-GPU node", worker, t4, false},
		{"worker on a CPU node", worker, cpu, false},
		{"launcher on a CPU node", launcher, cpu, true},
		{"launcher on a 1-GPU node short of CPU", Demand{MilliCPU: 8000}, t4, false},
		{"launcher on a node short of memory", Demand{MilliCPU: 1000, Memory: 32 << 30}, t4, false},
		{"worker on a node with no pod slots", worker, full, false},
	} {
		if got := tc.d.FitsEmpty(tc.alloc); got != tc.want {
			t.Errorf("%s: FitsEmpty %t, want %t", tc.name, got, tc.want)
		}
	}
}
