// Package provisioning keeps one ProvisioningRequest (autoscaling.x-k8s.io/v1, class
// best-effort-atomic-scale-up) per gang that is short of capacity, naming
// exactly the members it lacks, and mirrors what the autoscaler says about it
// into the gang's status. The scheduler plugins decide what a gang lacks
// (pkg/shortfall); the Writer turns those verdicts into API objects off the
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
package provisioning

import (
	"context"
	"fmt"
	"hash/maphash"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/podpatch"
	"github.com/muster-project/muster/pkg/shortfall"
)

// Labels on the requests and templates Muster manages.
const (
	ManagedByLabel = "app.kubernetes.io/managed-by"
	ManagedBy      = "muster-scheduler"
	GangLabel      = "muster.dev/gang"
)

// managedSelector selects the requests Muster manages (adopt, fetchLive).
const managedSelector = ManagedByLabel + "=" + ManagedBy

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
	Verdict shortfall.Verdict
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
	// gpu, when set, is the GPU resource (Options.GPUResource).
	gpu v1.ResourceName
	// bookingEnded, when set, runs after a Sync that ended a booking: pods
	// kept off the booked nodes may use them now, and no cluster event
	// says so.
	bookingEnded func()
	// replaced tracks gangs whose request ended while they were short.
	replaced map[gang.Key]*replacement
	// notNow holds, per gang, what the autoscaler said when it could not
	// add capacity for the gang's live request now (Provisioned=False,
	// CapacityIsNotFound): every pool that could serve it at its max, out
	// of quota or backed off.
	notNow map[gang.Key]string
	// placed keeps the verdict that found a gang's quorum placed while
	// members wait beyond it, so a member listed only later is held too:
	// a gang's members bring a verdict at most once per hint interval, and
	// one that arrived after the sync that forgot its gang, and failed
	// within that interval, was never held (TestNoHintWhenNodesWouldNotHelp
	// under stress: elastic-3 unmarked for good).
	placed  map[gang.Key]Want
	backoff Backoff
	now     func() time.Time
	// sets counts the verdicts Set; setsSynced is what it counted when
	// the last whole Sync began (Settled). begun counts the Syncs begun
	// as leader, done is begun's count at the start of the last one to
	// end (Syncs).
	sets, setsSynced uint64
	begun, done      uint64
	// fetched holds the gangs' live requests as the running Sync read
	// them when it began (fetchLive), and the gangs are then reconciled in
	// turn from them. What the Sync creates or deletes is put in or taken
	// out; a name not there is read from the API. nil outside a Sync, or
	// when requests are read from the API; only its goroutine uses it.
	fetched map[types.NamespacedName]fetchedRequest
	// informer holds the requests Muster manages (nil without a dynamic
	// client); created, the UIDs of requests this writer created that it
	// has not shown yet, read from the API until it does. Only the Sync's
	// goroutine uses created.
	informer  cache.SharedIndexInformer
	startOnce sync.Once
	created   map[types.NamespacedName]types.UID
	// templatesWritten is the resourceVersion of the last PodTemplate this
	// writer created: dropping a request deletes its templates by label
	// from a list not older than that (every template it created), which
	// the API server serves from its watch cache at once. A consistent
	// list waited for the cache to learn it was current, up to 100 ms
	// for a resource written as seldom as PodTemplates, in every drop.
	// Only the Sync's goroutine uses it.
	templatesWritten string
	// wantAt is, per gang, the count of sets when its verdict last
	// changed; unchanged, per gang, what its last sync that changed
	// nothing acted on (changedNothing, unchangedSince). failed says the
	// running sync met an error. Only the Sync's goroutine uses
	// unchanged and failed.
	wantAt map[gang.Key]uint64
	// verdictAt is, per gang, when (the writer's clock) a verdict last
	// came, changed or not: a never-fits replacement waits, once due, for
	// one that came after that (awaitsVerdict).
	verdictAt   map[gang.Key]time.Time
	unchanged   map[gang.Key]unchangedGang
	failed      bool
	membersSeed maphash.Seed
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
	// failed: the end due for replacement was a failure the autoscaler
	// reported (no pool could add the nodes now).
	failed bool
}

// neverFitsUntilDue says whether r (nil: no end seen) holds back a request
// that failed because no pool could ever hold the gang, its replacement
// not due at now.
func (r *replacement) neverFitsUntilDue(now time.Time) bool {
	return r != nil && r.never && !r.due.IsZero() && now.Before(r.due)
}

// Retry backoff of a gang's request that ended while the gang was short.
const (
	DefaultRetryFirst   = 15 * time.Second
	DefaultRetryCeiling = 10 * time.Minute
	// DefaultNeverFitsCeiling bounds the backoff of a gang whose requests
	// keep failing because no pool could ever hold it.
	DefaultNeverFitsCeiling = time.Hour
	// DefaultNeverFitsBackstop is how long such a gang waits when the
	// autoscaler watches the pools for its failure and has not found
	// them changed.
	DefaultNeverFitsBackstop = 24 * time.Hour
)

// Options configure a Writer. Members and Synced are required; a zero
// field otherwise takes its default.
type Options struct {
	// Members lists a gang's pods (from an informer: see Members).
	Members func(gang.Key) []*v1.Pod
	// Synced says whether the informer behind Members has synced: until
	// then a gang with no members listed is not known to be gone.
	Synced func() bool
	// Report writes a gang condition (MusterGang's status writer); nil
	// reports nothing.
	Report ReportFunc
	// Period is how often Run syncs (default DefaultPeriod).
	Period time.Duration
	// Backoff is the replacement backoff of a request that ended while its
	// gang was short (default DefaultRetryFirst, DefaultRetryCeiling,
	// DefaultNeverFitsCeiling, DefaultNeverFitsBackstop; a zero backstop
	// retries every never-fits failure by the ceilings).
	Backoff Backoff
	// Now is the time requests are stamped with and the backoff is timed
	// on (default wall time).
	Now func() time.Time
	// GPUResource names the GPU resource. A request then holds only the
	// members that ask for it: best-effort-atomic scale-up adds all of a
	// request's nodes to one pool, and a CPU-only member (an MPIJob's
	// launcher) rarely fits a GPU pool's nodes, so members without GPUs
	// are left to the autoscaler's ordinary scale-up.
	GPUResource v1.ResourceName
	// Leading, when set, makes Sync write only while it says this replica
	// is the scheduler's leader: a standby reconciles nothing.
	Leading func() bool
	// OnBookingEnd, when set, runs after a Sync that ended a booking.
	OnBookingEnd func()
}

// DefaultPeriod is how often the Writer syncs unless Options say.
const DefaultPeriod = time.Second

// NewWriter builds a Writer that writes requests and templates through
// client and dyn, and members' marks through marks.
func NewWriter(client kubernetes.Interface, dyn dynamic.Interface, marks *podpatch.Writer, o Options) (*Writer, error) {
	if o.Members == nil || o.Synced == nil {
		return nil, fmt.Errorf("provisioning.NewWriter: Options.Members and Options.Synced are required")
	}
	if o.Report == nil {
		o.Report = func(gang.Key, metav1.Condition) {}
	}
	if o.Period <= 0 {
		o.Period = DefaultPeriod
	}
	if o.Backoff == (Backoff{}) {
		o.Backoff = Backoff{First: DefaultRetryFirst, Ceiling: DefaultRetryCeiling, NeverFitsCeiling: DefaultNeverFitsCeiling, NeverFitsBackstop: DefaultNeverFitsBackstop}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	registerMetrics()
	var informer cache.SharedIndexInformer
	if dyn != nil {
		informer = newRequestInformer(dyn)
	}
	return &Writer{client: client, dyn: dyn, marks: marks, members: o.Members, synced: o.Synced, report: o.Report, period: o.Period,
		gpu: o.GPUResource, leading: o.Leading, bookingEnded: o.OnBookingEnd, backoff: o.Backoff, now: o.Now,
		want: map[gang.Key]Want{}, live: map[gang.Key]string{}, adoptedMin: map[gang.Key]int64{},
		booked: map[gang.Key]Booking{}, replaced: map[gang.Key]*replacement{}, notNow: map[gang.Key]string{}, placed: map[gang.Key]Want{},
		informer: informer, created: map[types.NamespacedName]types.UID{},
		wantAt: map[gang.Key]uint64{}, verdictAt: map[gang.Key]time.Time{}, unchanged: map[gang.Key]unchangedGang{}, membersSeed: maphash.MakeSeed(),
		kick: make(chan struct{}, 1)}, nil
}

// Set records the latest verdict on a gang.
func (w *Writer) Set(x Want) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if old, ok := w.want[x.Key]; !ok || !reflect.DeepEqual(old, x) || w.awaitsVerdictLocked(x.Key) {
		// Only a new verdict is owed a sync (Settled), and the one a
		// never-fits replacement waits for.
		w.sets++
		w.wantAt[x.Key] = w.sets
	}
	w.want[x.Key] = x
	w.verdictAt[x.Key] = w.now()
}

// awaitsVerdictLocked says whether gang k's request, failed because no
// pool could ever hold the gang, is due for replacement and no verdict has
// come since it was due: MusterGang parked the gang's lead until then, and
// the nodes that came meanwhile may have changed its shortfall. w.mu is
// held.
func (w *Writer) awaitsVerdictLocked(k gang.Key) bool {
	r := w.replaced[k]
	return r != nil && r.never && !r.due.IsZero() && !w.now().Before(r.due) && w.verdictAt[k].Before(r.due)
}

// NodesMayCome says whether new nodes may still come for gang k (see
// nodesMayCome), and why not: MusterGang's provision-or-preempt waits for
// nodes only while they may.
func (w *Writer) NodesMayCome(k gang.Key) (bool, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var want *Want
	if x, ok := w.want[k]; ok {
		want = &x
	}
	return nodesMayCome(want, w.replaced[k], w.notNow[k])
}

// NeverFits says whether gang k's last request failed because no node pool
// could ever hold the gang and its replacement is not due yet: until then
// no node is asked for it. why is the autoscaler's answer, due when the
// replacement is.
func (w *Writer) NeverFits(k gang.Key) (why string, due time.Time, never bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := w.replaced[k]
	if !r.neverFitsUntilDue(w.now()) {
		return "", time.Time{}, false
	}
	return r.why, r.due, true
}

// RetryNeverFits has gang k's next request be due now if it is held back
// because no pool could ever hold the gang (NeverFits): the gang changed,
// and the autoscaler's answer was about the gang as it was. The lead's next
// attempt brings the verdict the replacement is written from.
func (w *Writer) RetryNeverFits(k gang.Key) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if r := w.replaced[k]; r.neverFitsUntilDue(w.now()) {
		r.due = w.now()
	}
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
	w.Start(ctx)
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

// Start runs the writer's informer until ctx ends (Run starts it): until
// then, and until it has synced, Syncs read each request from the API.
func (w *Writer) Start(ctx context.Context) {
	if w.informer == nil {
		return
	}
	w.startOnce.Do(func() { go w.informer.RunWithContext(ctx) })
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

// StateEntries counts the writer's state by kind, for the
// muster_scheduler_state_entries gauge.
func (w *Writer) StateEntries() map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return map[string]int{"hint-wants": len(w.want), "hint-live-requests": len(w.live), "hint-adopted-gangs": len(w.adoptedMin),
		"hint-bookings": len(w.booked), "hint-replacements": len(w.replaced), "hint-not-now": len(w.notNow),
		"hint-placed-gangs": len(w.placed)}
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
