// Unit tests of the plan in the plugin: made again when a node update adds room, and Filter keeping members off room held for others and off spot nodes.

package gang

import (
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	"github.com/muster-project/muster/pkg/apis/config"
	"github.com/muster-project/muster/pkg/capacity"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/gangstate"
	"github.com/muster-project/muster/pkg/simulate"
)

func planNode(name string, taints ...v1.Taint) *framework.NodeInfo {
	n := st.MakeNode().Name(name).Capacity(map[v1.ResourceName]string{
		v1.ResourceCPU: "32", v1.ResourceMemory: "256Gi", v1.ResourcePods: "110", "nvidia.com/gpu": "8"}).Obj()
	n.Spec.Taints = taints
	ni := framework.NewNodeInfo()
	ni.SetNode(n)
	return ni
}

// The capacity plan is cached for a moment between cycles, and must be made
// again as soon as room appears, or an elastic extra takes room the plan
// should have held for a waiting quorum. A node coming up arrives first
// with the not-ready taint and loses it in an update: the count of nodes
// does not change then, and the plan made while the node was tainted (room
// held nowhere) stood, so the extra took the node
// (TestSpotExtrasAskForSpotNodes, once in a stress run: gang plain's quorum
// found room for 0 members ever after).
func TestPlanHoldsRoomThatAppearsByANodeUpdate(t *testing.T) {
	pods := cache.NewIndexer(cache.MetaNamespaceKeyFunc, gangstate.Indexers())
	for i := range 2 {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("plain-%d", i), UID: types.UID(fmt.Sprintf("u-plain-%d", i)),
			CreationTimestamp: metav1.Unix(100, 0),
			Labels:            map[string]string{gang.GroupLabel: "plain"}, Annotations: map[string]string{gang.MinMemberAnnotation: "1", gang.MaxMemberAnnotation: "2"}},
			Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{"nvidia.com/gpu": resource.MustParse("8")}}}}}}
		if err := pods.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	pl := &Gang{tracker: gang.NewTracker(time.Now), clock: clock.RealClock{}, pods: pods, shapes: capacity.NewShapes("nvidia.com/gpu")}
	notReady := v1.Taint{Key: v1.TaintNodeNotReady, Effect: v1.TaintEffectNoSchedule}
	ctx := t.Context()

	tainted := []fwk.NodeInfo{planNode("more-0", notReady)}
	if held := pl.plan(ctx, tainted).Ahead("ns/elastic"); held.On("more-0") {
		t.Fatal("room held on a node no quorum tolerates")
	}
	ready := []fwk.NodeInfo{planNode("more-0")} // the same node, its taint gone
	plan := pl.plan(ctx, ready)
	if held := plan.Ahead("ns/elastic"); !held.On("more-0") {
		t.Fatalf("after the not-ready taint went, nothing held on more-0 for plain's quorum: the plan made while it was tainted stood")
	}

	// A node update that adds no room (a heartbeat) keeps the plan.
	beat := planNode("more-0")
	beat.Node().Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}}
	if again := pl.plan(ctx, []fwk.NodeInfo{beat}); again != plan {
		t.Fatal("a heartbeat made the plan again")
	}
}

// Filter keeps a member off room the capacity plan holds for gangs served
// before its own (ReasonHeld, Unschedulable: it may free), lets it onto a
// node whose room is held only for its own gang or not at all, and keeps a
// member the spot rule bars off spot nodes (UnschedulableAndUnresolvable:
// no change of room lets it on).
func TestFilterKeepsMembersOffHeldRoomAndSpotNodes(t *testing.T) {
	pods := cache.NewIndexer(cache.MetaNamespaceKeyFunc, gangstate.Indexers())
	waiting := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "plain-0", UID: "u-plain-0", CreationTimestamp: metav1.Unix(100, 0),
		Labels: map[string]string{gang.GroupLabel: "plain"}, Annotations: map[string]string{gang.MinMemberAnnotation: "1"}},
		Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{"nvidia.com/gpu": resource.MustParse("8")}}}}}}
	if err := pods.Add(waiting); err != nil {
		t.Fatal(err)
	}
	pl := &Gang{tracker: gang.NewTracker(time.Now), clock: clock.RealClock{}, pods: pods, shapes: capacity.NewShapes("nvidia.com/gpu")}
	free, other := planNode("free-0"), planNode("busy-0")
	other.AddPod(st.MakePod().Namespace("ns").Name("busy").UID("u-busy").Node("busy-0").Req(map[v1.ResourceName]string{"nvidia.com/gpu": "8"}).Obj())
	spot := planNode("spot-0")
	spot.Node().Labels = map[string]string{capacity.SpotLabel: capacity.SpotValue}
	plan := pl.plan(t.Context(), []fwk.NodeInfo{free, other, spot})
	extra := st.MakePod().Namespace("ns").Name("elastic-3").Req(map[v1.ResourceName]string{"nvidia.com/gpu": "8"}).Obj()
	filter := func(key string, spotRule string, ni fwk.NodeInfo) *fwk.Status {
		state := framework.NewCycleState()
		state.Write(gangstate.HeldKey, &gangstate.Held{Held: plan.Ahead(key), Shape: capacity.DemandShape(extra, "nvidia.com/gpu"), Spot: spotRule})
		return pl.Filter(t.Context(), state, extra, ni)
	}

	if st := filter("ns/elastic", "", free); st.Code() != fwk.Unschedulable || st.Message() != ReasonHeld {
		t.Errorf("a younger gang's member on room held for plain's quorum: %v %q, want Unschedulable %q", st.Code(), st.Message(), ReasonHeld)
	}
	if st := filter("ns/plain", "", free); !st.IsSuccess() {
		t.Errorf("plain's own member on the room held for it: %v %q", st.Code(), st.Message())
	}
	if st := filter("ns/elastic", "", other); !st.IsSuccess() {
		t.Errorf("a node with nothing held: %v %q", st.Code(), st.Message())
	}
	if st := filter("ns/elastic", capacity.SpotDeniedNotOptedIn, spot); st.Code() != fwk.UnschedulableAndUnresolvable || st.Message() != capacity.SpotDeniedNotOptedIn {
		t.Errorf("an extra of a gang that did not opt in, on a spot node: %v %q", st.Code(), st.Message())
	}
	if st := filter("ns/elastic", "", spot); !st.IsSuccess() {
		t.Errorf("an opted-in extra on a spot node: %v %q", st.Code(), st.Message())
	}
	// No plan and no spot rule: PreFilter wrote nothing, every node passes.
	if st := pl.Filter(t.Context(), framework.NewCycleState(), extra, free); !st.IsSuccess() {
		t.Errorf("without held state: %v %q", st.Code(), st.Message())
	}
}

// A starving gang whose preemption policy is Never (it sheds nothing) still
// counts a higher priority's growth, bound while it starved, as its own room
// (capacity.Plan.Growth): the plan reads the running gangs for it, so its
// hold stays where it was and the later gang keeps the room it fits in.
// Before, the plan read them only for a gang that may shed, and the hold
// moved onto the later gang's node.
func TestStarvingGangThatShedsNothingCountsGrowthAsItsOwn(t *testing.T) {
	t0 := time.Unix(100, 0)
	pods := cache.NewIndexer(cache.MetaNamespaceKeyFunc, gangstate.Indexers())
	member := func(g, name string, gpus string, prio int32, created time.Time, min, max string) *v1.Pod {
		p := st.MakePod().Namespace("ns").Name(name).UID("u-" + name).Priority(prio).Req(map[v1.ResourceName]string{"nvidia.com/gpu": gpus}).Obj()
		p.CreationTimestamp = metav1.NewTime(created)
		p.Labels = map[string]string{gang.GroupLabel: g}
		p.Annotations = map[string]string{gang.MinMemberAnnotation: min, gang.MaxMemberAnnotation: max}
		return p
	}
	add := func(p *v1.Pod, ni *framework.NodeInfo, started time.Time) {
		if ni != nil {
			p.Spec.NodeName = ni.Node().Name
			p.Status.StartTime = &metav1.Time{Time: started}
			ni.AddPod(p)
		}
		if err := pods.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	// n0 is free; n1 and n2 run a 7-GPU pod each; n3 runs the priority-1000
	// elastic gang's min member, and its extra (1 GPU) took n1's last GPU
	// twenty minutes in, after old started to starve.
	n0, n1, n2, n3 := planNode("n0"), planNode("n1"), planNode("n2"), planNode("n3")
	for _, ni := range []*framework.NodeInfo{n1, n2} {
		ni.AddPod(st.MakePod().Namespace("ns").Name("busy-" + ni.Node().Name).UID("u-busy-" + ni.Node().Name).Node(ni.Node().Name).Req(map[v1.ResourceName]string{"nvidia.com/gpu": "7"}).Obj())
	}
	add(member("high", "high-0", "8", 1000, t0, "1", "2"), n3, t0)
	add(member("high", "high-1", "1", 1000, t0, "1", "2"), n1, t0.Add(20*time.Minute))
	// old (priority 0, policy Never) needs two 8-GPU members and a 1-GPU
	// one; late, a minute younger, one GPU.
	for _, m := range []struct{ name, gpus string }{{"old-0", "8"}, {"old-1", "8"}, {"old-2", "1"}} {
		add(member("old", m.name, m.gpus, 0, t0, "3", "3"), nil, time.Time{})
	}
	add(member("late", "late-0", "1", 0, t0.Add(time.Minute), "1", "1"), nil, time.Time{})

	pl := &Gang{tracker: gang.NewTracker(time.Now), clock: simulate.NewStepClock(t0.Add(30 * time.Minute)), pods: pods,
		shapes: capacity.NewShapes("nvidia.com/gpu"), starvationBound: 10 * time.Minute,
		preemption: preemption{rules: []config.PreemptionRule{{MinPriority: 1000, Policy: config.PreemptLowerPriority, MaxWaitForNodesSeconds: ptr.To[int64](600)}}}}
	plan := pl.plan(t.Context(), []fwk.NodeInfo{n0, n1, n2, n3})
	if got := plan.Waiting(); fmt.Sprint(got) != "[ns/old ns/late]" {
		t.Fatalf("waiting gangs %v, want old then late", got)
	}
	if !plan.Ahead("ns/late").On("n0") {
		t.Error("nothing held on n0 for old, the starving gang")
	}
	if plan.Ahead("ns/late").On("n2") {
		t.Error("old's hold moved onto n2, the room late fits in: the growth on n1 was not counted as old's")
	}
}

// A gang whose quorum is placed leaves the plan without the other waiting
// gangs being read again, and the plan then equals one made from scratch:
// the gangs after it move onto the room it held, and the node it bound on
// holds less. The clock does not move, so the plan is not made afresh for
// its age.
func TestPlanDropsAPlacedGangAlone(t *testing.T) {
	t0 := time.Unix(100, 0)
	pods := cache.NewIndexer(cache.MetaNamespaceKeyFunc, gangstate.Indexers())
	member := func(g string, created time.Time) *v1.Pod {
		p := st.MakePod().Namespace("ns").Name(g + "-0").UID("u-" + g).Req(map[v1.ResourceName]string{"nvidia.com/gpu": "8"}).Obj()
		p.CreationTimestamp = metav1.NewTime(created)
		p.ResourceVersion = "1"
		p.Labels = map[string]string{gang.GroupLabel: g}
		p.Annotations = map[string]string{gang.MinMemberAnnotation: "1"}
		return p
	}
	for i, g := range []string{"a", "b", "c"} {
		if err := pods.Add(member(g, t0.Add(time.Duration(i)*time.Minute))); err != nil {
			t.Fatal(err)
		}
	}
	newGang := func() *Gang {
		return &Gang{tracker: gang.NewTracker(time.Now), clock: simulate.NewStepClock(t0.Add(time.Hour)), pods: pods, shapes: capacity.NewShapes("nvidia.com/gpu")}
	}
	pl := newGang()
	nodes := []fwk.NodeInfo{planNode("n0"), planNode("n1"), planNode("n2"), planNode("n3")}
	held := func(plan *capacity.Plan) string {
		out := ""
		for _, key := range []string{"ns/a", "ns/b", "ns/c", "ns/elastic"} {
			out += key + ":"
			for _, ni := range nodes {
				if plan.Ahead(key).On(ni.Node().Name) {
					out += " " + ni.Node().Name
				}
			}
			out += "; "
		}
		return out
	}
	plan := pl.plan(t.Context(), nodes)
	if got, want := held(plan), "ns/a:; ns/b: n0; ns/c: n0 n1; ns/elastic: n0 n1 n2; "; got != want {
		t.Fatalf("held ahead of each gang: %s, want %s", got, want)
	}
	madeAt := pl.planCache.at

	// a binds on n3, not on n0 where its room was held.
	bound := member("a", t0)
	bound.Spec.NodeName = "n3"
	bound.ResourceVersion = "2"
	if err := pods.Update(bound); err != nil {
		t.Fatal(err)
	}
	nodes[3].(*framework.NodeInfo).AddPod(bound)
	pl.planCache.gangChanged("ns/a")
	plan = pl.plan(t.Context(), nodes)
	if pl.planCache.at != madeAt {
		t.Error("every waiting gang was read again for one gang placed")
	}
	if got := fmt.Sprint(plan.Waiting()); got != "[ns/b ns/c]" {
		t.Fatalf("waiting %s, want [ns/b ns/c]", got)
	}
	want := newGang().plan(t.Context(), nodes)
	if got, want := held(plan), held(want); got != want {
		t.Errorf("once a was placed, held ahead of each gang: %s; from scratch: %s", got, want)
	}
	if got, want := held(plan), "ns/a: n0 n1; ns/b:; ns/c: n0; ns/elastic: n0 n1; "; got != want {
		t.Errorf("once a was placed, held ahead of each gang: %s, want %s", got, want)
	}
}

// A gang that shedding alone does not make room for records, in its cycle,
// the members above min it may shed (gangstate.Cycle.Sheddable), for
// MusterTopology to count as its room when it asks for nodes: on
// --random 1 --seed 7 a starving 5-node gang asked for 2 nodes where its
// pool could add 1, and waited 20 trace minutes beside three free nodes
// while an older gang's extra held the fourth. Before it starves an older
// gang's extras are not its to shed, and nothing is recorded.
func TestMakeRoomRecordsWhatTheGangMayShedWhenShort(t *testing.T) {
	t0 := time.Unix(100, 0)
	pods := cache.NewIndexer(cache.MetaNamespaceKeyFunc, gangstate.Indexers())
	member := func(g, name string, created time.Time, min, max string) *v1.Pod {
		p := st.MakePod().Namespace("ns").Name(name).UID("u-" + name).Req(map[v1.ResourceName]string{"nvidia.com/gpu": "8"}).Obj()
		p.CreationTimestamp = metav1.NewTime(created)
		p.Labels = map[string]string{gang.GroupLabel: g}
		p.Annotations = map[string]string{gang.MinMemberAnnotation: min, gang.MaxMemberAnnotation: max}
		return p
	}
	n0, n1, n2 := planNode("n0"), planNode("n1"), planNode("n2")
	// elastic (min 1, max 2), older than late, runs on n1 and n2: the
	// member on n2 is its newest, above min.
	for i, ni := range []*framework.NodeInfo{n1, n2} {
		p := member("elastic", fmt.Sprintf("elastic-%d", i), t0.Add(-time.Hour), "1", "2")
		p.Spec.NodeName = ni.Node().Name
		p.Status.StartTime = &metav1.Time{Time: t0.Add(time.Duration(i) * time.Minute)}
		ni.AddPod(p)
		if err := pods.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	var late []*v1.Pod
	for i := range 3 {
		p := member("late", fmt.Sprintf("late-%d", i), t0, "3", "3")
		late = append(late, p)
		if err := pods.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	nodes := []fwk.NodeInfo{n0, n1, n2}
	for _, tc := range []struct {
		name   string
		waited time.Duration
		want   string
	}{
		{name: "not starving: the older gang's extra is its own", waited: time.Minute, want: "[]"},
		{name: "starving: it may shed the older gang's extra", waited: 11 * time.Minute, want: "[ns/elastic-1@n2]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := simulate.NewStepClock(t0.Add(tc.waited))
			pl := &Gang{tracker: gang.NewTracker(clk.Now), clock: clk, pods: pods, shapes: capacity.NewShapes("nvidia.com/gpu"), starvationBound: 10 * time.Minute,
				preemption: preemption{nodesCanHelp: true, rules: []config.PreemptionRule{{MinPriority: 0, Policy: config.PreemptLowerPriority, MaxWaitForNodesSeconds: ptr.To[int64](600)}}}}
			spec, _, err := pl.resolve(late[0])
			if err != nil {
				t.Fatal(err)
			}
			cs := &gangstate.Cycle{Spec: spec}
			quorum := capacity.QuorumOf(3, late, late[0], config.DefaultGPUResourceName)
			if did := pl.makeRoom(t.Context(), cs, spec, late[0], quorum, pl.roomsOf(nodes), capacity.Held{}); did != "" {
				t.Fatalf("made room (%s) where shedding cannot", did)
			}
			var got []string
			for _, m := range cs.Sheddable {
				got = append(got, m.Name+"@"+m.Node)
			}
			if fmt.Sprint(got) != tc.want {
				t.Errorf("recorded %v as what the gang may shed, want %s", got, tc.want)
			}
		})
	}
}
