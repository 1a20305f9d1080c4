// Package upcoming withdraws nodes the autoscaler asked for that no pending
// pod needs any more, while they are still being created.
//
// A scale-up is decided for the pods pending at that moment. When capacity
// frees up before the new nodes come (a short job ends), the scheduler
// rightly binds those pods there, and the new nodes arrive with nothing to
// run: they sit idle until scale-down removes them. Upstream only cancels an
// instance that never registered after --max-node-provision-time.
//
// The rule is deliberately conservative: every pod bound to no node (pending
// for whatever reason: unschedulable, not yet tried, gated, consuming a
// ProvisioningRequest) that fits a fresh node of a pool counts as needing one
// of that pool's upcoming nodes, even if it could run elsewhere. Only the
// pool's instances still being created beyond that count are withdrawn. The
// core's own packing is not used: it may place a pod on another pool's
// upcoming nodes that were added for a gang.
package upcoming

import (
	"fmt"
	"strings"

	apiv1 "k8s.io/api/core/v1"
	"k8s.io/autoscaler/cluster-autoscaler/cloudprovider"
	ca_context "k8s.io/autoscaler/cluster-autoscaler/context"
	"k8s.io/autoscaler/cluster-autoscaler/simulator"
	"k8s.io/autoscaler/cluster-autoscaler/utils/taints"
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
// It leaves the pod list unchanged.
type Withdrawer struct{}

// Process implements pods.PodListProcessor.
func (Withdrawer) Process(ctx *ca_context.AutoscalingContext, pending []*apiv1.Pod) ([]*apiv1.Pod, error) {
	if err := withdraw(ctx); err != nil {
		klog.ErrorS(err, "Could not check upcoming nodes for ones no pending pod needs")
	}
	return pending, nil
}

// CleanUp implements pods.PodListProcessor.
func (Withdrawer) CleanUp() {}

// creating counts the instances still being created, without an error,
// that no registered node names.
func creating(instances []cloudprovider.Instance, registered map[string]bool) int {
	n := 0
	for _, in := range instances {
		if in.Status == nil || in.Status.State != cloudprovider.InstanceCreating || in.Status.ErrorInfo != nil {
			continue
		}
		if !registered[strings.ToLower(in.Id)] {
			n++
		}
	}
	return n
}

// waiting returns the pods bound to no node that may still run.
func waiting(all []*apiv1.Pod) []*apiv1.Pod {
	var out []*apiv1.Pod
	for _, p := range all {
		if p.Spec.NodeName != "" || p.DeletionTimestamp != nil || p.Status.Phase == apiv1.PodSucceeded || p.Status.Phase == apiv1.PodFailed {
			continue
		}
		out = append(out, p)
	}
	return out
}

// surplus is how many of a pool's instances being created to withdraw:
// those beyond one per waiting pod that fits the pool's nodes.
func surplus(creating, fitting int) int {
	return max(0, creating-fitting)
}

func withdraw(ctx *ca_context.AutoscalingContext) error {
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
	type candidate struct {
		group    cloudprovider.NodeGroup
		w        CreatingWithdrawer
		creating int
	}
	var candidates []candidate
	for _, ng := range ctx.CloudProvider.NodeGroups() {
		w, ok := ng.(CreatingWithdrawer)
		if !ok {
			continue
		}
		instances, err := ng.Nodes()
		if err != nil {
			klog.V(2).InfoS("Cannot list a node group's instances", "nodeGroup", ng.Id(), "err", err)
			continue
		}
		if c := creating(instances, registered); c > 0 {
			candidates = append(candidates, candidate{ng, w, c})
		}
	}
	if len(candidates) == 0 {
		return nil
	}
	all, err := ctx.AllPodLister().List()
	if err != nil {
		return fmt.Errorf("listing pods: %w", err)
	}
	pods := waiting(all)
	taintConfig := taints.NewTaintConfig(ctx.AutoscalingOptions)
	// Templates go into a fork of the snapshot, so the core's state is
	// untouched.
	ctx.ClusterSnapshot.Fork()
	defer ctx.ClusterSnapshot.Revert()
	for _, c := range candidates {
		template, aerr := simulator.SanitizedTemplateNodeInfoFromNodeGroup(c.group, nil, taintConfig)
		if aerr != nil {
			klog.V(2).InfoS("No template for a node group; its upcoming nodes are kept", "nodeGroup", c.group.Id(), "err", aerr)
			continue
		}
		if err := ctx.ClusterSnapshot.AddNodeInfo(template); err != nil {
			return fmt.Errorf("adding node group %s's template to the snapshot: %w", c.group.Id(), err)
		}
		fitting := 0
		for _, p := range pods {
			if ctx.ClusterSnapshot.CheckPredicates(p, template.Node().Name) == nil {
				if fitting++; fitting >= c.creating {
					break
				}
			}
		}
		n := surplus(c.creating, fitting)
		if n == 0 {
			continue
		}
		ids, err := c.w.WithdrawCreating(n, registered)
		if err != nil {
			klog.ErrorS(err, "Could not withdraw upcoming nodes no pending pod needs", "nodeGroup", c.group.Id(), "count", n)
			continue
		}
		if len(ids) == 0 {
			continue
		}
		klog.InfoS("Withdrew upcoming nodes no pending pod needs", "nodeGroup", c.group.Id(), "instances", ids, "waitingPodsThatFit", fitting)
		if ctx.LogRecorder != nil {
			ctx.LogRecorder.Eventf(apiv1.EventTypeNormal, EventReason,
				"Withdrew %d node(s) of %s still being created: no pending pod needs them any more (%s)", len(ids), c.group.Id(), strings.Join(ids, ", "))
		}
	}
	return nil
}
