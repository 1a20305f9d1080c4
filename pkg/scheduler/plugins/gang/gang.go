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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/utils/clock"
	schedlisters "sigs.k8s.io/scheduler-plugins/pkg/generated/listers/scheduling/v1alpha1"

	"github.com/muster-project/muster/pkg/apis/config"
	"github.com/muster-project/muster/pkg/capacity"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/nodefit"
	"github.com/muster-project/muster/pkg/scheduler/podpatch"
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
	// leads memoizes the attempt lead of each gang for the cluster event
	// being hinted (events.go).
	leads leadMemo

	tracker *gang.Tracker
	// clock is wall time, or muster simulate's trace clock (NewOn); on the
	// latter ages count from firstSeen (see created).
	clock            clock.WithDelayedExecution
	ageFromFirstSeen bool
	firstSeen        sync.Map // gang.Key -> time.Time
	loneSeen         sync.Map // types.UID -> time.Time, on a trace clock when a pending pod outside a gang was first seen (its queue age)
	pods             cache.Indexer
	podLister        corelisters.PodLister
	podGroups        schedlisters.PodGroupLister // nil when the PodGroup CRD is not served
	workloads        *workloadAPI                // nil when upstream PodGroups are not served
	status           *statusWriter
	gangSince        sync.Map // gang.Key -> time.Time, the queue order of each gang
	quorate          sync.Map // gang.Key -> struct{}, gangs whose gated members were woken for quorum
	// shapes and rooms spare the capacity plan reading unchanged members
	// and nodes again each time it is made.
	shapes   *capacity.Shapes
	rooms    nodefit.RoomCache
	wideOnce sync.Map // types.UID -> struct{}, members whose next attempt tries every node
	// leading is set once this replica schedules (see leader.go).
	leading *Leadership
	// started is set once New has built the plugin; PodGroup events before
	// then find no reservations to release.
	started atomic.Bool
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

// New builds the plugin from its args, on wall time.
func New(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	return newGang(ctx, obj, h, clock.RealClock{}, false)
}

// NewOn is New on another clock: muster simulate's trace clock, which moves
// in steps. The API server stamps objects in wall time, so on such a clock a
// gang's age counts from when the plugin first saw it.
func NewOn(c clock.WithDelayedExecution) frameworkruntime.PluginFactory {
	return func(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		return newGang(ctx, obj, h, c, true)
	}
}

func newGang(ctx context.Context, obj runtime.Object, h fwk.Handle, c clock.WithDelayedExecution, ageFromFirstSeen bool) (fwk.Plugin, error) {
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
		leading:          LeadershipOf(h),
		shapes:           capacity.NewShapes(config.DefaultGPUResourceName),
	}

	// The scheduler waits for every informer before it leads; say which
	// ones hold it up (an API the server lacks, a role that lacks it).
	served.ReportUnsynced(ctx, h.SharedInformerFactory(), 30*time.Second)

	podInformer := h.SharedInformerFactory().Core().V1().Pods()
	if err := EnsureGangIndex(podInformer.Informer()); err != nil {
		return nil, err
	}
	pl.pods = podInformer.Informer().GetIndexer()
	pl.podLister = podInformer.Lister()

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
	marks, err := podpatch.Shared(ctx, h, h.KubeConfig(), h.ClientSet())
	if err != nil {
		return nil, err
	}
	marks.SetRate(float32(*args.PodWriteQPS), 2*int(*args.PodWriteQPS))
	pl.status = newStatusWriter(h, pl, marks, time.Duration(*args.StatusSyncMillis)*time.Millisecond)
	if _, err := podInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(o any) { pl.seen(o); pl.touchPod(o); pl.quorumArrived(ctx, o) },
		UpdateFunc: func(_, o any) {
			pl.touchPod(o)
			if p, ok := podFrom(o); ok && p.Spec.NodeName != "" {
				pl.shapes.Forget(p.UID) // placed: no plan reads it again
				pl.loneSeen.Delete(p.UID)
			}
		},
		// A pod leaving frees room the capacity plan may hold.
		DeleteFunc: func(o any) {
			pl.touchPod(o)
			pl.status.podGone(o)
			pl.planCache.invalidate()
			if p, ok := podFrom(o); ok {
				pl.shapes.Forget(p.UID)
				pl.loneSeen.Delete(p.UID)
				pl.wideOnce.Delete(p.UID)
			}
		},
	}); err != nil {
		return nil, fmt.Errorf("watching gang members: %w", err)
	}
	if err := pl.watchSpotReclaims(ctx, h); err != nil {
		return nil, fmt.Errorf("watching spot nodes: %w", err)
	}
	go pl.status.run(ctx)
	statemetrics.Register(pl, Name, pl.stateEntries)
	roomHints.Store(h, fwk.QueueingHintFn(pl.roomFreed))
	go func() {
		<-ctx.Done()
		writers.Delete(h)
		leaders.Delete(h)
		roomHints.Delete(h)
		statemetrics.Unregister(pl)
	}()
	pl.started.Store(true)
	return pl, nil
}

// Name returns the plugin name.
func (pl *Gang) Name() string { return Name }

// specStateKey carries the spec PreFilter resolved to PostFilter and Permit
// of the same cycle, so each member's spec is read once per attempt.
const specStateKey fwk.StateKey = Name + "/spec"

type cycleSpec struct {
	spec gang.Spec
	// mayNarrow: MusterTopology may confine this member to the nodes that
	// already hold its gang's quorum members (see MayNarrowToGang); narrowed:
	// it did, so a failure to fit there is not the gang's failure.
	mayNarrow, narrowed bool
	// attempt is the tracker's token for this cycle's attempt (Attempt);
	// failed: PreFilter already failed the attempt.
	attempt uint64
	failed  bool
}

// Clone shares the state: the cycle's plugins see one another's marks.
func (c *cycleSpec) Clone() fwk.StateData { return c }

// MayNarrowToGang says whether MusterTopology may evaluate this member on
// its gang's own nodes only. A member of a gang placing its quorum would
// score those nodes highest anyway; with the framework filtering and
// scoring a handful of nodes instead of all of them, a big gang's members
// schedule almost as fast as plain pods. It may not when room is held for
// gangs ahead in the capacity plan (the gang's nodes may be held), or when
// this member already failed on its gang's nodes.
func MayNarrowToGang(state fwk.CycleState) bool {
	d, err := state.Read(specStateKey)
	return err == nil && d.(*cycleSpec).mayNarrow
}

// NarrowedToGang records that MusterTopology confined this cycle's member
// to its gang's nodes, so that not fitting there is not the gang's failure.
func NarrowedToGang(state fwk.CycleState) {
	if d, err := state.Read(specStateKey); err == nil {
		d.(*cycleSpec).narrowed = true
	}
}

// NarrowedCycle reports whether MusterTopology narrowed this cycle: a
// member that fits none of its gang's nodes is then tried on every node
// before its gang's attempt fails.
func NarrowedCycle(state fwk.CycleState) bool {
	d, err := state.Read(specStateKey)
	return err == nil && d.(*cycleSpec).narrowed
}

// SpecFromCycleState returns the gang spec MusterGang's PreFilter resolved
// for this cycle's pod, so plugins that run after it (MusterTopology) read
// the gang's asks without resolving them again. ok is false for a pod that
// is not a gang member or whose spec is bad input.
func SpecFromCycleState(state fwk.CycleState) (spec gang.Spec, ok bool) {
	if cs := cycleOf(state); cs != nil {
		return cs.spec, true
	}
	return gang.Spec{}, false
}

// attemptOf is the token of the attempt this cycle's member took part in;
// a cycle whose PreFilter started none saw no change.
func (pl *Gang) attemptOf(state fwk.CycleState, key gang.Key) uint64 {
	if cs := cycleOf(state); cs != nil {
		return cs.attempt
	}
	return pl.tracker.Attempt(key)
}

// cycleOf is what MusterGang's PreFilter recorded for this cycle, nil if
// it recorded nothing.
func cycleOf(state fwk.CycleState) *cycleSpec {
	d, err := state.Read(specStateKey)
	if err != nil {
		return nil
	}
	return d.(*cycleSpec)
}

// StoreSpec records spec as the cycle's gang spec, as PreFilter does. Plugins
// that read SpecFromCycleState use it in tests that run without MusterGang.
func StoreSpec(state fwk.CycleState, spec gang.Spec) {
	state.Write(specStateKey, &cycleSpec{spec: spec})
}

// specFor returns the spec PreFilter resolved in this cycle, resolving it
// only when PreFilter did not (an ordinary pod, or bad gang input).
func (pl *Gang) specFor(state fwk.CycleState, pod *v1.Pod) (gang.Spec, bool, error) {
	if d, err := state.Read(specStateKey); err == nil {
		return d.(*cycleSpec).spec, true, nil
	}
	return pl.resolve(pod)
}

// members lists a gang's pods as the informer sees them.
func (pl *Gang) members(key gang.Key) []*v1.Pod {
	objs, err := pl.pods.ByIndex(GangIndex, key.String())
	if err != nil {
		return nil
	}
	pods := make([]*v1.Pod, 0, len(objs))
	for _, o := range objs {
		if p, ok := o.(*v1.Pod); ok {
			pods = append(pods, p)
		}
	}
	return pods
}

// resolve finds the gang a pod belongs to and its effective spec. isGang is
// false for ordinary pods. A non-nil error is bad input, already naming the
// object and field.
func (pl *Gang) resolve(pod *v1.Pod) (spec gang.Spec, isGang bool, err error) {
	spec, _, isGang, err = pl.resolveMembers(pod, false)
	return spec, isGang, err
}

// resolveMembers is resolve that also returns the gang's members (with
// listMembers, or when a CRD-free gang's spec needed them), so a caller
// that counts them next lists a big gang once, not twice, per member.
func (pl *Gang) resolveMembers(pod *v1.Pod, listMembers bool) (spec gang.Spec, members []*v1.Pod, isGang bool, err error) {
	key, source, isGang, err := gang.GroupOf(pod)
	if !isGang || err != nil {
		return gang.Spec{Key: key}, nil, err != nil, err
	}
	if listMembers || source == gang.SourceLabels {
		members = pl.members(key)
	}
	switch source {
	case gang.SourcePodGroup:
		spec, err = pl.podGroupSpec(pod, key)
	case gang.SourceWorkload:
		spec, err = pl.workloadSpec(pod, key)
	default:
		spec, err = pl.labelSpec(pod, key, members)
	}
	if err != nil {
		return gang.Spec{Key: key, Source: source}, members, true, err
	}
	pl.gangSince.Store(key, pl.created(spec))
	return spec, members, true, nil
}

func (pl *Gang) podGroupSpec(pod *v1.Pod, key gang.Key) (gang.Spec, error) {
	field := "metadata.labels[" + gang.PodGroupLabel + "]"
	if pl.podGroups == nil {
		return gang.Spec{}, &gang.FieldError{Object: "Pod " + pod.Namespace + "/" + pod.Name, Field: field,
			Detail: "names PodGroup " + key.Name + " but the PodGroup CRD (scheduling.x-k8s.io/v1alpha1) was not served when muster-scheduler started; install manifests/crds and restart it, or use the " + gang.GroupLabel + " label"}
	}
	pg, err := pl.podGroups.PodGroups(key.Namespace).Get(key.Name)
	if apierrors.IsNotFound(err) {
		return gang.Spec{}, &gang.FieldError{Object: "Pod " + pod.Namespace + "/" + pod.Name, Field: field,
			Detail: "PodGroup " + key.String() + " does not exist"}
	}
	if err != nil {
		return gang.Spec{}, err
	}
	return gang.SpecFromPodGroup(pg, pl.defaults)
}

// labelSpec reads a CRD-free gang's spec. The oldest member sets the gang's
// spec; any member whose annotations disagree with it is bad input.
func (pl *Gang) labelSpec(pod *v1.Pod, key gang.Key, members []*v1.Pod) (gang.Spec, error) {
	own, err := gang.SpecFromPod(pod, key, pl.defaults)
	if err != nil {
		return gang.Spec{}, err
	}
	ref := pod
	if oldest := oldestLive(members); oldest != nil && olderPod(oldest, ref) {
		ref = oldest
	}
	if ref == pod {
		return own, nil
	}
	refSpec, err := gang.SpecFromPod(ref, key, pl.defaults)
	if err != nil {
		return gang.Spec{}, fmt.Errorf("gang %s takes its spec from its oldest member: %w", key, err)
	}
	if !own.Agrees(refSpec) {
		return gang.Spec{}, gang.Disagreement(pod, own, refSpec, "Pod "+ref.Namespace+"/"+ref.Name)
	}
	return refSpec, nil
}

// oldestLive returns a gang's oldest live member, nil if none.
func oldestLive(members []*v1.Pod) *v1.Pod {
	var oldest *v1.Pod
	for _, m := range members {
		if gang.Live(m) && (oldest == nil || olderPod(m, oldest)) {
			oldest = m
		}
	}
	return oldest
}

func olderPod(a, b *v1.Pod) bool {
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	}
	return a.Name < b.Name
}

// PreEnqueue is the quorum gate: members of a gang with fewer than min
// members, or of a gang already at max, wait gated, neither retried in a loop
// nor reported Unschedulable (so no autoscaler scales for them).
func (pl *Gang) PreEnqueue(ctx context.Context, pod *v1.Pod) *fwk.Status {
	spec, members, isGang, err := pl.resolveMembers(pod, true)
	if !isGang {
		return nil
	}
	if err != nil {
		pl.status.invalid(spec.Key, pod, err)
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, err.Error())
	}
	counts := pl.tracker.Count(spec.Key, members, "")
	verdict, msg := spec.Admit(counts)
	pl.status.touch(spec.Key)
	if verdict == gang.Admit {
		pl.status.admitted(pod.UID)
		return nil
	}
	pl.status.gated(pod, msg)
	return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, msg)
}

// Less orders the queue by priority, then gang age, keeping a gang's members together.
func (pl *Gang) Less(a, b fwk.QueuedEntityInfo) bool {
	return gang.Less(pl.queueKey(a), pl.queueKey(b))
}

func (pl *Gang) queueKey(e fwk.QueuedEntityInfo) gang.QueueKey {
	k := gang.QueueKey{Priority: e.GetPriority(), Since: e.GetTimestamp(), Enqueued: e.GetTimestamp()}
	pi, ok := e.(interface{ GetPodInfo() fwk.PodInfo })
	if !ok {
		return k
	}
	pod := pi.GetPodInfo().GetPod()
	k.Namespace, k.Name = pod.Namespace, pod.Name
	if pl.ageFromFirstSeen {
		// On a trace clock the queue's stamps are wall time: pods a step
		// let in together would go in whatever order they were
		// activated, so they go by name.
		k.Enqueued = time.Time{}
	}
	key, _, isGang, err := gang.GroupOf(pod)
	if !isGang || err != nil {
		// On a trace clock a gang's age is trace time (created), so a
		// lone pod's is too: the queue's own stamps are wall time.
		if seen, ok := pl.loneSeen.Load(pod.UID); ok {
			k.Since = seen.(time.Time)
		}
		return k
	}
	k.Gang = key.String()
	if since, ok := pl.gangSince.Load(key); ok {
		k.Since = since.(time.Time)
	}
	return k
}

// PreFilter fails fast for a gang that is backing off, and, when a gang's
// attempt starts, checks once that the cluster has room for the whole quorum,
// every member shape of it at the same time (capacity.Pack), so no member
// reserves anything for a gang that cannot fit.
func (pl *Gang) PreFilter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	pl.leading.Scheduling()
	spec, members, isGang, err := pl.resolveMembers(pod, true)
	if !isGang {
		return nil, fwk.NewStatus(fwk.Skip)
	}
	if err != nil {
		pl.status.invalid(spec.Key, pod, err)
		return nil, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, err.Error())
	}
	cs := &cycleSpec{spec: spec}
	state.Write(specStateKey, cs)
	if reason, left, backingOff := pl.tracker.BackingOff(spec.Key); backingOff {
		cs.failed = true // not attempted: PostFilter has nothing to fail
		return nil, fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("%s (retrying in %s)", reason, left.Round(time.Second)))
	}
	cs.attempt = pl.tracker.Attempt(spec.Key)
	// Room the capacity plan holds for gangs served first is not this
	// member's: Filter keeps it off, and the room check leaves it out.
	held := pl.plan(ctx, nodes).Ahead(spec.Key.String())
	counts := pl.tracker.Count(spec.Key, members, pod.UID)
	// Spot nodes matter only to members that tolerate their taint. A member
	// is above min once the quorum is placed or holds its reservations.
	spot := ""
	if capacity.TolerateSpot(pod) {
		spot = capacity.SpotRule(counts.Placed+counts.Waiting < int(spec.MinMember), spec.SpotExtras)
	}
	if !held.Empty() || spot != "" {
		state.Write(heldStateKey, &heldState{held: held, shape: capacity.DemandShape(pod, config.DefaultGPUResourceName), spot: spot})
	}
	_, wide := pl.wideOnce.LoadAndDelete(pod.UID)
	cs.mayNarrow = held.Empty() && !wide
	if spec.QuorumPlaced(counts) || counts.Waiting > 0 {
		return nil, nil
	}
	need := int64(spec.MinMember) - int64(counts.Placed)
	quorum := capacity.QuorumOf(need, unplaced(members), pod, config.DefaultGPUResourceName)
	logger := klog.FromContext(ctx)
	rooms := pl.rooms.Rooms(nodes)
	if packing := capacity.PackAround(logger, quorum, rooms, nil, held); !packing.Fits() {
		msg := fmt.Sprintf("gang %s needs %d more members placed at once (min %d, %d placed: %s); the cluster has room for %d members, none for %s",
			spec.Key, need, spec.MinMember, counts.Placed, quorum, need-packing.Short.Members(), packing.Short)
		if !held.Empty() && capacity.Pack(logger, quorum, rooms, nil).Fits() {
			msg += " (room is held for gangs ahead in the capacity plan: higher priority, or older)"
		}
		if did := pl.makeRoom(ctx, spec, pod, quorum, rooms); did != "" {
			msg += "; " + did
		}
		pl.roomShort.Store(spec.Key, true)
		cs.failed = true
		pl.fail(ctx, spec.Key, msg, cs.attempt)
		return nil, fwk.NewStatus(fwk.Unschedulable, msg)
	}
	return nil, nil
}

// unplaced lists a gang's live members that have no node yet.
func unplaced(members []*v1.Pod) []*v1.Pod {
	out := make([]*v1.Pod, 0, len(members))
	for _, m := range members {
		if m.Spec.NodeName == "" && gang.Live(m) {
			out = append(out, m)
		}
	}
	return out
}

// SignPod refuses batching for gang members: Filter keeps them off room the
// capacity plan holds, which depends on the member's gang, not its spec.
// Other pods add nothing to their signature.
func (pl *Gang) SignPod(_ context.Context, pod *v1.Pod) ([]fwk.SignFragment, *fwk.Status) {
	if _, _, isGang, _ := gang.GroupOf(pod); isGang {
		return nil, fwk.NewStatus(fwk.Unschedulable, "a gang member's nodes depend on the capacity plan of its gang")
	}
	return nil, nil
}

// PreFilterExtensions is nil: the plugin has no Filter to update incrementally.
func (pl *Gang) PreFilterExtensions() fwk.PreFilterExtensions { return nil }

// PostFilter runs when a member fits no node. Before the quorum is placed that
// fails the whole attempt: every waiting member is rejected so nothing stays
// reserved, and the gang backs off.
func (pl *Gang) PostFilter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, statuses fwk.NodeToStatusReader) (*fwk.PostFilterResult, *fwk.Status) {
	spec, isGang, err := pl.specFor(state, pod)
	if !isGang || err != nil {
		return nil, fwk.NewStatus(fwk.Unschedulable)
	}
	// The framework also runs PostFilter when PreFilter failed; a gang this
	// plugin already failed (in this cycle, or one that backs off) must not
	// be failed again.
	cs := cycleOf(state)
	if cs != nil && cs.failed {
		return nil, fwk.NewStatus(fwk.Unschedulable, pl.tracker.LastFailure(spec.Key))
	}
	if reason, _, backingOff := pl.tracker.BackingOff(spec.Key); backingOff {
		return nil, fwk.NewStatus(fwk.Unschedulable, reason)
	}
	if NarrowedCycle(state) {
		// Only the gang's own nodes were tried: try every node at once,
		// before failing the gang's attempt. The member is in flight, so
		// the queue brings it back as soon as this cycle ends.
		pl.wideOnce.Store(pod.UID, struct{}{})
		pl.handle.Activate(klog.FromContext(ctx), map[string]*v1.Pod{pod.Namespace + "/" + pod.Name: pod})
		return nil, fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("gang %s: member %s fits none of the nodes holding its gang's members; trying every node", spec.Key, pod.Name))
	}
	counts := pl.tracker.Count(spec.Key, pl.members(spec.Key), pod.UID)
	if spec.QuorumPlaced(counts) {
		return nil, fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("gang %s has its quorum; elastic member waits for room", spec.Key))
	}
	why, roomShort := pl.whyNoNode(statuses)
	msg := fmt.Sprintf("gang %s could not place its quorum: member %s fits no node (%d of min %d placed, %d holding reservations released)%s",
		spec.Key, pod.Name, counts.Placed, spec.MinMember, counts.Waiting, why)
	// A gang short of room stays in the capacity plan, which may hold room
	// for it; one that failed for another reason (GPU class, affinity) is
	// left out until an attempt fails for room.
	pl.roomShort.Store(spec.Key, roomShort)
	// Release this attempt's reservations before counting room to make.
	pl.fail(ctx, spec.Key, msg, pl.attemptOf(state, spec.Key))
	if nodes, err := pl.handle.SnapshotSharedLister().NodeInfos().List(); err == nil {
		members := pl.members(spec.Key)
		counts := pl.tracker.Count(spec.Key, members, "")
		quorum := capacity.QuorumOf(int64(spec.MinMember)-int64(counts.Placed), unplaced(members), pod, config.DefaultGPUResourceName)
		if did := pl.makeRoom(ctx, spec, pod, quorum, pl.rooms.Rooms(nodes)); did != "" {
			msg += "; " + did
		}
	}
	return nil, fwk.NewStatus(fwk.Unschedulable, msg)
}

// whyNoNode sums up why nodes rejected the member, most common reason first,
// so the gang's status says more than "fits no node", and says whether room
// is what the member lacked: some node rejected it for room alone
// (capacity.IsRoomReason). It runs once per failed attempt, not per member.
func (pl *Gang) whyNoNode(statuses fwk.NodeToStatusReader) (summary string, roomShort bool) {
	if statuses == nil {
		return "", false
	}
	nodes, err := pl.handle.SnapshotSharedLister().NodeInfos().List()
	if err != nil || len(nodes) == 0 {
		return "", false
	}
	count := map[string]int{}
	for _, ni := range nodes {
		st := statuses.Get(ni.Node().Name)
		if st == nil || st.IsSuccess() {
			continue
		}
		roomOnly := len(st.Reasons()) > 0
		for _, r := range st.Reasons() {
			count[r]++
			roomOnly = roomOnly && capacity.IsRoomReason(r)
		}
		roomShort = roomShort || roomOnly
	}
	return ": " + gang.SummarizeReasons(count, len(nodes)), roomShort
}

// created is when the gang's age starts: its creation, or on a trace clock
// when the plugin first saw it (creation stamps are wall time).
func (pl *Gang) created(spec gang.Spec) time.Time {
	if !pl.ageFromFirstSeen {
		return spec.Created
	}
	at, _ := pl.firstSeen.LoadOrStore(spec.Key, pl.clock.Now())
	return at.(time.Time)
}

// seen starts a gang's age on a trace clock when its first member appears.
func (pl *Gang) seen(o any) {
	if !pl.ageFromFirstSeen {
		return
	}
	if p, ok := o.(*v1.Pod); ok {
		if key, _, isGang, err := gang.GroupOf(p); isGang && err == nil {
			pl.firstSeen.LoadOrStore(key, pl.clock.Now())
		} else if !isGang && p.Spec.NodeName == "" {
			pl.loneSeen.LoadOrStore(p.UID, pl.clock.Now())
		}
	}
}

// fail ends a gang's attempt (token attempt): reject every waiting member,
// back off, and wake the gang when the backoff ends; when the cluster
// changed while the attempt ran, the change requeues it instead
// (gang.WakeByEvent).
func (pl *Gang) fail(ctx context.Context, key gang.Key, msg string, attempt uint64) {
	logger := klog.FromContext(ctx)
	reject, wake := pl.tracker.Fail(key, msg, pl.backoff, attempt)
	logger.V(2).Info("Gang attempt failed", "gang", key, "backoff", wake != gang.WakeByEvent, "reason", msg)
	for _, uid := range reject {
		if wp := pl.handle.GetWaitingPod(uid); wp != nil {
			wp.Reject(Name, msg)
		}
	}
	pl.status.touch(key)
	if wake == gang.WakeAfterBackoff {
		pl.wakeAfterBackoff(logger, key, pl.backoff)
	}
}

// wakeAfterBackoff starts the gang's next attempt once its backoff has
// ended. A failure while the timer runs pushes the backoff out; waking the
// gang at the first deadline would only have it rejected again, and nothing
// would wake it after. Whether a wake is armed is the tracker's to say
// (Fail, WakeDue), under its lock, so none is lost between a check and a
// failure.
//
// One member is woken, not all: the attempt's first member checks the room
// for the whole quorum in PreFilter, and once it waits at Permit it brings
// the others forward (Permit). A gang that still does not fit is rejected
// in one scheduling cycle instead of one per member, which is what a
// backlog of gangs too big for the cluster costs on every backoff.
func (pl *Gang) wakeAfterBackoff(logger klog.Logger, key gang.Key, d time.Duration) {
	pl.clock.AfterFunc(d, func() {
		if left, due := pl.tracker.WakeDue(key); !due {
			pl.wakeAfterBackoff(logger, key, left)
			return
		}
		if first := firstUnplaced(pl.members(key)); first != nil {
			pl.handle.Activate(logger, map[string]*v1.Pod{first.Namespace + "/" + first.Name: first})
		}
	})
}

// firstUnplaced is the oldest live member without a node (olderPod), nil
// if there is none: the same member leads each attempt.
func firstUnplaced(members []*v1.Pod) *v1.Pod {
	var first *v1.Pod
	for _, m := range members {
		if m.Spec.NodeName == "" && gang.Live(m) && (first == nil || olderPod(m, first)) {
			first = m
		}
	}
	return first
}

// activate moves a gang's unplaced members to the active queue.
func (pl *Gang) activate(logger klog.Logger, key gang.Key, except types.UID) {
	pods := map[string]*v1.Pod{}
	for _, m := range pl.members(key) {
		if m.Spec.NodeName == "" && m.UID != except && gang.Live(m) {
			pods[m.Namespace+"/"+m.Name] = m
		}
	}
	if len(pods) > 0 {
		pl.handle.Activate(logger, pods)
	}
}

// Permit holds members until min of them (counting bound ones) have nodes,
// then lets them all bind at once; elastic members beyond min bind directly.
func (pl *Gang) Permit(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodeName string) (*fwk.Status, time.Duration) {
	spec, isGang, err := pl.specFor(state, pod)
	if !isGang {
		return nil, 0
	}
	if err != nil {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, err.Error()), 0
	}
	defer pl.status.touch(spec.Key)
	counts := pl.tracker.Count(spec.Key, pl.members(spec.Key), pod.UID)
	switch spec.Permit(counts) {
	case gang.PermitRejectOverMax:
		// Two members passed the gate together and the other took the last
		// slot. This one waits like any member beyond max: shown as gated, not
		// Unschedulable, so no autoscaler adds nodes for it.
		_, msg := spec.Admit(gang.Counts{Members: counts.Members + 1, Placed: counts.Placed})
		pl.status.gated(pod, msg)
		return fwk.NewStatus(fwk.Unschedulable, msg), 0
	case gang.PermitBind:
		pl.tracker.PermitAll(spec.Key, pod.UID)
		return nil, 0
	case gang.PermitBindAll:
		// The quorum is placed: room made for it is no longer being made,
		// and the capacity plan holds none for it any more.
		ReportCondition(pl.handle, spec.Key, metav1.Condition{Type: gang.ConditionPreempting})
		pl.planCache.invalidate()
		for _, uid := range pl.tracker.PermitAll(spec.Key, pod.UID) {
			if wp := pl.handle.GetWaitingPod(uid); wp != nil {
				wp.Allow(Name)
			}
		}
		return nil, 0
	}
	first := pl.tracker.Wait(spec.Key, pod.UID)
	if counts.Waiting == 0 {
		// The gang's attempt starts: bring members sitting out a backoff
		// forward once, rather than once per waiting member.
		pl.activate(klog.FromContext(ctx), spec.Key, pod.UID)
	}
	return fwk.NewStatus(fwk.Wait, fmt.Sprintf("gang %s: waiting for %d more members to be placed", spec.Key, int(spec.MinMember)-counts.Placed-counts.Waiting-1)),
		spec.Remaining(first, pl.clock.Now())
}

// Reserve has nothing to hold beyond what Permit tracks.
func (pl *Gang) Reserve(context.Context, fwk.CycleState, *v1.Pod, string) *fwk.Status { return nil }

// Unreserve runs when a member loses its node. A member still waiting at
// Permit (timed out or rejected) fails the gang's attempt, releasing every
// reservation. A permitted member that failed to bind only returns to the
// queue: its siblings may already be bound, and the bound ones still count.
func (pl *Gang) Unreserve(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodeName string) {
	key, _, isGang, err := gang.GroupOf(pod)
	if !isGang || err != nil {
		return
	}
	wasWaiting, since := pl.tracker.Release(key, pod.UID)
	if !wasWaiting {
		return
	}
	spec, _, err := pl.resolve(pod)
	if err != nil {
		pl.fail(ctx, key, err.Error(), pl.attemptOf(state, key))
		return
	}
	counts := pl.tracker.Count(key, pl.members(key), pod.UID)
	if spec.QuorumPlaced(counts) {
		return
	}
	msg := fmt.Sprintf("gang %s could not place its quorum: member %s lost its reservation (%d of min %d placed)", key, pod.Name, counts.Placed, spec.MinMember)
	if !since.IsZero() && pl.clock.Since(since) >= spec.Timeout {
		msg = fmt.Sprintf("gang %s could not place its quorum within its %s timeout (%d of min %d placed, %d waited)", key, spec.Timeout, counts.Placed, spec.MinMember, counts.Waiting+1)
	}
	pl.fail(ctx, key, msg, pl.attemptOf(state, key))
}

// PostBind refreshes the gang's status.
func (pl *Gang) PostBind(_ context.Context, _ fwk.CycleState, pod *v1.Pod, _ string) {
	if key, _, isGang, _ := gang.GroupOf(pod); isGang {
		pl.status.touch(key)
	}
}

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

// quorumArrived wakes a gang's gated members when a new member completes its
// quorum. The framework only turns unscheduled pod additions into queue events
// with the GenericWorkload feature, so the gate is lifted here instead.
func (pl *Gang) quorumArrived(ctx context.Context, obj any) {
	pod, ok := obj.(*v1.Pod)
	if !ok || pod.Spec.NodeName != "" {
		return
	}
	spec, members, isGang, err := pl.resolveMembers(pod, true)
	if !isGang || err != nil {
		return
	}
	counts := pl.tracker.Count(spec.Key, members, "")
	if counts.Members < int(spec.MinMember) {
		pl.quorate.Delete(spec.Key)
		return
	}
	if _, done := pl.quorate.LoadOrStore(spec.Key, struct{}{}); !done {
		// A new quorum takes its place in the capacity plan at once: in a
		// plan made before it, it would stand behind every gang.
		pl.planCache.arrived(capacity.Waiting{Key: spec.Key.String(), Priority: corev1helpers.PodPriority(pod), Since: pl.created(spec)})
		pl.activate(klog.FromContext(ctx), spec.Key, pod.UID)
	}
}
