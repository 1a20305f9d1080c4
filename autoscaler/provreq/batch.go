// One capacity write per pool for a loop's requests: their scale-ups are held, then written as one.

package provreq

import (
	"errors"
	"fmt"
	"sync"
	"time"

	apiv1 "k8s.io/api/core/v1"
	"k8s.io/autoscaler/cluster-autoscaler/cloudprovider"
	"k8s.io/autoscaler/cluster-autoscaler/observers/nodegroupchange"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/framework"
	ca_errors "k8s.io/autoscaler/cluster-autoscaler/utils/errors"
	cagpu "k8s.io/autoscaler/cluster-autoscaler/utils/gpu"
	"k8s.io/klog/v2"
)

// poolBatch holds the size increases the core's executor asks for while
// the loop's requests are served, so that each pool is written once for
// all of them: on Azure a second write to a pool whose first is under way
// conflicts, and every write costs API quota. While open, the node groups
// it hands out (batchedGroup) record an increase instead of making it and
// count what was recorded in their target size, so that a later request
// sees exactly the headroom the earlier ones left.
type poolBatch struct {
	mu     sync.Mutex
	open   bool
	groups map[string]*batchedGroup // by pool id, one wrapper per pool
	asks   map[string]int           // pool id -> nodes recorded
	atomic map[string]bool          // pool id -> some increase asked all-or-nothing
	order  []string                 // pool ids in the order first asked
}

func newPoolBatch() *poolBatch {
	return &poolBatch{groups: map[string]*batchedGroup{}}
}

// begin opens the batch for a loop's requests.
func (b *poolBatch) begin() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.open, b.asks, b.atomic, b.order = true, map[string]int{}, map[string]bool{}, nil
}

// poolWrite is one pool's combined increase.
type poolWrite struct {
	group  cloudprovider.NodeGroup // the provider's own
	delta  int
	atomic bool
}

// end closes the batch and returns each pool's combined increase, in the
// order the pools were first asked. Closed, the wrappers pass everything
// through to the provider's node groups.
func (b *poolBatch) end() []poolWrite {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.open = false
	out := make([]poolWrite, 0, len(b.order))
	for _, id := range b.order {
		out = append(out, poolWrite{group: b.groups[id].NodeGroup, delta: b.asks[id], atomic: b.atomic[id]})
	}
	return out
}

// wrap returns the batch's node group for ng, the same one for a pool
// every time (the core compares groups by id, processors may keep them).
func (b *poolBatch) wrap(ng cloudprovider.NodeGroup) cloudprovider.NodeGroup {
	if ng == nil {
		return nil
	}
	if bg, ok := ng.(*batchedGroup); ok {
		return bg
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if bg, ok := b.groups[ng.Id()]; ok && bg.NodeGroup == ng {
		return bg
	}
	bg := &batchedGroup{NodeGroup: ng, b: b}
	b.groups[ng.Id()] = bg
	return bg
}

// held is the number of nodes recorded for pool id while the batch is open.
func (b *poolBatch) held(id string) (int, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.asks[id], b.open
}

// ask records an increase of g's pool, checked against its max size as the
// provider would check it.
func (b *poolBatch) ask(g *batchedGroup, delta int, atomic bool) error {
	id := g.Id()
	if delta <= 0 {
		return fmt.Errorf("pool %s: size increase must be positive, got %d", id, delta)
	}
	target, err := g.NodeGroup.TargetSize()
	if err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.open {
		return errBatchClosed
	}
	if target+b.asks[id]+delta > g.MaxSize() {
		return fmt.Errorf("pool %s: size increase too large: target %d + %d held for this loop + %d exceeds max %d", id, target, b.asks[id], delta, g.MaxSize())
	}
	if _, ok := b.asks[id]; !ok {
		b.order = append(b.order, id)
	}
	b.asks[id] += delta
	b.atomic[id] = b.atomic[id] || atomic
	return nil
}

var errBatchClosed = errors.New("batch closed")

// batchedGroup is a pool as the core sees it while a batch is open.
type batchedGroup struct {
	cloudprovider.NodeGroup
	b *poolBatch
}

// TargetSize counts the nodes recorded for the pool in this loop.
func (g *batchedGroup) TargetSize() (int, error) {
	n, err := g.NodeGroup.TargetSize()
	if err != nil {
		return 0, err
	}
	held, _ := g.b.held(g.Id())
	return n + held, nil
}

// IncreaseSize records the increase while the batch is open.
func (g *batchedGroup) IncreaseSize(delta int) error {
	if err := g.b.ask(g, delta, false); err != errBatchClosed {
		return err
	}
	return g.NodeGroup.IncreaseSize(delta)
}

// AtomicIncreaseSize records an all-or-nothing increase while the batch is open.
func (g *batchedGroup) AtomicIncreaseSize(delta int) error {
	if err := g.b.ask(g, delta, true); err != errBatchClosed {
		return err
	}
	return g.NodeGroup.AtomicIncreaseSize(delta)
}

// batchedProvider is the cloud provider as the core sees it while the
// loop's requests are served: its node groups are the batch's.
type batchedProvider struct {
	cloudprovider.CloudProvider
	b *poolBatch
}

func (p *batchedProvider) NodeGroups() []cloudprovider.NodeGroup {
	groups := p.CloudProvider.NodeGroups()
	out := make([]cloudprovider.NodeGroup, 0, len(groups))
	for _, ng := range groups {
		out = append(out, p.b.wrap(ng))
	}
	return out
}

func (p *batchedProvider) NodeGroupForNode(n *apiv1.Node) (cloudprovider.NodeGroup, error) {
	ng, err := p.CloudProvider.NodeGroupForNode(n)
	if err != nil || ng == nil {
		return ng, err
	}
	return p.b.wrap(ng), nil
}

// unwrap returns the provider's own node group behind ng.
func unwrap(ng cloudprovider.NodeGroup) cloudprovider.NodeGroup {
	if bg, ok := ng.(*batchedGroup); ok {
		return bg.NodeGroup
	}
	return ng
}

// batchNotifier stands between the requests' executor and the core's
// observers (cluster state, backoff): an increase held in the batch is
// registered only once its pool's combined write is made (or registered
// failed when it fails), as the executor registers a write it made.
// Everything else goes through, with the provider's own node group.
type batchNotifier struct {
	next *nodegroupchange.NodeGroupChangeObserversList
}

func (n *batchNotifier) RegisterScaleUp(ng cloudprovider.NodeGroup, delta int, at time.Time) {
	if bg, ok := ng.(*batchedGroup); ok {
		if _, open := bg.b.held(bg.Id()); open {
			return
		}
	}
	n.next.RegisterScaleUp(unwrap(ng), delta, at)
}

func (n *batchNotifier) RegisterScaleDown(ng cloudprovider.NodeGroup, node string, at, expected time.Time) {
	n.next.RegisterScaleDown(unwrap(ng), node, at, expected)
}

func (n *batchNotifier) RegisterFailedScaleUp(ng cloudprovider.NodeGroup, reason, msg, gpuResource, gpuType string, at time.Time) {
	n.next.RegisterFailedScaleUp(unwrap(ng), reason, msg, gpuResource, gpuType, at)
}

func (n *batchNotifier) RegisterFailedScaleDown(ng cloudprovider.NodeGroup, reason string, at time.Time) {
	n.next.RegisterFailedScaleDown(unwrap(ng), reason, at)
}

// writePools makes each pool's combined increase, one write per pool, and
// tells the core's observers of each outcome as its executor does for one
// scale-up. It returns the failures by pool id.
func (o *Orchestrator) writePools(writes []poolWrite, nodeInfos map[string]*framework.NodeInfo) map[string]ca_errors.AutoscalerError {
	failed := map[string]ca_errors.AutoscalerError{}
	var gpuTypes map[string]struct{}
	if o.ctx.CloudProvider != nil {
		gpuTypes = o.ctx.CloudProvider.GetAvailableGPUTypes()
	}
	for _, w := range writes {
		id := w.group.Id()
		gpuResource, gpuType := "", ""
		if ni, ok := nodeInfos[id]; ok && ni != nil && ni.Node() != nil && o.ctx.CloudProvider != nil {
			gpuResource, gpuType = cagpu.GetGpuInfoForMetrics(o.ctx.CloudProvider.GetNodeGpuConfig(ni.Node()), gpuTypes, ni.Node(), nil)
		}
		var err error = cloudprovider.ErrNotImplemented
		if w.atomic {
			err = w.group.AtomicIncreaseSize(w.delta)
		}
		if err == cloudprovider.ErrNotImplemented {
			// The provider has no all-or-nothing increase: as the core's
			// executor does, fall back to a plain one.
			err = w.group.IncreaseSize(w.delta)
		}
		now := o.now()
		if err != nil {
			aerr := ca_errors.ToAutoscalerError(ca_errors.CloudProviderError, err).AddPrefix("failed to increase node group size: ")
			if o.ctx.LogRecorder != nil {
				o.ctx.LogRecorder.Eventf(apiv1.EventTypeWarning, "FailedToScaleUpGroup", "Scale-up failed for group %s: %v", id, err)
			}
			if o.notifier != nil {
				o.notifier.RegisterFailedScaleUp(w.group, string(aerr.Type()), aerr.Error(), gpuResource, gpuType, now)
			}
			klog.ErrorS(err, "The combined scale-up of a pool for this loop's ProvisioningRequests failed", "pool", id, "delta", w.delta, "atomic", w.atomic)
			failed[id] = aerr
			continue
		}
		if o.notifier != nil {
			// Wall time, as the core's executor registers a scale-up.
			o.notifier.RegisterScaleUp(w.group, w.delta, time.Now())
		}
		klog.V(1).InfoS("Scaled a pool once for this loop's ProvisioningRequests", "pool", id, "delta", w.delta, "atomic", w.atomic)
	}
	return failed
}
