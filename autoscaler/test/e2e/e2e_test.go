// Package e2e runs the muster-autoscaler binary against a real
// kube-apiserver (in-process, k8s 1.33 line) and the local ARM endpoint.
package e2e

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	apiv1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/muster-project/muster/autoscaler/armlocal"
	"github.com/muster-project/muster/autoscaler/nodeagent/apiservertest"
)

const (
	rg        = "rg-muster"
	gpu       = apiv1.ResourceName("nvidia.com/gpu")
	gpuTaint  = "nvidia.com/gpu"
	waitLimit = 3 * time.Minute // hang guard, not a timing assertion
)

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	apiservertest.WaitFor(t, what, waitLimit, 200*time.Millisecond, cond)
}

// registerNode creates the Node a kubelet (plus GPU Feature Discovery) would
// register for an instance, Ready, with the not-ready taint the API server
// adds lifted as the node lifecycle controller would.
func registerNode(t *testing.T, c kubernetes.Interface, inst armlocal.InstanceView, pool, sku string, cpu, mem string, gpus int64, taints []apiv1.Taint) {
	t.Helper()
	rl := apiv1.ResourceList{apiv1.ResourceCPU: resource.MustParse(cpu), apiv1.ResourceMemory: resource.MustParse(mem), apiv1.ResourcePods: resource.MustParse("110")}
	labels := map[string]string{
		"kubernetes.io/hostname": inst.ComputerName, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
		"node.kubernetes.io/instance-type": sku, "agentpool": pool, "kubernetes.azure.com/agentpool": pool,
		"topology.kubernetes.io/region": "westeurope", "topology.kubernetes.io/zone": "0",
	}
	if gpus > 0 {
		rl[gpu] = *resource.NewQuantity(gpus, resource.DecimalSI)
		labels["nvidia.com/gpu.product"] = "NVIDIA-H100-80GB-HBM3"
		labels["nvidia.com/gpu.count"] = fmt.Sprint(gpus)
	}
	n := &apiv1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: inst.ComputerName, Labels: labels},
		Spec:       apiv1.NodeSpec{ProviderID: inst.ProviderID, Taints: taints},
		Status: apiv1.NodeStatus{Capacity: rl, Allocatable: rl, Conditions: []apiv1.NodeCondition{
			{Type: apiv1.NodeReady, Status: apiv1.ConditionTrue, LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.NewTime(time.Now().Add(-time.Minute))},
		}},
	}
	ctx := context.Background()
	created, err := c.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("registering node %s: %v", n.Name, err)
	}
	var keep []apiv1.Taint
	for _, tt := range created.Spec.Taints {
		if tt.Key != apiv1.TaintNodeNotReady {
			keep = append(keep, tt)
		}
	}
	created.Spec.Taints = keep
	if _, err := c.CoreV1().Nodes().Update(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	created, err = c.CoreV1().Nodes().Get(ctx, n.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created.Status = n.Status
	if _, err := c.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestGPUGangScaleUpAndDown: an Unschedulable pod asking for 8 GPUs makes
// the heavy-GPU pool grow by exactly one instance; once the pod is gone the
// node is removed after the (shortened) unneeded time. The CPU-only and
// light-GPU pools are left alone.
func TestGPUGangScaleUpAndDown(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the autoscaler and runs a control plane")
	}
	bin := buildAutoscaler(t)
	restCfg := startAPIServer(t)
	kube := kubernetes.NewForConfigOrDie(restCfg)
	ctx := context.Background()

	arm, err := armlocal.New(armlocal.Options{ProvisioningDelay: time.Second, ClientID: "muster-autoscaler", ClientSecret: "e2e-secret"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(arm.Close)
	addPools(t, arm, "2")
	_, cpuInsts, _ := arm.ScaleSet(rg, "cpu")
	registerNode(t, kube, cpuInsts[0], "cpu", "Standard_D16s_v5", "16", "64Gi", 0, nil)

	cloudConfig := writeCloudConfig(t, arm, "3s", "2m")

	proc := startAutoscalerProcess(t, bin, []string{
		"--kubeconfig=" + writeKubeconfig(t, restCfg),
		"--cloud-config=" + cloudConfig,
		"--leader-elect=false",
		"--address=127.0.0.1:0",
		"--scan-interval=1s",
		"--expander=price",
		"--scale-down-enabled=true",
		"--scale-down-unneeded-time=3s",
		"--scale-down-delay-after-add=2s",
		"--scale-down-delay-after-delete=0s",
		"--scale-down-delay-after-failure=2s",
		"--max-node-provision-time=2m",
		"--new-pod-scale-up-delay=0s",
		"--v=2",
	}, append(os.Environ(), "SSL_CERT_FILE="+arm.CAFile()), "[autoscaler] ")

	// A training worker asking for a whole 8-GPU node, marked Unschedulable
	// as a scheduler would.
	pod := &apiv1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "worker-0", Namespace: "default"},
		Spec: apiv1.PodSpec{
			Containers: []apiv1.Container{{Name: "train", Image: "trainer", Resources: apiv1.ResourceRequirements{
				Requests: apiv1.ResourceList{apiv1.ResourceCPU: resource.MustParse("8"), gpu: resource.MustParse("8")},
				Limits:   apiv1.ResourceList{gpu: resource.MustParse("8")},
			}}},
			Tolerations: []apiv1.Toleration{{Key: gpuTaint, Operator: apiv1.TolerationOpExists, Effect: apiv1.TaintEffectNoSchedule}},
		},
	}
	created, err := kube.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created.Status.Conditions = []apiv1.PodCondition{{Type: apiv1.PodScheduled, Status: apiv1.ConditionFalse, Reason: apiv1.PodReasonUnschedulable,
		Message: "0/1 nodes are available: 1 Insufficient nvidia.com/gpu.", LastTransitionTime: metav1.Now()}}
	if _, err := kube.CoreV1().Pods("default").UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	// The heavy-GPU pool grows by exactly one instance.
	var heavy []armlocal.InstanceView
	waitFor(t, "the heavy-GPU pool to grow", func() bool {
		c, insts, _ := arm.ScaleSet(rg, "gpu-heavy")
		heavy = insts
		return c > 0 && len(insts) > 0 && insts[0].State == armlocal.StateSucceeded
	})
	if c, insts, _ := arm.ScaleSet(rg, "gpu-heavy"); c != 1 || len(insts) != 1 {
		t.Fatalf("heavy-GPU pool: capacity %d, instances %+v; want exactly 1", c, insts)
	}
	for _, other := range []struct {
		name string
		want int
	}{{"cpu", 1}, {"gpu-light", 0}} {
		if c, _, _ := arm.ScaleSet(rg, other.name); c != other.want {
			t.Fatalf("pool %s changed to %d", other.name, c)
		}
	}

	// The instance registers as a node, as its kubelet would; the pod runs
	// there and finishes.
	registerNode(t, kube, heavy[0], "gpu-heavy", "Standard_ND96isr_H100_v5", "96", "1900Gi", 8,
		[]apiv1.Taint{{Key: gpuTaint, Value: "present", Effect: apiv1.TaintEffectNoSchedule}})
	if err := kube.CoreV1().Pods("default").Bind(ctx, &apiv1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "worker-0", Namespace: "default"},
		Target: apiv1.ObjectReference{Kind: "Node", Name: heavy[0].ComputerName}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// No second instance while the pod is there.
	if c, _, _ := arm.ScaleSet(rg, "gpu-heavy"); c != 1 {
		t.Fatalf("heavy-GPU pool capacity %d after registration, want 1", c)
	}
	if err := kube.CoreV1().Pods("default").Delete(ctx, "worker-0", metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}

	// The idle GPU node is removed after the unneeded time; the CPU pool
	// stays at its min.
	waitFor(t, "the idle GPU node to be removed", func() bool {
		c, insts, _ := arm.ScaleSet(rg, "gpu-heavy")
		return c == 0 && len(insts) == 0
	})
	if c, insts, _ := arm.ScaleSet(rg, "cpu"); c != 1 || len(insts) != 1 || insts[0].ID != cpuInsts[0].ID {
		t.Fatalf("CPU pool changed: capacity %d instances %+v", c, insts)
	}
	if n := arm.CapacityWrites(); n != 1 {
		t.Fatalf("%d capacity writes, want exactly 1 (the scale-up)", n)
	}
	if n := arm.Requests(armlocal.OpScaleSetDeleteInstances); n != 1 {
		t.Fatalf("%d instance deletions, want exactly 1 (the scale-down)", n)
	}
	select {
	case err := <-proc.exited:
		t.Fatalf("the autoscaler exited: %v", err)
	default:
	}
}
