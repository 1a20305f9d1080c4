// Unit tests of a short gang kept quiet: its lead alone tried, the members held behind it shown Unschedulable once per change, gated marks of a gang still arriving not written.

package gang

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	fwk "k8s.io/kube-scheduler/framework"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	st "k8s.io/kubernetes/pkg/scheduler/testing"

	"github.com/muster-project/muster/pkg/capacity"
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

// Once a gang's quorum is placed, its members above min are placed one by
// one where room is; one that finds none leads its kind (shape and
// priority), and the others of its kind wait at the gate behind it, shown
// Unschedulable once, instead of each going through a cycle, and having
// the framework rewrite its condition and a FailedScheduling event, at
// every node that comes (the framework's message counts the nodes). Each
// kind has its own lead; a node or a pod leaving tries the lead alone;
// the lead holding a node brings the rest of its kind; a quorum broken is
// tried through the gang's lead again, which may be a member held so.
// Mixed shapes: ddp is four 8-GPU workers and a 4-GPU evaluator, min 2,
// max 5, two workers bound.
func TestElasticMembersAreTriedThroughOneOfTheirKind(t *testing.T) {
	ctx := t.Context()
	pods := cache.NewIndexer(cache.MetaNamespaceKeyFunc, gangstate.Indexers())
	eight, four := map[v1.ResourceName]string{"nvidia.com/gpu": "8"}, map[v1.ResourceName]string{"nvidia.com/gpu": "4"}
	var members []*v1.Pod
	for i := range 5 {
		req := eight
		if i == 4 {
			req = four
		}
		p := st.MakePod().Namespace("ns").Name(fmt.Sprintf("ddp-%d", i)).UID(fmt.Sprintf("u-ddp-%d", i)).
			Label(gang.GroupLabel, "ddp").Annotation(gang.MinMemberAnnotation, "2").Annotation(gang.MaxMemberAnnotation, "5").Req(req).Obj()
		p.CreationTimestamp = metav1.Unix(100+int64(i), 0)
		if i < 2 {
			p.Spec.NodeName = fmt.Sprintf("gpu-%d", i)
		}
		if err := pods.Add(p); err != nil {
			t.Fatal(err)
		}
		members = append(members, p)
	}
	act := &activations{}
	fw, err := frameworkruntime.NewFramework(ctx, nil, &schedconfig.KubeSchedulerProfile{SchedulerName: "muster-scheduler"},
		frameworkruntime.WithPodActivator(act), frameworkruntime.WithWaitingPods(frameworkruntime.NewWaitingPodsMap()),
		frameworkruntime.WithEventRecorder(events.NewFakeRecorder(100)))
	if err != nil {
		t.Fatal(err)
	}
	client := fake.NewClientset()
	for _, m := range members {
		if _, err := client.CoreV1().Pods(m.Namespace).Create(ctx, m, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	marks := podpatch.NewForClient(client)
	marks.SetRate(1000, 1000)
	go marks.Run(ctx, 1)
	clk := simulate.NewStepClock(time.Unix(1000, 0))
	pl := &Gang{handle: fw, clock: clk, leading: &gangstate.Leadership{}, tracker: gang.NewTracker(clk.Now), pods: pods,
		backoff: 10 * time.Second, shapes: capacity.NewShapes("nvidia.com/gpu")}
	pl.leading.Scheduling()
	pl.status = newStatusWriter(fw, pl, marks, time.Second)
	k := gang.Key{Namespace: "ns", Name: "ddp"}
	w2, w3, eval := members[2], members[3], members[4]
	cycle := func(pod *v1.Pod) fwk.CycleState {
		state := framework.NewCycleState()
		state.Write(gangstate.CycleKey, &gangstate.Cycle{Spec: mustSpec(t, pl, pod), Attempt: pl.tracker.Attempt(k)})
		return state
	}
	noRoom := func(pod *v1.Pod) {
		t.Helper()
		statuses := framework.NewDefaultNodeToStatus()
		for _, n := range []string{"gpu-0", "gpu-1"} {
			statuses.Set(n, fwk.NewStatus(fwk.Unschedulable, "Insufficient nvidia.com/gpu"))
		}
		if _, st := pl.PostFilter(ctx, cycle(pod), pod, statuses); !strings.Contains(st.Message(), "elastic member waits for room") {
			t.Fatalf("%s fits no node: %v %q, want it waiting for room", pod.Name, st.Code(), st.Message())
		}
	}
	gate := func(pod *v1.Pod) string {
		t.Helper()
		if st := pl.PreEnqueue(ctx, pod); !st.IsSuccess() {
			return st.Message()
		}
		return ""
	}
	hint := roomHint(t, pl)

	for _, m := range []*v1.Pod{w2, w3, eval} {
		if msg := gate(m); msg != "" {
			t.Fatalf("%s before any member above min failed: gated %q, want through", m.Name, msg)
		}
	}
	// The younger worker fails first: it leads the workers' tries.
	noRoom(w3)
	if msg := gate(w2); !strings.Contains(msg, "its elastic member ddp-3 tries for room for members like this one") {
		t.Errorf("ddp-2 with ddp-3 short of room: gate says %q, want it held behind ddp-3", msg)
	}
	for _, m := range []*v1.Pod{w3, eval} {
		if msg := gate(m); msg != "" {
			t.Errorf("%s: gated %q, want through (the lead of its kind, or of another kind)", m.Name, msg)
		}
	}
	pl.status.flush(ctx)
	if n := statusPatches(t, client, marks); n != 1 {
		t.Fatalf("%d status patches after ddp-2 was held, want its condition alone", n)
	}
	got, err := client.CoreV1().Pods("ns").Get(ctx, "ddp-2", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !showsUnschedulable(got, "gang ns/ddp has its quorum; its elastic member ddp-3 found no room for members like this one, and this member is tried once ddp-3 holds a node (its events say what is short)") {
		t.Errorf("ddp-2's conditions %v, want Unschedulable, held behind ddp-3", got.Status.Conditions)
	}
	// Nodes come and go: the lead is tried, its kind is not, and the
	// held member's condition is not written again.
	for i := range 3 {
		node := planNode(fmt.Sprintf("small-%d", i)).Node()
		if h := hint(w2, nil, node); h != fwk.QueueSkip {
			t.Errorf("node %s came: hint for the held ddp-2 %v, want QueueSkip", node.Name, h)
		}
		for _, m := range []*v1.Pod{w3, eval} {
			if h := hint(m, nil, node); h != fwk.Queue {
				t.Errorf("node %s came: hint for %s %v, want Queue", node.Name, m.Name, h)
			}
		}
		noRoom(w3)
		if msg := gate(w2); msg == "" {
			t.Error("ddp-2 let through while ddp-3 finds no room")
		}
		pl.status.flush(ctx)
	}
	if n := statusPatches(t, client, marks); n != 1 {
		t.Errorf("%d status patches after three nodes came, want still 1", n)
	}
	// The lead holds a node: the rest of its kind is brought, and passes.
	act.take()
	if st, _ := pl.Permit(ctx, cycle(w3), w3, "gpu-2"); !st.IsSuccess() {
		t.Fatalf("ddp-3 at Permit: %v %q, want bound at once", st.Code(), st.Message())
	}
	if got := act.take(); fmt.Sprint(got) != "[ns/ddp-2]" {
		t.Errorf("ddp-3 holds a node: activated %v, want ns/ddp-2 alone", got)
	}
	if msg := gate(w2); msg != "" {
		t.Errorf("ddp-2 after ddp-3 held a node: gated %q, want through", msg)
	}

	// ddp-3 loses its node and leads its kind again; a bound worker leaves
	// and breaks the quorum: the gang's lead, the oldest unplaced member,
	// is the held ddp-2, and it is tried, not skipped.
	pl.tracker.Release(k, w3.UID)
	noRoom(w3)
	if msg := gate(w2); !strings.Contains(msg, "its elastic member ddp-3 tries") {
		t.Fatalf("ddp-2 with ddp-3 short of room again: gate says %q, want it held behind ddp-3", msg)
	}
	noRoom(w2) // in flight when it was held: ddp-3 keeps the lead
	if msg := gate(w2); msg == "" {
		t.Fatal("ddp-2 let through after its own failure, with ddp-3 leading its kind")
	}
	if err := pods.Delete(members[1]); err != nil {
		t.Fatal(err)
	}
	if h := hint(w2, members[1], nil); h != fwk.Queue {
		t.Errorf("the quorum broken: hint for the held ddp-2, the gang's lead now, %v, want Queue", h)
	}
	if h := hint(w3, members[1], nil); h != fwk.QueueSkip {
		t.Errorf("the quorum broken: hint for ddp-3 %v, want QueueSkip (ddp-2 leads the gang's attempt)", h)
	}
	if msg := gate(w2); msg != "" {
		t.Errorf("ddp-2 leading the broken gang's attempt: gated %q, want through", msg)
	}
	if msg := gate(w3); !strings.Contains(msg, "member ddp-2 tries for the gang") {
		t.Errorf("ddp-3 with the quorum broken: gate says %q, want it held behind the gang's lead", msg)
	}
}
