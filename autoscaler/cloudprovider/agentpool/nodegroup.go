// nodeGroup, one Azure pool: sizes, scale-up and its rollback, deletions, template node, options.

package agentpool

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	apiv1 "k8s.io/api/core/v1"
	"k8s.io/autoscaler/cluster-autoscaler/cloudprovider"
	"k8s.io/autoscaler/cluster-autoscaler/config"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/framework"
	caerrors "k8s.io/autoscaler/cluster-autoscaler/utils/errors"
	"k8s.io/klog/v2"
)

// OutOfResourcesError is returned by a scale-up that quota (or Azure's
// capacity) cannot serve. It is a cloudProviderError for the core and names
// the quota.
type OutOfResourcesError struct {
	Pool    string
	Quota   string // family name, or "cores" for the regional total
	Limit   int64
	Used    int64
	Needed  int64
	Message string // Azure's message when Azure refused
}

func (e *OutOfResourcesError) Error() string {
	if e.Message != "" {
		return fmt.Sprintf("OutOfResources: pool %s: %s", e.Pool, e.Message)
	}
	return fmt.Sprintf("OutOfResources: pool %s: quota %s allows %d more vCPUs (limit %d, used %d), the scale-up needs %d",
		e.Pool, e.Quota, max(e.Limit-e.Used, 0), e.Limit, e.Used, e.Needed)
}

// Type makes it an AutoscalerError of type cloudProviderError.
func (e *OutOfResourcesError) Type() caerrors.AutoscalerErrorType { return caerrors.CloudProviderError }

// AddPrefix adds a prefix to the message.
func (e *OutOfResourcesError) AddPrefix(msg string, args ...interface{}) caerrors.AutoscalerError {
	c := *e
	c.Message = fmt.Sprintf(msg, args...) + strings.TrimPrefix(e.Error(), "OutOfResources: ")
	return &c
}

// ErrorClass is how instances failing for this reason are classed.
func (e *OutOfResourcesError) ErrorClass() cloudprovider.InstanceErrorClass {
	return cloudprovider.OutOfResourcesErrorClass
}

// failedInstance is an instance whose provisioning failed; it is reported by
// Nodes() with its error until the core deletes it or the retention passes,
// even after the provider cleaned it up itself.
type failedInstance struct {
	inst    cloudprovider.Instance
	expires time.Time
}

// nodeGroup is one Azure pool.
type nodeGroup struct {
	m       *manager
	id      string
	kind    string // vmss or aks
	minSize int
	maxSize int
	pool    PoolConfig
	be      backend

	writeMu sync.Mutex // one size change or deletion at a time

	mu      sync.Mutex
	state   *poolState
	fetched time.Time
	failed  map[string]failedInstance // lower-case provider ID
	// withdrawn instances were deleted while still being created; a core
	// whose instance cache still lists them may ask to delete them again.
	withdrawn map[string]time.Time // lower-case provider ID -> forget after
	// scaleUps are the pool's capacity increases under way (and those that
	// ended while another was), in issue order; see claimInstances.
	scaleUps   []*scaleUp
	scaleUpSeq uint64
	// discoveredTags are the pool's tags as discovery listed them.
	discoveredTags map[string]string
	// transient is the last scale-up refused by throttling or a 5xx, until
	// the core's backoff takes it (see Provider.Backoff).
	transient *TransientError
	// owedTarget counts instances failed scale-ups asked for that never
	// came: the target is lowered by that many once no scale-up is under
	// way, since lowering it earlier could cancel another's instances.
	owedTarget int
}

var _ cloudprovider.NodeGroup = &nodeGroup{}

func (g *nodeGroup) MaxSize() int { return g.maxSize }
func (g *nodeGroup) MinSize() int { return g.minSize }
func (g *nodeGroup) Id() string   { return g.id }

func (g *nodeGroup) Debug() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	size := -1
	if g.state != nil {
		size = g.state.size
	}
	return fmt.Sprintf("%s (%s) min=%d max=%d target=%d", g.id, g.be.describe(), g.minSize, g.maxSize, size)
}

func (g *nodeGroup) Exist() bool           { return true }
func (g *nodeGroup) Autoprovisioned() bool { return false }

// Create is not implemented: pools are created by the cluster's owner, not
// by the autoscaler (no node auto-provisioning).
func (g *nodeGroup) Create() (cloudprovider.NodeGroup, error) {
	return nil, cloudprovider.ErrNotImplemented
}

// Delete is not implemented, for the same reason.
func (g *nodeGroup) Delete() error { return cloudprovider.ErrNotImplemented }

func (g *nodeGroup) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(g.m.ctx, g.m.requestTimeout)
}

// cached returns the last read state, reading it first when older than the
// cache TTL (or when force). A failed read keeps serving the cached state
// (logged), so that throttling does not blind the core.
func (g *nodeGroup) cached(force bool) (*poolState, error) {
	g.mu.Lock()
	st, fetched := g.state, g.fetched
	g.mu.Unlock()
	if st != nil && !force && time.Since(fetched) < g.m.cacheTTL {
		return st, nil
	}
	ctx, cancel := g.ctx()
	defer cancel()
	fresh, err := g.be.get(ctx)
	if err != nil {
		if st != nil {
			klog.InfoS("Reading pool failed; serving the cached state", "pool", g.id, "age", time.Since(fetched).Round(time.Second), "throttled", isThrottled(err), "err", err)
			return st, nil
		}
		return nil, fmt.Errorf("pool %s: reading %s: %w", g.id, g.be.describe(), err)
	}
	g.mu.Lock()
	g.state, g.fetched = fresh, time.Now()
	g.mu.Unlock()
	return fresh, nil
}

// fresh reads the pool from Azure; writes always start from it.
func (g *nodeGroup) fresh() (*poolState, error) {
	ctx, cancel := g.ctx()
	defer cancel()
	st, err := g.be.get(ctx)
	if err != nil {
		return nil, fmt.Errorf("pool %s: reading %s: %w", g.id, g.be.describe(), err)
	}
	g.mu.Lock()
	g.state, g.fetched = st, time.Now()
	g.mu.Unlock()
	return st, nil
}

// invalidate makes the next read go to Azure.
func (g *nodeGroup) invalidate() {
	g.mu.Lock()
	g.fetched = time.Time{}
	g.mu.Unlock()
}

func (g *nodeGroup) TargetSize() (int, error) {
	st, err := g.cached(false)
	if err != nil {
		return 0, err
	}
	return st.size, nil
}

// isGPU reports whether the pool's SKU has GPUs (from the SKU data).
func (g *nodeGroup) isGPU() bool {
	st, err := g.cached(false)
	if err != nil {
		return false
	}
	info, err := g.m.skus.lookup(g.m.ctx, st.sku)
	return err == nil && info.GPUs > 0
}

// IncreaseSize adds delta instances. GPU pools are all-or-nothing, as with
// AtomicIncreaseSize; other pools keep what arrives.
func (g *nodeGroup) IncreaseSize(delta int) error { return g.increase(delta, g.isGPU()) }

// AtomicIncreaseSize adds delta instances or none.
func (g *nodeGroup) AtomicIncreaseSize(delta int) error { return g.increase(delta, true) }

// increase checks the pool's max and the quota, issues one capacity change,
// and watches it in the background: when it fails and atomic is set, every
// instance it added is deleted (and reported failed through Nodes()).
//
// A 429 (or the throttle gate refusing the call) is waited out and retried
// while the wait ends within the write budget; 5xx are retried by the SDK.
// Past that the error is a TransientError, which the core's backoff
// (Provider.Backoff) holds the pool back for only until Azure takes calls
// again.
func (g *nodeGroup) increase(delta int, atomic bool) error {
	if delta <= 0 {
		return fmt.Errorf("pool %s: size increase must be positive, got %d", g.id, delta)
	}
	g.writeMu.Lock()
	defer g.writeMu.Unlock()
	budget := time.Now().Add(g.m.cfg.WriteRetryBudget.or(DefaultWriteRetryBudget))
	for conflicts := 0; ; {
		err := g.increaseOnce(delta, atomic)
		if isConflict(err) && conflicts < maxWriteConflicts {
			// Another writer changed the pool since it was read: read
			// it again and size from what it is now.
			conflicts++
			klog.InfoS("The pool changed under a scale-up; retrying from a fresh read", "pool", g.id, "err", err)
			continue
		}
		if err == nil || !isTransient(err) {
			return err
		}
		until := g.retryAt(err)
		if !isThrottled(err) || until.After(budget) {
			g.mu.Lock()
			g.transient = &TransientError{Pool: g.id, Until: until, Err: err}
			g.mu.Unlock()
			return g.transient
		}
		klog.InfoS("Azure throttled a scale-up; retrying within the write budget", "pool", g.id, "at", until.Format(time.RFC3339Nano))
		select {
		case <-time.After(time.Until(until)):
		case <-g.m.ctx.Done():
			return g.m.ctx.Err()
		}
	}
}

// retryAt is when a call that failed with err may be tried again: when the
// throttle gate opens, or after the throttle backoff for a 5xx.
func (g *nodeGroup) retryAt(err error) time.Time {
	if until, ok := g.m.c.gate.blocked(); ok {
		return until
	}
	var te *ThrottledError
	if errors.As(err, &te) && te.Until.After(time.Now()) {
		return te.Until
	}
	if isThrottled(err) {
		return time.Now() // the gate has opened meanwhile
	}
	return time.Now().Add(g.m.cfg.ThrottleBackoff.or(DefaultThrottleBackoff))
}

// increaseOnce is one attempt of increase; writeMu must be held.
func (g *nodeGroup) increaseOnce(delta int, atomic bool) error {
	st, err := g.fresh()
	if err != nil {
		return err
	}
	if st.size+delta > g.maxSize {
		return fmt.Errorf("pool %s: size increase too large: target %d + %d exceeds max %d", g.id, st.size, delta, g.maxSize)
	}
	ctx, cancel := g.ctx()
	defer cancel()
	info, err := g.m.skus.lookup(ctx, st.sku)
	if err != nil {
		return fmt.Errorf("pool %s: %w", g.id, err)
	}
	if err := g.m.checkQuota(ctx, g.id, info, delta); err != nil {
		return err
	}
	before := map[string]bool{}
	for _, v := range st.instances {
		before[v.key] = true
	}
	// The pool records the scale-up in the same write as its new size, so
	// that a restart finds it and keeps it all-or-nothing.
	u := g.newScaleUp(before, delta, atomic, time.Now().Add(g.provisionTimeout(info)))
	op, err := g.be.setSize(ctx, st, st.size+delta, withTag(st.tags, u))
	if err != nil {
		if code, msg := errorCode(err); isOutOfResources(code, msg) {
			return &OutOfResourcesError{Pool: g.id, Message: fmt.Sprintf("Azure refused the capacity change to %d: %s", st.size+delta, msg)}
		}
		return fmt.Errorf("pool %s: setting the size of %s to %d: %w", g.id, g.be.describe(), st.size+delta, err)
	}
	klog.InfoS("Increasing pool size", "pool", g.id, "from", st.size, "to", st.size+delta, "atomic", atomic)
	g.beginScaleUp(u)
	g.mu.Lock()
	if g.state != nil {
		s := *g.state
		s.size = st.size + delta
		g.state = &s
	}
	g.fetched = time.Time{}
	g.mu.Unlock()
	g.m.goWatch(func(ctx context.Context) { g.watchScaleUp(ctx, op, u) })
	return nil
}

func (g *nodeGroup) provisionTimeout(info skuInfo) time.Duration {
	if g.pool.MaxNodeProvisionTime.Duration > 0 {
		return g.pool.MaxNodeProvisionTime.Duration
	}
	if info.GPUs > 0 {
		return g.m.cfg.GPUPools.MaxNodeProvisionTime.or(DefaultGPUMaxNodeProvisionTime)
	}
	return DefaultMaxNodeProvisionTime
}

// waitLRO polls op until it is done or the deadline passes, pausing while
// throttled and retrying transient poll failures; it returns the operation's
// outcome.
func (g *nodeGroup) waitLRO(ctx context.Context, op lro, deadline time.Time) error {
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	for !op.Done() {
		if _, err := op.Poll(ctx); err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("operation did not finish before %s: %w", deadline.Format(time.RFC3339), ctx.Err())
			}
			wait := g.m.pollInterval
			if until, ok := g.m.c.gate.blocked(); ok {
				wait = time.Until(until)
			}
			klog.V(2).InfoS("Polling an Azure operation failed; retrying", "pool", g.id, "wait", wait, "err", err)
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return fmt.Errorf("operation did not finish before %s: %w", deadline.Format(time.RFC3339), ctx.Err())
			}
			continue
		}
		if op.Done() {
			break
		}
		select {
		case <-time.After(g.m.pollInterval):
		case <-ctx.Done():
			return fmt.Errorf("operation did not finish before %s: %w", deadline.Format(time.RFC3339), ctx.Err())
		}
	}
	return op.Result(ctx)
}

// watchScaleUp follows a capacity change to its end and cleans up after a
// failure: only the instances this scale-up created are removed, never those
// of another scale-up of the pool under way at the same time.
func (g *nodeGroup) watchScaleUp(ctx context.Context, op lro, u *scaleUp) {
	opErr := g.waitLRO(ctx, op, u.deadline)
	if ctx.Err() != nil {
		return // provider shutting down; the pool's tag resumes it
	}
	if opErr != nil && isPreempted(opErr) {
		// A later write to the pool superseded the operation; its
		// instances go on being created under that one, so their own
		// states tell how the scale-up ended.
		opErr = g.followInstances(ctx, u, u.deadline)
		if ctx.Err() != nil {
			return
		}
	}
	g.finishScaleUp(ctx, u, opErr)
}

// finishScaleUp ends a scale-up whose outcome is known: on success it
// records what it created; on failure it removes them (all of them when
// atomic, else the failed ones) and reports them failed through Nodes().
// Either way the pool's record of it goes last, so a cleanup cut short by
// a restart or by Azure refusing calls is taken up again, never forgotten.
func (g *nodeGroup) finishScaleUp(ctx context.Context, u *scaleUp, outcome error) {
	if outcome == nil {
		klog.InfoS("Pool scale-up finished", "pool", g.id, "added", u.delta)
	} else {
		klog.InfoS("Pool scale-up failed", "pool", g.id, "atomic", u.atomic, "err", outcome)
	}
	var owned, remove []vm
	if !g.retryLocked(ctx, "reading the pool to finish a scale-up", func() error {
		st, err := g.fresh()
		if err != nil {
			return err
		}
		owned = g.ownedBy(u, st.instances)
		if outcome != nil {
			remove = g.reportFailed(u, owned, outcome, st.spot)
		}
		return nil
	}) {
		return // shutting down; the pool's record resumes it
	}
	if len(remove) > 0 {
		keys := make([]string, 0, len(remove))
		for _, v := range remove {
			keys = append(keys, v.key)
		}
		klog.InfoS("Deleting the instances of a failed scale-up", "pool", g.id, "instances", keys, "atomic", u.atomic)
		if !g.retryLocked(ctx, "deleting the instances of a failed scale-up", func() error { return g.deleteRemaining(ctx, keys) }) {
			return
		}
	}
	g.writeMu.Lock()
	if !g.endScaleUp(u, owned) {
		g.lowerOwedTarget(ctx)
	}
	g.writeMu.Unlock()
	result := "succeeded"
	if outcome != nil {
		result = "failed"
		if u.atomic && len(remove) > 0 {
			atomicRollbacks.WithLabelValues(g.id).Inc()
		}
	}
	if !u.began.IsZero() {
		scaleUpDuration.WithLabelValues(g.id, result).Observe(time.Since(u.began).Seconds())
	}
	g.retryLocked(ctx, "removing a scale-up's record from the pool", func() error { return g.untag(ctx, u) })
	g.invalidate()
}

// retryLocked runs f under writeMu until it succeeds, pausing between tries
// without the lock (throttle-aware, growing to the throttle backoff) so that
// the core's own writes to the pool are not held up. It gives up only when
// the provider stops, and reports whether f succeeded.
func (g *nodeGroup) retryLocked(ctx context.Context, what string, f func() error) bool {
	for attempt := 1; ctx.Err() == nil; attempt++ {
		g.writeMu.Lock()
		err := f()
		g.writeMu.Unlock()
		if err == nil {
			return true
		}
		klog.ErrorS(err, "Retrying", "pool", g.id, "what", what, "attempt", attempt)
		wait := min(time.Duration(attempt)*g.m.pollInterval, g.m.cfg.ThrottleBackoff.or(DefaultThrottleBackoff))
		if until, ok := g.m.c.gate.blocked(); ok {
			wait = time.Until(until)
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
		}
	}
	return false
}

// spared says whether a failed scale-up's rollback keeps a healthy
// instance because its node runs workload pods, and logs it when so.
func (g *nodeGroup) spared(v vm) bool {
	if v.failCode != "" || g.m.nodeInUse == nil || !g.m.nodeInUse(v.providerID) {
		return false
	}
	klog.InfoS("Keeping an instance of a failed scale-up: its node runs pods", "pool", g.id, "instance", v.key)
	return true
}

// deleteRemaining deletes those of keys the pool still has and is not
// already deleting, sparing an instance whose node took pods meanwhile (a
// retried cleanup can run long after the scale-up failed). writeMu must be
// held.
func (g *nodeGroup) deleteRemaining(ctx context.Context, keys []string) error {
	st, err := g.fresh()
	if err != nil {
		return err
	}
	want := map[string]bool{}
	for _, k := range keys {
		want[k] = true
	}
	var left []string
	for _, v := range st.instances {
		if !want[v.key] || v.state == cloudprovider.InstanceDeleting {
			continue
		}
		if g.spared(v) {
			g.mu.Lock()
			delete(g.failed, strings.ToLower(v.providerID))
			g.mu.Unlock()
			continue
		}
		left = append(left, v.key)
	}
	if len(left) == 0 {
		return nil
	}
	return g.deleteKeys(ctx, left, time.Now().Add(g.m.requestTimeout*5))
}

// reportFailed reports what a failed scale-up created through Nodes(), with
// placeholders for instances that never came, and returns what is to be
// deleted: all of it when atomic, else what failed. writeMu must be held.
func (g *nodeGroup) reportFailed(u *scaleUp, owned []vm, outcome error, spot bool) []vm {
	code, msg := errorCode(outcome)
	class := failureClass(code, msg, spot)
	if code == "" {
		code = "ScaleUpFailed"
	}
	var remove []vm
	for _, v := range owned {
		if v.state == cloudprovider.InstanceDeleting {
			continue
		}
		if v.failCode != "" || u.atomic && !g.spared(v) {
			remove = append(remove, v)
		}
	}
	now := time.Now()
	retention := g.m.cfg.FailedInstanceRetention.or(DefaultFailedInstanceRetention)
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, v := range remove {
		g.failed[strings.ToLower(v.providerID)] = failedInstance{
			inst: cloudprovider.Instance{Id: v.providerID, Status: &cloudprovider.InstanceStatus{
				State: cloudprovider.InstanceCreating,
				ErrorInfo: &cloudprovider.InstanceErrorInfo{ErrorClass: class, ErrorCode: code,
					ErrorMessage: fmt.Sprintf("scale-up of pool %s failed (%s); instance removed: %s", g.id, code, msg)},
			}},
			expires: now.Add(retention),
		}
	}
	// Placeholders for instances the operation never created, so that the
	// core still sees the failure and backs off. claimInstances never gives
	// a scale-up more than it asked for, so this is never negative.
	missing := u.delta - len(owned)
	for i := 0; i < missing; i++ {
		id := fmt.Sprintf("azure:///muster-failed/%s/%d-%d", g.id, now.UnixNano(), i)
		g.failed[id] = failedInstance{
			inst: cloudprovider.Instance{Id: id, Status: &cloudprovider.InstanceStatus{
				State: cloudprovider.InstanceCreating,
				ErrorInfo: &cloudprovider.InstanceErrorInfo{ErrorClass: class, ErrorCode: code,
					ErrorMessage: fmt.Sprintf("scale-up of pool %s failed (%s): %s", g.id, code, msg)},
			}},
			expires: now.Add(retention),
		}
	}
	g.owedTarget += missing
	return remove
}

// failureClass classes a provisioning failure for the core. In a spot pool
// every failure is out-of-resources: no spot capacity, a spot price above
// the pool's max, or a VM evicted before it came up all mean the pool
// cannot grow now, and the class makes the core back the pool off and try
// another (a regular pool) rather than retry it at once.
func failureClass(code, msg string, spot bool) cloudprovider.InstanceErrorClass {
	if spot || isOutOfResources(code, msg) {
		return cloudprovider.OutOfResourcesErrorClass
	}
	return cloudprovider.OtherErrorClass
}

// removeReclaimed deletes the pool's spot VMs that Azure reclaimed and left
// stopped and deallocated (eviction policy Deallocate): they never restart
// on their own, still hold quota, and their nodes stay NotReady. Deleting
// them lowers the pool's size, so that the core scales up anew for pods that
// need the room, as it does after a Delete-policy eviction. Called from the
// core's refresh; a pool busy writing is left to the next one.
func (g *nodeGroup) removeReclaimed(st *poolState) {
	if len(reclaimedKeys(st)) == 0 || !g.writeMu.TryLock() {
		return
	}
	defer g.writeMu.Unlock()
	st, err := g.fresh()
	if err != nil {
		return
	}
	keys := reclaimedKeys(st)
	if len(keys) == 0 {
		return
	}
	klog.InfoS("Deleting reclaimed spot instances", "pool", g.id, "instances", keys, "evictionPolicy", st.evictionPolicy)
	if err := g.deleteLocked(keys); err != nil {
		klog.ErrorS(err, "Could not delete reclaimed spot instances; trying again on the next refresh", "pool", g.id)
		return
	}
	spotReclaimsRemoved.WithLabelValues(g.id).Add(float64(len(keys)))
}

// reclaimedKeys lists a spot pool's deallocated instances not yet being
// deleted; a regular pool has none (a stopped regular VM is its owner's).
func reclaimedKeys(st *poolState) []string {
	if !st.spot {
		return nil
	}
	var keys []string
	for _, v := range st.instances {
		if v.deallocated && v.state != cloudprovider.InstanceDeleting {
			keys = append(keys, v.key)
		}
	}
	return keys
}

// isPreempted reports Azure's error for an operation superseded by a more
// recent write to the same resource.
func isPreempted(err error) bool {
	code, _ := errorCode(err)
	return code == "OperationPreempted"
}

// followInstances waits until the instances u created have all settled and
// reports the first provisioning failure among them, or a timeout when they
// have not all come by the deadline.
func (g *nodeGroup) followInstances(ctx context.Context, u *scaleUp, deadline time.Time) error {
	for {
		st, err := g.fresh()
		if err == nil {
			owned := g.ownedBy(u, st.instances)
			creating := len(owned) < u.delta
			for _, v := range owned {
				if v.failCode != "" {
					return &instanceFailure{code: v.failCode, msg: fmt.Sprintf("instance %s failed to provision: %s", v.key, v.failMsg)}
				}
				creating = creating || v.state == cloudprovider.InstanceCreating
			}
			if !creating {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("pool %s: the instances of a preempted scale-up did not all come up before %s", g.id, deadline.Format(time.RFC3339))
		}
		select {
		case <-time.After(g.m.pollInterval):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// lowerOwedTarget takes out of the target the instances failed scale-ups
// asked for and never got, never below the instances that exist, so that
// the lowering deletes nothing. Called with writeMu held once no scale-up of
// the pool is under way.
func (g *nodeGroup) lowerOwedTarget(ctx context.Context) {
	g.mu.Lock()
	owed := g.owedTarget
	g.mu.Unlock()
	if owed == 0 {
		return
	}
	st, err := g.fresh()
	if err != nil {
		klog.ErrorS(err, "Reading the pool to lower the target of a failed scale-up; retried after the next scale-up", "pool", g.id)
		return
	}
	target := max(len(st.instances), st.size-owed)
	if target < st.size {
		sctx, cancel := g.ctx()
		op, err := g.be.setSize(sctx, st, target, nil)
		cancel()
		if err != nil {
			klog.ErrorS(err, "Lowering the target of a failed scale-up; retried after the next scale-up", "pool", g.id)
			return
		}
		_ = g.waitLRO(ctx, op, time.Now().Add(g.m.requestTimeout))
	}
	g.mu.Lock()
	g.owedTarget = 0
	g.mu.Unlock()
}

func (g *nodeGroup) sleepWhileThrottled(ctx context.Context) {
	wait := g.m.pollInterval
	if until, ok := g.m.c.gate.blocked(); ok {
		wait = time.Until(until)
	}
	select {
	case <-time.After(wait):
	case <-ctx.Done():
	}
}

// deleteKeys deletes exactly the named instances and waits for Azure to
// accept it, retrying while throttled until the deadline.
func (g *nodeGroup) deleteKeys(ctx context.Context, keys []string, deadline time.Time) error {
	for {
		dctx, cancel := g.ctx()
		op, err := g.be.deleteInstances(dctx, keys)
		cancel()
		if err == nil {
			return g.waitLRO(ctx, op, deadline)
		}
		if !isThrottled(err) || time.Now().After(deadline) || ctx.Err() != nil {
			return err
		}
		g.sleepWhileThrottled(ctx)
	}
}

// DeleteNodes deletes exactly the given nodes' instances, never below min.
func (g *nodeGroup) DeleteNodes(nodes []*apiv1.Node) error { return g.deleteNodes(nodes, false) }

// ForceDeleteNodes deletes the given nodes' instances even below min.
func (g *nodeGroup) ForceDeleteNodes(nodes []*apiv1.Node) error { return g.deleteNodes(nodes, true) }

func (g *nodeGroup) deleteNodes(nodes []*apiv1.Node, force bool) error {
	g.writeMu.Lock()
	defer g.writeMu.Unlock()
	st, err := g.fresh()
	if err != nil {
		return err
	}
	byID := map[string]vm{}
	for _, v := range st.instances {
		byID[strings.ToLower(v.providerID)] = v
	}
	var keys []string
	forgot := 0
	for _, n := range nodes {
		pid := strings.ToLower(n.Spec.ProviderID)
		g.mu.Lock()
		_, wasFailed := g.failed[pid]
		delete(g.failed, pid)
		_, wasWithdrawn := g.withdrawn[pid]
		g.mu.Unlock()
		v, ok := byID[pid]
		switch {
		case ok && v.state == cloudprovider.InstanceDeleting:
			continue
		case ok:
			keys = append(keys, v.key)
		case wasFailed || wasWithdrawn:
			forgot++ // already cleaned up by the provider
		default:
			return fmt.Errorf("pool %s: node %s (providerID %q) is not an instance of %s", g.id, n.Name, n.Spec.ProviderID, g.be.describe())
		}
	}
	if len(keys) == 0 {
		if forgot > 0 {
			klog.InfoS("Forgot failed instances the provider had already removed", "pool", g.id, "count", forgot)
		}
		return nil
	}
	if !force && st.size-len(keys) < g.minSize {
		return fmt.Errorf("pool %s: deleting %d nodes would shrink it to %d, below its min %d", g.id, len(keys), st.size-len(keys), g.minSize)
	}
	klog.InfoS("Deleting pool instances", "pool", g.id, "instances", keys, "force", force)
	return g.deleteLocked(keys)
}

// deleteLocked issues the deletion of keys, marks them Deleting in the cache
// and follows the operation in the background. writeMu must be held.
func (g *nodeGroup) deleteLocked(keys []string) error {
	ctx, cancel := g.ctx()
	defer cancel()
	op, err := g.be.deleteInstances(ctx, keys)
	if err != nil {
		return fmt.Errorf("pool %s: deleting instances %v of %s: %w", g.id, keys, g.be.describe(), err)
	}
	g.mu.Lock()
	if g.state != nil {
		s := *g.state
		s.size -= len(keys)
		s.instances = nil
		gone := map[string]bool{}
		for _, k := range keys {
			gone[k] = true
		}
		for _, v := range g.state.instances {
			if gone[v.key] {
				v.state = cloudprovider.InstanceDeleting
			}
			s.instances = append(s.instances, v)
		}
		g.state = &s
	}
	g.mu.Unlock()
	g.m.goWatch(func(ctx context.Context) {
		if err := g.waitLRO(ctx, op, time.Now().Add(g.m.requestTimeout*5)); err != nil && ctx.Err() == nil {
			klog.ErrorS(err, "Deleting pool instances did not complete", "pool", g.id, "instances", keys)
		}
		g.invalidate()
	})
	return nil
}

// WithdrawCreating deletes up to n of the pool's instances that are still
// being created and whose providerID no registered node carries (registered
// holds lower-case provider IDs), newest first and never below min. It is
// for a scale-up whose pods went elsewhere before the nodes came up: the
// pool is read fresh, so an instance that has meanwhile come up is kept.
// It returns the provider IDs of the withdrawn instances.
func (g *nodeGroup) WithdrawCreating(n int, registered map[string]bool) ([]string, error) {
	if n <= 0 {
		return nil, nil
	}
	g.writeMu.Lock()
	defer g.writeMu.Unlock()
	st, err := g.fresh()
	if err != nil {
		return nil, err
	}
	var creating []vm
	for _, v := range st.instances {
		if v.state == cloudprovider.InstanceCreating && v.failCode == "" && !registered[strings.ToLower(v.providerID)] {
			creating = append(creating, v)
		}
	}
	n = min(n, len(creating), st.size-g.minSize)
	if n <= 0 {
		return nil, nil
	}
	// Newest first: instance IDs and machine names grow with each
	// instance, so the longer, then the greater, is the newer.
	sort.Slice(creating, func(a, b int) bool {
		ka, kb := creating[a].key, creating[b].key
		if len(ka) != len(kb) {
			return len(ka) > len(kb)
		}
		return ka > kb
	})
	keys := make([]string, 0, n)
	ids := make([]string, 0, n)
	for _, v := range creating[:n] {
		keys = append(keys, v.key)
		ids = append(ids, v.providerID)
	}
	klog.InfoS("Withdrawing pool instances still being created", "pool", g.id, "instances", keys)
	if err := g.deleteLocked(keys); err != nil {
		return nil, err
	}
	forget := time.Now().Add(g.m.cfg.FailedInstanceRetention.or(DefaultFailedInstanceRetention))
	g.mu.Lock()
	for _, id := range ids {
		g.withdrawn[strings.ToLower(id)] = forget
	}
	for id, until := range g.withdrawn {
		if time.Now().After(until) {
			delete(g.withdrawn, id)
		}
	}
	g.mu.Unlock()
	return ids, nil
}

// DecreaseTargetSize lowers the target for instances not yet created; it
// never deletes an existing instance and never goes below min.
func (g *nodeGroup) DecreaseTargetSize(delta int) error {
	if delta >= 0 {
		return fmt.Errorf("pool %s: size decrease must be negative, got %d", g.id, delta)
	}
	g.writeMu.Lock()
	defer g.writeMu.Unlock()
	st, err := g.fresh()
	if err != nil {
		return err
	}
	target := st.size + delta
	if target < len(st.instances) {
		return fmt.Errorf("pool %s: attempt to delete existing instances: target %d + %d is below the %d instances that exist", g.id, st.size, delta, len(st.instances))
	}
	if target < g.minSize {
		return fmt.Errorf("pool %s: decreasing the target to %d goes below min %d", g.id, target, g.minSize)
	}
	ctx, cancel := g.ctx()
	defer cancel()
	op, err := g.be.setSize(ctx, st, target, nil)
	if err != nil {
		return fmt.Errorf("pool %s: setting the size of %s to %d: %w", g.id, g.be.describe(), target, err)
	}
	g.m.goWatch(func(ctx context.Context) {
		_ = g.waitLRO(ctx, op, time.Now().Add(g.m.requestTimeout))
		g.invalidate()
	})
	g.invalidate()
	return nil
}

// Nodes lists the pool's instances, with those that failed to provision
// carrying their error class.
func (g *nodeGroup) Nodes() ([]cloudprovider.Instance, error) {
	st, err := g.cached(false)
	if err != nil {
		return nil, err
	}
	var out []cloudprovider.Instance
	present := map[string]bool{}
	for _, v := range st.instances {
		present[strings.ToLower(v.providerID)] = true
		inst := cloudprovider.Instance{Id: v.providerID, Status: &cloudprovider.InstanceStatus{State: v.state}}
		if v.failCode != "" {
			class := failureClass(v.failCode, v.failMsg, st.spot)
			inst.Status.ErrorInfo = &cloudprovider.InstanceErrorInfo{ErrorClass: class, ErrorCode: v.failCode, ErrorMessage: v.failMsg}
		}
		out = append(out, inst)
	}
	now := time.Now()
	g.mu.Lock()
	var failedIDs []string
	for id, f := range g.failed {
		if now.After(f.expires) {
			delete(g.failed, id)
			continue
		}
		if !present[id] {
			failedIDs = append(failedIDs, id)
		}
	}
	sort.Strings(failedIDs)
	for _, id := range failedIDs {
		out = append(out, g.failed[id].inst)
	}
	g.mu.Unlock()
	return out, nil
}

// hasInstance reports whether providerID is one of the pool's instances,
// re-reading the pool once when it is not in the cache.
func (g *nodeGroup) hasInstance(providerID string) bool {
	pid := strings.ToLower(providerID)
	for _, force := range []bool{false, true} {
		st, err := g.cached(force)
		if err != nil {
			return true // cannot tell: do not report the node as gone
		}
		for _, v := range st.instances {
			if strings.ToLower(v.providerID) == pid {
				return true
			}
		}
	}
	return false
}

// TemplateNodeInfo builds the node the pool would add, from the Resource
// SKUs data of its size.
func (g *nodeGroup) TemplateNodeInfo() (*framework.NodeInfo, error) {
	st, err := g.cached(false)
	if err != nil {
		return nil, err
	}
	info, err := g.m.skus.lookup(g.m.ctx, st.sku)
	if err != nil {
		return nil, fmt.Errorf("pool %s: %w", g.id, err)
	}
	spec, err := g.templateSpec(st, info)
	if err != nil {
		return nil, err
	}
	node, err := buildTemplateNode(spec)
	if err != nil {
		return nil, err
	}
	return templateNodeInfo(node), nil
}

func (g *nodeGroup) templateSpec(st *poolState, info skuInfo) (templateSpec, error) {
	labels, taints, err := tagLabelsAndTaints(st.tags)
	if err != nil {
		return templateSpec{}, fmt.Errorf("pool %s: %w", g.id, err)
	}
	for k, v := range st.labels {
		labels[k] = v
	}
	taints = mergeTaints(taints, st.taints)
	for k, v := range g.pool.Labels {
		labels[k] = v
	}
	for _, s := range g.pool.Taints {
		t, err := parseTaint(s)
		if err != nil {
			return templateSpec{}, fmt.Errorf("pool %s: taints: %w", g.id, err)
		}
		taints = mergeTaints(taints, []apiv1.Taint{t})
	}
	ppg := st.ppg
	if ppg == "" {
		ppg = g.id
	}
	location := st.location
	if location == "" {
		location = g.m.cfg.Location
	}
	maxPods := st.maxPods
	if maxPods == 0 {
		maxPods = g.m.cfg.MaxPods
	}
	return templateSpec{
		Pool: g.id, SKU: info, Location: location, Zones: st.zones, PlacementGroup: ppg,
		Labels: labels, Taints: taints, MaxPods: maxPods, KubeReserved: g.m.kubeReserved, AKSMode: st.mode, Spot: st.spot,
	}, nil
}

// GetOptions gives GPU pools a longer scale-down unneeded time and
// provisioning timeout (configurable); per-pool settings win.
func (g *nodeGroup) GetOptions(defaults config.NodeGroupAutoscalingOptions) (*config.NodeGroupAutoscalingOptions, error) {
	o := defaults
	if g.isGPU() {
		o.ScaleDownUnneededTime = g.m.cfg.GPUPools.ScaleDownUnneededTime.or(DefaultGPUScaleDownUnneededTime)
		o.MaxNodeProvisionTime = g.m.cfg.GPUPools.MaxNodeProvisionTime.or(DefaultGPUMaxNodeProvisionTime)
	}
	if g.pool.ScaleDownUnneededTime.Duration > 0 {
		o.ScaleDownUnneededTime = g.pool.ScaleDownUnneededTime.Duration
	}
	if g.pool.MaxNodeProvisionTime.Duration > 0 {
		o.MaxNodeProvisionTime = g.pool.MaxNodeProvisionTime.Duration
	}
	return &o, nil
}
