// Filter, Score and Reserve: a member kept in its gang's domain and packed onto the fullest GPUs.

package gputopology

import (
	"context"
	"strings"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/muster-project/muster/pkg/capacity"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/provisioning"
	"github.com/muster-project/muster/pkg/topology"
)

// PreFilterExtensions is nil: Filter does not depend on other pods.
func (pl *Topology) PreFilterExtensions() fwk.PreFilterExtensions { return nil }

// Filter passes a node that has GPUs of the gang's class, free GPUs for the
// member and lies in the gang's domain.
func (pl *Topology) Filter(_ context.Context, state fwk.CycleState, _ *v1.Pod, ni fwk.NodeInfo) *fwk.Status {
	s, ok := readState(state)
	if !ok {
		return nil
	}
	node := ni.Node()
	if !s.class.IsZero() && !s.class.MatchesLabels(node.Labels) {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ReasonGPUClass)
	}
	if freeGPUs(ni, pl.gpu) < s.gpus {
		return fwk.NewStatus(fwk.Unschedulable, ReasonGPUCount)
	}
	if c := s.claimed[node.Name]; c > 0 && freeGPUs(ni, pl.gpu)-c < s.gpus {
		return fwk.NewStatus(fwk.Unschedulable, ReasonClaimed)
	}
	if !s.domain.holds(node) {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ReasonDomain)
	}
	if !s.required.holds(node) {
		if s.preferSpot && capacity.IsSpot(node) {
			return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ReasonSpotRequired)
		}
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ReasonRequired)
	}
	if len(s.booked) == 0 {
		return nil
	}
	pid := strings.ToLower(node.Spec.ProviderID)
	for _, b := range s.booked {
		if !b.Holds(pid) {
			continue
		}
		if !s.lone || freeGPUs(ni, pl.gpu)-s.gpus < b.GPUs {
			return fwk.NewStatus(fwk.Unschedulable, ReasonBooked)
		}
	}
	return nil
}

// bookingsAgainst returns the bookings whose nodes gang key must keep off:
// every other gang's. Each booking holds exactly the nodes the autoscaler
// recorded adding for it, so no node is booked twice.
func (pl *Topology) bookingsAgainst(key gang.Key) []provisioning.Booking {
	var out []provisioning.Booking
	for _, b := range pl.requests.Bookings() {
		if b.Key != key {
			out = append(out, b)
		}
	}
	return out
}

func freeGPUs(ni fwk.NodeInfo, gpu v1.ResourceName) int64 {
	return ni.GetAllocatable().GetScalarResources()[gpu] - ni.GetRequested().GetScalarResources()[gpu]
}

// PreScore skips pods PreFilter skipped.
func (pl *Topology) PreScore(_ context.Context, state fwk.CycleState, _ *v1.Pod, _ []fwk.NodeInfo) *fwk.Status {
	if _, ok := readState(state); !ok {
		return fwk.NewStatus(fwk.Skip)
	}
	return nil
}

// Score ranks a node by topology.Score: the gang's domain, its members'
// nodes, then packing that keeps leftover GPUs usable.
func (pl *Topology) Score(_ context.Context, state fwk.CycleState, pod *v1.Pod, ni fwk.NodeInfo) (int64, *fwk.Status) {
	s, ok := readState(state)
	if !ok {
		return 0, nil
	}
	node := ni.Node()
	alloc := ni.GetAllocatable().GetScalarResources()[pl.gpu]
	f := topology.Fit{
		InGangDomain:       s.prefer.label != "" && s.prefer.holds(node),
		AllocGPUs:          alloc,
		FreeGPUs:           alloc - ni.GetRequested().GetScalarResources()[pl.gpu],
		Want:               s.gpus,
		CameUpWhileWaiting: pod.CreationTimestamp.Before(&node.CreationTimestamp),
		SpotForExtra:       s.preferSpot && capacity.IsSpot(node),
	}
	if pl.arrivals != nil {
		f.CameUpWhileWaiting = pl.arrivals.cameUpWhileWaiting(pod, node)
	}
	pl.mu.RLock()
	f.GangMembers = s.placement.onNode[node.Name]
	f.Smallest = pl.shapes.smallest
	if v, ok := pl.index.Node(node.Name); ok && v.Group != nil {
		f.GroupWhollyFree = v.Group.WhollyFree()
	}
	pl.mu.RUnlock()
	return topology.Score(f), nil
}

// ScoreExtensions normalizes scores.
func (pl *Topology) ScoreExtensions() fwk.ScoreExtensions { return pl }

// NormalizeScore maps the lowest raw score to 0 and the highest to
// MaxNodeScore. Raw scores are tiers on a common base (every node of the
// gang's domain scores at least 10000), so scaling by the maximum alone would
// squeeze the tiers into a few points that other plugins could outvote.
func (pl *Topology) NormalizeScore(_ context.Context, _ fwk.CycleState, _ *v1.Pod, scores fwk.NodeScoreList) *fwk.Status {
	if len(scores) == 0 {
		return nil
	}
	lo, hi := scores[0].Score, scores[0].Score
	for _, s := range scores[1:] {
		lo, hi = min(lo, s.Score), max(hi, s.Score)
	}
	for i := range scores {
		if hi == lo {
			scores[i].Score = fwk.MaxNodeScore
			continue
		}
		scores[i].Score = (scores[i].Score - lo) * fwk.MaxNodeScore / (hi - lo)
	}
	return nil
}

// Reserve records the member on its node, in the gang and in the index.
func (pl *Topology) Reserve(_ context.Context, state fwk.CycleState, pod *v1.Pod, nodeName string) *fwk.Status {
	s, ok := readState(state)
	if !ok {
		return nil
	}
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if s.placement.add(pod.UID, nodeName, s.gpus) {
		pl.index.Adjust(nodeName, s.gpus)
		pl.reserveClaim(s.placement, nodeName, s.gpus)
	}
	pl.gangs[s.placement.key] = s.placement
	return nil
}

// Unreserve undoes Reserve. A gang left with no placed member forgets its
// domain, so its next attempt chooses afresh.
func (pl *Topology) Unreserve(_ context.Context, state fwk.CycleState, pod *v1.Pod, _ string) {
	s, ok := readState(state)
	if !ok {
		return
	}
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if m, ok := s.placement.remove(pod.UID); ok {
		pl.index.Adjust(m.node, -m.gpus)
	}
	pl.forgetIfEmpty(s.placement)
}
