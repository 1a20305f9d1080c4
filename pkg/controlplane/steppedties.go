// Stepped ties among equally scored nodes: the node first in name order wins.

package controlplane

import (
	"context"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler"
	schedframework "k8s.io/kubernetes/pkg/scheduler/framework"
)

// byNodeName is a profile's framework whose scores break ties by node
// name: a stepped scheduler schedules each pod through it (Scheduler.
// steppedSchedulePod).
//
// Upstream takes the highest total score from a heap of the scored nodes,
// and among equal totals the higher NodePluginScores.Randomizer, which it
// sets only for nodes an extender scored (none here): so a tie goes to
// whichever node the heap holds first, which follows the order the nodes
// were filtered in. That order is the scheduler's node list, turned round
// by where the last pod's search stopped, or, when a PreFilter plugin
// names the nodes (MusterTopology: a gang's domain, or its own nodes with
// room), the iteration order of a Go map. So which of several empty nodes
// of a domain a gang's member landed on changed from replay to replay
// (seed 4 of --random, minute 8: gang-1's four members on gpu-heavy 0-3,
// each on another node in each run), and with it which members a later
// reclaim, scale-down or preemption hit.
type byNodeName struct {
	schedframework.Framework
}

// RunScorePlugins scores as the framework does and sets each node's
// Randomizer by name, highest for the first name, so that of nodes with
// equal totals the first in name order comes out of the heap first.
func (f byNodeName) RunScorePlugins(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) ([]fwk.NodePluginScores, *fwk.Status) {
	scores, st := f.Framework.RunScorePlugins(ctx, state, pod, nodes)
	tieByName(scores)
	return scores, st
}

// tieByName sets the scores' Randomizers by node name: the first name
// highest.
func tieByName(scores []fwk.NodePluginScores) {
	order := make([]int, len(scores))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(scores[a].Name, scores[b].Name) })
	for rank, i := range order {
		scores[i].Randomizer = len(scores) - rank
	}
}

// tieScoresByName has the scheduler score through byNodeName once it is
// stepped (StartSteppedScheduler).
func (s *Scheduler) tieScoresByName() {
	schedule := s.sched.SchedulePod
	s.sched.SchedulePod = func(ctx context.Context, f schedframework.Framework, state fwk.CycleState, pod *schedframework.QueuedPodInfo) (scheduler.ScheduleResult, error) {
		if s.gate.serial.Load() {
			f = byNodeName{f}
		}
		return schedule(ctx, f, state, pod)
	}
}
