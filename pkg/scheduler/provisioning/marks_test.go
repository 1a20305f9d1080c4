// Unit tests of the members' marks: a mark pending or on its way counts, not the pod's possibly older copy.

package provisioning

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	autoscalingv1 "github.com/muster-project/muster/pkg/apis/autoscaling/v1"
	"github.com/muster-project/muster/pkg/capacity"
	"github.com/muster-project/muster/pkg/contract"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/podpatch"
	"github.com/muster-project/muster/pkg/shortfall"
)

// Whether a member needs its mark changed is judged on what it will carry
// once the pod writer is done, not on the informer's copy of the pod,
// which does not show a write pending or in flight. Judged on the copy, a
// hold asked for while the member's release was still pending was skipped
// (the copy still showed the old hold), and the release then landed: the
// member was left unmarked for good once its gang was forgotten. The same
// way, a release asked for while a request's mark was pending was skipped,
// and the member went on consuming a withdrawn request.
func TestMarksJudgedOnWhatTheWriterWillWrite(t *testing.T) {
	marks := podpatch.NewForClient(nil) // never run: changes stay pending
	w, err := NewWriter(nil, nil, marks, Options{Members: func(gang.Key) []*v1.Pod { return nil }, Synced: func() bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	k := gang.Key{Namespace: "ns", Name: "elastic"}
	held := HoldName(k)
	carried := func(p *v1.Pod) string { return consumeMark(marks, p) }

	// A member as the informer shows it, unmarked, while the request's
	// mark is pending: releasing it must cancel that mark.
	fresh := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "elastic-3"}}
	w.annotate([]*v1.Pod{fresh}, "req-1")
	if got := carried(fresh); got != "req-1" {
		t.Fatalf("after marking for req-1: %s", got)
	}
	w.leaveToScaleUp([]*v1.Pod{fresh}, true)
	if got := carried(fresh); got != "(none)" {
		t.Errorf("released while req-1's mark was pending: will carry %s, want none", got)
	}

	// A member the informer still shows held, while its release is
	// pending: holding it again must win over the release.
	stale := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "elastic-2",
		Annotations: map[string]string{autoscalingv1.ConsumeAnnotation: held}}}
	w.leaveToScaleUp([]*v1.Pod{stale}, true)
	if got := carried(stale); got != "(none)" {
		t.Fatalf("after the release: %s", got)
	}
	w.holdExtras(k, []*v1.Pod{stale}, false)
	if got := carried(stale); got != held {
		t.Errorf("held again while its release was pending: will carry %s, want %s", got, held)
	}

	// Nothing to write for a member already carrying its mark, nor for
	// releasing one that carries none.
	before := marks.Pending()
	marked := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "elastic-1",
		Annotations: map[string]string{autoscalingv1.ConsumeAnnotation: held, autoscalingv1.ClassAnnotation: autoscalingv1.ClassBestEffortAtomicScaleUp}}}
	w.holdExtras(k, []*v1.Pod{marked}, false)
	w.leaveToScaleUp([]*v1.Pod{{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "elastic-0"}}}, true)
	if got := marks.Pending(); got != before {
		t.Errorf("%d pods pending after asking for marks they carry, want %d", got, before)
	}
}

// A member of a gang whose quorum is placed that the writer lists only
// after the sync that held the others is held on the next sync, with no
// new verdict: MusterTopology hands a gang's verdict at most once per hint
// interval, so a member that came late and failed within it brought none.
// Forgotten at the first sync, the gang's late member stayed unmarked for
// good, left to the autoscaler's one-by-one scale-up
// (TestNoHintWhenNodesWouldNotHelp under stress: elastic-3). Once no
// member waits, or the quorum is lost, the gang is forgotten.
func TestLateMemberOfAPlacedGangIsHeld(t *testing.T) {
	k := gang.Key{Namespace: "ns", Name: "elastic"}
	member := func(i int, node string) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("elastic-%d", i), UID: types.UID(fmt.Sprintf("u%d", i))},
			Spec: v1.PodSpec{NodeName: node}}
	}
	listed := []*v1.Pod{member(0, "a0"), member(1, "a1"), member(2, "")}
	marks := podpatch.NewForClient(nil) // never run: changes stay pending
	w, err := NewWriter(nil, nil, marks, Options{Members: func(gang.Key) []*v1.Pod { return listed }, Synced: func() bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	held := HoldName(k)
	carried := func(p *v1.Pod) string { return consumeMark(marks, p) }
	w.Set(Want{Key: k, Min: 1, Verdict: shortfall.Verdict{NoReason: shortfall.ReasonPlaced}})
	w.Sync(ctx)
	if got := carried(listed[2]); got != held {
		t.Fatalf("elastic-2, waiting beyond the placed quorum: will carry %s, want %s", got, held)
	}

	late := member(3, "")
	listed = append(listed, late)
	w.Sync(ctx)
	if got := carried(late); got != held {
		t.Errorf("elastic-3, listed after the sync that held elastic-2, no new verdict: will carry %s, want %s", got, held)
	}

	// Every member bound: nothing waits, the gang is forgotten.
	listed = []*v1.Pod{member(0, "a0"), member(1, "a1"), member(2, "a2"), member(3, "a3")}
	w.Sync(ctx)
	if _, kept := w.placed[k]; kept {
		t.Error("gang kept for its extras with every member bound")
	}

	// Kept again, then the quorum is lost: forgotten, and the members'
	// next attempts bring a verdict.
	listed = []*v1.Pod{member(0, "a0"), member(4, "")}
	w.Set(Want{Key: k, Min: 1, Verdict: shortfall.Verdict{NoReason: shortfall.ReasonPlaced}})
	w.Sync(ctx)
	listed = []*v1.Pod{member(4, "")}
	w.Sync(ctx)
	if _, kept := w.placed[k]; kept {
		t.Error("gang kept for its extras once its quorum was lost")
	}
}

// A gang that was short and now fits in room that exists: its GPU members
// that consumed its request consume its in-room name instead, so no
// autoscaler buys their nodes one by one should the room be taken before
// they bind (make simulate --random 1 --seed 9); a GPU member that carried
// no mark is not written to; the launcher, asking no GPUs, is left to the
// ordinary scale-up; a bound member is not touched. Before, every member
// was left to the ordinary scale-up.
func TestInRoomMarks(t *testing.T) {
	k := gang.Key{Namespace: "ns", Name: "mpi"}
	gpus := v1.ResourceList{"nvidia.com/gpu": resource.MustParse("8")}
	member := func(name, node, mark string, req v1.ResourceList) *v1.Pod {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(name)},
			Spec: v1.PodSpec{NodeName: node, Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: req}}}}}
		if mark != "" {
			p.Annotations = map[string]string{autoscalingv1.ConsumeAnnotation: mark, autoscalingv1.ClassAnnotation: autoscalingv1.ClassBestEffortAtomicScaleUp}
		}
		return p
	}
	const req = "muster-mpi-0123456789"
	listed := []*v1.Pod{
		member("mpi-worker-0", "", req, gpus),
		member("mpi-worker-1", "", req, gpus),
		member("mpi-worker-2", "", "", gpus),
		member("mpi-worker-3", "gpu-3", "", gpus),
		member("mpi-launcher", "", HoldName(k), v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")}),
	}
	marks := podpatch.NewForClient(nil) // never run: changes stay pending
	w, err := NewWriter(nil, nil, marks, Options{GPUResource: "nvidia.com/gpu", Members: func(gang.Key) []*v1.Pod { return listed }, Synced: func() bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	w.Set(Want{Key: k, Min: 4, Verdict: shortfall.Verdict{NoReason: shortfall.ReasonFits, Message: "3 more members fit now"}})
	w.Sync(context.Background())
	for name, want := range map[string]string{
		"mpi-worker-0": InRoomName(k), "mpi-worker-1": InRoomName(k),
		"mpi-worker-2": "(none)", "mpi-worker-3": "(none)", "mpi-launcher": "(none)",
	} {
		for _, p := range listed {
			if p.Name == name {
				if got := consumeMark(marks, p); got != want {
					t.Errorf("%s will carry %s, want %s", name, got, want)
				}
			}
		}
	}
	if got := marks.Pending(); got != 3 {
		t.Errorf("%d pods to write, want 3 (two workers and the launcher)", got)
	}
	if !contract.ConsumesRoom(InRoomName(k)) || contract.ConsumesRoom(HoldName(k)) || contract.ConsumesRoom(req) {
		t.Error("the autoscaler's contract.ConsumesRoom does not tell the in-room name from the hold and the request")
	}
}

// Of a short gang that puts its extras on spot, once its request is
// provisioned, the members beyond what its quorum still needs that ask for
// GPUs and tolerate spot are left to the ordinary scale-up, newest first;
// the launcher and members that do not tolerate spot never are.
func TestEarlyExtras(t *testing.T) {
	gpus := v1.ResourceList{"nvidia.com/gpu": resource.MustParse("8")}
	cpu := v1.ResourceList{v1.ResourceCPU: resource.MustParse("2")}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	spot := []v1.Toleration{{Key: capacity.SpotLabel, Operator: v1.TolerationOpEqual, Value: capacity.SpotValue, Effect: v1.TaintEffectNoSchedule}}
	member := func(name string, age int, node string, req v1.ResourceList, tolerate bool) *v1.Pod {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, CreationTimestamp: metav1.NewTime(t0.Add(time.Duration(age) * time.Second))},
			Spec: v1.PodSpec{NodeName: node, Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: req}}}}}
		if tolerate {
			p.Spec.Tolerations = spot
		}
		return p
	}
	// ft: four 8-GPU workers and a launcher, min 3 (two workers and the
	// launcher); w-3 was created before w-2.
	ft := func(bound ...string) []*v1.Pod {
		on := map[string]string{}
		for _, b := range bound {
			on[b] = "node-" + b
		}
		return []*v1.Pod{
			member("w-0", 0, on["w-0"], gpus, true), member("w-1", 1, on["w-1"], gpus, true),
			member("w-2", 3, on["w-2"], gpus, true), member("w-3", 2, on["w-3"], gpus, true),
			member("launcher", 0, on["launcher"], cpu, true),
		}
	}
	names := func(pods []*v1.Pod) string {
		var out []string
		for _, p := range pods {
			out = append(out, p.Name)
		}
		return strings.Join(out, ",")
	}
	noSpot := ft()
	noSpot[2].Spec.Tolerations = nil
	for _, tc := range []struct {
		name    string
		gpu     v1.ResourceName
		members []*v1.Pod
		min     int64
		want    string
	}{
		{"none bound: two beyond the quorum, the newest", "nvidia.com/gpu", ft(), 3, "w-3,w-2"},
		{"one worker bound: still two beyond", "nvidia.com/gpu", ft("w-0"), 3, "w-3,w-2"},
		{"two workers bound: the quorum needs one more, two beyond", "nvidia.com/gpu", ft("w-0", "w-2"), 3, "w-1,w-3"},
		{"three bound: the quorum is placed, both workers left beyond", "nvidia.com/gpu", ft("w-0", "w-2", "launcher"), 3, "w-1,w-3"},
		{"five members, min 4, one bound: one beyond", "nvidia.com/gpu", ft("w-0"), 4, "w-2"},
		{"rigid: none beyond", "nvidia.com/gpu", ft(), 5, ""},
		{"the newest does not tolerate spot: the next newest go", "nvidia.com/gpu", noSpot, 3, "w-1,w-3"},
		{"more beyond than tolerate spot: those that do", "nvidia.com/gpu", noSpot, 1, "w-0,w-1,w-3"},
		{"no GPU resource set: the launcher counts as a candidate", "", ft(), 4, "w-2"},
	} {
		marks := podpatch.NewForClient(nil)
		w, err := NewWriter(nil, nil, marks, Options{GPUResource: tc.gpu, Members: func(gang.Key) []*v1.Pod { return nil }, Synced: func() bool { return true }})
		if err != nil {
			t.Fatal(err)
		}
		if got := names(w.earlyExtras(tc.members, tc.min)); got != tc.want {
			t.Errorf("%s: earlyExtras = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// consumeMark is the consume mark p will carry once marks is done, or
// "(none)".
func consumeMark(marks *podpatch.Writer, p *v1.Pod) string {
	v, ok := marks.Carried(p, autoscalingv1.ConsumeAnnotation)
	if !ok {
		return "(none)"
	}
	return v
}

// A short gang's consume marks carry, for its first min members by
// creation, the safe-to-evict verdict they will have once bound ("false"),
// in the same write: MusterGang then finds nothing to write after they
// bind. Members beyond min get none (their verdict depends on which bind).
func TestConsumeMarksCarryTheVerdictOnceBound(t *testing.T) {
	k := gang.Key{Namespace: "ns", Name: "big"}
	var listed []*v1.Pod
	for i := range 4 {
		listed = append(listed, &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("big-%d", i), UID: types.UID(fmt.Sprintf("u%d", i)),
			CreationTimestamp: metav1.Unix(int64(100+i), 0),
			Labels:            map[string]string{gang.GroupLabel: "big"}, Annotations: map[string]string{gang.MinMemberAnnotation: "3", gang.MaxMemberAnnotation: "4"}}})
	}
	marks := podpatch.NewForClient(nil) // never run: changes stay pending
	w, err := NewWriter(nil, nil, marks, Options{Members: func(gang.Key) []*v1.Pod { return listed }, Synced: func() bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	w.Set(Want{Key: k, Min: 3})
	w.annotate(listed, "req-1")
	for i, p := range listed {
		v, ok := marks.Carried(p, gang.SafeToEvictAnnotation)
		if want := i < 3; ok != want || (ok && v != "false") {
			t.Errorf("%s will carry safe-to-evict %q (%t), want false on the first 3 members only", p.Name, v, ok)
		}
	}
	if got := marks.Pending(); got != 4 {
		t.Errorf("%d pods to write, want 4, one write each", got)
	}
}
