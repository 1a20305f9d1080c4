// Shedding the gang members of spot nodes that Azure reclaims.

package gang

import (
	"context"
	"fmt"
	"sync"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/muster-project/muster/pkg/capacity"
	"github.com/muster-project/muster/pkg/gang"
)

// spotReclaims sheds the gang members of spot nodes Azure reclaims, the
// capacity plan's way (Eviction API, DisruptionTarget saying why), so that
// their operator replaces them and the gang says in words that it shrank.
// Spot nodes hold only members above min (capacity.SpotRule), so a reclaim
// never takes a gang below min.
type spotReclaims struct {
	pl *Gang
	mu sync.Mutex
	// shed remembers the nodes already handled, until they are deleted.
	shed map[string]bool
}

func (pl *Gang) watchSpotReclaims(ctx context.Context, h fwk.Handle) error {
	r := &spotReclaims{pl: pl, shed: map[string]bool{}}
	_, err := h.SharedInformerFactory().Core().V1().Nodes().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, o any) {
			if n, ok := o.(*v1.Node); ok {
				if why := capacity.SpotReclaimed(n); why != "" {
					r.reclaimed(ctx, n.Name, why, false)
				}
			}
		},
		DeleteFunc: func(o any) {
			if d, ok := o.(cache.DeletedFinalStateUnknown); ok {
				o = d.Obj
			}
			if n, ok := o.(*v1.Node); ok && capacity.IsSpot(n) {
				r.reclaimed(ctx, n.Name, "was deleted", true)
			}
		},
	})
	return err
}

// reclaimed sheds the live gang members bound to node: once while the node
// stays reclaimed, and again when it is deleted (members that outlived the
// first pass), after which the node is forgotten.
func (r *spotReclaims) reclaimed(ctx context.Context, node, why string, deleted bool) {
	if !r.pl.leading.Leading() {
		return // the leader sheds; a standby taking over sees the node still reclaimed
	}
	r.mu.Lock()
	done := r.shed[node]
	if deleted {
		delete(r.shed, node)
	} else {
		r.shed[node] = true
	}
	r.mu.Unlock()
	if done && !deleted {
		return
	}
	// Off the informer's goroutine: evictions are API calls.
	go r.shedMembers(ctx, node, why)
}

// shedMembers evicts the live gang members bound to node and says why on
// each and on their gangs.
func (r *spotReclaims) shedMembers(ctx context.Context, node, why string) {
	pl := r.pl
	byGang := map[gang.Key][]*v1.Pod{}
	for _, o := range pl.pods.List() {
		p, ok := o.(*v1.Pod)
		if !ok || p.Spec.NodeName != node || !gang.Live(p) {
			continue
		}
		if k, _, isGang, err := gang.GroupOf(p); isGang && err == nil {
			byGang[k] = append(byGang[k], p)
		}
	}
	for k, pods := range byGang {
		spec, _, err := pl.resolve(pods[0])
		if err != nil {
			continue
		}
		left := 0
		for _, m := range pl.members(k) {
			if m.Spec.NodeName != "" && m.Spec.NodeName != node && gang.Live(m) {
				left++
			}
		}
		outcome := fmt.Sprintf("; the gang runs on with %d of min %d, max %d, and grows again when room comes", left, spec.MinMember, spec.MaxMember)
		if left < int(spec.MinMember) {
			outcome = fmt.Sprintf(", leaving %d of min %d", left, spec.MinMember)
		}
		msg := fmt.Sprintf("spot node %s %s (reclaimed by Azure): %d member(s) of gang %s shed%s", node, why, len(pods), k, outcome)
		klog.FromContext(ctx).Info("Shedding gang members of a reclaimed spot node", "node", node, "gang", k, "members", len(pods), "left", left, "min", spec.MinMember)
		for _, p := range pods {
			pl.evict(ctx, p, gang.ReasonSpotReclaimed, gang.ReasonSpotReclaimed, msg)
		}
		pl.state.ReportCondition(k, metav1.Condition{Type: gang.ConditionDisrupted, Status: metav1.ConditionTrue, Reason: gang.ReasonSpotReclaimed, Message: msg})
		if obj := pl.eventObject(k, pods[0]); obj != nil {
			pl.handle.EventRecorder().Eventf(obj, nil, v1.EventTypeWarning, gang.ReasonSpotReclaimed, "Shedding", "%s", msg)
		}
		pl.status.touch(k)
	}
}
