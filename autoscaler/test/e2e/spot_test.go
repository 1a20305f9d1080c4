// E2E test of spot fallback: a spot scale-up Azure cannot serve is reported out-of-resources, backed off, and the regular pool gets the node.

package e2e

import (
	"context"
	"os"
	"testing"
	"time"

	apiv1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/muster-project/muster/autoscaler/armlocal"
)

// TestSpotFallsBackToRegular: a worker that tolerates spot nodes, a spot
// pool the priority expander prefers, and a regular pool of the same size.
// Azure has no spot capacity: the spot scale-up fails, is reported
// out-of-resources, the core backs the spot pool off, and the regular pool
// gets the node. Nothing of the failed spot scale-up is left.
func TestSpotFallsBackToRegular(t *testing.T) {
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
	if err := arm.AddScaleSet(armlocal.ScaleSetSpec{ResourceGroup: rg, Name: "gpu-spot", SKU: "Standard_ND96isr_H100_v5",
		Spot: &armlocal.Spot{EvictionPolicy: armlocal.EvictDelete}, Tags: poolTags("0", "2", true)}); err != nil {
		t.Fatal(err)
	}
	arm.InjectPartialProvisioning("gpu-spot", 0, "SkuNotAvailable")
	_, cpuInsts, _ := arm.ScaleSet(rg, "cpu")
	registerNode(t, kube, cpuInsts[0], "cpu", "Standard_D16s_v5", "16", "64Gi", 0, nil)

	// The priority expander, as cluster-autoscaler reads it: spot first.
	if _, err := kube.CoreV1().ConfigMaps("kube-system").Create(ctx, &apiv1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "cluster-autoscaler-priority-expander", Namespace: "kube-system"},
		Data:       map[string]string{"priorities": "50:\n  - gpu-spot\n10:\n  - .*\n"},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	cloudConfig := writeCloudConfig(t, arm, "10m", "2m")
	proc := startAutoscalerProcess(t, bin, []string{
		"--kubeconfig=" + writeKubeconfig(t, restCfg),
		"--cloud-config=" + cloudConfig,
		"--leader-elect=false",
		"--address=127.0.0.1:0",
		"--scan-interval=1s",
		"--expander=priority",
		"--scale-down-enabled=false",
		"--max-node-provision-time=2m",
		"--new-pod-scale-up-delay=0s",
		"--v=2",
	}, append(os.Environ(), "SSL_CERT_FILE="+arm.CAFile()), "[autoscaler] ")

	pod := &apiv1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "extra-0", Namespace: "default"},
		Spec: apiv1.PodSpec{
			Containers: []apiv1.Container{{Name: "train", Image: "trainer", Resources: apiv1.ResourceRequirements{
				Requests: apiv1.ResourceList{apiv1.ResourceCPU: resource.MustParse("8"), gpu: resource.MustParse("8")},
				Limits:   apiv1.ResourceList{gpu: resource.MustParse("8")},
			}}},
			Tolerations: []apiv1.Toleration{
				{Key: gpuTaint, Operator: apiv1.TolerationOpExists, Effect: apiv1.TaintEffectNoSchedule},
				{Key: "kubernetes.azure.com/scalesetpriority", Operator: apiv1.TolerationOpEqual, Value: "spot", Effect: apiv1.TaintEffectNoSchedule},
			},
		},
	}
	createUnschedulable(t, kube, pod)

	// The spot pool is tried first and fails; the regular pool takes over.
	waitFor(t, "a spot scale-up to be tried", func() bool { return arm.Requests(armlocal.OpScaleSetUpdate) > 0 && spotTried(arm) })
	waitProvisioned(t, arm, "gpu-heavy", 1)
	waitFor(t, "the failed spot scale-up cleaned up", func() bool { c, insts, _ := arm.ScaleSet(rg, "gpu-spot"); return c == 0 && len(insts) == 0 })
	if c, _, _ := arm.ScaleSet(rg, "gpu-heavy"); c != 1 {
		t.Fatalf("regular pool capacity %d, want 1", c)
	}
	select {
	case err := <-proc.exited:
		t.Fatalf("the autoscaler exited: %v", err)
	default:
	}
}

// spotTried says the spot pool was scaled up at some point.
func spotTried(arm *armlocal.Server) bool {
	for _, p := range arm.Snapshot().Pools {
		if p.Name == "gpu-spot" && (p.Capacity > 0 || len(p.Instances) > 0) {
			return true
		}
	}
	for _, d := range arm.Deletions() {
		if d.Pool == "gpu-spot" {
			return true
		}
	}
	return false
}
