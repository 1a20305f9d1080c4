// The writer's sync: each gang's verdict against its live request, ended requests replaced after a backoff.

package provisioning

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/klog/v2"

	autoscalingv1 "github.com/muster-project/muster/pkg/apis/autoscaling/v1"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/shortfall"
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
	list, err := w.dyn.Resource(autoscalingv1.Resource).List(ctx, metav1.ListOptions{LabelSelector: ManagedByLabel + "=" + ManagedBy})
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
		return
	}
	if !w.led && w.leading != nil {
		// Just became the leader: the previous leader may have written
		// requests since this replica last looked.
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
	before := w.bookingsLocked()
	w.mu.Unlock()
	w.fetchLive(ctx)
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

func (w *Writer) sync(ctx context.Context, k gang.Key) {
	logger := klog.FromContext(ctx)
	w.mu.Lock()
	want, wanted := w.want[k]
	live := w.live[k]
	adoptedMin, adopted := w.adoptedMin[k]
	w.mu.Unlock()

	members := w.members(k)
	var bound int64
	for _, p := range members {
		if p.Spec.NodeName != "" && p.DeletionTimestamp == nil {
			bound++
		}
	}
	switch {
	case len(members) == 0:
		w.drop(ctx, k, live, "gang gone")
		w.forget(k)
		return
	case wanted && bound >= want.Min:
		w.mu.Lock()
		_, wasBooked := w.booked[k]
		w.mu.Unlock()
		if live != "" && wasBooked {
			requestOutcomes.WithLabelValues(OutcomeBound).Inc()
		}
		w.drop(ctx, k, live, "quorum placed")
		w.holdExtras(k, members, want.SpotExtras)
		w.report(k, metav1.Condition{Type: ConditionCapacity}) // clear
		w.forget(k)
		return
	case !wanted && adopted && bound >= adoptedMin:
		w.drop(ctx, k, live, "quorum placed while the scheduler was away")
		w.annotate(members, HoldName(k))
		w.forget(k)
		return
	case !wanted:
		// Adopted after a restart: keep the request until a verdict comes.
		return
	case !want.Verdict.Ask && want.Verdict.NoReason == shortfall.ReasonFits && w.stillBooked(ctx, k, live):
		// The nodes provisioned for it have come. Until the quorum binds
		// there, the request and its booking keep other pods off them (and
		// the autoscaler from removing them as empty); the autoscaler's
		// booking time bounds the wait.
		w.leaveToScaleUp(members, false)
		return
	case !want.Verdict.Ask:
		w.drop(ctx, k, live, want.Verdict.NoReason)
		if want.Verdict.NoReason == shortfall.ReasonFits {
			// Its GPU members fit in room that exists, and no request is
			// left for them to consume: they are ordinary pending pods
			// again. The autoscaler then counts them into that room, so
			// it does not remove those nodes as empty while the gang is
			// still placing (or waits for its launcher's node: a
			// launcher without a node is the ordinary scale-up's to
			// serve, as once a request is provisioned). Left marked,
			// they consumed no live request, counted for nothing, and
			// the room they fit in was scaled down under them.
			w.leaveToScaleUp(members, true)
		} else if want.Verdict.NoReason == shortfall.ReasonPlaced {
			w.holdExtras(k, members, want.SpotExtras)
		} else {
			// Members fit now is a passing state; every other reason
			// means no nodes should be added for these members, by
			// Muster's request or one by one.
			w.annotate(members, HoldName(k))
		}
		w.report(k, metav1.Condition{Type: ConditionCapacity, Status: metav1.ConditionFalse, Reason: ReasonNoRequest, Message: want.Verdict.Message})
		return
	}

	name := w.generation(k, requestName(want))
	if live != "" && live != name && w.covers(ctx, k, live, want.Verdict.Short.Members) {
		// The autoscaler is already adding capacity for this gang: as its
		// nodes arrive the shortfall shrinks, and replacing the request then
		// would add nodes twice.
		name = live
	}
	// A request that ended is replaced after the backoff, whether or not
	// the shortfall changed since: a failure is not retried at once under
	// another name.
	if live != "" {
		if why, outcome, never := w.ended(ctx, k, live); why != "" {
			next, due := w.replace(k, requestName(want), why, outcome, never)
			if !due {
				// Until then the members consume no request: held out of
				// the autoscaler's one-by-one scale-up, as the request had
				// them.
				w.annotate(members, HoldName(k))
				w.report(k, metav1.Condition{Type: ConditionCapacity, Status: metav1.ConditionFalse, Reason: ReasonRetrying,
					Message: fmt.Sprintf("short %s; ProvisioningRequest %s %s; a new request follows at %s", want.short(), live, why, w.replaced[k].due.Format(time.RFC3339))})
				return
			}
			logger.Info("Replacing a ProvisioningRequest that ended while its gang was short", "gang", k, "request", live, "why", why, "replacement", next)
			name = next
		}
	}
	if live != name {
		if err := w.create(ctx, want, name); err != nil {
			logger.Error(err, "Could not create ProvisioningRequest", "gang", k, "request", name)
			return
		}
		w.drop(ctx, k, live, "shortfall changed")
		w.mu.Lock()
		w.live[k] = name
		w.mu.Unlock()
		logger.V(2).Info("Asked the autoscaler for capacity", "gang", k, "request", name, "members", want.Verdict.Short.Members)
	}
	provisioned := w.mirror(ctx, want, name)
	w.annotateConsumers(k, members, name, provisioned)
}

// ended says why the gang's live request can no longer bring it capacity
// (deleted, Failed, BookingExpired or CapacityRevoked; "" while it can),
// that outcome's metric label, and whether it failed because no pool could
// ever hold the gang (ReasonNeverFits).
func (w *Writer) ended(ctx context.Context, k gang.Key, live string) (why, outcome string, never bool) {
	_, conds, err := w.read(ctx, k.Namespace, live)
	why, outcome = w.endOf(k, conds, err)
	return why, outcome, outcome == OutcomeFailed && conds[autoscalingv1.Failed].Reason == ReasonNeverFits
}

// endOf is ended's why and outcome of the gang's request read as conds (or
// err); a request served starts the gang's next backoff afresh.
func (w *Writer) endOf(k gang.Key, conds map[string]metav1.Condition, err error) (string, string) {
	switch {
	case apierrors.IsNotFound(err):
		return "was deleted", OutcomeDeleted
	case err != nil:
		return "", ""
	case isTrue(conds, autoscalingv1.Failed):
		return "failed: " + conds[autoscalingv1.Failed].Message, OutcomeFailed
	case isTrue(conds, autoscalingv1.BookingExpired):
		return "ended its booking: " + conds[autoscalingv1.BookingExpired].Message, OutcomeExpired
	case isTrue(conds, autoscalingv1.CapacityRevoked):
		return "had its capacity revoked: " + conds[autoscalingv1.CapacityRevoked].Message, OutcomeRevoked
	case isTrue(conds, autoscalingv1.Provisioned):
		// Served: the next end starts the backoff afresh.
		w.mu.Lock()
		if r := w.replaced[k]; r != nil {
			r.wait = 0
		}
		w.mu.Unlock()
	}
	return "", ""
}

// replace notes that the gang's request ended for why and says whether its
// replacement is due, and under which name. The first end of a generation
// starts the backoff; each replacement doubles it, up to the ceiling. never
// says the autoscaler failed it because no pool could ever hold the gang.
func (w *Writer) replace(k gang.Key, base, why, outcome string, never bool) (string, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := w.replaced[k]
	if r == nil {
		r = &replacement{}
		w.replaced[k] = r
	}
	now := w.now()
	if r.due.IsZero() {
		if r.wait == 0 {
			r.wait = w.retryFirst
		}
		if never {
			// No pool could hold the gang even at its max size: only an
			// operator raising a pool's bounds changes that, and while a
			// request lives the autoscaler keeps the nodes the gang counts
			// on (its gang room), idle. Retry at the ceiling, and, as
			// long as each retry fails so, at twice the wait up to the
			// never-fits ceiling: a backlog of such gangs otherwise has
			// each written again (request, templates, every member's
			// mark) and failed again every ceiling.
			r.wait = max(r.wait, w.retryCeiling)
		} else {
			r.wait = min(r.wait, w.retryCeiling)
		}
		r.due, r.why, r.never = now.Add(r.wait), why, never
		requestOutcomes.WithLabelValues(outcome).Inc() // once per end noticed
	}
	if now.Before(r.due) {
		return "", false
	}
	r.gen++
	r.due = time.Time{}
	if r.never {
		r.wait = min(2*r.wait, w.neverFitsCeiling)
	} else {
		r.wait = min(2*r.wait, w.retryCeiling)
	}
	return generationName(base, r.gen), true
}

// generation is the name of the gang's request for a shortfall named base,
// in the gang's current generation.
func (w *Writer) generation(k gang.Key, base string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if r := w.replaced[k]; r != nil {
		return generationName(base, r.gen)
	}
	return base
}
