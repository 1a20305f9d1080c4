// Package scaledownorder settles the order in which cluster-autoscaler
// weighs and removes scale-down candidates that its own rules rank alike.
// Upstream leaves such ties to map iteration: which of two equally idle
// nodes was found unneeded, and which one was drained when only one could
// be, changed from one run to the next, and the same trace replayed twice
// removed different nodes at different times. Ties go to the node whose
// name sorts first; every rule upstream ranks by still comes first.
package scaledownorder

import (
	"sort"

	apiv1 "k8s.io/api/core/v1"
	"k8s.io/autoscaler/cluster-autoscaler/context"
	"k8s.io/autoscaler/cluster-autoscaler/processors/nodes"
	"k8s.io/autoscaler/cluster-autoscaler/processors/scaledowncandidates"
	"k8s.io/autoscaler/cluster-autoscaler/simulator"
)

// ByName is the last comparer of a ScaleDownCandidatesSortingProcessor:
// of candidates the comparers before it rank alike, the one whose name
// sorts first is weighed first.
type ByName struct{}

var _ scaledowncandidates.CandidatesComparer = ByName{}

// ScaleDownEarlierThan orders nodes by name.
func (ByName) ScaleDownEarlierThan(node1, node2 *apiv1.Node) bool {
	return node1.Name < node2.Name
}

// Set orders the nodes found removable before Next picks which of them to
// remove now (at most so many at a time): nodes that need no drain first,
// then those that do, the risky ones last, as the planner ranks them, and
// by name within each rank.
type Set struct {
	Next nodes.ScaleDownSetProcessor
}

var _ nodes.ScaleDownSetProcessor = Set{}

// FilterUnremovableNodes orders candidates and hands them to Next.
func (s Set) FilterUnremovableNodes(ctx *context.AutoscalingContext, scaleDownCtx *nodes.ScaleDownContext, candidates []simulator.NodeToBeRemoved) ([]simulator.NodeToBeRemoved, []simulator.UnremovableNode) {
	sorted := make([]simulator.NodeToBeRemoved, len(candidates))
	copy(sorted, candidates)
	sort.SliceStable(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		if drainA, drainB := len(a.PodsToReschedule) > 0, len(b.PodsToReschedule) > 0; drainA != drainB {
			return !drainA
		}
		if a.IsRisky != b.IsRisky {
			return !a.IsRisky
		}
		return a.Node.Name < b.Node.Name
	})
	return s.Next.FilterUnremovableNodes(ctx, scaleDownCtx, sorted)
}

// CleanUp cleans Next up.
func (s Set) CleanUp() { s.Next.CleanUp() }
