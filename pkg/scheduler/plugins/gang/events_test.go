// Unit tests of EventsToRegister and the queueing hints: a gang's lead found once per event delivery, a replayed event ending the backoff, own releases not unblocking it, sameGang, ownSpecChanged.

package gang

import (
	"fmt"
	"maps"
	"reflect"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/muster-project/muster/pkg/capacity"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/gangstate"
	"github.com/muster-project/muster/pkg/simulate"
)

// A gang's lead is found once per delivery of a cluster event, however many
// of its members the queue asks about; a pod the scheduler forgot twice,
// unchanged (its Permit rejected twice), is two deliveries.
func TestLeadFoundOncePerDelivery(t *testing.T) {
	young := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "young-0", UID: "u-young-0", ResourceVersion: "7"}}
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "cpu-0", UID: "u-cpu-0", ResourceVersion: "9"}}
	k := gang.Key{Namespace: "ns", Name: "mpi"}
	var m eventMemo
	runs := 0
	lead := func() types.UID { runs++; return "u-mpi-0" }
	ask := func(oldObj, newObj any, members int) {
		t.Helper()
		for range members {
			if got := m.of(k, deliveryOf(oldObj, newObj), lead); got != "u-mpi-0" {
				t.Fatalf("lead %q, want u-mpi-0", got)
			}
		}
	}
	ask(young, nil, 7) // the scheduler forgets an assumed pod: seven members asked
	if runs != 1 {
		t.Fatalf("lead found %d times for one delivery, want 1", runs)
	}
	ask(young.DeepCopy(), nil, 7) // forgotten again, unchanged: a copy made for its next cycle
	if runs != 2 {
		t.Fatalf("lead found %d times for two deliveries of one unchanged pod, want 2", runs)
	}
	ask(nil, node, 3)
	ask(cache.DeletedFinalStateUnknown{Key: "ns/young-0", Obj: young}, nil, 2)
	if runs != 4 {
		t.Fatalf("lead found %d times for four deliveries, want 4", runs)
	}
	ask(nil, &v1.Node{}, 2) // an object without a UID: every time
	if runs != 6 {
		t.Fatalf("lead found %d times, want 6: an event without a name is not remembered", runs)
	}
}

// The queue asks MusterGang's hint again for a member that was in flight
// when a pod left, once that member's attempt has failed: the second ask
// for the same delivery must end the gang's backoff too. Found once per
// delivery, the backoff was ended at the first ask, before the attempt
// failed and backed off, and the gang's lead then sat out the whole
// backoff with room for its quorum (TestRoomFreedRequeuesGangLeads in CI).
func TestReplayedEventEndsBackoff(t *testing.T) {
	pods := cache.NewIndexer(cache.MetaNamespaceKeyFunc, gangstate.Indexers())
	moe := addGang(t, pods, "moe", 3)
	pl := hintPlugin(pods)
	k := gang.Key{Namespace: "ns", Name: "moe"}
	gone := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "mpi-worker-1", UID: "u-mpi-worker-1", ResourceVersion: "42"}, Spec: v1.PodSpec{NodeName: "gpu-1"}}

	// moe-0 leads an attempt; the scheduler's snapshot predates the pod
	// leaving, and the event reaches the waiting members first.
	for _, m := range moe[1:] {
		if hint, err := pl.roomFreed(klog.Background(), m, gone, nil); err != nil || hint != fwk.QueueSkip {
			t.Fatalf("hint for %s = %v, %v; want QueueSkip (moe-0 leads)", m.Name, hint, err)
		}
	}
	attempt := pl.tracker.Attempt(k) // taken after the event: the attempt cannot tell
	if _, wake := pl.tracker.Fail(k, "room for 2", 10*time.Minute, attempt); wake != gang.WakeAfterBackoff {
		t.Fatalf("wake %v", wake)
	}
	// The queue replays the event for the member that was in flight.
	if hint, err := pl.roomFreed(klog.Background(), moe[0], gone, nil); err != nil || hint != fwk.Queue {
		t.Fatalf("replayed hint for moe-0 = %v, %v; want Queue", hint, err)
	}
	if reason, left, backingOff := pl.tracker.BackingOff(k); backingOff {
		t.Fatalf("moe still backs off %s (%q) after the replayed event: its lead is requeued only to be turned away", left, reason)
	}
}

// A gang's own reservations released (the scheduler delivers a forgotten
// assumed member as a pod deleted; the API still has it, unbound) neither
// end the gang's backoff nor requeue it: otherwise every failure would
// count as a change. A member deleted for real, and another gang's pod
// leaving, do both.
func TestOwnReleaseDoesNotUnblock(t *testing.T) {
	pods := cache.NewIndexer(cache.MetaNamespaceKeyFunc, gangstate.Indexers())
	member := func(g string, i int) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("%s-%d", g, i), UID: types.UID(fmt.Sprintf("u-%s-%d", g, i)),
			CreationTimestamp: metav1.Unix(int64(100+i), 0), ResourceVersion: "5",
			Labels: map[string]string{gang.GroupLabel: g}, Annotations: map[string]string{gang.MinMemberAnnotation: "2"}}}
	}
	big := []*v1.Pod{member("big", 0), member("big", 1)}
	for _, p := range big {
		if err := pods.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Unix(1000, 0)
	pl := &Gang{tracker: gang.NewTracker(func() time.Time { return now }), pods: pods}
	k := gang.Key{Namespace: "ns", Name: "big"}
	attempt := pl.tracker.Attempt(k)
	pl.tracker.Fail(k, "fits no node", time.Minute, attempt)

	released := big[1].DeepCopy()
	released.Spec.NodeName = "a0" // the assumed copy the scheduler forgets
	if hint, err := pl.roomFreed(klog.Background(), big[0], released, nil); err != nil || hint != fwk.QueueSkip {
		t.Fatalf("hint for big-0 on its own member's release = %v, %v; want QueueSkip", hint, err)
	}
	if _, _, backingOff := pl.tracker.BackingOff(k); !backingOff {
		t.Fatal("the gang's own release ended its backoff")
	}
	if _, wake := pl.tracker.Fail(k, "fits no node", time.Minute, attempt); wake == gang.WakeByEvent {
		t.Fatal("the gang's own release counted as a change during its attempt")
	}

	// A member that really leaves (gone from the API) makes room.
	bound := member("big", 2)
	bound.Spec.NodeName = "a1"
	if hint, err := pl.roomFreed(klog.Background(), big[0], bound, nil); err != nil || hint != fwk.Queue {
		t.Fatalf("hint for big-0 on its own member deleted = %v, %v; want Queue", hint, err)
	}
	if _, _, backingOff := pl.tracker.BackingOff(k); backingOff {
		t.Fatal("a member of the gang deleted did not end its backoff")
	}
	pl.tracker.Fail(k, "fits no node", time.Minute, pl.tracker.Attempt(k))

	other := member("young", 0)
	other.Spec.NodeName = "a0"
	if hint, err := pl.roomFreed(klog.Background(), big[0], other, nil); err != nil || hint != fwk.Queue {
		t.Fatalf("hint for big-0 on another gang's pod leaving = %v, %v; want Queue", hint, err)
	}
	if _, _, backingOff := pl.tracker.BackingOff(k); backingOff {
		t.Fatal("another gang's pod leaving did not end the backoff")
	}
}

// MusterGang registers unscheduled pod arrivals (sameGang), a member's own
// update (ownSpecChanged), pods leaving and nodes coming or growing
// (roomFreed), and PodGroup changes only where the PodGroup API is served;
// not bound pods added (every bind is one), which the queue would have
// asked about every member parked at the gate, of every gang: a member
// bound wakes its own gang's parked members (queue_test.go). sameGang
// requeues a member for a pod of its own gang only: a member bound, a
// label fixed, or an arrival once the gang has its quorum; an unscheduled
// arrival before the quorum exists admits no one. ownSpecChanged requeues
// a member for a change of its gang labels or annotations only, not for
// the marks the scheduler and autoscalers write.
func TestEventsToRegisterAndSameGang(t *testing.T) {
	ctx := t.Context()
	clk := simulate.NewStepClock(time.Unix(1000, 0))
	pl, _, k := wakePlugin(t, clk, 10*time.Second, "llm", 3)
	evs, err := pl.EventsToRegister(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[fwk.EventResource]fwk.ActionType{}
	for _, ev := range evs {
		if ev.QueueingHintFn == nil {
			t.Errorf("event %s %v has no queueing hint", ev.Event.Resource, ev.Event.ActionType)
		}
		got[ev.Event.Resource] |= ev.Event.ActionType
	}
	want := map[fwk.EventResource]fwk.ActionType{
		fwk.UnscheduledPod: fwk.Add,
		fwk.TargetPod:      fwk.Update,
		fwk.AssignedPod:    fwk.Delete,
		fwk.Node:           fwk.Add | fwk.UpdateNodeAllocatable | fwk.UpdateNodeLabel | fwk.UpdateNodeTaint,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("registered %v, want %v (no PodGroup events, no bound pods added)", got, want)
	}

	obj, _, _ := pl.pods.GetByKey("ns/llm-0")
	member := obj.(*v1.Pod)
	sibling := member.DeepCopy()
	sibling.Name, sibling.UID = "llm-9", "u-llm-9"
	other := sibling.DeepCopy()
	other.Labels = map[string]string{gang.GroupLabel: "moe"}
	bound := sibling.DeepCopy()
	bound.Spec.NodeName = "gpu-0"
	lone := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "lone"}}
	hint := func(oldObj, newObj *v1.Pod) fwk.QueueingHint {
		t.Helper()
		var o, n any
		if oldObj != nil {
			o = oldObj
		}
		if newObj != nil {
			n = newObj
		}
		h, err := pl.sameGang(klog.Background(), member, o, n)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	for _, tc := range []struct {
		name     string
		old, new *v1.Pod
		want     fwk.QueueingHint
	}{
		{"another gang's member arrives", nil, other, fwk.QueueSkip},
		{"a lone pod arrives", nil, lone, fwk.QueueSkip},
		{"an unscheduled sibling arrives before the quorum exists", nil, sibling, fwk.QueueSkip},
		{"a sibling arrives bound", nil, bound, fwk.Queue},
		{"a sibling's labels change", sibling, sibling, fwk.Queue},
	} {
		if got := hint(tc.old, tc.new); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	pl.quorate.Store(k, struct{}{})
	if got := hint(nil, sibling); got != fwk.Queue {
		t.Errorf("an unscheduled sibling arrives once the gang has its quorum: %v, want Queue", got)
	}

	withAnnotations := func(extra map[string]string) *v1.Pod {
		p := member.DeepCopy()
		p.Annotations = maps.Clone(member.Annotations)
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		maps.Copy(p.Annotations, extra)
		return p
	}
	marked := withAnnotations(map[string]string{"autoscaling.x-k8s.io/consume-provisioning-request": "muster-llm-held",
		gang.SafeToEvictAnnotation: "false", gang.StrandedSinceAnnotation: "2026-11-28T12:00:00Z"})
	fixed := withAnnotations(map[string]string{gang.MinMemberAnnotation: "2"})
	relabelled := member.DeepCopy()
	relabelled.Labels = map[string]string{gang.GroupLabel: "llm-2"}
	for _, tc := range []struct {
		name     string
		old, new *v1.Pod
		want     fwk.QueueingHint
	}{
		{"its gang annotation fixed", member, fixed, fwk.Queue},
		{"its gang label changed", member, relabelled, fwk.Queue},
		{"marked by the scheduler and autoscalers", member, marked, fwk.QueueSkip},
		{"no change", member, member, fwk.QueueSkip},
	} {
		got, err := ownSpecChanged(klog.Background(), tc.new, tc.old, tc.new)
		if err != nil || got != tc.want {
			t.Errorf("own update, %s: %v (%v), want %v", tc.name, got, err, tc.want)
		}
	}
}

// Members the gate holds behind their gang's lead answer room events at
// once, without looking for the lead: their lead's attempt brings them.
// The gang's backoff still ends on their ask (the lead may have been
// rejected by a plugin whose hint does not end it). Looking for the lead
// cost O(members) per gang on each node added, and a scheduler that listed
// its pods before its nodes spent seconds on it before its first bind.
func TestHeldMembersSkipRoomWithoutFindingTheLead(t *testing.T) {
	pods := cache.NewIndexer(cache.MetaNamespaceKeyFunc, gangstate.Indexers())
	moe := addGang(t, pods, "moe", 3)
	pl := hintPlugin(pods)
	k := gang.Key{Namespace: "ns", Name: "moe"}
	if _, wake := pl.tracker.Fail(k, "room for 2", 10*time.Minute, pl.tracker.Attempt(k)); wake != gang.WakeAfterBackoff {
		t.Fatalf("wake %v", wake)
	}
	for _, m := range moe[1:] {
		pl.heldPods.Store(m.UID, struct{}{})
	}
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "gpu-7", UID: "u-gpu-7", ResourceVersion: "5"}}
	for _, m := range moe[1:] {
		if hint, err := pl.roomFreed(klog.Background(), m, nil, node); err != nil || hint != fwk.QueueSkip {
			t.Fatalf("hint for held %s = %v, %v; want QueueSkip (moe-0 leads)", m.Name, hint, err)
		}
	}
	if len(pl.memo.leads) != 0 {
		t.Errorf("held members' hints looked for their gang's lead (%v): O(members) per gang and event", pl.memo.leads)
	}
	if reason, left, backingOff := pl.tracker.BackingOff(k); backingOff {
		t.Errorf("moe still backs off %s (%q) after a node came, asked only of its held members", left, reason)
	}
	if hint, err := pl.roomFreed(klog.Background(), moe[0], nil, node); err != nil || hint != fwk.Queue {
		t.Fatalf("hint for the lead moe-0 = %v, %v; want Queue", hint, err)
	}
}

// BenchmarkRoomFreedForHeldMembers is one node added as the queue hints it
// to the held members of 250 gangs of 8 (a scheduler that listed its pods
// before its nodes asks this once per node).
func BenchmarkRoomFreedForHeldMembers(b *testing.B) {
	pods := cache.NewIndexer(cache.MetaNamespaceKeyFunc, gangstate.Indexers())
	var held []*v1.Pod
	for g := range 250 {
		held = append(held, addGang(b, pods, fmt.Sprintf("g%d", g), 8)[1:]...)
	}
	pl := hintPlugin(pods)
	for _, m := range held {
		pl.heldPods.Store(m.UID, struct{}{})
	}
	nodes := make([]*v1.Node, b.N)
	for n := range nodes {
		nodes[n] = &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("gpu-%d", n), UID: types.UID(fmt.Sprintf("u-gpu-%d", n)), ResourceVersion: "1"}}
	}
	b.ResetTimer()
	for n := range b.N {
		for _, m := range held {
			if _, err := pl.roomFreed(klog.Background(), m, nil, nodes[n]); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// addGang adds to pods a gang of n members, min n, created one second
// apart (name-i, UID u-name-i), and returns them in order.
func addGang(tb testing.TB, pods cache.Indexer, name string, n int) []*v1.Pod {
	tb.Helper()
	members := make([]*v1.Pod, 0, n)
	for i := range n {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("%s-%d", name, i), UID: types.UID(fmt.Sprintf("u-%s-%d", name, i)),
			CreationTimestamp: metav1.Unix(int64(100+i), 0),
			Labels:            map[string]string{gang.GroupLabel: name}, Annotations: map[string]string{gang.MinMemberAnnotation: fmt.Sprint(n)}}}
		if err := pods.Add(p); err != nil {
			tb.Fatal(err)
		}
		members = append(members, p)
	}
	return members
}

// hintPlugin is MusterGang with what its room hint reads: the pods, and a
// tracker on a clock that stands still.
func hintPlugin(pods cache.Indexer) *Gang {
	now := time.Unix(1000, 0)
	return &Gang{tracker: gang.NewTracker(func() time.Time { return now }), pods: pods, shapes: capacity.NewShapes("nvidia.com/gpu")}
}
