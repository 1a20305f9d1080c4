// E2E test of withdrawing upcoming nodes: instances still being created that no pending pod needs any more are withdrawn, those still needed kept.

package e2e

import (
	"context"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	apiv1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/muster-project/muster/autoscaler/armlocal"
	"github.com/muster-project/muster/autoscaler/upcoming"
)

// TestWithdrawUnneededUpcomingNodes: the light-GPU pool grows for two
// pending 1-GPU pods and the heavy-GPU pool for an 8-GPU one. While a gated
// pod waits for the heavy node, the light nodes are kept for the 1-GPU pods
// even though those would fit the heavy node too. When one 1-GPU pod no
// longer needs a new node (it went to a GPU that freed up), one light
// instance still being created is withdrawn and the other kept for the pod
// still pending, and then for a pod the scheduler has not tried yet. When no
// pod is left, the last instances go too. Nothing is scaled up again.
func TestWithdrawUnneededUpcomingNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the autoscaler and runs a control plane")
	}
	bin := buildAutoscaler(t)
	restCfg := startAPIServer(t)
	kube := kubernetes.NewForConfigOrDie(restCfg)
	ctx := context.Background()

	// Instances stay Creating for longer than the test can run.
	arm, err := armlocal.New(armlocal.Options{ProvisioningDelay: 30 * time.Minute, ClientID: "muster-autoscaler", ClientSecret: "e2e-secret"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(arm.Close)
	addPools(t, arm, "2")
	bar := newBarriers(t, kube, arm)

	args := []string{
		"--kubeconfig=" + writeKubeconfig(t, restCfg),
		"--cloud-config=" + writeCloudConfig(t, arm, "2s", "40m"),
		"--leader-elect=false",
		"--address=127.0.0.1:0",
		"--scan-interval=1s",
		"--expander=price",
		"--scale-down-enabled=true",
		"--max-node-provision-time=40m",
		"--new-pod-scale-up-delay=0s",
		"--v=2",
	}
	proc := startAutoscalerProcess(t, bin, args, append(os.Environ(), "SSL_CERT_FILE="+arm.CAFile()), "[autoscaler] ")

	light := func() (int, []armlocal.InstanceView) { c, insts, _ := arm.ScaleSet(rg, "gpu-light"); return c, insts }
	heavy := func() int { c, _, _ := arm.ScaleSet(rg, "gpu-heavy"); return c }
	barrier := bar.pass
	gpuPod := func(name string, gpus string) *apiv1.Pod {
		return &apiv1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Spec: apiv1.PodSpec{
				Containers: []apiv1.Container{{Name: "train", Image: "trainer", Resources: apiv1.ResourceRequirements{
					Requests: apiv1.ResourceList{apiv1.ResourceCPU: resource.MustParse("2"), gpu: resource.MustParse(gpus)},
					Limits:   apiv1.ResourceList{gpu: resource.MustParse(gpus)},
				}}},
				Tolerations: []apiv1.Toleration{{Key: gpuTaint, Operator: apiv1.TolerationOpExists, Effect: apiv1.TaintEffectNoSchedule}},
			},
		}
	}
	retrain := func(name string) *apiv1.Pod { return gpuPod(name, "1") }
	remove := func(name string) {
		t.Helper()
		if err := kube.CoreV1().Pods("default").Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
			t.Fatal(err)
		}
	}

	// Two pending 1-GPU pods and an 8-GPU one: two T4 instances and an
	// H100 one, all still being created.
	createUnschedulable(t, kube, gpuPod("worker", "8"))
	createUnschedulable(t, kube, retrain("retrain-a"))
	createUnschedulable(t, kube, retrain("retrain-b"))
	waitFor(t, "the light-GPU pool to grow by 2 and the heavy one by 1", func() bool { c, insts := light(); return c == 2 && len(insts) == 2 && heavy() == 1 })
	_, two := light()
	writes := arm.CapacityWrites()

	// The 8-GPU pod is replaced by a gated one, which the core's scale-up
	// simulation does not see: the 1-GPU pods would fit the heavy node it
	// leaves empty there, yet the light nodes are theirs.
	gatedWorker := gpuPod("worker-gated", "8")
	gatedWorker.Spec.SchedulingGates = []apiv1.PodSchedulingGate{{Name: "example.com/wait"}}
	if _, err := kube.CoreV1().Pods("default").Create(ctx, gatedWorker, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	remove("worker")
	barrier()
	if c, insts := light(); c != 2 || len(insts) != 2 || heavy() != 1 {
		t.Fatalf("light-GPU pool %d (%+v), heavy-GPU pool %d; want 2 and 1 kept", c, insts, heavy())
	}

	// retrain-a no longer needs a new node: the newer instance is
	// withdrawn, the older one kept for retrain-b.
	remove("retrain-a")
	waitFor(t, "one light-GPU instance to be withdrawn", func() bool { c, insts := light(); return c == 1 && len(insts) == 1 })
	barrier()
	if c, insts := light(); c != 1 || len(insts) != 1 || insts[0].ID != two[0].ID || insts[0].State != armlocal.StateCreating {
		t.Fatalf("light-GPU pool: capacity %d, instances %+v; want instance %s, still being created", c, insts, two[0].ID)
	}

	// retrain-c has not been tried by the scheduler yet (no Unschedulable
	// condition): it keeps the node when retrain-b goes.
	if _, err := kube.CoreV1().Pods("default").Create(ctx, retrain("retrain-c"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	remove("retrain-b")
	barrier()
	if c, insts := light(); c != 1 || len(insts) != 1 {
		t.Fatalf("light-GPU pool: capacity %d, instances %+v; want the instance kept for retrain-c", c, insts)
	}

	// No pod is left for them: the last instances are withdrawn.
	remove("retrain-c")
	remove("worker-gated")
	waitFor(t, "the last GPU instances to be withdrawn", func() bool { c, insts := light(); return c == 0 && len(insts) == 0 && heavy() == 0 })
	barrier()
	if c, _ := light(); c != 0 || heavy() != 0 {
		t.Fatalf("GPU pools scaled up again: light %d, heavy %d", c, heavy())
	}
	if n := arm.CapacityWrites() - writes; n != bar.n {
		t.Fatalf("%d capacity writes after the light-GPU scale-up, want %d (one per barrier)", n, bar.n)
	}
	var withdrawn []string
	events, err := kube.CoreV1().Events("").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events.Items {
		if e.Reason == upcoming.EventReason {
			withdrawn = append(withdrawn, e.Message)
		}
	}
	sort.Strings(withdrawn)
	if len(withdrawn) != 3 || !strings.HasPrefix(withdrawn[0], "Withdrew 1 node(s) of gpu-heavy still being created") ||
		!strings.HasPrefix(withdrawn[1], "Withdrew 1 node(s) of gpu-light still being created") || !strings.HasPrefix(withdrawn[2], "Withdrew 1 node(s) of gpu-light") {
		t.Fatalf("%s events %q, want three, each withdrawing one node: two of gpu-light, one of gpu-heavy", upcoming.EventReason, withdrawn)
	}
	proc.checkRunning(t)
}
