// Integration tests of preemption: elastic gangs shed for older ones, lower priority preempted whole, provision or preempt, reservations released, quorums before elastic growth.

package integration

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	autoscalingv1 "github.com/muster-project/muster/pkg/apis/autoscaling/v1"
	"github.com/muster-project/muster/pkg/controlplane"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/provisioning"
)

// kubelet stands in for the kubelets: it finishes terminating pods, as a
// kubelet does once their containers stop, and records the DisruptionTarget
// condition each carried.
type kubelet struct {
	mu        sync.Mutex
	disrupted map[string]string // pod name -> DisruptionTarget message
}

func startKubelet(t *testing.T, ctx context.Context, env *controlplane.Env) *kubelet {
	k := &kubelet{disrupted: map[string]string{}}
	go func() {
		_ = wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			pods, err := env.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, nil
			}
			for _, p := range pods.Items {
				if p.DeletionTimestamp == nil {
					continue
				}
				said := false
				for _, c := range p.Status.Conditions {
					if c.Type == v1.DisruptionTarget && c.Status == v1.ConditionTrue {
						k.mu.Lock()
						k.disrupted[p.Name] = c.Message
						k.mu.Unlock()
						said = strings.HasPrefix(c.Message, "muster-scheduler:")
					}
				}
				if !said && time.Since(p.DeletionTimestamp.Add(-30*time.Second)) < 10*time.Second {
					continue // the scheduler says why right after evicting; give it a moment
				}
				_ = env.Client.CoreV1().Pods(ns).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)})
			}
			return false, nil
		})
	}()
	return k
}

func (k *kubelet) evicted() map[string]string {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := map[string]string{}
	for n, m := range k.disrupted {
		out[n] = m
	}
	return out
}

func createPodGroupWithPriority(t *testing.T, ctx context.Context, env *controlplane.Env, name string, min, max int32, n int, priorityClass string) {
	t.Helper()
	createPodGroup(t, env, min, max, 0, name)
	members := controlplane.PodGroupMembers(ns, name, n, 8)
	for i := range members {
		members[i].PriorityClass = priorityClass
	}
	if err := controlplane.CreatePods(ctx, env.Client, members...); err != nil {
		t.Fatal(err)
	}
}

// An elastic gang at max sheds members above its min, newest first, for an
// older rigid gang of the same priority; it keeps running at min.
func TestElasticGangShedsForOlderRigidGang(t *testing.T) {
	ctx, env, _ := setup(t, controlplane.GangArgs{BackoffSeconds: 1})
	k := startKubelet(t, ctx, env)
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 4, 8); err != nil {
		t.Fatal(err)
	}
	createPodGroup(t, env, 2, 0, 0, "rigid") // the older gang: its PodGroup came first
	time.Sleep(1100 * time.Millisecond)      // creation timestamps have second resolution
	createPodGroupWithPriority(t, ctx, env, "elastic", 2, 4, 4, "")
	waitBound(t, env, gang.PodGroupLabel, "elastic", 4)

	if err := controlplane.CreatePods(ctx, env.Client, controlplane.PodGroupMembers(ns, "rigid", 2, 8)...); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.PodGroupLabel, "rigid", 2)
	waitBound(t, env, gang.PodGroupLabel, "elastic", 2)
	evicted := k.evicted()
	if len(evicted) != 2 {
		t.Fatalf("evicted %v, want 2 of elastic's members", evicted)
	}
	for name, msg := range evicted {
		if name != "elastic-2" && name != "elastic-3" {
			t.Errorf("evicted %s; the newest members (elastic-2, elastic-3) go first", name)
		}
		if want := "muster-scheduler: shed 2 of 4 members for team-a/rigid (priority 0)"; msg != want {
			t.Errorf("%s DisruptionTarget %q, want %q", name, msg, want)
		}
	}
	waitExtraCondition(t, ctx, env, "elastic", gang.ConditionDisrupted, gang.ReasonShed, "shed 2 of 4 members for team-a/rigid (priority 0)")
	// The condition goes once rigid's quorum binds; the event stays.
	waitEvent(t, ctx, env, "PodGroup", "rigid", gang.ReasonMadeRoom, "shed 2 of 4 members of team-a/elastic")
	waitEvent(t, ctx, env, "PodGroup", "elastic", gang.ReasonShed, "shed 2 of 4 members for team-a/rigid")
}

// A younger gang of equal priority never sheds an older one's members.
func TestYoungerGangDoesNotShedOlder(t *testing.T) {
	ctx, env, sched := setup(t, controlplane.GangArgs{BackoffSeconds: 1})
	startKubelet(t, ctx, env)
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 4, 8); err != nil {
		t.Fatal(err)
	}
	createPodGroupWithPriority(t, ctx, env, "elastic", 2, 4, 4, "")
	waitBound(t, env, gang.PodGroupLabel, "elastic", 4)
	time.Sleep(1100 * time.Millisecond)
	createPodGroupWithPriority(t, ctx, env, "young", 2, 0, 2, "")
	waitCondition(t, ctx, env, "young", gang.ReasonUnschedulable, "room for 0 members")
	settledBound(t, ctx, env, sched, gang.PodGroupLabel, "elastic", 4)
}

// A higher-priority gang whose pods arrive after a lower-priority gang
// filled the cluster preempts it whole (ported from scheduler-plugins'
// coscheduling integration test, where it waited forever): never leaving
// the lower gang with fewer than min members bound.
func TestHigherPriorityGangPreemptsLowerWhole(t *testing.T) {
	ctx, env, _ := setup(t, controlplane.GangArgs{BackoffSeconds: 1, Preemption: "[{minPriority: 0, policy: LowerPriority, maxWaitForNodesSeconds: 0}]"})
	k := startKubelet(t, ctx, env)
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 4, 8); err != nil {
		t.Fatal(err)
	}
	if err := controlplane.CreatePriorityClass(ctx, env.Client, "high", 1000); err != nil {
		t.Fatal(err)
	}
	createPodGroupWithPriority(t, ctx, env, "low", 3, 0, 3, "")
	waitBound(t, env, gang.PodGroupLabel, "low", 3)
	createPodGroupWithPriority(t, ctx, env, "high", 3, 0, 3, "high")
	waitBound(t, env, gang.PodGroupLabel, "high", 3)
	waitBound(t, env, gang.PodGroupLabel, "low", 0)
	if n := len(k.evicted()); n != 3 {
		t.Errorf("%d of low's members evicted, want all 3", n)
	}
	waitExtraCondition(t, ctx, env, "low", gang.ConditionDisrupted, gang.ReasonPreempted, "preempted all 3 members for team-a/high (priority 1000)")
}

// Provision or preempt: while new nodes could serve the gang and it has
// waited less than maxWaitForNodesSeconds, it asks for nodes and preempts
// nothing; with policy Never it never preempts.
func TestProvisionOrPreempt(t *testing.T) {
	for _, tc := range []struct {
		name, rules string
	}{
		{name: "waits for new nodes", rules: "[{minPriority: 0, policy: LowerPriority, maxWaitForNodesSeconds: 600}]"},
		{name: "policy Never", rules: "[{minPriority: 0, policy: Never}]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, env, sched := setup(t, controlplane.GangArgs{BackoffSeconds: 1, Preemption: tc.rules})
			k := startKubelet(t, ctx, env)
			if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 4, 8); err != nil {
				t.Fatal(err)
			}
			if err := controlplane.CreatePriorityClass(ctx, env.Client, "high", 1000); err != nil {
				t.Fatal(err)
			}
			createPodGroupWithPriority(t, ctx, env, "low", 3, 0, 3, "")
			waitBound(t, env, gang.PodGroupLabel, "low", 3)
			createPodGroupWithPriority(t, ctx, env, "high", 3, 0, 3, "high")
			waitProvReqs(t, ctx, env, "high", "for the 2 members that do not fit", func(prs []autoscalingv1.ProvisioningRequest) bool {
				return len(prs) == 1 && prs[0].Spec.PodSets[0].Count == 2
			})
			settledBound(t, ctx, env, sched, gang.PodGroupLabel, "low", 3)
			if ev := k.evicted(); len(ev) != 0 {
				t.Errorf("evicted %v", ev)
			}
		})
	}
}

// Provision or preempt, on a full cluster: a priority-1000 gang (a CPU
// launcher and three 8-GPU workers) that shedding an elastic gang's extras
// cannot serve alone asks for the one node the extras leave short (not
// three) and waits for it while its request is out, and says so;
// once the autoscaler says no pool can add them now (its pools at their
// max), or fails the request, or no autoscaler has answered the request
// for two minutes (none serves ProvisioningRequests: the writer's record of
// when it created the request is set back, as the test cannot wait), no
// new nodes can come, and it preempts the elastic gang whole at once,
// although its policy would wait 600 s.
func TestPreemptsAtOnceWhenNoNodesCanCome(t *testing.T) {
	const atMax = "no node pool can add capacity for 1 pod now (gpu: max node group size reached); will retry"
	for _, tc := range []struct {
		name string
		said metav1.Condition
		why  string
	}{
		{"no pool can add nodes now",
			metav1.Condition{Type: autoscalingv1.Provisioned, Status: metav1.ConditionFalse, Reason: autoscalingv1.CapacityIsNotFound, Message: atMax},
			"no new nodes can come for it: the cluster-autoscaler cannot add them now: " + atMax},
		{"the request failed",
			metav1.Condition{Type: autoscalingv1.Failed, Status: metav1.ConditionTrue, Reason: "MaxNodeGroupSizeReached", Message: "gpu: max node group size reached"},
			"no new nodes can come for it: its ProvisioningRequest failed: gpu: max node group size reached"},
		{"no autoscaler answers", metav1.Condition{},
			"no new nodes can come for it: no cluster-autoscaler has answered its ProvisioningRequest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, env, _ := setup(t, controlplane.GangArgs{BackoffSeconds: 1, Preemption: "[{minPriority: 0, policy: LowerPriority, maxWaitForNodesSeconds: 600}]"})
			k := startKubelet(t, ctx, env)
			if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 4, 8); err != nil {
				t.Fatal(err)
			}
			if err := controlplane.CreatePriorityClass(ctx, env.Client, "high", 1000); err != nil {
				t.Fatal(err)
			}
			createPodGroupWithPriority(t, ctx, env, "elastic", 2, 4, 4, "")
			waitBound(t, env, gang.PodGroupLabel, "elastic", 4)

			createPodGroup(t, env, 4, 0, 0, "high")
			members := controlplane.PodGroupMembers(ns, "high", 4, 8)
			members[3].Name, members[3].GPUs = "high-launcher", 0
			for i := range members {
				members[i].PriorityClass = "high"
			}
			if err := controlplane.CreatePods(ctx, env.Client, members...); err != nil {
				t.Fatal(err)
			}
			// Of the 3 workers' room, elastic's 2 members above min, which
			// high may shed, make 2: the request asks for the third.
			prs := waitProvReqs(t, ctx, env, "high", "for the 1 worker shedding leaves short", func(prs []autoscalingv1.ProvisioningRequest) bool {
				return len(prs) == 1 && prs[0].Spec.PodSets[0].Count == 1
			})
			waitExtraCondition(t, ctx, env, "high", gang.ConditionPreempting, gang.ReasonWaitingForNodes, "waits up to")
			if ev := k.evicted(); len(ev) != 0 {
				t.Fatalf("evicted %v while the gang's request is out", ev)
			}

			if tc.said.Type != "" {
				setProvReqCondition(t, ctx, env, prs[0].Name, tc.said)
			} else {
				patchProvReq(t, ctx, env, prs[0].Name, map[string]any{"metadata": map[string]any{"annotations": map[string]any{
					provisioning.CreatedAnnotation: time.Now().Add(-3 * time.Minute).UTC().Format(time.RFC3339Nano)}}})
			}
			waitBound(t, env, gang.PodGroupLabel, "high", 4)
			// The condition goes once the quorum binds; the event stays.
			waitEvent(t, ctx, env, "PodGroup", "high", gang.ReasonMadeRoom, tc.why)
			waitExtraCondition(t, ctx, env, "elastic", gang.ConditionDisrupted, gang.ReasonPreempted, "for team-a/high (priority 1000)")
			waitNoExtraCondition(t, ctx, env, "high", gang.ConditionPreempting)
			// high binds once three of elastic's members are gone; the kubelet
			// stand-in records the fourth's eviction when it sees its
			// DisruptionTarget, which may come later: wait for all of them
			// to go (a member evicted without saying why is gone only after
			// 10 s, unrecorded, and fails the count).
			waitBound(t, env, gang.PodGroupLabel, "elastic", 0)
			if n := len(k.evicted()); n != 4 {
				t.Errorf("%d of elastic's members evicted, want all 4 (whole, not below min)", n)
			}
		})
	}
}

// A PodGroup deleted while members hold reservations releases them at once:
// another gang gets the nodes without waiting out the timeout.
func TestPodGroupDeletedReleasesReservations(t *testing.T) {
	ctx, env, _ := setup(t, controlplane.GangArgs{BackoffSeconds: 1})
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 3, 8); err != nil {
		t.Fatal(err)
	}
	createPodGroup(t, env, 3, 0, 0, "gone")
	members := controlplane.PodGroupMembers(ns, "gone", 3, 8)
	members[2].Gated = true // never scheduled: the other two wait at Permit, holding nodes
	if err := controlplane.CreatePods(ctx, env.Client, members...); err != nil {
		t.Fatal(err)
	}
	waitCondition(t, ctx, env, "gone", gang.ReasonWaitingForRoom, "")
	if err := env.PodGroups.SchedulingV1alpha1().PodGroups(ns).Delete(ctx, "gone", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := controlplane.CreatePods(ctx, env.Client, controlplane.LabelMembers(ns, "next", 3, 8, 3, 3)...); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.GroupLabel, "next", 3)
}

// A PodGroup whose minMember drops while members hold reservations releases
// them and places the new, smaller quorum at once.
func TestMinMemberChangedReleasesReservations(t *testing.T) {
	ctx, env, _ := setup(t, controlplane.GangArgs{BackoffSeconds: 1})
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 3, 8); err != nil {
		t.Fatal(err)
	}
	createPodGroup(t, env, 3, 0, 0, "shrink")
	members := controlplane.PodGroupMembers(ns, "shrink", 3, 8)
	members[2].Gated = true
	if err := controlplane.CreatePods(ctx, env.Client, members...); err != nil {
		t.Fatal(err)
	}
	waitCondition(t, ctx, env, "shrink", gang.ReasonWaitingForRoom, "")
	pg, err := env.PodGroups.SchedulingV1alpha1().PodGroups(ns).Get(ctx, "shrink", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pg.Spec.MinMember = 2
	if _, err := env.PodGroups.SchedulingV1alpha1().PodGroups(ns).Update(ctx, pg, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.PodGroupLabel, "shrink", 2)
}

// Room that frees up goes to a waiting quorum before elastic growth: a
// younger rigid gang's quorum takes the freed nodes from an older elastic
// gang's members beyond min, which grow once room is left over. Nodes free
// up one at a time, so the rigid gang relies on the starvation bound (0
// here): the room it can use is held for it before its quorum fits, and
// lent meanwhile to the elastic gang's extras, which it sheds once its
// room is complete (a kubelet stand-in ends the evicted pods).
func TestWaitingQuorumBeforeElasticGrowth(t *testing.T) {
	ctx, env, sched := setup(t, controlplane.GangArgs{BackoffSeconds: 1, StarvationBoundSeconds: new(int64)})
	startKubelet(t, ctx, env)
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 4, 8); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"gpu-1", "gpu-2", "gpu-3"} {
		holdGPUs(t, ctx, env, n, 8)
	}
	topoGang(t, ctx, env, "elastic", 4, 8, 1, 4)
	waitBound(t, env, gang.GroupLabel, "elastic", 1)
	time.Sleep(1100 * time.Millisecond) // creation timestamps have second resolution
	topoGang(t, ctx, env, "rigid", 2, 8, 2, 2)
	waitCondition := func(name, part string) {
		t.Helper()
		waitPod(t, ctx, env, name, "Unschedulable: "+part, hasScheduledReason(v1.PodReasonUnschedulable, part))
	}
	waitCondition("rigid-0", "gang team-a/rigid")

	unholdGPUs(t, ctx, env, 8, "gpu-1", "gpu-2")
	waitBound(t, env, gang.GroupLabel, "rigid", 2)
	settledBound(t, ctx, env, sched, gang.GroupLabel, "elastic", 1)

	unholdGPUs(t, ctx, env, 8, "gpu-3")
	waitBound(t, env, gang.GroupLabel, "elastic", 2)
}

// A starving quorum keeps the room held for it while a pod it waits for
// terminates. MusterGang counts a terminating pod's GPUs as free, so the
// rigid gang's room check passes with one node free and one emptying;
// MusterTopology counts them as used and rejects the attempt ("room for
// 1"). That rejection is room too: before, MusterGang left the gang out of
// the capacity plan after it, and the older elastic gang's extras took the
// free node, then the emptied one (stress, 1 run in 20). A finalizer keeps
// the pod terminating for as long as the test needs.
func TestStarvingQuorumKeepsRoomWhileAPodTerminates(t *testing.T) {
	ctx, env, sched := setup(t, controlplane.GangArgs{BackoffSeconds: 1, StarvationBoundSeconds: new(int64)})
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 4, 8); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"gpu-1", "gpu-2", "gpu-3"} {
		holdGPUs(t, ctx, env, n, 8)
	}
	const finalizer = "muster.dev/test-terminating"
	setFinalizers := func(name string, f ...string) {
		t.Helper()
		p, err := env.Client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p.Finalizers = f
		if _, err := env.Client.CoreV1().Pods(ns).Update(ctx, p, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	setFinalizers("hold-gpu-2-8", finalizer)
	topoGang(t, ctx, env, "elastic", 4, 8, 1, 4)
	waitBound(t, env, gang.GroupLabel, "elastic", 1)
	time.Sleep(1100 * time.Millisecond) // creation timestamps have second resolution
	topoGang(t, ctx, env, "rigid", 2, 8, 2, 2)
	waitPod(t, ctx, env, "rigid-0", "Unschedulable", hasScheduledReason(v1.PodReasonUnschedulable, "gang team-a/rigid"))

	unholdGPUs(t, ctx, env, 8, "gpu-2", "gpu-1") // gpu-2's pod stays, terminating
	waitPod(t, ctx, env, "rigid-0", "rejected by MusterTopology with one node free and one emptying",
		hasScheduledReason(v1.PodReasonUnschedulable, "the cluster has room for 1"))
	// A node without GPUs requeues the elastic extras, which wait in the
	// unschedulable pool: the free node is held for rigid, so they stay.
	if err := controlplane.CreateNodes(ctx, env.Client, "cpu", 1, 0); err != nil {
		t.Fatal(err)
	}
	settledBound(t, ctx, env, sched, gang.GroupLabel, "elastic", 1)

	setFinalizers("hold-gpu-2-8")
	waitBound(t, env, gang.GroupLabel, "rigid", 2)
	expectNodes(t, nodesOf(t, ctx, env, "rigid"), "gpu-1", "gpu-2")
	settledBound(t, ctx, env, sched, gang.GroupLabel, "elastic", 1)
}

// Room held for a starving gang is lent to the extras of an elastic gang
// of equal priority (extras it may shed: a starving gang sheds extras of
// gangs younger or older than it), and taken back, by shedding them, the
// moment the starving gang's room is complete; then it binds whole. The
// elastic gang's 4-GPU min member runs on a 4-GPU node the rigid gang's
// 8-GPU members cannot use.
func TestElasticExtrasBorrowHeldRoomUntilShed(t *testing.T) {
	for _, c := range []struct {
		name         string
		elasticFirst bool
	}{{"younger elastic gang", false}, {"older elastic gang", true}} {
		t.Run(c.name, func(t *testing.T) { extrasBorrowHeldRoomUntilShed(t, c.elasticFirst) })
	}
}

// extrasBorrowHeldRoomUntilShed is TestElasticExtrasBorrowHeldRoomUntilShed
// with the elastic gang created after the rigid one, or before it. Before
// a starving gang could shed an older gang's extras, the older gang's
// extras did not borrow: the room idled until the rigid gang's was complete.
func extrasBorrowHeldRoomUntilShed(t *testing.T, elasticFirst bool) {
	ctx, env, sched := setup(t, controlplane.GangArgs{BackoffSeconds: 1, StarvationBoundSeconds: new(int64)})
	k := startKubelet(t, ctx, env)
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 3, 8); err != nil {
		t.Fatal(err)
	}
	if err := controlplane.CreateNodes(ctx, env.Client, "small", 1, 4); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"gpu-0", "gpu-1", "gpu-2"} {
		holdGPUs(t, ctx, env, n, 8)
	}
	elastic := func() {
		topoGang(t, ctx, env, "elastic", 3, 4, 1, 3)
		waitBound(t, env, gang.GroupLabel, "elastic", 1)
		expectNodes(t, nodesOf(t, ctx, env, "elastic"), "small-0")
	}
	if elasticFirst {
		elastic()
		time.Sleep(1100 * time.Millisecond) // creation timestamps have second resolution
	}
	topoGang(t, ctx, env, "rigid", 2, 8, 2, 2)
	waitPod(t, ctx, env, "rigid-0", "Unschedulable", hasScheduledReason(v1.PodReasonUnschedulable, "gang team-a/rigid"))
	if !elasticFirst {
		time.Sleep(1100 * time.Millisecond) // creation timestamps have second resolution
		elastic()
	}

	// gpu-0 frees: held for rigid, which needs two nodes, and lent to
	// elastic's two extras meanwhile.
	unholdGPUs(t, ctx, env, 8, "gpu-0")
	waitBound(t, env, gang.GroupLabel, "elastic", 3)
	expectNodes(t, nodesOf(t, ctx, env, "elastic"), "gpu-0", "gpu-0", "small-0")
	settledBound(t, ctx, env, sched, gang.GroupLabel, "rigid", 0)
	if e := k.evicted(); len(e) != 0 {
		t.Fatalf("evicted %v before rigid's room was complete", e)
	}

	// gpu-1 frees: with the lent room rigid's room is complete. The
	// borrowers are shed, and rigid binds whole on gpu-0 and gpu-1.
	unholdGPUs(t, ctx, env, 8, "gpu-1")
	waitBound(t, env, gang.GroupLabel, "rigid", 2)
	expectNodes(t, nodesOf(t, ctx, env, "rigid"), "gpu-0", "gpu-1")
	evicted := k.evicted()
	if len(evicted) != 2 || evicted["elastic-1"] == "" || evicted["elastic-2"] == "" {
		t.Fatalf("evicted %v, want elastic's two extras", evicted)
	}
	for name, msg := range evicted {
		if want := "muster-scheduler: shed 2 of 3 members for team-a/rigid (priority 0)"; msg != want {
			t.Errorf("%s DisruptionTarget %q, want %q", name, msg, want)
		}
	}
	settledBound(t, ctx, env, sched, gang.GroupLabel, "elastic", 1)
}
