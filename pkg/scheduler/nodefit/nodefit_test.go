package nodefit

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2/ktesting"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
)

func TestRoom(t *testing.T) {
	gpuNode := func(name string, gpus string) *v1.Node {
		return st.MakeNode().Name(name).Capacity(map[v1.ResourceName]string{
			v1.ResourceCPU: "96", v1.ResourceMemory: "1Ti", v1.ResourcePods: "110", "nvidia.com/gpu": gpus}).Obj()
	}
	member := st.MakePod().Name("m").Req(map[v1.ResourceName]string{v1.ResourceCPU: "100m", "nvidia.com/gpu": "8"}).Obj()
	holder := st.MakePod().Name("h").Req(map[v1.ResourceName]string{"nvidia.com/gpu": "4"}).Obj()
	tainted := gpuNode("tainted", "8")
	tainted.Spec.Taints = []v1.Taint{{Key: "gpu", Effect: v1.TaintEffectNoSchedule}}
	cordoned := gpuNode("cordoned", "8")
	cordoned.Spec.Unschedulable = true

	tests := []struct {
		name  string
		nodes []fwk.NodeInfo
		limit int64
		want  int64
	}{
		{name: "one member per 8-GPU node", nodes: infos(gpuNode("a", "8"), gpuNode("b", "8")), limit: 10, want: 2},
		{name: "two members on a 16-GPU node", nodes: infos(gpuNode("a", "16")), limit: 10, want: 2},
		{name: "partly used node has no room", nodes: infosWith(gpuNode("a", "8"), holder), limit: 10, want: 0},
		{name: "tainted and cordoned nodes do not count", nodes: infos(tainted, cordoned, gpuNode("a", "8")), limit: 10, want: 1},
		{name: "stops counting at the limit", nodes: infos(gpuNode("a", "8"), gpuNode("b", "8"), gpuNode("c", "8")), limit: 2, want: 2},
		{name: "no GPUs", nodes: infos(gpuNode("a", "0")), limit: 1, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logger, _ := ktesting.NewTestContext(t)
			if got := For(logger, member).Room(tt.nodes, tt.limit); got != tt.want {
				t.Errorf("Room = %d, want %d", got, tt.want)
			}
		})
	}
}

func infos(nodes ...*v1.Node) []fwk.NodeInfo {
	out := make([]fwk.NodeInfo, len(nodes))
	for i, n := range nodes {
		ni := framework.NewNodeInfo()
		ni.SetNode(n)
		out[i] = ni
	}
	return out
}

func infosWith(node *v1.Node, pods ...*v1.Pod) []fwk.NodeInfo {
	ni := framework.NewNodeInfo(pods...)
	ni.SetNode(node)
	return []fwk.NodeInfo{ni}
}
