// Tests of the loop's pool writes: requests sharing a pool get one write, and a failed write fails each of them.

package provreq

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apiv1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	testprovider "k8s.io/autoscaler/cluster-autoscaler/cloudprovider/test"
	"k8s.io/autoscaler/cluster-autoscaler/clusterstate"
	"k8s.io/autoscaler/cluster-autoscaler/config"
	ca_context "k8s.io/autoscaler/cluster-autoscaler/context"
	catest "k8s.io/autoscaler/cluster-autoscaler/core/test"
	"k8s.io/autoscaler/cluster-autoscaler/estimator"
	"k8s.io/autoscaler/cluster-autoscaler/processors/nodegroupconfig"
	"k8s.io/autoscaler/cluster-autoscaler/processors/status"
	processorstest "k8s.io/autoscaler/cluster-autoscaler/processors/test"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/framework"
	"k8s.io/autoscaler/cluster-autoscaler/utils/backoff"
	kube_util "k8s.io/autoscaler/cluster-autoscaler/utils/kubernetes"
	"k8s.io/autoscaler/cluster-autoscaler/utils/taints"
	. "k8s.io/autoscaler/cluster-autoscaler/utils/test"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	v1 "github.com/muster-project/muster/autoscaler/provreq/apis/v1"
)

// poolWriteTest is an Orchestrator on the core's own scale-up orchestrator
// and cluster state, over the test cloud provider's pool "ng" (0 to 10
// nodes of 10 CPUs, none yet) and the requests "first" and "second", each
// one pod of 8 CPUs: each needs a node of its own from the one pool.
type poolWriteTest struct {
	o         *Orchestrator
	client    *Client
	provider  *testprovider.TestCloudProvider
	csr       *clusterstate.ClusterStateRegistry
	nodeInfos map[string]*framework.NodeInfo
	pods      []*apiv1.Pod
	writes    []string // "ng+2": each write the provider took, in order
	fail      error    // what the provider's writes return
}

func newPoolWriteTest(t *testing.T) *poolWriteTest {
	t.Helper()
	pt := &poolWriteTest{}
	provider := testprovider.NewTestCloudProviderBuilder().WithOnScaleUp(func(id string, delta int) error {
		pt.writes = append(pt.writes, fmt.Sprintf("%s+%d", id, delta))
		return pt.fail
	}).Build()
	provider.AddNodeGroup("ng", 0, 10, 0)
	pt.provider = provider

	var objs []runtime.Object
	for _, name := range []string{"first", "second"} {
		pr := request("ml", name, v1.ProvisioningClassBestEffortAtomicScaleUp, v1.PodSet{PodTemplateRef: v1.Reference{Name: name}, Count: 1})
		u, err := toUnstructured(pr)
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, u)
		p := BuildTestPod(name+"-0", 8000, 1000)
		p.Namespace, p.UID = "ml", types.UID("pod-"+name)
		p.Annotations = map[string]string{v1.ProvisioningRequestPodAnnotationKey: name}
		pt.pods = append(pt.pods, p)
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{v1.Resource: "ProvisioningRequestList"}, objs...)
	pt.client = NewClient(dyn, corelisters.NewPodTemplateLister(cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})), nil)

	pt.o, _, pt.csr, pt.nodeInfos = testOrchestrator(t, provider, pt.client, nil, nil)
	return pt
}

// testOrchestrator is an Orchestrator for client on the core's own scale-up
// orchestrator and cluster state, over provider, whose pool "ng" has
// template nodes of 10 CPUs; the pod lister lists pods, the snapshot holds
// nodes. A pool's backoff ends by the next loop: a retry is the request's
// own, not held up by the pool's backoff.
func testOrchestrator(t *testing.T, provider *testprovider.TestCloudProvider, client *Client, pods []*apiv1.Pod, nodes []*apiv1.Node) (
	*Orchestrator, *ca_context.AutoscalingContext, *clusterstate.ClusterStateRegistry, map[string]*framework.NodeInfo) {
	t.Helper()
	listers := kube_util.NewListerRegistry(nil, nil, kube_util.NewTestPodLister(pods), nil, nil, nil, nil, nil, nil)
	ctx, err := catest.NewScaleTestAutoscalingContext(config.AutoscalingOptions{MaxNodesTotal: 100}, &fake.Clientset{}, listers, provider, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ctx.ClusterSnapshot.SetClusterState(nodes, nil, nil); err != nil {
		t.Fatal(err)
	}
	processors := processorstest.NewTestProcessors(&ctx)
	csr := clusterstate.NewClusterStateRegistry(provider, clusterstate.ClusterStateRegistryConfig{}, ctx.LogRecorder,
		backoff.NewIdBasedExponentialBackoff(time.Nanosecond, time.Nanosecond, time.Nanosecond),
		nodegroupconfig.NewDefaultNodeGroupConfigProcessor(ctx.NodeGroupDefaults), processors.AsyncNodeGroupStateChecker)
	processors.ScaleStateNotifier.Register(csr)
	tmpl := BuildTestNode("ng-template", 10000, 10000)
	SetNodeReadyState(tmpl, true, time.Now())
	nodeInfos := map[string]*framework.NodeInfo{"ng": framework.NewTestNodeInfo(tmpl)}
	if err := csr.UpdateNodes(nodes, nodeInfos, time.Now()); err != nil {
		t.Fatal(err)
	}
	eb, err := estimator.NewEstimatorBuilder(estimator.BinpackingEstimatorName, estimator.NewThresholdBasedEstimationLimiter(nil), estimator.NewDecreasingPodOrderer(), nil)
	if err != nil {
		t.Fatal(err)
	}
	o := NewOrchestrator(client)
	o.Initialize(&ctx, processors, csr, eb, taints.TaintConfig{})
	return o, &ctx, csr, nodeInfos
}

// loop runs one autoscaler loop's scale-up over the two requests' pods.
func (pt *poolWriteTest) loop(t *testing.T) *status.ScaleUpStatus {
	t.Helper()
	if err := pt.client.Refresh(); err != nil {
		t.Fatal(err)
	}
	st, _ := pt.o.ScaleUp(pt.pods, nil, []*appsv1.DaemonSet{}, pt.nodeInfos, false)
	return st
}

func (pt *poolWriteTest) provisioned(t *testing.T, name string) *metav1.Condition {
	t.Helper()
	if err := pt.client.Refresh(); err != nil {
		t.Fatal(err)
	}
	pr, ok := pt.client.Request("ml", name)
	if !ok {
		t.Fatalf("request %s is gone", name)
	}
	for i := range pr.Status.Conditions {
		if pr.Status.Conditions[i].Type == v1.Provisioned {
			return &pr.Status.Conditions[i]
		}
	}
	t.Fatalf("request %s has no Provisioned condition", name)
	return nil
}

// Two requests served from one pool in a loop make one write of both
// their nodes; each request records its own node.
func TestRequestsSharingAPoolMakeOneWrite(t *testing.T) {
	pt := newPoolWriteTest(t)
	st := pt.loop(t)
	if got := strings.Join(pt.writes, ","); got != "ng+2" {
		t.Fatalf("writes %q, want one write of both requests' nodes: ng+2", got)
	}
	if st.Result != status.ScaleUpSuccessful {
		t.Fatalf("loop result %v, want successful", st.Result)
	}
	for _, name := range []string{"first", "second"} {
		c := pt.provisioned(t, name)
		if c.Status != metav1.ConditionTrue || c.Reason != ReasonCapacityIsProvisioned || c.Message != "ng pool adding 1 node" {
			t.Errorf("%s Provisioned %s %s %q, want True %s \"ng pool adding 1 node\"", name, c.Status, c.Reason, c.Message, ReasonCapacityIsProvisioned)
		}
		pr, _ := pt.client.Request("ml", name)
		if pool, added, _, ok := v1.AddedInstances(pr); !ok || pool != "ng" || added != 1 {
			t.Errorf("%s records pool %q adding %d (recorded: %t), want ng adding 1", name, pool, added, ok)
		}
	}
}

// When the one write for two requests fails, both report it, neither is
// recorded as provisioned, the core's cluster state learns of the failure,
// and the next loop serves both again.
func TestRequestsSharingAPoolFailTogetherAndRetry(t *testing.T) {
	pt := newPoolWriteTest(t)
	pt.fail = errors.New("Azure refused the capacity change")
	st := pt.loop(t)
	if got := strings.Join(pt.writes, ","); got != "ng+2" {
		t.Fatalf("writes %q, want one write of both requests' nodes: ng+2", got)
	}
	if st.Result != status.ScaleUpError || len(st.FailedResizeNodeGroups) == 0 || st.FailedResizeNodeGroups[0].Id() != "ng" {
		t.Fatalf("loop result %v, failed groups %v; want a scale-up error naming ng", st.Result, st.FailedResizeNodeGroups)
	}
	for _, name := range []string{"first", "second"} {
		c := pt.provisioned(t, name)
		if c.Status != metav1.ConditionFalse || c.Reason != ReasonCapacityIsNotFound ||
			!strings.Contains(c.Message, "Azure refused the capacity change") || !strings.HasSuffix(c.Message, "will retry") {
			t.Errorf("%s Provisioned %s %s %q, want False %s with the write's error, will retry", name, c.Status, c.Reason, c.Message, ReasonCapacityIsNotFound)
		}
		pr, _ := pt.client.Request("ml", name)
		if pool, added, _, ok := v1.AddedInstances(pr); ok {
			t.Errorf("%s records pool %q adding %d after its pool's write failed, want no record", name, pool, added)
		}
	}
	if failures := pt.csr.GetScaleUpFailures()["ng"]; len(failures) != 1 {
		t.Errorf("cluster state has %d scale-up failures of ng, want 1 (one failed write)", len(failures))
	}

	// Azure's pool keeps its size when it refuses a write; the test
	// provider counts the refused increase in its target anyway.
	pt.provider.GetNodeGroup("ng").(*testprovider.TestNodeGroup).SetTargetSize(0)
	pt.fail = nil
	pt.writes = nil
	if err := pt.csr.UpdateNodes(nil, pt.nodeInfos, time.Now()); err != nil {
		t.Fatal(err)
	}
	if st := pt.loop(t); st.Result != status.ScaleUpSuccessful {
		t.Fatalf("next loop result %v, want successful", st.Result)
	}
	if got := strings.Join(pt.writes, ","); !strings.HasPrefix(got, "ng+") || strings.Contains(got, ",") {
		t.Fatalf("next loop's writes %q, want one write of ng", got)
	}
	for _, name := range []string{"first", "second"} {
		if c := pt.provisioned(t, name); c.Status != metav1.ConditionTrue {
			t.Errorf("%s after the retry: Provisioned %s %s %q, want True", name, c.Status, c.Reason, c.Message)
		}
	}
}
