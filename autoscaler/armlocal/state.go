// The in-memory state: instances, pools, scale sets, agent pools and async operations.

package armlocal

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Provisioning states as ARM reports them.
const (
	StateCreating  = "Creating"
	StateSucceeded = "Succeeded"
	StateFailed    = "Failed"
	StateDeleting  = "Deleting"
)

// instance is one VM of a scale set or one machine of an agent pool.
type instance struct {
	id           int
	computerName string
	created      time.Time
	zone         string
	readyAt      time.Time // Creating until then
	failCode     string    // non-empty: ends Failed at readyAt
	failMessage  string
	deleteAt     time.Time // non-zero: Deleting until then, gone after
	gone         bool
	// deallocated: a spot VM reclaimed under the Deallocate policy, stopped
	// for good (Azure does not restart it).
	deallocated bool
}

func (i *instance) state(now time.Time) string {
	switch {
	case !i.deleteAt.IsZero():
		return StateDeleting
	case now.Before(i.readyAt):
		return StateCreating
	case i.failCode != "":
		return StateFailed
	default:
		return StateSucceeded
	}
}

// pool is the state shared by scale sets and agent pools.
type pool struct {
	resourceGroup string
	name          string
	sku           string
	tags          map[string]string
	zones         []string
	ppg           string        // proximity placement group name, may be empty
	provDelay     time.Duration // how long its new instances stay Creating; 0: the server's
	spot          *Spot         // nil: regular VMs
	nextID        int
	instances     []*instance
	lastOpFailed  bool
	// capacityWrites counts the writes taken that set its capacity (a
	// scale set PATCH with sku.capacity, an agent pool PUT changing its
	// count): what a test checks to see how often the pool was scaled.
	capacityWrites int
}

// live returns the instances not yet gone, in ID order.
func (p *pool) live() []*instance {
	var out []*instance
	for _, i := range p.instances {
		if !i.gone {
			out = append(out, i)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].id < out[b].id })
	return out
}

// gc drops instances whose deletion has completed.
func (p *pool) gc(now time.Time) {
	for _, i := range p.instances {
		if !i.deleteAt.IsZero() && !now.Before(i.deleteAt) {
			i.gone = true
		}
	}
	kept := p.instances[:0]
	for _, i := range p.instances {
		if !i.gone {
			kept = append(kept, i)
		}
	}
	p.instances = kept
}

// retireNewestLocked starts deleting the n newest live instances not
// already being deleted, as a scale set without a scale-in policy does.
func (s *Server) retireNewestLocked(p *pool, n int, now time.Time) []*instance {
	var out []*instance
	live := p.live()
	for k := len(live) - 1; k >= 0 && len(out) < n; k-- {
		if live[k].deleteAt.IsZero() {
			live[k].deleteAt = now.Add(s.delDelay)
			s.noteDeletionLocked(p, live[k], DeletionScaleIn, now)
			out = append(out, live[k])
		}
	}
	return out
}

func (p *pool) find(id int) *instance {
	for _, i := range p.instances {
		if i.id == id && !i.gone {
			return i
		}
	}
	return nil
}

// scaleSet is a VM scale set in flexible-less "uniform" orchestration.
type scaleSet struct {
	pool
	capacity int
}

// agentPool is an AKS managed cluster agent pool; its machines live in a
// scale set in the cluster's node resource group.
type agentPool struct {
	pool
	cluster      string
	nodeRG       string
	vmssName     string
	count        int
	mode         string
	nodeLabels   map[string]string
	nodeTaints   []string
	maxPods      int
	provisioning string
	version      int // bumped by every write; the ETag
}

// computerName is Azure's scale set VM host name: the prefix and the
// instance ID in base 36, six digits.
func computerName(prefix string, id int) string {
	s := strconv.FormatInt(int64(id), 36)
	return prefix + strings.Repeat("0", max(0, 6-len(s))) + s
}

// operation is an ARM asynchronous operation.
type operation struct {
	id       string
	started  time.Time
	creates  []*instance // instances this operation adds
	deletes  []*instance // instances this operation removes
	failCode string      // fixed failure (e.g. partial provisioning)
	failMsg  string
	// preempted is set when a later write to the same pool superseded this
	// operation: it ends Failed (OperationPreempted) at once, while its
	// instances go on being created under the later one.
	preempted bool
	pool      *pool
	// aks is set for agent pool operations: failed machines vanish and the
	// pool's provisioning state follows the operation.
	aks *agentPool
}

// status is InProgress until every instance has settled; Failed when one of
// the created instances failed.
func (o *operation) status(now time.Time) (string, string, string) {
	if o.preempted {
		return "Failed", "OperationPreempted", "Operation execution has been preempted by a more recent operation."
	}
	for _, i := range o.creates {
		if i.gone {
			continue
		}
		if now.Before(i.readyAt) {
			return "InProgress", "", ""
		}
	}
	for _, i := range o.deletes {
		if !i.gone && !i.deleteAt.IsZero() && now.Before(i.deleteAt) {
			return "InProgress", "", ""
		}
	}
	failed := 0
	code, msg := "", ""
	for _, i := range o.creates {
		if i.failCode != "" {
			failed++
			code, msg = i.failCode, i.failMessage
		}
	}
	if failed > 0 {
		return "Failed", code, fmt.Sprintf("%d of %d instances failed to provision: %s", failed, len(o.creates), msg)
	}
	return "Succeeded", "", ""
}
