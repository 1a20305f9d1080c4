// Package skew runs the shipped muster-scheduler, with its shipped profile
// and RBAC, and the real muster-autoscaler against the kube-apiserver of one
// Kubernetes minor version: the one this module's go.mod pins (the oldest
// supported), or the one `-modfile=versions/1.NN.mod` pins. `make test-skew
// VERSIONS="1.34 1.35 1.36 1.37"` runs each and prints a table.
package skew

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "muster-skew-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := buildBinaries(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

const (
	ns            = "skew"
	gpu           = v1.ResourceName("nvidia.com/gpu")
	schedulerName = "muster-scheduler"
)

var (
	provisioningRequests = schema.GroupVersionResource{Group: "autoscaling.x-k8s.io", Version: "v1", Resource: "provisioningrequests"}
	pluginsPodGroups     = schema.GroupVersionResource{Group: "scheduling.x-k8s.io", Version: "v1alpha1", Resource: "podgroups"}
	workloadPodGroups    = schema.GroupVersionResource{Group: "scheduling.k8s.io", Version: "v1beta1", Resource: "podgroups"}
	deviceTaintRules     = schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "devicetaintrules"}
)

// TestMusterOnThisAPIServer is one cluster's life: install as the README
// says, the scheduler becomes ready, then gangs of the shapes users run.
// Each step is a subtest (the table make test-skew prints); a step that
// fails stops the ones after it, which build on it.
func TestMusterOnThisAPIServer(t *testing.T) {
	c := startCluster(t)
	info, err := c.disco.ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	// The in-process server reports no release (it is not stamped); the
	// module it is built from says which it is.
	version := kubernetesModule(t)
	t.Logf("kube-apiserver from k8s.io/kubernetes %s (reports %s)", version, info.GitVersion)
	if want := os.Getenv("SKEW_VERSION"); want != "" && !strings.HasPrefix(version, "v"+want+".") {
		t.Fatalf("kube-apiserver is built from k8s.io/kubernetes %s, want %s (SKEW_VERSION): the -modfile does not pin the version asked for", version, want)
	}

	// Install: CRDs, then the scheduler's namespace, account, RBAC and
	// admission policy and the autoscaler's account and RBAC, as shipped.
	c.installCRDs(t)
	c.apply(t, "manifests/scheduler/namespace.yaml", "manifests/scheduler/serviceaccount.yaml",
		"manifests/scheduler/rbac.yaml", "manifests/scheduler/admission.yaml",
		"manifests/autoscaler/serviceaccount.yaml", "manifests/autoscaler/rbac.yaml")
	if _, err := c.kube.CoreV1().Namespaces().Create(context.Background(), &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	// The cloud: a CPU pool, a light-GPU pool (one T4 per node) and a
	// heavy-GPU pool (eight H100 per node, one placement group), their
	// nodes registered by armlocal's node agent (one CPU node, two T4
	// nodes, no H100 node yet); the autoscaler behind it.
	admin := c.adminKubeconfig(t)
	cloud, caFile := startArmlocal(t, admin, []pool{
		{Name: "cpu", VMSize: "Standard_D16s_v5", Min: 1, Max: 3, ProvisioningDelay: "1s"},
		{Name: "gpu-light", VMSize: "Standard_NC4as_T4_v3", Min: 2, Max: 4, ProvisioningDelay: "1s"},
		{Name: "gpu-heavy", VMSize: "Standard_ND96isr_H100_v5", Min: 0, Max: 2, PlacementGroup: "ppg-ib", ProvisioningDelay: "1s"},
	})
	waitFor(t, "the pools' first 3 nodes to register", time.Minute, func() bool { return len(c.readyNodes(t)) == 3 })
	// The autoscaler under its own service account and shipped RBAC.
	autoscaler := startAutoscaler(t, c.serviceAccountKubeconfig(t, "kube-system", "muster-autoscaler"), cloud, caFile)

	// The scheduler, as its Deployment runs it: the shipped profile, the
	// service account's token, the secure port probed for readiness.
	sched, port := c.startScheduler(t)

	step := func(name string, f func(t *testing.T)) {
		if t.Failed() {
			return
		}
		if autoscaler.exited() {
			t.Fatalf("muster-autoscaler exited:\n%s", autoscaler.tail(20))
		}
		t.Run(name, f)
	}

	step("ready", func(t *testing.T) {
		// The requirement is a minute, counted from the process's start.
		var body string
		start := time.Now()
		for {
			ok, b := ready(port)
			if ok {
				break
			}
			body = b
			if sched.exited() {
				t.Fatalf("muster-scheduler exited:\n%s", sched.tail(30))
			}
			if time.Since(start) > time.Minute {
				t.Fatalf("muster-scheduler not ready after a minute; /readyz says:\n%s\nlog:\n%s", body, sched.tail(30))
			}
			time.Sleep(200 * time.Millisecond)
		}
		waitFor(t, "muster-scheduler to take its Lease", time.Minute, func() bool {
			l, err := c.kube.CoordinationV1().Leases("muster-system").Get(context.Background(), "muster-scheduler", metav1.GetOptions{})
			return err == nil && l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity != ""
		})
	})

	step("features-from-discovery", func(t *testing.T) {
		// A feature whose API this server lacks is off, said once; one
		// whose API it has is not mentioned.
		turnedOff := countLines(sched.output(), "Turned off a scheduler feature", "DRADeviceTaintRules")
		want := 1
		if c.serves(deviceTaintRules) {
			want = 0
		}
		if turnedOff != want {
			t.Errorf("%d log lines turn DRADeviceTaintRules off, want %d (server serves %s: %t)", turnedOff, want, deviceTaintRules, want == 0)
		}
	})

	step("workload-api-source", func(t *testing.T) {
		if c.serves(workloadPodGroups) {
			t.Skipf("this server serves %s", workloadPodGroups)
		}
		if n := countLines(sched.output(), "Upstream PodGroups (scheduling.k8s.io/v1beta1) are not served"); n != 1 {
			t.Errorf("%d log lines say the Workload API source is off, want 1", n)
		}
	})

	step("label-gang-launcher-and-workers-binds-whole", func(t *testing.T) {
		// mpi-operator's shape, CRD-free: a CPU launcher and two one-GPU
		// workers, min 3: room on the cpu node and the two T4 nodes.
		for _, p := range []*v1.Pod{
			labelMember("mpi-launcher", "mpi", 3, 0, "1", 0),
			labelMember("mpi-worker-0", "mpi", 3, 0, "1", 1),
			labelMember("mpi-worker-1", "mpi", 3, 0, "1", 1),
		} {
			c.create(t, p)
		}
		c.waitBound(t, "mpi-launcher", "mpi-worker-0", "mpi-worker-1")
	})

	step("podgroup-gang-one-node-short-provisions-and-binds", func(t *testing.T) {
		// An MPIJob's shape under a scheduler-plugins PodGroup, as
		// mpi-operator makes it: a CPU launcher and an 8-GPU worker, min 2.
		// The heavy pool has no node: the gang is one node short, asks for
		// it, and binds whole when it comes.
		pg := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
			"metadata": map[string]any{"name": "pt", "namespace": ns},
			"spec":     map[string]any{"minMember": int64(2)},
		}}
		if _, err := c.dyn.Resource(pluginsPodGroups).Namespace(ns).Create(context.Background(), pg, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		launcher, worker := member("pt-launcher", "1", 0), member("pt-worker-0", "4", 8)
		for _, p := range []*v1.Pod{launcher, worker} {
			p.Labels = map[string]string{"scheduling.x-k8s.io/pod-group": "pt"}
			c.create(t, p)
		}
		var request string
		waitFor(t, "a ProvisioningRequest for gang pt", 2*time.Minute, func() bool {
			l, err := c.dyn.Resource(provisioningRequests).Namespace(ns).List(context.Background(), metav1.ListOptions{})
			if err != nil {
				return false
			}
			for _, pr := range l.Items {
				if strings.Contains(pr.GetName(), "pt") {
					request = pr.GetName()
					return true
				}
			}
			return false
		})
		t.Logf("gang pt asked for its node in ProvisioningRequest %s", request)
		c.waitBound(t, "pt-launcher", "pt-worker-0")
		if n := len(c.readyNodes(t)); n != 4 {
			t.Errorf("%d nodes after gang pt bound, want 4 (one heavy node added)", n)
		}
	})

	step("elastic-gang-grows", func(t *testing.T) {
		// An elastic label gang, min 1 max 3, one GPU each, T4 only: both
		// T4 nodes are held by gang mpi, so it gets its quorum from a new
		// T4 node; when mpi ends it grows to 3.
		for i := range 3 {
			p := labelMember(fmt.Sprintf("el-%d", i), "el", 1, 3, "1", 1)
			p.Annotations["muster.dev/gpu-product"] = "Tesla-T4"
			c.create(t, p)
		}
		waitFor(t, "gang el to reach its min of 1", 2*time.Minute, func() bool { return c.countBound(t, "el-0", "el-1", "el-2") >= 1 })
		for _, name := range []string{"mpi-launcher", "mpi-worker-0", "mpi-worker-1"} {
			c.delete(t, name)
		}
		c.waitBound(t, "el-0", "el-1", "el-2")
	})

	step("rbac-allows-what-it-does", func(t *testing.T) {
		// The shipped RBAC lets the scheduler do all it does: a request
		// refused is logged (a watch refused, by its informer, each
		// retry) and what needed it works only by a fallback, if at all.
		if n := countLines(sched.output(), "forbidden"); n > 0 {
			t.Errorf("muster-scheduler was refused %d requests under the shipped RBAC:\n%s", n, sched.tail(30))
		}
	})
}

// kubernetesModule is the version of k8s.io/kubernetes this test is built
// with (the module file it runs with pins it).
func kubernetesModule(t *testing.T) string {
	out, err := exec.Command(goBin(), "list", "-m", modFlag(), "-f", "{{.Version}}", "k8s.io/kubernetes").Output()
	if err != nil {
		t.Fatalf("go list -m k8s.io/kubernetes: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// startScheduler writes the shipped profile with the service account's
// kubeconfig and runs muster-scheduler on a free secure port.
func (c *cluster) startScheduler(t *testing.T) (*process, string) {
	t.Helper()
	kubeconfig := c.serviceAccountKubeconfig(t, "muster-system", "muster-scheduler")
	raw, err := os.ReadFile(filepath.Join(repoRoot, "manifests", "scheduler", "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	cfg["clientConnection"].(map[string]any)["kubeconfig"] = kubeconfig
	out, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	p := startProcess(t, "muster-scheduler", bins.scheduler, "--config="+path, "--secure-port="+port,
		"--authentication-kubeconfig="+kubeconfig, "--authorization-kubeconfig="+kubeconfig, "--v=2")
	return p, port
}

// member is a training pod for muster-scheduler, tolerating the GPU taint.
func member(name, cpu string, gpus int64) *v1.Pod {
	req := v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu), v1.ResourceMemory: resource.MustParse("1Gi")}
	if gpus > 0 {
		req[gpu] = *resource.NewQuantity(gpus, resource.DecimalSI)
	}
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: v1.PodSpec{
			SchedulerName: schedulerName,
			Tolerations:   []v1.Toleration{{Key: string(gpu), Operator: v1.TolerationOpExists}},
			Containers:    []v1.Container{{Name: "train", Image: "train", Resources: v1.ResourceRequirements{Requests: req, Limits: gpuLimit(gpus)}}},
		},
	}
}

func gpuLimit(gpus int64) v1.ResourceList {
	if gpus == 0 {
		return nil
	}
	return v1.ResourceList{gpu: *resource.NewQuantity(gpus, resource.DecimalSI)}
}

// labelMember is a member of a CRD-free gang (labels and annotations only).
func labelMember(name, group string, min, max int, cpu string, gpus int64) *v1.Pod {
	p := member(name, cpu, gpus)
	p.Labels = map[string]string{"muster.dev/pod-group": group}
	p.Annotations = map[string]string{"muster.dev/min-member": fmt.Sprint(min)}
	if max > 0 {
		p.Annotations["muster.dev/max-member"] = fmt.Sprint(max)
	}
	return p
}

func (c *cluster) create(t *testing.T, p *v1.Pod) {
	t.Helper()
	if _, err := c.kube.CoreV1().Pods(ns).Create(context.Background(), p, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating pod %s: %v", p.Name, err)
	}
}

func (c *cluster) delete(t *testing.T, name string) {
	t.Helper()
	zero := int64(0)
	if err := c.kube.CoreV1().Pods(ns).Delete(context.Background(), name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatalf("deleting pod %s: %v", name, err)
	}
}

func (c *cluster) pod(t *testing.T, name string) *v1.Pod {
	t.Helper()
	p, err := c.kube.CoreV1().Pods(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (c *cluster) countBound(t *testing.T, names ...string) int {
	t.Helper()
	n := 0
	for _, name := range names {
		if c.pod(t, name).Spec.NodeName != "" {
			n++
		}
	}
	return n
}

// waitBound waits for every named pod to be bound (a hang guard of two
// minutes; on failure it says which are not and why the scheduler thinks so).
func (c *cluster) waitBound(t *testing.T, names ...string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for c.countBound(t, names...) < len(names) {
		if time.Now().After(deadline) {
			var why []string
			for _, name := range names {
				p := c.pod(t, name)
				for _, cond := range p.Status.Conditions {
					if cond.Type == v1.PodScheduled && cond.Status != v1.ConditionTrue {
						why = append(why, fmt.Sprintf("%s: %s", name, cond.Message))
					}
				}
			}
			for _, n := range c.readyNodes(t) {
				why = append(why, fmt.Sprintf("node %s: allocatable cpu %s, %s %s; taints %v; labels %v", n.Name,
					n.Status.Allocatable.Cpu(), gpu, n.Status.Allocatable.Name(gpu, resource.DecimalSI), n.Spec.Taints, n.Labels))
			}
			t.Fatalf("pods %v not all bound after 2 minutes:\n%s", names, strings.Join(why, "\n"))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (c *cluster) readyNodes(t *testing.T) []v1.Node {
	t.Helper()
	l, err := c.kube.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []v1.Node
	for _, n := range l.Items {
		for _, cond := range n.Status.Conditions {
			if cond.Type == v1.NodeReady && cond.Status == v1.ConditionTrue {
				out = append(out, n)
			}
		}
	}
	return out
}

// countLines counts the log lines holding every one of parts.
func countLines(log string, parts ...string) int {
	n := 0
	for _, line := range strings.Split(log, "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all {
			n++
		}
	}
	return n
}
