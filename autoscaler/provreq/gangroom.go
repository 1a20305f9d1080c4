// GangRoom: keeps the room that a request's waiting consumers count on in the loop's snapshot.

package provreq

import (
	"fmt"
	"sort"

	apiv1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	ca_context "k8s.io/autoscaler/cluster-autoscaler/context"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/framework"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/scheduling"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"

	"github.com/muster-project/muster/autoscaler/contract"
	v1 "github.com/muster-project/muster/autoscaler/provreq/apis/v1"
)

// GangRoom is a PodListProcessor that keeps, in the loop's cluster
// snapshot, the room a gang's scheduler counts on. A request names only
// what its gang lacks: the gang's other unplaced members (the request's
// consumers beyond its count) wait for room that exists. Upstream packs
// every pending pod that fits onto existing and upcoming nodes
// (FilterOutSchedulable), which both keeps those nodes out of scale-down
// and stops a scale-up for them; consumers are taken out of that path
// (PodsFilter), so GangRoom packs them instead. Without it, scale-down
// removed the empty nodes a waiting gang was counting on, its shortfall
// grew back, and the request's own pods could be found in that same room.
//
// A gang that was short and then found room that exists has its members
// consume its in-room name (contract.InRoomSuffix): they count on that
// room too, on nodes that exist only, and, like every consumer, are never
// scaled up for one by one; if the room is gone, the gang's next request
// asks for it atomically.
//
// Otherwise only a live request's consumers count: members that consume a
// name no request has (muster-<gang>-held: a launcher waiting for its
// workers' nodes, a gang new nodes would not help, a request being
// replaced after its booking ended; or a deleted request's name) and
// consumers of a Failed request (no pool can hold the gang, or none can
// add the nodes now: the scheduler leaves its members consuming it until
// the replacement) hold nothing, so no node idles for a gang the scheduler
// does not expect to run.
type GangRoom struct {
	client *Client
	sim    *scheduling.HintingSimulator
}

// NewGangRoom returns a GangRoom.
func NewGangRoom(c *Client) *GangRoom {
	return &GangRoom{client: c, sim: scheduling.NewHintingSimulator()}
}

// Process implements pods.PodListProcessor. It leaves the pod list
// unchanged.
func (g *GangRoom) Process(ctx *ca_context.AutoscalingContext, pending []*apiv1.Pod) ([]*apiv1.Pod, error) {
	g.client.setRoom(nil, nil) // this loop's record only, whatever returns below
	if ctx.ListerRegistry == nil {
		return pending, nil
	}
	all, err := ctx.AllPodLister().List()
	if err != nil {
		return pending, fmt.Errorf("listing pods to keep the room gangs count on: %w", err)
	}
	counted := CountedOn(all, g.client.Request)
	if len(counted) == 0 {
		return pending, nil
	}
	var placed []scheduling.Status
	for start := 0; start < len(counted); {
		// In order, in runs of one kind: in-room members only on nodes
		// that exist (the scheduler found them room there; an upcoming
		// node was bought for other pods, and taking its room would have
		// it bought again for them), the others anywhere.
		inRoom := consumesRoom(counted[start])
		end := start + 1
		for end < len(counted) && consumesRoom(counted[end]) == inRoom {
			end++
		}
		where := scheduling.ScheduleAnywhere
		if inRoom {
			where = existing
		}
		ok, _, err := g.sim.TrySchedulePods(ctx.ClusterSnapshot, counted[start:end], where, false)
		if err != nil {
			return pending, fmt.Errorf("keeping the room gangs count on: %w", err)
		}
		placed = append(placed, ok...)
		start = end
	}
	g.sim.DropOldHints()
	// The orchestrator takes a request's members out of the snapshot again
	// if it fails the request in this loop (Orchestrator.releaseRoom).
	kept := map[string][]keptMember{}
	for _, s := range placed {
		name, _ := ConsumedRequest(s.Pod)
		key := s.Pod.Namespace + "/" + name
		kept[key] = append(kept[key], keptMember{namespace: s.Pod.Namespace, name: s.Pod.Name, node: s.NodeName})
	}
	var lost map[string]int
	if len(placed) < len(counted) {
		// The orchestrator must not scale up for the request alone when
		// the gang it completes can never fit (see Orchestrator).
		fit := make(map[types.UID]bool, len(placed))
		for _, s := range placed {
			fit[s.Pod.UID] = true
		}
		lost = map[string]int{}
		for _, p := range counted {
			if !fit[p.UID] {
				name, _ := ConsumedRequest(p)
				lost[p.Namespace+"/"+name]++
			}
		}
	}
	g.client.setRoom(lost, kept)
	klog.V(2).InfoS("Kept the room waiting gangs count on", "members", len(counted), "placed", len(placed))
	return pending, nil
}

// CleanUp implements pods.PodListProcessor.
func (g *GangRoom) CleanUp() {}

// upcomingNodeAnnotation marks the placeholder nodes the autoscaler's core
// puts into a loop's snapshot for instances that have not registered yet
// (core.NodeUpcomingAnnotation, not imported for one constant; a test
// checks they agree).
const upcomingNodeAnnotation = "cluster-autoscaler.k8s.io/upcoming-node"

// existing accepts the nodes of the snapshot that exist, not the upcoming
// placeholders.
func existing(n *framework.NodeInfo) bool {
	return n.Node().Annotations[upcomingNodeAnnotation] != "true"
}

func consumesRoom(p *apiv1.Pod) bool {
	name, _ := ConsumedRequest(p)
	return contract.ConsumesRoom(name)
}

// CountedOn returns copies of the pending pods that consume a
// ProvisioningRequest and count on existing room: per request, its
// consumers beyond the request's count (by name, so the choice is stable);
// none of a request that is gone or Failed; every consumer of a gang's
// in-room name (contract.InRoomSuffix: a gang that was short found room
// that exists, and no request is left for it). They are
// ordered as the scheduler serves gangs: priority, then age.
func CountedOn(pods []*apiv1.Pod, request func(namespace, name string) (*v1.ProvisioningRequest, bool)) []*apiv1.Pod {
	byRequest := map[string][]*apiv1.Pod{}
	for _, p := range pods {
		if p.Spec.NodeName != "" || p.DeletionTimestamp != nil {
			continue
		}
		if name, ok := ConsumedRequest(p); ok {
			key := p.Namespace + "/" + name
			byRequest[key] = append(byRequest[key], p)
		}
	}
	var out []*apiv1.Pod
	for _, consumers := range byRequest {
		p0 := consumers[0]
		name, _ := ConsumedRequest(p0)
		skip := 0
		if !contract.ConsumesRoom(name) {
			pr, ok := request(p0.Namespace, name)
			if !ok || isTrue(pr, v1.Failed) {
				continue
			}
			for _, ps := range pr.Spec.PodSets {
				skip += int(ps.Count)
			}
		}
		if skip >= len(consumers) {
			continue
		}
		sort.Slice(consumers, func(a, b int) bool { return consumers[a].Name < consumers[b].Name })
		for _, p := range consumers[skip:] {
			out = append(out, p.DeepCopy())
		}
	}
	sort.SliceStable(out, func(a, b int) bool {
		pa, pb := corev1helpers.PodPriority(out[a]), corev1helpers.PodPriority(out[b])
		if pa != pb {
			return pa > pb
		}
		if !out[a].CreationTimestamp.Equal(&out[b].CreationTimestamp) {
			return out[a].CreationTimestamp.Before(&out[b].CreationTimestamp)
		}
		if out[a].Namespace != out[b].Namespace {
			return out[a].Namespace < out[b].Namespace
		}
		return out[a].Name < out[b].Name
	})
	return out
}
