// The status writer: PodGroup status, events, gated marks, stranded members, safe-to-evict marks.

package gang

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
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
	// arrived is when each gang's latest member was added: a gang's gated
	// marks wait until none has arrived for a period (flush).
	arrived map[gang.Key]time.Time
	// holding are the members the gate holds while their gang's lead tries
	// alone (Gang.heldBy); heldTold, the condition message asked for
	// each, so that it is asked once per change.
	holding  map[types.UID]heldPod
	heldTold map[types.UID]string
	// wake are the gangs whose lead flush brings out of the gate.
	wake   map[gang.Key]struct{}
	last   map[gang.Key]written
	placed map[gang.Key]bool // the quorum was placed at some point
	// untimed: gangs whose quorum was placed but whose binds the informer
	// has not shown yet, so its wait is timed at a later sync.
	untimed map[gang.Key]bool
	// stranded is when each gang's bound members fell, or stood, below min.
	stranded map[gang.Key]time.Time
	told     map[types.UID]string
	// untold are pods judged invalid before this replica led, to be told
	// at its first flush as leader: kube-scheduler starts its informers,
	// and PreEnqueue judges pods, before it runs for the lease, and a pod
	// gated then is not judged again until it changes.
	untold map[types.UID]untoldPod
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

// ReportCondition sets a condition of another type than Scheduled on the
// gang's PodGroup status, written with MusterGang's own status (and an event
// when its reason or message changes). Clear it with an empty reason. The
// profile's other plugins reach it through their gangstate.State.
func (w *statusWriter) ReportCondition(k gang.Key, c metav1.Condition) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.reported[c.Type] = true
	conds := w.extra[k]
	old, had := conds[c.Type]
	switch {
	case c.Reason == "" && had:
		delete(conds, c.Type)
	case c.Reason == "", had && old.Status == c.Status && old.Reason == c.Reason && old.Message == c.Message:
		return
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
}

type gatedPod struct {
	key   gang.Key
	pod   *v1.Pod
	msg   string
	since time.Time
}

type heldPod struct {
	key gang.Key
	pod *v1.Pod
	// behind is the elastic member it waits behind (heldBehind), "" when
	// it waits behind its gang's lead (held).
	behind string
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
		dirty: map[gang.Key]struct{}{}, gate: map[types.UID]gatedPod{}, arrived: map[gang.Key]time.Time{}, holding: map[types.UID]heldPod{}, heldTold: map[types.UID]string{}, last: map[gang.Key]written{},
		placed: map[gang.Key]bool{}, untimed: map[gang.Key]bool{}, stranded: map[gang.Key]time.Time{}, told: map[types.UID]string{}, untold: map[types.UID]untoldPod{}, extra: map[gang.Key]map[string]metav1.Condition{}, reported: map[string]bool{},
		phase: map[gang.Key]string{}, started: pl.clock.Now()}
	registerMetrics()
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

// gated records that a member of gang k waits at the quorum gate, to be
// shown on the pod.
func (w *statusWriter) gated(k gang.Key, pod *v1.Pod, msg string) {
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
	w.gate[pod.UID] = gatedPod{key: k, pod: pod, msg: msg, since: since}
	w.unhold(pod)
	w.mu.Unlock()
}

// arrival notes that a member of gang k was added (at now): members created in a
// burst pass the quorum gate together once the last of the quorum comes,
// and marking each as gated on its way would cost a write per member.
func (w *statusWriter) arrival(k gang.Key, now time.Time) {
	w.mu.Lock()
	if w.arrived == nil {
		w.arrived = map[gang.Key]time.Time{}
	}
	w.arrived[k] = now
	w.mu.Unlock()
}

// admitted drops what waits to be written about a member that passed the
// gate: its gated or held mark, also one already handed to the pod writer
// and not yet sent (written late, it would stand over the condition the
// scheduler writes after), and an invalid spec not yet told, now corrected.
func (w *statusWriter) admitted(pod *v1.Pod) {
	w.mu.Lock()
	delete(w.gate, pod.UID)
	delete(w.untold, pod.UID)
	w.unhold(pod)
	w.mu.Unlock()
	w.marks.Unset(pod, v1.PodScheduled)
}

// held records that the gate holds a member of gang k while the gang's
// lead tries alone: the gang's sync shows it Unschedulable once an attempt
// failed (markHeld). A gated mark not yet written is dropped, stale now.
func (w *statusWriter) held(k gang.Key, pod *v1.Pod) { w.hold(k, pod, "") }

// heldBehind records that the gate holds a member above min of gang k
// behind behind, an elastic member of its kind that found no room
// (Gang.extraHeldBy): the gang's sync shows it Unschedulable (markHeld).
func (w *statusWriter) heldBehind(k gang.Key, pod *v1.Pod, behind string) { w.hold(k, pod, behind) }

func (w *statusWriter) hold(k gang.Key, pod *v1.Pod, behind string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if h, ok := w.holding[pod.UID]; ok {
		h.pod = pod
		if h.behind != behind {
			h.behind = behind
			w.dirty[k] = struct{}{}
		}
		w.holding[pod.UID] = h
		return
	}
	delete(w.gate, pod.UID)
	w.holding[pod.UID] = heldPod{key: k, pod: pod, behind: behind}
	w.marks.Unset(pod, v1.PodScheduled)
	w.dirty[k] = struct{}{}
}

// wakeLead has the next flush activate gang k's lead.
func (w *statusWriter) wakeLead(k gang.Key) {
	w.mu.Lock()
	if w.wake == nil {
		w.wake = map[gang.Key]struct{}{}
	}
	w.wake[k] = struct{}{}
	w.mu.Unlock()
}

// unhold forgets that a member was held. Called with mu held.
func (w *statusWriter) unhold(pod *v1.Pod) {
	delete(w.holding, pod.UID)
	delete(w.heldTold, pod.UID)
}

// invalid reports bad gang input on the pod, once per distinct message; a
// standby keeps it to tell once it leads.
func (w *statusWriter) invalid(k gang.Key, pod *v1.Pod, err error) {
	leading := w.pl.leading.Leading()
	w.mu.Lock()
	seen := w.told[pod.UID] == err.Error()
	if leading {
		w.told[pod.UID] = err.Error()
		delete(w.untold, pod.UID)
	} else if !seen {
		w.untold[pod.UID] = untoldPod{pod: pod, err: err}
	}
	w.dirty[k] = struct{}{}
	w.mu.Unlock()
	if !seen && leading {
		w.tell(pod, err)
	}
	w.gated(k, pod, err.Error())
}

type untoldPod struct {
	pod *v1.Pod
	err error
}

// tellUntold tells, once this replica leads, what it judged invalid before.
func (w *statusWriter) tellUntold() {
	w.mu.Lock()
	var tell []untoldPod
	for uid, u := range w.untold {
		if w.told[uid] != u.err.Error() {
			w.told[uid] = u.err.Error()
			tell = append(tell, u)
		}
		delete(w.untold, uid)
	}
	w.mu.Unlock()
	for _, u := range tell {
		w.tell(u.pod, u.err)
	}
}

// tell records the InvalidGangSpec event on the pod. The event names the
// object and field at fault as its related object: the events library
// folds a pod's events of one reason and related object into a series that
// keeps the first one's note, so without it "PodGroup does not exist" (the
// pod seen before its PodGroup) hid the PodGroup's bad field for good.
func (w *statusWriter) tell(pod *v1.Pod, err error) {
	var related runtime.Object
	var fe *gang.FieldError
	if errors.As(err, &fe) {
		if ref := fe.Reference(); ref != nil {
			related = ref
		}
	}
	w.h.EventRecorder().Eventf(pod, related, v1.EventTypeWarning, EventInvalidGang, "Scheduling", "%s", err.Error())
}

// Settled says whether MusterGang has written all it owes the API: no
// gang's status left to sync, no gated mark due, no pod patch queued, no
// invalid spec untold, and no sync under way. A standby owes nothing. muster
// simulate waits for it before a step counts as quiet, so what a step
// decided is written before the autoscaler looks, however loaded the
// machine.
func (w *statusWriter) Settled() bool {
	if !w.pl.leading.Leading() {
		return true
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.writing || len(w.dirty) > 0 || len(w.untold) > 0 || len(w.wake) > 0 {
		return false
	}
	// A gated mark waits a period before it is written (flush): one that
	// has waited it is owed.
	cutoff := w.pl.clock.Now().Add(-w.period)
	for _, g := range w.gate {
		if w.gatedDue(g, cutoff) {
			return false
		}
	}
	return w.marks == nil || w.marks.Unwritten() == 0
}

func (w *statusWriter) run(ctx context.Context) {
	wait.UntilWithContext(ctx, w.flush, w.period)
}

func (w *statusWriter) flush(ctx context.Context) {
	if !w.pl.leading.Leading() {
		return // a standby writes nothing; what is dirty waits (gangstate.Leadership)
	}
	w.loopMu.Lock()
	defer w.loopMu.Unlock()
	w.tellUntold()
	// Gated marks are written only once they have stood for a whole period
	// with no member of their gang arriving (gatedDue): in a burst, members
	// usually pass the gate within moments of each other.
	cutoff := w.pl.clock.Now().Add(-w.period)
	w.mu.Lock()
	dirty := w.dirty
	w.dirty = map[gang.Key]struct{}{}
	var gate []gatedPod
	for uid, g := range w.gate {
		if w.gatedDue(g, cutoff) {
			gate = append(gate, g)
			delete(w.gate, uid)
		}
	}
	w.writing = len(gate)+len(dirty) > 0
	wake := w.wake
	w.wake = nil
	w.mu.Unlock()
	// Off the queue's lock (PreEnqueue asked for these under it).
	for k := range wake {
		if lead := firstUnplaced(w.pl.members(k)); lead != nil {
			w.h.Activate(klog.FromContext(ctx), map[string]*v1.Pod{lead.Namespace + "/" + lead.Name: lead})
		}
	}
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

// gatedDue says whether a gated mark is due: it has stood since before
// cutoff, and no member of its gang arrived since. Called with mu held.
func (w *statusWriter) gatedDue(g gatedPod, cutoff time.Time) bool {
	return g.since.Before(cutoff) && !w.arrived[g.key].After(cutoff)
}

// markHeld shows the members the gate holds (held) why they wait, once the
// gang's attempts, which its lead makes alone, have failed: PodScheduled
// False, reason Unschedulable (the autoscaler's cue), in words that change
// only with what the gang waits for, not with each retry's figures (those
// are on the lead, its events and the gang's status). A member is written
// once per change of those words. Called from the writer's loop.
//
// A member above min held behind an elastic member of its kind (heldBehind)
// is shown the same way once its gang's quorum is placed: the member it
// waits behind found no room, and says why in its own condition and events.
func (w *statusWriter) markHeld(spec gang.Spec, counts gang.Counts, members []*v1.Pod) {
	k := spec.Key
	placed := spec.QuorumPlaced(counts)
	msg := ""
	if lead := firstUnplaced(members); !placed && counts.Waiting == 0 && lead != nil && w.pl.tracker.LastFailure(k) != "" {
		what := "its quorum could not be placed"
		if short, _ := w.pl.roomShort.Load(k); short == true {
			what = "the cluster has no room for its quorum yet"
		}
		msg = fmt.Sprintf("gang %s: %s; member %s tries for the gang, and this member joins it once it holds a node (%s's events and the gang's status say what is short)", k, what, lead.Name, lead.Name)
	}
	w.mu.Lock()
	var mark []heldMark
	for _, m := range members {
		h, ok := w.holding[m.UID]
		if !ok || h.key != k {
			continue
		}
		msg := msg
		if h.behind != "" {
			msg = ""
			if placed {
				msg = fmt.Sprintf("gang %s has its quorum; its elastic member %s found no room for members like this one, and this member is tried once %s holds a node (its events say what is short)", k, h.behind, h.behind)
			}
		}
		if msg == "" || w.heldTold[m.UID] == msg {
			continue
		}
		w.heldTold[m.UID] = msg
		if !showsUnschedulable(m, msg) {
			mark = append(mark, heldMark{pod: m, msg: msg})
		}
	}
	w.mu.Unlock()
	for _, m := range mark {
		w.marks.SetCondition(m.pod, v1.PodCondition{
			Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: v1.PodReasonUnschedulable, Message: m.msg, LastTransitionTime: metav1.Now(),
		})
	}
}

type heldMark struct {
	pod *v1.Pod
	msg string
}

// showsUnschedulable says whether the pod already shows PodScheduled
// False, reason Unschedulable, with msg.
func showsUnschedulable(p *v1.Pod, msg string) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == v1.PodScheduled {
			return c.Status == v1.ConditionFalse && c.Reason == v1.PodReasonUnschedulable && c.Message == msg
		}
	}
	return false
}

func (w *statusWriter) writeGated(g gatedPod) {
	w.marks.SetCondition(g.pod, v1.PodCondition{
		Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: reasonGated, Message: g.msg, LastTransitionTime: metav1.Now(),
	})
}

// forgetGang drops the plugin's state of a gang that is gone (its members,
// or its PodGroup): the status writer's is dropped by the writer.
func (pl *Gang) forgetGang(k gang.Key) {
	pl.tracker.Forget(k)
	pl.gangSince.Delete(k)
	pl.firstSeen.Delete(k)
	pl.quorate.Delete(k)
	pl.roomShort.Delete(k)
	pl.beyondCluster.Delete(k)
	pl.nodeCame.Delete(k)
	pl.passedOver.Delete(k)
	pl.extraLeads.Range(func(kind, _ any) bool {
		if kind.(extraKind).gang == k {
			pl.extraLeads.Delete(kind)
		}
		return true
	})
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
		"status-gated-pods": len(w.gate), "status-held-pods": len(w.holding), "status-held-told-pods": len(w.heldTold), "status-arrived-gangs": len(w.arrived), "status-wake-gangs": len(w.wake), "status-told-pods": len(w.told), "status-untold-pods": len(w.untold), "status-extra-gangs": len(w.extra), "status-dirty-gangs": len(w.dirty),
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
	out["beyond-cluster-gangs"] = count(&pl.beyondCluster)
	out["node-came-gangs"] = count(&pl.nodeCame)
	out["passed-over-gangs"] = count(&pl.passedOver)
	out["gated-pods"] = count(&pl.gatedPods)
	out["held-pods"] = count(&pl.heldPods)
	out["held-extra-pods"] = count(&pl.heldExtras)
	out["extra-lead-kinds"] = count(&pl.extraLeads)
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
	delete(w.arrived, k)
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
	delete(w.untold, pod.UID)
	delete(w.gate, pod.UID)
	w.unhold(pod)
	w.mu.Unlock()
	w.marks.Forget(pod.Namespace, pod.Name)
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
