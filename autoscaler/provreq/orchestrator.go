// Orchestrator: scale-ups for a request's pods, all or nothing, and its Provisioned/Failed condition.

package provreq

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apiv1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/autoscaler/cluster-autoscaler/cloudprovider"
	"k8s.io/autoscaler/cluster-autoscaler/clusterstate"
	ca_context "k8s.io/autoscaler/cluster-autoscaler/context"
	"k8s.io/autoscaler/cluster-autoscaler/core/scaleup"
	"k8s.io/autoscaler/cluster-autoscaler/core/scaleup/orchestrator"
	"k8s.io/autoscaler/cluster-autoscaler/estimator"
	"k8s.io/autoscaler/cluster-autoscaler/observers/nodegroupchange"
	ca_processors "k8s.io/autoscaler/cluster-autoscaler/processors"
	"k8s.io/autoscaler/cluster-autoscaler/processors/status"
	"k8s.io/autoscaler/cluster-autoscaler/simulator"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/framework"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/scheduling"
	ca_errors "k8s.io/autoscaler/cluster-autoscaler/utils/errors"
	"k8s.io/autoscaler/cluster-autoscaler/utils/taints"
	"k8s.io/klog/v2"

	v1 "github.com/muster-project/muster/autoscaler/provreq/apis/v1"
)

// Orchestrator is the core's scale-up orchestrator with ProvisioningRequest
// support. Each loop it serves every request the Injector brought, in the
// order their gangs are served (priority, then age), then the ordinary
// pending pods: a request's pods get one all-or-nothing scale-up of one
// pool (upstream's best-effort-atomic class), the room existing nodes have
// for it is kept from the requests and pods after it, and a request that
// cannot be served holds up neither. The requests' scale-ups are held and
// each pool is written once for all of them (poolBatch). Upstream's
// WrapperOrchestrator serves one request or the ordinary pods per loop, so
// a burst of gangs waited a loop each.
type Orchestrator struct {
	client *Client
	now    func() time.Time

	ctx    *ca_context.AutoscalingContext
	pods   scaleup.Orchestrator
	atomic scaleup.Orchestrator
	sim    *scheduling.HintingSimulator
	batch  *poolBatch
	// notifier is the core's: the combined writes' outcomes go to it.
	notifier *nodegroupchange.NodeGroupChangeObserversList
	// failed lists the requests (namespace/name) this loop's scale-up
	// failed (Failed=True).
	failed []string
}

// NewOrchestrator returns an Orchestrator on wall time.
func NewOrchestrator(c *Client) *Orchestrator { return NewOrchestratorOn(c, time.Now) }

// NewOrchestratorOn returns an Orchestrator stamping conditions by now: the
// loop's clock (muster simulate's trace clock under --clock-url).
func NewOrchestratorOn(c *Client, now func() time.Time) *Orchestrator {
	return &Orchestrator{client: c, now: now, pods: orchestrator.New(), atomic: orchestrator.New(), sim: scheduling.NewHintingSimulator(), batch: newPoolBatch()}
}

// Initialize implements scaleup.Orchestrator.
func (o *Orchestrator) Initialize(ctx *ca_context.AutoscalingContext, processors *ca_processors.AutoscalingProcessors,
	csr *clusterstate.ClusterStateRegistry, eb estimator.EstimatorBuilder, tc taints.TaintConfig) {
	o.ctx = ctx
	o.pods.Initialize(ctx, processors, csr, eb, tc)
	// The requests' executor reports to the batch's notifier, which holds
	// back the registration of increases the batch holds until they are
	// written.
	atomicProcs := processors
	if processors != nil && processors.ScaleStateNotifier != nil {
		o.notifier = processors.ScaleStateNotifier
		p := *processors
		p.ScaleStateNotifier = nodegroupchange.NewNodeGroupChangeObserversList()
		p.ScaleStateNotifier.Register(&batchNotifier{next: processors.ScaleStateNotifier})
		atomicProcs = &p
	}
	o.atomic.Initialize(ctx, atomicProcs, csr, eb, tc)
}

// ScaleUpToNodeGroupMinSize implements scaleup.Orchestrator.
func (o *Orchestrator) ScaleUpToNodeGroupMinSize(nodes []*apiv1.Node, nodeInfos map[string]*framework.NodeInfo) (*status.ScaleUpStatus, ca_errors.AutoscalerError) {
	return o.pods.ScaleUpToNodeGroupMinSize(nodes, nodeInfos)
}

// ScaleUp implements scaleup.Orchestrator.
func (o *Orchestrator) ScaleUp(pending []*apiv1.Pod, nodes []*apiv1.Node, daemonSets []*appsv1.DaemonSet,
	nodeInfos map[string]*framework.NodeInfo, allOrNothing bool) (*status.ScaleUpStatus, ca_errors.AutoscalerError) {
	reqPods, regular := splitOut(pending)
	if len(reqPods) == 0 {
		o.ctx.ProvisioningRequestScaleUpMode = false
		return o.pods.ScaleUp(regular, nodes, daemonSets, nodeInfos, allOrNothing)
	}
	// What the requests take of existing room stays in the snapshot for
	// the requests and pods after them, and only for this scale-up: the
	// loop's scale-down sees the snapshot as it was.
	snap := o.ctx.ClusterSnapshot
	o.failed = nil
	defer o.releaseRoom() // after the Revert below: on the loop's snapshot
	snap.Fork()
	defer snap.Revert()
	var all *status.ScaleUpStatus
	var errs []ca_errors.AutoscalerError
	requests, scaled := byRequest(reqPods), 0
	add := func(st *status.ScaleUpStatus, err ca_errors.AutoscalerError) {
		all = mergeStatus(all, st)
		if err != nil {
			errs = append(errs, err)
		}
		if st != nil && st.Result == status.ScaleUpSuccessful {
			scaled++
		}
	}
	// Each request's scale-up is held in the batch; the pools are written
	// after the last request, once each, then every request learns how its
	// pool's write went.
	held := o.serveRequests(requests, nodes, daemonSets, nodeInfos, add)
	writes := o.batch.end()
	failed := o.writePools(writes, nodeInfos)
	for _, h := range held {
		add(o.settle(h, failed, nodes))
	}
	regularScaled, regularWrites := false, 0
	if len(regular) > 0 {
		st, err := o.pods.ScaleUp(regular, nodes, daemonSets, nodeInfos, allOrNothing)
		all = mergeStatus(all, st)
		if err != nil {
			errs = append(errs, err)
		}
		regularScaled = st != nil && st.Result == status.ScaleUpSuccessful
		regularWrites = executorWrites(st)
	}
	klog.V(1).InfoS("Served this loop's ProvisioningRequests and pending pods", "requests", len(requests), "requestsScaledUp", scaled,
		"pendingPods", len(regular), "pendingPodsScaledUp", regularScaled,
		"requestPoolWrites", len(writes), "poolWrites", len(writes)+regularWrites)
	if len(errs) > 0 && all.Result != status.ScaleUpSuccessful {
		// Nothing was scaled up: the loop's scale-up failed. Where something
		// was, the failures are in the requests' conditions and the log.
		return all, errs[0]
	}
	for _, err := range errs {
		klog.ErrorS(err, "A scale-up of this loop failed; the others went ahead")
	}
	return all, nil
}

// serveRequests serves each request with the batch open: the core's
// scale-ups of this loop's requests go to the batch, not to the pools. It
// returns the requests whose scale-up waits for its pool's write, in
// order; the others' outcomes go to add.
func (o *Orchestrator) serveRequests(requests [][]*apiv1.Pod, nodes []*apiv1.Node, daemonSets []*appsv1.DaemonSet,
	nodeInfos map[string]*framework.NodeInfo, add func(*status.ScaleUpStatus, ca_errors.AutoscalerError)) []*heldScaleUp {
	cp := o.ctx.CloudProvider
	o.batch.begin()
	o.ctx.CloudProvider = &batchedProvider{CloudProvider: cp, b: o.batch}
	o.ctx.ProvisioningRequestScaleUpMode = true
	defer func() {
		o.ctx.CloudProvider = cp
		o.ctx.ProvisioningRequestScaleUpMode = false
	}()
	var held []*heldScaleUp
	for _, pods := range requests {
		st, err, h := o.provision(pods, nodes, daemonSets, nodeInfos)
		if h != nil {
			held = append(held, h)
			continue
		}
		add(unwrapStatus(st), err)
	}
	return held
}

// heldScaleUp is a request whose scale-up the batch holds: what it needs
// to be recorded provisioned once its pool is written, or to be let go.
type heldScaleUp struct {
	pr          *v1.ProvisioningRequest
	log         klog.Logger
	st          *status.ScaleUpStatus // the core's, groups unwrapped
	before      map[string]map[string]bool
	total, rest int
	// placed are its pods put on existing room in the loop's snapshot.
	placed []scheduling.Status
}

// settle ends a held request's scale-up by its pool's write: provisioned
// and its instances recorded, or, when the write failed, the error in its
// Provisioned condition, as a failed scale-up of its own gives it, and its
// pods off the existing room the snapshot gave them.
func (o *Orchestrator) settle(h *heldScaleUp, failed map[string]ca_errors.AutoscalerError, nodes []*apiv1.Node) (*status.ScaleUpStatus, ca_errors.AutoscalerError) {
	var aerr ca_errors.AutoscalerError
	var groups []cloudprovider.NodeGroup
	for _, info := range h.st.ScaleUpInfos {
		groups = append(groups, info.Group)
		if e, ok := failed[info.Group.Id()]; ok && aerr == nil {
			aerr = e
		}
	}
	if aerr == nil {
		o.recordScaleUp(h.log, h.pr, h.st, o.ctx.CloudProvider.NodeGroups(), h.before, nodes)
		o.write(h.log, h.pr, v1.Provisioned, metav1.ConditionTrue, ReasonCapacityIsProvisioned, provisionedMessage(h.st, h.total, h.total-h.rest))
		return h.st, nil
	}
	snap := o.ctx.ClusterSnapshot
	for _, s := range h.placed {
		if err := snap.UnschedulePod(s.Pod.Namespace, s.Pod.Name, s.NodeName); err != nil {
			h.log.Error(err, "Could not take a pod of a request whose scale-up failed off the loop's snapshot", "pod", klog.KObj(s.Pod), "node", s.NodeName)
		}
	}
	o.write(h.log, h.pr, v1.Provisioned, metav1.ConditionFalse, ReasonCapacityIsNotFound,
		fmt.Sprintf("scale-up for %s failed: %v; will retry", countPods(h.rest), aerr))
	return status.UpdateScaleUpError(&status.ScaleUpStatus{
		FailedResizeNodeGroups: groups,
		PodsTriggeredScaleUp:   h.st.PodsTriggeredScaleUp,
	}, aerr)
}

// unwrapStatus is st with the provider's own node groups in place of the
// batch's, for what reads the loop's status after the batch is closed.
func unwrapStatus(st *status.ScaleUpStatus) *status.ScaleUpStatus {
	if st == nil {
		return nil
	}
	out := *st
	out.ScaleUpInfos = slices.Clone(st.ScaleUpInfos)
	for i := range out.ScaleUpInfos {
		out.ScaleUpInfos[i].Group = unwrap(out.ScaleUpInfos[i].Group)
	}
	out.ConsideredNodeGroups = slices.Clone(st.ConsideredNodeGroups)
	for i := range out.ConsideredNodeGroups {
		out.ConsideredNodeGroups[i] = unwrap(out.ConsideredNodeGroups[i])
	}
	out.FailedResizeNodeGroups = slices.Clone(st.FailedResizeNodeGroups)
	for i := range out.FailedResizeNodeGroups {
		out.FailedResizeNodeGroups[i] = unwrap(out.FailedResizeNodeGroups[i])
	}
	return &out
}

// executorWrites is how many pool writes the core's executor made for a
// scale-up: one per pool grown, or those it tried when one failed.
func executorWrites(st *status.ScaleUpStatus) int {
	if st == nil {
		return 0
	}
	if st.Result == status.ScaleUpSuccessful {
		return len(st.ScaleUpInfos)
	}
	return len(st.FailedResizeNodeGroups)
}

// byRequest groups the pods of requests by request, in the order they
// come (the Injector's: the order their gangs are served).
func byRequest(reqPods []*apiv1.Pod) [][]*apiv1.Pod {
	var order []string
	groups := map[string][]*apiv1.Pod{}
	for _, p := range reqPods {
		name, _ := ConsumedRequest(p)
		key := p.Namespace + "/" + name
		if _, ok := groups[key]; !ok {
			order = append(order, key)
		}
		groups[key] = append(groups[key], p)
	}
	out := make([][]*apiv1.Pod, 0, len(order))
	for _, key := range order {
		out = append(out, groups[key])
	}
	return out
}

// mergeStatus is the status of a loop that ran the scale-ups of a and b:
// successful if either was, else the more telling of the two results.
func mergeStatus(a, b *status.ScaleUpStatus) *status.ScaleUpStatus {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	out := *a
	if resultRank(b.Result) < resultRank(a.Result) {
		out.Result, out.ScaleUpError = b.Result, b.ScaleUpError
	}
	out.ScaleUpInfos = append(slices.Clone(a.ScaleUpInfos), b.ScaleUpInfos...)
	out.PodsTriggeredScaleUp = append(slices.Clone(a.PodsTriggeredScaleUp), b.PodsTriggeredScaleUp...)
	out.PodsRemainUnschedulable = append(slices.Clone(a.PodsRemainUnschedulable), b.PodsRemainUnschedulable...)
	out.PodsAwaitEvaluation = append(slices.Clone(a.PodsAwaitEvaluation), b.PodsAwaitEvaluation...)
	out.CreateNodeGroupResults = append(slices.Clone(a.CreateNodeGroupResults), b.CreateNodeGroupResults...)
	out.ConsideredNodeGroups = append(slices.Clone(a.ConsideredNodeGroups), b.ConsideredNodeGroups...)
	out.FailedCreationNodeGroups = append(slices.Clone(a.FailedCreationNodeGroups), b.FailedCreationNodeGroups...)
	out.FailedResizeNodeGroups = append(slices.Clone(a.FailedResizeNodeGroups), b.FailedResizeNodeGroups...)
	return &out
}

// resultRank orders scale-up results for mergeStatus: a scale-up that
// happened first, then an error, then the reasons none was needed or tried.
func resultRank(r status.ScaleUpResult) int {
	switch r {
	case status.ScaleUpSuccessful:
		return 0
	case status.ScaleUpError:
		return 1
	case status.ScaleUpNoOptionsAvailable:
		return 2
	case status.ScaleUpLimitedByMaxNodesTotal:
		return 3
	case status.ScaleUpInCooldown:
		return 4
	case status.ScaleUpNotNeeded:
		return 5
	}
	return 6
}

// splitOut separates the pods of requests from ordinary pods.
func splitOut(pending []*apiv1.Pod) (reqPods, regular []*apiv1.Pod) {
	for _, p := range pending {
		if _, ok := ConsumedRequest(p); ok {
			reqPods = append(reqPods, p)
		} else {
			regular = append(regular, p)
		}
	}
	return reqPods, regular
}

// provision serves one request: capacity that exists (or is coming) is
// enough, or one pool gets all the missing nodes at once, or nothing.
func (o *Orchestrator) provision(reqPods []*apiv1.Pod, nodes []*apiv1.Node, daemonSets []*appsv1.DaemonSet,
	nodeInfos map[string]*framework.NodeInfo) (*status.ScaleUpStatus, ca_errors.AutoscalerError, *heldScaleUp) {
	name, _ := ConsumedRequest(reqPods[0])
	ns := reqPods[0].Namespace
	pr, ok := o.client.Request(ns, name)
	if !ok || !supported(pr) {
		return &status.ScaleUpStatus{Result: status.ScaleUpNotTried}, nil, nil
	}
	var pods []*apiv1.Pod
	for _, p := range reqPods {
		if n, _ := ConsumedRequest(p); n == name && p.Namespace == ns {
			pods = append(pods, p.DeepCopy())
		}
	}
	log := klog.LoggerWithValues(klog.Background(), "provisioningRequest", klog.KObj(pr))

	snap := o.ctx.ClusterSnapshot
	// The GPU class the template states in annotations becomes node
	// requirements the simulation checks, against the products of the
	// cluster's nodes and of every pool's template.
	existing, err := snap.ListNodeInfos()
	if err != nil {
		return failedBefore(ca_errors.NewAutoscalerErrorf(ca_errors.InternalError, "listing the cluster snapshot's nodes: %v", err))
	}
	templates := make([]*framework.NodeInfo, 0, len(nodeInfos))
	for _, ni := range nodeInfos {
		templates = append(templates, ni)
	}
	if err := applyGPUClass(pods, knownProducts(existing, templates)); err != nil {
		o.write(log, pr, v1.Failed, metav1.ConditionTrue, ReasonFailedToCreatePods, fmt.Sprintf("PodTemplate's GPU class: %v", err))
		return &status.ScaleUpStatus{Result: status.ScaleUpNotTried}, nil, nil
	}

	// The request's pods placed on existing room stay placed (Commit) once
	// it is served, for the requests and pods after it in this loop.
	snap.Fork()
	served := false
	defer func() {
		if !served || snap.Commit() != nil {
			snap.Revert()
		}
	}()

	// A request names only what its gang lacks: the gang's other members
	// were packed into the snapshot already (GangRoom), so the request's
	// pods are checked against what they leave.
	placed, _, err := o.sim.TrySchedulePods(snap, pods, scheduling.ScheduleAnywhere, false)
	if err != nil {
		o.write(log, pr, v1.Provisioned, metav1.ConditionFalse, "FailedToCheckCapacity", fmt.Sprintf("checking existing capacity: %v", err))
		return failedBefore(ca_errors.NewAutoscalerErrorf(ca_errors.InternalError, "ProvisioningRequest %s/%s: checking existing capacity: %v", ns, name, err))
	}
	fit := map[types.UID]bool{}
	for _, s := range placed {
		fit[s.Pod.UID] = true
	}
	var rest []*apiv1.Pod
	for _, p := range pods {
		if !fit[p.UID] {
			rest = append(rest, p)
		}
	}
	if len(rest) == 0 {
		served = true
		v1.ClearAddedInstances(pr)
		o.write(log, pr, v1.Provisioned, metav1.ConditionTrue, ReasonCapacityIsFound,
			fmt.Sprintf("capacity is found in the cluster: %s fit on existing or upcoming nodes", countPods(len(pods))))
		return &status.ScaleUpStatus{Result: status.ScaleUpNotNeeded}, nil, nil
	}

	// Members the scheduler counted on existing room that the snapshot no
	// longer has room for (the nodes went, or others took them) make the
	// gang larger than the request says: nothing is scaled up for a gang
	// that, whole, no pool could ever hold.
	if o.client.RoomLost(ns, name) > 0 {
		if never, why := o.gangNeverFits(ns, name, pods, nodeInfos); never {
			o.failNeverRuns(log, pr, why)
			return &status.ScaleUpStatus{Result: status.ScaleUpNotTried}, nil, nil
		}
	}

	// One pool: all-or-nothing gives one expansion option per pool; with
	// similar-pool balancing off, the chosen pool gets all the new nodes.
	balance := o.ctx.BalanceSimilarNodeGroups
	o.ctx.BalanceSimilarNodeGroups = false
	groups := o.ctx.CloudProvider.NodeGroups()
	before := instancesBefore(groups)
	st, aerr := o.atomic.ScaleUp(rest, nodes, daemonSets, nodeInfos, true)
	o.ctx.BalanceSimilarNodeGroups = balance

	if aerr == nil && st != nil && st.Result == status.ScaleUpSuccessful {
		// The batch holds the increase: the request is provisioned once
		// its pool is written (settle). Its pods stay on the existing room
		// they took, and the pool's target counts its nodes, for the
		// requests and pods after it.
		served = true
		return nil, nil, &heldScaleUp{pr: pr, log: log, st: unwrapStatus(st), before: before, total: len(pods), rest: len(rest), placed: placed}
	}
	if aerr != nil {
		o.write(log, pr, v1.Provisioned, metav1.ConditionFalse, ReasonCapacityIsNotFound,
			fmt.Sprintf("scale-up for %s failed: %v; will retry", countPods(len(rest)), aerr))
		return st, aerr, nil
	}
	if never, why := o.gangNeverFits(ns, name, pods, nodeInfos); never {
		o.failNeverRuns(log, pr, why)
		return st, nil, nil
	}
	if never, why := o.neverFits(rest, nodeInfos); never {
		o.failNeverFits(log, pr, fmt.Sprintf("no node pool can hold %s even at its max size: %s", countPods(len(rest)), why))
		return st, nil, nil
	}
	o.write(log, pr, v1.Provisioned, metav1.ConditionFalse, ReasonCapacityIsNotFound,
		fmt.Sprintf("no node pool can add capacity for %s now (%s); will retry", countPods(len(rest)), o.notNowReasons(st)))
	return st, nil, nil
}

// releaseRoom takes the members of the requests this loop failed out of
// the loop's snapshot, where GangRoom placed them on the room they count
// on: the loop's scale-down then finds that room unneeded, as it was
// before the request came. Kept there, a request for a gang no pool can
// ever hold (one retried every backoff ceiling) made its empty nodes needed
// for one loop, which restarted their unneeded time: make simulate's
// huge-moe kept four 8-GPU nodes idle 12 minutes longer so.
func (o *Orchestrator) releaseRoom() {
	for _, key := range o.failed {
		for _, m := range o.client.roomKeptFor(key) {
			if err := o.ctx.ClusterSnapshot.UnschedulePod(m.namespace, m.name, m.node); err != nil {
				klog.ErrorS(err, "Could not release the room of a failed ProvisioningRequest's member", "provisioningRequest", key, "pod", m.namespace+"/"+m.name, "node", m.node)
			}
		}
	}
	o.failed = nil
}

// failedBefore is provision's outcome for an error before any scale-up.
func failedBefore(e ca_errors.AutoscalerError) (*status.ScaleUpStatus, ca_errors.AutoscalerError, *heldScaleUp) {
	st, err := status.UpdateScaleUpError(&status.ScaleUpStatus{}, e)
	return st, err, nil
}

// failNeverRuns fails pr for a gang no pool size could ever hold. The
// members counted on existing nodes keep those nodes (GangRoom) only while
// the request lives, so they do not idle for it.
func (o *Orchestrator) failNeverRuns(log klog.Logger, pr *v1.ProvisioningRequest, why string) {
	o.failNeverFits(log, pr, fmt.Sprintf("the gang can never run: %s", why))
}

// failNeverFits fails pr because no pool could ever hold it or its gang,
// recording the pools that verdict read (v1.DetailPoolsAtFailure): the
// scheduler retries the gang when a later loop finds them changed
// (NeverFitsRecheck), and otherwise rarely.
func (o *Orchestrator) failNeverFits(log klog.Logger, pr *v1.ProvisioningRequest, msg string) {
	pr2 := o.set(pr, v1.Provisioned, metav1.ConditionFalse, ReasonCapacityIsNotFound, msg)
	if fp, ok := poolsFingerprint(o.ctx.CloudProvider); ok {
		v1.SetPoolsAtFailure(pr2, fp)
	}
	o.write(log, pr2, v1.Failed, metav1.ConditionTrue, ReasonNoNodeGroupCanHold, msg)
}

// recordScaleUp records in pr's status the node group the scale-up grew
// and the instances it added that are listed already; later loops add the
// rest (Booking). The scheduler keeps exactly those nodes for the gang.
func (o *Orchestrator) recordScaleUp(log klog.Logger, pr *v1.ProvisioningRequest, st *status.ScaleUpStatus,
	groups []cloudprovider.NodeGroup, before map[string]map[string]bool, nodes []*apiv1.Node) {
	v1.ClearAddedInstances(pr)
	if len(st.ScaleUpInfos) != 1 {
		// One pool per request (balancing is off): anything else cannot be
		// recorded as one node group.
		log.Info("A ProvisioningRequest's scale-up grew other than one node group; its instances are not recorded", "nodeGroups", len(st.ScaleUpInfos))
		return
	}
	info := st.ScaleUpInfos[0]
	o.client.startRecord(pr, info.Group.Id(), info.NewSize-info.CurrentSize, before[info.Group.Id()])
	if _, err := o.client.recordInstances(pr, groups, registeredProviderIDs(nodes)); err != nil {
		log.Error(err, "Could not record the instances added for a ProvisioningRequest yet; will retry")
	}
}

// countPods is "1 pod" or "n pods".
func countPods(n int) string {
	if n == 1 {
		return "1 pod"
	}
	return fmt.Sprintf("%d pods", n)
}

func (o *Orchestrator) set(pr *v1.ProvisioningRequest, t string, s metav1.ConditionStatus, reason, msg string) *v1.ProvisioningRequest {
	setCondition(pr, t, s, reason, msg, metav1.NewTime(o.now()))
	return pr
}

func (o *Orchestrator) write(log klog.Logger, pr *v1.ProvisioningRequest, t string, s metav1.ConditionStatus, reason, msg string) {
	o.set(pr, t, s, reason, msg)
	if t == v1.Failed && s == metav1.ConditionTrue {
		o.failed = append(o.failed, pr.Namespace+"/"+pr.Name)
	}
	if err := o.client.UpdateStatus(pr); err != nil {
		log.Error(err, "Could not set a ProvisioningRequest condition", "condition", t, "status", s, "reason", reason)
		return
	}
	log.V(1).Info("ProvisioningRequest condition set", "condition", t, "status", s, "reason", reason, "message", msg)
}

// provisionedMessage names the pool and the number of nodes, e.g.
// "gpu-heavy pool adding 3 nodes".
func provisionedMessage(st *status.ScaleUpStatus, total, existing int) string {
	var parts []string
	for _, info := range st.ScaleUpInfos {
		n := info.NewSize - info.CurrentSize
		unit := "nodes"
		if n == 1 {
			unit = "node"
		}
		parts = append(parts, fmt.Sprintf("%s pool adding %d %s", info.Group.Id(), n, unit))
	}
	msg := strings.Join(parts, ", ")
	if existing > 0 {
		msg += fmt.Sprintf(" (%d of the %d pods fit on existing or upcoming nodes)", existing, total)
	}
	return msg
}

// notNowReasons summarises why the core found no option, per pool. When the
// core names no pool (a pool could take some of the pods, but all-or-nothing
// refused a part), it says how many nodes each pool can still add.
func (o *Orchestrator) notNowReasons(st *status.ScaleUpStatus) string {
	if st == nil {
		return "no scale-up status"
	}
	per := map[string][]string{}
	for _, info := range st.PodsRemainUnschedulable {
		for id, r := range info.RejectedNodeGroups {
			per[id] = appendUnique(per[id], r.Reasons()...)
		}
		for id, r := range info.SkippedNodeGroups {
			per[id] = appendUnique(per[id], r.Reasons()...)
		}
	}
	if len(per) == 0 {
		return o.headroom(st)
	}
	ids := make([]string, 0, len(per))
	for id := range per {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var out []string
	for _, id := range ids {
		out = append(out, fmt.Sprintf("%s: %s", id, strings.Join(per[id], ", ")))
	}
	return strings.Join(out, "; ")
}

// headroom explains a result without per-pool reasons: the nodes each pool
// can still add, which were too few for all the pods at once.
func (o *Orchestrator) headroom(st *status.ScaleUpStatus) string {
	if st.Result != status.ScaleUpNoOptionsAvailable || o.ctx == nil || o.ctx.CloudProvider == nil {
		return resultWords(st.Result)
	}
	var room []string
	for _, ng := range o.ctx.CloudProvider.NodeGroups() {
		target, err := ng.TargetSize()
		if err != nil {
			continue
		}
		room = append(room, fmt.Sprintf("%s %d", ng.Id(), max(0, ng.MaxSize()-target)))
	}
	sort.Strings(room)
	if len(room) == 0 {
		return resultWords(st.Result)
	}
	return "no single pool can add nodes for all of them at once; nodes each pool can still add: " + strings.Join(room, ", ")
}

// resultWords says a scale-up result in words.
func resultWords(r status.ScaleUpResult) string {
	switch r {
	case status.ScaleUpSuccessful:
		return "scale-up succeeded"
	case status.ScaleUpError:
		return "scale-up error"
	case status.ScaleUpNoOptionsAvailable:
		return "no pool could take the pods"
	case status.ScaleUpNotNeeded:
		return "no scale-up needed"
	case status.ScaleUpNotTried:
		return "scale-up not tried this loop"
	case status.ScaleUpInCooldown:
		return "scale-up in cooldown"
	case status.ScaleUpLimitedByMaxNodesTotal:
		return "cluster at --max-nodes-total"
	}
	return fmt.Sprintf("scale-up result %d", r)
}

func appendUnique(s []string, add ...string) []string {
	for _, a := range add {
		found := false
		for _, x := range s {
			found = found || x == a
		}
		if !found {
			s = append(s, a)
		}
	}
	return s
}

// poolHold is how many of a set of pods one pool holds at its max size.
type poolHold struct {
	id          string
	max, held   int
	reason      string // why no pod fits, when none does
	hasTemplate bool
}

// atMax packs the pods onto each pool's template nodes at its max size,
// pools in id order; an error means the answer is unknown.
func (o *Orchestrator) atMax(pods []*apiv1.Pod, nodeInfos map[string]*framework.NodeInfo) ([]poolHold, error) {
	groups := o.ctx.CloudProvider.NodeGroups()
	sort.Slice(groups, func(i, j int) bool { return groups[i].Id() < groups[j].Id() })
	out := make([]poolHold, 0, len(groups))
	for _, ng := range groups {
		h := poolHold{id: ng.Id(), max: ng.MaxSize()}
		if tmpl, ok := nodeInfos[ng.Id()]; ok && tmpl != nil && tmpl.Node() != nil {
			held, reason, err := o.holds(pods, tmpl, ng.Id(), ng.MaxSize())
			if err != nil {
				return nil, err
			}
			h.held, h.reason, h.hasTemplate = held, reason, true
		}
		out = append(out, h)
	}
	return out, nil
}

// neverFits says whether no pool, empty and at its max size, could hold
// all the pods; then retrying cannot help. It packs the pods onto fresh
// copies of each pool's template node in a fork of the snapshot.
func (o *Orchestrator) neverFits(pods []*apiv1.Pod, nodeInfos map[string]*framework.NodeInfo) (bool, string) {
	pools, err := o.atMax(pods, nodeInfos)
	if err != nil {
		// Unknown: do not fail the request permanently.
		klog.ErrorS(err, "Could not check whether a pool could ever hold a ProvisioningRequest")
		return false, ""
	}
	var why []string
	for _, h := range pools {
		switch {
		case !h.hasTemplate:
			why = append(why, fmt.Sprintf("%s: no node template", h.id))
		case h.held == len(pods):
			return false, ""
		case h.held == 0:
			why = append(why, fmt.Sprintf("%s: no pod fits its nodes (%s)", h.id, h.reason))
		default:
			why = append(why, fmt.Sprintf("%s: %d nodes at max hold %d", h.id, h.max, h.held))
		}
	}
	return true, strings.Join(why, "; ")
}

// gangNeverFits says whether a request's gang, its pods plus the members its
// scheduler counts on existing nodes, exceeds what all the pools together
// hold at their max sizes: the request alone may look merely "not now"
// while the gang is larger than the cluster can ever be.
func (o *Orchestrator) gangNeverFits(ns, name string, pods []*apiv1.Pod, nodeInfos map[string]*framework.NodeInfo) (bool, string) {
	if o.ctx == nil || o.ctx.ListerRegistry == nil {
		return false, ""
	}
	all, err := o.ctx.AllPodLister().List()
	if err != nil {
		return false, ""
	}
	var consumers []*apiv1.Pod
	for _, p := range all {
		if c, ok := ConsumedRequest(p); ok && c == name && p.Namespace == ns {
			consumers = append(consumers, p)
		}
	}
	others := CountedOn(consumers, o.client.Request)
	if len(others) == 0 {
		return false, ""
	}
	gang := append(append([]*apiv1.Pod(nil), pods...), others...)
	pools, err := o.atMax(gang, nodeInfos)
	if err != nil {
		return false, ""
	}
	total := 0
	var parts []string
	for _, h := range pools {
		if !h.hasTemplate {
			return false, "" // unknown: do not fail the request
		}
		total += h.held
		parts = append(parts, fmt.Sprintf("%s: %d nodes at max hold %d", h.id, h.max, h.held))
	}
	if total >= len(gang) {
		return false, ""
	}
	return true, fmt.Sprintf("its %s (%d counted on existing nodes) exceed what every pool holds at its max size (%s)",
		countPods(len(gang)), len(others), strings.Join(parts, "; "))
}

// holds returns how many of pods fit on max fresh nodes made from tmpl.
func (o *Orchestrator) holds(pods []*apiv1.Pod, tmpl *framework.NodeInfo, id string, max int) (int, string, error) {
	n := min(max, len(pods))
	if n <= 0 {
		return 0, fmt.Sprintf("max size %d", max), nil
	}
	snap := o.ctx.ClusterSnapshot
	snap.Fork()
	defer snap.Revert()
	names := map[string]bool{}
	first := ""
	for i := 0; i < n; i++ {
		ni, err := simulator.SanitizedNodeInfo(tmpl, fmt.Sprintf("muster-feasibility-%d", i))
		if err != nil {
			return 0, "", fmt.Errorf("pool %s: copying the template node: %w", id, err)
		}
		if err := snap.AddNodeInfo(ni); err != nil {
			return 0, "", fmt.Errorf("pool %s: adding a template node to the snapshot: %w", id, err)
		}
		names[ni.Node().Name] = true
		if first == "" {
			first = ni.Node().Name
		}
	}
	placed, _, err := o.sim.TrySchedulePods(snap, pods, func(ni *framework.NodeInfo) bool { return names[ni.Node().Name] }, false)
	if err != nil {
		return 0, "", fmt.Errorf("pool %s: %w", id, err)
	}
	reason := ""
	if len(placed) == 0 {
		if serr := snap.CheckPredicates(pods[0], first); serr != nil {
			reason = strings.Join(serr.Reasons(), ", ")
		}
		if reason == "" {
			reason = "scheduler predicates fail"
		}
	}
	return len(placed), reason, nil
}
