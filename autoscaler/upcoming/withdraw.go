// Package upcoming withdraws nodes the autoscaler asked for that no pending
// pod needs any more, while they are still being created.
//
// A scale-up is decided for the pods pending at that moment. When capacity
// frees up before the new nodes come (a short job ends), the scheduler
// rightly binds those pods there, and the new nodes arrive with nothing to
// run: they sit idle until scale-down removes them. Upstream only cancels an
// instance that never registered after --max-node-provision-time.
//
// Each loop the core injects one placeholder per upcoming node into its
// cluster snapshot and packs the pending pods onto the snapshot's nodes
// (FilterOutSchedulable). Withdrawer runs after that packing: a placeholder
// left empty is a node no pending pod is expected on. Pods the packing does
// not see (not yet tried by the scheduler, gated, consuming a
// ProvisioningRequest) then get a chance to claim empty placeholders they
// fit. The rest, up to the pool's instances still being created that no
// node has registered for, are withdrawn.
package upcoming

import (
	"fmt"
	"regexp"
	"strings"

	apiv1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	ca_context "k8s.io/autoscaler/cluster-autoscaler/context"
	"k8s.io/autoscaler/cluster-autoscaler/core"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/framework"
	podutils "k8s.io/autoscaler/cluster-autoscaler/utils/pod"
	"k8s.io/klog/v2"
)

// EventReason is the reason of the event recorded for each withdrawal.
const EventReason = "ScaleUpWithdrawn"

// CreatingWithdrawer is a node group that can delete instances still being
// created: up to n whose provider ID (lower case) is not in registered,
// never below its min, returning the provider IDs it withdrew.
type CreatingWithdrawer interface {
	WithdrawCreating(n int, registered map[string]bool) ([]string, error)
}

// Withdrawer is a PodListProcessor that withdraws unneeded upcoming nodes.
// It must run after the pending pods were packed into the snapshot; it
// leaves the pod list unchanged.
type Withdrawer struct{}

// Process implements pods.PodListProcessor.
func (Withdrawer) Process(ctx *ca_context.AutoscalingContext, pending []*apiv1.Pod) ([]*apiv1.Pod, error) {
	if err := withdraw(ctx, pending); err != nil {
		klog.ErrorS(err, "Could not check upcoming nodes for ones no pending pod needs")
	}
	return pending, nil
}

// CleanUp implements pods.PodListProcessor.
func (Withdrawer) CleanUp() {}

// upcomingName is the name the core gives an upcoming node's placeholder:
// template-node-for-<node group>-<random>-upcoming-<i>.
var upcomingName = regexp.MustCompile(`^template-node-for-(.+)-[0-9]+-upcoming-[0-9]+$`)

// placeholderGroup returns the node group of an upcoming node's placeholder,
// or "" when node is not one.
func placeholderGroup(node *apiv1.Node) string {
	if node.Annotations[core.NodeUpcomingAnnotation] != "true" {
		return ""
	}
	m := upcomingName.FindStringSubmatch(node.Name)
	if m == nil {
		return ""
	}
	return m[1]
}

// holdsWork reports whether a pod on a placeholder is one a pending pod
// put there, not one every new node starts with.
func holdsWork(p *apiv1.Pod) bool {
	return !podutils.IsDaemonSetPod(p) && !podutils.IsMirrorPod(p) && !podutils.IsStaticPod(p)
}

// emptyPlaceholders returns, by node group, the placeholders no pod was
// packed onto, and the UIDs of all pods on the snapshot's nodes.
func emptyPlaceholders(infos []*framework.NodeInfo) (map[string][]string, map[types.UID]bool) {
	empty := map[string][]string{}
	placed := map[types.UID]bool{}
	for _, ni := range infos {
		used := false
		for _, pi := range ni.Pods() {
			placed[pi.Pod.UID] = true
			used = used || holdsWork(pi.Pod)
		}
		if g := placeholderGroup(ni.Node()); g != "" && !used {
			empty[g] = append(empty[g], ni.Node().Name)
		}
	}
	return empty, placed
}

// unplaced returns the pods bound to no node that the core's packing did not
// place and did not already judge (they are not in pending): pods the
// scheduler has not tried yet, gated pods, pods consuming a
// ProvisioningRequest.
func unplaced(all []*apiv1.Pod, pending []*apiv1.Pod, placed map[types.UID]bool) []*apiv1.Pod {
	judged := make(map[types.UID]bool, len(pending))
	for _, p := range pending {
		judged[p.UID] = true
	}
	var out []*apiv1.Pod
	for _, p := range all {
		if p.Spec.NodeName != "" || p.DeletionTimestamp != nil || p.Status.Phase == apiv1.PodSucceeded || p.Status.Phase == apiv1.PodFailed {
			continue
		}
		if placed[p.UID] || judged[p.UID] {
			continue
		}
		out = append(out, p)
	}
	return out
}

func withdraw(ctx *ca_context.AutoscalingContext, pending []*apiv1.Pod) error {
	infos, err := ctx.ClusterSnapshot.ListNodeInfos()
	if err != nil {
		return fmt.Errorf("listing the cluster snapshot's nodes: %w", err)
	}
	empty, placed := emptyPlaceholders(infos)
	if len(empty) == 0 {
		return nil
	}
	all, err := ctx.AllPodLister().List()
	if err != nil {
		return fmt.Errorf("listing pods: %w", err)
	}
	free := map[string]string{} // empty placeholder -> node group
	for g, names := range empty {
		for _, n := range names {
			free[n] = g
		}
	}
	// Unplaced pods claim the empty placeholders they fit, in a fork of
	// the snapshot so the core's own state is untouched.
	if others := unplaced(all, pending, placed); len(others) > 0 {
		ctx.ClusterSnapshot.Fork()
		for _, p := range others {
			name, serr := ctx.ClusterSnapshot.SchedulePodOnAnyNodeMatching(p, func(ni *framework.NodeInfo) bool {
				_, ok := free[ni.Node().Name]
				return ok
			})
			if serr == nil && name != "" {
				klog.V(4).InfoS("Upcoming node kept for a pending pod the scale-up simulation left out", "pod", klog.KObj(p), "nodeGroup", free[name])
				delete(free, name)
				if len(free) == 0 {
					break
				}
			}
		}
		ctx.ClusterSnapshot.Revert()
	}
	unneeded := map[string]int{}
	for _, g := range free {
		unneeded[g]++
	}
	if len(unneeded) == 0 {
		return nil
	}
	nodes, err := ctx.AllNodeLister().List()
	if err != nil {
		return fmt.Errorf("listing nodes: %w", err)
	}
	registered := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		if n.Spec.ProviderID != "" {
			registered[strings.ToLower(n.Spec.ProviderID)] = true
		}
	}
	for _, ng := range ctx.CloudProvider.NodeGroups() {
		n := unneeded[ng.Id()]
		if n == 0 {
			continue
		}
		w, ok := ng.(CreatingWithdrawer)
		if !ok {
			klog.V(2).InfoS("Upcoming nodes no pending pod needs; the node group cannot withdraw instances being created", "nodeGroup", ng.Id(), "count", n)
			continue
		}
		ids, err := w.WithdrawCreating(n, registered)
		if err != nil {
			klog.ErrorS(err, "Could not withdraw upcoming nodes no pending pod needs", "nodeGroup", ng.Id(), "count", n)
			continue
		}
		if len(ids) == 0 {
			continue
		}
		klog.InfoS("Withdrew upcoming nodes no pending pod needs", "nodeGroup", ng.Id(), "instances", ids)
		if ctx.LogRecorder != nil {
			ctx.LogRecorder.Eventf(apiv1.EventTypeNormal, EventReason,
				"Withdrew %d node(s) of %s still being created: no pending pod needs them any more (%s)", len(ids), ng.Id(), strings.Join(ids, ", "))
		}
	}
	return nil
}
