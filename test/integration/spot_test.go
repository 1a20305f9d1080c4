// Integration tests of spot nodes: only opted-in extras on them, reclaimed spot nodes shrinking the gang to its quorum, spot nodes asked for extras, required domains ruling spot out.

package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	autoscalingv1 "github.com/muster-project/muster/pkg/apis/autoscaling/v1"
	"github.com/muster-project/muster/pkg/capacity"
	"github.com/muster-project/muster/pkg/controlplane"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/provisioning"
	"github.com/muster-project/muster/pkg/topology"
)

// spotNode is a GPU node of a spot pool, labelled and tainted as AKS does.
func spotNode(name string, gpus int64) *v1.Node {
	n := controlplane.GPUNode(name, gpus, capacity.SpotLabel, capacity.SpotValue)
	n.Spec.Taints = []v1.Taint{{Key: capacity.SpotLabel, Value: capacity.SpotValue, Effect: v1.TaintEffectNoSchedule}}
	return n
}

// tolerantMembers are a CRD-free gang's members that tolerate spot nodes.
func tolerantMembers(name string, n int, gpus int64, min, max int, spotExtras string) []controlplane.Member {
	members := controlplane.LabelMembers(ns, name, n, gpus, min, max)
	for i := range members {
		members[i].Tolerations = []v1.Toleration{{Key: capacity.SpotLabel, Operator: v1.TolerationOpEqual, Value: capacity.SpotValue, Effect: v1.TaintEffectNoSchedule}}
		if spotExtras != "" {
			members[i].Annotations[gang.SpotExtrasAnnotation] = spotExtras
		}
	}
	return members
}

// spotCluster registers regular 8-GPU nodes gpu-0.. and spot ones spot-0..
func spotCluster(t *testing.T, ctx context.Context, env *controlplane.Env, regular, spot int) {
	t.Helper()
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", regular, 8); err != nil {
		t.Fatal(err)
	}
	for i := range spot {
		if err := controlplane.CreateNode(ctx, env.Client, spotNode(fmt.Sprintf("spot-%d", i), 8)); err != nil {
			t.Fatal(err)
		}
	}
}

// placeElasticOnSpot creates gang "elastic" (4 members of 8 GPUs, min 2,
// max 4, tolerating spot, opted in) and checks its quorum lands on regular
// nodes and its two extras on spot ones.
func placeElasticOnSpot(t *testing.T, ctx context.Context, env *controlplane.Env) {
	t.Helper()
	if err := controlplane.CreatePods(ctx, env.Client, tolerantMembers("elastic", 4, 8, 2, 4, "true")...); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.GroupLabel, "elastic", 4)
	if spot, regular := onSpot(t, ctx, env, "elastic"); spot != 2 || regular != 2 {
		t.Fatalf("elastic gang: %d members on spot, %d on regular nodes (%v); want its quorum of 2 on regular, its 2 extras on spot", spot, regular, nodesOf(t, ctx, env, "elastic"))
	}
}

// onSpot counts a gang's bound members on spot and on regular nodes.
func onSpot(t *testing.T, ctx context.Context, env *controlplane.Env, name string) (spot, regular int) {
	t.Helper()
	for _, n := range nodesOf(t, ctx, env, name) {
		if strings.HasPrefix(n, "spot-") {
			spot++
		} else {
			regular++
		}
	}
	return spot, regular
}

// TestSpotOnlyForExtrasThatOptIn: all members tolerate the spot taint. An
// elastic gang that opted in gets its quorum on regular nodes and its
// extras on spot nodes, though regular room is left; a rigid gang waits for
// regular room with a spot node free, and takes the regular node that comes;
// an elastic gang that did not opt in keeps its extra off the free spot
// node, saying why.
func TestSpotOnlyForExtrasThatOptIn(t *testing.T) {
	ctx, env := controlPlane(t)
	sched := startScheduler(t, ctx, env, controlplane.GangArgs{BackoffSeconds: 1})
	spotCluster(t, ctx, env, 3, 3)

	// min 2, max 4, opted in: two on regular nodes, two on spot, with a
	// regular node still free.
	placeElasticOnSpot(t, ctx, env)

	// A rigid gang of two tolerating spot: one regular and one spot node are
	// free, it waits for a second regular one.
	if err := controlplane.CreatePods(ctx, env.Client, tolerantMembers("rigid", 2, 8, 2, 2, "true")...); err != nil {
		t.Fatal(err)
	}
	settles(t, ctx, env, sched, "the rigid gang stays unbound", func() (bool, error) {
		spot, regular := onSpot(t, ctx, env, "rigid")
		return spot+regular == 0, nil
	})
	if err := controlplane.CreateNodes(ctx, env.Client, "more", 1, 8); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.GroupLabel, "rigid", 2)
	if spot, _ := onSpot(t, ctx, env, "rigid"); spot != 0 {
		t.Fatalf("rigid gang on %v: a quorum member on a spot node", nodesOf(t, ctx, env, "rigid"))
	}

	// An elastic gang that did not opt in: its quorum gets the new regular
	// node, its extra stays off the free spot node.
	if err := controlplane.CreateNodes(ctx, env.Client, "last", 1, 8); err != nil {
		t.Fatal(err)
	}
	if err := controlplane.CreatePods(ctx, env.Client, tolerantMembers("plain", 2, 8, 1, 2, "")...); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.GroupLabel, "plain", 1)
	if spot, _ := onSpot(t, ctx, env, "plain"); spot != 0 {
		t.Fatalf("plain gang on %v: on a spot node without opting in", nodesOf(t, ctx, env, "plain"))
	}
	pods, err := env.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: controlplane.Selector(gang.GroupLabel, "plain")})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if p.Spec.NodeName != "" {
			continue
		}
		waitPod(t, ctx, env, p.Name, "the reason it keeps off the spot node", func(p *v1.Pod) bool {
			c := scheduledCondition(p)
			return c != nil && strings.Contains(c.Message, "did not opt in to spot")
		})
	}
}

// TestSpotReclaimShrinksTheGang: an elastic gang that opted in runs its
// quorum on regular nodes and its extras on spot nodes. One spot node goes
// NotReady, the other is deleted, as a reclaimed spot VM's node does: the
// members on each are shed with a DisruptionTarget saying so, the gang keeps
// its quorum and says in words that it shrank.
func TestSpotReclaimShrinksTheGang(t *testing.T) {
	ctx, env := controlPlane(t)
	startScheduler(t, ctx, env, controlplane.GangArgs{BackoffSeconds: 1})
	kubelet := startKubelet(t, ctx, env)
	spotCluster(t, ctx, env, 2, 2)
	placeElasticOnSpot(t, ctx, env)
	memberOn := func(node string) string {
		pods, err := env.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
		if err != nil || len(pods.Items) != 1 {
			t.Fatalf("pods on %s: %v %v", node, pods, err)
		}
		return pods.Items[0].Name
	}
	onNotReady, onDeleted := memberOn("spot-0"), memberOn("spot-1")

	n, err := env.Client.CoreV1().Nodes().Get(ctx, "spot-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionUnknown, Reason: "NodeStatusUnknown", LastTransitionTime: metav1.Now()}}
	if _, err := env.Client.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.CoreV1().Nodes().Delete(ctx, "spot-1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	for member, why := range map[string]string{onNotReady: "spot node spot-0 went NotReady", onDeleted: "spot node spot-1 was deleted"} {
		if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
			_, ok := kubelet.evicted()[member]
			return ok, nil
		}); err != nil {
			t.Fatalf("%s, on a reclaimed spot node, not shed: %v", member, err)
		}
		if msg := kubelet.evicted()[member]; !strings.Contains(msg, why) || !strings.Contains(msg, "runs on with") {
			t.Errorf("%s DisruptionTarget %q, want it to say %q and that the gang runs on", member, msg, why)
		}
	}
	waitEvent(t, ctx, env, "Pod", onNotReady, gang.ReasonSpotReclaimed, "of min 2")
	if spot, regular := onSpot(t, ctx, env, "elastic"); regular != 2 {
		t.Fatalf("after the reclaims the gang has %d members on regular nodes, %d on spot; want its quorum of 2 kept", regular, spot)
	}
}

// TestSpotExtrasAskForSpotNodes: mixed shapes and priorities. Gang "mpi"
// (high priority, opted in: a CPU launcher and four 8-GPU workers, min 3,
// max 5) waits on an empty cluster; three regular nodes come: its quorum
// (launcher and two workers) takes two, an extra the third. Gang "plain"
// (low priority, not opted in: three workers, min 1, max 3) comes and waits;
// the next regular node is promised to its quorum, not to mpi's waiting
// extra. Members above min get no nodes bought for them, except spot nodes
// for the gang that opted in: mpi's waiting worker is left to the
// autoscaler's ordinary scale-up (no consume mark) while plain's stay held,
// and when a spot node comes mpi's extra takes it and plain's keep off.
func TestSpotExtrasAskForSpotNodes(t *testing.T) {
	ctx, env := controlPlane(t)
	sched := startScheduler(t, ctx, env, controlplane.GangArgs{BackoffSeconds: 1})
	createPriorityClasses(t, ctx, env, map[string]int32{"low": 10, "high": 1000})
	mpi := tolerantMembers("mpi", 5, 8, 3, 5, "true")
	mpi[4].GPUs = 0 // the launcher
	for i := range mpi {
		mpi[i].PriorityClass = "high"
	}
	if err := controlplane.CreatePods(ctx, env.Client, mpi...); err != nil {
		t.Fatal(err)
	}
	waitPod(t, ctx, env, "mpi-0", "waiting for nodes", func(p *v1.Pod) bool {
		c := scheduledCondition(p)
		return c != nil && c.Reason == v1.PodReasonUnschedulable
	})
	spotCluster(t, ctx, env, 3, 0)
	waitBound(t, env, gang.GroupLabel, "mpi", 4)

	plain := tolerantMembers("plain", 3, 8, 1, 3, "")
	for i := range plain {
		plain[i].PriorityClass = "low"
	}
	if err := controlplane.CreatePods(ctx, env.Client, plain...); err != nil {
		t.Fatal(err)
	}
	waitPod(t, ctx, env, "plain-0", "waiting for room", func(p *v1.Pod) bool {
		c := scheduledCondition(p)
		return c != nil && c.Reason == v1.PodReasonUnschedulable
	})
	if err := controlplane.CreateNodes(ctx, env.Client, "more", 1, 8); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.GroupLabel, "plain", 1)

	waiting := func(name string) []v1.Pod {
		pods, err := env.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: controlplane.Selector(gang.GroupLabel, name)})
		if err != nil {
			t.Fatal(err)
		}
		var out []v1.Pod
		for _, p := range pods.Items {
			if p.Spec.NodeName == "" {
				out = append(out, p)
			}
		}
		return out
	}
	heldPlain := provisioning.HoldName(gang.Key{Namespace: ns, Name: "plain"})
	for _, p := range waiting("plain") {
		waitPod(t, ctx, env, p.Name, "held from ordinary scale-up", func(p *v1.Pod) bool {
			return p.Annotations[autoscalingv1.ConsumeAnnotation] == heldPlain
		})
	}
	extras := waiting("mpi")
	if len(extras) != 1 {
		t.Fatalf("mpi has %d members waiting, want its last worker above min", len(extras))
	}
	for _, p := range extras {
		waitPod(t, ctx, env, p.Name, "unschedulable, for the autoscaler", func(p *v1.Pod) bool {
			c := scheduledCondition(p)
			return c != nil && c.Reason == v1.PodReasonUnschedulable && strings.Contains(c.Message, "has its quorum")
		})
	}
	settles(t, ctx, env, sched, "mpi's workers above min left to ordinary scale-up", func() (bool, error) {
		for _, p := range waiting("mpi") {
			if c := p.Annotations[autoscalingv1.ConsumeAnnotation]; c != "" {
				return false, fmt.Errorf("%s consumes %q; an opted-in gang's extras ask for spot nodes one by one", p.Name, c)
			}
		}
		return true, nil
	})

	if err := controlplane.CreateNode(ctx, env.Client, spotNode("spot-0", 8)); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.GroupLabel, "mpi", 5)
	if spot, regular := onSpot(t, ctx, env, "mpi"); spot != 1 || regular != 4 {
		t.Fatalf("mpi on %v: want its quorum and first extra on regular nodes, its last extra on the new spot node", nodesOf(t, ctx, env, "mpi"))
	}
	if spot, _ := onSpot(t, ctx, env, "plain"); spot != 0 {
		t.Fatalf("plain on %v: on a spot node without opting in", nodesOf(t, ctx, env, "plain"))
	}
}

// TestRequiredDomainRulesSpotOut: an opted-in elastic gang confined to one
// placement group has its quorum on the regular node of ppg-a; the free
// spot node is in another placement group (a scale set is spot or regular),
// so its member above min stays off it, saying the required domain rules
// spot out, and stays held from scale-up: spot nodes bought for it could
// not join its domain.
func TestRequiredDomainRulesSpotOut(t *testing.T) {
	ctx, env := controlPlane(t)
	startScheduler(t, ctx, env, controlplane.GangArgs{BackoffSeconds: 1})
	if err := controlplane.CreateNode(ctx, env.Client, controlplane.GPUNode("gpu-0", 8, topology.PlacementGroupLabel, "ppg-a")); err != nil {
		t.Fatal(err)
	}
	spot := spotNode("spot-0", 8)
	spot.Labels[topology.PlacementGroupLabel] = "ppg-spot"
	if err := controlplane.CreateNode(ctx, env.Client, spot); err != nil {
		t.Fatal(err)
	}
	members := tolerantMembers("confined", 2, 8, 1, 2, "true")
	for i := range members {
		members[i].Annotations[topology.RequiredLevelAnnotation] = "placement-group"
	}
	if err := controlplane.CreatePods(ctx, env.Client, members...); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.GroupLabel, "confined", 1)
	if nodes := nodesOf(t, ctx, env, "confined"); len(nodes) != 1 || nodes[0] != "gpu-0" {
		t.Fatalf("confined gang on %v, want its quorum on gpu-0", nodes)
	}
	pods, err := env.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: controlplane.Selector(gang.GroupLabel, "confined")})
	if err != nil {
		t.Fatal(err)
	}
	held := provisioning.HoldName(gang.Key{Namespace: ns, Name: "confined"})
	for _, p := range pods.Items {
		if p.Spec.NodeName != "" {
			continue
		}
		waitPod(t, ctx, env, p.Name, "kept off the spot node for its required domain, and held", func(p *v1.Pod) bool {
			c := scheduledCondition(p)
			return c != nil && strings.Contains(c.Message, "rules spot out") && p.Annotations[autoscalingv1.ConsumeAnnotation] == held
		})
	}
}

// TestSpotExtrasGoOnceTheQuorumIsProvisioned: a gang that puts its extras
// on spot (four 8-GPU workers and a launcher, min 3) and has no GPU node
// asks for its quorum's two workers. Until the autoscaler answers, every
// worker consumes the request; once it provisioned the quorum's nodes, the
// two newest workers are left to the ordinary scale-up (spot nodes for
// them boot while the quorum's do), and the others go on consuming it.
// When the nodes come the gang binds whole: quorum on the provisioned
// regular nodes, extras on spot.
func TestSpotExtrasGoOnceTheQuorumIsProvisioned(t *testing.T) {
	ctx, env := controlPlane(t)
	sched := startScheduler(t, ctx, env, controlplane.GangArgs{BackoffSeconds: 1})
	if err := controlplane.CreateNode(ctx, env.Client, controlplane.GPUNode("cpu-0", 0)); err != nil {
		t.Fatal(err)
	}
	ft := tolerantMembers("ft", 5, 8, 3, 5, "true")
	ft[4].GPUs = 0 // the launcher
	if err := controlplane.CreatePods(ctx, env.Client, ft...); err != nil {
		t.Fatal(err)
	}
	pr := waitProvReqs(t, ctx, env, "ft", "for the quorum's two workers", oneRequestFor(2))[0]
	marks := func(want map[string]string) func() (bool, error) {
		return func() (bool, error) {
			for name, mark := range want {
				p, err := env.Client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return false, err
				}
				if got := p.Annotations[autoscalingv1.ConsumeAnnotation]; got != mark {
					return false, fmt.Errorf("%s consumes %q, want %q", name, got, mark)
				}
			}
			return true, nil
		}
	}
	settles(t, ctx, env, sched, "every worker consumes the unanswered request",
		marks(map[string]string{"ft-0": pr.Name, "ft-1": pr.Name, "ft-2": pr.Name, "ft-3": pr.Name}))

	setProvisioned(t, ctx, env, pr.Name, "gpu pool adding 2 nodes", "ft-n0", "ft-n1")
	settles(t, ctx, env, sched, "the two workers beyond the quorum left to the ordinary scale-up",
		marks(map[string]string{"ft-0": pr.Name, "ft-1": pr.Name, "ft-2": "", "ft-3": ""}))

	for _, n := range []string{"ft-n0", "ft-n1"} {
		if err := controlplane.CreateNode(ctx, env.Client, bookedGPUNode(n)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 2 {
		if err := controlplane.CreateNode(ctx, env.Client, spotNode(fmt.Sprintf("spot-%d", i), 8)); err != nil {
			t.Fatal(err)
		}
	}
	waitBound(t, env, gang.GroupLabel, "ft", 5)
	if spot, _ := onSpot(t, ctx, env, "ft"); spot != 2 {
		t.Fatalf("ft on %v: want its quorum on the provisioned nodes and cpu-0, its two extras on spot", nodesOf(t, ctx, env, "ft"))
	}
}
