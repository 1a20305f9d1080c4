// Integration tests of mixed gangs (a CPU launcher, GPU workers): bound on exactly enough nodes, requests for each short shape only, starving gangs keeping their GPU room.

package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	autoscalingv1 "github.com/muster-project/muster/pkg/apis/autoscaling/v1"
	"github.com/muster-project/muster/pkg/controlplane"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/provisioning"
	"github.com/muster-project/muster/pkg/topology"
)

// mpiJob returns an MPIJob's pods as a PodGroup's members: a launcher
// asking for 2 CPUs and no GPU, and workers of 8 GPUs each.
func mpiJob(name string, workers int) (launcher *v1.Pod, pods []*v1.Pod) {
	launcher = controlplane.Member{Namespace: ns, Name: name + "-launcher", Labels: map[string]string{gang.PodGroupLabel: name}}.Pod()
	launcher.Spec.Containers[0].Resources.Requests[v1.ResourceCPU] = resource.MustParse("2")
	for _, m := range controlplane.PodGroupMembers(ns, name+"-worker", workers, 8) {
		m.Labels = map[string]string{gang.PodGroupLabel: name}
		pods = append(pods, m.Pod())
	}
	return launcher, pods
}

func createPods(t *testing.T, ctx context.Context, env *controlplane.Env, pods ...*v1.Pod) {
	t.Helper()
	for _, p := range pods {
		if _, err := env.Client.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// cpuNode is a node without GPUs, labelled as the CPU pool.
func cpuNode(name string) *v1.Node {
	n := controlplane.GPUNode(name, 0, "pool", "cpu")
	delete(n.Status.Capacity, controlplane.GPU)
	delete(n.Status.Allocatable, controlplane.GPU)
	return n
}

// A launcher plus eight 8-GPU workers (minMember 9) binds on exactly eight
// free 8-GPU nodes and a CPU node, whichever members are created first.
func TestMixedGangBindsOnExactlyEnoughNodes(t *testing.T) {
	for _, order := range []string{"launcher first", "workers first"} {
		t.Run(order, func(t *testing.T) {
			ctx, env, _ := setup(t, controlplane.GangArgs{BackoffSeconds: 1})
			if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 8, 8); err != nil {
				t.Fatal(err)
			}
			if err := controlplane.CreateNode(ctx, env.Client, cpuNode("cpu-0")); err != nil {
				t.Fatal(err)
			}
			createPodGroup(t, env, 9, 0, 0, "mpi")
			launcher, workers := mpiJob("mpi", 8)
			if order == "launcher first" {
				createPods(t, ctx, env, launcher)
				time.Sleep(200 * time.Millisecond)
				createPods(t, ctx, env, workers...)
			} else {
				createPods(t, ctx, env, workers...)
				time.Sleep(200 * time.Millisecond)
				createPods(t, ctx, env, launcher)
			}
			waitBound(t, env, gang.PodGroupLabel, "mpi", 9)
			gpuNodes := map[string]bool{}
			for _, w := range workers {
				p := waitPod(t, ctx, env, w.Name, "bound", func(p *v1.Pod) bool { return p.Spec.NodeName != "" })
				if gpuNodes[p.Spec.NodeName] {
					t.Errorf("two workers on %s", p.Spec.NodeName)
				}
				gpuNodes[p.Spec.NodeName] = true
			}
			if prs := provReqs(t, ctx, env); len(prs) != 0 {
				t.Errorf("a gang that fits asked the autoscaler for capacity: %v", prs)
			}
		})
	}
}

// An elastic MPIJob-style gang (minMember 3: two of its four 8-GPU workers
// and its launcher) on two free 8-GPU nodes and a CPU node binds its
// quorum, its workers created first: the queue tries a third worker after
// two hold reservations, and that worker's finding no node must not fail
// the attempt while the launcher completes the quorum. It failed it, every
// attempt, and the gang waited for nodes it did not need (the spot trace's
// ft-a: 20 minutes after the room it needed existed).
func TestMixedGangQuorumNotFailedByAWorkerBeyondIt(t *testing.T) {
	ctx, env, sched := setup(t, controlplane.GangArgs{BackoffSeconds: 1})
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 2, 8); err != nil {
		t.Fatal(err)
	}
	if err := controlplane.CreateNode(ctx, env.Client, cpuNode("cpu-0")); err != nil {
		t.Fatal(err)
	}
	createPodGroup(t, env, 3, 5, 0, "mpi")
	launcher, workers := mpiJob("mpi", 4)
	createPods(t, ctx, env, append(workers, launcher)...)
	waitBound(t, env, gang.PodGroupLabel, "mpi", 3)
	waitPod(t, ctx, env, launcher.Name, "bound", func(p *v1.Pod) bool { return p.Spec.NodeName != "" })
	settledBound(t, ctx, env, sched, gang.PodGroupLabel, "mpi", 3)
	evs, err := env.Client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs.Items {
		if strings.Contains(e.Message, "could not place its quorum") {
			t.Errorf("an attempt failed on the way: %s %s: %s", e.InvolvedObject.Name, e.Reason, e.Message)
		}
	}
}

// One GPU node short: the gang binds nothing, asks for exactly one 8-GPU
// node (not one for the launcher, which has room), and binds once it comes.
func TestMixedGangOneNodeShortThenAdded(t *testing.T) {
	ctx, env, sched := setup(t, controlplane.GangArgs{BackoffSeconds: 1})
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 7, 8); err != nil {
		t.Fatal(err)
	}
	if err := controlplane.CreateNode(ctx, env.Client, cpuNode("cpu-0")); err != nil {
		t.Fatal(err)
	}
	createPodGroup(t, env, 9, 0, 0, "mpi")
	launcher, workers := mpiJob("mpi", 8)
	createPods(t, ctx, env, append(workers, launcher)...)
	waitCondition(t, ctx, env, "mpi", gang.ReasonUnschedulable, "room for 8 members, none for 1 x 8 GPUs")
	prs := waitProvReqs(t, ctx, env, "mpi", "for one 8-GPU worker", oneRequestFor(1))
	tmpl, err := env.Client.CoreV1().PodTemplates(ns).Get(ctx, prs[0].Spec.PodSets[0].PodTemplateRef.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if q := tmpl.Template.Spec.Containers[0].Resources.Requests[controlplane.GPU]; q.Value() != 8 {
		t.Errorf("template asks for %s GPUs, want a worker's 8", q.String())
	}
	settledBound(t, ctx, env, sched, gang.PodGroupLabel, "mpi", 0)

	if err := controlplane.CreateNodes(ctx, env.Client, "new", 1, 8); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.PodGroupLabel, "mpi", 9)
	waitProvReqs(t, ctx, env, "mpi", "deleted once placed", noRequest)
}

// A mixed gang short of two GPU shapes and its launcher gets one request
// with a PodSet per short GPU shape, each for exactly what is short. The
// launcher is left to the autoscaler's ordinary scale-up (no consume
// annotation) once the autoscaler answers the request: an atomic request
// adds all its nodes to one pool, and a launcher does not fit a GPU pool's
// nodes.
func TestMixedGangRequestListsEachShortShape(t *testing.T) {
	ctx, env, _ := setup(t, controlplane.GangArgs{BackoffSeconds: 1})
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 5, 8); err != nil {
		t.Fatal(err)
	}
	createPodGroup(t, env, 8, 0, 0, "mpi")
	launcher, workers := mpiJob("mpi", 6)
	launcher.Spec.NodeSelector = map[string]string{"pool": "cpu"}
	evaluator := controlplane.Member{Namespace: ns, Name: "mpi-evaluator", GPUs: 4, Labels: map[string]string{gang.PodGroupLabel: "mpi"}}.Pod()
	createPods(t, ctx, env, append(workers, evaluator, launcher)...)
	prs := waitProvReqs(t, ctx, env, "mpi", "with two PodSets", func(prs []autoscalingv1.ProvisioningRequest) bool {
		return len(prs) == 1 && len(prs[0].Spec.PodSets) == 2
	})
	got := map[string]int32{}
	for _, ps := range prs[0].Spec.PodSets {
		tmpl, err := env.Client.CoreV1().PodTemplates(ns).Get(ctx, ps.PodTemplateRef.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		q := tmpl.Template.Spec.Containers[0].Resources.Requests[controlplane.GPU]
		got[fmt.Sprintf("gpus=%d", q.Value())] = ps.Count
	}
	if want := map[string]int32{"gpus=8": 1, "gpus=4": 1}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("PodSets %v, want %v", got, want)
	}
	waitExtraCondition(t, ctx, env, "mpi", provisioning.ConditionCapacity, provisioning.ReasonRequested, "short 1 pods x 8 GPUs + 1 pods x 4 GPUs")
	waitPod(t, ctx, env, "mpi-worker-0", "consume annotation", func(p *v1.Pod) bool {
		return p.Annotations[autoscalingv1.ConsumeAnnotation] == prs[0].Name
	})
	// The launcher is held out of one-by-one scale-up until the autoscaler
	// answers the workers' request, then left to it, even while no pool can
	// add the workers' nodes now: room may free for them, and then their
	// GPUs should not wait for a CPU node bought only after.
	held := provisioning.HoldName(gang.Key{Namespace: ns, Name: "mpi"})
	waitPod(t, ctx, env, "mpi-launcher", "held until the request is answered", func(p *v1.Pod) bool {
		return p.Annotations[autoscalingv1.ConsumeAnnotation] == held
	})
	setProvReqCondition(t, ctx, env, prs[0].Name, metav1.Condition{Type: autoscalingv1.Provisioned, Status: metav1.ConditionFalse,
		Reason: autoscalingv1.CapacityIsNotFound, Message: "gpu-heavy: max node group size reached"})
	waitPod(t, ctx, env, "mpi-launcher", "left to the ordinary scale-up once the request is answered", func(p *v1.Pod) bool {
		_, marked := p.Annotations[autoscalingv1.ConsumeAnnotation]
		return !marked
	})
	setProvisioned(t, ctx, env, prs[0].Name, "gpu-heavy pool adding 2 nodes")
	waitPod(t, ctx, env, "mpi-worker-0", "still consuming the request once provisioned", func(p *v1.Pod) bool {
		return p.Annotations[autoscalingv1.ConsumeAnnotation] == prs[0].Name
	})

	if err := controlplane.CreateNodes(ctx, env.Client, "new", 2, 8); err != nil {
		t.Fatal(err)
	}
	if err := controlplane.CreateNode(ctx, env.Client, cpuNode("cpu-0")); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.PodGroupLabel, "mpi", 8)
	waitProvReqs(t, ctx, env, "mpi", "deleted once placed", noRequest)
	// The writer deletes the request, then its templates.
	left := -1
	_ = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		templates, err := env.Client.CoreV1().PodTemplates(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		left = len(templates.Items)
		return left == 0, nil
	})
	if left != 0 {
		t.Errorf("%d PodTemplates outlived their request", left)
	}
}

// A mixed gang that requires one placement group, on a cluster whose only
// placement group has nodes too small for its workers: the launcher fits
// anywhere, which is no reason to pin the request to that placement group
// (whose pool could never hold a worker). The request asks for the workers
// and pins no domain. In simulate such a request failed for good.
func TestMixedGangRequestPinsNoDomainForItsLauncher(t *testing.T) {
	ctx, env, _ := setup(t, controlplane.GangArgs{BackoffSeconds: 1})
	if err := controlplane.CreateNode(ctx, env.Client, controlplane.GPUNode("light-0", 1, topology.PlacementGroupLabel, "light")); err != nil {
		t.Fatal(err)
	}
	if err := controlplane.CreateNode(ctx, env.Client, cpuNode("cpu-0")); err != nil {
		t.Fatal(err)
	}
	members := controlplane.LabelMembers(ns, "mpi", 3, 8, 3, 3)
	members[2].Name, members[2].GPUs = "mpi-launcher", 0
	for i := range members {
		members[i].Annotations[topology.RequiredLevelAnnotation] = "placement-group"
	}
	if err := controlplane.CreatePods(ctx, env.Client, members...); err != nil {
		t.Fatal(err)
	}
	pr := waitProvReqs(t, ctx, env, "mpi", "for the 2 workers", oneRequestFor(2))[0]
	tmpl, err := env.Client.CoreV1().PodTemplates(ns).Get(ctx, pr.Spec.PodSets[0].PodTemplateRef.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a := tmpl.Template.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			for _, e := range term.MatchExpressions {
				if e.Key == topology.PlacementGroupLabel {
					t.Fatalf("the request pins placement group %v, whose nodes hold no worker", e.Values)
				}
			}
		}
	}
}

// A launcher with no CPU node to run on does not make its gang larger than
// the cluster: the autoscaler adds a CPU node for it once the GPUs come. So
// once the gang has waited past the starvation bound (0 here), GPU room that
// frees up is kept for it, not taken by a younger gang. Without this such a
// gang held nothing and could wait for ever (found by make chaos, seeds 4
// and 5, where the CPU pool had scaled to zero).
func TestStarvingMixedGangHoldsGPURoomWithoutACPUNode(t *testing.T) {
	ctx, env, sched := setup(t, controlplane.GangArgs{BackoffSeconds: 1, StarvationBoundSeconds: new(int64)})
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 3, 8); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"gpu-0", "gpu-1", "gpu-2"} {
		holdGPUs(t, ctx, env, n, 8)
	}
	createPodGroup(t, env, 3, 0, 0, "mpi")
	launcher, workers := mpiJob("mpi", 2)
	launcher.Spec.NodeSelector = map[string]string{"pool": "cpu"}
	createPods(t, ctx, env, append(workers, launcher)...)
	waitPod(t, ctx, env, "mpi-launcher", "Unschedulable", hasScheduledReason(v1.PodReasonUnschedulable, "gang team-a/mpi"))
	time.Sleep(1100 * time.Millisecond) // creation timestamps have second resolution
	topoGang(t, ctx, env, "young", 1, 8, 1, 1)
	waitPod(t, ctx, env, "young-0", "Unschedulable", hasScheduledReason(v1.PodReasonUnschedulable, ""))

	free := func(node string) { t.Helper(); unholdGPUs(t, ctx, env, 8, node) }
	free("gpu-0")
	waitPod(t, ctx, env, "young-0", "refused gpu-0, held for mpi", heldFor())
	caughtUp(t, ctx, env, sched)
	boundNow(t, env, gang.GroupLabel, "young", 0)

	free("gpu-1")
	if err := controlplane.CreateNode(ctx, env.Client, cpuNode("cpu-0")); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.PodGroupLabel, "mpi", 3)
	free("gpu-2")
	waitBound(t, env, gang.GroupLabel, "young", 1)
}

// A mixed gang whose GPU room frees up while it waits for new GPU nodes:
// its request is withdrawn (the workers fit). The launcher, held out of
// the autoscaler's one-by-one scale-up while the request was pending, is
// left to it again, so a CPU node is bought for it. The workers consume
// the gang's in-room name, which no request has: Muster's autoscaler
// counts them into the room they fit in, and no autoscaler buys nodes for
// them one by one. Held, the launcher had nothing to ask for its node, the
// workers' room counted for nothing and was scaled down, and the gang
// waited for ever while younger gangs took its GPUs (found by make chaos,
// seed 5, with the CPU pool at zero). Left unmarked, the workers had their
// nodes bought one by one when another gang took their room first (make
// simulate --random 1 --seed 9).
func TestFittingGangConsumesItsInRoomName(t *testing.T) {
	ctx, env, _ := setup(t, controlplane.GangArgs{BackoffSeconds: 1})
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 2, 8); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"gpu-0", "gpu-1"} {
		holdGPUs(t, ctx, env, n, 8)
	}
	createPodGroup(t, env, 3, 0, 0, "mpi")
	launcher, workers := mpiJob("mpi", 2)
	launcher.Spec.NodeSelector = map[string]string{"pool": "cpu"}
	createPods(t, ctx, env, append(workers, launcher)...)
	waitProvReqs(t, ctx, env, "mpi", "for the 2 workers", oneRequestFor(2))
	held := provisioning.HoldName(gang.Key{Namespace: ns, Name: "mpi"})
	waitPod(t, ctx, env, "mpi-launcher", "held while the workers' request is pending", func(p *v1.Pod) bool {
		return p.Annotations[autoscalingv1.ConsumeAnnotation] == held
	})

	unholdGPUs(t, ctx, env, 8, "gpu-0", "gpu-1")
	waitProvReqs(t, ctx, env, "mpi", "withdrawn once the workers fit", noRequest)
	inRoom := provisioning.InRoomName(gang.Key{Namespace: ns, Name: "mpi"})
	for _, p := range workers {
		waitPod(t, ctx, env, p.Name, "consumes the in-room name once the workers fit", func(p *v1.Pod) bool {
			return p.Annotations[autoscalingv1.ConsumeAnnotation] == inRoom
		})
	}
	waitPod(t, ctx, env, launcher.Name, "no consume mark once the workers fit", func(p *v1.Pod) bool {
		_, marked := p.Annotations[autoscalingv1.ConsumeAnnotation]
		return !marked
	})
	if err := controlplane.CreateNode(ctx, env.Client, cpuNode("cpu-0")); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.PodGroupLabel, "mpi", 3)
}

// The chaos run's seed 5 in small: an MPI-style gang (launcher + six 8-GPU
// workers) that requires one placement group waits, past the starvation
// bound, for GPUs and for a CPU node. A younger elastic gang that requires
// nothing takes none of the GPUs freed in the placement group, whether they
// are fewer than the older gang needs or all of it, and the older gang binds
// once its CPU node comes.
func TestStarvingMixedGangInARequiredDomainKeepsItsGPUs(t *testing.T) {
	ctx, env, sched := setup(t, controlplane.GangArgs{BackoffSeconds: 1, StarvationBoundSeconds: new(int64)})
	var gpuNodes []string
	for i := range 6 {
		name := fmt.Sprintf("pg-a-%d", i)
		if err := controlplane.CreateNode(ctx, env.Client, controlplane.GPUNode(name, 8, topology.PlacementGroupLabel, "pg-a")); err != nil {
			t.Fatal(err)
		}
		holdGPUs(t, ctx, env, name, 8)
		gpuNodes = append(gpuNodes, name)
	}
	members := controlplane.LabelMembers(ns, "mpi", 7, 8, 7, 7)
	members[6].Name, members[6].GPUs = "mpi-launcher", 0
	for i := range members {
		members[i].Annotations[topology.RequiredLevelAnnotation] = "placement-group"
	}
	pods := make([]*v1.Pod, len(members))
	for i := range members {
		pods[i] = members[i].Pod()
	}
	pods[6].Spec.NodeSelector = map[string]string{"pool": "cpu"}
	pods[6].Spec.Containers[0].Resources.Requests[v1.ResourceCPU] = resource.MustParse("2")
	createPods(t, ctx, env, pods...)
	waitPod(t, ctx, env, "mpi-launcher", "Unschedulable", hasScheduledReason(v1.PodReasonUnschedulable, "gang team-a/mpi"))
	time.Sleep(1100 * time.Millisecond) // creation timestamps have second resolution
	topoGang(t, ctx, env, "young", 6, 8, 3, 6)
	waitPod(t, ctx, env, "young-0", "Unschedulable", hasScheduledReason(v1.PodReasonUnschedulable, ""))

	// Half of mpi's GPUs free: young, tried at once (no node was free
	// before), is refused them; then nothing is left to try.
	unholdGPUs(t, ctx, env, 8, gpuNodes[:3]...)
	waitPod(t, ctx, env, "young-0", "refused the freed GPUs, held for mpi", heldFor())
	caughtUp(t, ctx, env, sched)
	boundNow(t, env, gang.GroupLabel, "young", 0)
	// All of them: once the scheduler has seen them go and tried what it
	// would, young still holds none.
	unholdGPUs(t, ctx, env, 8, gpuNodes[3:]...)
	caughtUp(t, ctx, env, sched)
	boundNow(t, env, gang.GroupLabel, "young", 0)

	if err := controlplane.CreateNode(ctx, env.Client, cpuNode("cpu-0")); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.GroupLabel, "mpi", 7)
}
