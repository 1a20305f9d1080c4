// E2E test of bookings of running gangs: the booked room released member by member as they bind, each for a pod of its own shape, never counted twice.

package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	apiv1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/muster-project/muster/autoscaler/armlocal"
	provreqv1 "github.com/muster-project/muster/autoscaler/provreq/apis/v1"
)

// launcherGang is a gang of two shapes, as Kueue writes a request for an
// MPIJob: one podSet for a launcher asking for no GPUs (it tolerates the
// GPU taint, so it may share a worker's node), then one for the 8-GPU
// workers. Every member consumes the request.
type launcherGang struct {
	name    string
	workers int
}

func (g launcherGang) launcherSpec() apiv1.PodSpec {
	return apiv1.PodSpec{
		Containers: []apiv1.Container{{Name: "launch", Image: "launcher", Resources: apiv1.ResourceRequirements{
			Requests: apiv1.ResourceList{apiv1.ResourceCPU: resource.MustParse("2")}}}},
		Tolerations: []apiv1.Toleration{{Key: gpuTaint, Operator: apiv1.TolerationOpExists, Effect: apiv1.TaintEffectNoSchedule}},
	}
}

func (g launcherGang) launcher() string    { return g.name + "-launcher" }
func (g launcherGang) worker(i int) string { return fmt.Sprintf("%s-worker-%d", g.name, i) }

func (g launcherGang) create(t *testing.T, kube kubernetes.Interface, dyn dynamic.Interface) {
	t.Helper()
	ctx := context.Background()
	labels := map[string]string{"app.kubernetes.io/managed-by": "kueue", "muster.dev/gang": g.name}
	templates := []struct {
		name string
		ann  map[string]string
		spec apiv1.PodSpec
	}{
		{g.launcher(), nil, g.launcherSpec()},
		{g.name + "-worker", map[string]string{"muster.dev/gpu-product": "NVIDIA-H100*", "muster.dev/topology-required": "placement-group"}, gang{}.podSpec()},
	}
	for _, tp := range templates {
		if _, err := kube.CoreV1().PodTemplates("default").Create(ctx, &apiv1.PodTemplate{
			ObjectMeta: metav1.ObjectMeta{Name: tp.name, Namespace: "default", Labels: labels},
			Template: apiv1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"muster.dev/gang": g.name}, Annotations: tp.ann},
				Spec: tp.spec},
		}, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating PodTemplate %s: %v", tp.name, err)
		}
	}
	pr := &provreqv1.ProvisioningRequest{
		TypeMeta:   metav1.TypeMeta{APIVersion: provreqv1.GroupVersion.String(), Kind: provreqv1.Kind},
		ObjectMeta: metav1.ObjectMeta{Name: g.name, Namespace: "default", Labels: labels},
		Spec: provreqv1.ProvisioningRequestSpec{
			ProvisioningClassName: provreqv1.ProvisioningClassBestEffortAtomicScaleUp,
			PodSets: []provreqv1.PodSet{
				{PodTemplateRef: provreqv1.Reference{Name: g.launcher()}, Count: 1},
				{PodTemplateRef: provreqv1.Reference{Name: g.name + "-worker"}, Count: int32(g.workers)},
			},
		},
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dyn.Resource(provreqv1.Resource).Namespace("default").Create(ctx, unstructuredFrom(obj), metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating ProvisioningRequest %s: %v", g.name, err)
	}
	consume := map[string]string{
		provreqv1.ProvisioningRequestPodAnnotationKey: g.name,
		provreqv1.ProvisioningClassPodAnnotationKey:   provreqv1.ProvisioningClassBestEffortAtomicScaleUp,
	}
	member := func(name string, spec apiv1.PodSpec) *apiv1.Pod {
		ann := map[string]string{}
		for k, v := range consume {
			ann[k] = v
		}
		return &apiv1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"muster.dev/gang": g.name}, Annotations: ann}, Spec: spec}
	}
	createUnschedulable(t, kube, member(g.launcher(), g.launcherSpec()))
	for i := range g.workers {
		createUnschedulable(t, kube, member(g.worker(i), gang{}.podSpec()))
	}
}

// waitProvisionedNow waits for the request's Provisioned condition and
// fails at once if it comes False or the request fails: the request must be
// served on its first attempt.
func waitProvisionedNow(t *testing.T, dyn dynamic.Interface, name string) *metav1.Condition {
	t.Helper()
	var got *metav1.Condition
	waitFor(t, fmt.Sprintf("ProvisioningRequest %s to be Provisioned", name), func() bool {
		pr := getRequest(t, dyn, name)
		if f := condition(pr, provreqv1.Failed); f != nil && f.Status == metav1.ConditionTrue {
			t.Fatalf("%s Failed %q: %q", name, f.Reason, f.Message)
		}
		got = condition(pr, provreqv1.Provisioned)
		if got != nil && got.Status == metav1.ConditionFalse {
			t.Fatalf("%s Provisioned=False %q: %q; the capacity it needs is free or can be added", name, got.Reason, got.Message)
		}
		return got != nil
	})
	return got
}

// TestBookingsOfRunningGangs: the capacity booked for a Provisioned request
// is released as its members bind, member by member, each for a pod of its
// own shape, so that it is not counted twice, as the members running on
// the nodes and again as the booking.
//
// gang-a's request names a launcher (no GPUs) and two 8-GPU workers. Its
// workers bind on the two nodes added for them, its launcher still
// pending; a job ends on an older H100 node, freeing it. gang-b's two
// workers need that node and one new one: the pool may add only one (max
// 4). The booking must hold the launcher's room, not a third worker's (a
// count of bound members taken off the request's pods in podSet order
// books a worker in the free node and leaves gang-b Provisioned=False,
// CapacityIsNotFound, until gang-a's booking expires). Then every member of
// both gangs binds: neither request's booking is left counting them, so
// neither is found short of the capacity its members run on.
func TestBookingsOfRunningGangs(t *testing.T) {
	bin, restCfg, kube, dyn, arm := provreqStack(t, armlocal.Options{ProvisioningDelay: time.Second})
	ctx := context.Background()
	// The heavy pool has one H100 node, busy with a job, and may grow to 4.
	for _, ss := range []armlocal.ScaleSetSpec{
		{ResourceGroup: rg, Name: "cpu", SKU: "Standard_D16s_v5", Capacity: 1, Tags: poolTags("1", "5", false)},
		{ResourceGroup: rg, Name: "gpu-heavy", SKU: "Standard_ND96isr_H100_v5", ProximityPlacementGroup: "ppg-ib", Capacity: 1, Tags: poolTags("0", "4", true)},
	} {
		if err := arm.AddScaleSet(ss); err != nil {
			t.Fatal(err)
		}
	}
	bar := newBarriers(t, kube, arm)
	gpuTaints := []apiv1.Taint{{Key: gpuTaint, Value: "present", Effect: apiv1.TaintEffectNoSchedule}}
	_, first, _ := arm.ScaleSet(rg, "gpu-heavy")
	older := first[0]
	registerNode(t, kube, older, "gpu-heavy", "Standard_ND96isr_H100_v5", "96", "1900Gi", 8, gpuTaints)
	job := gang{}.podSpec()
	job.NodeName = older.ComputerName
	if _, err := kube.CoreV1().Pods("default").Create(ctx, &apiv1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "job", Namespace: "default"}, Spec: job}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	args := []string{
		"--kubeconfig=" + writeKubeconfig(t, restCfg),
		"--cloud-config=" + writeCloudConfig(t, arm, "10m", "10m"),
		"--leader-elect=false",
		"--address=127.0.0.1:0",
		"--scan-interval=1s",
		"--expander=price",
		// Nothing here is scaled down: the free node stays free room.
		"--scale-down-enabled=false",
		"--max-node-provision-time=10m",
		"--new-pod-scale-up-delay=0s",
		"--provisioning-request-initial-backoff-time=2s",
		"--provisioning-request-max-backoff-time=4s",
		"--muster-provisioning-request-booking-ttl=10m",
		"--v=2",
	}
	proc := startAutoscalerProcess(t, bin, args, append(os.Environ(), "SSL_CERT_FILE="+arm.CAFile()), "[autoscaler] ")
	heavy := func() int { c, _, _ := arm.ScaleSet(rg, "gpu-heavy"); return c }
	bind := func(pod, node string) {
		t.Helper()
		if err := kube.CoreV1().Pods("default").Bind(ctx, &apiv1.Binding{ObjectMeta: metav1.ObjectMeta{Name: pod, Namespace: "default"},
			Target: apiv1.ObjectReference{Kind: "Node", Name: node}}, metav1.CreateOptions{}); err != nil {
			t.Fatalf("binding %s to %s: %v", pod, node, err)
		}
	}
	// newNodes registers the instances recorded for a request and returns
	// their names.
	newNodes := func(request string, n int) []string {
		t.Helper()
		recorded := waitRecorded(t, dyn, request, n)
		var names []string
		for _, in := range waitProvisioned(t, arm, "gpu-heavy", heavy()) {
			if recorded[strings.ToLower(in.ProviderID)] {
				registerNode(t, kube, in, "gpu-heavy", "Standard_ND96isr_H100_v5", "96", "1900Gi", 8, gpuTaints)
				names = append(names, in.ComputerName)
			}
		}
		if len(names) != n {
			t.Fatalf("%s's request records %v; found %d of its instances, want %d", request, recorded, len(names), n)
		}
		return names
	}
	stillProvisioned := func(name, reason, msg string) {
		t.Helper()
		p := condition(getRequest(t, dyn, name), provreqv1.Provisioned)
		if p == nil || p.Status != metav1.ConditionTrue || p.Reason != reason || p.Message != msg {
			t.Fatalf("%s Provisioned %+v; want True %s %q: its members run on the capacity provisioned for it", name, p, reason, msg)
		}
	}

	// gang-a: the launcher fits the busy node, the workers get two new
	// nodes.
	a := launcherGang{name: "gang-a", workers: 2}
	a.create(t, kube, dyn)
	const aMsg = "gpu-heavy pool adding 2 nodes (1 of the 3 pods fit on existing or upcoming nodes)"
	if p := waitProvisionedNow(t, dyn, "gang-a"); p.Reason != "CapacityIsProvisioned" || p.Message != aMsg {
		t.Fatalf("gang-a Provisioned %q: %q; want CapacityIsProvisioned %q", p.Reason, p.Message, aMsg)
	}
	aNodes := newNodes("gang-a", 2)
	if h := heavy(); h != 3 {
		t.Fatalf("heavy pool %d after gang-a, want 3", h)
	}

	// The job on the older node ends; gang-a's workers bind on their
	// nodes, its launcher not yet. The barrier makes sure the autoscaler
	// has run whole loops seeing all of it.
	if err := kube.CoreV1().Pods("default").Delete(ctx, "job", metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}
	for i, node := range aNodes {
		bind(a.worker(i), node)
	}
	bar.pass()
	stillProvisioned("gang-a", "CapacityIsProvisioned", aMsg)

	// gang-b: one worker fits the freed node, the other gets the one node
	// the pool may still add, at once.
	gang{name: "gang-b", count: 2}.create(t, kube, dyn)
	const bMsg = "gpu-heavy pool adding 1 node (1 of the 2 pods fit on existing or upcoming nodes)"
	if p := waitProvisionedNow(t, dyn, "gang-b"); p.Reason != "CapacityIsProvisioned" || p.Message != bMsg {
		t.Fatalf("gang-b Provisioned %q: %q; want CapacityIsProvisioned %q", p.Reason, p.Message, bMsg)
	}
	bNodes := newNodes("gang-b", 1)
	if h := heavy(); h != 4 {
		t.Fatalf("heavy pool %d after gang-b, want 4", h)
	}

	// Every member binds: gang-b's workers on the freed node and on its
	// new one, gang-a's launcher next to a worker. Neither booking may go
	// on counting them: it would find no room left, and its request would
	// be set back to Provisioned=False (capacity gone) and retried.
	bind("gang-b-0", older.ComputerName)
	bind("gang-b-1", bNodes[0])
	bind(a.launcher(), aNodes[0])
	writes := arm.CapacityWrites()
	bar.pass()
	stillProvisioned("gang-a", "CapacityIsProvisioned", aMsg)
	stillProvisioned("gang-b", "CapacityIsProvisioned", bMsg)
	if h, n := heavy(), arm.CapacityWrites()-writes; h != 4 || n != 1 {
		t.Fatalf("heavy pool %d, %d capacity writes after every member bound; want 4 and 1 (the barrier)", h, n)
	}
	proc.checkRunning(t)
}
