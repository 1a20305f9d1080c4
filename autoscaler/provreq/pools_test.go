package provreq

import (
	"fmt"
	"testing"
	"time"

	apiv1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	testprovider "k8s.io/autoscaler/cluster-autoscaler/cloudprovider/test"
	ca_context "k8s.io/autoscaler/cluster-autoscaler/context"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/framework"
	kubefake "k8s.io/client-go/kubernetes/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/muster-project/muster/autoscaler/contract"
	v1 "github.com/muster-project/muster/autoscaler/provreq/apis/v1"
)

// templates counts the template nodes made, so that each has a name of
// its own, as a provider names its templates at random.
var templates int

// templateNode is a pool's template node.
func templateNode(gpus int64, taint string) *framework.NodeInfo {
	templates++
	name := fmt.Sprintf("tmpl-%d", templates)
	n := &apiv1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{contract.HostnameLabel: name, "pool": "p"}},
		Status: apiv1.NodeStatus{Allocatable: apiv1.ResourceList{
			apiv1.ResourceCPU: resource.MustParse("96"), contract.GPUResource: *resource.NewQuantity(gpus, resource.DecimalSI)}},
	}
	if taint != "" {
		n.Spec.Taints = []apiv1.Taint{{Key: taint, Value: "present", Effect: apiv1.TaintEffectNoSchedule}}
	}
	return framework.NewTestNodeInfo(n)
}

func provider(templates map[string]*framework.NodeInfo, maxes map[string]int) *testprovider.TestCloudProvider {
	p := testprovider.NewTestCloudProviderBuilder().WithMachineTemplates(templates).Build()
	for id, max := range maxes {
		p.AddNodeGroup(id, 0, max, 0)
	}
	return p
}

// TestPoolsFingerprint: the fingerprint changes with what a never-fits
// verdict reads (a max, a pool, a template's resources or taints), not with
// the template's random name or the order the provider lists its pools in.
func TestPoolsFingerprint(t *testing.T) {
	base := func() (map[string]*framework.NodeInfo, map[string]int) {
		return map[string]*framework.NodeInfo{"heavy": templateNode(8, "nvidia.com/gpu"), "light": templateNode(1, "nvidia.com/gpu")},
			map[string]int{"heavy": 12, "light": 4}
	}
	fp := func(tm map[string]*framework.NodeInfo, mx map[string]int) string {
		t.Helper()
		s, ok := poolsFingerprint(provider(tm, mx))
		if !ok {
			t.Fatal("no fingerprint with a cloud provider")
		}
		return s
	}
	want := fp(base())
	if again := fp(base()); again != want {
		t.Fatalf("same pools, new template names: %s, want %s", again, want)
	}
	for name, change := range map[string]func(map[string]*framework.NodeInfo, map[string]int){
		"max raised": func(_ map[string]*framework.NodeInfo, mx map[string]int) { mx["heavy"] = 13 },
		"pool added": func(tm map[string]*framework.NodeInfo, mx map[string]int) {
			mx["spot"], tm["spot"] = 8, templateNode(8, "")
		},
		"pool removed": func(_ map[string]*framework.NodeInfo, mx map[string]int) { delete(mx, "light") },
		"more GPUs a node": func(tm map[string]*framework.NodeInfo, _ map[string]int) {
			tm["light"] = templateNode(4, "nvidia.com/gpu")
		},
		"taint dropped": func(tm map[string]*framework.NodeInfo, _ map[string]int) { tm["heavy"] = templateNode(8, "") },
	} {
		tm, mx := base()
		change(tm, mx)
		if got := fp(tm, mx); got == want {
			t.Errorf("%s: fingerprint unchanged (%s)", name, got)
		}
	}
	if _, ok := poolsFingerprint(nil); ok {
		t.Error("a fingerprint without a cloud provider")
	}
}

// TestNeverFitsRecheck: a loop flags exactly the never-fits failures whose
// recorded pools differ from today's, once; other failures, unrecorded
// ones and those already flagged are left alone.
func TestNeverFitsRecheck(t *testing.T) {
	now := time.Unix(5000, 0)
	tm := map[string]*framework.NodeInfo{"heavy": templateNode(8, "nvidia.com/gpu")}
	before, _ := poolsFingerprint(provider(tm, map[string]int{"heavy": 12}))
	cp := provider(tm, map[string]int{"heavy": 13})
	after, _ := poolsFingerprint(cp)
	failed := func(name, reason, fp string, flagged bool) *v1.ProvisioningRequest {
		pr := request("ml", name, v1.ProvisioningClassBestEffortAtomicScaleUp)
		pr.Status.Conditions = []metav1.Condition{cond(v1.Failed, metav1.ConditionTrue, reason, now)}
		if fp != "" {
			v1.SetPoolsAtFailure(pr, fp)
		}
		if flagged {
			v1.SetPoolsChanged(pr)
		}
		return pr
	}
	reqs := []*v1.ProvisioningRequest{
		failed("stale", ReasonNoNodeGroupCanHold, before, false),
		failed("current", ReasonNoNodeGroupCanHold, after, false),
		failed("unrecorded", ReasonNoNodeGroupCanHold, "", false),
		failed("flagged", ReasonNoNodeGroupCanHold, before, true),
		failed("other-failure", ReasonFailedToCreatePods, before, false),
		request("ml", "live", v1.ProvisioningClassBestEffortAtomicScaleUp),
	}
	dyn := dynamicWith(t, reqs...)
	c := NewClient(dyn, corelisters.NewPodTemplateLister(cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})), kubefake.NewSimpleClientset())
	if err := c.Refresh(); err != nil {
		t.Fatal(err)
	}
	r := NewNeverFitsRecheck(c)
	pending := []*apiv1.Pod{pod("ordinary", nil)}
	out, err := r.Process(&ca_context.AutoscalingContext{CloudProvider: cp}, pending)
	if err != nil || len(out) != 1 || out[0] != pending[0] {
		t.Fatalf("Process returned %v, %v; want the pending pods as they were", out, err)
	}
	writes := 0
	for _, a := range dyn.Actions() {
		if a.GetVerb() == "update" {
			writes++
		}
	}
	if writes != 1 {
		t.Fatalf("%d status writes, want 1 (stale's flag)", writes)
	}
	for _, pr := range reqs {
		u, err := dyn.Resource(v1.Resource).Namespace("ml").Get(t.Context(), pr.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := fromUnstructured(u)
		if err != nil {
			t.Fatal(err)
		}
		_, changed, _ := v1.PoolsAtFailure(got)
		if want := pr.Name == "stale" || pr.Name == "flagged"; changed != want {
			t.Errorf("%s: pools changed %v, want %v", pr.Name, changed, want)
		}
	}
}
