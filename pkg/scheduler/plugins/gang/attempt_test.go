// Unit tests of a gang's attempt: PreFilter's room check and PostFilter's failure.

package gang

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	backendcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	st "k8s.io/kubernetes/pkg/scheduler/testing"

	"github.com/muster-project/muster/pkg/capacity"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/gangstate"
	"github.com/muster-project/muster/pkg/scheduler/podpatch"
	"github.com/muster-project/muster/pkg/simulate"
)

// PostFilter fails the attempt of a gang whose quorum member fits no node,
// and says whether room is what it lacked: only then does the capacity plan
// keep holding room for it. A node rejecting the member for room alone
// (NodeResourcesFit's "Insufficient ...", or room held for others) is room;
// a rejection room cannot change (a taint, a class, or another plugin's
// reason for the whole cycle) is not: a node counts as room only when
// every reason it gave is room.
func TestPostFilterFailsTheAttemptAndSaysWhetherRoomWasShort(t *testing.T) {
	nodes := []*v1.Node{planNode("gpu-0").Node(), planNode("gpu-1").Node()}
	act := &activations{}
	fw, err := frameworkruntime.NewFramework(t.Context(), nil, &schedconfig.KubeSchedulerProfile{SchedulerName: "muster-scheduler"},
		frameworkruntime.WithPodActivator(act), frameworkruntime.WithWaitingPods(frameworkruntime.NewWaitingPodsMap()),
		frameworkruntime.WithSnapshotSharedLister(backendcache.NewSnapshot(nil, nodes)))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		reasons   []string
		roomShort bool
		summary   string
	}{
		{"short of GPUs", []string{"Insufficient nvidia.com/gpu"}, true, "2 Insufficient nvidia.com/gpu"},
		{"held for older gangs", []string{ReasonHeld}, true, "2 " + ReasonHeld},
		{"untolerated taint", []string{"node(s) had untolerated taint {dedicated: infra}"}, false, "untolerated taint"},
		{"room and a taint on one node", []string{"Insufficient nvidia.com/gpu", "node(s) had untolerated taint {dedicated: infra}"}, false, "untolerated taint"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := simulate.NewStepClock(time.Unix(1000, 0))
			pl, _, k := wakePlugin(t, clk, 10*time.Second, "moe", 2)
			pl.handle, pl.shapes = fw, capacity.NewShapes("nvidia.com/gpu")
			obj, _, _ := pl.pods.GetByKey("ns/moe-0")
			pod := obj.(*v1.Pod)
			statuses := framework.NewDefaultNodeToStatus()
			for _, n := range nodes {
				statuses.Set(n.Name, fwk.NewStatus(fwk.Unschedulable, tc.reasons...))
			}
			state := framework.NewCycleState()
			state.Write(gangstate.CycleKey, &gangstate.Cycle{Spec: mustSpec(t, pl, pod), Attempt: pl.tracker.Attempt(k)})

			_, st := pl.PostFilter(t.Context(), state, pod, statuses)
			if st.Code() != fwk.Unschedulable || !strings.Contains(st.Message(), "gang ns/moe could not place its quorum: member moe-0 fits no node (0 of min 2 placed") || !strings.Contains(st.Message(), tc.summary) {
				t.Fatalf("PostFilter: %v %q, want the gang's failure naming %q", st.Code(), st.Message(), tc.summary)
			}
			if _, _, backingOff := pl.tracker.BackingOff(k); !backingOff {
				t.Error("the gang's attempt failed without a backoff")
			}
			if short, ok := pl.roomShort.Load(k); !ok || short != tc.roomShort {
				t.Errorf("room short %v (%t), want %t", short, ok, tc.roomShort)
			}
		})
	}
}

func mustSpec(t *testing.T, pl *Gang, pod *v1.Pod) gang.Spec {
	t.Helper()
	spec, _, err := pl.resolve(pod)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// PreFilter lets a lone pod through (Skip), rejects a member of a gang with
// an invalid spec for good (UnschedulableAndUnresolvable, naming the
// field), rejects every member of a gang whose whole quorum has no room at
// once, arming the backoff, and while it backs off rejects its members
// without trying them ("retrying in"). A gang whose quorum fits starts an
// attempt, recorded in the cycle state for the plugins after it.
func TestPreFilterChecksTheQuorumsRoomOnce(t *testing.T) {
	ctx := t.Context()
	pods := cache.NewIndexer(cache.MetaNamespaceKeyFunc, gangstate.Indexers())
	gpus := map[v1.ResourceName]string{"nvidia.com/gpu": "8"}
	for i := range 3 {
		addMember(t, pods, "llm", i, "3", gpus)
	}
	bad := addMember(t, pods, "bad", 0, "many", gpus)
	lone := st.MakePod().Namespace("ns").Name("lone").UID("u-lone").Obj()
	pl, clk := attemptPlugin(t, pods)
	two := []fwk.NodeInfo{planNode("gpu-0"), planNode("gpu-1")}
	three := append(two, planNode("gpu-2"))
	lead, _, _ := pods.GetByKey("ns/llm-0")
	k := gang.Key{Namespace: "ns", Name: "llm"}

	if _, st := pl.PreFilter(ctx, framework.NewCycleState(), lone, two); st.Code() != fwk.Skip {
		t.Errorf("a lone pod: %v %q, want Skip", st.Code(), st.Message())
	}
	if _, st := pl.PreFilter(ctx, framework.NewCycleState(), bad, two); st.Code() != fwk.UnschedulableAndUnresolvable ||
		!strings.Contains(st.Message(), gang.MinMemberAnnotation) || !strings.Contains(st.Message(), `"many"`) {
		t.Errorf("a member with min %q: %v %q, want UnschedulableAndUnresolvable naming the annotation", "many", st.Code(), st.Message())
	}

	state := framework.NewCycleState()
	_, st := pl.PreFilter(ctx, state, lead.(*v1.Pod), two)
	const short = "gang ns/llm needs 3 more members placed at once (min 3, 0 placed: 3 x"
	if st.Code() != fwk.Unschedulable || !strings.Contains(st.Message(), short) || !strings.Contains(st.Message(), "the cluster has room for 2 members") {
		t.Fatalf("3 x 8 GPUs on two 8-GPU nodes: %v %q, want Unschedulable %q ... room for 2", st.Code(), st.Message(), short)
	}
	if cs := gangstate.CycleOf(state); cs == nil || !cs.Failed {
		t.Errorf("the failed attempt is not marked failed in the cycle state (%+v)", cs)
	}
	if short, ok := pl.roomShort.Load(k); !ok || short != true {
		t.Error("a quorum short of room is not recorded as short of room")
	}
	if _, _, backingOff := pl.tracker.BackingOff(k); !backingOff || pl.tracker.WakesArmed() != 1 {
		t.Fatalf("after the quorum found no room: backing off %v, wakes armed %d; want a backoff and its wake", backingOff, pl.tracker.WakesArmed())
	}

	// Room came, but the gang backs off: not tried until its wake.
	_, st = pl.PreFilter(ctx, framework.NewCycleState(), lead.(*v1.Pod), three)
	if st.Code() != fwk.Unschedulable || !strings.Contains(st.Message(), "(retrying in 10s)") {
		t.Fatalf("while backing off: %v %q, want Unschedulable ... (retrying in 10s)", st.Code(), st.Message())
	}
	clk.StepTo(clk.Now().Add(10 * time.Second))
	state = framework.NewCycleState()
	if _, st := pl.PreFilter(ctx, state, lead.(*v1.Pod), three); !st.IsSuccess() {
		t.Fatalf("3 x 8 GPUs on three free 8-GPU nodes after the backoff: %v %q", st.Code(), st.Message())
	}
	if cs := gangstate.CycleOf(state); cs == nil || cs.Failed || cs.Spec.Key != k || cs.Spec.MinMember != 3 {
		t.Errorf("the attempt's cycle state: %+v, want gang %s, min 3, not failed", cs, k)
	}
}

// activations records what the plugin moves to the active queue: the
// scheduling queue's part, behind the framework's Handle.Activate.
type activations struct {
	mu   sync.Mutex
	pods []string
}

func (a *activations) Activate(_ klog.Logger, pods map[string]*v1.Pod) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for k := range pods {
		a.pods = append(a.pods, k)
	}
	slices.Sort(a.pods)
}

func (a *activations) take() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := a.pods
	a.pods = nil
	return out
}

// wakePlugin is MusterGang with a gang's members in its pod index, behind a
// framework built by upstream's runtime (its waiting pods and Activate), on
// a clock that moves only when the test steps it.
func wakePlugin(t *testing.T, clk *simulate.StepClock, backoff time.Duration, name string, n int) (*Gang, *activations, gang.Key) {
	t.Helper()
	act := &activations{}
	fw, err := frameworkruntime.NewFramework(t.Context(), nil, &schedconfig.KubeSchedulerProfile{SchedulerName: "muster-scheduler"},
		frameworkruntime.WithPodActivator(act), frameworkruntime.WithWaitingPods(frameworkruntime.NewWaitingPodsMap()))
	if err != nil {
		t.Fatal(err)
	}
	pods := cache.NewIndexer(cache.MetaNamespaceKeyFunc, gangstate.Indexers())
	addGang(t, pods, name, n)
	pl := &Gang{handle: fw, tracker: gang.NewTracker(clk.Now), clock: clk, pods: pods, backoff: backoff,
		shapes: capacity.NewShapes("nvidia.com/gpu"), status: &statusWriter{dirty: map[gang.Key]struct{}{}}}
	return pl, act, gang.Key{Namespace: "ns", Name: name}
}

// A gang that backs off is always woken when its backoff ends, through its
// lead alone, whatever fails meanwhile: a failure during the backoff pushes
// the wake out (it does not arm a second one, nor is the first lost), and
// a failure after the wake fired arms a new one. The plugin's fail is what
// PostFilter and Permit's timeout call; the clock is stepped, so each
// interleaving is the one named.
func TestBackoffAlwaysEndsInAWake(t *testing.T) {
	ctx := t.Context()
	clk := simulate.NewStepClock(time.Unix(1000, 0))
	pl, act, k := wakePlugin(t, clk, 10*time.Second, "llm", 3)
	step := func(d time.Duration) []string {
		clk.StepTo(clk.Now().Add(d))
		return act.take()
	}

	pl.fail(ctx, k, "room for 2", pl.tracker.Attempt(k))
	if _, _, backingOff := pl.tracker.BackingOff(k); !backingOff || pl.tracker.WakesArmed() != 1 {
		t.Fatalf("after a failure: backing off %v, wakes armed %d; want a backoff and one wake", backingOff, pl.tracker.WakesArmed())
	}
	if got := step(9 * time.Second); len(got) != 0 {
		t.Fatalf("activated %v before the backoff ended", got)
	}
	if got := step(time.Second); !slices.Equal(got, []string{"ns/llm-0"}) {
		t.Fatalf("at the end of the backoff activated %v, want the lead ns/llm-0 alone", got)
	}
	if n := pl.tracker.WakesArmed(); n != 0 {
		t.Fatalf("%d wakes armed after the wake fired, want 0", n)
	}

	// The woken attempt fails again: a new wake, at the new deadline.
	pl.fail(ctx, k, "room for 2", pl.tracker.Attempt(k))
	// A failure while it backs off (a member's Permit timed out) pushes the
	// backoff out by 4 s: the wake armed first fires and waits the rest.
	if got := step(4 * time.Second); len(got) != 0 {
		t.Fatalf("activated %v during the backoff", got)
	}
	pl.fail(ctx, k, "timed out", pl.tracker.Attempt(k))
	if n := pl.tracker.WakesArmed(); n != 1 {
		t.Fatalf("%d wakes armed after a failure during the backoff, want the one", n)
	}
	if got := step(6 * time.Second); len(got) != 0 {
		t.Fatalf("activated %v at the first deadline, which the second failure pushed out", got)
	}
	if _, left, backingOff := pl.tracker.BackingOff(k); !backingOff || left != 4*time.Second {
		t.Fatalf("backing off %v with %s left, want 4s", backingOff, left)
	}
	if got := step(4 * time.Second); !slices.Equal(got, []string{"ns/llm-0"}) {
		t.Fatalf("at the pushed-out deadline activated %v, want ns/llm-0", got)
	}
	if _, _, backingOff := pl.tracker.BackingOff(k); backingOff || pl.tracker.WakesArmed() != 0 {
		t.Fatalf("after the wake: backing off %v, wakes armed %d", backingOff, pl.tracker.WakesArmed())
	}
	if got := step(time.Hour); len(got) != 0 {
		t.Fatalf("activated %v again with no failure since", got)
	}
}

// A failure whose attempt overlapped a change (room freed during it) does
// not back off and arms no wake: the change requeues the gang. A failure
// after that, with nothing changed, backs off and wakes as usual.
func TestFailureAfterAChangeLeavesTheWakeToIt(t *testing.T) {
	ctx := t.Context()
	clk := simulate.NewStepClock(time.Unix(1000, 0))
	pl, act, k := wakePlugin(t, clk, 10*time.Second, "moe", 2)

	attempt := pl.tracker.Attempt(k)
	pl.tracker.Unblock(k) // room freed while the attempt ran
	pl.fail(ctx, k, "room for 1", attempt)
	if _, _, backingOff := pl.tracker.BackingOff(k); backingOff || pl.tracker.WakesArmed() != 0 {
		t.Fatalf("after a change during the attempt: backing off %v, wakes armed %d; want neither", backingOff, pl.tracker.WakesArmed())
	}
	clk.StepTo(clk.Now().Add(time.Hour))
	if got := act.take(); len(got) != 0 {
		t.Fatalf("activated %v: the change's own requeue retries the gang", got)
	}

	pl.fail(ctx, k, "room for 1", pl.tracker.Attempt(k))
	clk.StepTo(clk.Now().Add(10 * time.Second))
	if got := act.take(); !slices.Equal(got, []string{"ns/moe-0"}) {
		t.Fatalf("activated %v, want the lead ns/moe-0 at the end of the backoff", got)
	}
}

// The quorum gate's wake reaches every member, the one whose arrival the
// notice is about too. The plugin hears of pods late: the queue may have
// added and gated moe-0 when one member existed, and the notice of moe-0's
// own arrival reaches the plugin only once all three exist. That notice is
// the one that finds the quorum, and the wake skipped its pod, so moe-0
// stayed gated (TestRoomFreedRequeuesGangLeads, once in a stress run:
// "fewer than 3 members exist" with all three there).
func TestQuorumWakeReachesTheMemberItIsAbout(t *testing.T) {
	clk := simulate.NewStepClock(time.Unix(1000, 0))
	pl, act, _ := wakePlugin(t, clk, 10*time.Second, "moe", 3)
	first, ok, err := pl.pods.GetByKey("ns/moe-0")
	if err != nil || !ok {
		t.Fatalf("moe-0: %v %v", ok, err)
	}
	pl.quorumArrived(t.Context(), first)
	if got, want := act.take(), []string{"ns/moe-0", "ns/moe-1", "ns/moe-2"}; !slices.Equal(got, want) {
		t.Fatalf("the quorum's arrival woke %v, want every member %v", got, want)
	}
	pl.quorumArrived(t.Context(), first)
	if got := act.take(); len(got) != 0 {
		t.Fatalf("woke %v again for a quorum already woken", got)
	}
}

// With two workers holding reservations, a third worker that fits no node
// does not fail the attempt while the launcher completes the quorum: it
// waits and the launcher alone is activated; so does the fourth worker.
// When the launcher then fits no node either, the workers let wait are not
// counted on again, and the attempt fails.
func TestPostFilterLetsAMemberWaitWhileOthersCompleteTheQuorum(t *testing.T) {
	ctx := t.Context()
	clk := simulate.NewStepClock(time.Unix(1000, 0))
	pods := cache.NewIndexer(cache.MetaNamespaceKeyFunc, gangstate.Indexers())
	member := func(name string, req map[v1.ResourceName]string) *v1.Pod {
		p := st.MakePod().Namespace("ns").Name(name).UID("u-"+name).Label(gang.GroupLabel, "mpi").
			Annotation(gang.MinMemberAnnotation, "3").Annotation(gang.MaxMemberAnnotation, "5").Req(req).Obj()
		p.CreationTimestamp = metav1.Unix(100, 0)
		if err := pods.Add(p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var workers []*v1.Pod
	for i := range 4 {
		workers = append(workers, member(fmt.Sprintf("mpi-%d", i), map[v1.ResourceName]string{"nvidia.com/gpu": "8"}))
	}
	launcher := member("mpi-launcher", map[v1.ResourceName]string{v1.ResourceCPU: "2"})
	// The two workers' reservations, as the scheduler's snapshot has them.
	gpu0, gpu1 := planNode("gpu-0"), planNode("gpu-1")
	cpu := st.MakeNode().Name("cpu-0").Capacity(map[v1.ResourceName]string{v1.ResourceCPU: "16", v1.ResourceMemory: "64Gi", v1.ResourcePods: "110"}).Obj()
	assumed := []*v1.Pod{workers[0].DeepCopy(), workers[1].DeepCopy()}
	assumed[0].Spec.NodeName, assumed[1].Spec.NodeName = "gpu-0", "gpu-1"
	act := &activations{}
	fw, err := frameworkruntime.NewFramework(ctx, nil, &schedconfig.KubeSchedulerProfile{SchedulerName: "muster-scheduler"},
		frameworkruntime.WithPodActivator(act), frameworkruntime.WithWaitingPods(frameworkruntime.NewWaitingPodsMap()),
		frameworkruntime.WithSnapshotSharedLister(backendcache.NewSnapshot(assumed, []*v1.Node{gpu0.Node(), gpu1.Node(), cpu})))
	if err != nil {
		t.Fatal(err)
	}
	pl := &Gang{handle: fw, tracker: gang.NewTracker(clk.Now), clock: clk, pods: pods, backoff: 10 * time.Second,
		shapes: capacity.NewShapes("nvidia.com/gpu"), status: &statusWriter{dirty: map[gang.Key]struct{}{}}}
	pl.defaults.ScheduleTimeout = time.Minute
	k := gang.Key{Namespace: "ns", Name: "mpi"}
	attempt := pl.tracker.Attempt(k)
	for i, node := range []string{"gpu-0", "gpu-1"} {
		if st, _ := pl.Permit(ctx, framework.NewCycleState(), workers[i], node); st.Code() != fwk.Wait {
			t.Fatalf("worker %d at Permit: %v %q, want Wait", i, st.Code(), st.Message())
		}
	}
	act.take()
	postFilter := func(pod *v1.Pod, reason string) *fwk.Status {
		t.Helper()
		statuses := framework.NewDefaultNodeToStatus()
		for _, n := range []string{"gpu-0", "gpu-1", "cpu-0"} {
			statuses.Set(n, fwk.NewStatus(fwk.Unschedulable, reason))
		}
		state := framework.NewCycleState()
		state.Write(gangstate.CycleKey, &gangstate.Cycle{Spec: mustSpec(t, pl, pod), Attempt: attempt})
		_, st := pl.PostFilter(ctx, state, pod, statuses)
		return st
	}

	for _, w := range workers[2:] {
		st := postFilter(w, "Insufficient nvidia.com/gpu")
		if st.Code() != fwk.Unschedulable || !strings.Contains(st.Message(), "its other pending members (1 x 2 CPU) complete the quorum") {
			t.Fatalf("%s beyond the quorum's room: %v %q, want it to wait for the launcher", w.Name, st.Code(), st.Message())
		}
		if got := act.take(); fmt.Sprint(got) != "[ns/mpi-launcher]" {
			t.Errorf("after %s: activated %v, want the launcher alone", w.Name, got)
		}
		if _, _, backingOff := pl.tracker.BackingOff(k); backingOff {
			t.Fatalf("after %s: the attempt failed", w.Name)
		}
	}
	if st := postFilter(launcher, "node(s) had untolerated taint {dedicated: infra}"); !strings.Contains(st.Message(), "could not place its quorum: member mpi-launcher fits no node") {
		t.Fatalf("the launcher fits no node: %v %q, want the attempt failed", st.Code(), st.Message())
	}
	if _, _, backingOff := pl.tracker.BackingOff(k); !backingOff {
		t.Error("the attempt did not fail when no member left could complete the quorum")
	}
}

// A gang whose quorum the cluster's nodes could not hold were they empty
// is not tried again when a node comes that could hold none of its
// members: its attempt says so and records it, such a node is QueueSkip
// for it, a node that could hold one is Queue and drops the record. A pod
// leaving tries it again (its shortfall, which its attempt writes for the
// autoscaler, changes), as it does a gang that only lacks free room.
// Mixed shapes: moe is three 8-GPU workers and an 8-CPU launcher, pair two
// 8-GPU workers; one of the two nodes runs a pod.
func TestGangBeyondTheClusterWaitsForNodesThatCouldHoldIt(t *testing.T) {
	ctx := t.Context()
	pods, moe, pair, running, two := moeBeside(t, "pair")
	pl, clk := attemptPlugin(t, pods)
	attempt := func(lead *v1.Pod, nodes []fwk.NodeInfo) string {
		t.Helper()
		_, st := pl.PreFilter(ctx, framework.NewCycleState(), lead, nodes)
		if st.Code() != fwk.Unschedulable {
			t.Fatalf("%s on %d nodes: %v %q, want Unschedulable", lead.Name, len(nodes), st.Code(), st.Message())
		}
		return st.Message()
	}
	hint := roomHint(t, pl)
	const beyond = "the cluster's nodes could not hold it were they empty"
	moeKey := gang.Key{Namespace: "ns", Name: "moe"}

	if msg := attempt(moe, two); !strings.Contains(msg, beyond) {
		t.Errorf("moe (3 x 8 GPUs and a launcher) on two 8-GPU nodes: %q, want it to say %q", msg, beyond)
	}
	if msg := attempt(pair, two); strings.Contains(msg, beyond) || !strings.Contains(msg, "the cluster has room for 1 members") {
		t.Errorf("pair (2 x 8 GPUs) with one of two 8-GPU nodes busy: %q, want room for 1 and not %q", msg, beyond)
	}
	small := smallGPUNode()
	if h := hint(moe, nil, small); h != fwk.QueueSkip {
		t.Errorf("a 1-GPU 4-CPU node came (no worker nor the launcher fits it): moe's hint %v, want QueueSkip", h)
	}
	if h := hint(pair, nil, small); h != fwk.Queue {
		t.Errorf("a 1-GPU node came: pair's hint %v, want Queue (pair is not beyond the cluster)", h)
	}
	if h := hint(moe, running, nil); h != fwk.Queue {
		t.Errorf("a pod left: moe's hint %v, want Queue (its shortfall changed)", h)
	}
	if _, ok := pl.beyondCluster.Load(moeKey); !ok {
		t.Error("a pod left and moe is no longer recorded as beyond the cluster")
	}
	if h := hint(moe, nil, planNode("gpu-2").Node()); h != fwk.Queue {
		t.Errorf("an 8-GPU node came: moe's hint %v, want Queue", h)
	}
	if _, ok := pl.beyondCluster.Load(moeKey); ok {
		t.Error("an 8-GPU node came and moe is still recorded as beyond the cluster")
	}

	// With the third node moe fits the cluster were it empty: any node
	// coming tries it again.
	clk.StepTo(clk.Now().Add(10 * time.Second))
	three := append(two, planNode("gpu-2"))
	if msg := attempt(moe, three); strings.Contains(msg, beyond) || !strings.Contains(msg, "the cluster has room for 3 members") {
		t.Errorf("moe on three 8-GPU nodes, one busy: %q, want room for 3 (two workers and the launcher) and not %q", msg, beyond)
	}
	if h := hint(moe, nil, small); h != fwk.Queue {
		t.Errorf("a 1-GPU node came after moe fit the empty cluster: hint %v, want Queue", h)
	}
}

// moeBeside is the pods of gang moe (three 8-GPU workers and an 8-CPU
// launcher, min 4) and of a gang of two 8-GPU workers named other, their
// leads, and two 8-GPU nodes of which the first runs the pod running.
func moeBeside(t *testing.T, other string) (pods cache.Indexer, moe, lead, running *v1.Pod, two []fwk.NodeInfo) {
	t.Helper()
	pods = cache.NewIndexer(cache.MetaNamespaceKeyFunc, gangstate.Indexers())
	gpus := map[v1.ResourceName]string{"nvidia.com/gpu": "8"}
	moe = addMember(t, pods, "moe", 0, "4", gpus)
	for i := 1; i < 3; i++ {
		addMember(t, pods, "moe", i, "4", gpus)
	}
	addMember(t, pods, "moe", 3, "4", map[v1.ResourceName]string{v1.ResourceCPU: "8"})
	lead = addMember(t, pods, other, 0, "2", gpus)
	addMember(t, pods, other, 1, "2", gpus)
	running = st.MakePod().Namespace("ns").Name("busy").UID("u-busy").Node("gpu-0").Req(gpus).Obj()
	busy := planNode("gpu-0")
	busy.AddPod(running)
	return pods, moe, lead, running, []fwk.NodeInfo{busy, planNode("gpu-1")}
}

// roomHint is pl's room hint for a pod, failing the test on an error.
func roomHint(t *testing.T, pl *Gang) func(pod *v1.Pod, oldObj, newObj any) fwk.QueueingHint {
	return func(pod *v1.Pod, oldObj, newObj any) fwk.QueueingHint {
		t.Helper()
		h, err := pl.roomFreed(klog.Background(), pod, oldObj, newObj)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
}

// smallGPUNode is a 1-GPU 4-CPU node: no 8-GPU worker nor 8-CPU launcher fits it.
func smallGPUNode() *v1.Node {
	return st.MakeNode().Name("t4-0").Capacity(map[v1.ResourceName]string{
		v1.ResourceCPU: "4", v1.ResourceMemory: "28Gi", v1.ResourcePods: "110", "nvidia.com/gpu": "1"}).Obj()
}

// attemptPlugin is MusterGang as a gang's attempt sees it: behind a
// framework built by upstream's runtime, the members in pods, on a clock
// that moves only when the test steps it, with a 10 s backoff. Its status
// writer never runs: nothing here is written.
func attemptPlugin(t *testing.T, pods cache.Indexer) (*Gang, *simulate.StepClock) {
	t.Helper()
	fw, err := frameworkruntime.NewFramework(t.Context(), nil, &schedconfig.KubeSchedulerProfile{SchedulerName: "muster-scheduler"},
		frameworkruntime.WithEventRecorder(events.NewFakeRecorder(10)), frameworkruntime.WithPodActivator(&activations{}),
		frameworkruntime.WithWaitingPods(frameworkruntime.NewWaitingPodsMap()))
	if err != nil {
		t.Fatal(err)
	}
	clk := simulate.NewStepClock(time.Unix(1000, 0))
	pl := &Gang{handle: fw, clock: clk, leading: &gangstate.Leadership{}, tracker: gang.NewTracker(clk.Now), pods: pods,
		backoff: 10 * time.Second, shapes: capacity.NewShapes("nvidia.com/gpu")}
	pl.status = newStatusWriter(fw, pl, podpatch.NewForClient(nil), 0)
	return pl, clk
}

// addMember adds to pods member i of gang g (min min) asking req, created
// 100+i seconds into the epoch, and returns it.
func addMember(t *testing.T, pods cache.Indexer, g string, i int, min string, req map[v1.ResourceName]string) *v1.Pod {
	t.Helper()
	p := st.MakePod().Namespace("ns").Name(fmt.Sprintf("%s-%d", g, i)).UID(fmt.Sprintf("u-%s-%d", g, i)).
		Label(gang.GroupLabel, g).Annotation(gang.MinMemberAnnotation, min).Req(req).Obj()
	p.CreationTimestamp = metav1.Unix(100+int64(i), 0)
	if err := pods.Add(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// A gang larger than the cluster, which the autoscaler found no node pool
// can hold, is parked: its lead waits at the gate, saying why, until a node
// comes that could hold one of its members (the next attempt looks again)
// or its next request is due. Pods leaving are QueueSkip for it meanwhile.
// A gang that fits the empty cluster is never parked, and one that fits it
// but no domain of its required level (MusterTopology's answer) is.
// Mixed shapes: moe is three 8-GPU workers and an 8-CPU launcher, ring two
// 8-GPU workers, on two 8-GPU nodes, one running a pod.
func TestGangNoPoolCanHoldIsParked(t *testing.T) {
	ctx := t.Context()
	pods, moe, ring, running, two := moeBeside(t, "ring")
	pl, clk := attemptPlugin(t, pods)
	pl.state = &gangstate.State{}
	never, due := false, clk.Now().Add(time.Hour)
	const answer = "failed: no node pool can hold 3 pods even at its max size"
	pl.state.ShareNeverFits(func(gang.Key) (string, time.Time, bool) {
		if !never || !clk.Now().Before(due) {
			return "", time.Time{}, false
		}
		return answer, due, true
	})
	ringBeyond := false
	pl.state.ShareBeyondDomains(func(k gang.Key) bool { return k.Name == "ring" && ringBeyond })

	attempt := func(lead *v1.Pod) {
		t.Helper()
		clk.StepTo(clk.Now().Add(10 * time.Second)) // past the last attempt's backoff
		if _, st := pl.PreFilter(ctx, framework.NewCycleState(), lead, two); st.Code() != fwk.Unschedulable {
			t.Fatalf("%s: %v %q, want Unschedulable", lead.Name, st.Code(), st.Message())
		}
	}
	gate := func(lead *v1.Pod) string {
		t.Helper()
		st := pl.PreEnqueue(ctx, lead)
		if st.IsSuccess() {
			return ""
		}
		if st.Code() != fwk.UnschedulableAndUnresolvable {
			t.Fatalf("%s at the gate: %v %q", lead.Name, st.Code(), st.Message())
		}
		return st.Message()
	}
	hint := roomHint(t, pl)
	small := smallGPUNode()
	// parkedUntilANodeComes checks a parked gang's lead: pods leaving and
	// a node that could hold none of its members leave it parked, an
	// 8-GPU node lets it through, and its next attempt, which finds it
	// beyond the cluster (or every domain) again, parks it again.
	parkedUntilANodeComes := func(lead *v1.Pod, node string) {
		t.Helper()
		if h := hint(lead, running, nil); h != fwk.QueueSkip {
			t.Errorf("a pod left: parked %s's hint %v, want QueueSkip", lead.Name, h)
		}
		if h := hint(lead, nil, small); h != fwk.QueueSkip {
			t.Errorf("a node that holds no member of %s came: hint %v, want QueueSkip", lead.Name, h)
		}
		if h := hint(lead, nil, planNode(node).Node()); h != fwk.Queue {
			t.Errorf("an 8-GPU node came: parked %s's hint %v, want Queue", lead.Name, h)
		}
		if msg := gate(lead); msg != "" {
			t.Errorf("after an 8-GPU node came: %s parked (%q), want its lead through to look again", lead.Name, msg)
		}
		attempt(lead) // the node went again
		if msg := gate(lead); msg == "" {
			t.Errorf("%s's attempt after the node found it beyond again: not parked", lead.Name)
		}
	}

	attempt(moe)
	attempt(ring)
	if msg := gate(moe); msg != "" {
		t.Fatalf("moe, beyond the cluster, before the autoscaler answered: parked (%q), want it through", msg)
	}
	never = true
	msg := gate(moe)
	if !strings.Contains(msg, "waits for a node that could hold one of its members") || !strings.Contains(msg, answer) {
		t.Fatalf("moe, beyond the cluster, no pool can hold it: gate says %q, want it parked with the autoscaler's answer", msg)
	}
	if msg := gate(ring); msg != "" {
		t.Errorf("ring fits the empty cluster: parked (%q), want it through", msg)
	}
	parkedUntilANodeComes(moe, "gpu-2")

	// ring fits the empty cluster, but no domain of its required level
	// (MusterTopology's answer): parked too.
	ringBeyond = true
	if msg := gate(ring); msg == "" {
		t.Error("ring, which no domain holds, no pool can hold it: not parked")
	}
	parkedUntilANodeComes(ring, "gpu-3")

	// Its next request due: through, to be tried and its request written.
	clk.StepTo(due)
	if msg := gate(moe); msg != "" {
		t.Errorf("moe's next request is due: still parked (%q)", msg)
	}
	if h := hint(moe, running, nil); h != fwk.Queue {
		t.Errorf("moe's next request is due, a pod left: hint %v, want Queue", h)
	}
}

// A parked gang whose quorum asks for more GPUs than the cluster's regular
// nodes have in all stays parked as nodes come one by one, until they have
// them: each node before would have tried it again, a FailedScheduling
// event and two writes of its lead's condition each time. Spot nodes,
// which hold no quorum, count for nothing. Mixed shapes: huge is five
// 8-GPU workers and an 8-CPU launcher (40 GPUs at least for its min of 6),
// on two 8-GPU nodes, one running a pod.
func TestGangBeyondTheClusterWaitsForItsGPUs(t *testing.T) {
	ctx := t.Context()
	pods := cache.NewIndexer(cache.MetaNamespaceKeyFunc, gangstate.Indexers())
	gpus := map[v1.ResourceName]string{"nvidia.com/gpu": "8"}
	huge := addMember(t, pods, "huge", 0, "6", gpus)
	for i := 1; i < 5; i++ {
		addMember(t, pods, "huge", i, "6", gpus)
	}
	addMember(t, pods, "huge", 5, "6", map[v1.ResourceName]string{v1.ResourceCPU: "8"})
	running := st.MakePod().Namespace("ns").Name("busy").UID("u-busy").Node("gpu-0").Req(gpus).Obj()
	busy := planNode("gpu-0")
	busy.AddPod(running)
	two := []fwk.NodeInfo{busy, planNode("gpu-1")}

	pl, clk := attemptPlugin(t, pods)
	nodes := cache.NewStore(cache.MetaNamespaceKeyFunc)
	for _, ni := range two {
		if err := nodes.Add(ni.Node()); err != nil {
			t.Fatal(err)
		}
	}
	pl.nodes = nodes
	pl.state = &gangstate.State{}
	pl.state.ShareNeverFits(func(gang.Key) (string, time.Time, bool) {
		return "failed: no node pool can hold 6 pods even at its max size", clk.Now().Add(time.Hour), true
	})
	pl.state.ShareBeyondDomains(func(gang.Key) bool { return false })
	hint := roomHint(t, pl)
	gate := func() string {
		t.Helper()
		if st := pl.PreEnqueue(ctx, huge); !st.IsSuccess() {
			return st.Message()
		}
		return ""
	}
	clk.StepTo(clk.Now().Add(10 * time.Second))
	if _, st := pl.PreFilter(ctx, framework.NewCycleState(), huge, two); st.Code() != fwk.Unschedulable {
		t.Fatalf("huge on two 8-GPU nodes: %v %q, want Unschedulable", st.Code(), st.Message())
	}
	if msg := gate(); !strings.Contains(msg, "the cluster's regular nodes then having the 40 GPUs its quorum asks for at least") {
		t.Fatalf("huge, beyond the cluster, no pool can hold it: gate says %q, want it parked for its 40 GPUs", msg)
	}
	come := func(n *v1.Node, want fwk.QueueingHint) {
		t.Helper()
		if err := nodes.Add(n); err != nil { // the informer has it before the hint
			t.Fatal(err)
		}
		if h := hint(huge, nil, n); h != want {
			t.Errorf("node %s came, %d GPUs in all: hint %v, want %v", n.Name, pl.clusterGPUs(), h, want)
		}
	}
	spot := planNode("spot-0").Node()
	spot.Labels = map[string]string{capacity.SpotLabel: capacity.SpotValue}
	come(spot, fwk.QueueSkip)
	come(planNode("gpu-2").Node(), fwk.QueueSkip)
	come(planNode("gpu-3").Node(), fwk.QueueSkip)
	if msg := gate(); msg == "" {
		t.Fatal("32 GPUs on regular nodes for a quorum of 40: huge's lead let through")
	}
	come(planNode("gpu-4").Node(), fwk.Queue)
	if msg := gate(); msg != "" {
		t.Errorf("40 GPUs on regular nodes: huge still parked (%q), want its lead through to look again", msg)
	}
}
