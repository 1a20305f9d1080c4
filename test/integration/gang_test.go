// Integration tests of gangs: the quorum gate, all or nothing, competing gangs, elastic gangs up to max, timeouts, queue order, members lost; helpers counting bound members.

package integration

import (
	"context"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/muster-project/muster/pkg/controlplane"
	"github.com/muster-project/muster/pkg/gang"
)

func createPodGroup(t *testing.T, env *controlplane.Env, min, max, timeout int32, name string) {
	t.Helper()
	if _, err := env.PodGroups.SchedulingV1alpha1().PodGroups(ns).Create(t.Context(), controlplane.PodGroup(ns, name, min, max, timeout), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func boundCount(t *testing.T, env *controlplane.Env, label, value string) func() (int, error) {
	return func() (int, error) {
		return controlplane.Bound(t.Context(), env.Client, ns, controlplane.Selector(label, value))
	}
}

func waitBound(t *testing.T, env *controlplane.Env, label, value string, want int) {
	t.Helper()
	if err := controlplane.WaitBound(t.Context(), env.Client, ns, controlplane.Selector(label, value), want, 30*time.Second); err != nil {
		pods, _ := env.Client.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{LabelSelector: controlplane.Selector(label, value)})
		for _, p := range pods.Items {
			t.Logf("pod %s node %q conditions %+v", p.Name, p.Spec.NodeName, p.Status.Conditions)
		}
		t.Fatal(err)
	}
}

// boundNow fails the test unless want of the pods with label=value are bound.
func boundNow(t *testing.T, env *controlplane.Env, label, value string, want int) {
	t.Helper()
	n, err := boundCount(t, env, label, value)()
	if err != nil {
		t.Fatal(err)
	}
	if n != want {
		t.Fatalf("%d pods of %s bound, want %d", n, value, want)
	}
}

// settledBound waits until the scheduler has caught up with the API server
// and holds nothing in hand (caughtUp), then requires want pods of the gang
// bound: whatever the scheduler was to do with the cluster as it stands, it
// has done, so the verdict does not hang on how long the test looks.
func settledBound(t *testing.T, ctx context.Context, env *controlplane.Env, sched *controlplane.Scheduler, label, value string, want int) {
	t.Helper()
	caughtUp(t, ctx, env, sched)
	boundNow(t, env, label, value, want)
}

// Members wait gated, not Unschedulable, until min of them exist; then all bind.
func TestQuorumGate(t *testing.T) {
	ctx, env, sched := setup(t, controlplane.GangArgs{})
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 4, 8); err != nil {
		t.Fatal(err)
	}
	createPodGroup(t, env, 4, 0, 0, "train")
	members := controlplane.PodGroupMembers(ns, "train", 4, 8)
	if err := controlplane.CreatePods(ctx, env.Client, members[:3]...); err != nil {
		t.Fatal(err)
	}
	p := waitPod(t, ctx, env, "train-0", "gated condition", hasScheduledReason(v1.PodReasonSchedulingGated, "fewer than 4 members exist"))
	if c := scheduledCondition(p); c.Reason == v1.PodReasonUnschedulable {
		t.Fatalf("gated member reported Unschedulable: %+v", c)
	}
	waitCondition(t, ctx, env, "train", gang.ReasonAwaitingQuorum, "3 of 4 members exist")
	settledBound(t, ctx, env, sched, gang.PodGroupLabel, "train", 0)

	if err := controlplane.CreatePods(ctx, env.Client, members[3]); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.PodGroupLabel, "train", 4)
	st := waitCondition(t, ctx, env, "train", gang.ReasonAtMax, "4 of max 4")
	if st["scheduled"] != int64(4) || st["phase"] != gang.PhaseScheduling {
		t.Errorf("status = %v, want scheduled 4, phase Scheduling", st)
	}
	waitEvent(t, ctx, env, "PodGroup", "train", gang.ReasonAtMax, "4 of max 4")
}

// A gang whose min does not fit binds nothing, says why once, and completes
// when a node is added.
func TestAllOrNothing(t *testing.T) {
	ctx, env, sched := setup(t, controlplane.GangArgs{BackoffSeconds: 1})
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 2, 8); err != nil {
		t.Fatal(err)
	}
	createPodGroup(t, env, 3, 0, 0, "big")
	if err := controlplane.CreatePods(ctx, env.Client, controlplane.PodGroupMembers(ns, "big", 3, 8)...); err != nil {
		t.Fatal(err)
	}
	waitCondition(t, ctx, env, "big", gang.ReasonUnschedulable, "room for 2 members")
	for _, name := range []string{"big-0", "big-1", "big-2"} {
		waitPod(t, ctx, env, name, "Unschedulable with the gang's reason", hasScheduledReason(v1.PodReasonUnschedulable, "gang team-a/big"))
	}
	settledBound(t, ctx, env, sched, gang.PodGroupLabel, "big", 0)

	if err := controlplane.CreateNodes(ctx, env.Client, "more", 1, 8); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.PodGroupLabel, "big", 3)
}

// Two gangs that each need most of the cluster: one completes, the other
// binds nothing and completes once the first is gone.
func TestCompetingGangsDoNotDeadlock(t *testing.T) {
	ctx, env, sched := setup(t, controlplane.GangArgs{BackoffSeconds: 1})
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 4, 8); err != nil {
		t.Fatal(err)
	}
	createPodGroup(t, env, 3, 0, 0, "a")
	createPodGroup(t, env, 3, 0, 0, "b")
	a, b := controlplane.PodGroupMembers(ns, "a", 3, 8), controlplane.PodGroupMembers(ns, "b", 3, 8)
	// Interleave creation so neither gang arrives whole first.
	for i := range a {
		if err := controlplane.CreatePods(ctx, env.Client, b[i], a[i]); err != nil {
			t.Fatal(err)
		}
	}
	countA, countB := boundCount(t, env, gang.PodGroupLabel, "a"), boundCount(t, env, gang.PodGroupLabel, "b")
	var winner, loser string
	deadline := time.Now().Add(30 * time.Second)
	for winner == "" && time.Now().Before(deadline) {
		na, _ := countA()
		nb, _ := countB()
		switch {
		case na == 3:
			winner, loser = "a", "b"
		case nb == 3:
			winner, loser = "b", "a"
		}
		time.Sleep(50 * time.Millisecond)
	}
	if winner == "" {
		t.Fatal("neither gang completed: deadlock")
	}
	settledBound(t, ctx, env, sched, gang.PodGroupLabel, loser, 0)
	if err := env.Client.CoreV1().Pods(ns).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: new(int64)},
		metav1.ListOptions{LabelSelector: controlplane.Selector(gang.PodGroupLabel, winner)}); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.PodGroupLabel, loser, 3)
}

// An elastic gang places up to max; members beyond wait gated with a reason,
// and one moves in when a placed member leaves.
func TestElasticUpToMax(t *testing.T) {
	ctx, env, sched := setup(t, controlplane.GangArgs{})
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 8, 8); err != nil {
		t.Fatal(err)
	}
	members := controlplane.LabelMembers(ns, "elastic", 6, 8, 2, 4)
	if err := controlplane.CreatePods(ctx, env.Client, members...); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.GroupLabel, "elastic", 4)
	settledBound(t, ctx, env, sched, gang.GroupLabel, "elastic", 4)
	pods, err := env.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: controlplane.Selector(gang.GroupLabel, "elastic")})
	if err != nil {
		t.Fatal(err)
	}
	var boundName string
	for _, p := range pods.Items {
		if p.Spec.NodeName != "" {
			boundName = p.Name
			continue
		}
		waitPod(t, ctx, env, p.Name, "at-max gate", hasScheduledReason(v1.PodReasonSchedulingGated, "at its max: 4 of 4"))
	}
	if err := env.Client.CoreV1().Pods(ns).Delete(ctx, boundName, metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.GroupLabel, "elastic", 4)
}

// A gang of min 1 grows to max at once: its members wait behind the lead
// at the gate until the lead is bound (its Permit completes the quorum
// alone and brings no one in), and the bind wakes them; no queue flush
// is needed (the test waits 30 s, the flush comes after five minutes).
func TestElasticFromMinOneGrowsOnTheLeadsBind(t *testing.T) {
	ctx, env, _ := setup(t, controlplane.GangArgs{})
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 4, 8); err != nil {
		t.Fatal(err)
	}
	if err := controlplane.CreatePods(ctx, env.Client, controlplane.LabelMembers(ns, "grow", 3, 8, 1, 3)...); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.GroupLabel, "grow", 3)
}

// Members that hold reservations past the gang's timeout release them and back off.
func TestTimeoutReleasesReservations(t *testing.T) {
	ctx, env, sched := setup(t, controlplane.GangArgs{BackoffSeconds: 1})
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 4, 8); err != nil {
		t.Fatal(err)
	}
	createPodGroup(t, env, 3, 0, 2, "slow")
	members := controlplane.PodGroupMembers(ns, "slow", 3, 8)
	members[2].Gated = true // exists (quorum met) but cannot be scheduled yet
	if err := controlplane.CreatePods(ctx, env.Client, members...); err != nil {
		t.Fatal(err)
	}
	waitCondition(t, ctx, env, "slow", gang.ReasonUnschedulable, "within its 2s timeout")
	settledBound(t, ctx, env, sched, gang.PodGroupLabel, "slow", 0)

	// Lift the gate: the gang completes.
	ungate(t, ctx, env, "slow-2")
	waitBound(t, env, gang.PodGroupLabel, "slow", 3)
}

// Higher priority gangs go first; among equals, the older gang.
func TestQueueOrderPriorityThenAge(t *testing.T) {
	ctx, env, sched := setup(t, controlplane.GangArgs{BackoffSeconds: 60})
	sched.Stop() // queue everything first, then let one scheduler decide
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 2, 8); err != nil {
		t.Fatal(err)
	}
	old := controlplane.LabelMembers(ns, "old", 2, 8, 2, 2)
	young := controlplane.LabelMembers(ns, "young", 2, 8, 2, 2)
	urgent := controlplane.LabelMembers(ns, "urgent", 2, 8, 2, 2)
	if err := controlplane.CreatePriorityClass(ctx, env.Client, "urgent", 1000); err != nil {
		t.Fatal(err)
	}
	for i := range urgent {
		urgent[i].PriorityClass = "urgent"
	}
	if err := controlplane.CreatePods(ctx, env.Client, old...); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond) // creation timestamps have second resolution
	if err := controlplane.CreatePods(ctx, env.Client, append(young, urgent...)...); err != nil {
		t.Fatal(err)
	}
	second := startScheduler(t, ctx, env, controlplane.GangArgs{BackoffSeconds: 60})
	waitBound(t, env, gang.GroupLabel, "urgent", 2)
	settledBound(t, ctx, env, second, gang.GroupLabel, "old", 0)

	// Free the room while no scheduler runs, so that old and young are queued
	// side by side again (retries after a failure follow the framework's
	// per-pod backoff, which would decide instead of the queue order).
	second.Stop()
	if err := env.Client.CoreV1().Pods(ns).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: new(int64)},
		metav1.ListOptions{LabelSelector: controlplane.Selector(gang.GroupLabel, "urgent")}); err != nil {
		t.Fatal(err)
	}
	if err := controlplane.WaitBound(ctx, env.Client, ns, controlplane.Selector(gang.GroupLabel, "urgent"), 0, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	third := startScheduler(t, ctx, env, controlplane.GangArgs{BackoffSeconds: 60})
	waitBound(t, env, gang.GroupLabel, "old", 2)
	settledBound(t, ctx, env, third, gang.GroupLabel, "young", 0)
}

// Losing placed members below min shows on the gang's status.
func TestMembersLostIsReported(t *testing.T) {
	ctx, env, _ := setup(t, controlplane.GangArgs{})
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 3, 8); err != nil {
		t.Fatal(err)
	}
	createPodGroup(t, env, 3, 0, 0, "job")
	if err := controlplane.CreatePods(ctx, env.Client, controlplane.PodGroupMembers(ns, "job", 3, 8)...); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.PodGroupLabel, "job", 3)
	waitCondition(t, ctx, env, "job", gang.ReasonAtMax, "3 of max 3")
	if err := env.Client.CoreV1().Pods(ns).Delete(ctx, "job-1", metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}
	st := waitCondition(t, ctx, env, "job", gang.ReasonMembersLost, "only 2 of min 3")
	if st["phase"] != gang.PhaseUnknown {
		t.Errorf("phase = %v, want %s", st["phase"], gang.PhaseUnknown)
	}
}
