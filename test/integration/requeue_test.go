// Integration test of requeueing: a pod leaving or a node coming retries a gang short of room through the member that leads its attempts, for MusterGang and MusterTopology.

package integration

import (
	"context"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
	"k8s.io/utils/clock"

	"github.com/muster-project/muster/pkg/controlplane"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/topology"
)

// countAttempts counts each pod's scheduling cycles, in PreFilter.
type countAttempts struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *countAttempts) Name() string { return "CountAttempts" }

func (c *countAttempts) PreFilter(_ context.Context, _ fwk.CycleState, pod *v1.Pod, _ []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	c.mu.Lock()
	c.n[pod.Name]++
	c.mu.Unlock()
	return nil, nil
}

func (c *countAttempts) PreFilterExtensions() fwk.PreFilterExtensions { return nil }

func (c *countAttempts) snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.n)
}

// of is how many scheduling cycles pod has had.
func (c *countAttempts) of(pod string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[pod]
}

// countingScheduler starts Muster's scheduler with args and CountAttempts
// before MusterGang's PreFilter, so a test can wait for a pod's next
// scheduling cycle instead of for time.
func countingScheduler(t *testing.T, ctx context.Context, env *controlplane.Env, args controlplane.GangArgs) (*controlplane.Scheduler, *countAttempts) {
	t.Helper()
	config := musterConfig(t, env, args)
	const preFilter = "preFilter:\n      enabled: [{name: MusterGang}"
	if !strings.Contains(config, preFilter) {
		t.Fatalf("the Muster configuration has no %q", preFilter)
	}
	config = strings.Replace(config, preFilter, "preFilter:\n      enabled: [{name: CountAttempts}, {name: MusterGang}", 1)
	counts := &countAttempts{n: map[string]int{}}
	sched, err := env.StartSchedulerOn(ctx, config, clock.RealClock{}, app.WithPlugin("CountAttempts", func(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) {
		return counts, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sched.Stop)
	return sched, counts
}

// attemptsAfter waits until pod has had n more scheduling cycles than
// before.
func attemptsAfter(t *testing.T, ctx context.Context, counts *countAttempts, pod string, before, n int) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 60*time.Second, true, func(context.Context) (bool, error) {
		return counts.of(pod) >= before+n, nil
	}); err != nil {
		t.Fatalf("%s had %d scheduling cycles, want %d more than %d", pod, counts.of(pod), n, before)
	}
}

// A pod leaving, or a node coming, retries a gang short of room through the
// member that leads its attempts alone, which brings the rest at Permit.
// Both gangs require a placement group, so MusterTopology rejects their
// members too, and its hint must requeue them as MusterGang's does (any
// rejecting plugin's Queue requeues a member). The gang that fits first
// mixes a CPU launcher with GPU workers; the other is larger than the
// cluster until a node comes.
func TestRoomFreedRequeuesGangLeads(t *testing.T) {
	ctx, env := controlPlane(t)
	// A long backoff: only cluster events retry a gang here.
	sched, counts := countingScheduler(t, ctx, env, controlplane.GangArgs{BackoffSeconds: 600})

	for _, n := range []string{"gpu-0", "gpu-1"} {
		if err := controlplane.CreateNode(ctx, env.Client, controlplane.GPUNode(n, 8, topology.PlacementGroupLabel, "ppg")); err != nil {
			t.Fatal(err)
		}
	}
	filler := controlplane.Member{Namespace: ns, Name: "filler", GPUs: 8, Labels: map[string]string{"app": "filler"}}
	if err := controlplane.CreatePods(ctx, env.Client, filler); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, "app", "filler", 1)

	required := func(members []controlplane.Member) []controlplane.Member {
		for i := range members {
			members[i].Annotations[topology.RequiredLevelAnnotation] = "placement-group"
		}
		return members
	}
	// mpi: a launcher and two 8-GPU workers, short of one node's room.
	mpi := required(controlplane.LabelMembers(ns, "mpi", 3, 8, 3, 3))
	mpi[0].Name, mpi[0].GPUs = "mpi-launcher", 0
	// moe: three 8-GPU workers in a cluster of two 8-GPU nodes.
	moe := required(controlplane.LabelMembers(ns, "moe", 3, 8, 3, 3))
	if err := controlplane.CreatePods(ctx, env.Client, append(mpi, moe...)...); err != nil {
		t.Fatal(err)
	}
	for _, m := range append(mpi, moe...) {
		waitPod(t, ctx, env, m.Name, "Unschedulable", hasScheduledReason(v1.PodReasonUnschedulable, ""))
	}
	caughtUp(t, ctx, env, sched)
	// Pods go at once, as a kubelet would confirm them gone.
	now := metav1.DeleteOptions{GracePeriodSeconds: new(int64)}
	before := counts.snapshot()
	if err := env.Client.CoreV1().Pods(ns).Delete(ctx, filler.Name, now); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.GroupLabel, "mpi", 3)
	caughtUp(t, ctx, env, sched)
	after := counts.snapshot()
	for _, m := range moe[1:] {
		if after[m.Name] != before[m.Name] {
			t.Errorf("a pod leaving retried %s %d times; only %s leads its gang's attempts", m.Name, after[m.Name]-before[m.Name], moe[0].Name)
		}
	}

	if err := controlplane.CreateNode(ctx, env.Client, controlplane.GPUNode("gpu-2", 8, topology.PlacementGroupLabel, "ppg")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for counts.snapshot()[moe[0].Name] == after[moe[0].Name] {
		if time.Now().After(deadline) {
			t.Fatalf("a node coming did not retry %s, which leads its gang's attempts", moe[0].Name)
		}
		time.Sleep(20 * time.Millisecond)
	}
	caughtUp(t, ctx, env, sched)
	again := counts.snapshot()
	for _, m := range moe[1:] {
		if again[m.Name] != after[m.Name] {
			t.Errorf("a node coming retried %s %d times; only %s leads the gang's attempts", m.Name, again[m.Name]-after[m.Name], moe[0].Name)
		}
	}

	// With mpi gone, moe fits the three nodes: its lead's attempt brings
	// the rest.
	for _, m := range mpi {
		if err := env.Client.CoreV1().Pods(ns).Delete(ctx, m.Name, now); err != nil {
			t.Fatal(err)
		}
	}
	waitBound(t, env, gang.GroupLabel, "moe", 3)
}
