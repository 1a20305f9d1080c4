// Pod list processors: PodsFilter, ScaleUpEnforcer, Injector and Booking, with their Options.

package provreq

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	apiv1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ca_context "k8s.io/autoscaler/cluster-autoscaler/context"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/framework"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/scheduling"
	resourcehelper "k8s.io/component-helpers/resource"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"

	v1 "github.com/muster-project/muster/autoscaler/provreq/apis/v1"
)

// PodsFilter is a PodListProcessor that removes the pods consuming a
// ProvisioningRequest from ordinary scale-up: the request, not its pods one
// by one, asks for their capacity.
type PodsFilter struct{}

// Process implements pods.PodListProcessor.
func (PodsFilter) Process(_ *ca_context.AutoscalingContext, pending []*apiv1.Pod) ([]*apiv1.Pod, error) {
	return FilterConsumers(pending), nil
}

// CleanUp implements pods.PodListProcessor.
func (PodsFilter) CleanUp() {}

// FilterConsumers returns the pods that consume no ProvisioningRequest.
func FilterConsumers(pending []*apiv1.Pod) []*apiv1.Pod {
	out := make([]*apiv1.Pod, 0, len(pending))
	skipped := 0
	for _, p := range pending {
		if name, ok := ConsumedRequest(p); ok {
			if skipped < 5 {
				klog.V(2).InfoS("Pod consumes a ProvisioningRequest; left out of ordinary scale-up", "pod", klog.KObj(p), "provisioningRequest", klog.KRef(p.Namespace, name))
			}
			skipped++
			continue
		}
		out = append(out, p)
	}
	if skipped > 5 {
		klog.V(2).InfoS("More pods consume ProvisioningRequests; left out of ordinary scale-up", "count", skipped-5)
	}
	return out
}

// ScaleUpEnforcer makes the core try a scale-up whenever a request's pods
// are pending, even when they look new (their creation time is the
// request's) or the cluster is at its node limit.
type ScaleUpEnforcer struct{}

// ShouldForceScaleUp implements pods.ScaleUpEnforcer.
func (ScaleUpEnforcer) ShouldForceScaleUp(pending []*apiv1.Pod) bool {
	for _, p := range pending {
		if _, ok := ConsumedRequest(p); ok {
			return true
		}
	}
	return false
}

// Options tune the consumer.
type Options struct {
	// InitialBackoff and MaxBackoff space the retries of a request whose
	// capacity was not found (upstream's
	// --provisioning-request-initial-backoff-time/-max-backoff-time).
	InitialBackoff, MaxBackoff time.Duration
	// BookingTTL is how long capacity stays booked for a Provisioned
	// request whose pods have not all bound (upstream: 10 minutes), from
	// when the nodes added for it have all registered (see expiry).
	BookingTTL time.Duration
	// MaxNodeProvisionTime bounds the wait for those nodes (the
	// autoscaler's --max-node-provision-time, default 15 minutes): a
	// booking whose nodes have not all registered by then counts from
	// then.
	MaxNodeProvisionTime time.Duration
	// Expiry fails a request not provisioned this long after creation
	// (upstream: 7 days).
	Expiry time.Duration
	// Now is the clock conditions are stamped and timed by: the loop's
	// (muster simulate's trace clock under --clock-url); default wall time.
	Now func() time.Time
}

func (o Options) withDefaults() Options {
	if o.InitialBackoff <= 0 {
		o.InitialBackoff = time.Minute
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 10 * time.Minute
	}
	if o.BookingTTL <= 0 {
		o.BookingTTL = 10 * time.Minute
	}
	if o.MaxNodeProvisionTime <= 0 {
		o.MaxNodeProvisionTime = 15 * time.Minute
	}
	if o.Expiry <= 0 {
		o.Expiry = 7 * 24 * time.Hour
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Injector is a PodListProcessor that picks the requests needing capacity,
// marks them Accepted and adds their pods to the pending list, as
// upstream's ProvisioningRequestPodsInjector, but every such request each
// loop rather than one: the pods of a higher-priority gang's request come
// first, then those of older requests (the order the scheduler serves the
// gangs in), and the Orchestrator serves them in that order.
type Injector struct {
	client *Client
	opts   Options
	now    func() time.Time

	mu          sync.Mutex
	backoff     map[types.UID]time.Duration
	lastProcess time.Time
}

// NewInjector returns an Injector.
func NewInjector(c *Client, opts Options) *Injector {
	opts = opts.withDefaults()
	return &Injector{client: c, opts: opts, now: opts.Now, backoff: map[types.UID]time.Duration{}, lastProcess: opts.Now()}
}

// available: the request wants a scale-up attempt now. Never tried, or
// Provisioned=False longer ago than its backoff, which doubles on each
// retry up to MaxBackoff.
func (p *Injector) available(pr *v1.ProvisioningRequest) bool {
	if !supported(pr) {
		return false
	}
	if terminal(pr) {
		delete(p.backoff, pr.UID)
		return false
	}
	prov := findCondition(pr, v1.Provisioned)
	if prov == nil {
		return true
	}
	wait, ok := p.backoff[pr.UID]
	if !ok {
		wait = p.opts.InitialBackoff
	}
	if prov.LastTransitionTime.Add(wait).Before(p.now()) {
		p.backoff[pr.UID] = min(2*wait, p.opts.MaxBackoff)
		return true
	}
	return false
}

// Process implements pods.PodListProcessor.
func (p *Injector) Process(_ *ca_context.AutoscalingContext, pending []*apiv1.Pod) ([]*apiv1.Pod, error) {
	pods, err := p.next()
	return append(pending, pods...), err
}

func (p *Injector) next() ([]*apiv1.Pod, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	live := map[types.UID]bool{}
	reqs := p.client.Requests()
	for _, pr := range reqs {
		live[pr.UID] = true
	}
	for uid := range p.backoff {
		if !live[uid] {
			delete(p.backoff, uid)
		}
	}
	type served struct {
		pods     []*apiv1.Pod
		priority int32
	}
	var take []served
	for _, pr := range reqs {
		if !p.available(pr) {
			continue
		}
		pods, err := PodsForRequest(pr, p.client.PodTemplate)
		now := metav1.NewTime(p.now())
		if err != nil && !permanent(err) {
			klog.ErrorS(err, "Cannot build the pods of a ProvisioningRequest now; will retry", "provisioningRequest", klog.KObj(pr))
			continue
		}
		if err != nil {
			klog.ErrorS(err, "Cannot build the pods of a ProvisioningRequest; marking it Failed", "provisioningRequest", klog.KObj(pr))
			setCondition(pr, v1.Failed, metav1.ConditionTrue, ReasonFailedToCreatePods, err.Error(), now)
			if uerr := p.client.UpdateStatus(pr); uerr != nil {
				klog.ErrorS(uerr, "Could not mark a ProvisioningRequest Failed", "provisioningRequest", klog.KObj(pr))
			}
			p.lastProcess = p.now()
			continue
		}
		if len(pods) == 0 {
			continue
		}
		if !isTrue(pr, v1.Accepted) {
			setCondition(pr, v1.Accepted, metav1.ConditionTrue, ReasonAccepted, "ProvisioningRequest is accepted by muster-autoscaler", now)
			if err := p.client.UpdateStatus(pr); err != nil {
				klog.ErrorS(err, "Could not mark a ProvisioningRequest Accepted; will retry", "provisioningRequest", klog.KObj(pr))
				continue
			}
		}
		klog.V(1).InfoS("Processing a ProvisioningRequest", "provisioningRequest", klog.KObj(pr), "pods", len(pods))
		take = append(take, served{pods: pods, priority: corev1helpers.PodPriority(pods[0])})
	}
	if len(take) == 0 {
		return nil, nil
	}
	p.lastProcess = p.now()
	// reqs are oldest first: a stable sort by priority keeps age within it.
	sort.SliceStable(take, func(i, j int) bool { return take[i].priority > take[j].priority })
	var out []*apiv1.Pod
	for _, t := range take {
		out = append(out, t.pods...)
	}
	return out, nil
}

// CleanUp implements pods.PodListProcessor.
func (p *Injector) CleanUp() {}

// LastProvisioningRequestProcessTime lets the loop trigger run the next
// loop at once after a request was processed.
func (p *Injector) LastProvisioningRequestProcessTime() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lastProcess
}

// Booking is a PodListProcessor that keeps the capacity of Provisioned
// requests: it schedules, in the loop's cluster snapshot, the request's
// pods that have not bound yet, so that ordinary pods are not packed there
// and scale-down does not see the new nodes as empty. It is also the
// loop-start observer that refreshes the client and expires bookings.
type Booking struct {
	client *Client
	opts   Options
	now    func() time.Time
	sim    *scheduling.HintingSimulator
	// up is when each Provisioned request's added nodes were first seen
	// all registered (its booking's start). Kept in memory: after a
	// restart a booking starts again when its nodes are next seen, later
	// rather than sooner.
	up map[types.UID]time.Time
}

// NewBooking returns a Booking.
func NewBooking(c *Client, opts Options) *Booking {
	opts = opts.withDefaults()
	return &Booking{client: c, opts: opts, now: opts.Now, sim: scheduling.NewHintingSimulator(), up: map[types.UID]time.Time{}}
}

// Refresh implements loopstart.Observer: lists the requests, then marks
// BookingExpired on Provisioned requests older than the booking TTL and
// Failed (Expired) on requests never provisioned within the expiry.
func (b *Booking) Refresh() {
	if err := b.client.Refresh(); err != nil {
		klog.ErrorS(err, "Could not list ProvisioningRequests")
		return
	}
	now := b.now()
	live := map[types.UID]bool{}
	for _, pr := range b.client.Requests() {
		live[pr.UID] = true
		up, isUp := b.up[pr.UID]
		t, reason, msg, ok := expiry(pr, now, b.opts, up, isUp)
		if !ok {
			continue
		}
		setCondition(pr, t, metav1.ConditionTrue, reason, msg, metav1.NewTime(now))
		if err := b.client.UpdateStatus(pr); err != nil {
			klog.ErrorS(err, "Could not expire a ProvisioningRequest", "provisioningRequest", klog.KObj(pr), "condition", t)
			continue
		}
		klog.V(1).InfoS("ProvisioningRequest expired", "provisioningRequest", klog.KObj(pr), "condition", t, "reason", reason)
	}
	for uid := range b.up {
		if !live[uid] {
			delete(b.up, uid)
		}
	}
}

// expiry says which condition, if any, time adds to pr. A booking lasts
// BookingTTL from when the nodes added for the request all registered (up,
// when isUp), not from the scale-up: nodes that take as long to boot as the
// booking lasts (H100 pools take ten minutes, the default booking) came up
// unbooked, and another gang took them while the request's gang asked
// again and waited for nodes of its own once more. Nodes that have not all
// registered within MaxNodeProvisionTime start the booking then. Capacity
// found on existing nodes is up when provisioned.
func expiry(pr *v1.ProvisioningRequest, now time.Time, opts Options, up time.Time, isUp bool) (string, string, string, bool) {
	if !supported(pr) || isTrue(pr, v1.Failed) || isTrue(pr, v1.BookingExpired) {
		return "", "", "", false
	}
	if prov := findCondition(pr, v1.Provisioned); prov != nil && prov.Status == metav1.ConditionTrue {
		start, since := prov.LastTransitionTime.Time, "it was provisioned"
		if _, added, _, ok := v1.AddedInstances(pr); ok && added > 0 {
			switch {
			case isUp && up.After(start):
				start, since = up, "its nodes came up"
			case !isUp:
				start, since = start.Add(opts.MaxNodeProvisionTime), fmt.Sprintf("its nodes were due (%s after it was provisioned)", opts.MaxNodeProvisionTime)
			}
		}
		if start.Add(opts.BookingTTL).Before(now) {
			return v1.BookingExpired, ReasonBookingExpired, fmt.Sprintf("capacity was booked for %s after %s; released", opts.BookingTTL, since), true
		}
		return "", "", "", false
	}
	if pr.CreationTimestamp.Add(opts.Expiry).Before(now) {
		return v1.Failed, ReasonExpired, fmt.Sprintf("not provisioned within %s of its creation", opts.Expiry), true
	}
	return "", "", "", false
}

// biggestFirst orders pods to book anywhere biggest first (first fit
// decreasing), by extended resources (GPUs), then CPU, then memory; equal
// pods keep their order (oldest request first). Booked in request order, an
// older request's 1-GPU pod could take the 8-GPU node a younger gang's pod
// needed, beside a free 1-GPU node, and which it took depended on where the
// simulator's node scan began: the gang was set back as having lost its
// capacity in some loops and not in others. The pods are PodsForRequest's,
// their requests defaulted from their limits.
func biggestFirst(pods []*apiv1.Pod) {
	type size struct{ extended, milliCPU, memory int64 }
	sizes := make(map[*apiv1.Pod]size, len(pods))
	for _, p := range pods {
		req := podRequests(p)
		z := size{milliCPU: req.Cpu().MilliValue(), memory: req.Memory().Value()}
		for name, q := range req {
			switch name {
			case apiv1.ResourceCPU, apiv1.ResourceMemory, apiv1.ResourceEphemeralStorage, apiv1.ResourcePods:
			default:
				z.extended += q.Value()
			}
		}
		sizes[p] = z
	}
	sort.SliceStable(pods, func(i, j int) bool {
		a, b := sizes[pods[i]], sizes[pods[j]]
		if a.extended != b.extended {
			return a.extended > b.extended
		}
		if a.milliCPU != b.milliCPU {
			return a.milliCPU > b.milliCPU
		}
		return a.memory > b.memory
	})
}

// Process implements pods.PodListProcessor. A Provisioned request whose
// unbound pods no longer all fit (its new instances failed and were
// removed, or other pods took the capacity) is set back to
// Provisioned=False (CapacityIsNotFound), so that it is retried after its
// backoff instead of holding its gang's pods out of scale-up until the
// booking expires.
func (b *Booking) Process(ctx *ca_context.AutoscalingContext, pending []*apiv1.Pod) ([]*apiv1.Pod, error) {
	// reqs are the requests to book, oldest first: each one's unbound
	// pods and the nodes added for it.
	type toBook struct {
		pr   *v1.ProvisioningRequest
		pods []*apiv1.Pod
		own  map[string]bool
	}
	var reqs []toBook
	total := 0
	var bound map[string][]*apiv1.Pod
	var known []string
	owner := map[types.UID]*v1.ProvisioningRequest{}
	var registered map[string]bool
	var nodeOf map[string]string // lower-cased provider ID: node name
	for _, pr := range b.client.Requests() {
		if !shouldBook(pr) {
			continue
		}
		if registered == nil {
			infos, err := ctx.ClusterSnapshot.ListNodeInfos()
			if err != nil {
				return pending, fmt.Errorf("listing the cluster snapshot's nodes: %w", err)
			}
			registered, nodeOf = map[string]bool{}, map[string]string{}
			for _, ni := range infos {
				if pid := ni.Node().Spec.ProviderID; pid != "" {
					registered[strings.ToLower(pid)] = true
					nodeOf[strings.ToLower(pid)] = ni.Node().Name
				}
			}
		}
		b.recordInstances(ctx, pr, registered)
		if !nodesUp(pr, registered) {
			delete(b.up, pr.UID) // a new scale-up of a request set back and retried
		} else if _, seen := b.up[pr.UID]; !seen {
			b.up[pr.UID] = b.now()
		}
		if bound == nil {
			infos, err := ctx.ClusterSnapshot.ListNodeInfos()
			if err != nil {
				return pending, fmt.Errorf("listing the cluster snapshot's nodes: %w", err)
			}
			bound, known = boundConsumers(infos), knownProducts(infos)
		}
		pods, err := PodsForRequest(pr, b.client.PodTemplate)
		if err == nil {
			err = applyGPUClass(pods, known)
		}
		if err != nil {
			klog.ErrorS(err, "Cannot book capacity for a Provisioned ProvisioningRequest", "provisioningRequest", klog.KObj(pr))
			continue
		}
		pods = unbound(pods, bound[pr.Namespace+"/"+pr.Name])
		for _, p := range pods {
			owner[p.UID] = pr
		}
		r := toBook{pr: pr, pods: pods}
		if _, _, ids, ok := v1.AddedInstances(pr); ok {
			for _, id := range ids {
				if n, ok := nodeOf[id]; ok {
					if r.own == nil {
						r.own = map[string]bool{}
					}
					r.own[n] = true
				}
			}
		}
		reqs = append(reqs, r)
		total += len(pods)
	}
	if total == 0 {
		return pending, nil
	}
	// Each request's pods go first onto the nodes added for it, then what
	// is left, oldest request first, anywhere. Packed first fit anywhere
	// from the start, an older request whose nodes were still booting took
	// a younger one's registered nodes, and the younger one was set back
	// as having lost its capacity, though its nodes had come.
	placed := map[*v1.ProvisioningRequest]int{}
	var rest []*apiv1.Pod
	for _, r := range reqs {
		pr, pods, nodes := r.pr, r.pods, r.own
		if len(nodes) == 0 || len(pods) == 0 {
			rest = append(rest, pods...)
			continue
		}
		st, _, err := b.sim.TrySchedulePods(ctx.ClusterSnapshot, pods, func(ni *framework.NodeInfo) bool { return nodes[ni.Node().Name] }, false)
		if err != nil {
			return pending, fmt.Errorf("booking capacity for ProvisioningRequest %s on its nodes: %w", klog.KObj(pr), err)
		}
		in := map[types.UID]bool{}
		for _, s := range st {
			in[s.Pod.UID] = true
		}
		placed[pr] += len(st)
		for _, p := range pods {
			if !in[p.UID] {
				rest = append(rest, p)
			}
		}
	}
	onOwn := total - len(rest)
	biggestFirst(rest)
	st, _, err := b.sim.TrySchedulePods(ctx.ClusterSnapshot, rest, scheduling.ScheduleAnywhere, false)
	if err != nil {
		return pending, fmt.Errorf("booking capacity for ProvisioningRequests: %w", err)
	}
	for _, s := range st {
		if pr := owner[s.Pod.UID]; pr != nil {
			placed[pr]++
		}
	}
	klog.V(2).InfoS("Booked capacity for Provisioned ProvisioningRequests", "pods", total, "placed", onOwn+len(st), "onTheirOwnNodes", onOwn)
	for _, r := range reqs {
		pr, n := r.pr, len(r.pods)
		if lost := n - placed[pr]; lost > 0 {
			msg := fmt.Sprintf("the capacity provisioned for it is gone: %s of %d not bound yet no longer fit (instances failed and were removed, or other pods took them); will retry", countPods(lost), n)
			setCondition(pr, v1.Provisioned, metav1.ConditionFalse, ReasonCapacityIsNotFound, msg, metav1.NewTime(b.now()))
			if err := b.client.UpdateStatus(pr); err != nil {
				klog.ErrorS(err, "Could not mark a ProvisioningRequest's lost capacity", "provisioningRequest", klog.KObj(pr))
				continue
			}
			klog.InfoS("ProvisioningRequest lost its capacity; it will be retried", "provisioningRequest", klog.KObj(pr), "lostPods", lost, "unboundPods", n)
		}
	}
	return pending, nil
}

// nodesUp says every node added for pr has registered (registered holds
// the snapshot's lower-cased provider IDs); so has a request that added
// none.
func nodesUp(pr *v1.ProvisioningRequest, registered map[string]bool) bool {
	_, added, ids, ok := v1.AddedInstances(pr)
	if !ok || added == 0 {
		return true
	}
	if len(ids) < added {
		return false
	}
	for _, id := range ids {
		if !registered[id] {
			return false
		}
	}
	return true
}

// recordInstances completes the record of the instances added for pr, as
// the pool lists them (see Client.recordInstances).
func (b *Booking) recordInstances(ctx *ca_context.AutoscalingContext, pr *v1.ProvisioningRequest, registered map[string]bool) {
	if ctx.CloudProvider == nil {
		return
	}
	changed, err := b.client.recordInstances(pr, ctx.CloudProvider.NodeGroups(), registered)
	if err != nil {
		klog.ErrorS(err, "Could not record the instances added for a ProvisioningRequest; will retry", "provisioningRequest", klog.KObj(pr))
		return
	}
	if !changed {
		return
	}
	if err := b.client.UpdateStatus(pr); err != nil {
		klog.ErrorS(err, "Could not record the instances added for a ProvisioningRequest; will retry", "provisioningRequest", klog.KObj(pr))
		return
	}
	_, added, ids, _ := v1.AddedInstances(pr)
	klog.V(1).InfoS("Recorded the instances added for a ProvisioningRequest", "provisioningRequest", klog.KObj(pr), "known", len(ids), "added", added)
}

// unbound returns the request's pods that no bound consumer stands for:
// what is still to be booked. Each bound consumer stands for one of the
// pods, of its own shape where one is left: the pod asking for the same
// resources, else the first asking for the same kinds of resources (a
// member whose requests a webhook changed), else the first left. Taking
// pods off in podSet order, whatever bound, booked a member of another
// shape, already running, in place of the one still to come: a gang whose
// GPU workers bound before its launcher kept a worker's GPUs booked, in
// room another request then could not have, until the booking expired.
func unbound(pods []*apiv1.Pod, bound []*apiv1.Pod) []*apiv1.Pod {
	if len(bound) >= len(pods) {
		return nil
	}
	if len(bound) == 0 {
		return pods
	}
	// The pods' shapes, in the order they first come, each with the
	// indices of its pods no bound consumer stands for yet: a request has
	// few shapes (one per podSet at most) and up to MaxPodsPerRequest pods.
	type shape struct {
		requests apiv1.ResourceList
		left     []int
	}
	var shapes []*shape
	for i, p := range pods {
		r := podRequests(p)
		var s *shape
		for _, c := range shapes {
			if sameRequests(c.requests, r) {
				s = c
				break
			}
		}
		if s == nil {
			s = &shape{requests: r}
			shapes = append(shapes, s)
		}
		s.left = append(s.left, i)
	}
	taken := make([]bool, len(pods))
	rest := make([]apiv1.ResourceList, 0, len(bound))
	for _, b := range bound {
		rest = append(rest, podRequests(b))
	}
	for _, match := range []func(a, b apiv1.ResourceList) bool{sameRequests, sameKinds} {
		var unmatched []apiv1.ResourceList
		for _, got := range rest {
			var first *shape
			for _, c := range shapes {
				if len(c.left) > 0 && match(c.requests, got) && (first == nil || c.left[0] < first.left[0]) {
					first = c
				}
			}
			if first == nil {
				unmatched = append(unmatched, got)
				continue
			}
			taken[first.left[0]] = true
			first.left = first.left[1:]
		}
		rest = unmatched
	}
	// The others stand for the first pods left, whatever their shape.
	next := 0
	for range rest {
		for taken[next] {
			next++
		}
		taken[next] = true
	}
	out := make([]*apiv1.Pod, 0, len(pods)-len(bound))
	for i, p := range pods {
		if !taken[i] {
			out = append(out, p)
		}
	}
	return out
}

// podRequests is what a pod asks the scheduler for, less zero amounts.
func podRequests(p *apiv1.Pod) apiv1.ResourceList {
	out := apiv1.ResourceList{}
	for name, q := range resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{}) {
		if !q.IsZero() {
			out[name] = q
		}
	}
	return out
}

// sameRequests: a and b ask for the same amount of the same resources.
func sameRequests(a, b apiv1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for name, q := range a {
		if r, ok := b[name]; !ok || q.Cmp(r) != 0 {
			return false
		}
	}
	return true
}

// sameKinds: a and b ask for the same resources, in any amounts.
func sameKinds(a, b apiv1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for name := range a {
		if _, ok := b[name]; !ok {
			return false
		}
	}
	return true
}

// boundConsumers lists, per namespace/request, the scheduled pods in the
// snapshot that consume a request.
func boundConsumers(infos []*framework.NodeInfo) map[string][]*apiv1.Pod {
	out := map[string][]*apiv1.Pod{}
	for _, ni := range infos {
		for _, pi := range ni.Pods() {
			if name, ok := ConsumedRequest(pi.Pod); ok && pi.Pod.Spec.NodeName != "" {
				key := pi.Pod.Namespace + "/" + name
				out[key] = append(out[key], pi.Pod)
			}
		}
	}
	return out
}

// CleanUp implements pods.PodListProcessor.
func (b *Booking) CleanUp() {}
