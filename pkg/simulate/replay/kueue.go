// The kueue side: Kueue's controller manager as a child process (its CRDs,
// configuration and throwaway certificates), its queues and the
// ProvisioningRequest admission check, and pods as Kueue's pod webhook would
// leave them.

package replay

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilversion "k8s.io/apimachinery/pkg/util/version"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
	"k8s.io/component-base/version"
	"sigs.k8s.io/yaml"

	autoscalingv1 "github.com/muster-project/muster/pkg/apis/autoscaling/v1"
	"github.com/muster-project/muster/pkg/controlplane"
	"github.com/muster-project/muster/pkg/simulate"
)

// Kueue's names the simulator writes on pods (Kueue's constants; Kueue is
// its own module, hack/kueue, which this one does not import).
const (
	kueueQueueLabel           = "kueue.x-k8s.io/queue-name"
	kueueManagedLabel         = "kueue.x-k8s.io/managed"
	kueueGroupLabel           = "kueue.x-k8s.io/pod-group-name"
	kueueTotalCountAnnotation = "kueue.x-k8s.io/pod-group-total-count"
	kueueRoleHashAnnotation   = "kueue.x-k8s.io/role-hash"
	kueueGate                 = "kueue.x-k8s.io/admission"
	kueueFinalizer            = "kueue.x-k8s.io/managed"
)

// The run's Kueue objects: one ResourceFlavor, one ClusterQueue (quota: the
// pools at their max), its LocalQueue in the jobs' namespace, and the
// ProvisioningRequest admission check with its config.
const (
	kueueQueue     = "sim"
	kueueFlavor    = "pools"
	kueueCheck     = "provisioning"
	kueueNamespace = "kueue-system"
	// kueueProvisioningController is the controllerName of Kueue's
	// ProvisioningRequest admission check.
	kueueProvisioningController = "kueue.x-k8s.io/provisioning-request"
	// bestEffortAtomic is the ProvisioningRequest class Kueue asks for.
	bestEffortAtomic = "best-effort-atomic-scale-up.autoscaling.x-k8s.io"
)

var (
	kueueWorkloads = schema.GroupVersionResource{Group: "kueue.x-k8s.io", Version: "v1beta2", Resource: "workloads"}
	// storedWorkloads is the Workloads' etcd key (controlplane.WrittenSince).
	storedWorkloads = "kueue.x-k8s.io/workloads"
)

// kueueQuietWindow is the kueue side's quiet window: a change reaches the
// default scheduler through a chain of Kueue's reconciles (a pod group's
// Workload, its quota, the ProvisioningRequest, the check's state,
// admission, the pods' ungating), each in wall time, and a step must not
// end in a gap between two of them.
const kueueQuietWindow = 200 * time.Millisecond

// kueueBin is the Kueue binary (make kueue), and its CRDs beside it.
func (o Options) kueueBin() string {
	if o.KueueBin != "" {
		return o.KueueBin
	}
	return filepath.Join("bin", "kueue")
}

func (o Options) kueueCRDs() string { return o.kueueBin() + "-crds" }

// checkKueueBuilt says where to get Kueue when its binary or CRDs are missing.
func checkKueueBuilt(o Options) error {
	for _, p := range []string{o.kueueBin(), o.kueueCRDs()} {
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("--kueue-bin: the kueue side needs %s (build it with make kueue): %w", p, err)
		}
	}
	return nil
}

// installKueueCRDs installs the CRDs make kueue copied from Kueue's module
// (config/components/crd/bases): the API server then serves Workloads,
// queues and admission checks before Kueue starts, as its Deployment's
// manifests would have them.
func installKueueCRDs(ctx context.Context, env *controlplane.Env, dir string) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("--kueue-bin: no CRDs in %s (make kueue copies them there)", dir)
	}
	slices.Sort(files)
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if err := env.InstallCRD(ctx, raw); err != nil {
			return fmt.Errorf("Kueue's CRD %s: %w", filepath.Base(f), err)
		}
	}
	return nil
}

// kueueConfig is Kueue's Configuration for the run. Kueue's own manifests'
// settings where they apply, except: no webhooks (none are installed, and
// the simulator writes pods as the pod webhook would), so no internal
// certificate management; no leader election (one replica); only the pod
// integration; the visibility server off; loopback ports; and client
// pacing off, as for the other components of a stepped replay (a step
// waits for their writes).
func kueueConfig(health, webhook int, certDir string) string {
	return fmt.Sprintf(`apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
namespace: %s
health:
  healthProbeBindAddress: 127.0.0.1:%d
metrics:
  bindAddress: "0"
webhook:
  host: 127.0.0.1
  port: %d
  certDir: %s
leaderElection:
  leaderElect: false
internalCertManagement:
  enable: false
manageJobsWithoutQueueName: false
clientConnection:
  qps: 500
  burst: 1000
integrations:
  frameworks:
  - pod
resources:
  # Every simulated pod asks 1 GiB and no pool runs out of memory first;
  # the quota is the pools' CPUs and GPUs (what the oracle counts too).
  excludeResourcePrefixes:
  - memory
featureGates:
  VisibilityOnDemand: false
`, kueueNamespace, health, webhook, certDir)
}

// kueueQueues are the run's queue objects: the quota is every pool at its
// max (CPUs and GPUs), in one flavor, so the autoscaler, not Kueue, picks
// the pool; the ProvisioningRequest check asks for best-effort-atomic
// scale-up with Kueue's default retries (3, from 60 s doubling to at most
// 1800 s, run on the trace clock: runBackoffOnTrace), for the pod sets
// that ask for GPUs only (managedResources, as Kueue's documentation shows
// for GPU provisioning): a request is served by one pool, and a CPU
// launcher beside GPU workers would make every such gang's request fail,
// so the launcher is scaled for as an ordinary pod once it is admitted.
// Kueue's default preemption (none within the queue) and queueing
// (BestEffortFIFO: priority, then age) are kept.
func kueueQueues(pools []simulate.OraclePool) string {
	var milliCPU, gpus int64
	for _, p := range pools {
		milliCPU += p.MilliCPU * int64(p.Max)
		gpus += int64(p.GPUs) * int64(p.Max)
	}
	return fmt.Sprintf(`apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: %[1]s
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ProvisioningRequestConfig
metadata:
  name: %[2]s
spec:
  provisioningClassName: %[3]s
  managedResources:
  - %[6]s
  retryStrategy:
    backoffLimitCount: 3
    backoffBaseSeconds: 60
    backoffMaxSeconds: 1800
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata:
  name: %[2]s
spec:
  controllerName: %[4]s
  parameters:
    apiGroup: kueue.x-k8s.io
    kind: ProvisioningRequestConfig
    name: %[2]s
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: %[5]s
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, %[6]s]
    flavors:
    - name: %[1]s
      resources:
      - name: cpu
        nominalQuota: %[7]dm
      - name: %[6]s
        nominalQuota: %[8]d
  admissionChecksStrategy:
    admissionChecks:
    - name: %[2]s
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  namespace: %[9]s
  name: %[5]s
spec:
  clusterQueue: %[5]s
`, kueueFlavor, kueueCheck, bestEffortAtomic, kueueProvisioningController, kueueQueue, controlplane.GPU, milliCPU, gpus, simNamespace)
}

// startKueue installs Kueue's CRDs, starts its controller manager against
// the run's API server, waits until it is ready, and creates the queues;
// it returns once the ClusterQueue is active (its admission check is
// served).
func startKueue(ctx context.Context, o Options, env *controlplane.Env, kubeconfig, dir string, pools []simulate.OraclePool) (*process, error) {
	if err := installKueueCRDs(ctx, env, o.kueueCRDs()); err != nil {
		return nil, err
	}
	if err := controlplane.CreateNamespace(ctx, env.Client, kueueNamespace); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("creating Kueue's namespace %s: %w", kueueNamespace, err)
	}
	certDir := filepath.Join(dir, "kueue-certs")
	if err := writeThrowawayCert(certDir); err != nil {
		return nil, fmt.Errorf("Kueue's certificates: %w", err)
	}
	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	configPath := filepath.Join(dir, "kueue-config.yaml")
	if err := os.WriteFile(configPath, []byte(kueueConfig(ports[0], ports[1], certDir)), 0o600); err != nil {
		return nil, err
	}
	log := freshLog(dir, "kueue")
	p, err := startProcess(ctx, o.kueueBin(), []string{"--config=" + configPath}, log,
		"KUBECONFIG="+kubeconfig,
		// The metrics server's certificate (hack/kueue/build.sh); the
		// webhook server's is in the configuration's certDir.
		"KUEUE_METRICS_CERT_DIR="+certDir)
	if err != nil {
		return nil, err
	}
	if err := waitReady(ctx, p, fmt.Sprintf("http://127.0.0.1:%d/readyz", ports[0]), time.Minute); err != nil {
		p.stop()
		return nil, fmt.Errorf("kueue: %w\n%s", err, lastLines(log, 20))
	}
	dyn, err := dynamic.NewForConfig(env.Config)
	if err != nil {
		p.stop()
		return nil, err
	}
	if err := createManifests(ctx, dyn, kueueQueues(pools)); err != nil {
		p.stop()
		return nil, err
	}
	if err := waitClusterQueueActive(ctx, dyn, p, time.Minute); err != nil {
		p.stop()
		return nil, fmt.Errorf("kueue: %w\n%s", err, lastLines(log, 20))
	}
	return p, nil
}

// parseableServerVersion makes the in-process API server's version one
// Kueue can parse: Kueue reads it at start (as a semantic version) and
// exits if it cannot, and a server built without the release's linker
// flags reports the placeholder v0.0.0-master+$Format:%H$. The placeholder
// loses its unparseable build metadata; a released build's version is left.
// The API server takes its version when it starts: this must come first.
func parseableServerVersion() error {
	v := version.Get().GitVersion
	if _, err := utilversion.ParseSemantic(v); err == nil {
		return nil
	}
	plain, _, _ := strings.Cut(v, "+")
	if err := version.SetDynamicVersion(plain); err != nil {
		return fmt.Errorf("the API server's version %q does not parse, which Kueue needs, and %q cannot replace it: %w", v, plain, err)
	}
	return nil
}

// waitReady polls url until it answers 200, or the process exits.
func waitReady(ctx context.Context, p *process, url string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	client := &http.Client{Timeout: time.Second}
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready within %s", url, timeout)
		}
		select {
		case <-p.done:
			return fmt.Errorf("%s exited before it was ready", filepath.Base(p.cmd.Path))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// waitClusterQueueActive waits until Kueue reports the run's ClusterQueue
// Active: its flavor exists and its admission check's controller serves it.
func waitClusterQueueActive(ctx context.Context, dyn dynamic.Interface, p *process, timeout time.Duration) error {
	gvr := schema.GroupVersionResource{Group: "kueue.x-k8s.io", Version: "v1beta2", Resource: "clusterqueues"}
	deadline := time.Now().Add(timeout)
	why := "not read yet"
	for {
		cq, err := dyn.Resource(gvr).Get(ctx, kueueQueue, metav1.GetOptions{})
		if err == nil {
			why = "no Active condition"
			conds, _, _ := unstructured.NestedSlice(cq.Object, "status", "conditions")
			for _, c := range conds {
				m, _ := c.(map[string]any)
				if m["type"] == "Active" {
					if m["status"] == "True" {
						return nil
					}
					why = fmt.Sprintf("Active %v: %v: %v", m["status"], m["reason"], m["message"])
				}
			}
		} else {
			why = err.Error()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("ClusterQueue %s not active within %s: %s", kueueQueue, timeout, why)
		}
		select {
		case <-p.done:
			return fmt.Errorf("kueue exited before ClusterQueue %s was active (%s)", kueueQueue, why)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// createManifests creates each object of a multi-document YAML.
func createManifests(ctx context.Context, dyn dynamic.Interface, docs string) error {
	for _, doc := range strings.Split(docs, "\n---\n") {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			return fmt.Errorf("decoding a Kueue object: %w", err)
		}
		gvk := u.GroupVersionKind()
		gvr := schema.GroupVersionResource{Group: gvk.Group, Version: gvk.Version, Resource: strings.ToLower(gvk.Kind) + "s"}
		var err error
		if ns := u.GetNamespace(); ns != "" {
			_, err = dyn.Resource(gvr).Namespace(ns).Create(ctx, u, metav1.CreateOptions{})
		} else {
			_, err = dyn.Resource(gvr).Create(ctx, u, metav1.CreateOptions{})
		}
		if err != nil {
			return fmt.Errorf("creating %s %s: %w", gvk.Kind, u.GetName(), err)
		}
	}
	return nil
}

// freePorts returns n loopback ports free now.
func freePorts(n int) ([]int, error) {
	var ports []int
	var lns []net.Listener
	defer func() {
		for _, l := range lns {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		lns = append(lns, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// writeThrowawayCert writes a self-signed tls.crt and tls.key for
// 127.0.0.1 into dir: Kueue's webhook and metrics servers will not start
// without one, though nothing calls them.
func writeThrowawayCert(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kueue-simulated"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(30 * 24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "tls.crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "tls.key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600)
}

// kueuePods are the pods a job has on the kueue side. A Kueue plain pod
// group has no min and max: all of its pod-group-total-count pods are
// admitted together, and pods beyond the count are deleted as excess. An
// elastic gang is therefore its min members (its launcher and least
// workers), and its extras are not run.
func kueuePods(j simulate.Job) []string {
	all := j.Pods()
	if j.Kind != simulate.KindGang || j.Min >= len(all) {
		return all
	}
	least, _ := j.Workers()
	var out []string
	for i, name := range all {
		if j.IsLauncher(name) || i < least {
			out = append(out, name)
		}
	}
	return out
}

// asKueueWebhookWould changes a pod as Kueue's pod webhook
// (pkg/controller/jobs/pod/pod_webhook.go, Default) leaves a pod with a
// queue name, none being installed: the managed label, the admission
// scheduling gate, the managed finalizer, and the role hash of its shape;
// a gang's pods carry their group's name (the job's) and total count, and
// so does each pod of a plain job, a group of one named after the pod: a
// single pod's Workload would be named after a hash of its UID, which
// differs from replay to replay and orders the requests, so replays would
// part; a group of one is admitted the same way. priority is
// the value the API server's Priority admission plugin gives the pod
// before webhooks run, which the role hash includes.
func asKueueWebhookWould(p *v1.Pod, j simulate.Job, priority int32) error {
	p.Labels[kueueQueueLabel] = kueueQueue
	p.Labels[kueueManagedLabel] = "true"
	if j.Kind == simulate.KindGang {
		p.Labels[kueueGroupLabel] = j.Name
		p.Annotations[kueueTotalCountAnnotation] = strconv.Itoa(len(kueuePods(j)))
	} else {
		p.Labels[kueueGroupLabel] = p.Name
		p.Annotations[kueueTotalCountAnnotation] = "1"
	}
	if !slices.Contains(p.Finalizers, kueueFinalizer) {
		p.Finalizers = append(p.Finalizers, kueueFinalizer)
	}
	if !slices.ContainsFunc(p.Spec.SchedulingGates, func(g v1.PodSchedulingGate) bool { return g.Name == kueueGate }) {
		p.Spec.SchedulingGates = append(p.Spec.SchedulingGates, v1.PodSchedulingGate{Name: kueueGate})
	}
	if _, ok := p.Annotations[kueueRoleHashAnnotation]; !ok {
		spec := p.Spec.DeepCopy()
		spec.Priority = &priority
		hash, err := kueueRoleHash(spec)
		if err != nil {
			return fmt.Errorf("pod %s/%s: Kueue's role hash: %w", p.Namespace, p.Name, err)
		}
		p.Annotations[kueueRoleHashAnnotation] = hash
	}
	return nil
}

// kueueRoleHash is Kueue's utilpod.GenerateRoleHash (pkg/util/pod/pod.go):
// the first 8 hex digits of the SHA-256 of the JSON of the spec's fields
// that matter to admission. Kueue's function is not imported (its module
// pins other Kubernetes libraries); TestKueueRoleHash checks this copy
// against hashes Kueue's own function gave.
func kueueRoleHash(spec *v1.PodSpec) (string, error) {
	containers := func(cs []v1.Container) []map[string]any {
		var out []map[string]any
		for _, c := range cs {
			out = append(out, map[string]any{"resources": map[string]any{"requests": c.Resources.Requests}, "ports": c.Ports})
		}
		return out
	}
	shape := map[string]any{"spec": map[string]any{
		"initContainers":            containers(spec.InitContainers),
		"containers":                containers(spec.Containers),
		"nodeSelector":              spec.NodeSelector,
		"affinity":                  spec.Affinity,
		"tolerations":               spec.Tolerations,
		"runtimeClassName":          spec.RuntimeClassName,
		"priority":                  spec.Priority,
		"topologySpreadConstraints": spec.TopologySpreadConstraints,
		"overhead":                  spec.Overhead,
		"resourceClaims":            spec.ResourceClaims,
	}}
	b, err := json.Marshal(shape)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%x", sha256.Sum256(b))[:8], nil
}

// kueueRecord is what the watcher saw Kueue do: Workloads admitted once
// their ProvisioningRequest check was Ready, and the ProvisioningRequests
// Kueue created (owned by a Workload).
type kueueRecord struct {
	admitted map[string]bool
	requests map[string]bool
	// backoffs are the Workloads' retry backoffs run on the trace clock.
	backoffs map[types.UID]*traceBackoff
}

// traceBackoff is one Workload's retry backoff on the trace clock: Kueue
// set its requeueAt to seen (wall time, after the check's
// requeueAfterSeconds); the simulator moved it to hold until the same
// seconds of trace time had passed, and then released it.
type traceBackoff struct {
	seen, hold string
	released   bool
}

// kueueBackoffHold is how far ahead of the wall clock a Workload's requeueAt
// is moved while its backoff runs on the trace clock: past any replay, so
// that only the trace clock ends it.
const kueueBackoffHold = 24 * time.Hour

// runBackoffOnTrace makes a Workload's retry backoff (Kueue's
// ProvisioningRequest retryStrategy: a failed or expired request is
// retried after requeueAfterSeconds, 60 s doubling) last that many seconds
// of trace time rather than wall time, which a stepped replay passes many
// times faster. Kueue is its own process on the wall clock, so the
// simulator plays the clock of that one timer: when Kueue sets a Workload's
// status.requeueState.requeueAt, the simulator moves it a day ahead (Kueue
// only ever moves it later, so it keeps it), and once the check's
// requeueAfterSeconds have passed on the trace clock it sets it to now,
// and Kueue requeues the Workload as its own timer would have.
func (w *watcher) runBackoffOnTrace(ctx context.Context, u *unstructured.Unstructured) {
	at, _, _ := unstructured.NestedString(u.Object, "status", "requeueState", "requeueAt")
	if at == "" || u.GetDeletionTimestamp() != nil {
		return
	}
	w.mu.Lock()
	b := w.kueueSeen.backoffs[u.GetUID()]
	switch {
	case b != nil && at == b.hold:
		w.mu.Unlock()
		return
	case b != nil && at == b.seen:
		// Kueue wrote its own time again (from a copy older than the
		// hold): hold it again, or release it again.
		hold := b.hold
		if b.released {
			hold = ""
		}
		w.mu.Unlock()
		w.setRequeueAt(ctx, u.GetNamespace(), u.GetName(), hold)
		return
	}
	seconds, ok := checkRequeueAfter(u)
	if !ok {
		w.mu.Unlock()
		return
	}
	b = &traceBackoff{seen: at, hold: time.Now().Add(kueueBackoffHold).UTC().Format(time.RFC3339)}
	w.kueueSeen.backoffs[u.GetUID()] = b
	w.mu.Unlock()
	w.setRequeueAt(ctx, u.GetNamespace(), u.GetName(), b.hold)
	ns, name := u.GetNamespace(), u.GetName()
	w.clk.afterFunc(time.Duration(seconds)*time.Second, func() {
		w.mu.Lock()
		b.released = true
		w.mu.Unlock()
		w.setRequeueAt(ctx, ns, name, "")
	})
}

// checkRequeueAfter is the backoff Kueue's ProvisioningRequest check set on
// a Workload: its requeueAfterSeconds (kept when the Workload is evicted
// and the check reset to Pending).
func checkRequeueAfter(u *unstructured.Unstructured) (int64, bool) {
	checks, _, _ := unstructured.NestedSlice(u.Object, "status", "admissionChecks")
	for _, c := range checks {
		m, _ := c.(map[string]any)
		if m["name"] != kueueCheck {
			continue
		}
		s, ok, _ := unstructured.NestedInt64(m, "requeueAfterSeconds")
		return s, ok
	}
	return 0, false
}

// setRequeueAt writes a Workload's status.requeueState.requeueAt: at, or
// the wall clock's second now when at is empty (its backoff is over).
func (w *watcher) setRequeueAt(ctx context.Context, ns, name, at string) {
	w.writing.start()
	go func() {
		defer w.writing.done()
		if at == "" {
			at = time.Now().UTC().Format(time.RFC3339)
		}
		patch := fmt.Sprintf(`{"status":{"requeueState":{"requeueAt":%q}}}`, at)
		_, err := w.dynamic.Resource(kueueWorkloads).Namespace(ns).Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}, "status")
		if err != nil && !apierrors.IsNotFound(err) && ctx.Err() == nil {
			fmt.Fprintf(os.Stderr, "simulate: running Workload %s's backoff on the trace clock: %v\n", name, err)
		}
	}()
}

// workloadAdmittedByCheck says whether a Workload is admitted with the
// run's ProvisioningRequest check Ready.
func workloadAdmittedByCheck(u *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	admitted := slices.ContainsFunc(conds, func(c any) bool {
		m, _ := c.(map[string]any)
		return m["type"] == "Admitted" && m["status"] == "True"
	})
	if !admitted {
		return false
	}
	checks, _, _ := unstructured.NestedSlice(u.Object, "status", "admissionChecks")
	return slices.ContainsFunc(checks, func(c any) bool {
		m, _ := c.(map[string]any)
		return m["name"] == kueueCheck && m["state"] == "Ready"
	})
}

// ownedByWorkload says whether an object's controller is a Kueue Workload.
func ownedByWorkload(u *unstructured.Unstructured) bool {
	return slices.ContainsFunc(u.GetOwnerReferences(), func(r metav1.OwnerReference) bool {
		return r.Kind == "Workload" && strings.HasPrefix(r.APIVersion, "kueue.x-k8s.io/")
	})
}

// setPhase plays the kubelet for a pod that stopped: it reports the pod's
// phase, which is what Kueue reads to end a workload (its pods all
// succeeded), release its quota and lift the pods' finalizer.
func setPhase(ctx context.Context, env *controlplane.Env, name string, phase v1.PodPhase) error {
	patch := fmt.Sprintf(`{"status":{"phase":%q}}`, phase)
	_, err := env.Client.CoreV1().Pods(simNamespace).Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}, "status")
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// deleteFinished deletes a pod of the run that succeeded once Kueue has
// lifted its finalizer (its Workload finished), as its job's owner would,
// and says whether p was such a pod.
func (w *watcher) deleteFinished(ctx context.Context, p *v1.Pod) bool {
	if p.Namespace != simNamespace || p.Status.Phase != v1.PodSucceeded || p.DeletionTimestamp != nil || slices.Contains(p.Finalizers, kueueFinalizer) {
		return false
	}
	w.writing.start()
	go func() {
		defer w.writing.done()
		zero := int64(0)
		err := w.env.Client.CoreV1().Pods(simNamespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
		if err != nil && !apierrors.IsNotFound(err) && ctx.Err() == nil {
			fmt.Fprintf(os.Stderr, "simulate: deleting pod %s, which succeeded: %v\n", p.Name, err)
		}
	}()
	return true
}

// watchKueue records, from the run's informers, the Workloads Kueue
// admitted through the ProvisioningRequest check and the requests it
// created.
func (w *watcher) watchKueue(ctx context.Context, f dynamicinformer.DynamicSharedInformerFactory) error {
	w.kueueSeen = kueueRecord{admitted: map[string]bool{}, requests: map[string]bool{}, backoffs: map[types.UID]*traceBackoff{}}
	dyn, err := dynamic.NewForConfig(w.env.Config)
	if err != nil {
		return err
	}
	w.dynamic = dyn
	onWorkload := func(o any) {
		u, ok := o.(*unstructured.Unstructured)
		if !ok {
			return
		}
		if workloadAdmittedByCheck(u) {
			w.mu.Lock()
			w.kueueSeen.admitted[u.GetName()] = true
			w.mu.Unlock()
		}
		w.runBackoffOnTrace(ctx, u)
		w.collectWorkload(ctx, u)
	}
	w.workloads = f.ForResource(kueueWorkloads).Informer().GetStore()
	if _, err := f.ForResource(kueueWorkloads).Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: onWorkload, UpdateFunc: func(_, o any) { onWorkload(o) }}); err != nil {
		return err
	}
	_, err = w.requests.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(o any) {
		if u, ok := o.(*unstructured.Unstructured); ok && ownedByWorkload(u) {
			w.mu.Lock()
			w.kueueSeen.requests[u.GetName()] = true
			w.mu.Unlock()
		}
	}, UpdateFunc: func(_, o any) {
		// Kueue deletes a failed request when it retries: its failure
		// is recorded as it comes, not only from the requests left.
		w.requestFailures(w.clk.now(), o)
	}})
	return err
}

// workloadFinished says whether a Workload has Kueue's Finished condition.
func workloadFinished(u *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	return slices.ContainsFunc(conds, func(c any) bool {
		m, _ := c.(map[string]any)
		return m["type"] == "Finished" && m["status"] == "True"
	})
}

// podGone collects the Workload of a deleted pod's group, if it finished
// and this was its last pod.
func (w *watcher) podGone(ctx context.Context, p *v1.Pod) {
	group := p.Labels[kueueGroupLabel]
	if group == "" || w.workloads == nil {
		return
	}
	o, ok, err := w.workloads.GetByKey(p.Namespace + "/" + group)
	if err != nil || !ok {
		return
	}
	if u, ok := o.(*unstructured.Unstructured); ok {
		w.collectWorkload(ctx, u)
	}
}

// collectWorkload plays the garbage collector for a finished Workload whose
// pods are all deleted: no kube-controller-manager runs, and Kueue leaves a
// finished Workload and its ProvisioningRequests to be collected once their
// owners are gone (the pods, which the watcher deletes once Kueue lets them
// go). A request left Provisioned would keep its capacity booked until its
// booking expired, which on a cluster ends once its pods are deleted; and
// whether it was still there at an autoscaler loop would depend on when the
// deletion came.
func (w *watcher) collectWorkload(ctx context.Context, wl *unstructured.Unstructured) {
	if !workloadFinished(wl) || wl.GetDeletionTimestamp() != nil {
		return
	}
	for _, r := range wl.GetOwnerReferences() {
		if r.Kind != "Pod" {
			continue
		}
		if _, exists, _ := w.pods.GetByKey(wl.GetNamespace() + "/" + r.Name); exists {
			return // collected after its last pod
		}
	}
	var owned []string
	for _, o := range w.requests.GetStore().List() {
		u, ok := o.(*unstructured.Unstructured)
		if !ok || u.GetNamespace() != wl.GetNamespace() {
			continue
		}
		if slices.ContainsFunc(u.GetOwnerReferences(), func(r metav1.OwnerReference) bool { return r.UID == wl.GetUID() }) {
			owned = append(owned, u.GetName())
		}
	}
	dyn := w.dynamic
	w.writing.start()
	go func() {
		defer w.writing.done()
		for _, name := range owned {
			err := dyn.Resource(autoscalingv1.Resource).Namespace(wl.GetNamespace()).Delete(ctx, name, metav1.DeleteOptions{})
			if err != nil && !apierrors.IsNotFound(err) && ctx.Err() == nil {
				fmt.Fprintf(os.Stderr, "simulate: collecting ProvisioningRequest %s of finished Workload %s: %v\n", name, wl.GetName(), err)
			}
		}
		err := dyn.Resource(kueueWorkloads).Namespace(wl.GetNamespace()).Delete(ctx, wl.GetName(), metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) && ctx.Err() == nil {
			fmt.Fprintf(os.Stderr, "simulate: collecting finished Workload %s: %v\n", wl.GetName(), err)
		}
	}()
}
