// Members bound below min past the timeout are evicted; bound members are marked safe-to-evict or not.

package gang

import (
	"context"
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"

	"github.com/muster-project/muster/pkg/gang"
)

// checkStranded applies the stranded-members policy (gang.Spec.Stranded):
// it notes when a gang's bound members fell below min, on the members
// themselves (gang.StrandedSinceAnnotation) so that a scheduler taking over
// keeps counting from then, looks again when the gang's timeout has passed,
// and then evicts them, saying why on each pod and on the gang.
func (w *statusWriter) checkStranded(ctx context.Context, spec gang.Spec, obs gang.Observed, members []*v1.Pod, eventObj runtime.Object) {
	k := spec.Key
	var bound []*v1.Pod
	for _, m := range members {
		if m.Spec.NodeName != "" && gang.Live(m) {
			bound = append(bound, m)
		}
	}
	if w.pl.strandedPolicy != gang.StrandedEvict || !spec.Stranded(len(bound), obs.Succeeded, obs.Failed) {
		delete(w.stranded, k)
		for _, m := range members { // the quorum came back: a later fall starts afresh
			if _, ok := m.Annotations[gang.StrandedSinceAnnotation]; ok && gang.Live(m) {
				w.marks.Annotate(m, map[string]*string{gang.StrandedSinceAnnotation: nil})
			}
		}
		return
	}
	// While the tracker counts the quorum placed (permitted, its binds on
	// the way) the count neither starts nor stops: the informer shows a
	// quorum's binds one by one, and marking the first ones stranded cost
	// two writes per member of every gang that binds; and a member whose
	// bind fails and is retried must not restart a count already running
	// (nor a failover read it gone). A bind that fails releases the member
	// and touches the gang, so the count is looked at again then.
	if spec.QuorumPlaced(obs.Counts) {
		return
	}
	now := w.pl.clock.Now()
	since, seen := w.stranded[k]
	if !seen {
		recorded := make([]string, 0, len(bound))
		for _, m := range bound {
			recorded = append(recorded, m.Annotations[gang.StrandedSinceAnnotation])
		}
		var ok bool
		if since, ok = gang.StrandedSince(recorded, now); !ok {
			since = now
		}
		since = since.Truncate(time.Millisecond) // as the annotation keeps it
		w.stranded[k] = since
	}
	w.recordStranded(bound, since)
	evict, left, msg := spec.StrandedVerdict(len(bound), since, now)
	if !evict {
		if !seen {
			w.pl.clock.AfterFunc(left+w.period, func() { w.touch(k) })
		}
		return
	}
	// Evictions can be refused (a disruption budget): count a new timeout
	// from now rather than retrying on every sync.
	w.stranded[k] = now.Truncate(time.Millisecond)
	w.pl.clock.AfterFunc(spec.Timeout+w.period, func() { w.touch(k) })
	klog.FromContext(ctx).Info("Evicting a gang's stranded members", "gang", k, "bound", len(bound), "min", spec.MinMember, "strandedSince", since)
	w.h.EventRecorder().Eventf(eventObj, nil, v1.EventTypeWarning, gang.ReasonStranded, "Evicting", "%s", msg)
	for _, m := range bound {
		w.pl.evict(ctx, m, gang.ReasonStranded, gang.ReasonStranded, msg)
	}
}

// recordStranded writes since on the bound members that do not show it yet.
func (w *statusWriter) recordStranded(bound []*v1.Pod, since time.Time) {
	value := gang.FormatStrandedSince(since)
	for _, m := range bound {
		if m.Annotations[gang.StrandedSinceAnnotation] != value {
			w.marks.Annotate(m, map[string]*string{gang.StrandedSinceAnnotation: &value})
		}
	}
}

// protect keeps the cluster-autoscaler from emptying nodes that hold a gang's
// quorum: bound members are annotated safe-to-evict "false" while the gang has
// min or fewer bound, and members beyond min "true", newest first.
func (w *statusWriter) protect(members []*v1.Pod, min int32) {
	var bound []gang.Placed
	for _, m := range members {
		if m.Spec.NodeName != "" && gang.Live(m) {
			bound = append(bound, gang.Placed{Name: m.Name, Created: m.CreationTimestamp.Time})
		}
	}
	if len(bound) == 0 {
		return
	}
	safe := gang.SafeToEvict(bound, min)
	for _, m := range members {
		verdict, ok := safe[m.Name]
		if !ok {
			continue
		}
		want := strconv.FormatBool(verdict)
		// The pod writer knows a value pending or just written (the
		// consume mark carries the verdict of a member that will be
		// protected once bound) that the informer's copy may not show.
		if v, ok := w.marks.Carried(m, gang.SafeToEvictAnnotation); ok && v == want {
			continue
		}
		w.marks.Annotate(m, map[string]*string{gang.SafeToEvictAnnotation: &want})
	}
}
