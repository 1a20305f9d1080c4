// SteppedPrioritySort: upstream's queue order, with the queue's wall-time stamps read as the held queue's releases.

package controlplane

import (
	"context"
	"sort"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/muster-project/muster/pkg/gang"
)

// SteppedPrioritySortName is the queue sort a stepped scheduler runs in
// place of PrioritySort in a profile that has it (the baseline's default
// profile; Muster's profile sorts with MusterGang).
//
// PrioritySort takes the higher priority first and then the older stamp
// the queue put on the pod: the wall time it was added, or put back after
// an attempt that failed. On the stepped clock those stamps say nothing
// about the trace: a step's pods are added, and fail, within milliseconds
// of one another, in whatever order the API server, the informers and the
// goroutines that wrote them happened to take; the simulator creates the
// pods that replace evicted ones concurrently. So in a replay of seed 3's
// trace the members of a preempted gang, replaced at minute 24, took the
// six nodes an ended gang freed at minute 45 in a different order in each
// run, and another gang got some of them or none.
//
// SteppedPrioritySort reads a stamp as the release of the held queue it
// followed (Scheduler.Release): pods stamped between the same two releases
// (added while a half step was held, or failed while it settled) are
// alike, and go by namespace and name; a pod stamped in an earlier half
// step still goes first, as upstream's older stamp would. The order is
// gang.Less's, with no gang and no trace-time age.
const SteppedPrioritySortName = "SteppedPrioritySort"

// releases are the wall times at which a stepped scheduler's held queue
// was released, in order.
type releases struct {
	mu sync.RWMutex
	at []time.Time
}

// mark records a release at now.
func (r *releases) mark(now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.at = append(r.at, now)
}

// before is the last release at or before t (the zero time if none).
func (r *releases) before(t time.Time) time.Time {
	r.mu.RLock()
	defer r.mu.RUnlock()
	i := sort.Search(len(r.at), func(i int) bool { return r.at[i].After(t) })
	if i == 0 {
		return time.Time{}
	}
	return r.at[i-1]
}

type steppedPrioritySort struct {
	releases *releases
}

var _ fwk.QueueSortPlugin = (*steppedPrioritySort)(nil)

func (p *steppedPrioritySort) Name() string { return SteppedPrioritySortName }

// Less orders by priority, then by the release the queue's stamp followed,
// then by namespace and name.
func (p *steppedPrioritySort) Less(a, b fwk.QueuedEntityInfo) bool {
	return gang.Less(p.key(a), p.key(b))
}

func (p *steppedPrioritySort) key(e fwk.QueuedEntityInfo) gang.QueueKey {
	k := gang.QueueKey{Priority: e.GetPriority(), Enqueued: p.releases.before(e.GetTimestamp())}
	if pi, ok := e.(interface{ GetPodInfo() fwk.PodInfo }); ok {
		pod := pi.GetPodInfo().GetPod()
		k.Namespace, k.Name = pod.Namespace, pod.Name
	}
	return k
}

// factory is the plugin of a profile that enables it, reading r.
func (r *releases) factory(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) {
	return &steppedPrioritySort{releases: r}, nil
}
