// Tests of the stepped scheduler's barrier: Caught on a running scheduler.

package controlplane

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
)

// Caught holds only once the scheduler's cache has each node as listed: a
// node registered and then changed (made ready) is two changes, and the
// count of nodes alone (what Caught once compared) is right after the first.
func TestCaughtWantsEachNodeAsListed(t *testing.T) {
	ctx := context.Background()
	env, kubeconfig := startEnv(t)
	sched, err := env.StartScheduler(ctx, DefaultConfig(kubeconfig))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sched.Stop)
	if err := CreateNode(ctx, env.Client, GPUNode("n1", 8)); err != nil {
		t.Fatal(err)
	}
	caught := func() (bool, string) {
		ok, why, err := sched.CaughtUp(ctx, env.Client, nil)
		if err != nil {
			return false, err.Error()
		}
		return ok, why
	}
	waitCaught := func() {
		t.Helper()
		var why string
		if err := wait.PollUntilContextTimeout(ctx, 5*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
			ok, w := caught()
			why = w
			return ok, nil
		}); err != nil {
			t.Fatalf("the scheduler never caught up: %s", why)
		}
	}
	waitCaught()

	// A change the scheduler has not seen yet: the listing's node is
	// newer than the cache's (its resourceVersion bumped by hand, as the
	// watch's delivery cannot be held back).
	nodes, err := env.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pods, err := env.Client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nodes.Items[0].ResourceVersion += "0"
	if ok, why := sched.Caught(nodes.Items, pods.Items); ok || !strings.Contains(why, "node n1 at resourceVersion") {
		t.Errorf("Caught with a node changed since the cache saw it = %t (%q), want false naming node n1", ok, why)
	}

	// A real change: once the scheduler has it, Caught holds again.
	if _, err := env.Client.CoreV1().Nodes().Patch(ctx, "n1", "application/merge-patch+json", []byte(`{"metadata":{"labels":{"ready":"yes"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitCaught()
}

// startEnv starts a control plane for the test and returns it with the
// path of its kubeconfig.
func startEnv(t *testing.T) (*Env, string) {
	t.Helper()
	env, err := Start(t)
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig, err := env.Kubeconfig()
	if err != nil {
		t.Fatal(err)
	}
	return env, kubeconfig
}
