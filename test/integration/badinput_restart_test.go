// Integration tests of bad input reported on the object and isolated, a scheduler restarted mid-gang, gangs without a PodGroup object, and bad plugin args failing start-up.

package integration

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/muster-project/muster/pkg/controlplane"
	"github.com/muster-project/muster/pkg/gang"
)

// Bad gang input is reported on the object, naming the field, and never
// stops other gangs.
func TestBadInputIsReportedAndIsolated(t *testing.T) {
	ctx, env, _ := setup(t, controlplane.GangArgs{})
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 4, 8); err != nil {
		t.Fatal(err)
	}
	// PodGroup whose max is below its min.
	createPodGroup(t, env, 3, 2, 0, "minmax")
	// PodGroup asking for a huge min.
	createPodGroup(t, env, 100000, 0, 0, "huge")
	// PodGroup with a negative timeout.
	neg := controlplane.PodGroup(ns, "negtimeout", 1, 0, -5)
	if _, err := env.PodGroups.SchedulingV1alpha1().PodGroups(ns).Create(ctx, neg, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	bad := []controlplane.Member{
		controlplane.PodGroupMembers(ns, "minmax", 1, 1)[0],
		controlplane.PodGroupMembers(ns, "huge", 1, 1)[0],
		controlplane.PodGroupMembers(ns, "negtimeout", 1, 1)[0],
		controlplane.PodGroupMembers(ns, "missing", 1, 1)[0],
		controlplane.LabelMembers(ns, "zero", 1, 1, 0, 0)[0],
	}
	// Two CRD-free members that disagree on min: the older one sets the gang.
	disagree := controlplane.LabelMembers(ns, "split", 2, 1, 2, 2)
	disagree[1].Annotations = map[string]string{gang.MinMemberAnnotation: "3", gang.MaxMemberAnnotation: "3"}
	if err := controlplane.CreatePods(ctx, env.Client, append(bad, disagree[0])...); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond) // make split-0 strictly older
	if err := controlplane.CreatePods(ctx, env.Client, disagree[1]); err != nil {
		t.Fatal(err)
	}
	good := controlplane.LabelMembers(ns, "good", 2, 8, 2, 2)
	if err := controlplane.CreatePods(ctx, env.Client, good...); err != nil {
		t.Fatal(err)
	}

	cases := []struct{ pod, field string }{
		{"minmax-0", "PodGroup team-a/minmax: metadata.annotations[muster.dev/max-member]: max 2 is less than min 3"},
		{"huge-0", "PodGroup team-a/huge: spec.minMember: 100000 exceeds the scheduler's maxGangMembers (10000)"},
		{"negtimeout-0", "PodGroup team-a/negtimeout: spec.scheduleTimeoutSeconds: must not be negative"},
		{"missing-0", "Pod team-a/missing-0: metadata.labels[scheduling.x-k8s.io/pod-group]: PodGroup team-a/missing does not exist"},
		{"zero-0", "Pod team-a/zero-0: metadata.annotations[muster.dev/min-member]: must be at least 1, got 0"},
		{"split-1", "Pod team-a/split-1: metadata.annotations[muster.dev/min-member]: 3 disagrees with 2 of gang team-a/split (set by Pod team-a/split-0)"},
	}
	for _, c := range cases {
		waitPod(t, ctx, env, c.pod, "bad-input condition", hasScheduledReason(v1.PodReasonSchedulingGated, c.field))
		waitEvent(t, ctx, env, "Pod", c.pod, "InvalidGangSpec", c.field)
	}
	waitCondition(t, ctx, env, "minmax", gang.ReasonInvalidSpec, "max 2 is less than min 3")
	waitCondition(t, ctx, env, "huge", gang.ReasonInvalidSpec, "spec.minMember")
	waitBound(t, env, gang.GroupLabel, "good", 2)
	for _, c := range cases {
		if p, _ := env.Client.CoreV1().Pods(ns).Get(ctx, c.pod, metav1.GetOptions{}); p != nil && p.Spec.NodeName != "" {
			t.Errorf("pod %s with bad gang input was bound", c.pod)
		}
	}

	// Fixing the spec lets the gang through.
	pg, err := env.PodGroups.SchedulingV1alpha1().PodGroups(ns).Get(ctx, "minmax", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pg.Spec.MinMember = 1
	if _, err := env.PodGroups.SchedulingV1alpha1().PodGroups(ns).Update(ctx, pg, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.PodGroupLabel, "minmax", 1)

	// Fixing a member's own annotations lets its gang through at once: the
	// pod's own update requeues it, not the queue's flush of unschedulable
	// pods five minutes later. zero-0 is a gang of one; split-1, fixed,
	// completes split's quorum, which wakes split-0.
	for pod, min := range map[string]string{"zero-0": "1", "split-1": "2"} {
		patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q,%q:%q}}}`, gang.MinMemberAnnotation, min, gang.MaxMemberAnnotation, min)
		if _, err := env.Client.CoreV1().Pods(ns).Patch(ctx, pod, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	waitBound(t, env, gang.GroupLabel, "zero", 1)
	waitBound(t, env, gang.GroupLabel, "split", 2)
}

// A scheduler restarted mid-gang recovers from the API alone: members it bound
// count toward min, reservations it held are simply gone (never bound), and
// no gang ends up partly bound.
func TestRestartMidGang(t *testing.T) {
	ctx, env, sched := setup(t, controlplane.GangArgs{BackoffSeconds: 1, ScheduleTimeoutSeconds: 60})
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 7, 8); err != nil {
		t.Fatal(err)
	}

	// Gang "held": three of four members exist and hold reservations at Permit,
	// the fourth is gated by another controller.
	createPodGroup(t, env, 4, 0, 0, "held")
	held := controlplane.PodGroupMembers(ns, "held", 4, 8)
	held[3].Gated = true
	if err := controlplane.CreatePods(ctx, env.Client, held...); err != nil {
		t.Fatal(err)
	}
	waitCondition(t, ctx, env, "held", gang.ReasonWaitingForRoom, "3 holding reservations")

	// Gang "elastic" reached min before the restart: two members bound.
	elastic := controlplane.LabelMembers(ns, "elastic", 2, 8, 2, 3)
	if err := controlplane.CreatePods(ctx, env.Client, elastic...); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.GroupLabel, "elastic", 2)

	sched.Stop()
	boundNow(t, env, gang.PodGroupLabel, "held", 0)
	sched = startScheduler(t, ctx, env, controlplane.GangArgs{BackoffSeconds: 1, ScheduleTimeoutSeconds: 60})

	// A third elastic member binds at once: the bound two count toward min.
	extra := controlplane.LabelMembers(ns, "elastic", 3, 8, 2, 3)[2]
	if err := controlplane.CreatePods(ctx, env.Client, extra); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.GroupLabel, "elastic", 3)

	// "held" is not partly bound after the restart: its three hold
	// reservations at Permit again, bound to nothing. Lifting the gate
	// completes it.
	if err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		return sched.WaitingAtPermit() == 3, nil
	}); err != nil {
		t.Fatalf("%d pods wait at Permit, want held's three", sched.WaitingAtPermit())
	}
	boundNow(t, env, gang.PodGroupLabel, "held", 0)
	ungate(t, ctx, env, held[3].Name)
	waitBound(t, env, gang.PodGroupLabel, "held", 4)
	waitCondition(t, ctx, env, "held", gang.ReasonAtMax, "4 of max 4")
}

func ungate(t *testing.T, ctx context.Context, env *controlplane.Env, name string) {
	t.Helper()
	p, err := env.Client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.Spec.SchedulingGates = nil
	if _, err := env.Client.CoreV1().Pods(ns).Update(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// CRD-free gangs work with no PodGroup object at all.
func TestLabelGangWithoutCRDObject(t *testing.T) {
	ctx, env, _ := setup(t, controlplane.GangArgs{})
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 4, 8); err != nil {
		t.Fatal(err)
	}
	members := controlplane.LabelMembers(ns, "plain", 4, 4, 4, 4)
	for i := range members {
		members[i].Annotations[gang.ScheduleTimeoutAnnotation] = strconv.Itoa(30)
	}
	if err := controlplane.CreatePods(ctx, env.Client, members[:3]...); err != nil {
		t.Fatal(err)
	}
	waitPod(t, ctx, env, "plain-0", "quorum gate", hasScheduledReason(v1.PodReasonSchedulingGated, "fewer than 4 members exist"))
	// The events API folds events of one reason about one object into a
	// series that keeps the first note: a status sync between two member
	// creations (a loaded machine) makes it "1 of 4" or "2 of 4", not
	// "3 of 4", whatever the gang's status says now.
	waitEvent(t, ctx, env, "Pod", "plain-0", gang.ReasonAwaitingQuorum, "members exist")
	if err := controlplane.CreatePods(ctx, env.Client, members[3]); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.GroupLabel, "plain", 4)
	waitEvent(t, ctx, env, "Pod", "plain-0", gang.ReasonAtMax, "4 of max 4")
}

// Bad plugin args stop the scheduler from starting, naming the field.
func TestBadPluginArgsFailStartup(t *testing.T) {
	ctx, env, _ := setup(t, controlplane.GangArgs{})
	kc, err := env.Kubeconfig()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, config, want string }{
		{"negative backoff", controlplane.MusterConfig(kc, controlplane.GangArgs{BackoffSeconds: -3}), "pluginConfig.MusterGang.args.backoffSeconds: Invalid value: -3"},
		{"misspelt field", strings.Replace(controlplane.MusterConfig(kc, controlplane.GangArgs{BackoffSeconds: 3}), "backoffSeconds", "backofSeconds", 1), `unknown field "backofSeconds"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := env.StartScheduler(ctx, tc.config)
			if err == nil {
				s.Stop()
				t.Fatal("scheduler started with bad args")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}
