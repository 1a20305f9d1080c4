// Integration test of narrowing: a gang placing its quorum tries its own nodes first, then every node when they lack a member's CPU, without failing its attempt.

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

	"github.com/muster-project/muster/pkg/controlplane"
	"github.com/muster-project/muster/pkg/gang"
)

// A gang placing its quorum tries its own nodes first (MusterTopology
// narrows a member's nodes to those holding its gang's members with GPUs
// free). When those nodes have free GPUs but not the member's CPU, the
// member is tried on every node at once, without failing the gang's
// attempt: the gang's members are refused for nothing else. The gang is an MPI job's mix (a CPU
// launcher, workers of 1 and 2 GPUs) of high priority; an elastic gang of
// lower priority then grows to its max beside it, on its own nodes first
// too (a gang's members above min are not narrowed).
func TestGangTriesItsOwnNodesFirst(t *testing.T) {
	ctx, env, _ := setup(t, controlplane.GangArgs{BackoffSeconds: 1})
	// Eight GPUs but CPU for four members (100m each) per node.
	for i := 0; i < 6; i++ {
		n := controlplane.GPUNode(fmt.Sprintf("tight-%d", i), 8)
		for _, rl := range []v1.ResourceList{n.Status.Capacity, n.Status.Allocatable} {
			rl[v1.ResourceCPU] = resource.MustParse("450m")
		}
		if err := controlplane.CreateNode(ctx, env.Client, n); err != nil {
			t.Fatal(err)
		}
	}
	createPriorityClasses(t, ctx, env, map[string]int32{"low": 10, "high": 1000})
	createPodGroup(t, env, 13, 0, 0, "mpi")
	var pods []*v1.Pod
	pods = append(pods, controlplane.Member{Namespace: ns, Name: "mpi-launcher", PriorityClass: "high", Labels: map[string]string{gang.PodGroupLabel: "mpi"}}.Pod())
	for i := 0; i < 12; i++ {
		gpus := int64(1)
		if i%3 == 2 {
			gpus = 2
		}
		pods = append(pods, controlplane.Member{Namespace: ns, Name: fmt.Sprintf("mpi-worker-%d", i), GPUs: gpus, PriorityClass: "high", Labels: map[string]string{gang.PodGroupLabel: "mpi"}}.Pod())
	}
	elastic := controlplane.LabelMembers(ns, "elastic", 4, 2, 2, 4)
	for i := range elastic {
		elastic[i].PriorityClass = "low"
	}
	createPods(t, ctx, env, pods...)
	waitBound(t, env, gang.PodGroupLabel, "mpi", 13)
	if err := controlplane.CreatePods(ctx, env.Client, elastic...); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.GroupLabel, "elastic", 4)

	// The fallback ran: some member was told its gang's nodes had no room
	// for it, and was placed on the next try.
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 20*time.Second, true, func(ctx context.Context) (bool, error) {
		evs, err := env.Client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		for _, e := range evs.Items {
			if strings.Contains(e.Message, "fits none of the nodes holding its gang's members; trying every node") {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Errorf("no member fell back from its gang's nodes to every node; the test did not exercise the fallback")
	}
	// The gang bound in one attempt: no member was refused (a
	// FailedScheduling event) but to fall back.
	for _, p := range pods {
		for _, note := range eventsFor(ctx, env, "Pod", p.Name, "FailedScheduling") {
			if !strings.Contains(note, "trying every node") {
				t.Errorf("%s refused: %q; the gang's attempt failed", p.Name, note)
			}
		}
	}
	// Members packed: no node holds more than its CPU allows, and the GPU
	// workers share nodes rather than spreading one per node.
	list, err := env.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: controlplane.Selector(gang.PodGroupLabel, "mpi")})
	if err != nil {
		t.Fatal(err)
	}
	perNode := map[string]int{}
	for _, p := range list.Items {
		perNode[p.Spec.NodeName]++
	}
	for n, c := range perNode {
		if c > 4 {
			t.Errorf("node %s holds %d of the gang's members; its CPU fits 4", n, c)
		}
	}
	if len(perNode) > 5 {
		t.Errorf("the gang's 13 members spread over %d nodes (%v); 4 fit their CPU", len(perNode), perNode)
	}
}
