// Unit tests of a short gang kept quiet: its lead alone tried, the members held behind it shown Unschedulable once per change, gated marks of a gang still arriving not written.

package gang

import (
	"context"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
	fwk "k8s.io/kube-scheduler/framework"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"

	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/gangstate"
	"github.com/muster-project/muster/pkg/scheduler/podpatch"
	"github.com/muster-project/muster/pkg/simulate"
)

// heldPlugin is wakePlugin with a status writer whose pod writer patches a
// fake clientset holding the members, and an event recorder: what a sync
// asks to be written is written, and counted.
func heldPlugin(t *testing.T, clk *simulate.StepClock, n int) (*Gang, *activations, gang.Key, *fake.Clientset, *podpatch.Writer) {
	t.Helper()
	pl, act, k := wakePlugin(t, clk, 10*time.Second, "big", n)
	fw, err := frameworkruntime.NewFramework(t.Context(), nil, &schedconfig.KubeSchedulerProfile{SchedulerName: "muster-scheduler"},
		frameworkruntime.WithPodActivator(act), frameworkruntime.WithWaitingPods(frameworkruntime.NewWaitingPodsMap()),
		frameworkruntime.WithEventRecorder(events.NewFakeRecorder(1000)))
	if err != nil {
		t.Fatal(err)
	}
	pl.handle = fw
	client := fake.NewClientset()
	for _, m := range pl.members(k) {
		if _, err := client.CoreV1().Pods(m.Namespace).Create(t.Context(), m, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	marks := podpatch.NewForClient(client)
	marks.SetRate(1000, 1000)
	pl.leading = &gangstate.Leadership{}
	pl.leading.Scheduling()
	pl.status = newStatusWriter(fw, pl, marks, time.Second)
	go marks.Run(t.Context(), 1)
	return pl, act, k, client, marks
}

// statusPatches counts the PATCHes of pods/status the fake clientset got,
// once the pod writer has sent all it was asked.
func statusPatches(t *testing.T, client *fake.Clientset, marks *podpatch.Writer) int {
	t.Helper()
	if err := wait.PollUntilContextTimeout(t.Context(), time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		return marks.Unwritten() == 0, nil
	}); err != nil {
		t.Fatalf("the pod writer did not finish: %d unwritten", marks.Unwritten())
	}
	n := 0
	for _, a := range client.Actions() {
		if p, ok := a.(k8stesting.PatchAction); ok && p.GetSubresource() == "status" {
			n++
		}
	}
	return n
}

// While a gang's quorum is not placed and no member holds a reservation,
// its lead alone passes the gate: the others are held (no scheduling
// cycle, so no FailedScheduling event nor condition written by the
// framework per member and retry). Once the lead waits at Permit, the
// others pass, as they do once the quorum is placed.
func TestShortGangIsTriedThroughItsLeadAlone(t *testing.T) {
	clk := simulate.NewStepClock(time.Unix(1000, 0))
	pl, _, k := wakePlugin(t, clk, 10*time.Second, "big", 4)
	pl.status = newStatusWriter(pl.handle, pl, podpatch.NewForClient(nil), time.Second) // never run
	pod := func(name string) *v1.Pod {
		obj, ok, err := pl.pods.GetByKey("ns/" + name)
		if err != nil || !ok {
			t.Fatalf("%s: %v %v", name, ok, err)
		}
		return obj.(*v1.Pod)
	}
	if st := pl.PreEnqueue(t.Context(), pod("big-0")); !st.IsSuccess() {
		t.Fatalf("the lead (the oldest member): %v %q, want admitted", st.Code(), st.Message())
	}
	for _, name := range []string{"big-1", "big-3"} {
		st := pl.PreEnqueue(t.Context(), pod(name))
		if st.Code() != fwk.UnschedulableAndUnresolvable || !strings.Contains(st.Message(), "member big-0 tries for the gang") {
			t.Errorf("%s with no attempt under way: %v %q, want held behind big-0", name, st.Code(), st.Message())
		}
	}
	pl.tracker.Wait(k, pod("big-0").UID)
	if st := pl.PreEnqueue(t.Context(), pod("big-1")); !st.IsSuccess() {
		t.Errorf("big-1 with the lead waiting at Permit: %v %q, want admitted", st.Code(), st.Message())
	}
	if len(pl.status.holding) != 1 {
		t.Errorf("%d members held after big-1 was admitted, want big-3 alone", len(pl.status.holding))
	}
	// A lead that still carries a scheduling gate cannot be tried: the
	// next member leads.
	pl.tracker.Release(k, pod("big-0").UID)
	gated := pod("big-0").DeepCopy()
	gated.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "example.com/wait"}}
	if err := pl.pods.Update(gated); err != nil {
		t.Fatal(err)
	}
	if st := pl.PreEnqueue(t.Context(), pod("big-1")); !st.IsSuccess() {
		t.Errorf("big-1 with the oldest member gated: %v %q, want admitted as the lead", st.Code(), st.Message())
	}
}

// The members held behind the lead are shown PodScheduled=False, reason
// Unschedulable (the autoscaler's cue), once the gang's attempt failed,
// in words that do not change with each retry: one write per member, not
// one per retry; none for the lead, whose own cycles the framework
// reports, nor before any attempt failed.
func TestHeldMembersAreShownUnschedulableOncePerReason(t *testing.T) {
	ctx := t.Context()
	clk := simulate.NewStepClock(time.Unix(1000, 0))
	pl, _, k, client, marks := heldPlugin(t, clk, 4)
	for _, m := range pl.members(k) {
		pl.PreEnqueue(ctx, m)
	}
	pl.status.flush(ctx)
	if n := statusPatches(t, client, marks); n != 0 {
		t.Fatalf("%d status patches before any attempt failed, want none", n)
	}
	pl.roomShort.Store(k, true)
	for retry := range 3 {
		pl.fail(ctx, k, "room for "+string(rune('1'+retry)), pl.tracker.Attempt(k))
		pl.status.flush(ctx)
	}
	if n := statusPatches(t, client, marks); n != 3 {
		t.Fatalf("%d status patches after three failed attempts, want 3: one per held member", n)
	}
	for _, name := range []string{"big-1", "big-2", "big-3"} {
		p, err := client.CoreV1().Pods("ns").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var c *v1.PodCondition
		for i := range p.Status.Conditions {
			if p.Status.Conditions[i].Type == v1.PodScheduled {
				c = &p.Status.Conditions[i]
			}
		}
		if c == nil || c.Status != v1.ConditionFalse || c.Reason != v1.PodReasonUnschedulable || !strings.Contains(c.Message, "no room for its quorum") || !strings.Contains(c.Message, "member big-0 tries") {
			t.Errorf("%s: PodScheduled %+v, want False, Unschedulable, saying it waits behind big-0 for room", name, c)
		}
	}
	// Another reason is written again, once.
	pl.roomShort.Store(k, false)
	pl.fail(ctx, k, "a member fits no node", pl.tracker.Attempt(k))
	pl.status.flush(ctx)
	pl.status.flush(ctx)
	if n := statusPatches(t, client, marks); n != 6 {
		t.Fatalf("%d status patches after the reason changed, want 6", n)
	}
}

// A gang whose members are still arriving writes no gated marks: a mark is
// due once it stood a period with no member of its gang arriving. A mark
// handed to the pod writer and not yet sent is dropped once its member is
// admitted, rather than written late over what the scheduler wrote since.
func TestGatedMarksWaitForArrivalsAndAreDroppedOnceAdmitted(t *testing.T) {
	ctx := t.Context()
	clk := simulate.NewStepClock(time.Unix(1000, 0))
	pl, _, k := wakePlugin(t, clk, time.Second, "llm", 3)
	pl.leading = &gangstate.Leadership{}
	pl.leading.Scheduling()
	marks := podpatch.NewForClient(nil) // never run: marks stay pending
	pl.status = newStatusWriter(pl.handle, pl, marks, time.Second)
	obj, _, _ := pl.pods.GetByKey("ns/llm-0")
	first := obj.(*v1.Pod)
	pl.status.gated(k, first, "gang ns/llm waits for quorum")
	step := func(d time.Duration) {
		clk.StepTo(clk.Now().Add(d))
		pl.status.arrival(k, clk.Now())
	}
	step(900 * time.Millisecond)
	step(900 * time.Millisecond)
	clk.StepTo(clk.Now().Add(500 * time.Millisecond))
	pl.status.flush(ctx)
	if marks.Pending() != 0 {
		t.Fatal("a gated mark was written while members kept arriving")
	}
	if pl.status.Settled() != true {
		t.Error("a gated mark not due yet counts as owed")
	}
	clk.StepTo(clk.Now().Add(600 * time.Millisecond))
	if pl.status.Settled() {
		t.Error("a gated mark due is not counted as owed")
	}
	pl.status.flush(ctx)
	if marks.Pending() != 1 {
		t.Fatalf("%d pods marked a period after the last arrival, want llm-0", marks.Pending())
	}
	pl.status.admitted(first)
	if marks.Pending() != 0 {
		t.Error("the gated mark of a member admitted since is still to be written")
	}
}

// A quorum completed by a change the gate's wake does not see (a member's
// bad spec fixed, not a member added) leaves the lead gated for quorum:
// the member held behind it has it woken at the next flush, or neither
// would ever be tried (TestBadInputIsReportedAndIsolated: split-1 fixed,
// split-0 still "waits for quorum").
func TestMemberHeldBehindAGatedLeadWakesIt(t *testing.T) {
	ctx := t.Context()
	clk := simulate.NewStepClock(time.Unix(1000, 0))
	pl, act, _ := wakePlugin(t, clk, time.Second, "split", 2)
	fw, err := frameworkruntime.NewFramework(ctx, nil, &schedconfig.KubeSchedulerProfile{SchedulerName: "muster-scheduler"},
		frameworkruntime.WithPodActivator(act), frameworkruntime.WithEventRecorder(events.NewFakeRecorder(100)))
	if err != nil {
		t.Fatal(err)
	}
	pl.handle = fw
	pl.leading = &gangstate.Leadership{}
	pl.leading.Scheduling()
	pl.status = newStatusWriter(pl.handle, pl, podpatch.NewForClient(nil), time.Second) // never run
	obj, _, _ := pl.pods.GetByKey("ns/split-0")
	lead := obj.(*v1.Pod)
	obj, _, _ = pl.pods.GetByKey("ns/split-1")
	fixed := obj.(*v1.Pod)
	if err := pl.pods.Delete(fixed); err != nil { // not a member yet, as when its spec was bad
		t.Fatal(err)
	}
	if st := pl.PreEnqueue(ctx, lead); st.IsSuccess() {
		t.Fatal("split-0 alone was admitted; want gated for quorum")
	}
	if err := pl.pods.Add(fixed); err != nil {
		t.Fatal(err)
	}
	if st := pl.PreEnqueue(ctx, fixed); st.Code() != fwk.UnschedulableAndUnresolvable {
		t.Fatalf("split-1: %v %q, want held behind split-0", st.Code(), st.Message())
	}
	act.take()
	pl.status.flush(ctx)
	if got := act.take(); len(got) != 1 || got[0] != "ns/split-0" {
		t.Fatalf("the flush activated %v, want the gated lead ns/split-0", got)
	}
	if st := pl.PreEnqueue(ctx, lead); !st.IsSuccess() {
		t.Fatalf("split-0 woken: %v %q, want admitted", st.Code(), st.Message())
	}
	pl.status.flush(ctx)
	if got := act.take(); len(got) != 0 {
		t.Errorf("activated %v again", got)
	}
}
