// Unit tests of PreEnqueue and Less: members gated until min exist, the gate shown once its mark stood, the queue ordered by priority then gang age.

package gang

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/podpatch"
	"github.com/muster-project/muster/pkg/simulate"
)

// The quorum gate: a member of a gang with fewer than min members waits
// gated (UnschedulableAndUnresolvable, so no autoscaler scales for it), and
// is shown so once the mark has stood a period; the min-th member's arrival
// admits them, and a member admitted before its mark was written gets none.
func TestPreEnqueueGatesUntilMinMembersExist(t *testing.T) {
	clk := simulate.NewStepClock(time.Unix(1000, 0))
	pl, _, k := wakePlugin(t, clk, time.Second, "llm", 3)
	pl.status = newStatusWriter(pl.handle, pl, podpatch.NewForClient(nil), time.Second) // never run: nothing here is written
	obj, _, _ := pl.pods.GetByKey("ns/llm-2")
	last := obj.(*v1.Pod)
	if err := pl.pods.Delete(last); err != nil {
		t.Fatal(err)
	}
	obj, _, _ = pl.pods.GetByKey("ns/llm-0")
	first := obj.(*v1.Pod)

	st := pl.PreEnqueue(t.Context(), first)
	if st.Code() != fwk.UnschedulableAndUnresolvable || !strings.Contains(st.Message(), "gang "+k.String()+" waits for quorum: fewer than 3 members exist") {
		t.Fatalf("two of min 3 members: %v %q, want gated for quorum", st.Code(), st.Message())
	}
	if len(pl.status.gate) != 1 {
		t.Fatalf("%d gated marks pending, want llm-0's", len(pl.status.gate))
	}
	if err := pl.pods.Add(last); err != nil {
		t.Fatal(err)
	}
	if st := pl.PreEnqueue(t.Context(), first); !st.IsSuccess() {
		t.Fatalf("with all 3 members: %v %q, want admitted", st.Code(), st.Message())
	}
	if len(pl.status.gate) != 0 {
		t.Error("an admitted member's gated mark is still due")
	}
	// Not a gang member: not this plugin's to gate.
	lone := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "lone", UID: "u-lone"}}
	if st := pl.PreEnqueue(t.Context(), lone); !st.IsSuccess() {
		t.Errorf("a pod outside any gang: %v %q", st.Code(), st.Message())
	}
}

// The queue goes by priority, then by gang age (when the gang was first
// seen, not when each member was queued), so a gang's members stay
// together ahead of younger gangs and of pods queued after the gang began.
func TestLessOrdersByPriorityThenGangAge(t *testing.T) {
	clk := simulate.NewStepClock(time.Unix(1000, 0))
	pl, _, _ := wakePlugin(t, clk, time.Second, "old", 2)
	t0 := time.Unix(2000, 0)
	pl.gangSince.Store(gang.Key{Namespace: "ns", Name: "old"}, t0)
	pl.gangSince.Store(gang.Key{Namespace: "ns", Name: "young"}, t0.Add(time.Minute))
	queued := func(name, group string, priority int32, at time.Time) fwk.QueuedEntityInfo {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("u-" + name)}, Spec: v1.PodSpec{Priority: &priority}}
		if group != "" {
			p.Labels = map[string]string{gang.GroupLabel: group}
			p.Annotations = map[string]string{gang.MinMemberAnnotation: "2"}
		}
		return &framework.QueuedPodInfo{PodInfo: &framework.PodInfo{Pod: p}, QueueingParams: framework.QueueingParams{Timestamp: at}}
	}
	old0 := queued("old-0", "old", 0, t0.Add(3*time.Minute))
	old1 := queued("old-1", "old", 0, t0.Add(5*time.Minute))
	young0 := queued("young-0", "young", 0, t0.Add(2*time.Minute))
	lone := queued("lone", "", 0, t0.Add(4*time.Minute))
	urgent := queued("urgent", "", 10, t0.Add(6*time.Minute))
	for _, tc := range []struct {
		name string
		a, b fwk.QueuedEntityInfo
		want bool
	}{
		{"higher priority first, however late", urgent, old0, true},
		{"lower priority after", old0, urgent, false},
		{"the older gang before a younger one queued earlier", old1, young0, true},
		{"the younger gang after", young0, old1, false},
		{"a gang's late member before a pod queued after the gang began", old1, lone, true},
		{"that pod after the gang's members", lone, old0, false},
		{"the younger gang before a pod queued after it began", young0, lone, true},
	} {
		if got := pl.Less(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: Less = %t, want %t", tc.name, got, tc.want)
		}
	}
}

// A member the gate turns away after its deletion was handled (the queue
// ran PreEnqueue on an older copy) leaves no record behind; one still
// there is recorded.
func TestGateForgetsAPodDeletedMeanwhile(t *testing.T) {
	clk := simulate.NewStepClock(time.Unix(1000, 0))
	pl, _, _ := wakePlugin(t, clk, time.Second, "duo", 2)
	members := pl.members(gang.Key{Namespace: "ns", Name: "duo"})
	pl.gate(members[0])
	if _, ok := pl.gatedPods.Load(members[0].UID); !ok {
		t.Fatal("a member turned away by the gate was not recorded")
	}
	gone := members[1]
	if err := pl.pods.Delete(gone); err != nil {
		t.Fatal(err)
	}
	pl.gatedPods.Delete(gone.UID) // what podDeleted does for it
	pl.gate(gone)
	if _, ok := pl.gatedPods.Load(gone.UID); ok {
		t.Error("a member deleted before the gate turned it away is still recorded")
	}
	// The same for a member a narrowed cycle sends to try every node.
	pl.storeWhileLive(&pl.wideOnce, members[0])
	pl.storeWhileLive(&pl.wideOnce, gone)
	if _, ok := pl.wideOnce.Load(members[0].UID); !ok {
		t.Error("a live member's next wide attempt was not recorded")
	}
	if _, ok := pl.wideOnce.Load(gone.UID); ok {
		t.Error("a deleted member's next wide attempt is still recorded")
	}
}

// setMembers rewrites the min and max annotations of gang name's members
// in the plugin's pod index, and binds those listed in bound.
func setMembers(t *testing.T, pl *Gang, name, min, max string, bound ...string) {
	t.Helper()
	for _, m := range pl.members(gang.Key{Namespace: "ns", Name: name}) {
		p := m.DeepCopy()
		p.Annotations = map[string]string{gang.MinMemberAnnotation: min, gang.MaxMemberAnnotation: max}
		if slices.Contains(bound, p.Name) {
			p.Spec.NodeName = "node-" + p.Name
		}
		if err := pl.pods.Update(p); err != nil {
			t.Fatal(err)
		}
	}
}

// bind binds a member in the plugin's pod index and hands the update to
// memberPlaced, as the pod informer does.
func bind(t *testing.T, pl *Gang, name string) {
	t.Helper()
	obj, ok, err := pl.pods.GetByKey("ns/" + name)
	if err != nil || !ok {
		t.Fatalf("%s: %v %v", name, ok, err)
	}
	old := obj.(*v1.Pod)
	p := old.DeepCopy()
	p.Spec.NodeName = "node-" + name
	if err := pl.pods.Update(p); err != nil {
		t.Fatal(err)
	}
	pl.memberPlaced(t.Context(), old, p)
}

// A member the gate holds behind its gang's lead is woken when a member of
// its gang is bound, and by nothing else: in a gang of min 1 the lead
// binds alone (Permit never brings the others in), and its members were
// held until the queue's five-minute flush once bound pods stopped being
// a queue event of the plugin's. A bind in another gang wakes no one, nor
// does one with no member held.
func TestHeldMembersWokenWhenTheirGangIsPlaced(t *testing.T) {
	clk := simulate.NewStepClock(time.Unix(1000, 0))
	pl, act, k := wakePlugin(t, clk, time.Second, "el", 3)
	pl.status = newStatusWriter(pl.handle, pl, podpatch.NewForClient(nil), time.Second) // never run: nothing here is written
	setMembers(t, pl, "el", "1", "3")
	for i := range 2 {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("other-%d", i), UID: types.UID(fmt.Sprintf("u-other-%d", i)),
			CreationTimestamp: metav1.Unix(int64(100+i), 0),
			Labels:            map[string]string{gang.GroupLabel: "other"}, Annotations: map[string]string{gang.MinMemberAnnotation: "2"}}}
		if err := pl.pods.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	get := func(name string) *v1.Pod {
		t.Helper()
		obj, ok, err := pl.pods.GetByKey("ns/" + name)
		if err != nil || !ok {
			t.Fatalf("%s: %v %v", name, ok, err)
		}
		return obj.(*v1.Pod)
	}

	if st := pl.PreEnqueue(t.Context(), get("el-1")); st.Code() != fwk.UnschedulableAndUnresolvable || !strings.Contains(st.Message(), "member el-0 tries for the gang") {
		t.Fatalf("el-1 behind its lead: %v %q, want held", st.Code(), st.Message())
	}
	if st := pl.PreEnqueue(t.Context(), get("el-0")); !st.IsSuccess() {
		t.Fatalf("the lead el-0: %v %q, want admitted", st.Code(), st.Message())
	}
	bind(t, pl, "other-0")
	if got := act.take(); len(got) != 0 {
		t.Fatalf("another gang's member bound woke %v", got)
	}
	bind(t, pl, "el-0")
	if got, want := act.take(), []string{"ns/el-1"}; !slices.Equal(got, want) {
		t.Fatalf("the lead bound woke %v, want the member held behind it %v (el-2 was never held)", got, want)
	}
	if st := pl.PreEnqueue(t.Context(), get("el-1")); !st.IsSuccess() {
		t.Fatalf("el-1 woken with its quorum placed: %v %q, want admitted", st.Code(), st.Message())
	}
	bind(t, pl, "el-1")
	if got := act.take(); len(got) != 0 {
		t.Fatalf("a bind with no member held woke %v", got)
	}
	if _, ok := pl.heldPods.Load(get("el-1").UID); ok {
		t.Errorf("gang %s: el-1, admitted, is still marked held", k)
	}
}

// A member arriving bound (created with its node, or listed so when the
// scheduler starts) counts toward min: the members gated for quorum are
// woken. At the gang's max no one passes the gate, and no one is woken.
func TestBoundArrivalWakesItsGang(t *testing.T) {
	clk := simulate.NewStepClock(time.Unix(1000, 0))
	pl, act, _ := wakePlugin(t, clk, time.Second, "moe", 3)
	pl.status = newStatusWriter(pl.handle, pl, podpatch.NewForClient(nil), time.Second) // never run: nothing here is written
	obj, _, _ := pl.pods.GetByKey("ns/moe-2")
	last := obj.(*v1.Pod).DeepCopy()
	if err := pl.pods.Delete(last); err != nil {
		t.Fatal(err)
	}
	obj, _, _ = pl.pods.GetByKey("ns/moe-0")
	if st := pl.PreEnqueue(t.Context(), obj.(*v1.Pod)); st.Code() != fwk.UnschedulableAndUnresolvable || !strings.Contains(st.Message(), "fewer than 3 members exist") {
		t.Fatalf("two of min 3 members: %v %q, want gated for quorum", st.Code(), st.Message())
	}
	last.Spec.NodeName = "node-moe-2"
	if err := pl.pods.Add(last); err != nil {
		t.Fatal(err)
	}
	pl.boundArrived(t.Context(), last)
	if got, want := act.take(), []string{"ns/moe-0", "ns/moe-1"}; !slices.Equal(got, want) {
		t.Fatalf("a member arriving bound woke %v, want the unplaced members %v", got, want)
	}

	// min 1, max 2, two bound: the third waits at max.
	setMembers(t, pl, "moe", "1", "2", "moe-0", "moe-2")
	obj, _, _ = pl.pods.GetByKey("ns/moe-2")
	pl.boundArrived(t.Context(), obj.(*v1.Pod))
	if got := act.take(); len(got) != 0 {
		t.Fatalf("a member arriving bound at the gang's max woke %v", got)
	}
}
