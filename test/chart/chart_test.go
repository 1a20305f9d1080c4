// Package chart tests the Helm chart in manifests/charts/muster: it lints,
// renders the same objects as the kustomize manifests with its defaults,
// refuses bad values with a message naming the value, and what it renders
// is accepted by a real kube-apiserver, where the scheduler runs from the
// chart's own configuration under the chart's admission policy.
//
// Helm is Helm's own binary, built from the module proxy by
// hack/install-helm.sh (`make test` passes it in HELM).
package chart

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	autoscalingv1 "github.com/muster-project/muster/pkg/apis/autoscaling/v1"
	"github.com/muster-project/muster/pkg/controlplane"
	"github.com/muster-project/muster/pkg/gang"
)

const (
	chartDir     = "../../manifests/charts/muster"
	manifestsDir = "../../manifests"
	namespace    = "muster-system"
	kubeVersion  = "1.37.0"
)

// helm returns Helm's binary: $HELM, else helm on PATH or in GOPATH/bin.
func helm(t *testing.T) string {
	t.Helper()
	if h := os.Getenv("HELM"); h != "" {
		return h
	}
	if h, err := exec.LookPath("helm"); err == nil {
		return h
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		h := filepath.Join(strings.TrimSpace(string(out)), "bin", "helm")
		if _, err := os.Stat(h); err == nil {
			return h
		}
	}
	t.Skip("no helm binary: run hack/install-helm.sh or `make test`, which sets HELM")
	return ""
}

// render runs helm template with the chart's defaults plus args.
func render(t *testing.T, args ...string) ([]byte, error) {
	t.Helper()
	cmd := exec.Command(helm(t), append([]string{"template", "muster", chartDir, "--namespace", namespace, "--kube-version", kubeVersion}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("helm template %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return out, nil
}

func mustRender(t *testing.T, args ...string) []*unstructured.Unstructured {
	t.Helper()
	out, err := render(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, out)
}

func decode(t *testing.T, data []byte) []*unstructured.Unstructured {
	t.Helper()
	d := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var objs []*unstructured.Unstructured
	for {
		var m map[string]any
		if err := d.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return objs
			}
			t.Fatalf("decoding rendered YAML: %v", err)
		}
		if len(m) == 0 {
			continue
		}
		objs = append(objs, &unstructured.Unstructured{Object: m})
	}
}

func key(o *unstructured.Unstructured) string {
	return fmt.Sprintf("%s %s/%s", o.GetKind(), o.GetNamespace(), o.GetName())
}

// comparable is an object as it behaves: top-level labels (Helm's release
// labels) left out, and ConfigMap files parsed, so formatting and key order
// do not count.
func comparable(t *testing.T, o *unstructured.Unstructured) map[string]any {
	t.Helper()
	c := o.DeepCopy()
	unstructured.RemoveNestedField(c.Object, "metadata", "labels")
	if c.GetKind() == "ConfigMap" {
		data, _, _ := unstructured.NestedStringMap(c.Object, "data")
		parsed := map[string]any{}
		for k, v := range data {
			var doc any
			if err := yaml.Unmarshal([]byte(v), &doc); err != nil {
				t.Fatalf("%s: data %s is not YAML: %v", key(o), k, err)
			}
			parsed[k] = doc
		}
		c.Object["data"] = parsed
	}
	return squeezeSpaces(c.Object).(map[string]any)
}

// squeezeSpaces collapses runs of white space in every string: kustomize
// re-folds YAML block scalars (the admission policy's CEL) differently.
func squeezeSpaces(v any) any {
	switch v := v.(type) {
	case string:
		return strings.Join(strings.Fields(v), " ")
	case map[string]any:
		for k, e := range v {
			v[k] = squeezeSpaces(e)
		}
	case []any:
		for i, e := range v {
			v[i] = squeezeSpaces(e)
		}
	}
	return v
}

func TestLint(t *testing.T) {
	for _, values := range [][]string{nil, nonDefaults} {
		args := append([]string{"lint", "--strict", chartDir, "--namespace", namespace, "--kube-version", kubeVersion}, values...)
		out, err := exec.Command(helm(t), args...).CombinedOutput()
		if err != nil {
			t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// TestKubeVersionRange: Helm installs on the API server versions
// muster-scheduler is tested against (make test-skew) and refuses others,
// saying which range it needs.
func TestKubeVersionRange(t *testing.T) {
	for _, tc := range []struct {
		version string
		ok      bool
	}{
		{"1.33.9", false}, {"1.34.0", true}, {"1.35.4", true}, {"1.36.1", true}, {"1.37.2", true}, {"1.38.0", false},
	} {
		out, err := exec.Command(helm(t), "template", "muster", chartDir, "--namespace", namespace, "--kube-version", tc.version).CombinedOutput()
		switch {
		case tc.ok && err != nil:
			t.Errorf("Kubernetes %s refused: %v\n%s", tc.version, err, out)
		case !tc.ok && err == nil:
			t.Errorf("Kubernetes %s accepted, want it refused", tc.version)
		case !tc.ok && !strings.Contains(string(out), ">=1.34.0-0 <1.38.0-0"):
			t.Errorf("Kubernetes %s refused without naming the supported range:\n%s", tc.version, out)
		}
	}
}

// TestChartMatchesKustomize keeps the two ways of installing from drifting:
// with its defaults the chart renders every object kustomize builds, alike
// in all but Helm's labels, and nothing else; its CRDs are the same files.
func TestChartMatchesKustomize(t *testing.T) {
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	resMap, err := k.Run(filesys.MakeFsOnDisk(), manifestsDir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", manifestsDir, err)
	}
	built, err := resMap.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]*unstructured.Unstructured{}
	for _, o := range decode(t, built) {
		switch o.GetKind() {
		case "CustomResourceDefinition": // compared as files below
		case "Namespace": // helm install --create-namespace
		default:
			want[key(o)] = o
		}
	}
	got := map[string]*unstructured.Unstructured{}
	for _, o := range mustRender(t) {
		got[key(o)] = o
	}
	var missing, extra []string
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			missing = append(missing, k)
			continue
		}
		if d := cmp.Diff(comparable(t, w), comparable(t, g)); d != "" {
			t.Errorf("%s differs between kustomize (-) and the chart (+):\n%s", k, d)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			extra = append(extra, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 || len(extra) > 0 {
		t.Errorf("objects only kustomize builds: %v; only the chart renders: %v", missing, extra)
	}
	crds, err := filepath.Glob(filepath.Join(manifestsDir, "crds", "*_*.yaml"))
	if err != nil || len(crds) == 0 {
		t.Fatalf("no CRDs under manifests/crds: %v", err)
	}
	for _, f := range crds {
		a, _ := os.ReadFile(f)
		b, err := os.ReadFile(filepath.Join(chartDir, "crds", filepath.Base(f)))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("chart CRD %s is not a copy of %s (cp manifests/crds/*_*.yaml manifests/charts/muster/crds/): %v", filepath.Base(f), f, err)
		}
	}
}

// nonDefaults turns on every optional part: a client secret, a
// ServiceMonitor, explicit pools, the autoscaler in the scheduler's
// namespace, another scheduler name and leader-elected replicas.
var nonDefaults = []string{
	"--set", "scheduler.name=gang-scheduler",
	"--set", "scheduler.replicas=2",
	"--set", "scheduler.image.digest=sha256:" + strings.Repeat("a", 64),
	"--set", "autoscaler.namespace=" + namespace,
	"--set", "autoscaler.identity.method=client-secret",
	"--set", "autoscaler.identity.clientId=11111111-1111-1111-1111-111111111111",
	"--set", "autoscaler.identity.clientSecret.existingSecret=azure-sp",
	"--set", "autoscaler.cloudConfig.pools[0].name=h100",
	"--set", "autoscaler.cloudConfig.pools[0].min=0",
	"--set", "autoscaler.cloudConfig.pools[0].max=16",
	"--set", "autoscaler.cloudConfig.pools[0].labels.muster\\.dev/placement-group=h100-ib-1",
	"--set", "metrics.serviceMonitor.enabled=true",
	"--set", "metrics.serviceMonitor.prometheusServiceAccount.name=prometheus",
	"--set", "metrics.serviceMonitor.prometheusServiceAccount.namespace=monitoring",
}

func TestValues(t *testing.T) {
	objs := map[string]*unstructured.Unstructured{}
	for _, o := range mustRender(t, nonDefaults...) {
		objs[key(o)] = o
	}
	get := func(k string) *unstructured.Unstructured {
		o, ok := objs[k]
		if !ok {
			names := make([]string, 0, len(objs))
			for n := range objs {
				names = append(names, n)
			}
			sort.Strings(names)
			t.Fatalf("no %s among %v", k, names)
		}
		return o
	}
	cfg := configFile(t, get("ConfigMap muster-system/gang-scheduler-config"), "config.yaml")
	if !strings.Contains(cfg, "schedulerName: gang-scheduler") || !strings.Contains(cfg, "resourceName: gang-scheduler") {
		t.Errorf("the scheduler config does not follow scheduler.name:\n%s", cfg)
	}
	if img, _, _ := unstructured.NestedSlice(get("Deployment muster-system/gang-scheduler").Object, "spec", "template", "spec", "containers"); len(img) != 1 ||
		img[0].(map[string]any)["image"] != "muster-scheduler@sha256:"+strings.Repeat("a", 64) {
		t.Errorf("containers %v: want the image pinned by digest", img)
	}
	cloud := configFile(t, get("ConfigMap muster-system/muster-autoscaler-cloud-config"), "cloud-config.yaml")
	for _, want := range []string{"method: client-secret", "clientSecretFile: /etc/muster-autoscaler-secret/client-secret", "name: h100", "muster.dev/placement-group: h100-ib-1"} {
		if !strings.Contains(cloud, want) {
			t.Errorf("cloud-config lacks %q:\n%s", want, cloud)
		}
	}
	pod, _, _ := unstructured.NestedMap(get("Deployment muster-system/muster-autoscaler").Object, "spec", "template", "spec")
	if s := fmt.Sprint(pod); !strings.Contains(s, "--namespace=muster-system") || !strings.Contains(s, "secretName:azure-sp") ||
		!strings.Contains(s, "mountPath:/etc/muster-autoscaler-secret") {
		t.Errorf("autoscaler pod %s: want --namespace and the secret mounted", s)
	}
	if _, ok := get("ServiceAccount muster-system/muster-autoscaler").GetAnnotations()["azure.workload.identity/client-id"]; ok {
		t.Error("a client-secret autoscaler's ServiceAccount carries the workload identity annotation")
	}
	sm := get("ServiceMonitor muster-system/gang-scheduler")
	if eps, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints"); len(eps) != 1 || eps[0].(map[string]any)["scheme"] != "https" {
		t.Errorf("ServiceMonitor endpoints %v", eps)
	}
	get("ServiceMonitor muster-system/muster-autoscaler")
	get("Service muster-system/gang-scheduler-metrics")
	get("ClusterRoleBinding /muster-metrics-reader")
	policy := get("ValidatingAdmissionPolicy /gang-scheduler-pod-patches")
	conds, _, _ := unstructured.NestedSlice(policy.Object, "spec", "matchConditions")
	if s := fmt.Sprint(conds); !strings.Contains(s, `"system:serviceaccount:muster-system:gang-scheduler"`) {
		t.Errorf("admission policy matches %s, not the chart's scheduler", s)
	}
}

func configFile(t *testing.T, cm *unstructured.Unstructured, name string) string {
	t.Helper()
	s, ok, _ := unstructured.NestedString(cm.Object, "data", name)
	if !ok {
		t.Fatalf("%s has no %s", key(cm), name)
	}
	return s
}

// TestBadValues: a value the chart cannot work with stops the render with a
// message that names it.
func TestBadValues(t *testing.T) {
	for _, tc := range []struct {
		set  []string
		want string
	}{
		{set: []string{"autoscaler.identity.method=password"}, want: `autoscaler.identity.method is "password"`},
		{set: []string{"autoscaler.identity.method=client-secret"}, want: "autoscaler.identity.clientSecret.existingSecret is empty"},
		{set: []string{"autoscaler.identity.clientId="}, want: "autoscaler.identity.clientId is empty"},
		{set: []string{"autoscaler.cloudConfig.auth.method=client-secret"}, want: "autoscaler.cloudConfig.auth is set"},
		{set: []string{"scheduler.replicas=2", "scheduler.leaderElection.enabled=false"}, want: "scheduler.replicas is 2"},
		{set: []string{"autoscaler.cloudConfig.pools[0].name=a", "autoscaler.cloudConfig.pools[0].min=3", "autoscaler.cloudConfig.pools[0].max=1"}, want: "autoscaler.cloudConfig.pools[0] (a): min 3 is above max 1"},
		{set: []string{"autoscaler.cloudConfig.pools[0].max=1"}, want: "autoscaler.cloudConfig.pools[0].name is empty"},
		{set: []string{"metrics.serviceMonitor.enabled=true", "metrics.serviceMonitor.prometheusServiceAccount.name=p"}, want: "metrics.serviceMonitor.prometheusServiceAccount.namespace is empty"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			var args []string
			for _, s := range tc.set {
				args = append(args, "--set", s)
			}
			_, err := render(t, args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// TestRenderedObjectsInstall applies what the chart renders to a real
// kube-apiserver (server-side apply), so a schema error fails here: the
// non-default render as a dry run, the default one for real. Then the
// scheduler runs from the chart's own ConfigMap, as the chart's service
// account under the chart's admission policy, and places a mixed gang (a
// CPU launcher and GPU workers) that first has to ask for a node.
func TestRenderedObjectsInstall(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	env, err := controlplane.Start(t)
	if err != nil {
		t.Fatal(err)
	}
	if err := controlplane.CreateNamespace(ctx, env.Client, namespace); err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(env.Client.Discovery()))
	apply := func(objs []*unstructured.Unstructured, dryRun bool) {
		t.Helper()
		for _, o := range objs {
			if o.GetKind() == "ServiceMonitor" {
				continue // prometheus-operator's CRD is not installed here
			}
			m, err := mapper.RESTMapping(o.GroupVersionKind().GroupKind(), o.GroupVersionKind().Version)
			if err != nil {
				t.Fatalf("%s: %v", key(o), err)
			}
			var r dynamic.ResourceInterface = dyn.Resource(m.Resource)
			if o.GetNamespace() != "" {
				r = dyn.Resource(m.Resource).Namespace(o.GetNamespace())
			}
			opts := metav1.ApplyOptions{FieldManager: "helm", Force: true}
			if dryRun {
				opts.DryRun = []string{metav1.DryRunAll}
			}
			if _, err := r.Apply(ctx, o.GetName(), o, opts); err != nil {
				t.Fatalf("applying %s (dry run %v): %v", key(o), dryRun, err)
			}
		}
	}
	apply(mustRender(t, nonDefaults...), true)
	objs := mustRender(t)
	apply(objs, false)

	var config string
	for _, o := range objs {
		if key(o) == "ConfigMap muster-system/muster-scheduler-config" {
			config = configFile(t, o, "config.yaml")
		}
	}
	identity := "system:serviceaccount:" + namespace + ":muster-scheduler"
	kc, err := env.KubeconfigAs(identity)
	if err != nil {
		t.Fatal(err)
	}
	var parsed map[string]any
	if err := yaml.Unmarshal([]byte(config), &parsed); err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedField(parsed, kc, "clientConnection", "kubeconfig"); err != nil {
		t.Fatal(err)
	}
	// Leader election stays off: losing the lease at the test's end exits
	// the process (a real scheduler restarts). Short gang timings so the
	// test does not wait on the shipped defaults.
	if err := unstructured.SetNestedField(parsed, false, "leaderElection", "leaderElect"); err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedField(parsed, int64(1), "podMaxBackoffSeconds"); err != nil {
		t.Fatal(err)
	}
	profiles, _, _ := unstructured.NestedSlice(parsed, "profiles")
	for _, pc := range profiles[0].(map[string]any)["pluginConfig"].([]any) {
		if pc.(map[string]any)["name"] == "MusterGang" {
			args := pc.(map[string]any)["args"].(map[string]any)
			args["backoffSeconds"], args["statusSyncMillis"] = int64(1), int64(100)
		}
	}
	raw, err := yaml.Marshal(parsed)
	if err != nil {
		t.Fatal(err)
	}
	// The policy has to be loaded before the scheduler patches anything.
	probe := controlplane.LabelMembers(namespace, "probe", 1, 0, 1, 1)[0]
	probe.Scheduler = "nobody"
	if err := controlplane.CreatePods(ctx, env.Client, probe); err != nil {
		t.Fatal(err)
	}
	saConfig := rest.CopyConfig(env.Config)
	saConfig.Impersonate.UserName = identity
	asScheduler, err := kubernetes.NewForConfig(saConfig)
	if err != nil {
		t.Fatal(err)
	}
	// Each probe changes the label anew: a patch that changes nothing skips
	// admission.
	var patchErr error
	probes := 0
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		probes++
		_, patchErr = asScheduler.CoreV1().Pods(namespace).Patch(ctx, probe.Name, types.MergePatchType, fmt.Appendf(nil, `{"metadata":{"labels":{"probe":"%d"}}}`, probes), metav1.PatchOptions{})
		return patchErr != nil && strings.Contains(patchErr.Error(), "may not change a pod's labels"), nil
	}); err != nil {
		t.Fatalf("the chart's admission policy did not come to deny the scheduler's label patches; last answer: %v", patchErr)
	}
	s, err := env.StartScheduler(ctx, string(raw))
	if err != nil {
		t.Fatalf("muster-scheduler refuses the chart's config: %v\n%s", err, raw)
	}
	t.Cleanup(s.Stop)

	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 1, 8); err != nil {
		t.Fatal(err)
	}
	launcher := controlplane.LabelMembers(namespace, "mpi", 1, 0, 3, 3)[0]
	launcher.Name = "mpi-launcher"
	workers := controlplane.LabelMembers(namespace, "mpi", 2, 8, 3, 3)
	if err := controlplane.CreatePods(ctx, env.Client, append(workers, launcher)...); err != nil {
		t.Fatal(err)
	}
	// One 8-GPU node short: the scheduler asks for it and marks the member
	// that waits for it, through the policy.
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		prs, err := env.Client.CoreV1().RESTClient().Get().AbsPath("/apis/autoscaling.x-k8s.io/v1/namespaces", namespace, "provisioningrequests").DoRaw(ctx)
		if err != nil || !bytes.Contains(prs, []byte(`"name":"muster-`)) {
			return false, nil
		}
		pods, err := env.Client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: gang.GroupLabel + "=mpi"})
		if err != nil {
			return false, nil
		}
		for _, p := range pods.Items {
			if p.Annotations[autoscalingv1.ConsumeAnnotation] != "" {
				return true, nil
			}
		}
		return false, nil
	}); err != nil {
		t.Fatalf("no ProvisioningRequest and consume mark for the short gang: %v", err)
	}
	if err := controlplane.CreateNodes(ctx, env.Client, "more", 1, 8); err != nil {
		t.Fatal(err)
	}
	if err := controlplane.WaitBound(ctx, env.Client, namespace, controlplane.Selector(gang.GroupLabel, "mpi"), 3, 60*time.Second); err != nil {
		t.Fatal(err)
	}
	nodes := map[string]bool{}
	for _, w := range workers {
		p, err := env.Client.CoreV1().Pods(namespace).Get(ctx, w.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		nodes[p.Spec.NodeName] = true
	}
	if len(nodes) != 2 {
		t.Fatalf("workers on %v; want one 8-GPU worker per node", nodes)
	}
}
