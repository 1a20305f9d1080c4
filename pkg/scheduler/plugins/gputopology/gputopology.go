// Package gputopology is the MusterTopology scheduler plugin: it places each
// gang on GPUs of the class it asks for, inside the tightest topology domain
// (node, NVLink clique, rack, placement group, zone) that holds its quorum,
// and scores nodes so the cluster's GPUs stay usable for the gangs to come.
//
// The domain is chosen once per gang attempt, in the PreFilter of the first
// member, from a per-domain index of free GPUs (pkg/topology) that is brought
// up to date from the scheduler's snapshot only then, node by node where the
// node changed. The other members of the attempt, and elastic members beyond
// min, reuse the choice; their Filter and Score are O(1) per node.
//
// The plugin reads a gang's spec from MusterGang's cycle state, so MusterGang
// must run before it at PreFilter; a GPU pod outside any gang is a gang of one.
package gputopology

import (
	"context"
	"fmt"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/cache"
	resourcehelper "k8s.io/component-helpers/resource"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/utils/clock"

	"github.com/muster-project/muster/pkg/apis/config"
	"github.com/muster-project/muster/pkg/capacity"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/gangstate"
	"github.com/muster-project/muster/pkg/scheduler/provisioning"
	"github.com/muster-project/muster/pkg/scheduler/statemetrics"
	"github.com/muster-project/muster/pkg/topology"
)

// Name is the plugin's name in KubeSchedulerConfiguration.
const Name = "MusterTopology"

// Filter reasons, as `kubectl describe pod` shows them.
const (
	ReasonGPUClass = "node(s) had GPUs not of the gang's class (muster.dev/gpu-product, muster.dev/gpu-memory-min)"
	ReasonGPUCount = capacity.ReasonGPUCount
	ReasonDomain   = "node(s) were outside the topology domain chosen for the gang's quorum"
	ReasonRequired = "node(s) were outside the gang's required topology domain (muster.dev/topology-required)"
	ReasonBooked   = capacity.ReasonBooked
	ReasonClaimed  = capacity.ReasonClaimed
	// ReasonSpotRequired: on Azure a scale set is either spot or regular, and
	// InfiniBand-connected VMs share one scale set's placement group, so a
	// gang confined to a domain its quorum holds on regular nodes cannot add
	// spot nodes to it.
	ReasonSpotRequired = "spot node(s) were outside the gang's required topology domain: its quorum's domain is regular VMs, so the required domain rules spot out for its members above min"
)

// MaxChoiceRetries bounds how many domains a decision tries when the index
// says a domain fits but the nodes in it turn out not to (taints, selectors,
// CPU or memory, which the index does not see).
const MaxChoiceRetries = 8

var (
	_ fwk.PreFilterPlugin   = &Topology{}
	_ fwk.FilterPlugin      = &Topology{}
	_ fwk.PreScorePlugin    = &Topology{}
	_ fwk.ScorePlugin       = &Topology{}
	_ fwk.ReservePlugin     = &Topology{}
	_ fwk.EnqueueExtensions = &Topology{}
	_ fwk.SignPlugin        = &Topology{}
	_ fwk.ScoreExtensions   = &Topology{}
)

// Topology is the MusterTopology plugin.
type Topology struct {
	clock  clock.PassiveClock
	handle fwk.Handle
	levels []topology.Level
	gpu    v1.ResourceName
	pods   cache.Indexer
	// memberShapes caches waiting members' shapes: a gang's attempt and
	// its shortfall read every unplaced member's, each time. The profile's
	// one cache (gangstate.State.Shapes), MusterGang's too, which reports
	// its size.
	memberShapes *capacity.Shapes

	mu sync.RWMutex
	// index holds free GPUs per domain; synced records the NodeInfo
	// generation each node was last read at, so a sync re-reads only nodes
	// that changed.
	index  *topology.Index
	synced map[string]int64
	gangs  map[gang.Key]*placement
	// claimed sums, per node, the GPUs gangs' chosen domains hold for
	// quorum members not reserved yet (placement.claims): a gang choosing
	// its domain leaves them out.
	claimed map[string]int64
	shapes  shapeWindow
	// decisions counts domain choices (tests check there is one per attempt).
	decisions int64

	// requests writes ProvisioningRequests for short gangs (nil: off);
	// hinted is when each gang's shortfall was last computed.
	requests      *provisioning.Writer
	state         *gangstate.State      // shared with the profile's MusterGang
	leading       *gangstate.Leadership // whether this replica may write
	hinted        map[gang.Key]time.Time
	provisionable map[string]bool
	// starving names, for a gang no domain of its required level (or, with
	// none required, the cluster) had room for, where the capacity plan
	// may hold room for it (holdDomain); MusterGang reads it
	// (ShareDomains). The name stays when a later attempt chooses a domain,
	// for that attempt may still fail; only the next attempt that finds no
	// room (holdDomain names afresh) or the gang's end (forgetHinted) drops
	// it. The plan asks only for gangs whose quorum is not placed.
	starving map[gang.Key]heldIn
	// beyond holds the gangs whose last look (holdDomain) found no domain
	// of their required level, nor the cluster, that holds their GPU
	// members with every node empty; MusterGang reads it
	// (ShareBeyondDomains) to park such a gang's lead while no pool can
	// grow to hold it. A domain chosen, or the gang's end, drops it.
	beyond map[gang.Key]bool
	// arrivals, on a trace clock only, is when each pod and node was
	// first seen (nil: Score reads the creation stamps).
	arrivals *arrivals
}

// placement is one gang's domain and the members it has placed (reserved or
// bound). The choice stands while any member is placed; when none is, the
// next attempt chooses afresh.
type placement struct {
	key     gang.Key
	decided bool
	choice  topology.Choice
	members map[types.UID]member
	onNode  map[string]int
	// mixed: the gang has members without GPUs, which count toward its
	// quorum though this plugin does not place them.
	mixed bool
	// inDomain lists the chosen domain's nodes, built once per choice.
	// PreFilter hands it to the framework so that the quorum's members are
	// filtered and scored on those nodes only.
	inDomain sets.Set[string]
	// claims holds, per node of the domain, the GPUs of quorum members not
	// reserved yet (capacity.ClaimGPUs): other gangs' choices leave them
	// out until the members reserve, or the attempt ends.
	claims map[string]int64
}

type member struct {
	node string
	gpus int64
}

// New is the plugin's factory: it builds the plugin from its args, sharing
// its profile's state in set with the profile's MusterGang.
func New(set *gangstate.Set) frameworkruntime.PluginFactory {
	return func(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		return newTopology(ctx, obj, h, set.For(h), clock.RealClock{}, false)
	}
}

// NewOn is New on another clock (muster simulate's trace clock): how often a
// gang's shortfall is handed to the hint writer follows it, and whether a
// node came up while a member waited compares when the plugin first saw
// them on it (arrivals), not the API server's wall-time creation stamps.
func NewOn(set *gangstate.Set, c clock.PassiveClock) frameworkruntime.PluginFactory {
	return func(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		return newTopology(ctx, obj, h, set.For(h), c, true)
	}
}

func newTopology(ctx context.Context, obj runtime.Object, h fwk.Handle, state *gangstate.State, c clock.PassiveClock, traceArrivals bool) (fwk.Plugin, error) {
	args, err := config.DecodeTopologyArgs(obj, Name)
	if err != nil {
		return nil, err
	}
	levels := make([]topology.Level, len(args.Levels))
	for i, l := range args.Levels {
		levels[i] = topology.Level{Name: l.Name, Label: l.Label}
	}
	pl := &Topology{
		clock:    c,
		handle:   h,
		levels:   levels,
		gpu:      v1.ResourceName(args.GPUResourceName),
		index:    topology.NewIndex(levels),
		synced:   map[string]int64{},
		gangs:    map[gang.Key]*placement{},
		claimed:  map[string]int64{},
		shapes:   newShapeWindow(int(*args.ShapeWindow)),
		state:    state,
		leading:  state.Leadership(),
		starving: map[gang.Key]heldIn{},
		beyond:   map[gang.Key]bool{},
	}
	state.ShareDomains(pl.starvingDomain)
	state.ShareBeyondDomains(pl.beyondDomains)
	registerMetrics()
	podInformer := h.SharedInformerFactory().Core().V1().Pods().Informer()
	if err := gangstate.EnsureGangIndex(podInformer); err != nil {
		return nil, err
	}
	pl.pods = podInformer.GetIndexer()
	if pl.memberShapes, err = state.Shapes(podInformer, pl.gpu); err != nil {
		return nil, err
	}
	if _, err := podInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{DeleteFunc: pl.podGone}); err != nil {
		return nil, fmt.Errorf("watching pods: %w", err)
	}
	if traceArrivals {
		pl.arrivals = newArrivals(c)
		if _, err := podInformer.AddEventHandler(pl.arrivals.handler()); err != nil {
			return nil, fmt.Errorf("watching pods: %w", err)
		}
		if _, err := h.SharedInformerFactory().Core().V1().Nodes().Informer().AddEventHandler(pl.arrivals.handler()); err != nil {
			return nil, fmt.Errorf("watching nodes: %w", err)
		}
	}
	klog.FromContext(ctx).V(2).Info("MusterTopology levels", "levels", levels)
	pl.hinted = map[gang.Key]time.Time{}
	pl.provisionable = map[string]bool{}
	for _, l := range args.ProvisionableLevels {
		pl.provisionable[l] = true
	}
	if *args.AutoscalerHints {
		if err := pl.buildRequestWriter(ctx, h, time.Duration(*args.HintSyncMillis)*time.Millisecond); err != nil {
			return nil, fmt.Errorf("starting autoscaler hints: %w", err)
		}
	}
	statemetrics.Register(pl, Name, pl.stateEntries)
	go func() { <-ctx.Done(); statemetrics.Unregister(pl) }()
	return pl, nil
}

// Name returns the plugin name.
func (pl *Topology) Name() string { return Name }

const stateKey fwk.StateKey = Name

// cycleState is what PreFilter decided for this cycle's pod.
type cycleState struct {
	gpus  int64
	class topology.Class
	// domain confines the member (quorum phase); required confines an elastic
	// member; prefer is the gang's domain Score favours. Empty label: none.
	domain, required, prefer labelValue
	placement                *placement
	// booked lists other gangs' bookings: new nodes kept for them.
	booked []provisioning.Booking
	// lone: the pod is no gang's member; it may use what a booked node has
	// left over after one booked member.
	lone bool
	// preferSpot: a member above min of a gang that opted in to spot.
	preferSpot bool
	// claimed: GPUs other gangs' chosen domains claimed per node for
	// quorum members not reserved yet (nil: none).
	claimed map[string]int64
}

type labelValue struct{ label, value string }

func (lv labelValue) holds(n *v1.Node) bool {
	if lv.label == "" {
		return true
	}
	v, ok := n.Labels[lv.label]
	return ok && v == lv.value
}

// heldIn is where the capacity plan may hold room for a starving gang's
// GPU members: nodes of its GPU class in its required domain, anywhere
// when it requires none.
type heldIn struct {
	domain labelValue
	class  topology.Class
}

func (h heldIn) holds(n *v1.Node) bool {
	return h.domain.holds(n) && h.class.MatchesLabels(n.Labels)
}

// Clone shares the state: it is not modified after PreFilter.
func (s *cycleState) Clone() fwk.StateData { return s }

func readState(state fwk.CycleState) (*cycleState, bool) {
	d, err := state.Read(stateKey)
	if err != nil {
		return nil, false
	}
	s, ok := d.(*cycleState)
	return s, ok
}

// gpusOf returns the GPUs a pod requests.
func (pl *Topology) gpusOf(pod *v1.Pod) int64 {
	reqs := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
	q, ok := reqs[pl.gpu]
	if !ok {
		return 0
	}
	return q.Value()
}

// gangOf returns the gang a pod belongs to as MusterGang resolved it, or the
// pod alone as a gang of one.
func gangOf(state fwk.CycleState, pod *v1.Pod) gang.Spec {
	if spec, ok := gangstate.SpecFromCycleState(state); ok {
		return spec
	}
	return gang.Spec{Key: gang.Key{Namespace: pod.Namespace, Name: "pod:" + pod.Name}, Source: gang.SourceLabels, MinMember: 1, MaxMember: 1, Annotations: pod.Annotations}
}

// SignPod refuses batching for GPU pods: where a member may go depends on its
// gang's domain and members, which two pods with equal specs do not share.
func (pl *Topology) SignPod(_ context.Context, pod *v1.Pod) ([]fwk.SignFragment, *fwk.Status) {
	if pl.gpusOf(pod) > 0 {
		return nil, fwk.NewStatus(fwk.Unschedulable, "a GPU member's nodes depend on its gang's placement")
	}
	return nil, nil
}

// EventsToRegister names the changes that can let a rejected member through:
// nodes added or relabelled or grown, and pods leaving.
func (pl *Topology) EventsToRegister(_ context.Context) ([]fwk.ClusterEventWithHint, error) {
	return []fwk.ClusterEventWithHint{
		{Event: fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.Add | fwk.UpdateNodeAllocatable | fwk.UpdateNodeLabel | fwk.UpdateNodeTaint}, QueueingHintFn: pl.gpuPod},
		{Event: fwk.ClusterEvent{Resource: fwk.AssignedPod, ActionType: fwk.Delete}, QueueingHintFn: pl.gpuPod},
	}, nil
}

func (pl *Topology) gpuPod(logger klog.Logger, pod *v1.Pod, oldObj, newObj any) (fwk.QueueingHint, error) {
	if pl.gpusOf(pod) == 0 {
		return fwk.QueueSkip, nil
	}
	// A gang member is requeued as MusterGang would requeue it: the queue
	// requeues a member if any plugin that rejected it says Queue, and
	// every member of every waiting gang tried on every pod that left cost
	// a scheduling cycle and a FailedScheduling event each.
	if _, _, isGang, _ := gang.GroupOf(pod); isGang {
		if roomFreed, ok := pl.state.RoomFreed(); ok {
			return roomFreed(logger, pod, oldObj, newObj)
		}
	}
	return fwk.Queue, nil
}
