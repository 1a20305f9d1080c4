// Integration soak test: gangs of four kinds created and deleted in waves leave no plugin state, requests or templates behind; the heap is reported.

package integration

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"

	autoscalingv1 "github.com/muster-project/muster/pkg/apis/autoscaling/v1"
	"github.com/muster-project/muster/pkg/controlplane"
	"github.com/muster-project/muster/pkg/scheduler/statemetrics"
	"github.com/muster-project/muster/pkg/topology"
)

// soakGangs is how many gangs TestStateIsPrunedWhenGangsGo creates and
// deletes: MUSTER_SOAK_GANGS (make soak runs 10000), else a short run.
func soakGangs(t *testing.T) int {
	v := os.Getenv("MUSTER_SOAK_GANGS")
	if v == "" {
		return 120
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 4 {
		t.Fatalf("MUSTER_SOAK_GANGS=%q: want a whole number of at least 4", v)
	}
	return n
}

// TestStateIsPrunedWhenGangsGo creates and deletes gangs in waves, of four
// kinds: CRD-free gangs that bind, PodGroup gangs that bind (their PodGroup
// deleted after their pods), gangs that never reach quorum, and gangs short
// of a GPU the cluster lacks (they get a ProvisioningRequest). Once all are
// gone, the plugins hold no state for any of them
// (muster_scheduler_state_entries), no request or template is left in the
// API, and the heap after is reported beside the heap after the first wave.
func TestStateIsPrunedWhenGangsGo(t *testing.T) {
	total := soakGangs(t)
	wave := min(40, total)
	const nodes = 12
	ctx, env, _ := setup(t, controlplane.GangArgs{BackoffSeconds: 1})
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", nodes, 8); err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	var firstHeap uint64
	start := time.Now()
	for done := 0; done < total; done += wave {
		n := min(wave, total-done)
		binding := 0
		for i := range n {
			name := fmt.Sprintf("soak-%d", done+i)
			var members []controlplane.Member
			switch i % 4 {
			case 0: // CRD-free, binds
				members = controlplane.LabelMembers(ns, name, 2, 1, 2, 2)
				binding += 2
			case 1: // PodGroup, binds
				createPodGroup(t, env, 2, 2, 0, name)
				members = controlplane.PodGroupMembers(ns, name, 2, 1)
				binding += 2
			case 2: // never reaches quorum: min 3, two members
				members = controlplane.LabelMembers(ns, name, 2, 1, 3, 3)
			case 3: // asks for a GPU the cluster lacks: short, hinted
				members = controlplane.LabelMembers(ns, name, 2, 8, 2, 2)
				for j := range members {
					members[j].Annotations[topology.GPUProductAnnotation] = "NVIDIA-B200"
				}
			}
			for j := range members {
				members[j].Labels["muster.test/soak"] = "true"
			}
			if err := controlplane.CreatePods(ctx, env.Client, members...); err != nil {
				t.Fatal(err)
			}
		}
		if err := controlplane.WaitBound(ctx, env.Client, ns, "muster.test/soak=true", binding, time.Minute); err != nil {
			t.Fatalf("wave at gang %d: %v", done, err)
		}
		if n > 3 {
			// The wave's gangs short of a GPU are tried and hinted: the
			// soak exercises the hints only once a request exists.
			var listErr error
			if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
				prs, err := dyn.Resource(autoscalingv1.Resource).Namespace(ns).List(ctx, metav1.ListOptions{})
				listErr = err
				return err == nil && len(prs.Items) > 0, nil
			}); err != nil {
				t.Fatalf("no ProvisioningRequest for the gangs short of a GPU (%v, %v): the soak would not exercise the hints", err, listErr)
			}
		}
		if err := env.Client.CoreV1().Pods(ns).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)},
			metav1.ListOptions{LabelSelector: "muster.test/soak=true"}); err != nil {
			t.Fatal(err)
		}
		if err := env.PodGroups.SchedulingV1alpha1().PodGroups(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			pods, err := env.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "muster.test/soak=true"})
			return err == nil && len(pods.Items) == 0, nil
		}); err != nil {
			t.Fatalf("wave at gang %d: pods not gone: %v", done, err)
		}
		if done == 0 {
			firstHeap = heap()
		}
	}

	// Everything about the gangs goes; what is about nodes stays.
	keep := map[string]int{"MusterTopology/synced-nodes": nodes}
	var left []string
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		left = left[:0]
		for k, v := range statemetrics.Totals() {
			if v != keep[k] {
				left = append(left, fmt.Sprintf("%s=%d", k, v))
			}
		}
		return len(left) == 0, nil
	}); err != nil {
		sort.Strings(left)
		t.Errorf("state left after %d gangs came and went: %s", total, strings.Join(left, ", "))
	}
	if prs, err := dyn.Resource(autoscalingv1.Resource).Namespace(ns).List(ctx, metav1.ListOptions{}); err != nil || len(prs.Items) > 0 {
		t.Errorf("ProvisioningRequests left: %d (%v)", len(prs.Items), err)
	}
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		tmpls, err := env.Client.CoreV1().PodTemplates(ns).List(ctx, metav1.ListOptions{})
		return err == nil && len(tmpls.Items) == 0, nil
	}); err != nil {
		t.Errorf("PodTemplates left: %v", err)
	}
	last := heap()
	t.Logf("soak: %d gangs (%d pods) created and deleted in %s; heap after the first wave %.1f MiB, after the last %.1f MiB (whole process: API server, etcd and scheduler)",
		total, 2*total, time.Since(start).Round(time.Second), float64(firstHeap)/(1<<20), float64(last)/(1<<20))
	for k, v := range statemetrics.Totals() {
		if v != 0 {
			t.Logf("state entries %s: %d", k, v)
		}
	}
}
