// E2E tests of ProvisioningRequests as muster-scheduler writes them: exact scale-ups, Failed and retried requests, restarts mid scale-up, two gangs at once, only the shortfall asked.

package e2e

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	apiv1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/muster-project/muster/autoscaler/armlocal"
	provreqv1 "github.com/muster-project/muster/autoscaler/provreq/apis/v1"
)

// crdPath is the root module's CRD, read in place (not copied).
const crdPath = "../../../manifests/crds/autoscaling.x-k8s.io_provisioningrequests.yaml"

func installProvisioningRequestCRD(t *testing.T, cfg *rest.Config) {
	t.Helper()
	raw, err := os.ReadFile(crdPath)
	if err != nil {
		t.Fatalf("reading the ProvisioningRequest CRD: %v", err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(raw, &crd); err != nil {
		t.Fatalf("decoding %s: %v", crdPath, err)
	}
	c := apiextensions.NewForConfigOrDie(cfg)
	ctx := context.Background()
	if _, err := c.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, &crd, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating the ProvisioningRequest CRD: %v", err)
	}
	waitFor(t, "the ProvisioningRequest CRD to be established", func() bool {
		got, err := c.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd.Name, metav1.GetOptions{})
		if err != nil {
			return false
		}
		for _, cond := range got.Status.Conditions {
			if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
				return true
			}
		}
		return false
	})
	dyn := dynamic.NewForConfigOrDie(cfg)
	waitFor(t, "provisioningrequests to be served", func() bool {
		_, err := dyn.Resource(provreqv1.Resource).List(ctx, metav1.ListOptions{})
		return err == nil
	})
}

// gang is what muster-scheduler writes for a short gang: a PodTemplate, one
// ProvisioningRequest naming it, and the gang's unplaced members annotated
// to consume the request and marked Unschedulable.
type gang struct {
	name  string
	count int
	// members, when above count, is how many pending members consume the
	// request: the others are those the scheduler counts on existing nodes.
	// Such a gang's members are created before its request, as Muster's
	// writer asks for capacity only for members that exist: the
	// autoscaler's first loop that sees the request sees every member.
	members int
	// memory, when set, is the template's muster.dev/gpu-memory-min.
	memory string
}

func (g gang) podSpec() apiv1.PodSpec {
	return apiv1.PodSpec{
		Containers: []apiv1.Container{{Name: "train", Image: "trainer", Resources: apiv1.ResourceRequirements{
			Requests: apiv1.ResourceList{apiv1.ResourceCPU: resource.MustParse("8"), gpu: resource.MustParse("8")},
			Limits:   apiv1.ResourceList{gpu: resource.MustParse("8")},
		}}},
		Tolerations: []apiv1.Toleration{{Key: gpuTaint, Operator: apiv1.TolerationOpExists, Effect: apiv1.TaintEffectNoSchedule}},
		Affinity: &apiv1.Affinity{NodeAffinity: &apiv1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &apiv1.NodeSelector{
			NodeSelectorTerms: []apiv1.NodeSelectorTerm{{MatchExpressions: []apiv1.NodeSelectorRequirement{
				{Key: "nvidia.com/gpu.product", Operator: apiv1.NodeSelectorOpIn, Values: []string{"NVIDIA-H100-80GB-HBM3"}},
			}}},
		}}},
	}
}

func (g gang) create(t *testing.T, kube kubernetes.Interface, dyn dynamic.Interface) {
	t.Helper()
	podsFirst := g.members > g.count
	if podsFirst {
		g.createPods(t, kube)
	}
	ctx := context.Background()
	labels := map[string]string{"app.kubernetes.io/managed-by": "muster-scheduler", "muster.dev/gang": g.name}
	tmpl := &apiv1.PodTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: g.name, Namespace: "default", Labels: labels},
		Template: apiv1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"muster.dev/gang": g.name},
				Annotations: map[string]string{"muster.dev/gpu-product": "NVIDIA-H100*", "muster.dev/topology-required": "placement-group"}},
			Spec: g.podSpec(),
		},
	}
	if g.memory != "" {
		tmpl.Template.Annotations["muster.dev/gpu-memory-min"] = g.memory
	}
	if _, err := kube.CoreV1().PodTemplates("default").Create(ctx, tmpl, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating PodTemplate %s: %v", g.name, err)
	}
	pr := &provreqv1.ProvisioningRequest{
		TypeMeta: metav1.TypeMeta{APIVersion: provreqv1.GroupVersion.String(), Kind: provreqv1.Kind},
		ObjectMeta: metav1.ObjectMeta{Name: g.name, Namespace: "default", Labels: labels,
			Annotations: map[string]string{"muster.dev/gang-min-member": fmt.Sprint(g.count)}},
		Spec: provreqv1.ProvisioningRequestSpec{
			ProvisioningClassName: provreqv1.ProvisioningClassBestEffortAtomicScaleUp,
			PodSets:               []provreqv1.PodSet{{PodTemplateRef: provreqv1.Reference{Name: g.name}, Count: int32(g.count)}},
		},
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pr)
	if err != nil {
		t.Fatal(err)
	}
	u := unstructuredFrom(obj)
	created, err := dyn.Resource(provreqv1.Resource).Namespace("default").Create(ctx, u, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating ProvisioningRequest %s (the CRD's schema rejects the local v1 shape?): %v", g.name, err)
	}
	// The CRD's structural schema prunes unknown fields: what was written
	// comes back unchanged only if every field name is the CRD's.
	var back provreqv1.ProvisioningRequest
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(created.Object, &back); err != nil {
		t.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(back.Spec, pr.Spec) {
		t.Fatalf("ProvisioningRequest %s: the CRD changed spec %+v to %+v", g.name, pr.Spec, back.Spec)
	}
	if !podsFirst {
		g.createPods(t, kube)
	}
}

// createPods creates the gang's pending members, consuming its request.
func (g gang) createPods(t *testing.T, kube kubernetes.Interface) {
	t.Helper()
	for i := 0; i < max(g.count, g.members); i++ {
		p := &apiv1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", g.name, i), Namespace: "default", Labels: map[string]string{"muster.dev/gang": g.name},
				Annotations: map[string]string{
					provreqv1.ProvisioningRequestPodAnnotationKey: g.name,
					provreqv1.ProvisioningClassPodAnnotationKey:   provreqv1.ProvisioningClassBestEffortAtomicScaleUp,
				}},
			Spec: g.podSpec(),
		}
		p.Spec.SchedulerName = "muster-scheduler"
		createUnschedulable(t, kube, p)
	}
}

func createUnschedulable(t *testing.T, kube kubernetes.Interface, p *apiv1.Pod) {
	t.Helper()
	ctx := context.Background()
	created, err := kube.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating pod %s: %v", p.Name, err)
	}
	created.Status.Conditions = []apiv1.PodCondition{{Type: apiv1.PodScheduled, Status: apiv1.ConditionFalse, Reason: apiv1.PodReasonUnschedulable,
		Message: "0/1 nodes are available", LastTransitionTime: metav1.Now()}}
	if _, err := kube.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("marking pod %s Unschedulable: %v", p.Name, err)
	}
}

func getRequest(t *testing.T, dyn dynamic.Interface, name string) *provreqv1.ProvisioningRequest {
	t.Helper()
	u, err := dyn.Resource(provreqv1.Resource).Namespace("default").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("getting ProvisioningRequest %s: %v", name, err)
	}
	var pr provreqv1.ProvisioningRequest
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &pr); err != nil {
		t.Fatal(err)
	}
	return &pr
}

// waitRecorded waits until the request records n instances added for it
// and returns their provider IDs.
func waitRecorded(t *testing.T, dyn dynamic.Interface, name string, n int) map[string]bool {
	t.Helper()
	var ids []string
	waitFor(t, fmt.Sprintf("ProvisioningRequest %s to record %d instances", name, n), func() bool {
		_, added, got, ok := provreqv1.AddedInstances(getRequest(t, dyn, name))
		ids = got
		return ok && added == n && len(got) == n
	})
	out := map[string]bool{}
	for _, id := range ids {
		out[id] = true
	}
	return out
}

// disjoint fails the test when two requests record the same instance.
func disjoint(t *testing.T, records map[string]map[string]bool) {
	t.Helper()
	owner := map[string]string{}
	for name, ids := range records {
		for id := range ids {
			if o, ok := owner[id]; ok {
				t.Fatalf("instance %s is recorded for both %s and %s", id, o, name)
			}
			owner[id] = name
		}
	}
}

func condition(pr *provreqv1.ProvisioningRequest, typ string) *metav1.Condition {
	for i := range pr.Status.Conditions {
		if pr.Status.Conditions[i].Type == typ {
			return &pr.Status.Conditions[i]
		}
	}
	return nil
}

// waitCondition waits for the request's condition typ to be True and
// returns the request.
func waitCondition(t *testing.T, dyn dynamic.Interface, name, typ string) *provreqv1.ProvisioningRequest {
	t.Helper()
	var pr *provreqv1.ProvisioningRequest
	waitFor(t, fmt.Sprintf("ProvisioningRequest %s to be %s", name, typ), func() bool {
		pr = getRequest(t, dyn, name)
		c := condition(pr, typ)
		return c != nil && c.Status == metav1.ConditionTrue
	})
	return pr
}

// autoscalerProcess runs bin until stopped; kill stops it without cleanup.
type autoscalerProcess struct {
	cmd    *exec.Cmd
	exited chan error
	once   sync.Once
}

func startAutoscalerProcess(t *testing.T, bin string, args []string, env []string, prefix string) *autoscalerProcess {
	t.Helper()
	return startAutoscalerWriter(t, bin, args, env, logWriter{t, prefix})
}

// startAutoscalerWriter starts the autoscaler with its output to out.
func startAutoscalerWriter(t *testing.T, bin string, args []string, env []string, out io.Writer) *autoscalerProcess {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stdout = out
	cmd.Stderr = out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &autoscalerProcess{cmd: cmd, exited: make(chan error, 1)}
	go func() { p.exited <- cmd.Wait() }()
	t.Cleanup(p.kill)
	return p
}

func (p *autoscalerProcess) kill() {
	p.once.Do(func() {
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
		<-p.exited
		p.exited <- fmt.Errorf("killed by the test")
	})
}

// killAfterCapacityWrite creates the gang, kills the autoscaler as soon as
// its capacity write reaches ARM (the instances then provision) and, unless
// dropProvisioned, it has written the request's Provisioned condition;
// with dropProvisioned it removes that condition instead (as if the
// autoscaler had died before writing it); then it restarts the autoscaler.
func killAfterCapacityWrite(t *testing.T, arm *armlocal.Server, proc *autoscalerProcess, kube kubernetes.Interface, dyn dynamic.Interface, name string, count int, dropProvisioned bool, restart func() *autoscalerProcess) *autoscalerProcess {
	t.Helper()
	ctx := context.Background()
	before := arm.CapacityWrites()
	gang{name: name, count: count}.create(t, kube, dyn)
	waitFor(t, name+"'s capacity write", func() bool { return arm.CapacityWrites() > before })
	if !dropProvisioned {
		// (d) is the restart after the autoscaler said so; (d') the one
		// before. Without this wait a slow autoscaler turns (d) into (d').
		waitFor(t, name+"'s Provisioned condition", func() bool { return condition(getRequest(t, dyn, name), provreqv1.Provisioned) != nil })
	}
	proc.kill()
	if dropProvisioned {
		waitFor(t, name+"'s Provisioned condition to drop", func() bool {
			u, err := dyn.Resource(provreqv1.Resource).Namespace("default").Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
			var keep []interface{}
			for _, c := range conds {
				if m, ok := c.(map[string]interface{}); ok && m["type"] != provreqv1.Provisioned {
					keep = append(keep, c)
				}
			}
			if err := unstructured.SetNestedSlice(u.Object, keep, "status", "conditions"); err != nil {
				t.Fatal(err)
			}
			_, err = dyn.Resource(provreqv1.Resource).Namespace("default").UpdateStatus(ctx, u, metav1.UpdateOptions{})
			return err == nil
		})
	}
	size, insts, _ := arm.ScaleSet(rg, "gpu-heavy")
	provisioning := 0
	for _, in := range insts {
		if in.State != armlocal.StateSucceeded {
			provisioning++
		}
	}
	t.Logf("killed the autoscaler after %s's capacity write: heavy pool %d, %d instances provisioning; conditions now %+v",
		name, size, provisioning, getRequest(t, dyn, name).Status.Conditions)
	return restart()
}

func (p *autoscalerProcess) checkRunning(t *testing.T) {
	t.Helper()
	select {
	case err := <-p.exited:
		t.Fatalf("the autoscaler exited: %v", err)
	default:
	}
}

// TestProvisioningRequests drives muster-autoscaler with ProvisioningRequests
// as muster-scheduler writes them, against the root module's CRD:
//
//	(c) a gang bigger than the heavy-GPU pool at its max: nothing added,
//	    the request Failed with the reason;
//	(a) a gang of 3: the pool grows by exactly 3 in one capacity write, the
//	    request is Provisioned, and the pending members cause no ordinary
//	    scale-up; the new nodes, registered but empty, are not scaled down
//	    while booked;
//	(d) the autoscaler is killed right after a gang's capacity write, while
//	    the instances provision, and restarted: no second scale-up, the
//	    request ends Provisioned;
//	(r) a gang whose new instances fail and are removed: its request goes
//	    back to Provisioned=False and the retry gets the nodes;
//	(b) two gangs at once: each gets exactly its nodes;
//	(d') as (d), with the autoscaler dying before it wrote Provisioned: the
//	    restarted one finds the capacity upcoming and adds nothing;
//	(c') a GPU class (template annotation) no pool has: Failed;
//	(c'') a gang that does not fit the full pool now but would fit it
//	    empty: CapacityIsNotFound, retried, not Failed.
func TestProvisioningRequests(t *testing.T) {
	// 12 ND96 H100 instances need 1152 vCPUs of their family.
	bin, restCfg, kube, dyn, arm := provreqStack(t, armlocal.Options{ProvisioningDelay: 3 * time.Second, FamilyQuota: 2000})
	addPools(t, arm, "12")
	bar := newBarriers(t, kube, arm)

	cloudConfig := writeCloudConfig(t, arm, "2s", "10m")
	args := []string{
		"--kubeconfig=" + writeKubeconfig(t, restCfg),
		"--cloud-config=" + cloudConfig,
		"--leader-elect=false",
		"--address=127.0.0.1:0",
		"--scan-interval=1s",
		"--expander=price",
		"--scale-down-enabled=true",
		"--scale-down-unneeded-time=2s",
		"--scale-down-delay-after-add=0s",
		"--scale-down-delay-after-delete=0s",
		"--scale-down-delay-after-failure=2s",
		"--max-node-provision-time=10m",
		"--new-pod-scale-up-delay=0s",
		"--provisioning-request-initial-backoff-time=2s",
		"--provisioning-request-max-backoff-time=4s",
		"--initial-node-group-backoff-duration=2s",
		"--max-node-group-backoff-duration=4s",
		"--v=2",
	}
	env := append(os.Environ(), "SSL_CERT_FILE="+arm.CAFile())
	proc := startAutoscalerProcess(t, bin, args, env, "[autoscaler] ")

	heavy := func() int { c, _, _ := arm.ScaleSet(rg, "gpu-heavy"); return c }
	writes := func() int { return arm.CapacityWrites() }
	barrier := bar.pass

	// (c) 13 members of 8 GPUs; the heavy pool holds 12 at its max.
	gang{name: "gang-c", count: 13}.create(t, kube, dyn)
	pr := waitCondition(t, dyn, "gang-c", provreqv1.Failed)
	failed := condition(pr, provreqv1.Failed)
	if failed.Reason != "NoNodeGroupCanHold" || !strings.Contains(failed.Message, "gpu-heavy: 12 nodes at max hold 12") || !strings.Contains(failed.Message, "gpu-light: no pod fits") {
		t.Fatalf("gang-c Failed %q: %q; want NoNodeGroupCanHold naming the heavy pool's max and the light pool's misfit", failed.Reason, failed.Message)
	}
	if p := condition(pr, provreqv1.Provisioned); p == nil || p.Status != metav1.ConditionFalse || p.Reason != "CapacityIsNotFound" {
		t.Fatalf("gang-c Provisioned %+v, want False CapacityIsNotFound", p)
	}
	if a := condition(pr, provreqv1.Accepted); a == nil || a.Status != metav1.ConditionTrue {
		t.Fatalf("gang-c Accepted %+v", a)
	}
	if n := writes(); n != 0 {
		t.Fatalf("%d capacity writes for a gang no pool can hold, want 0", n)
	}
	// The failure records the pools it read; once an operator changes
	// them (the heavy pool's max tag), a loop flags it, and Muster's
	// scheduler retries the gang. The max goes back for the cases below.
	if d := pr.Status.ProvisioningClassDetails; d[provreqv1.DetailPoolsAtFailure] == "" || d[provreqv1.DetailPoolsChanged] != "" {
		t.Fatalf("gang-c details %v: want the pools at failure recorded, not flagged changed", d)
	}
	if err := arm.SetScaleSetTag(rg, "gpu-heavy", "max", "13"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "gang-c's request flagged: its pools changed", func() bool {
		return getRequest(t, dyn, "gang-c").Status.ProvisioningClassDetails[provreqv1.DetailPoolsChanged] == "true"
	})
	if err := arm.SetScaleSetTag(rg, "gpu-heavy", "max", "12"); err != nil {
		t.Fatal(err)
	}

	// (c') one member whose GPU class (at least 100Gi per GPU) no pool's
	// GPUs have: Failed, nothing added.
	gang{name: "gang-m", count: 1, memory: "100Gi"}.create(t, kube, dyn)
	pr = waitCondition(t, dyn, "gang-m", provreqv1.Failed)
	if f := condition(pr, provreqv1.Failed); f.Reason != "NoNodeGroupCanHold" || !strings.Contains(f.Message, "gpu-heavy: no pod fits its nodes (node(s) didn't match Pod's node affinity/selector)") {
		t.Fatalf("gang-m Failed %q: %q; want NoNodeGroupCanHold, the heavy pool's GPUs too small", f.Reason, f.Message)
	}
	if n := writes(); n != 0 {
		t.Fatalf("%d capacity writes for a GPU class no pool has, want 0", n)
	}

	// (a) 3 members.
	gang{name: "gang-a", count: 3}.create(t, kube, dyn)
	pr = waitCondition(t, dyn, "gang-a", provreqv1.Provisioned)
	if p := condition(pr, provreqv1.Provisioned); p.Reason != "CapacityIsProvisioned" || p.Message != "gpu-heavy pool adding 3 nodes" {
		t.Fatalf("gang-a Provisioned %q: %q", p.Reason, p.Message)
	}
	if h, n := heavy(), writes(); h != 3 || n != 1 {
		t.Fatalf("after gang-a: heavy pool %d, %d capacity writes; want 3 in 1 write", h, n)
	}
	// The new instances register as empty nodes; gang-a's members stay
	// pending (their scheduler has not bound them yet).
	var aNodes []string
	insts := waitProvisioned(t, arm, "gpu-heavy", 3)
	// The request records exactly the instances added for it, which the
	// scheduler keeps for gang-a.
	aRecorded := waitRecorded(t, dyn, "gang-a", 3)
	for _, in := range insts {
		if !aRecorded[strings.ToLower(in.ProviderID)] {
			t.Fatalf("gang-a's request does not record instance %s; it records %v", in.ProviderID, aRecorded)
		}
	}
	for _, in := range insts {
		registerNode(t, kube, in, "gpu-heavy", "Standard_ND96isr_H100_v5", "96", "1900Gi", 8,
			[]apiv1.Taint{{Key: gpuTaint, Value: "present", Effect: apiv1.TaintEffectNoSchedule}})
		aNodes = append(aNodes, in.ComputerName)
	}
	barrier()
	if h, n := heavy(), writes(); h != 3 || n != 2 {
		t.Fatalf("after gang-a and a barrier: heavy pool %d, %d capacity writes; want 3 and 2 (gang-a, the barrier)", h, n)
	}

	// (d) kill the autoscaler right after gang-d's capacity write and its
	// Provisioned condition, while its instances provision, and restart it:
	// the restarted autoscaler completes the record of exactly its instances.
	proc = killAfterCapacityWrite(t, arm, proc, kube, dyn, "gang-d", 2, false, func() *autoscalerProcess {
		return startAutoscalerProcess(t, bin, args, env, "[autoscaler-2] ")
	})
	pr = waitCondition(t, dyn, "gang-d", provreqv1.Provisioned)
	if p := condition(pr, provreqv1.Provisioned); p.Reason != "CapacityIsProvisioned" || p.Message != "gpu-heavy pool adding 2 nodes" {
		t.Fatalf("gang-d Provisioned %q: %q", p.Reason, p.Message)
	}
	// Across the restart the record is still exact: gang-d's two new
	// instances, none of gang-a's.
	disjoint(t, map[string]map[string]bool{"gang-a": aRecorded, "gang-d": waitRecorded(t, dyn, "gang-d", 2)})
	barrier()
	if h, n := heavy(), writes(); h != 5 || n != 4 {
		t.Fatalf("after gang-d across a restart: heavy pool %d, %d capacity writes; want 5 and 4 (gang-a, barrier, gang-d once, barrier)", h, n)
	}

	// (r) gang-r's instances fail to provision (Azure allocation failure):
	// the provider removes them, the booking no longer fits, the request
	// goes back to Provisioned=False and is retried after its backoff; the
	// retry gets the nodes.
	arm.InjectPartialProvisioning("gpu-heavy", 0, "")
	gang{name: "gang-r", count: 2}.create(t, kube, dyn)
	waitFor(t, "gang-r's capacity to be found lost", func() bool {
		p := condition(getRequest(t, dyn, "gang-r"), provreqv1.Provisioned)
		return p != nil && p.Status == metav1.ConditionFalse && strings.Contains(p.Message, "the capacity provisioned for it is gone")
	})
	pr = waitCondition(t, dyn, "gang-r", provreqv1.Provisioned)
	if p := condition(pr, provreqv1.Provisioned); p.Reason != "CapacityIsProvisioned" || p.Message != "gpu-heavy pool adding 2 nodes" {
		t.Fatalf("gang-r Provisioned on retry %q: %q", p.Reason, p.Message)
	}
	waitFor(t, "gang-r's retried instances to provision", func() bool {
		_, insts, _ := arm.ScaleSet(rg, "gpu-heavy")
		ok := 0
		for _, in := range insts {
			if in.State == armlocal.StateSucceeded {
				ok++
			}
		}
		return ok == 7
	})
	if h := heavy(); h != 7 {
		t.Fatalf("after gang-r's retry: heavy pool %d, want 7", h)
	}

	// (b) two gangs at once.
	before := writes()
	gang{name: "gang-b1", count: 1}.create(t, kube, dyn)
	gang{name: "gang-b2", count: 2}.create(t, kube, dyn)
	b1 := waitCondition(t, dyn, "gang-b1", provreqv1.Provisioned)
	b2 := waitCondition(t, dyn, "gang-b2", provreqv1.Provisioned)
	if m := condition(b1, provreqv1.Provisioned).Message; m != "gpu-heavy pool adding 1 node" {
		t.Fatalf("gang-b1 Provisioned: %q", m)
	}
	if m := condition(b2, provreqv1.Provisioned).Message; m != "gpu-heavy pool adding 2 nodes" {
		t.Fatalf("gang-b2 Provisioned: %q", m)
	}
	// Two scale-ups of one pool in flight: each request records its own.
	disjoint(t, map[string]map[string]bool{"gang-a": aRecorded, "gang-b1": waitRecorded(t, dyn, "gang-b1", 1), "gang-b2": waitRecorded(t, dyn, "gang-b2", 2)})
	// One write when one loop served both (a pool is written once per
	// loop for all its requests), two when they came in different loops;
	// TestBurstIsProvisionedInOneLoop checks the one write exactly.
	if h, n := heavy(), writes(); h != 10 || n-before < 1 || n-before > 2 {
		t.Fatalf("after two gangs: heavy pool %d, %d capacity writes; want 10 and %d or %d", h, n, before+1, before+2)
	}
	before = writes()

	// (d') as (d), but the autoscaler dies between the capacity write and
	// the Provisioned condition (reproduced by removing the condition while
	// it is down): the restarted autoscaler finds gang-e's capacity among
	// the upcoming nodes, marks the request Provisioned (CapacityIsFound),
	// and adds nothing.
	proc = killAfterCapacityWrite(t, arm, proc, kube, dyn, "gang-e", 2, true, func() *autoscalerProcess {
		return startAutoscalerProcess(t, bin, args, env, "[autoscaler-3] ")
	})
	pr = waitCondition(t, dyn, "gang-e", provreqv1.Provisioned)
	if p := condition(pr, provreqv1.Provisioned); p.Reason != "CapacityIsFound" {
		t.Fatalf("gang-e Provisioned %q: %q; want CapacityIsFound (the capacity written before the crash)", p.Reason, p.Message)
	}
	barrier()
	if h, n := heavy(), writes(); h != 12 || n != before+2 {
		t.Fatalf("after gang-e across a restart: heavy pool %d, %d capacity writes; want 12 and %d (gang-e once, barrier)", h, n, before+2)
	}

	// (c'') the heavy pool is at its max now: one more member could fit an
	// empty pool, so the request is not Failed but CapacityIsNotFound, to
	// be retried after the backoff; nothing is added.
	before = writes()
	gang{name: "gang-f", count: 1}.create(t, kube, dyn)
	waitFor(t, "gang-f to be Provisioned=False", func() bool {
		pr = getRequest(t, dyn, "gang-f")
		p := condition(pr, provreqv1.Provisioned)
		return p != nil && p.Status == metav1.ConditionFalse
	})
	if p := condition(pr, provreqv1.Provisioned); p.Reason != "CapacityIsNotFound" || !strings.Contains(p.Message, "will retry") {
		t.Fatalf("gang-f Provisioned=False %q: %q; want CapacityIsNotFound, retried", p.Reason, p.Message)
	}
	if f := condition(pr, provreqv1.Failed); f != nil {
		t.Fatalf("gang-f Failed %+v; a pool that is merely full now must not fail the request", f)
	}
	if h, n := heavy(), writes(); h != 12 || n != before {
		t.Fatalf("after gang-f: heavy pool %d, %d capacity writes; want 12 and %d", h, n, before)
	}

	// gang-a's registered nodes stayed, empty but booked, through all of
	// the above (scale-down-unneeded-time 2s).
	for _, name := range aNodes {
		if _, err := kube.CoreV1().Nodes().Get(context.Background(), name, metav1.GetOptions{}); err != nil {
			t.Fatalf("gang-a's node %s: %v", name, err)
		}
	}
	live := liveInstances(arm, "gpu-heavy")
	for _, name := range aNodes {
		if !live[name] {
			t.Fatalf("gang-a's instance %s was removed; booked nodes must not be scaled down", name)
		}
	}

	// (g) a request names only its gang's shortfall: gang-g has 4 pending
	// members and asks for 1, its scheduler counting the other 3 on
	// existing nodes. Once gang-a's request is withdrawn, gang-a's 3 empty
	// nodes are the only free capacity: the requested pod fits them only
	// if the other 3 members are forgotten. It must never be found there.
	gang{name: "gang-g", count: 1, members: 4}.create(t, kube, dyn)
	waitFor(t, "gang-g to be Provisioned=False", func() bool {
		p := condition(getRequest(t, dyn, "gang-g"), provreqv1.Provisioned)
		return p != nil && p.Status == metav1.ConditionFalse
	})
	if err := dyn.Resource(provreqv1.Resource).Namespace("default").Delete(context.Background(), "gang-a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second) // the backoff is 2-4 s
	for time.Now().Before(deadline) {
		if p := condition(getRequest(t, dyn, "gang-g"), provreqv1.Provisioned); p != nil && p.Status == metav1.ConditionTrue && p.Reason == "CapacityIsFound" {
			t.Fatalf("gang-g Provisioned %q: %q; the capacity its other members count on was taken for the requested pod", p.Reason, p.Message)
		}
		time.Sleep(200 * time.Millisecond)
	}
	proc.checkRunning(t)
}

func unstructuredFrom(obj map[string]interface{}) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: obj}
}

// provreqStack is what the ProvisioningRequest tests run on: the autoscaler
// built, an API server with the request CRD, its clients, and armlocal
// with opts (the autoscaler's credentials filled in), closed at the end.
func provreqStack(t *testing.T, opts armlocal.Options) (bin string, restCfg *rest.Config, kube *kubernetes.Clientset, dyn *dynamic.DynamicClient, arm *armlocal.Server) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the autoscaler and runs a control plane")
	}
	bin = buildAutoscaler(t)
	restCfg = startAPIServer(t)
	kube = kubernetes.NewForConfigOrDie(restCfg)
	dyn = dynamic.NewForConfigOrDie(restCfg)
	installProvisioningRequestCRD(t, restCfg)
	opts.ClientID, opts.ClientSecret = "muster-autoscaler", "e2e-secret"
	arm, err := armlocal.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(arm.Close)
	return bin, restCfg, kube, dyn, arm
}
