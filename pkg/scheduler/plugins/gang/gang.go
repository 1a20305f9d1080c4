// Package gang is the MusterGang scheduler plugin: all-or-nothing placement of
// a gang's min members, elastic growth up to max, a quorum gate at PreEnqueue,
// gang-aware queue order and PodGroup status. The decisions themselves live in
// pkg/gang; this package adapts them to the framework's extension points.
package gang

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/utils/clock"
	schedlisters "sigs.k8s.io/scheduler-plugins/pkg/generated/listers/scheduling/v1alpha1"

	"github.com/muster-project/muster/pkg/apis/config"
	"github.com/muster-project/muster/pkg/capacity"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/gangstate"
	"github.com/muster-project/muster/pkg/scheduler/served"
	"github.com/muster-project/muster/pkg/scheduler/statemetrics"
)

// Name is the plugin's name in KubeSchedulerConfiguration.
const Name = "MusterGang"

// Gang is the MusterGang plugin.
type Gang struct {
	handle   fwk.Handle
	defaults gang.Defaults
	backoff  time.Duration
	// preemption decides what a gang that does not fit may take.
	preemption preemption
	// starvationBound, planCache and roomShort: see plan.go. roomShort
	// records, per gang, whether its last failed attempt lacked room.
	starvationBound time.Duration
	planCache       planCache
	// strandedPolicy says what becomes of members bound below min.
	strandedPolicy gang.StrandedPolicy
	roomShort      sync.Map // gang.Key -> bool
	// beyondCluster holds the gangs whose last attempt found their quorum
	// larger than the cluster's nodes were they empty, with the fewest GPUs
	// their quorum asks for in all (capacity.FewestGPUs): a node that could
	// hold none of their members changes nothing for them, nor one that
	// leaves the cluster's regular nodes with fewer GPUs than that
	// (roomFreed).
	beyondCluster sync.Map // gang.Key -> int64
	// nodeCame holds the gangs larger than the cluster for which a node
	// came that could hold a member since their last attempt: their lead
	// is not parked (parked) until an attempt has looked again.
	nodeCame sync.Map // gang.Key -> struct{}
	// memo keeps what the hints of the cluster event being hinted share:
	// each gang's attempt lead, the cluster's GPUs (events.go).
	memo eventMemo

	tracker *gang.Tracker
	// clock is wall time, or muster simulate's trace clock (NewOn); on the
	// latter ages count from firstSeen (see created).
	clock            clock.WithDelayedExecution
	ageFromFirstSeen bool
	firstSeen        sync.Map // gang.Key -> time.Time
	loneSeen         sync.Map // types.UID -> time.Time, on a trace clock when a pending pod outside a gang was first seen (its queue age)
	evicting         sync.Map // types.UID -> *v1.Pod, evicted to make room and not yet seen deleted (Evicting)
	pods             cache.Indexer
	// nodes is the node informer's store (nil in tests that need none).
	nodes     cache.Store
	podLister corelisters.PodLister
	podGroups schedlisters.PodGroupLister // nil when the PodGroup CRD is not served
	workloads *workloadAPI                // nil when upstream PodGroups are not served
	status    *statusWriter
	gangSince sync.Map // gang.Key -> time.Time, the queue order of each gang
	quorate   sync.Map // gang.Key -> struct{}, gangs whose gated members were woken for quorum
	// shapes spares the capacity plan reading unchanged members again each
	// time it is made (the plan cache reads only changed nodes again); the
	// profile's one cache, shared with MusterTopology (gangstate.State.Shapes).
	shapes   *capacity.Shapes
	wideOnce sync.Map // types.UID -> struct{}, members whose next attempt tries every node
	// passedOver holds, per gang, the members an attempt let wait because
	// its other members could complete the quorum (othersComplete).
	passedOver sync.Map // gang.Key -> passed
	// gatedPods are the members the gate last turned away (quorum, max,
	// bad input), so that a member held behind a lead still among them
	// has the lead woken (PreEnqueue).
	gatedPods sync.Map // types.UID -> struct{}
	// heldPods are the members the gate holds behind their gang's lead
	// (heldBy), woken when a member of their gang is bound (memberPlaced).
	heldPods sync.Map // types.UID -> struct{}
	// extraLeads holds, for a gang whose quorum is placed, the elastic
	// member above min that failed last for room, per kind of member alike
	// in shape and priority (extraKind): the members of its kind are held
	// behind it (extraHeldBy), heldExtras, until it holds a node.
	extraLeads sync.Map // extraKind -> types.UID
	heldExtras sync.Map // types.UID -> struct{}
	// state is what the profile's Muster plugins share (gangstate);
	// leading, its leadership: set once this replica schedules.
	state   *gangstate.State
	leading *gangstate.Leadership
	// started is set once New has built the plugin; PodGroup events before
	// then find no reservations to release.
	started atomic.Bool
	// queueing is set once the queue first ran the gate (PreEnqueue): from
	// then on there is a queue to wake members on (wakeForPodGroup).
	queueing atomic.Bool
}

var (
	_ fwk.PreEnqueuePlugin  = &Gang{}
	_ fwk.QueueSortPlugin   = &Gang{}
	_ fwk.PreFilterPlugin   = &Gang{}
	_ fwk.FilterPlugin      = &Gang{}
	_ fwk.PostFilterPlugin  = &Gang{}
	_ fwk.PermitPlugin      = &Gang{}
	_ fwk.ReservePlugin     = &Gang{}
	_ fwk.PostBindPlugin    = &Gang{}
	_ fwk.EnqueueExtensions = &Gang{}
	_ fwk.SignPlugin        = &Gang{}
)

// New is the plugin's factory, on wall time: it builds the plugin from its
// args, sharing its profile's state in set with the profile's other Muster
// plugins.
func New(set *gangstate.Set) frameworkruntime.PluginFactory {
	return func(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		return newGang(ctx, obj, h, set.For(h), clock.RealClock{}, false)
	}
}

// NewOn is New on another clock: muster simulate's trace clock, which moves
// in steps. The API server stamps objects in wall time, so on such a clock a
// gang's age counts from when the plugin first saw it.
func NewOn(set *gangstate.Set, c clock.WithDelayedExecution) frameworkruntime.PluginFactory {
	return func(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		return newGang(ctx, obj, h, set.For(h), c, true)
	}
}

func newGang(ctx context.Context, obj runtime.Object, h fwk.Handle, state *gangstate.State, c clock.WithDelayedExecution, ageFromFirstSeen bool) (fwk.Plugin, error) {
	args, err := config.DecodeGangArgs(obj, Name)
	if err != nil {
		return nil, err
	}
	logger := klog.FromContext(ctx).WithValues("plugin", Name)
	pl := &Gang{
		handle: h,
		defaults: gang.Defaults{
			ScheduleTimeout: time.Duration(*args.ScheduleTimeoutSeconds) * time.Second,
			MaxGangMembers:  *args.MaxGangMembers,
			SpotExtras:      *args.SpotExtras,
		},
		backoff:          time.Duration(*args.BackoffSeconds) * time.Second,
		tracker:          gang.NewTracker(c.Now),
		clock:            c,
		ageFromFirstSeen: ageFromFirstSeen,
		state:            state,
		leading:          state.Leadership(),
	}

	// The scheduler waits for every informer before it leads; say which
	// ones hold it up (an API the server lacks, a role that lacks it).
	served.ReportUnsynced(ctx, h.SharedInformerFactory(), 30*time.Second)

	podInformer := h.SharedInformerFactory().Core().V1().Pods()
	if err := gangstate.EnsureGangIndex(podInformer.Informer()); err != nil {
		return nil, err
	}
	pl.pods = podInformer.Informer().GetIndexer()
	pl.nodes = h.SharedInformerFactory().Core().V1().Nodes().Informer().GetStore()
	pl.podLister = podInformer.Lister()
	if pl.shapes, err = state.Shapes(podInformer.Informer(), ""); err != nil {
		return nil, err
	}

	pl.podGroups, err = startPodGroupInformer(ctx, h.KubeConfig(), pl.podGroupHandler(ctx))
	if err != nil {
		return nil, err
	}
	if pl.podGroups == nil {
		logger.Info("PodGroup CRD (scheduling.x-k8s.io/v1alpha1) is not served; only CRD-free gangs (label " + gang.GroupLabel + ") can be scheduled until muster-scheduler restarts with it installed")
	}
	if err := checkGenericWorkloadOff(); err != nil {
		return nil, err
	}
	if pl.workloads, err = startWorkloadInformers(ctx, h, pl.workloadPodGroupHandler(ctx)); err != nil {
		return nil, err
	}
	if pl.workloads == nil {
		logger.Info("Upstream PodGroups (" + gang.WorkloadGroupVersion + ") are not served; pods naming one in spec.schedulingGroup wait until muster-scheduler restarts with the API on")
	}

	pl.preemption = newPreemption(ctx, h, args.Preemption)
	pl.starvationBound = time.Duration(*args.StarvationBoundSeconds) * time.Second
	pl.strandedPolicy = gang.StrandedPolicy(args.StrandedMembers)
	marks, err := state.Marks(ctx, h.KubeConfig(), h.ClientSet())
	if err != nil {
		return nil, err
	}
	marks.SetRate(float32(*args.PodWriteQPS), 2*int(*args.PodWriteQPS))
	pl.status = newStatusWriter(h, pl, marks, time.Duration(*args.StatusSyncMillis)*time.Millisecond)
	if _, err := podInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(o any) { pl.seen(o); pl.touchPod(o); pl.quorumArrived(ctx, o); pl.boundArrived(ctx, o) },
		UpdateFunc: func(old, o any) {
			pl.touchPod(o)
			pl.ungated(ctx, old, o)
			pl.memberPlaced(ctx, old, o)
			if p, ok := podFrom(o); ok && p.Spec.NodeName != "" {
				pl.loneSeen.Delete(p.UID)
			}
		},
		// A pod leaving frees room the capacity plan may hold.
		DeleteFunc: func(o any) {
			pl.touchPod(o)
			pl.status.podGone(o)
			pl.leadGone(ctx, o)
			pl.planCache.invalidate()
			if p, ok := podFrom(o); ok {
				pl.podDeleted(p.UID)
			}
		},
	}); err != nil {
		return nil, fmt.Errorf("watching gang members: %w", err)
	}
	if err := pl.watchSpotReclaims(ctx, h); err != nil {
		return nil, fmt.Errorf("watching spot nodes: %w", err)
	}
	state.AddController(ctx, "gang status", pl.status.run)
	state.ShareStatus(pl.status)
	phaseSources.Store(pl.status, struct{}{})
	statemetrics.Register(pl, Name, pl.stateEntries)
	state.ShareRoomFreed(pl.roomFreed)
	state.ShareGate(gangstate.Gate{Judge: pl.gateJudge, Events: pl.gateEvents()})
	state.ShareEvicting(pl.Evicting)
	go func() {
		<-ctx.Done()
		phaseSources.Delete(pl.status)
		statemetrics.Unregister(pl)
	}()
	pl.started.Store(true)
	return pl, nil
}

// Name returns the plugin name.
func (pl *Gang) Name() string { return Name }

func (pl *Gang) touchPod(obj any) {
	pod, ok := podFrom(obj)
	if !ok {
		return
	}
	if key, _, isGang, _ := gang.GroupOf(pod); isGang {
		pl.status.touch(key)
	}
}

// podFrom unwraps a pod from an informer notification, tombstones included.
func podFrom(obj any) (*v1.Pod, bool) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	pod, ok := obj.(*v1.Pod)
	return pod, ok
}
