// Integration tests with training operators' objects: Kubeflow's training-operator run itself, et-operator's elastic jobs, mpi-operator v2's MPIJobs, and JobSets, bound whole or not at all.

package integration

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"
	schedv1alpha1 "sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
	"sigs.k8s.io/yaml"

	"github.com/muster-project/muster/pkg/controlplane"
	"github.com/muster-project/muster/pkg/gang"
)

// The real Kubeflow training-operator runs against the test's API server:
// its module (Kubernetes 1.29 client libraries) is built from the module
// proxy as its own binary, as a cluster runs its image, so its controller,
// not a copy of its objects, creates the PodGroup and pods Muster sees.
const (
	trainingOperatorModule  = "github.com/kubeflow/training-operator"
	trainingOperatorVersion = "v1.8.1"
)

var (
	trainingOperatorOnce sync.Once
	trainingOperatorBin  string
	trainingOperatorSrc  string
	trainingOperatorErr  error
)

// trainingOperator builds the operator once per test process (a few minutes
// the first time; Go's build cache keeps it) and returns the binary and the
// module's source directory (for its CRDs).
func trainingOperator(t *testing.T) (bin, src string) {
	t.Helper()
	trainingOperatorOnce.Do(func() {
		dir, err := os.MkdirTemp("", "training-operator-bin")
		if err != nil {
			trainingOperatorErr = err
			return
		}
		pkg := trainingOperatorModule + "/cmd/training-operator.v1@" + trainingOperatorVersion
		install := exec.Command("go", "install", pkg)
		install.Env = append(os.Environ(), "GOBIN="+dir, "GOFLAGS=-mod=mod")
		if out, err := install.CombinedOutput(); err != nil {
			trainingOperatorErr = fmt.Errorf("go install %s: %v\n%s", pkg, err, out)
			return
		}
		trainingOperatorBin = filepath.Join(dir, "training-operator.v1")
		out, err := exec.Command("go", "env", "GOMODCACHE").Output()
		if err != nil {
			trainingOperatorErr = err
			return
		}
		trainingOperatorSrc = filepath.Join(strings.TrimSpace(string(out)), trainingOperatorModule+"@"+trainingOperatorVersion)
	})
	if trainingOperatorErr != nil {
		t.Fatal(trainingOperatorErr)
	}
	return trainingOperatorBin, trainingOperatorSrc
}

// startTrainingOperator installs the operator's CRDs and runs it with gang
// scheduling through scheduler-plugins PodGroups for muster-scheduler, as
// its docs deploy it (--gang-scheduler-name=<the scheduler's name>).
func startTrainingOperator(t *testing.T, ctx context.Context, env *controlplane.Env, schemes ...string) {
	t.Helper()
	bin, src := trainingOperator(t)
	for _, s := range schemes {
		raw, err := os.ReadFile(filepath.Join(src, "manifests", "base", "crds", "kubeflow.org_"+s+"s.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if err := env.InstallCRD(ctx, raw); err != nil {
			t.Fatal(err)
		}
	}
	// Its webhook certificates live in a Secret of its namespace that its
	// deployment creates empty, and its cert rotator writes the CA into its
	// ValidatingWebhookConfiguration. That configuration is created here with
	// no webhooks, since the API server could not reach them: the operator's
	// validation is skipped, its controllers run as shipped.
	if err := controlplane.CreateNamespace(ctx, env.Client, "kubeflow"); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	if _, err := env.Client.CoreV1().Secrets("kubeflow").Create(ctx, &v1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "training-operator-webhook-cert"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "validator.training-operator.kubeflow.org"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kc, err := env.Kubeconfig()
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"--kubeconfig=" + kc, "--gang-scheduler-name=" + controlplane.MusterProfile,
		"--metrics-bind-address=0", "--health-probe-bind-address=0", fmt.Sprintf("--webhook-server-port=%d", freePort(t))}
	for _, s := range schemes {
		args = append(args, "--enable-scheme="+s)
	}
	// The kubelet would mount the Secret into the operator's pod once the
	// rotator filled it. The operator's cert directory is fixed, and its
	// webhook server starts as soon as tls.crt exists there (cert-controller
	// stats only that file): files an earlier run left would let it read
	// them while they are rewritten (make stress: "tls: failed to find any
	// PEM data in certificate input"), so they go first, and each file is
	// written whole under a temporary name and renamed, tls.crt last.
	const certDir = "/tmp/k8s-webhook-server/serving-certs"
	if err := os.RemoveAll(certDir); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	logs := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		sec, err := env.Client.CoreV1().Secrets("kubeflow").Get(ctx, "training-operator-webhook-cert", metav1.GetOptions{})
		if err != nil || len(sec.Data["tls.crt"]) == 0 || len(sec.Data["tls.key"]) == 0 || len(sec.Data["ca.crt"]) == 0 {
			return false, nil
		}
		if err := os.MkdirAll(certDir, 0o700); err != nil {
			return false, err
		}
		names := slices.Sorted(maps.Keys(sec.Data))
		names = append(slices.DeleteFunc(names, func(n string) bool { return n == "tls.crt" }), "tls.crt")
		for _, name := range names {
			tmp := filepath.Join(certDir, "."+name+".tmp")
			if err := os.WriteFile(tmp, sec.Data[name], 0o600); err != nil {
				return false, err
			}
			if err := os.Rename(tmp, filepath.Join(certDir, name)); err != nil {
				return false, err
			}
		}
		return true, nil
	}); err != nil {
		t.Fatalf("the training-operator's webhook certificates: %v\n%s", err, tail(logs.String(), 40))
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("training-operator's log:\n%s", tail(logs.String(), 60))
		}
	})
}

// lockedBuffer collects a process's output while the test may read it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// createFromYAML creates a custom object from its manifest, as kubectl would.
func createFromYAML(t *testing.T, ctx context.Context, env *controlplane.Env, gvr schema.GroupVersionResource, manifest string) {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(manifest), &u.Object); err != nil {
		t.Fatal(err)
	}
	dc, err := dynamic.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dc.Resource(gvr).Namespace(u.GetNamespace()).Create(ctx, u, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// reconcileUntilPods has the training-operator reconcile job again, by
// touching an annotation, until the job's pods exist. Version 1.8.1 loses
// a job whose PodGroup its cache has not seen yet (make stress, twice): it
// creates the PodGroup, reads it back from its cache, fails ("unable to
// get PodGroup after success creation"), and updates the job's status to
// be reconciled again; the next reconcile, still before the cache has the
// PodGroup, fails to create it ("already exists") and writes the same
// status within the same second, which is no change and no event; and the
// PodGroup's own creation is filtered out (it has no replica-type label),
// so nothing reconciles the job until the operator's 10-hour resync. The
// touch is the event the operator misses; it stops once the pods exist.
func reconcileUntilPods(t *testing.T, ctx context.Context, env *controlplane.Env, gvr schema.GroupVersionResource, job string) {
	t.Helper()
	dc, err := dynamic.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		for touch := 0; ; touch++ {
			pods, err := env.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: controlplane.Selector(gang.PodGroupLabel, job)})
			if err == nil && len(pods.Items) > 0 {
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(2 * time.Second):
			}
			patch := fmt.Sprintf(`{"metadata":{"annotations":{"muster.test/touch":"%d"}}}`, touch)
			if _, err := dc.Resource(gvr).Namespace(ns).Patch(ctx, job, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err == nil && touch > 0 {
				t.Logf("touched %s %s to have the training-operator reconcile it (%d)", gvr.Resource, job, touch)
			}
		}
	}()
}

var pyTorchJobs = schema.GroupVersionResource{Group: "kubeflow.org", Version: "v1", Resource: "pytorchjobs"}

// pyTorchJob is a PyTorchJob as users write it (the shape of the operator's
// examples/pytorch/simple.yaml), with GPU workers.
func pyTorchJob(name string, workers, gpus int) string {
	return fmt.Sprintf(`apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: %[1]s
  namespace: %[2]s
spec:
  runPolicy:
    schedulingPolicy:
      scheduleTimeoutSeconds: 120
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - name: pytorch
            image: docker.io/kubeflowkatib/pytorch-mnist:v1beta1-45c5727
            command: ["python3", "/opt/pytorch-mnist/mnist.py", "--epochs=1"]
            resources:
              limits: {nvidia.com/gpu: %[4]d}
    Worker:
      replicas: %[3]d
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - name: pytorch
            image: docker.io/kubeflowkatib/pytorch-mnist:v1beta1-45c5727
            command: ["python3", "/opt/pytorch-mnist/mnist.py", "--epochs=1"]
            resources:
              limits: {nvidia.com/gpu: %[4]d}
`, name, ns, workers, gpus)
}

// TestRealTrainingOperatorPyTorchJob runs Kubeflow's training-operator
// v1.8.1 itself (its own binary, built from the module proxy) with gang
// scheduling for muster-scheduler. Its controller creates, for each
// PyTorchJob, a scheduler-plugins PodGroup (minMember = master + workers,
// minResources their summed requests, the job's scheduleTimeoutSeconds) and
// master and worker pods labelled with it; Muster places a job that fits
// all at once, and none of one that does not, while the first runs.
func TestRealTrainingOperatorPyTorchJob(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the training-operator")
	}
	trainingOperator(t) // before the control plane: the build takes a while
	ctx, env, sched := setup(t, controlplane.GangArgs{BackoffSeconds: 1})
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 4, 8); err != nil {
		t.Fatal(err)
	}
	startTrainingOperator(t, ctx, env, "pytorchjob")

	createFromYAML(t, ctx, env, pyTorchJobs, pyTorchJob("bert", 3, 8))
	reconcileUntilPods(t, ctx, env, pyTorchJobs, "bert")
	// The operator's PodGroup, field for field as it wrote it.
	var pgMin int32
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		pg, err := env.PodGroups.SchedulingV1alpha1().PodGroups(ns).Get(ctx, "bert", metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		pgMin = pg.Spec.MinMember
		return true, nil
	}); err != nil {
		t.Fatalf("the training-operator made no PodGroup for PyTorchJob bert: %v", err)
	}
	if pgMin != 4 {
		t.Errorf("PodGroup bert minMember = %d, want 4 (master + 3 workers)", pgMin)
	}
	waitBound(t, env, gang.PodGroupLabel, "bert", 4)
	waitCondition(t, ctx, env, "bert", gang.ReasonAtMax, "4 of max 4 members placed")
	pods, err := env.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: controlplane.Selector(gang.PodGroupLabel, "bert")})
	if err != nil {
		t.Fatal(err)
	}
	roles := map[string]int{}
	for _, p := range pods.Items {
		if p.Spec.SchedulerName != controlplane.MusterProfile {
			t.Errorf("pod %s has schedulerName %q", p.Name, p.Spec.SchedulerName)
		}
		roles[p.Labels["training.kubeflow.org/replica-type"]]++
	}
	if roles["master"] != 1 || roles["worker"] != 3 {
		t.Errorf("pods by replica type = %v, want 1 master and 3 workers", roles)
	}

	// A second job needs 4 nodes too; none is free: none of its pods binds.
	createFromYAML(t, ctx, env, pyTorchJobs, pyTorchJob("gpt", 3, 8))
	reconcileUntilPods(t, ctx, env, pyTorchJobs, "gpt")
	waitCondition(t, ctx, env, "gpt", gang.ReasonUnschedulable, "")
	settledBound(t, ctx, env, sched, gang.PodGroupLabel, "gpt", 0)
	waitPod(t, ctx, env, "gpt-master-0", "unschedulable", func(p *v1.Pod) bool {
		c := scheduledCondition(p)
		return c != nil && c.Status == v1.ConditionFalse
	})
}

// etWorker is an et-operator TrainingJob worker as its controller builds it
// (AliyunContainerService/et-operator@96806fb pkg/controllers/resource.go
// newWorker, worker.go getWorkerName/createWorker; ScaleOut adds the
// scaleout-name label, scaleout_controller.go): the job's worker template
// (where the user asks for a gang with Muster's CRD-free labels, since the
// operator creates no PodGroup: min = minReplicas, max = maxReplicas) with
// the operator's labels, named <job>-worker-<index>, owned by the job,
// restartPolicy Never and a sleeping command when the template has none.
func etWorker(job string, index, minReplicas, maxReplicas int, scaleOut string) *v1.Pod {
	p := controlplane.Member{Namespace: ns, Name: fmt.Sprintf("%s-worker-%d", job, index), GPUs: 8,
		Labels:      map[string]string{gang.GroupLabel: job},
		Annotations: map[string]string{gang.MinMemberAnnotation: fmt.Sprint(minReplicas), gang.MaxMemberAnnotation: fmt.Sprint(maxReplicas)},
	}.Pod()
	for k, v := range map[string]string{"group-name": "kai.alibabacloud.com", "training-job-name": job,
		"training-job-role": "worker", "replica-index": fmt.Sprint(index)} {
		p.Labels[k] = v
	}
	if scaleOut != "" {
		p.Labels["scaleout-name"] = scaleOut
	}
	p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "kai.alibabacloud.com/v1alpha1", Kind: "TrainingJob", Name: job,
		UID: types.UID("5f1c0d52-2f4e-4c8e-9a57-" + fmt.Sprintf("%012d", len(job))), Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}}
	p.Spec.RestartPolicy = v1.RestartPolicyNever
	p.Spec.Containers[0].Command = []string{"sh", "-c", "sleep 365d"}
	return p
}

// An et-operator elastic Horovod job (the seeds' TrainingJob: workers with
// minReplicas/maxReplicas, a launcher once they run): ScaleOut's new workers
// are admitted as elastic members up to max, as room allows; ScaleIn's
// deleted workers leave the gang placed while it stays at or above min, and
// it says so when it drops below.
func TestETOperatorTrainingJobScales(t *testing.T) {
	ctx, env, sched := setup(t, controlplane.GangArgs{BackoffSeconds: 1, ScheduleTimeoutSeconds: 600})
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 3, 8); err != nil {
		t.Fatal(err)
	}
	const job = "horovod"
	createPods(t, ctx, env, etWorker(job, 0, 2, 4, ""), etWorker(job, 1, 2, 4, ""))
	waitBound(t, env, gang.GroupLabel, job, 2)
	// The launcher comes once the workers run (createLauncher after
	// WorkersReady), outside the gang: the template names no gang.
	launcher := controlplane.Member{Namespace: ns, Name: job + "-launcher", Labels: map[string]string{
		"group-name": "kai.alibabacloud.com", "training-job-name": job, "training-job-role": "launcher"}}.Pod()
	createPods(t, ctx, env, launcher)
	waitPod(t, ctx, env, launcher.Name, "bound", func(p *v1.Pod) bool { return p.Spec.NodeName != "" })

	// ScaleOut by 2: one fits now, the other once a node is added.
	createPods(t, ctx, env, etWorker(job, 2, 2, 4, "scaleout-a"), etWorker(job, 3, 2, 4, "scaleout-a"))
	waitBound(t, env, gang.GroupLabel, job, 3)
	settledBound(t, ctx, env, sched, gang.GroupLabel, job, 3)
	if err := controlplane.CreateNode(ctx, env.Client, controlplane.GPUNode("gpu-extra", 8)); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.GroupLabel, job, 4)
	waitEvent(t, ctx, env, "Pod", job+"-worker-0", gang.ReasonAtMax, "4 of max 4 members placed")
	// A fifth worker (ScaleOut past maxReplicas) waits: the gang is at max.
	createPods(t, ctx, env, etWorker(job, 4, 2, 4, "scaleout-b"))
	if err := controlplane.CreateNode(ctx, env.Client, controlplane.GPUNode("gpu-extra-2", 8)); err != nil {
		t.Fatal(err)
	}
	settledBound(t, ctx, env, sched, gang.GroupLabel, job, 4)

	// ScaleIn of named workers, as the operator deletes them (grace 0).
	for _, name := range []string{job + "-worker-4", job + "-worker-3", job + "-worker-2"} {
		if err := env.Client.CoreV1().Pods(ns).Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
			t.Fatal(err)
		}
	}
	waitBound(t, env, gang.GroupLabel, job, 2)
	settledBound(t, ctx, env, sched, gang.GroupLabel, job, 2)
	if err := env.Client.CoreV1().Pods(ns).Delete(ctx, job+"-worker-1", metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, ctx, env, "Pod", job+"-worker-0", gang.ReasonMembersLost, "only 1 of min 2 members remain placed")
}

// mpiOperatorJob returns what kubeflow/mpi-operator v0.8.2 creates for an
// MPIJob (v2beta1) with gang scheduling through scheduler-plugins
// (--gang-scheduling=<scheduler name>): its module is not served by the Go
// module proxy here, so its controller cannot run; these are its objects,
// field for field, from pkg/controller/podgroup.go
// (SchedulerPluginsCtrl.newPodGroup, calculateMinAvailable,
// calPGMinResource, decoratePodTemplateSpec) and
// pkg/controller/mpi_job_controller.go (newWorker, newLauncherJob,
// newLauncherPodTemplate, defaultLabels): the PodGroup named after the job
// with minMember = workers + 1, scheduleTimeoutSeconds 0 and minResources
// the summed requests; workers <job>-worker-<i> owned by the MPIJob; the
// launcher pod made by the batch Job <job>-launcher (the Job controller
// names it <job>-launcher-<suffix> and owns it); every pod labelled with the
// PodGroup and its role and using the gang scheduler.
func mpiOperatorJob(name string, workers int, workerGPUs int64) (*schedv1alpha1.PodGroup, []*v1.Pod) {
	mpiJobRef := metav1.OwnerReference{APIVersion: "kubeflow.org/v2beta1", Kind: "MPIJob", Name: name,
		UID: types.UID("0a6b2e1c-4d7f-4b8e-8c1d-" + fmt.Sprintf("%012d", len(name))), Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}
	labels := func(role string) map[string]string {
		return map[string]string{"training.kubeflow.org/operator-name": "mpi-operator", "training.kubeflow.org/job-name": name,
			"training.kubeflow.org/job-role": role, schedv1alpha1.PodGroupLabel: name}
	}
	var pods []*v1.Pod
	launcher := controlplane.Member{Namespace: ns, Name: name + "-launcher-x7k2p", Labels: labels("launcher")}.Pod()
	launcher.Spec.Containers[0].Resources.Requests[v1.ResourceCPU] = resource.MustParse("2")
	launcher.Labels["batch.kubernetes.io/job-name"] = name + "-launcher"
	launcher.OwnerReferences = []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: name + "-launcher",
		UID: types.UID("7e2d9c4a-1b3f-4a6e-9d2c-" + fmt.Sprintf("%012d", len(name))), Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}}
	launcher.Spec.Hostname, launcher.Spec.Subdomain = name+"-launcher", name
	launcher.Spec.RestartPolicy = v1.RestartPolicyOnFailure
	pods = append(pods, launcher)
	minResources := v1.ResourceList{}
	add := func(rl v1.ResourceList) {
		for k, q := range rl {
			sum := minResources[k]
			sum.Add(q)
			minResources[k] = sum
		}
	}
	add(launcher.Spec.Containers[0].Resources.Requests)
	for i := range workers {
		w := controlplane.Member{Namespace: ns, Name: fmt.Sprintf("%s-worker-%d", name, i), GPUs: workerGPUs, Labels: labels("worker")}.Pod()
		w.Labels["training.kubeflow.org/replica-index"] = fmt.Sprint(i)
		w.OwnerReferences = []metav1.OwnerReference{mpiJobRef}
		w.Spec.Hostname, w.Spec.Subdomain = w.Name, name
		w.Spec.DNSConfig = &v1.PodDNSConfig{Searches: []string{fmt.Sprintf("%s.%s.svc.cluster.local", name, ns)}}
		w.Spec.Containers[0].Command = []string{"/usr/sbin/sshd", "-De"}
		w.Spec.RestartPolicy = v1.RestartPolicyNever
		add(w.Spec.Containers[0].Resources.Requests)
		pods = append(pods, w)
	}
	pg := &schedv1alpha1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, OwnerReferences: []metav1.OwnerReference{mpiJobRef}},
		Spec:       schedv1alpha1.PodGroupSpec{MinMember: int32(workers + 1), ScheduleTimeoutSeconds: ptr.To[int32](0), MinResources: minResources},
	}
	return pg, pods
}

// An MPIJob as mpi-operator v2 makes it (launcher without GPUs, 8-GPU
// workers) binds whole on exactly enough nodes, a second one that does not
// fit binds nothing.
func TestMPIOperatorV2Objects(t *testing.T) {
	ctx, env, sched := setup(t, controlplane.GangArgs{BackoffSeconds: 1})
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 4, 8); err != nil {
		t.Fatal(err)
	}
	if err := controlplane.CreateNode(ctx, env.Client, cpuNode("cpu-0")); err != nil {
		t.Fatal(err)
	}
	pg, pods := mpiOperatorJob("allreduce", 4, 8)
	if _, err := env.PodGroups.SchedulingV1alpha1().PodGroups(ns).Create(ctx, pg, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The operator creates the workers, then the launcher Job.
	createPods(t, ctx, env, pods[1:]...)
	settledBound(t, ctx, env, sched, gang.PodGroupLabel, "allreduce", 0)
	createPods(t, ctx, env, pods[0])
	waitBound(t, env, gang.PodGroupLabel, "allreduce", 5)
	waitCondition(t, ctx, env, "allreduce", gang.ReasonAtMax, "5 of max 5 members placed")

	pg2, pods2 := mpiOperatorJob("second", 2, 8)
	if _, err := env.PodGroups.SchedulingV1alpha1().PodGroups(ns).Create(ctx, pg2, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	createPods(t, ctx, env, pods2...)
	waitCondition(t, ctx, env, "second", gang.ReasonUnschedulable, "")
	settledBound(t, ctx, env, sched, gang.PodGroupLabel, "second", 0)
}

// jobSetPod is a pod as a JobSet (kubernetes-sigs/jobset v0.12.0) and the Job
// controller make it: JobSet copies the replicated job's pod template,
// which is where a user asks for a gang (JobSet makes no PodGroup; Muster's
// CRD-free labels on every replicated job's template name one gang for the
// whole JobSet), adds its labels and annotations
// (pkg/controllers/jobset_controller.go constructJob, labelAndAnnotateObject;
// the Job is <jobset>-<replicatedjob>-<index>, placement.GenJobName) and a
// subdomain; the Job controller (Indexed completion) names the pod
// <job>-<completion index>-<suffix> and adds its own labels and owner.
func jobSetPod(jobSet, rjob string, rjobReplicas, jobIdx, globalIdx, podIdx int, gpus int64, min int, globalReplicas int) *v1.Pod {
	jobName := fmt.Sprintf("%s-%s-%d", jobSet, rjob, jobIdx)
	p := controlplane.Member{Namespace: ns, Name: fmt.Sprintf("%s-%d-q8z2x", jobName, podIdx), GPUs: gpus,
		Labels:      map[string]string{gang.GroupLabel: jobSet},
		Annotations: map[string]string{gang.MinMemberAnnotation: fmt.Sprint(min)},
	}.Pod()
	jobSetLabels := map[string]string{
		"jobset.sigs.k8s.io/jobset-name": jobSet, "jobset.sigs.k8s.io/jobset-uid": "3c9a1f0e-7b2d-4e51-a8c6-0d4f2b7e9a13",
		"jobset.sigs.k8s.io/replicatedjob-name": rjob, "jobset.sigs.k8s.io/restart-attempt": "0",
		"jobset.sigs.k8s.io/replicatedjob-replicas": fmt.Sprint(rjobReplicas), "jobset.sigs.k8s.io/global-replicas": fmt.Sprint(globalReplicas),
		"jobset.sigs.k8s.io/job-index": fmt.Sprint(jobIdx), "jobset.sigs.k8s.io/job-key": fmt.Sprintf("%040x", len(jobName)*7919),
		"jobset.sigs.k8s.io/job-global-index": fmt.Sprint(globalIdx), "jobset.sigs.k8s.io/group-name": "default",
		"jobset.sigs.k8s.io/group-replicas": fmt.Sprint(globalReplicas), "jobset.sigs.k8s.io/job-group-index": fmt.Sprint(globalIdx),
	}
	for k, v := range jobSetLabels {
		p.Labels[k] = v
		p.Annotations[k] = v
	}
	jobUID := fmt.Sprintf("9d2e4b6a-1c3f-4a5e-8b7d-%012d", jobIdx*10+len(rjob))
	for k, v := range map[string]string{"batch.kubernetes.io/controller-uid": jobUID, "controller-uid": jobUID,
		"batch.kubernetes.io/job-name": jobName, "job-name": jobName, "batch.kubernetes.io/job-completion-index": fmt.Sprint(podIdx)} {
		p.Labels[k] = v
	}
	p.Annotations["batch.kubernetes.io/job-completion-index"] = fmt.Sprint(podIdx)
	p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: jobName, UID: types.UID(jobUID),
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}}
	p.Spec.Subdomain = jobSet
	p.Spec.Hostname = fmt.Sprintf("%s-%d", jobName, podIdx)
	p.Spec.RestartPolicy = v1.RestartPolicyNever
	return p
}

// A JobSet of a CPU-only driver job and two 2-pod worker jobs of 8 GPUs,
// one gang across its replicated jobs (min = every pod): it binds whole on
// four GPU nodes, and a second JobSet that does not fit binds nothing.
func TestJobSetPods(t *testing.T) {
	ctx, env, sched := setup(t, controlplane.GangArgs{BackoffSeconds: 1})
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 5, 8); err != nil {
		t.Fatal(err)
	}
	pods := func(name string) []*v1.Pod {
		out := []*v1.Pod{jobSetPod(name, "driver", 1, 0, 0, 0, 0, 5, 3)}
		for j := range 2 {
			for i := range 2 {
				out = append(out, jobSetPod(name, "workers", 2, j, j+1, i, 8, 5, 3))
			}
		}
		return out
	}
	createPods(t, ctx, env, pods("llm")...)
	waitBound(t, env, gang.GroupLabel, "llm", 5)
	createPods(t, ctx, env, pods("second")...)
	waitPod(t, ctx, env, "second-workers-0-0-q8z2x", "unschedulable", hasScheduledReason(v1.PodReasonUnschedulable, "gang team-a/second"))
	settledBound(t, ctx, env, sched, gang.GroupLabel, "second", 0)
}
