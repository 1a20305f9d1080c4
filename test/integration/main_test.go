// Package integration tests muster-scheduler against a real kube-apiserver
// (embedded etcd, in-process), with the scheduler running in-process too.
package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	"github.com/muster-project/muster/pkg/controlplane"
	"github.com/muster-project/muster/test/harness"
)

const ns = "team-a"

// TestMain removes the embedded etcd's data, and the binaries tests build
// (muster-scheduler for the leader tests, the training-operator), when the
// tests are done.
func TestMain(m *testing.M) {
	code := harness.RunTests(m)
	for _, bin := range []string{schedulerBin, trainingOperatorBin} {
		if bin != "" {
			_ = os.RemoveAll(filepath.Dir(bin))
		}
	}
	os.Exit(code)
}

// setup starts a control plane and muster-scheduler with args, and a namespace.
func setup(t *testing.T, args controlplane.GangArgs) (context.Context, *controlplane.Env, *controlplane.Scheduler) {
	t.Helper()
	ctx, env := controlPlane(t)
	sched := startScheduler(t, ctx, env, args)
	return ctx, env, sched
}

// controlPlane starts a control plane with the test namespace, and no
// scheduler.
func controlPlane(t *testing.T) (context.Context, *controlplane.Env) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	env, err := controlplane.Start(t)
	if err != nil {
		t.Fatal(err)
	}
	if err := controlplane.CreateNamespace(ctx, env.Client, ns); err != nil {
		t.Fatal(err)
	}
	return ctx, env
}

// musterConfig is Muster's scheduler configuration for the tests: args,
// and status written every 100 ms unless args say otherwise.
func musterConfig(t *testing.T, env *controlplane.Env, args controlplane.GangArgs) string {
	t.Helper()
	kc, err := env.Kubeconfig()
	if err != nil {
		t.Fatal(err)
	}
	if args.StatusSyncMillis == 0 {
		args.StatusSyncMillis = 100
	}
	return controlplane.MusterConfig(kc, args)
}

func startScheduler(t *testing.T, ctx context.Context, env *controlplane.Env, args controlplane.GangArgs) *controlplane.Scheduler {
	t.Helper()
	s, err := env.StartScheduler(ctx, musterConfig(t, env, args))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

// waitPod polls a pod until cond holds.
func waitPod(t *testing.T, ctx context.Context, env *controlplane.Env, name string, what string, cond func(*v1.Pod) bool) *v1.Pod {
	t.Helper()
	var last *v1.Pod
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		p, err := env.Client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		last = p
		return cond(p), nil
	})
	if err != nil {
		if last == nil {
			t.Fatalf("pod %s/%s: waiting for %s: %v; never read", ns, name, what, err)
		}
		t.Fatalf("pod %s/%s: waiting for %s: %v; last node %q, annotations %v, status %+v", ns, name, what, err, last.Spec.NodeName, last.Annotations, last.Status.Conditions)
	}
	return last
}

// scheduledCondition returns the pod's PodScheduled condition.
func scheduledCondition(p *v1.Pod) *v1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == v1.PodScheduled {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

func hasScheduledReason(reason, msgPart string) func(*v1.Pod) bool {
	return func(p *v1.Pod) bool {
		c := scheduledCondition(p)
		return c != nil && c.Status == v1.ConditionFalse && c.Reason == reason && strings.Contains(c.Message, msgPart)
	}
}

var podGroupGVR = schema.GroupVersionResource{Group: "scheduling.x-k8s.io", Version: "v1alpha1", Resource: "podgroups"}

// podGroupStatus reads a PodGroup's status as the API stores it, Muster's
// extra fields included.
func podGroupStatus(ctx context.Context, env *controlplane.Env, name string) (map[string]any, error) {
	dc, err := dynamic.NewForConfig(env.Config)
	if err != nil {
		return nil, err
	}
	u, err := dc.Resource(podGroupGVR).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	st, _ := u.Object["status"].(map[string]any)
	return st, nil
}

// waitCondition waits until the PodGroup's Scheduled condition has reason and
// its message contains msgPart, and returns the status.
func waitCondition(t *testing.T, ctx context.Context, env *controlplane.Env, name, reason, msgPart string) map[string]any {
	t.Helper()
	var st map[string]any
	var msg, got string
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		var err error
		if st, err = podGroupStatus(ctx, env, name); err != nil {
			return false, nil
		}
		conds, _ := st["conditions"].([]any)
		for _, c := range conds {
			m := c.(map[string]any)
			if m["type"] == "Scheduled" {
				got, msg = m["reason"].(string), m["message"].(string)
				return got == reason && strings.Contains(msg, msgPart), nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("PodGroup %s/%s: want Scheduled reason %s with %q, last %s %q (status %v)", ns, name, reason, msgPart, got, msg, st)
	}
	return st
}

// events lists the events about an object with the given reason.
func eventsFor(ctx context.Context, env *controlplane.Env, kind, name, reason string) []string {
	list, err := env.Client.EventsV1().Events(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range list.Items {
		if e.Regarding.Kind == kind && e.Regarding.Name == name && e.Reason == reason {
			out = append(out, e.Note)
		}
	}
	return out
}

func waitEvent(t *testing.T, ctx context.Context, env *controlplane.Env, kind, name, reason, part string) {
	t.Helper()
	var seen []string
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		seen = eventsFor(ctx, env, kind, name, reason)
		for _, n := range seen {
			if strings.Contains(n, part) {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		var all []string
		if list, lerr := env.Client.EventsV1().Events(ns).List(ctx, metav1.ListOptions{}); lerr == nil {
			for _, e := range list.Items {
				if e.Regarding.Name == name {
					all = append(all, fmt.Sprintf("%s %s/%s %s %s: %q (series %v)", e.Name, e.Regarding.Kind, e.Regarding.Name, e.Regarding.UID, e.Reason, e.Note, e.Series))
				}
			}
		} else {
			all = append(all, "listing events: "+lerr.Error())
		}
		t.Fatalf("%s %s/%s: no %s event containing %q; saw %q; every event about %s: %q", kind, ns, name, reason, part, seen, name, all)
	}
}

// settles waits until the scheduler has caught up with the API server and
// holds nothing in hand, its writers included (caughtUp), then requires cond:
// what the scheduler was to do with the cluster as it stands it has done,
// so the verdict does not hang on how long the test looks.
func settles(t *testing.T, ctx context.Context, env *controlplane.Env, sched *controlplane.Scheduler, what string, cond func() (bool, error)) {
	t.Helper()
	caughtUp(t, ctx, env, sched)
	ok, err := cond()
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Fatalf("%s: does not hold once the scheduler has caught up", what)
	}
}

// createPriorityClasses creates PriorityClasses and waits until priority
// admission, which reads them from a cache, accepts a pod naming each (a
// dry run), so the test's pods can be created at once.
func createPriorityClasses(t *testing.T, ctx context.Context, env *controlplane.Env, classes map[string]int32) {
	t.Helper()
	for name, value := range classes {
		if err := controlplane.CreatePriorityClass(ctx, env.Client, name, value); err != nil {
			t.Fatal(err)
		}
	}
	for name := range classes {
		probe := controlplane.Member{Namespace: ns, Name: "priority-probe", PriorityClass: name}.Pod()
		if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			_, err := env.Client.CoreV1().Pods(ns).Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			if err != nil && strings.Contains(err.Error(), "no PriorityClass") {
				return false, nil
			}
			return err == nil, err
		}); err != nil {
			t.Fatalf("PriorityClass %s not admitted: %v", name, err)
		}
	}
}

// caughtUp waits until the scheduler has seen every node and pod the API
// server lists (controlplane Caught) and has nothing left to do with them: no pod
// active, backing off, in flight or waiting at Permit, nothing owed to the
// API (Quiet), twice in a row, so that an event it saw between the two
// checks has had its consequences too. A test then asserts what must not
// have happened after a change, without a wall-clock window.
func caughtUp(t *testing.T, ctx context.Context, env *controlplane.Env, sched *controlplane.Scheduler) {
	t.Helper()
	quietTwice(t, ctx, env, sched)
	// The ProvisioningRequest writer also acts on its period, from the
	// cluster as it is (the hold marks of members that joined a gang whose
	// verdict did not change): a whole sync begun after the quiet, then
	// what it asked written.
	begun, _, _ := sched.HintSyncs()
	if err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 60*time.Second, true, func(context.Context) (bool, error) {
		_, done, _ := sched.HintSyncs()
		return done > begun, nil
	}); err != nil {
		t.Fatalf("no ProvisioningRequest sync began after %d ended: %v", begun, err)
	}
	quietTwice(t, ctx, env, sched)
}

// quietTwice waits until the scheduler has seen every node and pod the API
// lists (Caught) and holds nothing in hand (Quiet), on two looks in a row.
func quietTwice(t *testing.T, ctx context.Context, env *controlplane.Env, sched *controlplane.Scheduler) {
	t.Helper()
	twice(t, ctx, "the scheduler did not catch up with the API server", func(ctx context.Context) (bool, string) {
		if ok, why := caught(ctx, env, sched, nil); !ok {
			return false, why
		}
		return sched.Quiet()
	})
}

// caught says whether the scheduler has seen every node and pod the API
// lists, and every pod passes also (nil: any), and why not.
func caught(ctx context.Context, env *controlplane.Env, sched *controlplane.Scheduler, also func(*v1.Pod) (bool, string)) (bool, string) {
	ok, why, err := sched.CaughtUp(ctx, env.Client, also)
	if err != nil {
		return false, err.Error()
	}
	return ok, why
}

// twice waits until look holds on two looks in a row, 20 ms apart, so that
// what happened between them has had its consequences too; look says why
// not when it does not hold, and the failure quotes the last why.
func twice(t *testing.T, ctx context.Context, what string, look func(context.Context) (bool, string)) {
	t.Helper()
	var why string
	streak := 0
	if err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		var ok bool
		if ok, why = look(ctx); ok {
			streak++
		} else {
			streak = 0
		}
		return streak >= 2, nil
	}); err != nil {
		t.Fatalf("%s: %s: %v", what, why, err)
	}
}

// heldFor is the condition of a member refused because the capacity plan
// holds the room it would fit in for a gang ahead of its own.
func heldFor() func(*v1.Pod) bool {
	return hasScheduledReason(v1.PodReasonUnschedulable, "held for gangs ahead in the capacity plan")
}
