// Spot nodes: their label and taint, the rules on which members may use them, reclaimed nodes.

package capacity

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/muster-project/muster/pkg/contract"
)

// Spot nodes (Azure Spot VMs) can be reclaimed at any time. AKS labels them
// and taints them NoSchedule with this key and value; Muster's autoscaler
// provider puts the same on spot pools' template nodes (see contract).
const (
	SpotLabel = contract.SpotLabel
	SpotValue = contract.SpotValue
)

// IsSpot says the node is a spot node.
func IsSpot(n *v1.Node) bool { return n != nil && n.Labels[SpotLabel] == SpotValue }

// Spot rules, for a member about to be placed: a gang's quorum (its first
// min members) runs on regular nodes only, so that a reclaim never breaks a
// gang; members above min run on spot nodes only when the gang opted in
// (gang.Spec.SpotExtras), and then prefer them. Room counted for quorums
// (the room check, the plan, preemption, the shortfall) leaves spot nodes
// out for the same reason.
const (
	// SpotDeniedQuorum: the member completes a quorum.
	SpotDeniedQuorum = "node(s) were spot nodes: a gang's quorum (its first min members) runs on regular nodes only"
	// SpotDeniedNotOptedIn: an elastic member of a gang that did not opt in.
	SpotDeniedNotOptedIn = "node(s) were spot nodes: the gang did not opt in to spot for members above min (muster.dev/spot-extras)"
)

// SpotRule returns why a member may not use spot nodes ("" when it may):
// quorum says the member completes its gang's quorum, optedIn that the
// gang put members above min on spot.
func SpotRule(quorum, optedIn bool) string {
	switch {
	case quorum:
		return SpotDeniedQuorum
	case !optedIn:
		return SpotDeniedNotOptedIn
	}
	return ""
}

// SpotReclaimed says why a spot node is taken to be reclaimed ("" when it
// is not, or is no spot node): Azure evicts a spot VM with 30 seconds'
// notice, which only the VM sees; the cluster sees its node go NotReady (or
// unreachable), then deleted.
func SpotReclaimed(n *v1.Node) string {
	if !IsSpot(n) {
		return ""
	}
	for _, c := range n.Status.Conditions {
		if c.Type == v1.NodeReady && c.Status != v1.ConditionTrue {
			return "went NotReady"
		}
	}
	for _, t := range n.Spec.Taints {
		if t.Key == v1.TaintNodeUnreachable || t.Key == v1.TaintNodeNotReady {
			return "was tainted " + t.Key
		}
	}
	return ""
}

// TolerateSpot says the pod tolerates the spot taint, without which it never
// lands on a spot node anyway.
func TolerateSpot(pod *v1.Pod) bool {
	taint := v1.Taint{Key: SpotLabel, Value: SpotValue, Effect: v1.TaintEffectNoSchedule}
	for i := range pod.Spec.Tolerations {
		if pod.Spec.Tolerations[i].ToleratesTaint(klog.Background(), &taint, false) {
			return true
		}
	}
	return false
}
