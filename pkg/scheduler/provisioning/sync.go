// The writer's sync: each gang's verdict against its live request, ended requests replaced after a backoff.

package provisioning

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/klog/v2"

	autoscalingv1 "github.com/muster-project/muster/pkg/apis/autoscaling/v1"
	"github.com/muster-project/muster/pkg/contract"
	"github.com/muster-project/muster/pkg/gang"
)

func (w *Writer) requests(ns string) dynamic.ResourceInterface {
	return w.dyn.Resource(autoscalingv1.Resource).Namespace(ns)
}

// adopt lists the requests Muster manages and takes each gang's newest as
// its live one; older requests of the same gang (a leader that died between
// creating a request and deleting the one it replaced, or one whose view a
// standby never had) are withdrawn, or the autoscaler would go on serving
// them and booking nodes for a shortfall nobody has.
func (w *Writer) adopt(ctx context.Context) error {
	list, err := w.dyn.Resource(autoscalingv1.Resource).List(ctx, metav1.ListOptions{LabelSelector: managedSelector})
	if err != nil {
		return err
	}
	items := list.Items
	sort.SliceStable(items, func(i, j int) bool {
		ti, tj := items[i].GetCreationTimestamp(), items[j].GetCreationTimestamp()
		if !ti.Equal(&tj) {
			return ti.Before(&tj)
		}
		return items[i].GetName() < items[j].GetName()
	})
	type stale struct {
		k    gang.Key
		name string
	}
	var stales []stale
	w.mu.Lock()
	for _, u := range items { // oldest first: the newest ends up live
		g := u.GetLabels()[GangLabel]
		if g == "" || u.GetDeletionTimestamp() != nil {
			continue
		}
		k := gang.Key{Namespace: u.GetNamespace(), Name: g}
		if old := w.live[k]; old != "" && old != u.GetName() {
			stales = append(stales, stale{k, old})
		}
		w.live[k] = u.GetName()
		if min, err := strconv.ParseInt(u.GetAnnotations()[MinAnnotation], 10, 64); err == nil {
			w.adoptedMin[k] = min
		}
	}
	w.mu.Unlock()
	for _, s := range stales {
		w.drop(ctx, s.k, s.name, "superseded by a newer request of the gang")
	}
	return nil
}

// Sync reconciles every gang with a verdict or a live request once.
func (w *Writer) Sync(ctx context.Context) {
	if !w.synced() || (w.leading != nil && !w.leading()) {
		w.led = false
		clear(w.unchanged) // the next leader's view may differ
		return
	}
	if !w.led && w.leading != nil {
		// Just became the leader: the previous leader may have written
		// requests (and their templates) since this replica last looked.
		w.templatesWritten = ""
		if err := w.adopt(ctx); err != nil {
			klog.FromContext(ctx).Error(err, "Could not list ProvisioningRequests on taking over; adopting on the next sync")
			return
		}
	}
	w.led = true
	w.mu.Lock()
	sets := w.sets
	w.begun++
	begun := w.begun
	defer func() {
		w.mu.Lock()
		w.setsSynced, w.done = sets, begun
		w.mu.Unlock()
	}()
	keys := map[gang.Key]struct{}{}
	for k := range w.want {
		keys[k] = struct{}{}
	}
	for k := range w.live {
		keys[k] = struct{}{}
	}
	for k := range w.placed {
		keys[k] = struct{}{}
	}
	before := w.bookingsLocked()
	w.mu.Unlock()
	w.fetchLive()
	defer func() { w.fetched = nil }()
	for k := range keys {
		w.sync(ctx, k)
	}
	if w.bookingEnded == nil {
		return
	}
	w.mu.Lock()
	ended := false
	for _, b := range before {
		if now, ok := w.booked[b.Key]; !ok || now.releases(b) {
			ended = true
		}
	}
	w.mu.Unlock()
	if ended {
		w.bookingEnded()
	}
}

// sync reconciles one gang: decide says what to do, and sync does it.
func (w *Writer) sync(ctx context.Context, k gang.Key) {
	w.mu.Lock()
	var f gangFacts
	want, wanted := w.want[k]
	if !wanted {
		want, f.Extras = w.placed[k]
		wanted = f.Extras
	}
	f.Live = w.live[k]
	f.AdoptedMin, f.Adopted = w.adoptedMin[k]
	_, f.Booked = w.booked[k]
	before := w.stateLocked(k)
	w.mu.Unlock()
	if wanted {
		f.Want = &want
	}
	members := w.members(k)
	in, known := w.inputsOf(k, before, members)
	if known && w.unchangedSince(k, in) {
		return
	}
	delete(w.unchanged, k)
	w.failed = false
	defer func() {
		w.mu.Lock()
		after := w.stateLocked(k)
		w.mu.Unlock()
		if known && !w.failed && after == before {
			w.changedNothing(k, in)
		}
	}()
	f.Members = int64(len(members))
	for _, p := range members {
		if p.Spec.NodeName != "" && p.DeletionTimestamp == nil {
			f.Bound++
		}
	}
	live := f.Live
	switch decide(f) {
	case stepGone:
		w.drop(ctx, k, live, "gang gone")
		w.forget(k)
	case stepPlaced:
		if live != "" && f.Booked {
			requestOutcomes.WithLabelValues(OutcomeBound).Inc()
		}
		w.drop(ctx, k, live, "quorum placed")
		w.holdExtras(k, members, want.SpotExtras)
		w.report(k, metav1.Condition{Type: ConditionCapacity}) // clear
		w.forget(k)
		if f.Members > f.Bound {
			w.mu.Lock()
			w.placed[k] = want
			w.mu.Unlock()
		}
	case stepQuorumLost:
		w.forget(k)
	case stepPlacedAway:
		w.drop(ctx, k, live, "quorum placed while the scheduler was away")
		w.annotate(members, HoldName(k))
		w.forget(k)
	case stepKeep:
	case stepAwaitBooked:
		if w.stillBooked(ctx, k, live) {
			// Until the quorum binds on the nodes provisioned for it, the
			// request and its booking keep other pods off them (and the
			// autoscaler from removing them as empty); the autoscaler's
			// booking time bounds the wait.
			w.leaveToScaleUp(members, false)
			return
		}
		w.withdraw(ctx, k, want, live, members)
	case stepNoRequest:
		w.withdraw(ctx, k, want, live, members)
	case stepRequest:
		w.request(ctx, k, want, live, members)
	}
}

// withdraw withdraws the live request of a gang whose verdict asks for no
// nodes, marks its members as noRequestMarks says and reports why.
func (w *Writer) withdraw(ctx context.Context, k gang.Key, want Want, live string, members []*v1.Pod) {
	w.drop(ctx, k, live, want.Verdict.NoReason)
	switch noRequestMarks(want.Verdict.NoReason) {
	case markInRoom:
		w.inRoom(k, members)
	case markHoldExtras:
		w.holdExtras(k, members, want.SpotExtras)
	case markHold:
		w.annotate(members, HoldName(k))
	}
	w.report(k, metav1.Condition{Type: ConditionCapacity, Status: metav1.ConditionFalse, Reason: ReasonNoRequest, Message: want.Verdict.Message})
}

// request has the short gang's request be what planRequest plans: created
// anew, kept, or replaced once its backoff has passed.
func (w *Writer) request(ctx context.Context, k gang.Key, want Want, live string, members []*v1.Pod) {
	logger := klog.FromContext(ctx)
	var v requestView
	if live != "" {
		pr, conds, err := w.read(ctx, k.Namespace, live)
		v = requestView{Err: err, Conds: conds}
		if err == nil {
			for _, ps := range pr.Spec.PodSets {
				v.Pods += int64(ps.Count)
			}
			d := pr.Status.ProvisioningClassDetails
			v.PoolsWatched = d[contract.DetailPoolsAtFailure] != ""
			v.PoolsChanged = v.PoolsWatched && d[contract.DetailPoolsChanged] == "true"
		}
	}
	w.mu.Lock()
	r, had := w.replaced[k]
	var was replacement
	if had {
		was = *r
	}
	plan, next := planRequest(requestName(want), live, v, want.Verdict.Short.Members, was, w.now(), w.backoff)
	if plan.Replacing && w.awaitsVerdictLocked(k) {
		// Written from the verdict of before, the replacement was
		// replaced again at once by the one the lead's next attempt (let
		// through by the same due time) reported. It waits for that
		// verdict (owed a sync, Set), the members marked as in the
		// backoff meanwhile.
		w.mu.Unlock()
		return
	}
	if had || plan.Why != "" {
		w.replaced[k] = &next
	}
	w.mu.Unlock()
	if plan.Noticed {
		requestOutcomes.WithLabelValues(plan.Outcome).Inc()
	}
	if plan.Wait {
		// Until the replacement is due the members consume no request
		// that brings nodes: held out of the autoscaler's one-by-one
		// scale-up, as the request had them.
		hold := HoldName(k)
		if plan.KeepMarks {
			hold = live
		}
		w.annotate(members, hold)
		w.report(k, metav1.Condition{Type: ConditionCapacity, Status: metav1.ConditionFalse, Reason: ReasonRetrying,
			Message: fmt.Sprintf("short %s; ProvisioningRequest %s %s; a new request follows at %s", want.short(), live, plan.Why, next.due.Format(time.RFC3339))})
		return
	}
	if plan.Replacing {
		logger.Info("Replacing a ProvisioningRequest that ended while its gang was short", "gang", k, "request", live, "why", plan.Why, "replacement", plan.Name)
	}
	name := plan.Name
	if live != name {
		// The request a replacement replaces has ended: nothing is served
		// from it whatever becomes of the next, so it is deleted while
		// the next is created, not after (a never-fitting gang's hourly
		// retry waited for both in turn). Another live request is dropped
		// only once the next exists.
		var ended chan deleted
		if plan.Replacing && live != "" {
			ended = make(chan deleted, 1)
			sets, written := w.podSetsOf(k.Namespace, live), w.templatesWritten
			go func() { ended <- w.deleteRequest(ctx, k.Namespace, live, sets, written) }()
		}
		err := w.create(ctx, want, name)
		if ended != nil {
			w.dropped(ctx, k, live, "replaced after it ended", <-ended)
		}
		if err != nil {
			w.failed = true
			logger.Error(err, "Could not create ProvisioningRequest", "gang", k, "request", name)
			return
		}
		if ended == nil {
			w.drop(ctx, k, live, "shortfall changed")
		}
		w.mu.Lock()
		w.live[k] = name
		w.mu.Unlock()
		logger.V(2).Info("Asked the autoscaler for capacity", "gang", k, "request", name, "members", want.Verdict.Short.Members)
	}
	conds := w.mirror(ctx, want, name)
	if want.SpotExtras && extrasGoEarly(conds) {
		early := w.earlyExtras(members, want.Min)
		w.leaveToScaleUp(early, true)
		left := make(map[*v1.Pod]bool, len(early))
		for _, p := range early {
			left[p] = true
		}
		members = slices.DeleteFunc(slices.Clone(members), func(p *v1.Pod) bool { return left[p] })
	}
	w.annotateConsumers(k, members, name, holdLauncher(conds))
}
