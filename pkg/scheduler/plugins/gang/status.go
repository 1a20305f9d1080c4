// The status writer: PodGroup status, events, gated marks, stranded members, safe-to-evict marks.

package gang

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	schedv1beta1 "k8s.io/api/scheduling/v1beta1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"sigs.k8s.io/scheduler-plugins/pkg/generated/clientset/versioned"

	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/podpatch"
)

// Event reasons Muster records on pods and PodGroups.
const (
	EventInvalidGang = "InvalidGangSpec"
	EventGangGated   = "GangGated"
)

// reasonGated is the PodScheduled reason of members held at PreEnqueue: the
// one the API server uses for scheduling gates, which autoscalers skip.
const reasonGated = v1.PodReasonSchedulingGated

// statusWriter writes what the plugin decides back to the API: PodGroup status
// (phase, counts, a Scheduled condition in words), de-duplicated events, and
// the PodScheduled condition of gated members. Plugin hooks only mark gangs
// dirty; the writes happen here, batched at most once per period per gang,
// off the scheduling path.
type statusWriter struct {
	h      fwk.Handle
	pl     *Gang
	period time.Duration
	pgs    versioned.Interface
	// marks writes members' annotations and conditions, coalesced, on its
	// own rate-limited client.
	marks *podpatch.Writer

	// loopMu is held by the writing loop, which owns last and placed.
	loopMu sync.Mutex

	mu sync.Mutex
	// writing: a flush is writing what it took from dirty and gate.
	writing bool
	dirty   map[gang.Key]struct{}
	gate    map[types.UID]gatedPod
	last    map[gang.Key]written
	placed  map[gang.Key]bool // the quorum was placed at some point
	// untimed: gangs whose quorum was placed but whose binds the informer
	// has not shown yet, so its wait is timed at a later sync.
	untimed map[gang.Key]bool
	// stranded is when each gang's bound members fell, or stood, below min.
	stranded map[gang.Key]time.Time
	told     map[types.UID]string
	// extra holds conditions other components report on a gang (the
	// autoscaler hints), written with the gang's own in one patch.
	extra map[gang.Key]map[string]metav1.Condition
	// reported are the condition types reported through ReportCondition,
	// Muster's to remove from an upstream PodGroup once they are cleared.
	reported map[string]bool
	// phase is each gang's phase as last written, for the muster_gangs
	// gauge (read at scrape time, so not owned by the loop).
	phase map[gang.Key]string
	// started: quorums bound before it are not this writer's to time.
	started time.Time
}

// writers finds a profile's status writer from its framework handle, so that
// other plugins of the profile report gang conditions through it.
var writers sync.Map // fwk.Handle -> *statusWriter

// ReportCondition sets a condition of another type than Scheduled on the
// gang's PodGroup status, written with MusterGang's own status (and an event
// when its reason or message changes). Clear it with an empty reason. It
// returns false when the profile runs no MusterGang.
func ReportCondition(h fwk.Handle, k gang.Key, c metav1.Condition) bool {
	v, ok := writers.Load(h)
	if !ok {
		return false
	}
	w := v.(*statusWriter)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.reported[c.Type] = true
	conds := w.extra[k]
	old, had := conds[c.Type]
	switch {
	case c.Reason == "" && had:
		delete(conds, c.Type)
	case c.Reason == "", had && old.Status == c.Status && old.Reason == c.Reason && old.Message == c.Message:
		return true
	default:
		if conds == nil {
			conds = map[string]metav1.Condition{}
			w.extra[k] = conds
		}
		c.LastTransitionTime = metav1.Now()
		if had && old.Status == c.Status {
			c.LastTransitionTime = old.LastTransitionTime
		}
		conds[c.Type] = c
	}
	w.dirty[k] = struct{}{}
	return true
}

type gatedPod struct {
	pod   *v1.Pod
	msg   string
	since time.Time
}

type written struct {
	sum   gang.Summary
	obs   gang.Observed
	since metav1.Time
	extra string // conditionsSignature of the extra conditions written
}

// conditionsSignature renders conditions for change detection.
func conditionsSignature(cs []metav1.Condition) string {
	var b strings.Builder
	for _, c := range cs {
		b.WriteString("\x00" + c.Type + "\x01" + c.Reason + "\x01" + c.Message + "\x01" + string(c.Status))
	}
	return b.String()
}

func newStatusWriter(h fwk.Handle, pl *Gang, marks *podpatch.Writer, period time.Duration) *statusWriter {
	w := &statusWriter{h: h, pl: pl, period: period, marks: marks,
		dirty: map[gang.Key]struct{}{}, gate: map[types.UID]gatedPod{}, last: map[gang.Key]written{},
		placed: map[gang.Key]bool{}, untimed: map[gang.Key]bool{}, stranded: map[gang.Key]time.Time{}, told: map[types.UID]string{}, extra: map[gang.Key]map[string]metav1.Condition{}, reported: map[string]bool{},
		phase: map[gang.Key]string{}, started: pl.clock.Now()}
	registerMetrics()
	writers.Store(h, w)
	if cfg := h.KubeConfig(); cfg != nil && pl.podGroups != nil {
		w.pgs, _ = podGroupClient(cfg)
	}
	return w
}

func (w *statusWriter) touch(k gang.Key) {
	w.mu.Lock()
	w.dirty[k] = struct{}{}
	w.mu.Unlock()
}

// gated records that a member waits at the quorum gate, to be shown on the pod.
func (w *statusWriter) gated(pod *v1.Pod, msg string) {
	for _, c := range pod.Status.Conditions {
		if c.Type == v1.PodScheduled && c.Reason == reasonGated && c.Message == msg {
			return
		}
	}
	w.mu.Lock()
	since := w.pl.clock.Now()
	if prev, ok := w.gate[pod.UID]; ok {
		since = prev.since
	}
	w.gate[pod.UID] = gatedPod{pod: pod, msg: msg, since: since}
	w.mu.Unlock()
}

// admitted drops a pending gated mark: the member passed the gate before the
// mark was written, so writing it would only cost an API call and an update event.
func (w *statusWriter) admitted(uid types.UID) {
	w.mu.Lock()
	delete(w.gate, uid)
	w.mu.Unlock()
}

// invalid reports bad gang input on the pod, once per distinct message.
func (w *statusWriter) invalid(k gang.Key, pod *v1.Pod, err error) {
	leading := w.pl.leading.Leading()
	w.mu.Lock()
	seen := w.told[pod.UID] == err.Error()
	if leading {
		w.told[pod.UID] = err.Error() // a standby tells nothing, so nothing is told yet
	}
	w.dirty[k] = struct{}{}
	w.mu.Unlock()
	if !seen && leading {
		// The event names the object and field at fault as its related
		// object: the events library folds a pod's events of one reason
		// and related object into a series that keeps the first one's
		// note, so without it "PodGroup does not exist" (the pod seen
		// before its PodGroup) hid the PodGroup's bad field for good.
		var related runtime.Object
		var fe *gang.FieldError
		if errors.As(err, &fe) {
			if ref := fe.Reference(); ref != nil {
				related = ref
			}
		}
		w.h.EventRecorder().Eventf(pod, related, v1.EventTypeWarning, EventInvalidGang, "Scheduling", "%s", err.Error())
	}
	w.gated(pod, err.Error())
}

// WritesSettled says whether the profile's MusterGang has written all it
// owes the API: no gang's status left to sync, no gated mark due, no pod
// patch queued, and no sync under way. A standby owes nothing. muster
// simulate waits for it before a step counts as quiet, so what a step
// decided is written before the autoscaler looks, however loaded the
// machine. True when the profile runs no MusterGang.
func WritesSettled(h fwk.Handle) bool {
	v, ok := writers.Load(h)
	if !ok {
		return true
	}
	return v.(*statusWriter).settled()
}

func (w *statusWriter) settled() bool {
	if !w.pl.leading.Leading() {
		return true
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.writing || len(w.dirty) > 0 {
		return false
	}
	// A gated mark waits a period before it is written (flush): one that
	// has waited it is owed.
	cutoff := w.pl.clock.Now().Add(-w.period)
	for _, g := range w.gate {
		if g.since.Before(cutoff) {
			return false
		}
	}
	return w.marks == nil || w.marks.Pending() == 0
}

func (w *statusWriter) run(ctx context.Context) {
	wait.UntilWithContext(ctx, w.flush, w.period)
}

func (w *statusWriter) flush(ctx context.Context) {
	if !w.pl.leading.Leading() {
		return // a standby writes nothing; what is dirty waits (leader.go)
	}
	w.loopMu.Lock()
	defer w.loopMu.Unlock()
	// Gated marks are written only once they have stood for a whole period:
	// in a burst, members usually pass the gate within moments of each other.
	cutoff := w.pl.clock.Now().Add(-w.period)
	w.mu.Lock()
	dirty := w.dirty
	w.dirty = map[gang.Key]struct{}{}
	var gate []gatedPod
	for uid, g := range w.gate {
		if g.since.Before(cutoff) {
			gate = append(gate, g)
			delete(w.gate, uid)
		}
	}
	w.writing = len(gate)+len(dirty) > 0
	w.mu.Unlock()
	for _, g := range gate {
		w.writeGated(g)
	}
	for k := range dirty {
		w.sync(ctx, k)
	}
	w.mu.Lock()
	w.writing = false
	w.mu.Unlock()
}

func (w *statusWriter) writeGated(g gatedPod) {
	w.marks.SetCondition(g.pod, v1.PodCondition{
		Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: reasonGated, Message: g.msg, LastTransitionTime: metav1.Now(),
	})
}

// sync recomputes one gang's status and writes it when it changed.
func (w *statusWriter) sync(ctx context.Context, k gang.Key) {
	logger := klog.FromContext(ctx)
	members := w.pl.members(k)
	var (
		spec gang.Spec
		err  error
		pg   runtime.Object // the object events are about
		ref  *v1.ObjectReference
	)
	var upstream *schedv1beta1.PodGroup
	source := w.pl.sourceOf(k, members)
	if source == gang.SourceWorkload && w.pl.workloads != nil {
		if obj, getErr := w.pl.workloads.podGroups.PodGroups(k.Namespace).Get(k.Name); getErr == nil {
			upstream = obj
			spec, err = gang.SpecFromWorkload(obj, w.pl.workloadOf(obj), w.pl.defaults)
			ref = workloadPodGroupRef(obj)
			pg = ref
			if apimeta.IsStatusConditionTrue(obj.Status.Conditions, schedv1beta1.PodGroupInitiallyScheduled) {
				w.placed[k] = true // survives a scheduler restart through the object itself
			}
		}
	}
	if source == gang.SourcePodGroup && w.pl.podGroups != nil {
		if obj, getErr := w.pl.podGroups.PodGroups(k.Namespace).Get(k.Name); getErr == nil {
			spec, err = gang.SpecFromPodGroup(obj, w.pl.defaults)
			ref = &v1.ObjectReference{APIVersion: "scheduling.x-k8s.io/v1alpha1", Kind: "PodGroup", Namespace: obj.Namespace, Name: obj.Name, UID: obj.UID}
			pg = ref
			if obj.Status.Phase == gang.PhaseScheduling || obj.Status.Phase == gang.PhaseRunning {
				w.placed[k] = true // survives a scheduler restart through the object itself
			}
		}
	}
	if ref == nil {
		// A CRD-free gang, or members naming a PodGroup that is missing: the
		// oldest member speaks for the gang, and resolving it gives the spec
		// or the error the members themselves report.
		oldest := oldestLive(members)
		if oldest == nil {
			w.forget(k)
			return
		}
		pg = oldest
		spec, _, err = w.pl.resolve(oldest)
	}

	var sum gang.Summary
	obs := gang.Observed{Counts: w.pl.tracker.Count(k, members, "")}
	for _, m := range members {
		switch m.Status.Phase {
		case v1.PodRunning:
			obs.Running++
		case v1.PodSucceeded:
			obs.Succeeded++
		case v1.PodFailed:
			obs.Failed++
		}
	}
	if err != nil {
		sum = gang.Summary{Phase: gang.PhasePending, Reason: gang.ReasonInvalidSpec, Message: err.Error()}
	} else {
		failure := w.pl.tracker.LastFailure(k)
		sum = spec.Summarize(obs, w.placed[k], failure)
		if spec.QuorumPlaced(obs.Counts) {
			if !w.placed[k] {
				w.untimed[k] = true
			}
			w.placed[k] = true
		}
		if w.untimed[k] && w.timeQuorum(spec, members) {
			delete(w.untimed, k)
		}
	}
	w.mu.Lock()
	w.phase[k] = sum.Phase
	w.mu.Unlock()

	if err == nil {
		w.protect(members, spec.MinMember)
		w.checkStranded(ctx, spec, obs, members, pg)
	}

	w.mu.Lock()
	extra := make([]metav1.Condition, 0, len(w.extra[k]))
	for _, c := range w.extra[k] {
		extra = append(extra, c)
	}
	w.mu.Unlock()
	sort.Slice(extra, func(i, j int) bool { return extra[i].Type < extra[j].Type })
	extraSig := conditionsSignature(extra)

	prev, had := w.last[k]
	if had && prev.sum == sum && prev.obs == obs && prev.extra == extraSig {
		return
	}
	since := prev.since
	if !had || prev.sum.Placed != sum.Placed || prev.sum.Reason != sum.Reason {
		since = metav1.Now()
	}
	w.last[k] = written{sum: sum, obs: obs, since: since, extra: extraSig}
	for _, c := range extra {
		if had && strings.Contains(prev.extra, "\x00"+c.Type+"\x01"+c.Reason+"\x01"+c.Message+"\x01") {
			continue
		}
		if c.Type == gang.ConditionDisrupted || c.Type == gang.ConditionPreempting {
			continue // MusterGang records these events when it makes room
		}
		w.h.EventRecorder().Eventf(pg, nil, v1.EventTypeNormal, c.Reason, "Autoscaling", "%s", c.Message)
	}

	if !had || prev.sum.Reason != sum.Reason || prev.sum.Message != sum.Message {
		kind := v1.EventTypeNormal
		switch sum.Reason {
		case gang.ReasonInvalidSpec, gang.ReasonUnschedulable, gang.ReasonMembersLost:
			kind = v1.EventTypeWarning
		}
		w.h.EventRecorder().Eventf(pg, nil, kind, sum.Reason, "Scheduling", "%s", sum.Message)
	}
	if ref == nil {
		return
	}
	status := v1.ConditionFalse
	if sum.Placed {
		status = v1.ConditionTrue
	}
	if upstream != nil {
		conds := append([]metav1.Condition{{Type: gang.ConditionScheduled, Status: metav1.ConditionStatus(status), Reason: sum.Reason, Message: sum.Message, LastTransitionTime: since}}, extra...)
		if c, ok := gang.InitiallyScheduled(sum); ok {
			conds = append(conds, c)
		}
		w.mu.Lock()
		owned := map[string]bool{gang.ConditionScheduled: true}
		for t := range w.reported {
			owned[t] = true
		}
		w.mu.Unlock()
		if err := w.writeWorkloadStatus(ctx, upstream, conds, owned); err != nil {
			delete(w.last, k) // try again on the next change
		}
		return
	}
	if w.pgs == nil {
		return
	}
	patch, _ := json.Marshal(map[string]any{"status": map[string]any{
		"phase":     sum.Phase,
		"scheduled": obs.Placed,
		"running":   obs.Running,
		"succeeded": obs.Succeeded,
		"failed":    obs.Failed,
		"conditions": append([]metav1.Condition{{
			Type: gang.ConditionScheduled, Status: metav1.ConditionStatus(status), Reason: sum.Reason, Message: sum.Message, LastTransitionTime: since,
		}}, extra...),
	}})
	if _, err := w.pgs.SchedulingV1alpha1().PodGroups(k.Namespace).Patch(ctx, k.Name, types.MergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil {
		logger.V(2).Info("Could not write PodGroup status", "podGroup", klog.KRef(k.Namespace, k.Name), "err", err)
		delete(w.last, k) // try again on the next change
	}
}

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
		if m.Annotations[gang.SafeToEvictAnnotation] == want {
			continue
		}
		w.marks.Annotate(m, map[string]*string{gang.SafeToEvictAnnotation: &want})
	}
}

// forgetGang drops the plugin's state of a gang that is gone (its members,
// or its PodGroup): the status writer's is dropped by the writer.
func (pl *Gang) forgetGang(k gang.Key) {
	pl.tracker.Forget(k)
	pl.gangSince.Delete(k)
	pl.firstSeen.Delete(k)
	pl.quorate.Delete(k)
	pl.roomShort.Delete(k)
}

// stateEntries counts the plugin's state by kind, for the
// muster_scheduler_state_entries gauge.
func (pl *Gang) stateEntries() map[string]int {
	count := func(m *sync.Map) (n int) {
		m.Range(func(any, any) bool { n++; return true })
		return n
	}
	w := pl.status
	w.mu.Lock()
	out := map[string]int{
		"status-gated-pods": len(w.gate), "status-told-pods": len(w.told), "status-extra-gangs": len(w.extra), "status-dirty-gangs": len(w.dirty),
		"status-phase-gangs": len(w.phase),
	}
	w.mu.Unlock()
	// last and placed belong to the writer's loop, which reads them unlocked.
	w.loopMu.Lock()
	out["status-written-gangs"], out["status-placed-gangs"], out["status-stranded-gangs"] = len(w.last), len(w.placed), len(w.stranded)
	out["status-untimed-gangs"] = len(w.untimed)
	w.loopMu.Unlock()
	out["tracked-gangs"] = pl.tracker.Len()
	out["queue-order-gangs"] = count(&pl.gangSince)
	out["quorate-gangs"] = count(&pl.quorate)
	out["activating-gangs"] = pl.tracker.WakesArmed()
	out["room-short-gangs"] = count(&pl.roomShort)
	out["shape-pods"] = pl.shapes.Len()
	out["marks-pending-pods"] = w.marks.Pending()
	out["marks-remembered-pods"] = w.marks.Remembered()
	return out
}

func (w *statusWriter) forget(k gang.Key) {
	delete(w.last, k)
	delete(w.stranded, k)
	w.mu.Lock()
	delete(w.extra, k)
	delete(w.phase, k)
	w.mu.Unlock()
	delete(w.placed, k)
	delete(w.untimed, k)
	w.pl.forgetGang(k)
}

// podGone drops what was kept about a deleted pod.
func (w *statusWriter) podGone(obj any) {
	pod, ok := podFrom(obj)
	if !ok {
		return
	}
	w.mu.Lock()
	delete(w.told, pod.UID)
	delete(w.gate, pod.UID)
	w.mu.Unlock()
	w.marks.Forget(pod.Namespace, pod.Name)
}

// timeQuorum records how long a gang waited for the quorum it now has,
// unless the quorum was bound before this writer started (a restart, or a
// standby taking over, finds quorums it did not see bind). It returns false
// while the informer does not show the quorum bound yet: the tracker counts
// members placed once Permit lets them through, before their binds land,
// and a gang timed only then was never timed (the binds' updates bring the
// gang back to the writer).
func (w *statusWriter) timeQuorum(spec gang.Spec, members []*v1.Pod) bool {
	at := quorumBoundAt(members, spec.MinMember)
	if at.IsZero() {
		return false
	}
	if at.Before(w.started.Truncate(time.Second)) {
		return true
	}
	source := "labels"
	switch spec.Source {
	case gang.SourcePodGroup:
		source = "podgroup"
	case gang.SourceWorkload:
		source = "workload"
	}
	quorumWait.WithLabelValues(source).Observe(max(0, at.Sub(firstCreated(members)).Seconds()))
	return true
}

// phaseCounts counts the gangs by the phase last written.
func (w *statusWriter) phaseCounts() map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string]int{}
	for _, p := range w.phase {
		out[p]++
	}
	return out
}
