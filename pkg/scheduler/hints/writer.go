// Package hints keeps one ProvisioningRequest (autoscaling.x-k8s.io/v1, class
// best-effort-atomic-scale-up) per gang that is short of capacity, naming
// exactly the members it lacks, and mirrors what the autoscaler says about it
// into the gang's status. The scheduler plugins decide what a gang lacks
// (pkg/hint); the Writer turns those verdicts into API objects off the
// scheduling path, batched once per period.
//
// Lifecycle: a request and the PodTemplate it references are created when a
// gang is short; since a request's spec is immutable, a changed shortfall
// replaces it with a new one; it is deleted when the gang's quorum is placed,
// when the gang is gone, or when a verdict says no nodes should be asked for.
// The gang's unplaced members carry the consume annotation, so that an
// autoscaler leaves them out of its ordinary, one-by-one scale-up: naming the
// live request, or, once the gang is judged to need no request, a name no
// request has (HoldName). Requests carry Muster's labels and the gang's
// owner, so a restarted scheduler adopts them and garbage collection removes
// them with the gang.
package hints

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	resourcehelper "k8s.io/component-helpers/resource"
	"k8s.io/klog/v2"

	autoscalingv1 "github.com/muster-project/muster/pkg/apis/autoscaling/v1"
	"github.com/muster-project/muster/pkg/capacity"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/hint"
	"github.com/muster-project/muster/pkg/scheduler/podpatch"
)

// Labels on the requests and templates Muster manages.
const (
	ManagedByLabel = "app.kubernetes.io/managed-by"
	ManagedBy      = "muster-scheduler"
	GangLabel      = "muster.dev/gang"
)

// ConditionCapacity is the gang condition type that mirrors the hint.
const ConditionCapacity = "CapacityRequested"

// Reasons of the CapacityRequested condition.
const (
	ReasonRequested   = "CapacityRequested"
	ReasonProvisioned = "CapacityProvisioned"
	ReasonFailed      = "CapacityFailed"
	ReasonNotFound    = "CapacityNotFound"
	ReasonNoRequest   = "NoCapacityRequest"
	// ReasonRetrying: the gang's request ended (deleted, Failed,
	// BookingExpired) while the gang was short; a new one follows after a
	// backoff.
	ReasonRetrying = "CapacityRequestRetrying"
)

// ReasonNeverFits is the reason muster-autoscaler gives a request it fails
// because no node pool could hold the gang even at its max size.
const ReasonNeverFits = "NoNodeGroupCanHold"

// Want is a plugin's verdict on one short (or not short) gang.
type Want struct {
	Key     gang.Key
	Min     int64
	Verdict hint.Verdict
	// Sets are what is short, one per member shape: each becomes a PodSet
	// of the request, its PodTemplate copying a member of that shape.
	Sets []Set
	// Affinity, when set, is the node label and value new nodes must have
	// (the required topology domain the gang is confined to).
	AffinityLabel, AffinityValue string
	// Source says whether the gang is a PodGroup (which then owns the
	// request) or CRD-free (owned by its oldest member).
	Source gang.Source
	// Require adds node requirements the member's own spec does not state
	// (the gang's GPU class, where it names exact products).
	Require []v1.NodeSelectorRequirement
	// TemplateAnnotations go on the PodTemplate: the gang's asks an
	// autoscaler cannot read from the pod spec (GPU class patterns, topology).
	TemplateAnnotations map[string]string
	// SpotExtras: the gang puts members above min on spot nodes. Once its
	// quorum is placed, its unplaced members that tolerate spot are left to
	// the autoscaler's ordinary scale-up (spot pools first, by its
	// expander) instead of being held out of it.
	SpotExtras bool
}

// Set is a number of members of one shape that the gang is short of.
type Set struct {
	Member *v1.Pod
	Count  int64
	// GPUs per member, for bookings.
	GPUs int64
	// Shape describes a member for messages: "8 GPUs", "2 CPU".
	Shape string
}

// short describes a want's sets: "8 pods x 8 GPUs + 1 pods x 2 CPU".
func (x Want) short() string {
	parts := make([]string, 0, len(x.Sets))
	for _, set := range x.Sets {
		parts = append(parts, fmt.Sprintf("%d pods x %s", set.Count, set.Shape))
	}
	return strings.Join(parts, " + ")
}

// bookedGPUs is the fewest GPUs a short member asks for: a node added for
// the booking holds at least that many.
func (x Want) bookedGPUs() int64 {
	var fewest int64
	for _, set := range x.Sets {
		if set.GPUs > 0 && (fewest == 0 || set.GPUs < fewest) {
			fewest = set.GPUs
		}
	}
	return fewest
}

// RequestLabel on a PodTemplate names the request it belongs to (a hash of
// the name when the name is longer than a label value may be).
const RequestLabel = "muster.dev/provisioning-request"

func requestLabelValue(name string) string {
	if len(name) <= 63 {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	return "sha256-" + hex.EncodeToString(sum[:])[:40]
}

// MinAnnotation on a request records the gang's min, so that a restarted
// scheduler withdraws a request whose gang was placed meanwhile.
const MinAnnotation = "muster.dev/gang-min-member"

// CreatedAnnotation is when the writer created a request, on its clock, in
// RFC 3339 with nanoseconds. The API server's creationTimestamp has whole
// seconds: requests created within one second would be served by name,
// not in the order they came. Muster's autoscaler orders requests by it.
const CreatedAnnotation = "muster.dev/created-at"

// ReportFunc writes a gang condition; the Writer is not tied to MusterGang.
type ReportFunc func(gang.Key, metav1.Condition)

// Writer reconciles ProvisioningRequests with verdicts.
type Writer struct {
	client kubernetes.Interface
	// leading, when set, says whether this replica may write.
	leading func() bool
	// led says Sync last ran as the leader: a replica that becomes leader
	// adopts the requests the previous leader left before it writes.
	led bool
	// marks writes members' consume annotations, coalesced, on its own
	// rate-limited client.
	marks   *podpatch.Writer
	dyn     dynamic.Interface
	members func(gang.Key) []*v1.Pod
	report  ReportFunc
	period  time.Duration
	// synced says the pod informer behind members has synced: until then a
	// gang with no members listed is not known to be gone.
	synced func() bool

	mu   sync.Mutex
	want map[gang.Key]Want
	live map[gang.Key]string // request name in the API
	// adoptedMin is the min recorded on requests adopted after a restart.
	adoptedMin map[gang.Key]int64
	// booked are the gangs whose capacity the autoscaler is adding.
	booked map[gang.Key]Booking
	// gpu, when set, is the GPU resource; see SetGPUResource.
	gpu v1.ResourceName
	// bookingEnded, when set, runs after a Sync that ended a booking: pods
	// kept off the booked nodes may use them now, and no cluster event
	// says so.
	bookingEnded func()
	// replaced tracks gangs whose request ended while they were short.
	replaced                                   map[gang.Key]*replacement
	retryFirst, retryCeiling, neverFitsCeiling time.Duration
	now                                        func() time.Time
	// sets counts the verdicts Set; setsSynced is what it counted when
	// the last whole Sync began (Settled). begun counts the Syncs begun
	// as leader, done is begun's count at the start of the last one to
	// end (Syncs).
	sets, setsSynced uint64
	begun, done      uint64
	// fetched holds the gangs' live requests as the running Sync read
	// them when it began: read in parallel, since one
	// GET after another made a Sync take as many round trips as gangs
	// wait, and the gangs are then reconciled in turn from them. What the
	// Sync creates or deletes is put in or taken out; a name not there is
	// read from the API. nil outside a Sync; only its goroutine uses it.
	fetched map[types.NamespacedName]fetchedRequest
	// kick asks Run for a Sync before its period is up (Kick).
	kick chan struct{}
}

// fetchedRequest is one request as a Sync read it, or the error reading it
// gave (not found, for one deleted).
type fetchedRequest struct {
	u   *unstructured.Unstructured
	err error
}

// replacement is the state of a gang whose request was deleted, Failed or
// BookingExpired while the gang was still short: the request is replaced by
// one of the next generation once the backoff has passed.
type replacement struct {
	gen  int           // generation of the gang's current request name
	wait time.Duration // the backoff before the next replacement
	due  time.Time     // zero: no end seen since the last replacement
	why  string
	// never: the end due for replacement was a failure because no pool
	// could ever hold the gang.
	never bool
}

// Retry backoff of a gang's request that ended while the gang was short.
const (
	DefaultRetryFirst   = 15 * time.Second
	DefaultRetryCeiling = 10 * time.Minute
	// DefaultNeverFitsCeiling bounds the backoff of a gang whose requests
	// keep failing because no pool could ever hold it.
	DefaultNeverFitsCeiling = time.Hour
)

// SetRetryBackoff sets the backoff before a request that ended while its
// gang was short is replaced: first, doubling up to ceiling; after a
// failure because no pool could ever hold the gang, ceiling, doubling up
// to neverFitsCeiling. Call it before Run.
func (w *Writer) SetRetryBackoff(first, ceiling, neverFitsCeiling time.Duration) {
	w.retryFirst, w.retryCeiling, w.neverFitsCeiling = first, ceiling, max(ceiling, neverFitsCeiling)
}

// SetClock sets the time the writer stamps requests with and times its
// replacement backoff on (default wall time). Call it before Run.
func (w *Writer) SetClock(now func() time.Time) { w.now = now }

// SetGPUResource names the GPU resource. A request then holds only the
// members that ask for it: best-effort-atomic scale-up adds all of a
// request's nodes to one pool, and a CPU-only member (an MPIJob's launcher)
// rarely fits a GPU pool's nodes, so members without GPUs are left to the
// autoscaler's ordinary scale-up. Call it before Run.
func (w *Writer) SetGPUResource(name v1.ResourceName) { w.gpu = name }

// SetLeading makes Sync write only while leading says this replica is the
// scheduler's leader: a standby reconciles nothing. Call it before Run.
func (w *Writer) SetLeading(leading func() bool) { w.leading = leading }

// OnBookingEnd sets f to run after a Sync that ended a booking. Call it
// before Run.
func (w *Writer) OnBookingEnd(f func()) { w.bookingEnded = f }

// Booking is capacity the autoscaler provisioned for a gang that has not
// bound yet: exactly the nodes it recorded adding for the gang's request
// (autoscalingv1.AddedProviderIDs) are kept for it (see Bookings).
type Booking struct {
	Key gang.Key
	// Nodes are the provider IDs, lower-cased, of the instances added.
	Nodes map[string]bool
	// GPUs is what one member asks for: what a lone pod must leave on a
	// booked node.
	GPUs int64
}

// Holds says whether the node is one of the booking's; providerID is the
// node's spec.providerID, lower-cased.
func (b Booking) Holds(providerID string) bool { return providerID != "" && b.Nodes[providerID] }

// NewWriter builds a Writer. members lists a gang's pods from an informer,
// synced says whether that informer has synced.
func NewWriter(client kubernetes.Interface, dyn dynamic.Interface, marks *podpatch.Writer, members func(gang.Key) []*v1.Pod, synced func() bool, report ReportFunc, period time.Duration) *Writer {
	registerMetrics()
	return &Writer{client: client, dyn: dyn, marks: marks, members: members, synced: synced, report: report, period: period,
		want: map[gang.Key]Want{}, live: map[gang.Key]string{}, adoptedMin: map[gang.Key]int64{},
		booked: map[gang.Key]Booking{}, replaced: map[gang.Key]*replacement{},
		retryFirst: DefaultRetryFirst, retryCeiling: DefaultRetryCeiling, neverFitsCeiling: DefaultNeverFitsCeiling, now: time.Now, kick: make(chan struct{}, 1)}
}

// Set records the latest verdict on a gang.
func (w *Writer) Set(x Want) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if old, ok := w.want[x.Key]; !ok || !reflect.DeepEqual(old, x) {
		w.sets++ // only a new verdict is owed a sync (Settled)
	}
	w.want[x.Key] = x
}

// Syncs counts the Syncs begun as leader, and says which of them was the
// last to end: a caller that wants the writer to have seen the API as it is
// now waits for done to pass the begun it read. booked is how many gangs
// hold a booking: only then can a pod's bind end one.
func (w *Writer) Syncs() (begun, done uint64, booked int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.begun, w.done, len(w.booked)
}

// Settled says whether a whole Sync has run since a verdict was last Set
// that differed from the one before, so that what the verdicts ask of the
// API is written; a replica that does not lead writes nothing and is
// settled.
func (w *Writer) Settled() bool {
	if w.leading != nil && !w.leading() {
		return true
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.setsSynced == w.sets
}

// Run adopts the requests a previous scheduler left and reconciles until ctx
// ends.
func (w *Writer) Run(ctx context.Context) {
	logger := klog.FromContext(ctx).WithName("hints")
	ctx = klog.NewContext(ctx, logger)
	if err := w.adopt(ctx); err != nil {
		logger.Error(err, "Could not list ProvisioningRequests; hints start empty")
	}
	next := time.NewTimer(w.period)
	defer next.Stop()
	for {
		w.Sync(ctx)
		next.Reset(w.period)
		select {
		case <-ctx.Done():
			return
		case <-w.kick:
		case <-next.C:
		}
	}
}

// Kick has Run sync now instead of when its period is up, for a caller
// that knows a request changed and waits for the writer to have seen it
// (muster simulate waits for a sync after each change). New verdicts do
// not kick: the period lets a gang's verdicts settle (an elastic gang is
// short until its first member binds) before they are written. Kicks while
// a Sync runs make one more.
func (w *Writer) Kick() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

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
	case !want.Verdict.Hint && want.Verdict.NoReason == hint.NoHintFits && w.stillBooked(ctx, k, live):
		// The nodes provisioned for it have come. Until the quorum binds
		// there, the request and its booking keep other pods off them (and
		// the autoscaler from removing them as empty); the autoscaler's
		// booking time bounds the wait.
		w.leaveToScaleUp(members, false)
		return
	case !want.Verdict.Hint:
		w.drop(ctx, k, live, want.Verdict.NoReason)
		if want.Verdict.NoReason == hint.NoHintFits {
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
		} else if want.Verdict.NoReason == hint.NoHintPlaced {
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

func generationName(base string, gen int) string {
	if gen == 0 {
		return base
	}
	return fmt.Sprintf("%s-r%d", base, gen)
}

// HoldName is what an unplaced member's consume annotation names when its
// gang gets no request: elastic members once the quorum runs, members of a
// gang confined to a level new nodes cannot join, or pinned to nodes. No
// ProvisioningRequest has that name, so no autoscaler provisions for it, and
// every autoscaler that honours the annotation (upstream's and Muster's)
// leaves the pod out of its ordinary one-by-one scale-up, which would add
// nodes the scheduler cannot use for the gang.
func HoldName(k gang.Key) string {
	return nameBase(k) + "-held"
}

// nameBase starts the names of a gang's requests, short enough for a suffix.
// A CRD-free gang's name is a label value (upper case, '_' allowed), which
// an object name may not be: it is lower-cased, other characters become
// '-', and a hash of the name keeps "Train_Job" and "train-job" apart.
func nameBase(k gang.Key) string {
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-':
			return r
		case r >= 'A' && r <= 'Z':
			return r + ('a' - 'A')
		}
		return '-'
	}, k.Name)
	base := "muster-" + strings.Trim(name, "-")
	if len(base) > 200 {
		base = base[:200]
	}
	base = strings.TrimRight(base, "-")
	if name != k.Name {
		sum := sha256.Sum256([]byte(k.Name))
		base += "-" + hex.EncodeToString(sum[:])[:6]
	}
	return base
}

// requestName is stable for an unchanged shortfall, so a verdict repeated
// after every failed attempt keeps the same request.
func requestName(x Want) string {
	h := sha256.New()
	fmt.Fprintf(h, "%d/%s/%s/", x.Verdict.Short.Members, x.Verdict.Short.Level, x.Verdict.Short.Domain)
	for _, set := range x.Sets {
		fmt.Fprintf(h, "%d/", set.Count)
		spec, _ := json.Marshal(templateSpec(x, set.Member))
		h.Write(spec)
	}
	ann, _ := json.Marshal(x.TemplateAnnotations)
	h.Write(ann)
	sum := hex.EncodeToString(h.Sum(nil))[:10]
	return nameBase(x.Key) + "-" + sum
}

// templateSpec is a member's pod spec as the autoscaler should simulate it:
// the same requests, node selection and tolerations, no node, plus, for GPU
// members, the gang's GPU class and the required domain's label when the
// gang is confined to one (members without GPUs are not).
//
// What tells one member from another (hostname, subdomain, containers'
// command, arguments and environment such as RANK) is left out: it does not
// change where a member fits, and a request named from it would change each
// time a different member stands for its shape, so a big gang would get a
// new request every time one of its members binds.
func templateSpec(x Want, member *v1.Pod) v1.PodSpec {
	spec := *member.Spec.DeepCopy()
	spec.NodeName = ""
	spec.SchedulingGates = nil
	spec.Hostname, spec.Subdomain = "", ""
	for _, cs := range [][]v1.Container{spec.InitContainers, spec.Containers} {
		for i := range cs {
			cs[i].Command, cs[i].Args, cs[i].Env, cs[i].EnvFrom = nil, nil, nil, nil
		}
	}
	var reqs []v1.NodeSelectorRequirement
	if gpuMember(x, member) {
		reqs = append(reqs, x.Require...)
	}
	if x.AffinityLabel != "" && gpuMember(x, member) {
		reqs = append(reqs, v1.NodeSelectorRequirement{Key: x.AffinityLabel, Operator: v1.NodeSelectorOpIn, Values: []string{x.AffinityValue}})
	}
	if capacity.TolerateSpot(member) {
		// The request is for the quorum, which never runs on spot: the
		// autoscaler must not simulate it onto a spot pool's template.
		reqs = append(reqs, v1.NodeSelectorRequirement{Key: capacity.SpotLabel, Operator: v1.NodeSelectorOpNotIn, Values: []string{capacity.SpotValue}})
	}
	if len(reqs) > 0 {
		if spec.Affinity == nil {
			spec.Affinity = &v1.Affinity{}
		}
		if spec.Affinity.NodeAffinity == nil {
			spec.Affinity.NodeAffinity = &v1.NodeAffinity{}
		}
		na := spec.Affinity.NodeAffinity
		if na.RequiredDuringSchedulingIgnoredDuringExecution == nil {
			na.RequiredDuringSchedulingIgnoredDuringExecution = &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{}}}
		}
		terms := na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
		for i := range terms {
			terms[i].MatchExpressions = append(terms[i].MatchExpressions, reqs...)
		}
	}
	return spec
}

// gpuMember says member belongs to one of the want's GPU sets.
func gpuMember(x Want, member *v1.Pod) bool {
	for _, set := range x.Sets {
		if set.Member == member {
			return set.GPUs > 0
		}
	}
	return false
}

// templateName names the PodTemplate of a request's i-th PodSet.
func templateName(request string, i int) string {
	if i == 0 {
		return request
	}
	return fmt.Sprintf("%s-%d", request, i)
}

// podGroupResources are the PodGroups that own a gang's request, by the
// gang's source.
var podGroupResources = map[gang.Source]schema.GroupVersionResource{
	gang.SourcePodGroup: schemaGVR("scheduling.x-k8s.io", "v1alpha1", "podgroups"),
	gang.SourceWorkload: schemaGVR("scheduling.k8s.io", "v1beta1", "podgroups"),
}

// crdFreeOwners is how many of a CRD-free gang's members own its request.
const crdFreeOwners = 8

// owners are the objects whose deletion removes the request: the PodGroup,
// or for a CRD-free gang its oldest members (up to crdFreeOwners). The
// garbage collector deletes an object only when all its owners are gone, so
// an operator replacing one member does not take the request with it.
func (w *Writer) owners(ctx context.Context, x Want) ([]metav1.OwnerReference, error) {
	if gvr, ok := podGroupResources[x.Source]; ok {
		pg, err := w.dyn.Resource(gvr).Namespace(x.Key.Namespace).Get(ctx, x.Key.Name, metav1.GetOptions{})
		if err != nil {
			return nil, fmt.Errorf("reading PodGroup %s (%s): %w", x.Key, gvr.GroupVersion(), err)
		}
		return []metav1.OwnerReference{{APIVersion: gvr.GroupVersion().String(), Kind: "PodGroup", Name: pg.GetName(), UID: pg.GetUID()}}, nil
	}
	var live []*v1.Pod
	for _, p := range w.members(x.Key) {
		if p.DeletionTimestamp == nil {
			live = append(live, p)
		}
	}
	if len(live) == 0 {
		return nil, fmt.Errorf("gang %s has no members", x.Key)
	}
	sort.Slice(live, func(i, j int) bool {
		a, b := live[i], live[j]
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.CreationTimestamp.Before(&b.CreationTimestamp)
		}
		return a.Name < b.Name
	})
	out := make([]metav1.OwnerReference, 0, min(len(live), crdFreeOwners))
	for _, p := range live[:min(len(live), crdFreeOwners)] {
		out = append(out, metav1.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: p.Name, UID: p.UID})
	}
	return out, nil
}

func (w *Writer) create(ctx context.Context, x Want, name string) error {
	labels := map[string]string{ManagedByLabel: ManagedBy, GangLabel: x.Key.Name}
	owners, err := w.owners(ctx, x)
	if err != nil {
		return err
	}
	podSets := make([]autoscalingv1.PodSet, 0, len(x.Sets))
	for i, set := range x.Sets {
		tmplName := templateName(name, i)
		tmplLabels := map[string]string{}
		for k, v := range set.Member.Labels {
			tmplLabels[k] = v
		}
		var ann map[string]string
		if set.GPUs > 0 {
			ann = x.TemplateAnnotations
		}
		objLabels := map[string]string{RequestLabel: requestLabelValue(name)}
		for k, v := range labels {
			objLabels[k] = v
		}
		tmpl := &v1.PodTemplate{
			ObjectMeta: metav1.ObjectMeta{Name: tmplName, Namespace: x.Key.Namespace, Labels: objLabels, OwnerReferences: owners},
			Template:   v1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: tmplLabels, Annotations: ann}, Spec: templateSpec(x, set.Member)},
		}
		if _, err := w.client.CoreV1().PodTemplates(x.Key.Namespace).Create(ctx, tmpl, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating PodTemplate %s/%s: %w", x.Key.Namespace, tmplName, err)
		}
		podSets = append(podSets, autoscalingv1.PodSet{PodTemplateRef: autoscalingv1.Reference{Name: tmplName}, Count: int32(set.Count)})
	}
	pr := &autoscalingv1.ProvisioningRequest{
		TypeMeta: metav1.TypeMeta{APIVersion: autoscalingv1.GroupVersion.String(), Kind: "ProvisioningRequest"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: x.Key.Namespace, Labels: labels, OwnerReferences: owners,
			Annotations: map[string]string{MinAnnotation: strconv.FormatInt(x.Min, 10), CreatedAnnotation: w.now().UTC().Format(time.RFC3339Nano)}},
		Spec: autoscalingv1.ProvisioningRequestSpec{
			ProvisioningClassName: autoscalingv1.ClassBestEffortAtomicScaleUp,
			PodSets:               podSets,
		},
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pr)
	if err != nil {
		return err
	}
	created, err := w.requests(x.Key.Namespace).Create(ctx, &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{})
	switch {
	case apierrors.IsAlreadyExists(err):
		w.fetchedAs(x.Key.Namespace, name, nil, false)
	case err != nil:
		return fmt.Errorf("creating ProvisioningRequest %s/%s: %w", x.Key.Namespace, name, err)
	default:
		w.fetchedAs(x.Key.Namespace, name, created, false)
		requestsWritten.WithLabelValues("created").Inc()
		for _, ps := range podSets {
			membersRequested.Add(float64(ps.Count))
		}
	}
	return nil
}

// fetchParallel bounds the GETs a Sync has in flight when it begins.
const fetchParallel = 8

// fetchLive reads every gang's live request at once, for the Sync that
// begins (fetched).
func (w *Writer) fetchLive(ctx context.Context) {
	w.mu.Lock()
	names := make([]types.NamespacedName, 0, len(w.live))
	for k, name := range w.live {
		names = append(names, types.NamespacedName{Namespace: k.Namespace, Name: name})
	}
	w.mu.Unlock()
	got := make([]fetchedRequest, len(names))
	workqueue.ParallelizeUntil(ctx, fetchParallel, len(names), func(i int) {
		got[i].u, got[i].err = w.requests(names[i].Namespace).Get(ctx, names[i].Name, metav1.GetOptions{})
	})
	w.fetched = make(map[types.NamespacedName]fetchedRequest, len(names))
	for i, key := range names {
		// Other errors, and reads ParallelizeUntil did not start because
		// ctx ended: read tries again.
		if got[i].u != nil || apierrors.IsNotFound(got[i].err) {
			w.fetched[key] = got[i]
		}
	}
}

// fetchedAs records in the running Sync's reads what it wrote: the request
// it created (nil: read it from the API), or a not-found once deleted.
func (w *Writer) fetchedAs(ns, name string, u *unstructured.Unstructured, deleted bool) {
	if w.fetched == nil {
		return
	}
	key := types.NamespacedName{Namespace: ns, Name: name}
	switch {
	case deleted:
		w.fetched[key] = fetchedRequest{err: apierrors.NewNotFound(autoscalingv1.Resource.GroupResource(), name)}
	case u == nil:
		delete(w.fetched, key)
	default:
		w.fetched[key] = fetchedRequest{u: u}
	}
}

// read fetches a request and its conditions by type: as the running Sync
// read it when it began, else from the API.
func (w *Writer) read(ctx context.Context, ns, name string) (*autoscalingv1.ProvisioningRequest, map[string]metav1.Condition, error) {
	f, ok := w.fetched[types.NamespacedName{Namespace: ns, Name: name}]
	if !ok {
		f.u, f.err = w.requests(ns).Get(ctx, name, metav1.GetOptions{})
	}
	if f.err != nil {
		return nil, nil, f.err
	}
	u := f.u
	var pr autoscalingv1.ProvisioningRequest
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &pr); err != nil {
		return nil, nil, err
	}
	conds := map[string]metav1.Condition{}
	for _, pc := range pr.Status.Conditions {
		conds[pc.Type] = pc
	}
	return &pr, conds, nil
}

// covers says the live request was provisioned for at least members pods.
func (w *Writer) covers(ctx context.Context, k gang.Key, live string, members int64) bool {
	pr, conds, err := w.read(ctx, k.Namespace, live)
	if err != nil || len(pr.Spec.PodSets) == 0 {
		return false
	}
	for _, t := range []string{autoscalingv1.BookingExpired, autoscalingv1.Failed, autoscalingv1.CapacityRevoked} {
		if isTrue(conds, t) {
			return false
		}
	}
	var count int64
	for _, ps := range pr.Spec.PodSets {
		count += int64(ps.Count)
	}
	return isTrue(conds, autoscalingv1.Provisioned) && count >= members
}

// drop deletes a request and its template.
func (w *Writer) drop(ctx context.Context, k gang.Key, name, why string) {
	if name == "" {
		return
	}
	err := w.requests(k.Namespace).Delete(ctx, name, metav1.DeleteOptions{})
	if err == nil || apierrors.IsNotFound(err) {
		w.fetchedAs(k.Namespace, name, nil, true)
	}
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		klog.FromContext(ctx).Error(err, "Could not delete ProvisioningRequest", "request", klog.KRef(k.Namespace, name))
		return
	default:
		requestsWritten.WithLabelValues("withdrawn").Inc()
	}
	if err := w.client.CoreV1().PodTemplates(k.Namespace).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: RequestLabel + "=" + requestLabelValue(name)}); err != nil {
		klog.FromContext(ctx).Error(err, "Could not delete PodTemplates", "request", klog.KRef(k.Namespace, name))
	}
	if err := w.client.CoreV1().PodTemplates(k.Namespace).Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		klog.FromContext(ctx).Error(err, "Could not delete PodTemplate", "podTemplate", klog.KRef(k.Namespace, name))
	}
	klog.FromContext(ctx).V(2).Info("Withdrew capacity request", "gang", k, "request", name, "why", why)
	w.mu.Lock()
	if w.live[k] == name {
		delete(w.live, k)
		delete(w.booked, k)
	}
	w.mu.Unlock()
}

// StateEntries counts the writer's state by kind, for the
// muster_scheduler_state_entries gauge.
func (w *Writer) StateEntries() map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return map[string]int{"hint-wants": len(w.want), "hint-live-requests": len(w.live), "hint-adopted-gangs": len(w.adoptedMin),
		"hint-bookings": len(w.booked), "hint-replacements": len(w.replaced)}
}

func (w *Writer) forget(k gang.Key) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.want, k)
	delete(w.live, k)
	delete(w.adoptedMin, k)
	delete(w.booked, k)
	delete(w.replaced, k)
}

// Bookings lists the gangs whose provisioned capacity is on its way. A nil
// Writer has none.
func (w *Writer) Bookings() []Booking {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.bookingsLocked()
}

// BookedNodes maps the provider ID (lower-cased) of every node booked for
// a gang to that gang. A nil Writer has none.
func (w *Writer) BookedNodes() map[string]gang.Key {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var out map[string]gang.Key
	for k, b := range w.booked {
		for id := range b.Nodes {
			if out == nil {
				out = map[string]gang.Key{}
			}
			out[id] = k
		}
	}
	return out
}

func (w *Writer) bookingsLocked() []Booking {
	if len(w.booked) == 0 {
		return nil
	}
	out := make([]Booking, 0, len(w.booked))
	for _, b := range w.booked {
		out = append(out, b)
	}
	return out
}

// stillBooked says the gang's live request is still Provisioned with its
// capacity booked, reading it afresh; a booking that has ended (expired, or
// the request is gone) is forgotten.
func (w *Writer) stillBooked(ctx context.Context, k gang.Key, live string) bool {
	w.mu.Lock()
	_, booked := w.booked[k]
	w.mu.Unlock()
	if !booked || live == "" {
		return false
	}
	_, conds, err := w.read(ctx, k.Namespace, live)
	still := err == nil && isTrue(conds, autoscalingv1.Provisioned) && !isTrue(conds, autoscalingv1.BookingExpired)
	if !still {
		w.mu.Lock()
		delete(w.booked, k)
		w.mu.Unlock()
	}
	return still
}

// annotate marks the gang's unplaced members as consumers of the request
// (or of HoldName).
func (w *Writer) annotate(members []*v1.Pod, name string) {
	class := autoscalingv1.ClassBestEffortAtomicScaleUp
	for _, p := range members {
		if p.Spec.NodeName != "" || p.Annotations[autoscalingv1.ConsumeAnnotation] == name {
			continue
		}
		w.marks.Annotate(p, map[string]*string{autoscalingv1.ConsumeAnnotation: &name, autoscalingv1.ClassAnnotation: &class})
	}
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

// annotateConsumers marks the members the request is for (with a GPU
// resource set, those asking for GPUs) as its consumers. The others (a
// launcher) are held out of the autoscaler's one-by-one scale-up until the
// request is provisioned, then their mark is lifted so it scales for them:
// a launcher's node is bought only once its workers' nodes are.
func (w *Writer) annotateConsumers(k gang.Key, members []*v1.Pod, name string, provisioned bool) {
	if w.gpu == "" {
		w.annotate(members, name)
		return
	}
	if provisioned {
		w.leaveToScaleUp(members, false)
	}
	var gpuMembers, others []*v1.Pod
	for _, p := range members {
		if w.asksGPUs(p) {
			gpuMembers = append(gpuMembers, p)
		} else if !provisioned {
			others = append(others, p)
		}
	}
	w.annotate(gpuMembers, name)
	w.annotate(others, HoldName(k))
}

// leaveToScaleUp lifts the consume mark of the unplaced members that ask for
// no GPUs (a launcher), or of all of them with gpuToo, so the autoscaler
// treats them as ordinary pending pods. With no GPU resource set every
// member asks for what the request asks for.
func (w *Writer) leaveToScaleUp(members []*v1.Pod, gpuToo bool) {
	for _, p := range members {
		if p.Spec.NodeName != "" || p.Annotations[autoscalingv1.ConsumeAnnotation] == "" {
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
// condition, in words, and says whether the request is provisioned.
func (w *Writer) mirror(ctx context.Context, x Want, name string) (provisioned bool) {
	pr, conds, err := w.read(ctx, x.Key.Namespace, name)
	if err != nil {
		return false
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
	case hasReason(conds, autoscalingv1.Provisioned, "CapacityIsNotFound"):
		c.Status, c.Reason = metav1.ConditionFalse, ReasonNotFound
		c.Message = fmt.Sprintf("%s; no node pool can provide them: %s", short, conds[autoscalingv1.Provisioned].Message)
	case hasCondition(conds, autoscalingv1.Provisioned):
		c.Message = fmt.Sprintf("%s; %s", short, conds[autoscalingv1.Provisioned].Message)
	}
	w.report(x.Key, c)
	return isTrue(conds, autoscalingv1.Provisioned) && !isTrue(conds, autoscalingv1.BookingExpired) && !isTrue(conds, autoscalingv1.Failed)
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

// Live returns the live requests by gang, sorted, for tests and reports.
func (w *Writer) Live() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]string, 0, len(w.live))
	for k, n := range w.live {
		out = append(out, k.String()+"="+n)
	}
	sort.Strings(out)
	return out
}

func schemaGVR(group, version, resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: group, Version: version, Resource: resource}
}

// Members lists pods from an informer indexer by the gang index.
func Members(indexer cache.Indexer, index string) func(gang.Key) []*v1.Pod {
	return func(k gang.Key) []*v1.Pod {
		objs, _ := indexer.ByIndex(index, k.String())
		out := make([]*v1.Pod, 0, len(objs))
		for _, o := range objs {
			if p, ok := o.(*v1.Pod); ok && p.Status.Phase != v1.PodSucceeded && p.Status.Phase != v1.PodFailed {
				out = append(out, p)
			}
		}
		return out
	}
}

// releases says whether b, a later version of booking was, no longer holds
// a node was held.
func (b Booking) releases(was Booking) bool {
	for id := range was.Nodes {
		if !b.Nodes[id] {
			return true
		}
	}
	return b.GPUs < was.GPUs
}

func providerIDSet(ids []string) map[string]bool {
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		out[id] = true
	}
	return out
}
