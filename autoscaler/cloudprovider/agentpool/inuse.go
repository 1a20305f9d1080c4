// NodeInUseFromListers: whether an instance's node runs pods that scale-down would count.

package agentpool

import (
	"strings"

	apiv1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	pod_util "k8s.io/autoscaler/cluster-autoscaler/utils/pod"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/klog/v2"
)

// NodeInUseFromListers is the Options.NodeInUse the autoscaler binary
// passes: an instance is in use when its node (matched by provider ID, which
// Azure spells in either case) runs a pod that is neither finished nor a
// DaemonSet's or a mirror pod, the pods scale-down would not count either.
// It reads the informers' caches; a failed scale-up is rare, so a scan of
// them is cheaper than an index kept up for it.
func NodeInUseFromListers(nodes corelisters.NodeLister, pods corelisters.PodLister) func(providerID string) bool {
	return func(providerID string) bool {
		all, err := nodes.List(labels.Everything())
		if err != nil {
			klog.ErrorS(err, "Listing nodes to tell whether an instance is in use; treating it as in use", "providerID", providerID)
			return true
		}
		name := ""
		for _, n := range all {
			if strings.EqualFold(n.Spec.ProviderID, providerID) {
				name = n.Name
				break
			}
		}
		if name == "" {
			return false // never registered: nothing can run on it
		}
		ps, err := pods.List(labels.Everything())
		if err != nil {
			klog.ErrorS(err, "Listing pods to tell whether an instance is in use; treating it as in use", "node", name)
			return true
		}
		for _, p := range ps {
			if p.Spec.NodeName != name || p.Status.Phase == apiv1.PodSucceeded || p.Status.Phase == apiv1.PodFailed {
				continue
			}
			if pod_util.IsDaemonSetPod(p) || pod_util.IsMirrorPod(p) {
				continue
			}
			return true
		}
		return false
	}
}
