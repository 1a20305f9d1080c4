// Pod marks: members consuming a request, held, or left to ordinary scale-up, and the gang's condition mirrored.

package provisioning

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	resourcehelper "k8s.io/component-helpers/resource"

	autoscalingv1 "github.com/muster-project/muster/pkg/apis/autoscaling/v1"
	"github.com/muster-project/muster/pkg/capacity"
	"github.com/muster-project/muster/pkg/gang"
)

// annotate marks the gang's unplaced members as consumers of the request
// (or of HoldName).
func (w *Writer) annotate(members []*v1.Pod, name string) {
	class := autoscalingv1.ClassBestEffortAtomicScaleUp
	protected := w.protectedOnceBound(members)
	no := "false"
	for _, p := range members {
		// Whether the member is marked so already is the pod writer's to
		// say (Annotate): the pod's own copy may predate a mark pending or
		// on its way, and skipping on it left such a mark standing.
		if p.Spec.NodeName != "" {
			continue
		}
		marks := map[string]*string{autoscalingv1.ConsumeAnnotation: &name, autoscalingv1.ClassAnnotation: &class}
		if protected[p.Name] {
			// The safe-to-evict verdict it will have once bound
			// (MusterGang writes it then otherwise), in the same write;
			// the autoscaler reads it only on pods on nodes.
			marks[gang.SafeToEvictAnnotation] = &no
		}
		w.marks.Annotate(p, marks)
	}
}

// protectedOnceBound names the members of the gang of members whose
// safe-to-evict verdict will be false once bound (gang.ProtectedOnceBound),
// among all its live members; none when the writer knows no min for it.
func (w *Writer) protectedOnceBound(members []*v1.Pod) map[string]bool {
	if len(members) == 0 {
		return nil
	}
	k, _, isGang, err := gang.GroupOf(members[0])
	if !isGang || err != nil {
		return nil
	}
	w.mu.Lock()
	want, ok := w.want[k]
	if !ok {
		want, ok = w.placed[k]
	}
	w.mu.Unlock()
	if !ok || want.Min <= 0 || want.Min > math.MaxInt32 {
		return nil
	}
	all := w.members(k)
	placed := make([]gang.Placed, 0, len(all))
	for _, p := range all {
		if gang.Live(p) {
			placed = append(placed, gang.Placed{Name: p.Name, Created: p.CreationTimestamp.Time})
		}
	}
	return gang.ProtectedOnceBound(placed, int32(want.Min))
}

// holdExtras handles the unplaced members of a gang whose quorum is placed:
// nodes are not bought for members above min (the gang grows into room
// that frees), except spot nodes for a gang that puts its extras there:
// those that tolerate spot are ordinary pending pods for the autoscaler,
// which adds spot nodes for them (or regular ones when its expander falls
// back), and they bind on spot first (MusterTopology's score).
func (w *Writer) holdExtras(k gang.Key, members []*v1.Pod, spotExtras bool) {
	if !spotExtras {
		w.annotate(members, HoldName(k))
		return
	}
	var spot, held []*v1.Pod
	for _, p := range members {
		if capacity.TolerateSpot(p) {
			spot = append(spot, p)
		} else {
			held = append(held, p)
		}
	}
	w.leaveToScaleUp(spot, true)
	w.annotate(held, HoldName(k))
}

// earlyExtras picks the members a short gang that puts its extras on spot
// leaves to the ordinary scale-up once extrasGoEarly: of its unplaced
// members, as many as it has beyond what its quorum still needs (its min
// less those bound), taken from those that ask for GPUs and tolerate spot, the
// newest first (as SafeToEvict counts members beyond min). The others go
// on consuming the request, or held, as before. Which members the
// scheduler then binds in the quorum is its own choice: the count of spot
// nodes bought is what matters, and a released member bound in the quorum
// leaves its spot node to the member it stood in for.
func (w *Writer) earlyExtras(members []*v1.Pod, quorum int64) []*v1.Pod {
	var unplaced, bound int64
	var candidates []*v1.Pod
	for _, p := range members {
		if p.Spec.NodeName != "" {
			if p.DeletionTimestamp == nil {
				bound++
			}
			continue
		}
		unplaced++
		if (w.gpu == "" || w.asksGPUs(p)) && capacity.TolerateSpot(p) {
			candidates = append(candidates, p)
		}
	}
	extras := int(min(unplaced-(quorum-bound), int64(len(candidates))))
	if extras <= 0 {
		return nil
	}
	slices.SortFunc(candidates, func(a, b *v1.Pod) int {
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return candidates[len(candidates)-extras:]
}

// annotateConsumers marks the members the request is for (with a GPU
// resource set, those asking for GPUs) as its consumers. The others (a
// launcher) are held out of the autoscaler's one-by-one scale-up while
// holdLauncher says so, and left to it otherwise.
func (w *Writer) annotateConsumers(k gang.Key, members []*v1.Pod, name string, holdOthers bool) {
	if w.gpu == "" {
		w.annotate(members, name)
		return
	}
	if !holdOthers {
		w.leaveToScaleUp(members, false)
	}
	var gpuMembers, others []*v1.Pod
	for _, p := range members {
		if w.asksGPUs(p) {
			gpuMembers = append(gpuMembers, p)
		} else if holdOthers {
			others = append(others, p)
		}
	}
	w.annotate(gpuMembers, name)
	w.annotate(others, HoldName(k))
}

// inRoom marks the unplaced members of a gang that fits in room that
// exists (markInRoom): those asking for GPUs (all, with no GPU resource
// set) that carry a mark consume the gang's in-room name instead; the
// others are left to the ordinary scale-up. A GPU member that carries no
// mark is left so: it was never short, and marking it would cost a write
// per member of every gang placing in room that exists.
func (w *Writer) inRoom(k gang.Key, members []*v1.Pod) {
	w.leaveToScaleUp(members, false)
	var marked []*v1.Pod
	for _, p := range members {
		if p.Spec.NodeName != "" || (w.gpu != "" && !w.asksGPUs(p)) {
			continue
		}
		if _, ok := w.marks.Carried(p, autoscalingv1.ConsumeAnnotation); ok {
			marked = append(marked, p)
		}
	}
	w.annotate(marked, InRoomName(k))
}

// leaveToScaleUp lifts the consume mark of the unplaced members that ask for
// no GPUs (a launcher), or of all of them with gpuToo, so the autoscaler
// treats them as ordinary pending pods. With no GPU resource set every
// member asks for what the request asks for.
func (w *Writer) leaveToScaleUp(members []*v1.Pod, gpuToo bool) {
	for _, p := range members {
		if p.Spec.NodeName != "" {
			continue
		}
		if _, marked := w.marks.Carried(p, autoscalingv1.ConsumeAnnotation); !marked {
			continue
		}
		if !gpuToo && (w.gpu == "" || w.asksGPUs(p)) {
			continue
		}
		w.marks.Annotate(p, map[string]*string{autoscalingv1.ConsumeAnnotation: nil, autoscalingv1.ClassAnnotation: nil})
	}
}

func (w *Writer) asksGPUs(p *v1.Pod) bool {
	q, ok := resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{})[w.gpu]
	return ok && !q.IsZero()
}

// mirror turns the request's conditions into the gang's CapacityRequested
// condition, in words, and returns them (none when it could not be read).
func (w *Writer) mirror(ctx context.Context, x Want, name string) map[string]metav1.Condition {
	pr, conds, err := w.read(ctx, x.Key.Namespace, name)
	if err != nil {
		return nil
	}
	short := "short " + x.short()
	if x.Verdict.Short.Domain != "" {
		short += fmt.Sprintf(" in %s %s", x.Verdict.Short.Level, x.Verdict.Short.Domain)
	}
	c := metav1.Condition{Type: ConditionCapacity, Status: metav1.ConditionTrue, Reason: ReasonRequested,
		Message: fmt.Sprintf("%s; asked the cluster-autoscaler for them (ProvisioningRequest %s)", short, name)}
	if !isTrue(conds, autoscalingv1.Provisioned) || isTrue(conds, autoscalingv1.BookingExpired) {
		w.mu.Lock()
		delete(w.booked, x.Key)
		w.mu.Unlock()
	}
	switch {
	case isTrue(conds, autoscalingv1.Failed):
		c.Status, c.Reason = metav1.ConditionFalse, ReasonFailed
		c.Message = fmt.Sprintf("%s; the cluster-autoscaler cannot add them: %s", short, conds[autoscalingv1.Failed].Message)
	case isTrue(conds, autoscalingv1.Provisioned) && !isTrue(conds, autoscalingv1.BookingExpired):
		w.mu.Lock()
		w.booked[x.Key] = Booking{Key: x.Key, Nodes: providerIDSet(autoscalingv1.AddedProviderIDs(pr.Status)), GPUs: x.bookedGPUs()}
		w.mu.Unlock()
		c.Reason = ReasonProvisioned
		c.Message = fmt.Sprintf("%s; %s", short, orDefault(conds[autoscalingv1.Provisioned].Message, "the cluster-autoscaler added them"))
	case hasReason(conds, autoscalingv1.Provisioned, autoscalingv1.CapacityIsNotFound):
		c.Status, c.Reason = metav1.ConditionFalse, ReasonNotFound
		c.Message = fmt.Sprintf("%s; no node pool can provide them: %s", short, conds[autoscalingv1.Provisioned].Message)
	case hasCondition(conds, autoscalingv1.Provisioned):
		c.Message = fmt.Sprintf("%s; %s", short, conds[autoscalingv1.Provisioned].Message)
	}
	created, _ := time.Parse(time.RFC3339Nano, pr.Annotations[CreatedAnnotation])
	notNow := notNowFor(name, conds, created, w.now())
	if notNow != "" && len(conds) == 0 {
		c.Message += "; " + notNow
	}
	w.report(x.Key, c)
	w.mu.Lock()
	if notNow != "" {
		w.notNow[x.Key] = notNow
	} else {
		delete(w.notNow, x.Key)
	}
	w.mu.Unlock()
	return conds
}

func isTrue(c map[string]metav1.Condition, t string) bool {
	v, ok := c[t]
	return ok && v.Status == metav1.ConditionTrue
}

func hasCondition(c map[string]metav1.Condition, t string) bool {
	v, ok := c[t]
	return ok && v.Message != ""
}

func hasReason(c map[string]metav1.Condition, t, reason string) bool {
	v, ok := c[t]
	return ok && v.Reason == reason
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
