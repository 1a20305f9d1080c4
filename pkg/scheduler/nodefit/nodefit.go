// Package nodefit counts how many copies of a pod a node has room for, the
// cheap way: resources, node selection and NoSchedule/NoExecute taints. Gang
// plugins use it once per gang attempt to see whether a quorum can fit at all
// before any member reserves anything; Filter still decides each member for
// real, so it errs on the side of room (it ignores pod affinity and ports).
package nodefit

import (
	v1 "k8s.io/api/core/v1"
	v1helper "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/muster-project/muster/pkg/gang"
)

// Checker holds what a pod asks of a node, computed once.
type Checker struct {
	logger      klog.Logger
	demand      gang.Demand
	affinity    nodeaffinity.RequiredNodeAffinity
	tolerations []v1.Toleration
}

// For prepares a Checker for pod.
func For(logger klog.Logger, pod *v1.Pod) *Checker {
	return &Checker{logger: logger, demand: gang.DemandOf(pod), affinity: nodeaffinity.GetRequiredNodeAffinity(pod), tolerations: pod.Spec.Tolerations}
}

// Copies returns how many copies of the pod fit on the node.
func (c *Checker) Copies(ni fwk.NodeInfo) int64 {
	node := ni.Node()
	if node == nil || node.Spec.Unschedulable {
		return 0
	}
	if ok, _ := c.affinity.Match(node); !ok {
		return 0
	}
	if _, untolerated := v1helper.FindMatchingUntoleratedTaint(c.logger, node.Spec.Taints, c.tolerations, noScheduleTaints, false); untolerated {
		return 0
	}
	alloc, req := ni.GetAllocatable(), ni.GetRequested()
	allocScalars, reqScalars := alloc.GetScalarResources(), req.GetScalarResources()
	return c.demand.CopiesIn(gang.Free{
		MilliCPU: alloc.GetMilliCPU() - req.GetMilliCPU(),
		Memory:   alloc.GetMemory() - req.GetMemory(),
		Pods:     int64(alloc.GetAllowedPodNumber() - len(ni.GetPods())),
		Scalar:   func(n v1.ResourceName) int64 { return allocScalars[n] - reqScalars[n] },
	})
}

// Room counts, up to limit, the copies of the pod that fit on nodes.
func (c *Checker) Room(nodes []fwk.NodeInfo, limit int64) int64 {
	var room int64
	for _, ni := range nodes {
		room += c.Copies(ni)
		if room >= limit {
			return room
		}
	}
	return room
}

func noScheduleTaints(t *v1.Taint) bool {
	return t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute
}
