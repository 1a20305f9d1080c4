// Tests of the kueue side's pieces that need no API server: the role hash,
// pods as Kueue's webhook would leave them, an elastic gang's pods, the
// queues' quota.

package replay

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/muster-project/muster/pkg/controlplane"
	"github.com/muster-project/muster/pkg/simulate"
)

// TestKueueRoleHash checks kueueRoleHash against what Kueue v0.17.0's own
// utilpod.GenerateRoleHash gave for the same two specs (a GPU worker at
// priority 100, a CPU launcher at priority 0), computed by a program in
// hack/kueue's module that called it.
func TestKueueRoleHash(t *testing.T) {
	p100, p0 := int32(100), int32(0)
	worker := v1.PodSpec{Priority: &p100,
		Tolerations: []v1.Toleration{{Key: "nvidia.com/gpu", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}},
		Containers: []v1.Container{{Name: "worker", Image: "trainer", Resources: v1.ResourceRequirements{
			Requests: v1.ResourceList{v1.ResourceCPU: *resource.NewMilliQuantity(16000, resource.DecimalSI), v1.ResourceMemory: resource.MustParse("1Gi"), controlplane.GPU: *resource.NewQuantity(8, resource.DecimalSI)},
			Limits:   v1.ResourceList{controlplane.GPU: *resource.NewQuantity(8, resource.DecimalSI)}}}}}
	launcher := v1.PodSpec{Priority: &p0,
		Containers: []v1.Container{{Name: "worker", Image: "trainer", Resources: v1.ResourceRequirements{
			Requests: v1.ResourceList{v1.ResourceCPU: *resource.NewMilliQuantity(2000, resource.DecimalSI), v1.ResourceMemory: resource.MustParse("1Gi")}}}}}
	for _, c := range []struct {
		name string
		spec v1.PodSpec
		want string
	}{{"worker", worker, "b2067730"}, {"launcher", launcher, "01bd40bc"}} {
		got, err := kueueRoleHash(&c.spec)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("%s: role hash %s, Kueue's %s", c.name, got, c.want)
		}
	}
}

// TestKueuePods: a Kueue plain pod group is its total count whole, so an
// elastic gang runs its launcher and min workers; other jobs all their pods.
func TestKueuePods(t *testing.T) {
	elastic := simulate.Job{Name: "e", Kind: simulate.KindGang, Members: 4, Min: 2, Max: 4, LauncherMilliCPU: 500}
	if got := kueuePods(elastic); fmt.Sprint(got) != "[e-0 e-launcher]" {
		t.Errorf("elastic gang with a launcher, min 2 of 4: pods %v, want [e-0 e-launcher]", got)
	}
	bare := simulate.Job{Name: "b", Kind: simulate.KindGang, Members: 3, Min: 1, Max: 3}
	if got := kueuePods(bare); fmt.Sprint(got) != "[b-0]" {
		t.Errorf("elastic gang, min 1 of 3: pods %v, want [b-0]", got)
	}
	rigid := simulate.Job{Name: "r", Kind: simulate.KindGang, Members: 2, Min: 2, Max: 2}
	if got := kueuePods(rigid); fmt.Sprint(got) != "[r-0 r-1]" {
		t.Errorf("rigid gang: pods %v, want [r-0 r-1]", got)
	}
}

// TestAsKueueWebhookWould: a gang member gets the queue, managed and group
// labels, the total count, the admission gate, Kueue's finalizer and a role
// hash that counts the priority the API server gives it.
func TestAsKueueWebhookWould(t *testing.T) {
	j := simulate.Job{Name: "g", Kind: simulate.KindGang, Members: 3, Min: 2, Max: 3}
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: simNamespace, Name: "g-0", Labels: map[string]string{}, Annotations: map[string]string{}},
		Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")}}}}}}
	if err := asKueueWebhookWould(p, j, 7); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{kueueQueueLabel: kueueQueue, kueueManagedLabel: "true", kueueGroupLabel: "g"} {
		if p.Labels[k] != want {
			t.Errorf("label %s = %q, want %q", k, p.Labels[k], want)
		}
	}
	if got := p.Annotations[kueueTotalCountAnnotation]; got != "2" {
		t.Errorf("total count %q, want 2 (the gang's min)", got)
	}
	if !slices.Contains(p.Finalizers, kueueFinalizer) {
		t.Errorf("finalizers %v, want %s", p.Finalizers, kueueFinalizer)
	}
	if len(p.Spec.SchedulingGates) != 1 || p.Spec.SchedulingGates[0].Name != kueueGate {
		t.Errorf("scheduling gates %v, want only %s", p.Spec.SchedulingGates, kueueGate)
	}
	if p.Spec.Priority != nil {
		t.Errorf("spec.priority set to %d; the API server sets it", *p.Spec.Priority)
	}
	seven := int32(7)
	spec := p.Spec.DeepCopy()
	spec.SchedulingGates, spec.Priority = nil, &seven
	want, err := kueueRoleHash(spec)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Annotations[kueueRoleHashAnnotation]; got != want {
		t.Errorf("role hash %q, want %q (the spec at priority 7)", got, want)
	}
	// A replacement keeps its predecessor's hash and is gated once.
	if err := asKueueWebhookWould(p, j, 7); err != nil {
		t.Fatal(err)
	}
	if len(p.Spec.SchedulingGates) != 1 || len(p.Finalizers) != 1 {
		t.Errorf("applied twice: gates %v, finalizers %v, want one each", p.Spec.SchedulingGates, p.Finalizers)
	}
	// A plain job's pod is a group of one, named after the pod (so its
	// Workload's name is the same in every replay); a replacement's group
	// is its own.
	plain := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "one-0", Labels: map[string]string{}, Annotations: map[string]string{}}}
	one := simulate.Job{Name: "one", Kind: simulate.KindGPU, Members: 2}
	if err := asKueueWebhookWould(plain, one, 0); err != nil {
		t.Fatal(err)
	}
	if plain.Labels[kueueGroupLabel] != "one-0" || plain.Annotations[kueueTotalCountAnnotation] != "1" {
		t.Errorf("a plain pod's group %q of %q, want one-0 of 1", plain.Labels[kueueGroupLabel], plain.Annotations[kueueTotalCountAnnotation])
	}
	plain.Name = "one-0-r1"
	if err := asKueueWebhookWould(plain, one, 0); err != nil {
		t.Fatal(err)
	}
	if plain.Labels[kueueGroupLabel] != "one-0-r1" {
		t.Errorf("a replacement's group %q, want one-0-r1", plain.Labels[kueueGroupLabel])
	}
}

// TestKueueQueuesQuota: the ClusterQueue's quota is every pool at its max.
func TestKueueQueuesQuota(t *testing.T) {
	pools, err := oraclePoolsOf(Options{})
	if err != nil {
		t.Fatal(err)
	}
	docs := kueueQueues(pools)
	// cpu 10 x 16, gpu-light 8 x 4, gpu-heavy 8 x 96 vCPUs; 8 x 1 + 8 x 8 GPUs.
	for _, want := range []string{"nominalQuota: 960000m", "nominalQuota: 72", "provisioningClassName: " + bestEffortAtomic, "backoffLimitCount: 3"} {
		if !strings.Contains(docs, want) {
			t.Errorf("queues lack %q:\n%s", want, docs)
		}
	}
}

// buildKueue builds Kueue's binary and copies its CRDs (hack/kueue/build.sh)
// into a temporary directory and returns the binary's path.
func buildKueue(t *testing.T) string {
	t.Helper()
	hack := filepath.Join("..", "..", "..", "hack", "kueue")
	dir := t.TempDir()
	build := exec.Command(filepath.Join(hack, "build.sh"), dir)
	build.Env = append(os.Environ(), "GO="+goBinary())
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building Kueue (hack/kueue/build.sh): %v\n%s", err, out)
	}
	// go test caches a pass by the files the test read: the build's
	// inputs are these (Kueue itself is pinned by go.sum).
	for _, f := range []string{"build.sh", "go.mod", "go.sum"} {
		if _, err := os.ReadFile(filepath.Join(hack, f)); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "kueue")
}
