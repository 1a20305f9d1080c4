// Tests of the GPU class annotations turned into node requirements: exactly the nodes the scheduler's class accepts, bad patterns and memory refused naming the field.

package provreq

import (
	"strings"
	"testing"

	apiv1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/muster-project/muster/autoscaler/contract"
)

func gpuNode(product, memory string) *apiv1.Node {
	l := map[string]string{"kubernetes.io/os": "linux"}
	if product != "" {
		l[contract.GPUProductLabel] = product
	}
	if memory != "" {
		l[contract.GPUMemoryLabel] = memory
	}
	return &apiv1.Node{ObjectMeta: metav1.ObjectMeta{Name: product + "-" + memory, Labels: l}}
}

// TestGPUClass: the template's class annotations, turned into node
// requirements, accept exactly the nodes the scheduler's class accepts.
func TestGPUClass(t *testing.T) {
	h100 := gpuNode("NVIDIA-H100-80GB-HBM3", "81559")
	a100 := gpuNode("NVIDIA-A100-SXM4-40GB", "40960")
	t4 := gpuNode("Tesla-T4", "15360")
	noMem := gpuNode("NVIDIA-H100-80GB-HBM3", "")
	cpu := gpuNode("", "")
	known := []string{"NVIDIA-A100-SXM4-40GB", "NVIDIA-H100-80GB-HBM3", "Tesla-T4"}
	all := []*apiv1.Node{h100, a100, t4, noMem, cpu}
	for _, tc := range []struct {
		name     string
		ann      map[string]string
		affinity *apiv1.Affinity
		match    []*apiv1.Node
		wantErr  string
	}{
		{name: "no class", match: all},
		{name: "pattern", ann: map[string]string{contract.GPUProductAnnotation: "NVIDIA-H100*"}, match: []*apiv1.Node{h100, noMem}},
		{name: "two patterns", ann: map[string]string{contract.GPUProductAnnotation: "NVIDIA-H100*, NVIDIA-A100*"}, match: []*apiv1.Node{h100, a100, noMem}},
		{name: "exact unknown product", ann: map[string]string{contract.GPUProductAnnotation: "NVIDIA-B200"}, match: nil},
		{name: "memory", ann: map[string]string{contract.GPUMemoryAnnotation: "40Gi"}, match: []*apiv1.Node{h100, a100}},
		{name: "memory above every GPU", ann: map[string]string{contract.GPUMemoryAnnotation: "80Gi"}, match: nil},
		{name: "pattern and memory", ann: map[string]string{contract.GPUProductAnnotation: "NVIDIA-*", contract.GPUMemoryAnnotation: "41Gi"}, match: []*apiv1.Node{h100}},
		{name: "added to every existing term", ann: map[string]string{contract.GPUProductAnnotation: "*A100*"},
			affinity: &apiv1.Affinity{NodeAffinity: &apiv1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &apiv1.NodeSelector{NodeSelectorTerms: []apiv1.NodeSelectorTerm{
				{MatchExpressions: []apiv1.NodeSelectorRequirement{{Key: contract.GPUMemoryLabel, Operator: apiv1.NodeSelectorOpIn, Values: []string{"81559"}}}},
				{MatchExpressions: []apiv1.NodeSelectorRequirement{{Key: contract.GPUMemoryLabel, Operator: apiv1.NodeSelectorOpIn, Values: []string{"40960"}}}},
			}}}},
			match: []*apiv1.Node{a100}},
		{name: "bad pattern", ann: map[string]string{contract.GPUProductAnnotation: "NVIDIA-[H"}, wantErr: "metadata.annotations[muster.dev/gpu-product]: \"NVIDIA-[H\" is not a valid pattern"},
		{name: "empty pattern list", ann: map[string]string{contract.GPUProductAnnotation: " , "}, wantErr: "must name at least one GPU product"},
		{name: "bad memory", ann: map[string]string{contract.GPUMemoryAnnotation: "lots"}, wantErr: "metadata.annotations[muster.dev/gpu-memory-min]: must be a positive quantity"},
		{name: "zero memory", ann: map[string]string{contract.GPUMemoryAnnotation: "0"}, wantErr: "must be a positive quantity"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &apiv1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "r-0-0", Annotations: tc.ann}, Spec: apiv1.PodSpec{Affinity: tc.affinity}}
			err := applyGPUClass([]*apiv1.Pod{p}, known)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "pod ml/r-0-0") {
					t.Fatalf("err = %v, want it to name the pod and contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			req := nodeaffinity.GetRequiredNodeAffinity(p)
			want := map[*apiv1.Node]bool{}
			for _, n := range tc.match {
				want[n] = true
			}
			for _, n := range all {
				got, err := req.Match(n)
				if err != nil {
					t.Fatalf("node %s: %v", n.Name, err)
				}
				if got != want[n] {
					t.Errorf("node %s (labels %v): match %v, want %v; affinity %+v", n.Name, n.Labels, got, want[n], p.Spec.Affinity)
				}
			}
		})
	}
}
