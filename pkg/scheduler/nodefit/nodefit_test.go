// Tests of the room read from NodeInfos: quorums packed, used, tainted and cordoned nodes left out, and the room cache reading changed nodes again and forgetting gone ones.

package nodefit

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2/ktesting"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"

	"github.com/muster-project/muster/pkg/capacity"
)

const gpu = v1.ResourceName("nvidia.com/gpu")

func TestPack(t *testing.T) {
	gpuNode := func(name string, gpus string) *v1.Node {
		return st.MakeNode().Name(name).Capacity(map[v1.ResourceName]string{
			v1.ResourceCPU: "96", v1.ResourceMemory: "1Ti", v1.ResourcePods: "110", gpu: gpus}).Obj()
	}
	cpuNode := st.MakeNode().Name("cpu").Capacity(map[v1.ResourceName]string{v1.ResourceCPU: "4", v1.ResourceMemory: "16Gi", v1.ResourcePods: "110"}).Obj()
	worker := st.MakePod().Name("w").Req(map[v1.ResourceName]string{v1.ResourceCPU: "100m", gpu: "8"}).Obj()
	launcher := st.MakePod().Name("l").Req(map[v1.ResourceName]string{v1.ResourceCPU: "2"}).Obj()
	holder := st.MakePod().Name("h").Req(map[v1.ResourceName]string{gpu: "4"}).Obj()
	tainted := gpuNode("tainted", "8")
	tainted.Spec.Taints = []v1.Taint{{Key: "gpu", Effect: v1.TaintEffectNoSchedule}}
	cordoned := gpuNode("cordoned", "8")
	cordoned.Spec.Unschedulable = true
	mpi := capacity.Quorum{{Shape: capacity.ShapeOf(worker, gpu), Count: 2}, {Shape: capacity.ShapeOf(launcher, gpu), Count: 1}}

	tests := []struct {
		name  string
		q     capacity.Quorum
		nodes []fwk.NodeInfo
		short int64
	}{
		{name: "one member per 8-GPU node", q: capacity.Uniform(2, worker, gpu), nodes: infos(gpuNode("a", "8"), gpuNode("b", "8"))},
		{name: "two members on a 16-GPU node", q: capacity.Uniform(2, worker, gpu), nodes: infos(gpuNode("a", "16"))},
		{name: "partly used node has no room", q: capacity.Uniform(1, worker, gpu), nodes: infosWith(gpuNode("a", "8"), holder), short: 1},
		{name: "tainted and cordoned nodes do not count", q: capacity.Uniform(2, worker, gpu), nodes: infos(tainted, cordoned, gpuNode("a", "8")), short: 1},
		{name: "no GPUs", q: capacity.Uniform(1, worker, gpu), nodes: infos(gpuNode("a", "0")), short: 1},
		{name: "launcher and workers", q: mpi, nodes: infos(gpuNode("a", "8"), gpuNode("b", "8"), cpuNode)},
		{name: "launcher and workers, one GPU node short", q: mpi, nodes: infos(gpuNode("a", "8"), cpuNode), short: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logger, _ := ktesting.NewTestContext(t)
			if got := capacity.Pack(logger, tt.q, Rooms(tt.nodes), nil).Short.Members(); got != tt.short {
				t.Errorf("short = %d, want %d", got, tt.short)
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
