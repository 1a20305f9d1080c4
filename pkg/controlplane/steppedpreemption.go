// SteppedPreemption: the default preemption with its ties broken the same way in every replay.

package controlplane

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	plfeature "k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/preemption"
)

// SteppedPreemptionName is the plugin a stepped scheduler runs in place of
// DefaultPreemption in a profile that has it (the baseline's default
// profile; Muster's profile disables it): DefaultPreemption itself, with
// the node whose pods it preempts chosen the same way in every replay.
//
// Upstream picks among the nodes where preemption would work by its
// rules (fewest PDB violations, lowest highest-priority victim, lowest sum
// of priorities, fewest victims, latest start of the highest-priority
// victims) and leaves the rest of a tie to the order of a Go map. Its last
// rule reads a victim's status.startTime, which only a kubelet sets: the
// simulated nodes run no kubelet, so every victim counts as started at the
// time.Now() of the call that reads it, the node read last wins, and which
// node that is follows map iteration. So in a replay where a high-priority
// gang preempted, which jobs lost their nodes changed from run to run
// (seed 2, minute 27: gang-9's three members took three of eight nodes
// that each held one priority-0 pod).
const SteppedPreemptionName = "SteppedPreemption"

type steppedPreemption struct {
	*defaultpreemption.DefaultPreemption
}

var _ preemption.Interface = (*steppedPreemption)(nil)

func (p *steppedPreemption) Name() string { return SteppedPreemptionName }

// newSteppedPreemption builds DefaultPreemption as the in-tree registry
// would (its args are upstream's defaults: the stepped profiles set none)
// and has its evaluator ask the plugin above for the offset and the
// ordering of candidates.
func newSteppedPreemption(ctx context.Context, _ runtime.Object, fh fwk.Handle) (fwk.Plugin, error) {
	args := &config.DefaultPreemptionArgs{MinCandidateNodesPercentage: 10, MinCandidateNodesAbsolute: 100}
	dp, err := defaultpreemption.New(ctx, args, fh, plfeature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", SteppedPreemptionName, err)
	}
	p := &steppedPreemption{DefaultPreemption: dp}
	dp.Evaluator = preemption.NewEvaluator(defaultpreemption.Name, fh, p, dp.Executor)
	return p, nil
}

// GetOffsetAndNumCandidates starts the dry run at the first node rather
// than a random one (it matters only where the dry run stops before the
// last node: clusters of more than 100 nodes).
func (p *steppedPreemption) GetOffsetAndNumCandidates(nodes int32) (int32, int32) {
	_, n := p.DefaultPreemption.GetOffsetAndNumCandidates(nodes)
	return 0, n
}

// OrderedScoreFuncs are upstream's rules (pickOneNodeForPreemption), with
// a victim that has no start time counted as started now, one now for all,
// and then the node first in name order.
func (p *steppedPreemption) OrderedScoreFuncs(_ context.Context, victims map[string]*extenderv1.Victims) []func(node string) int64 {
	now := time.Now()
	started := func(node string) int64 {
		pods := victims[node].Pods
		top := corev1helpers.PodPriority(pods[0])
		var earliest *time.Time
		for _, pod := range pods {
			prio := corev1helpers.PodPriority(pod)
			if prio < top {
				continue
			}
			t := now
			if pod.Status.StartTime != nil {
				t = pod.Status.StartTime.Time
			}
			if prio > top || earliest == nil || t.Before(*earliest) {
				top, earliest = prio, &t
			}
		}
		return earliest.UnixNano()
	}
	names := make([]string, 0, len(victims))
	for node := range victims {
		names = append(names, node)
	}
	slices.Sort(names)
	rank := make(map[string]int64, len(names))
	for i, node := range names {
		rank[node] = -int64(i)
	}
	return []func(string) int64{
		func(node string) int64 { return -victims[node].NumPDBViolations },
		func(node string) int64 { return -int64(corev1helpers.PodPriority(victims[node].Pods[0])) },
		func(node string) int64 {
			var sum int64
			for _, pod := range victims[node].Pods {
				sum += int64(corev1helpers.PodPriority(pod)) + int64(math.MaxInt32+1)
			}
			return -sum
		},
		func(node string) int64 { return -int64(len(victims[node].Pods)) },
		started,
		func(node string) int64 { return rank[node] },
	}
}
