// Upstream's side of the write load of a big gang: the 512-member gang of test/integration's TestWriteLoadOfABigGang under kube-scheduler's GangScheduling.

package bench

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/muster-project/muster/pkg/controlplane"
)

// TestWriteLoadOfABigGangUpstream schedules the gang of Muster's
// TestWriteLoadOfABigGang (512 one-GPU members differing by RANK and
// hostname, on 8-GPU nodes, one node group of 8 nodes short) as an upstream
// PodGroup (scheduling.k8s.io/v1beta1, gang minCount 512) under
// kube-scheduler's default profile with GenericWorkload on, waits until
// every member is Unschedulable, adds the 8 nodes one by one, and logs the
// API writes per member counted as Muster's test counts them (every write
// but the pods' and nodes' creation, and here the PodGroup's). Upstream
// writes no ProvisioningRequest: the nodes are simply added. The figure is
// logged, not asserted.
func TestWriteLoadOfABigGangUpstream(t *testing.T) {
	const members, gpus, short = 512, 8, 8
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	env, err := controlplane.StartWith(t, controlplane.Options{WorkloadAPI: true})
	if err != nil {
		t.Fatal(err)
	}
	const ns = "team-a"
	if err := controlplane.CreateNamespace(ctx, env.Client, ns); err != nil {
		t.Fatal(err)
	}
	kc, err := env.Kubeconfig()
	if err != nil {
		t.Fatal(err)
	}
	sched, err := env.StartKubeScheduler(ctx, controlplane.DefaultConfig(kc))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sched.Stop)
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", members/gpus-short, gpus); err != nil {
		t.Fatal(err)
	}
	before, err := env.APIWrites(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.Client.SchedulingV1beta1().PodGroups(ns).Create(ctx, controlplane.WorkloadPodGroup(ns, "big", members), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for i := range members {
		m := controlplane.Member{Namespace: ns, Name: fmt.Sprintf("big-%d", i), Scheduler: DefaultProfile, GPUs: 1, SchedulingGroup: "big"}
		p := m.Pod()
		p.Spec.Hostname, p.Spec.Subdomain = p.Name, "big"
		p.Spec.Containers[0].Env = []v1.EnvVar{{Name: "RANK", Value: strconv.Itoa(i)}}
		if _, err := env.Client.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	count := func(ok func(*v1.Pod) bool) func(context.Context) (bool, error) {
		return func(ctx context.Context) (bool, error) {
			pods, err := env.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, err
			}
			n := 0
			for i := range pods.Items {
				if ok(&pods.Items[i]) {
					n++
				}
			}
			return n == members, nil
		}
	}
	unschedulable := func(p *v1.Pod) bool {
		for _, c := range p.Status.Conditions {
			if c.Type == v1.PodScheduled && c.Status == v1.ConditionFalse && c.Reason == v1.PodReasonUnschedulable {
				return true
			}
		}
		return false
	}
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 3*time.Minute, true, count(unschedulable)); err != nil {
		t.Fatalf("members not all Unschedulable: %v", err)
	}
	for i := range short {
		if err := controlplane.CreateNode(ctx, env.Client, controlplane.GPUNode(fmt.Sprintf("more-%d", i), gpus)); err != nil {
			t.Fatal(err)
		}
	}
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 3*time.Minute, true, count(func(p *v1.Pod) bool { return p.Spec.NodeName != "" })); err != nil {
		t.Fatalf("members not all bound: %v", err)
	}
	// The events of the binds are sent after them: wait until the writes
	// stand still on two readings in a row.
	var after map[string]float64
	last := -1.0
	if err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, time.Minute, false, func(ctx context.Context) (bool, error) {
		w, err := env.APIWrites(ctx)
		if err != nil {
			return false, err
		}
		total := 0.0
		for _, v := range w {
			total += v
		}
		settled := total == last && w["POST events"]-before["POST events"] >= members
		after, last = w, total
		return settled, nil
	}); err != nil {
		t.Fatalf("writes did not settle: %v", err)
	}
	var keys []string
	total := 0.0
	for k, v := range after {
		if d := v - before[k]; d > 0 && k != "POST pods" && k != "POST nodes" && k != "POST podgroups" {
			keys = append(keys, k)
			total += d
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%-40s %6.0f  %.2f per member", k, after[k]-before[k], (after[k]-before[k])/members)
	}
	t.Logf("upstream GangScheduling, API writes per gang member (512-member gang, short then given the nodes): %.2f (%.0f in all)", total/members, total)
}
