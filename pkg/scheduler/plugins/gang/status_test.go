// Unit tests of the gang status writer: conditions written when they change, invalid specs told once this replica leads.

package gang

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"

	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/gangstate"
	"github.com/muster-project/muster/pkg/scheduler/podpatch"
	"github.com/muster-project/muster/pkg/simulate"
)

// Other plugins report conditions on a gang's status through the profile's
// State: a new or changed condition marks the gang for writing, the same
// one again does not, and an empty reason clears it, keeping its
// transition time while its status stands.
func TestReportedConditionsAreWrittenWhenTheyChange(t *testing.T) {
	clk := simulate.NewStepClock(time.Unix(1000, 0))
	pl, _, k := wakePlugin(t, clk, time.Second, "llm", 2)
	pl.status = newStatusWriter(pl.handle, pl, podpatch.NewForClient(nil), time.Second) // never run: nothing here is written
	st := &gangstate.State{}
	st.ShareStatus(pl.status)
	w := pl.status
	dirty := func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		_, ok := w.dirty[k]
		w.dirty = map[gang.Key]struct{}{}
		return ok
	}
	cond := func() (metav1.Condition, bool) {
		w.mu.Lock()
		defer w.mu.Unlock()
		c, ok := w.extra[k][gang.ConditionPreempting]
		return c, ok
	}
	making := metav1.Condition{Type: gang.ConditionPreempting, Status: metav1.ConditionTrue, Reason: gang.ReasonMadeRoom, Message: "shed 2 members of ns/young"}

	if !st.ReportCondition(k, making) || !dirty() {
		t.Fatal("a new condition did not mark the gang for writing")
	}
	first, _ := cond()
	st.ReportCondition(k, making)
	if dirty() {
		t.Error("the same condition again marked the gang for writing")
	}
	more := making
	more.Message = "shed 3 members of ns/young"
	st.ReportCondition(k, more)
	if !dirty() {
		t.Error("a changed message did not mark the gang for writing")
	}
	if c, _ := cond(); c.Message != more.Message || !c.LastTransitionTime.Equal(&first.LastTransitionTime) {
		t.Errorf("after a changed message: %q since %v, want the new message since %v (its status stood)", c.Message, c.LastTransitionTime, first.LastTransitionTime)
	}
	st.ReportCondition(k, metav1.Condition{Type: gang.ConditionPreempting})
	if _, ok := cond(); ok || !dirty() {
		t.Errorf("an empty reason left the condition (%t) or did not mark the gang (want marked)", ok)
	}
	if !w.reported[gang.ConditionPreempting] {
		t.Error("a type once reported is not remembered as Muster's to remove from an upstream PodGroup")
	}
}

// A pod judged invalid before this replica leads is told once it leads.
// kube-scheduler starts its informers, and the queue runs PreEnqueue,
// before it runs for the lease; a member gated then is not judged again
// until it changes, so a standby that told nothing and kept nothing left
// it gated with no InvalidGangSpec event for good (TestOnlyTheLeaderWrites
// in stress: "no InvalidGangSpec event containing \"many\"").
func TestInvalidSpecJudgedBeforeLeadingIsToldOnceLeading(t *testing.T) {
	rec := events.NewFakeRecorder(10)
	fw, err := frameworkruntime.NewFramework(t.Context(), nil, &schedconfig.KubeSchedulerProfile{SchedulerName: "muster-scheduler"},
		frameworkruntime.WithEventRecorder(rec))
	if err != nil {
		t.Fatal(err)
	}
	pod := func(name string) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("u-" + name),
			Labels: map[string]string{gang.GroupLabel: name[:3]}, Annotations: map[string]string{gang.MinMemberAnnotation: "many"}}}
	}
	bad, fixed, gone := pod("bad-0"), pod("fix-0"), pod("gon-0")
	clk := simulate.NewStepClock(metav1.Unix(1000, 0).Time)
	pl := &Gang{handle: fw, clock: clk, leading: &gangstate.Leadership{}, tracker: gang.NewTracker(clk.Now),
		pods: cache.NewIndexer(cache.MetaNamespaceKeyFunc, gangstate.Indexers())}
	pl.status = newStatusWriter(fw, pl, podpatch.NewForClient(nil), 0) // never run: nothing here is written
	notANumber := errors.New(`pod ns/bad-0: annotation ` + gang.MinMemberAnnotation + `: "many" is not a number`)
	told := func() []string { return drain(rec) }

	if pl.leading.Leading() {
		t.Fatal("a replica whose scheduler has not published its configuration leads; the test needs a standby")
	}
	for _, p := range []*v1.Pod{bad, fixed, gone} {
		pl.status.invalid(gang.Key{Namespace: "ns", Name: p.Labels[gang.GroupLabel]}, p, notANumber)
	}
	if got := told(); len(got) != 0 {
		t.Fatalf("a standby told %q", got)
	}
	if !pl.status.Settled() {
		t.Fatal("a standby owes writes")
	}
	pl.status.admitted(fixed) // corrected before the replica led
	pl.status.podGone(gone)   // deleted before it led

	pl.leading.Scheduling()
	if pl.status.Settled() {
		t.Fatal("the leader owes bad-0's event, but its writes are settled")
	}
	pl.status.flush(t.Context())
	got := told()
	if len(got) != 1 || !strings.Contains(got[0], EventInvalidGang) || !strings.Contains(got[0], `"many" is not a number`) {
		t.Fatalf("at the leader's first flush told %q, want one %s event for bad-0", got, EventInvalidGang)
	}
	// Told once: neither the next flush nor the same judgement again tells it twice.
	pl.status.flush(t.Context())
	pl.status.invalid(gang.Key{Namespace: "ns", Name: "bad"}, bad, notANumber)
	if got := told(); len(got) != 0 {
		t.Fatalf("told again %q", got)
	}
}

// A gang's events mark changes of its reason, not of its counts: a gang
// waiting for room whose message moves with the cluster (the room it has,
// the members it is short) records one Unschedulable event, and one
// capacity event per reason the hint writer reports, while the status keeps
// the latest message. A new reason is recorded again.
func TestGangEventsMarkChangesOfReason(t *testing.T) {
	rec := events.NewFakeRecorder(100)
	fw, err := frameworkruntime.NewFramework(t.Context(), nil, &schedconfig.KubeSchedulerProfile{SchedulerName: "muster-scheduler"},
		frameworkruntime.WithEventRecorder(rec))
	if err != nil {
		t.Fatal(err)
	}
	clk := simulate.NewStepClock(time.Unix(1000, 0))
	pods := cache.NewIndexer(cache.MetaNamespaceKeyFunc, gangstate.Indexers())
	addGang(t, pods, "llm", 3)
	k := gang.Key{Namespace: "ns", Name: "llm"}
	leading := &gangstate.Leadership{}
	leading.Scheduling()
	pl := &Gang{handle: fw, clock: clk, leading: leading, tracker: gang.NewTracker(clk.Now), pods: pods}
	pl.status = newStatusWriter(fw, pl, podpatch.NewForClient(nil), time.Second) // never run: synced by hand
	st := &gangstate.State{}
	st.ShareStatus(pl.status)
	told := func() []string { return drain(rec) }
	fail := func(msg string) {
		pl.tracker.Fail(k, msg, 0, pl.tracker.Attempt(k))
		pl.status.sync(t.Context(), k)
	}
	report := func(reason, msg string) {
		st.ReportCondition(k, metav1.Condition{Type: "CapacityRequested", Status: metav1.ConditionFalse, Reason: reason, Message: msg})
		pl.status.sync(t.Context(), k)
	}
	count := func(got []string, reason string) int {
		n := 0
		for _, e := range got {
			if strings.Contains(e, " "+reason+" ") {
				n++
			}
		}
		return n
	}

	fail("gang ns/llm needs 3 more members placed at once; the cluster has room for 1")
	report("CapacityRequested", "short 2 pods; asked (ProvisioningRequest r-1)")
	if got := told(); count(got, gang.ReasonUnschedulable) != 1 || count(got, "CapacityRequested") != 1 {
		t.Fatalf("a gang's first failure and request told %q, want one %s and one CapacityRequested event", got, gang.ReasonUnschedulable)
	}
	for i := 2; i <= 4; i++ {
		fail(fmt.Sprintf("gang ns/llm needs 3 more members placed at once; the cluster has room for %d", i%3))
		report("CapacityRequested", fmt.Sprintf("short %d pods; asked (ProvisioningRequest r-%d)", i, i))
	}
	if got := told(); len(got) != 0 {
		t.Fatalf("failures and requests whose counts alone changed told %q, want nothing", got)
	}
	pl.status.mu.Lock()
	last := pl.status.last[k]
	pl.status.mu.Unlock()
	if !strings.Contains(last.sum.Message, "room for 1") {
		t.Errorf("the status keeps %q, want the latest message (room for 1)", last.sum.Message)
	}
	report("CapacityRequestRetrying", "r-4 failed; a new request follows")
	report("CapacityRequested", "short 2 pods; asked (ProvisioningRequest r-5)")
	if got := told(); count(got, "CapacityRequestRetrying") != 1 || count(got, "CapacityRequested") != 1 {
		t.Fatalf("a failed request and its replacement told %q, want one event each", got)
	}
}

// drain takes the events a fake recorder holds.
func drain(rec *events.FakeRecorder) []string {
	var out []string
	for {
		select {
		case e := <-rec.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}
