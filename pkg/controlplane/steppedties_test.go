// Unit tests of the stepped scheduler's tie-break among equally scored nodes.

package controlplane

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	fwk "k8s.io/kube-scheduler/framework"
	schedframework "k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/muster-project/muster/pkg/simulate"
)

// Upstream's heap of scored nodes (what schedulePod pops its node from)
// gives the node with the highest total and, among equal totals, after
// tieByName, the first in name order, whatever the order the nodes were
// scored in. Without it a tie goes to the heap's first slot, which
// follows that order (a Go map's, when a PreFilter plugin names the
// nodes).
func TestTieByNameTakesTheFirstNameOfTheBest(t *testing.T) {
	score := func(name string, total int64) fwk.NodePluginScores {
		return fwk.NodePluginScores{Name: name, TotalScore: total}
	}
	for _, tc := range []struct {
		name   string
		scores []fwk.NodePluginScores
		want   string
	}{
		{"all tied, in name order", []fwk.NodePluginScores{score("gpu-0", 50), score("gpu-1", 50), score("gpu-2", 50), score("gpu-3", 50)}, "gpu-0"},
		{"all tied, reversed", []fwk.NodePluginScores{score("gpu-3", 50), score("gpu-2", 50), score("gpu-1", 50), score("gpu-0", 50)}, "gpu-0"},
		{"all tied, shuffled", []fwk.NodePluginScores{score("gpu-2", 50), score("gpu-0", 50), score("gpu-3", 50), score("gpu-1", 50)}, "gpu-0"},
		{"the best score first, whatever its name", []fwk.NodePluginScores{score("gpu-0", 50), score("gpu-3", 70), score("gpu-1", 50)}, "gpu-3"},
		{"a tie among the best only", []fwk.NodePluginScores{score("gpu-0", 10), score("gpu-5", 70), score("gpu-4", 70), score("gpu-1", 10)}, "gpu-4"},
		{"one node", []fwk.NodePluginScores{score("gpu-7", 0)}, "gpu-7"},
	} {
		scores := append([]fwk.NodePluginScores(nil), tc.scores...)
		tieByName(scores)
		if got := schedframework.NewSortedScoredNodes(scores).Pop().Name; got != tc.want {
			t.Errorf("%s: the heap gives %s, want %s", tc.name, got, tc.want)
		}
	}
	// Without the tie-break the reversed tie goes to the heap's first slot.
	reversed := []fwk.NodePluginScores{score("gpu-3", 50), score("gpu-2", 50), score("gpu-1", 50), score("gpu-0", 50)}
	if got := schedframework.NewSortedScoredNodes(reversed).Pop().Name; got == "gpu-0" {
		t.Fatal("upstream's heap now breaks ties by name: revisit tieByName")
	}
}

// A stepped scheduler with the default profile puts a pod on the first of
// several equally good nodes in name order: here registered last, so the
// node list the scheduler filters in order holds it last, and upstream's
// heap alone would give the pod the node registered first.
func TestSteppedSchedulerPlacesOnTheFirstNameOfEqualNodes(t *testing.T) {
	ctx := context.Background()
	env, kubeconfig := startEnv(t)
	sched, err := env.StartSteppedScheduler(ctx, DefaultConfig(kubeconfig), simulate.NewStepClock(time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sched.Stop)
	// Registered while the scheduler watches, so that its node list holds
	// them in this order (its first listing would sort them by name).
	for _, name := range []string{"gpu-3", "gpu-2", "gpu-1", "gpu-0"} {
		if err := CreateNode(ctx, env.Client, GPUNode(name, 8)); err != nil {
			t.Fatal(err)
		}
	}
	var why string
	if err := wait.PollUntilContextTimeout(ctx, 5*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		ok, w, err := sched.CaughtUp(ctx, env.Client, nil)
		why = w
		return ok, err
	}); err != nil {
		t.Fatalf("the scheduler never saw the nodes: %s: %v", why, err)
	}
	for i, want := range []string{"gpu-0", "gpu-1"} {
		name := fmt.Sprintf("p%d", i)
		if err := CreatePods(ctx, env.Client, Member{Namespace: "default", Name: name, Scheduler: "default-scheduler", GPUs: 8, Labels: map[string]string{"pod": name}}); err != nil {
			t.Fatal(err)
		}
		if err := WaitBound(ctx, env.Client, "default", Selector("pod", name), 1, 30*time.Second); err != nil {
			t.Fatal(err)
		}
		p, err := env.Client.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if p.Spec.NodeName != want {
			t.Errorf("pod %s on %s, want %s (the first free node by name)", name, p.Spec.NodeName, want)
		}
	}
}
