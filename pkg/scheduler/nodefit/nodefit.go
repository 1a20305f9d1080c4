// Package nodefit reads the scheduler's NodeInfos into the room that
// capacity.Pack places a gang's quorum in: free CPU, memory, pod slots and
// extended resources, with the node's labels and taints. Gang plugins use it
// once per gang attempt to see whether a quorum can fit at all before any
// member reserves anything; Filter still decides each member for real.
package nodefit

import (
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/muster-project/muster/pkg/capacity"
)

// Room reads one node's free room. The scalar maps are the NodeInfo's own.
// Terminating pods are leaving: what they hold counts as free, so a gang
// that room was made for is not made room for again while its victims go.
func Room(ni fwk.NodeInfo) capacity.Node {
	alloc, req := ni.GetAllocatable(), ni.GetRequested()
	n := capacity.Node{
		Node:         ni.Node(),
		MilliCPU:     alloc.GetMilliCPU() - req.GetMilliCPU(),
		Memory:       alloc.GetMemory() - req.GetMemory(),
		Pods:         int64(alloc.GetAllowedPodNumber() - len(ni.GetPods())),
		AllocScalars: alloc.GetScalarResources(),
		UsedScalars:  req.GetScalarResources(),
	}
	for _, pi := range ni.GetPods() {
		p := pi.GetPod()
		if p.DeletionTimestamp == nil {
			continue
		}
		n.Release(capacity.DemandOf(p))
	}
	return n
}

// Empty reads every regular node's room as if no pod ran on it: what the
// cluster could hold at all for quorums (spot nodes never hold one,
// capacity.SpotRule).
func Empty(nodes []fwk.NodeInfo) []capacity.Node {
	out := make([]capacity.Node, 0, len(nodes))
	for _, ni := range nodes {
		if ni.Node() == nil || capacity.IsSpot(ni.Node()) {
			continue
		}
		alloc := ni.GetAllocatable()
		out = append(out, capacity.Node{Node: ni.Node(), MilliCPU: alloc.GetMilliCPU(), Memory: alloc.GetMemory(),
			Pods: int64(alloc.GetAllowedPodNumber()), AllocScalars: alloc.GetScalarResources()})
	}
	return out
}

// Rooms reads the room of every regular node: the room quorums are counted
// and planned in (spot nodes never hold one, capacity.SpotRule).
func Rooms(nodes []fwk.NodeInfo) []capacity.Node {
	out := make([]capacity.Node, 0, len(nodes))
	for _, ni := range nodes {
		if ni.Node() != nil && !capacity.IsSpot(ni.Node()) {
			out = append(out, Room(ni))
		}
	}
	return out
}
