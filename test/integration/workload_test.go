// Integration tests of gangs from upstream's Workload API: all-or-nothing PodGroups, why they wait, topology keys as levels, disruption modes, released reservations, and clusters without it.

package integration

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedv1beta1 "k8s.io/api/scheduling/v1beta1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/muster-project/muster/pkg/controlplane"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/topology"
)

// jobLabel marks the pods of one upstream PodGroup, for counting them.
const jobLabel = "example.com/job"

// workloadSetup starts a control plane serving upstream's Workload API
// (GenericWorkload and TopologyAwareWorkloadScheduling on, as a 1.37 cluster
// that uses it runs) and muster-scheduler, which runs with them off.
func workloadSetup(t *testing.T, args controlplane.GangArgs) (context.Context, *controlplane.Env, *controlplane.Scheduler) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	env, err := controlplane.StartWith(t, controlplane.Options{WorkloadAPI: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := controlplane.CreateNamespace(ctx, env.Client, ns); err != nil {
		t.Fatal(err)
	}
	return ctx, env, startScheduler(t, ctx, env, args)
}

// workload creates a Workload with one gang template and its PodGroup, as a
// workload controller does (the Workload first, the PodGroup pointing at it).
func workload(t *testing.T, ctx context.Context, env *controlplane.Env, name string, minCount int32, workloadAnnotations map[string]string, edit func(*schedv1beta1.PodGroup)) {
	t.Helper()
	policy := schedv1beta1.PodGroupSchedulingPolicy{Gang: &schedv1beta1.GangSchedulingPolicy{MinCount: minCount}}
	wl := &schedv1beta1.Workload{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: workloadAnnotations},
		Spec:       schedv1beta1.WorkloadSpec{PodGroupTemplates: []schedv1beta1.PodGroupTemplate{{Name: "workers", SchedulingPolicy: policy}}},
	}
	if _, err := env.Client.SchedulingV1beta1().Workloads(ns).Create(ctx, wl, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pg := controlplane.WorkloadPodGroup(ns, name, minCount)
	pg.Spec.WorkloadRef = &schedv1beta1.WorkloadReference{WorkloadName: name, TemplateName: "workers"}
	if edit != nil {
		edit(pg)
	}
	if _, err := env.Client.SchedulingV1beta1().PodGroups(ns).Create(ctx, pg, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// groupMembers are n pods of gpus GPUs whose spec.schedulingGroup names
// PodGroup group; the first is named prefix-0.
func groupMembers(group, prefix string, n int, gpus int64, priorityClass string) []*v1.Pod {
	var pods []*v1.Pod
	for i := range n {
		pods = append(pods, controlplane.Member{Namespace: ns, Name: prefix + "-" + strconv.Itoa(i), GPUs: gpus, PriorityClass: priorityClass,
			Labels: map[string]string{jobLabel: group}, SchedulingGroup: group}.Pod())
	}
	return pods
}

// waitWorkloadCondition waits for a condition of an upstream PodGroup.
func waitWorkloadCondition(t *testing.T, ctx context.Context, env *controlplane.Env, name, typ string, status metav1.ConditionStatus, reason, msgPart string) metav1.Condition {
	t.Helper()
	var last []metav1.Condition
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		pg, err := env.Client.SchedulingV1beta1().PodGroups(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		last = pg.Status.Conditions
		c := apimeta.FindStatusCondition(pg.Status.Conditions, typ)
		return c != nil && c.Status == status && c.Reason == reason && strings.Contains(c.Message, msgPart), nil
	})
	if err != nil {
		t.Fatalf("PodGroup %s: no condition %s=%s reason %s containing %q; conditions %+v", name, typ, status, reason, msgPart, last)
	}
	return *apimeta.FindStatusCondition(last, typ)
}

// An MPIJob run through upstream's Workload API: a CPU-only launcher and
// 8-GPU workers in one PodGroup (minCount = workers + 1), max and timeout
// from Muster's annotations on the Workload. The quorum binds all or
// nothing, an elastic worker above min joins, and the PodGroup carries
// upstream's PodGroupInitiallyScheduled condition and Muster's own.
func TestWorkloadPodGroupIsAGang(t *testing.T) {
	ctx, env, sched := workloadSetup(t, controlplane.GangArgs{BackoffSeconds: 1})
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 4, 8); err != nil {
		t.Fatal(err)
	}
	if err := controlplane.CreateNode(ctx, env.Client, cpuNode("cpu-0")); err != nil {
		t.Fatal(err)
	}
	workload(t, ctx, env, "mpi", 4, map[string]string{gang.MaxMemberAnnotation: "5", gang.ScheduleTimeoutAnnotation: "120"}, nil)

	launcher := groupMembers("mpi", "mpi-launcher", 1, 0, "")[0]
	launcher.Spec.Containers[0].Resources.Requests[v1.ResourceCPU] = resource.MustParse("2")
	workers := groupMembers("mpi", "mpi-worker", 5, 8, "")
	// Two workers first: the quorum (launcher + 3 workers) is not there yet.
	createPods(t, ctx, env, workers[:2]...)
	waitWorkloadCondition(t, ctx, env, "mpi", gang.ConditionScheduled, metav1.ConditionFalse, gang.ReasonAwaitingQuorum, "2 of 4 members exist")
	settles(t, ctx, env, sched, "no member binds before the quorum exists", func() (bool, error) {
		n, err := controlplane.Bound(ctx, env.Client, ns, controlplane.Selector(jobLabel, "mpi"))
		return n == 0, err
	})
	createPods(t, ctx, env, launcher)
	createPods(t, ctx, env, workers[2:]...)
	// Launcher + 4 workers: max 5 (min 4 = launcher + 3 workers); the fifth
	// worker waits for room.
	waitBound(t, env, jobLabel, "mpi", 5)
	waitWorkloadCondition(t, ctx, env, "mpi", schedv1beta1.PodGroupInitiallyScheduled, metav1.ConditionTrue, "Scheduled", "")
	waitWorkloadCondition(t, ctx, env, "mpi", gang.ConditionScheduled, metav1.ConditionTrue, gang.ReasonAtMax, "5 of max 5 members placed")
	waitEvent(t, ctx, env, "PodGroup", "mpi", gang.ReasonAtMax, "5 of max 5")

	// ScaleIn as operators do it: bound workers are deleted. The waiting
	// worker takes the freed room (the gang is below max), and after a
	// second deletion the gang stays placed at its min and says so.
	bound := func() []v1.Pod {
		pods, err := env.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: controlplane.Selector(jobLabel, "mpi")})
		if err != nil {
			t.Fatal(err)
		}
		var out []v1.Pod
		for _, p := range pods.Items {
			if p.Spec.NodeName != "" && p.Name != launcher.Name && p.DeletionTimestamp == nil {
				out = append(out, p)
			}
		}
		return out
	}
	deletePod := func(name string) {
		if err := env.Client.CoreV1().Pods(ns).Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
			t.Fatal(err)
		}
	}
	deletePod(bound()[0].Name)
	waitBound(t, env, jobLabel, "mpi", 5)
	deletePod(bound()[0].Name)
	waitWorkloadCondition(t, ctx, env, "mpi", gang.ConditionScheduled, metav1.ConditionTrue, gang.ReasonQuorumPlaced, "4 members placed (min 4, max 5)")
	waitWorkloadCondition(t, ctx, env, "mpi", schedv1beta1.PodGroupInitiallyScheduled, metav1.ConditionTrue, "Scheduled", "")
}

// What a gang from upstream's API cannot get is said on the PodGroup with
// upstream's reasons, and the pods wait: a quorum that does not fit, a
// topology key that is none of Muster's levels (naming the field; never
// dropped silently), a PodGroup that does not exist yet
// (its members wait, and bind once it is created).
func TestWorkloadPodGroupSaysWhyItWaits(t *testing.T) {
	ctx, env, _ := workloadSetup(t, controlplane.GangArgs{BackoffSeconds: 1})
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 2, 8); err != nil {
		t.Fatal(err)
	}

	workload(t, ctx, env, "big", 3, nil, nil)
	createPods(t, ctx, env, groupMembers("big", "big", 3, 8, "")...)
	waitWorkloadCondition(t, ctx, env, "big", schedv1beta1.PodGroupInitiallyScheduled, metav1.ConditionFalse, schedv1beta1.PodGroupReasonUnschedulable, "")

	workload(t, ctx, env, "odd", 1, nil, func(pg *schedv1beta1.PodGroup) {
		pg.Spec.SchedulingConstraints = &schedv1beta1.PodGroupSchedulingConstraints{Topology: []schedv1beta1.TopologyConstraint{{Key: "example.com/room"}}}
	})
	createPods(t, ctx, env, groupMembers("odd", "odd", 1, 1, "")...)
	waitWorkloadCondition(t, ctx, env, "odd", schedv1beta1.PodGroupInitiallyScheduled, metav1.ConditionFalse, schedv1beta1.PodGroupReasonUnschedulable,
		`spec.schedulingConstraints.topology[0].key: node label "example.com/room" is none of the scheduler's topology levels`)
	waitPod(t, ctx, env, "odd-0", "rejected naming the field", hasScheduledReason(v1.PodReasonUnschedulable, "example.com/room"))

	late := groupMembers("late", "late", 2, 4, "")
	createPods(t, ctx, env, late...)
	waitPod(t, ctx, env, "late-0", "told its PodGroup is missing", hasScheduledReason(v1.PodReasonSchedulingGated, "PodGroup team-a/late (scheduling.k8s.io/v1beta1) does not exist"))
	workload(t, ctx, env, "late", 2, nil, nil)
	waitBound(t, env, jobLabel, "late", 2)
}

// schedulingConstraints.topology[].key is the node label of one of Muster's
// levels: the gang lands within one domain of it, and the one with room.
func TestWorkloadTopologyKeyIsALevel(t *testing.T) {
	ctx, env, _ := workloadSetup(t, controlplane.GangArgs{BackoffSeconds: 1})
	gpuNodes(t, ctx, env,
		"a1:"+h100+":c1:r1:zone-a", "a2:"+h100+":c1:r1:zone-a", "a3:"+h100+":c2:r2:zone-a",
		"b1:"+h100+":c3:r3:zone-b", "b2:"+h100+":c3:r3:zone-b", "b3:"+h100+":c4:r4:zone-b", "b4:"+h100+":c4:r4:zone-b")
	workload(t, ctx, env, "zonal", 4, nil, func(pg *schedv1beta1.PodGroup) {
		pg.Spec.SchedulingConstraints = &schedv1beta1.PodGroupSchedulingConstraints{Topology: []schedv1beta1.TopologyConstraint{{Key: topology.ZoneLabel}}}
	})
	createPods(t, ctx, env, groupMembers("zonal", "zonal", 4, 8, "")...)
	waitBound(t, env, jobLabel, "zonal", 4)
	pods, err := env.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: controlplane.Selector(jobLabel, "zonal")})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if !strings.HasPrefix(p.Spec.NodeName, "b") {
			t.Errorf("member %s on %s, want every member in zone-b (zone-a has 3 nodes for 4 members)", p.Name, p.Spec.NodeName)
		}
	}
}

// disruptionMode decides how a gang from upstream's API gives room to a
// higher-priority one: single (the default) sheds a member above minCount,
// all preempts the whole gang, never a part of it.
func TestWorkloadDisruptionMode(t *testing.T) {
	for _, tc := range []struct {
		name       string
		mode       *schedv1beta1.DisruptionMode
		left       int
		evicted    int
		disruption string
		reason     string
	}{
		{name: "single", mode: &schedv1beta1.DisruptionMode{Single: &schedv1beta1.SingleDisruptionMode{}}, left: 3, evicted: 1,
			disruption: "shed 1 of 4 members for team-a/urgent (priority 1000)", reason: gang.ReasonShed},
		{name: "all", mode: &schedv1beta1.DisruptionMode{All: &schedv1beta1.AllDisruptionMode{}}, left: 0, evicted: 4,
			disruption: "preempted all 4 members for team-a/urgent (priority 1000)", reason: gang.ReasonPreempted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, env, _ := workloadSetup(t, controlplane.GangArgs{BackoffSeconds: 1, Preemption: "[{minPriority: 0, policy: LowerPriority, maxWaitForNodesSeconds: 0}]"})
			k := startKubelet(t, ctx, env)
			if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 4, 8); err != nil {
				t.Fatal(err)
			}
			createPriorityClasses(t, ctx, env, map[string]int32{"high": 1000})
			workload(t, ctx, env, "elastic", 2, map[string]string{gang.MaxMemberAnnotation: "4"}, func(pg *schedv1beta1.PodGroup) { pg.Spec.DisruptionMode = tc.mode })
			createPods(t, ctx, env, groupMembers("elastic", "elastic", 4, 8, "")...)
			waitBound(t, env, jobLabel, "elastic", 4)
			waitWorkloadCondition(t, ctx, env, "elastic", schedv1beta1.PodGroupInitiallyScheduled, metav1.ConditionTrue, "Scheduled", "")

			workload(t, ctx, env, "urgent", 1, nil, nil)
			createPods(t, ctx, env, groupMembers("urgent", "urgent", 1, 8, "high")...)
			waitBound(t, env, jobLabel, "urgent", 1)
			waitBound(t, env, jobLabel, "elastic", tc.left)
			if n := len(k.evicted()); n != tc.evicted {
				t.Errorf("%d of elastic's members evicted, want %d: %v", n, tc.evicted, k.evicted())
			}
			waitWorkloadCondition(t, ctx, env, "elastic", gang.ConditionDisrupted, metav1.ConditionTrue, tc.reason, tc.disruption)
			// Upstream's condition is terminal once true, members lost or not.
			waitWorkloadCondition(t, ctx, env, "elastic", schedv1beta1.PodGroupInitiallyScheduled, metav1.ConditionTrue, "Scheduled", "")
			// The waiting gang's Preempting condition goes once its quorum
			// is placed; the event stays.
			waitEvent(t, ctx, env, "PodGroup", "urgent", gang.ReasonMadeRoom, "for its quorum (priority 1000)")
			if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
				pg, err := env.Client.SchedulingV1beta1().PodGroups(ns).Get(ctx, "urgent", metav1.GetOptions{})
				return err == nil && apimeta.FindStatusCondition(pg.Status.Conditions, gang.ConditionPreempting) == nil, nil
			}); err != nil {
				t.Errorf("PodGroup urgent keeps its Preempting condition after its quorum was placed: %v", err)
			}
		})
	}
}

// An upstream PodGroup whose minCount changes, or which is deleted, while
// members hold reservations releases them at once. Deleted, it stays while
// its pods exist (the API server's PodGroupProtection finalizer): marked for
// deletion is gone for Muster.
func TestWorkloadPodGroupChangeReleasesReservations(t *testing.T) {
	ctx, env, _ := workloadSetup(t, controlplane.GangArgs{BackoffSeconds: 1})
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 3, 8); err != nil {
		t.Fatal(err)
	}
	holdTwo := func(name string) {
		workload(t, ctx, env, name, 3, nil, nil)
		members := groupMembers(name, name, 3, 8, "")
		members[2].Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "example.com/never"}} // the other two wait at Permit
		createPods(t, ctx, env, members...)
		waitWorkloadCondition(t, ctx, env, name, gang.ConditionScheduled, metav1.ConditionFalse, gang.ReasonWaitingForRoom, "")
	}
	holdTwo("shrink")
	pg, err := env.Client.SchedulingV1beta1().PodGroups(ns).Get(ctx, "shrink", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pg.Spec.SchedulingPolicy.Gang.MinCount = 2
	if _, err := env.Client.SchedulingV1beta1().PodGroups(ns).Update(ctx, pg, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, jobLabel, "shrink", 2)
	waitWorkloadCondition(t, ctx, env, "shrink", schedv1beta1.PodGroupInitiallyScheduled, metav1.ConditionTrue, "Scheduled", "")

	if err := env.Client.CoreV1().Pods(ns).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: new(int64)}, metav1.ListOptions{LabelSelector: controlplane.Selector(jobLabel, "shrink")}); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, jobLabel, "shrink", 0)
	holdTwo("gone")
	if err := env.Client.SchedulingV1beta1().PodGroups(ns).Delete(ctx, "gone", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	workload(t, ctx, env, "next", 3, nil, nil)
	createPods(t, ctx, env, groupMembers("next", "next", 3, 8, "")...)
	if err := controlplane.WaitBound(ctx, env.Client, ns, controlplane.Selector(jobLabel, "next"), 3, 30*time.Second); err != nil {
		pods, _ := env.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		for _, p := range pods.Items {
			t.Logf("pod %s node %q deleting %v conditions %+v", p.Name, p.Spec.NodeName, p.DeletionTimestamp != nil, p.Status.Conditions)
		}
		t.Fatal(err)
	}
}

// A cluster without upstream's Workload API (the control plane's default,
// as most tests run) keeps scheduling the other two gang sources: muster-scheduler
// starts without it and binds a scheduler-plugins PodGroup gang and a
// CRD-free one.
func TestWithoutWorkloadAPI(t *testing.T) {
	ctx, env, _ := setup(t, controlplane.GangArgs{BackoffSeconds: 1})
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 4, 8); err != nil {
		t.Fatal(err)
	}
	createPodGroup(t, env, 2, 0, 0, "pg")
	if err := controlplane.CreatePods(ctx, env.Client, controlplane.PodGroupMembers(ns, "pg", 2, 8)...); err != nil {
		t.Fatal(err)
	}
	if err := controlplane.CreatePods(ctx, env.Client, controlplane.LabelMembers(ns, "free", 2, 8, 2, 2)...); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.PodGroupLabel, "pg", 2)
	waitBound(t, env, gang.GroupLabel, "free", 2)
}
