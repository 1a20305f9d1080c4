// The e2e harness: the autoscaler binary built, its cloud-config and pools in armlocal, waits for provisioned instances, and CPU barrier pods proving whole loops ran.

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	apiv1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/muster-project/muster/autoscaler/armlocal"
	"github.com/muster-project/muster/autoscaler/nodeagent/apiservertest"
)

// The API server comes from apiservertest, shared with the node agent's tests.
var (
	startAPIServer  = apiservertest.Start
	writeKubeconfig = apiservertest.WriteKubeconfig
	goBin           = apiservertest.GoBin
)

// buildAutoscaler builds cmd/muster-autoscaler with the module's GOFLAGS
// (the Makefile's -tags=kwok), using the build cache.
func buildAutoscaler(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "muster-autoscaler")
	cmd := exec.Command(goBin(), "build", "-o", bin, "./cmd/muster-autoscaler")
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building muster-autoscaler: %v\n%s", err, out)
	}
	readModuleSources(t)
	return bin
}

// readModuleSources reads the sources of this module's packages the binary
// is built from, and go.mod/go.sum: go test caches a result by the files
// the test read, and the binary is built in a subprocess, so without this
// a changed provider or consumer would replay a cached pass.
func readModuleSources(t *testing.T) {
	t.Helper()
	cmd := exec.Command(goBin(), "list", "-deps", "-f", "{{if .Module}}{{if .Module.Main}}{{.Dir}}{{end}}{{end}}", "./cmd/muster-autoscaler")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("listing muster-autoscaler's packages: %v", err)
	}
	files := []string{filepath.Join("..", "..", "go.mod"), filepath.Join("..", "..", "go.sum")}
	for _, dir := range strings.Fields(string(out)) {
		matches, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range matches {
			if !strings.HasSuffix(m, "_test.go") {
				files = append(files, m)
			}
		}
	}
	for _, f := range files {
		if _, err := os.ReadFile(f); err != nil {
			t.Fatalf("reading %s: %v", f, err)
		}
	}
}

// logWriter forwards a subprocess's output to the test log.
type logWriter struct {
	t      *testing.T
	prefix string
}

func (w logWriter) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		w.t.Log(w.prefix + line)
	}
	return len(p), nil
}

// writeCloudConfig writes the client secret and a cloud-config for the
// provider against arm, discovering the pools tagged for this e2e, with the
// GPU pools' scale-down unneeded time and node provision time; it returns
// the cloud-config's path.
func writeCloudConfig(t *testing.T, arm *armlocal.Server, gpuUnneeded, gpuProvision string) string {
	t.Helper()
	dir := t.TempDir()
	secretFile := filepath.Join(dir, "client-secret")
	if err := os.WriteFile(secretFile, []byte("e2e-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cloudConfig := filepath.Join(dir, "cloud-config.yaml")
	if err := os.WriteFile(cloudConfig, []byte(fmt.Sprintf(`
resourceManagerEndpoint: %[1]s
activeDirectoryAuthorityHost: %[1]s
tenantId: %[2]s
subscriptionId: %[3]s
resourceGroup: %[4]s
location: westeurope
auth:
  method: client-secret
  clientId: muster-autoscaler
  clientSecretFile: %[5]s
autoDiscovery:
  tags:
    cluster-autoscaler-enabled: "true"
    cluster-autoscaler-name: e2e
gpuPools:
  scaleDownUnneededTime: %[6]s
  maxNodeProvisionTime: %[7]s
pollInterval: 200ms
cacheTTL: 500ms
discoveryInterval: 5s
requestTimeout: 20s
retryDelay: 200ms
`, arm.URL(), arm.TenantID(), arm.SubscriptionID(), rg, secretFile, gpuUnneeded, gpuProvision)), 0o600); err != nil {
		t.Fatal(err)
	}
	return cloudConfig
}

// poolTags are an autoscaled scale set's tags in these tests; GPU pools
// carry the GPU taint in their node template.
func poolTags(min, max string, gpuPool bool) map[string]string {
	m := map[string]string{"min": min, "max": max, "cluster-autoscaler-enabled": "true", "cluster-autoscaler-name": "e2e"}
	if gpuPool {
		m["k8s.io_cluster-autoscaler_node-template_taint_nvidia.com_gpu"] = "present:NoSchedule"
	}
	return m
}

// addPools adds the tests' three autoscaled scale sets to arm: cpu (one
// instance, 1 to 5), gpu-light (T4, 0 to 4) and gpu-heavy (H100 in one
// proximity placement group, 0 to heavyMax).
func addPools(t *testing.T, arm *armlocal.Server, heavyMax string) {
	t.Helper()
	for _, ss := range []armlocal.ScaleSetSpec{
		{ResourceGroup: rg, Name: "cpu", SKU: "Standard_D16s_v5", Capacity: 1, Tags: poolTags("1", "5", false)},
		{ResourceGroup: rg, Name: "gpu-light", SKU: "Standard_NC4as_T4_v3", Tags: poolTags("0", "4", true)},
		{ResourceGroup: rg, Name: "gpu-heavy", SKU: "Standard_ND96isr_H100_v5", ProximityPlacementGroup: "ppg-ib", Tags: poolTags("0", heavyMax, true)},
	} {
		if err := arm.AddScaleSet(ss); err != nil {
			t.Fatal(err)
		}
	}
}

// waitProvisioned waits until pool has n instances, all provisioned, and
// returns them.
func waitProvisioned(t *testing.T, arm *armlocal.Server, pool string, n int) []armlocal.InstanceView {
	t.Helper()
	waitFor(t, fmt.Sprintf("%d instances of %s to provision", n, pool), func() bool {
		_, insts, _ := arm.ScaleSet(rg, pool)
		for _, in := range insts {
			if in.State != armlocal.StateSucceeded {
				return false
			}
		}
		return len(insts) == n
	})
	_, insts, _ := arm.ScaleSet(rg, pool)
	return insts
}

// liveInstances returns the computer names of pool's instances.
func liveInstances(arm *armlocal.Server, pool string) map[string]bool {
	_, insts, _ := arm.ScaleSet(rg, pool)
	live := map[string]bool{}
	for _, in := range insts {
		live[in.ComputerName] = true
	}
	return live
}

// barriers pass CPU barrier pods: each pending pod needs one more CPU node,
// so once the CPU pool has grown for it the autoscaler has run whole loops
// with everything created before it in place. The CPU pool's first instance
// is registered and filled by a running pod.
type barriers struct {
	t    *testing.T
	kube kubernetes.Interface
	arm  *armlocal.Server
	n    int
}

func newBarriers(t *testing.T, kube kubernetes.Interface, arm *armlocal.Server) *barriers {
	t.Helper()
	_, cpuInsts, _ := arm.ScaleSet(rg, "cpu")
	registerNode(t, kube, cpuInsts[0], "cpu", "Standard_D16s_v5", "16", "64Gi", 0, nil)
	if _, err := kube.CoreV1().Pods("default").Create(context.Background(), &apiv1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "filler", Namespace: "default"},
		Spec: apiv1.PodSpec{NodeName: cpuInsts[0].ComputerName, Containers: []apiv1.Container{{Name: "c", Image: "x", Resources: apiv1.ResourceRequirements{
			Requests: apiv1.ResourceList{apiv1.ResourceCPU: resource.MustParse("15")}}}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return &barriers{t: t, kube: kube, arm: arm}
}

func (b *barriers) cpu() int { c, _, _ := b.arm.ScaleSet(rg, "cpu"); return c }

// pass creates the next barrier pod and waits for the CPU pool to grow by
// exactly one node for it.
func (b *barriers) pass() {
	b.t.Helper()
	before := b.cpu()
	b.n++
	createUnschedulable(b.t, b.kube, &apiv1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("barrier-%d", b.n), Namespace: "default"},
		Spec: apiv1.PodSpec{Containers: []apiv1.Container{{Name: "c", Image: "x", Resources: apiv1.ResourceRequirements{
			Requests: apiv1.ResourceList{apiv1.ResourceCPU: resource.MustParse("15")}}}}},
	})
	waitFor(b.t, fmt.Sprintf("the CPU pool to grow for barrier-%d", b.n), func() bool { return b.cpu() > before })
	if c := b.cpu(); c != before+1 {
		b.t.Fatalf("CPU pool %d after barrier-%d, want %d", c, b.n, before+1)
	}
}
