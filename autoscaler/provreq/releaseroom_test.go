// Tests of the room a failed request's members counted on: taken out of the loop's snapshot when the loop fails the request.

package provreq

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apiv1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	testprovider "k8s.io/autoscaler/cluster-autoscaler/cloudprovider/test"
	. "k8s.io/autoscaler/cluster-autoscaler/utils/test"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	v1 "github.com/muster-project/muster/autoscaler/provreq/apis/v1"
)

// A gang of a launcher-less pair of 8-CPU members ("big-0", "big-1") asks
// for one node ("big": count 1) and counts its other member on the empty
// node n1 of pool "ng", whose max is that one node of 10 CPUs: the gang
// can never run. GangRoom places the counted member on n1 for the loop;
// the orchestrator fails the request for a gang no pool can hold, and must
// take the member out of the snapshot again, or the loop's scale-down finds
// n1 needed and restarts its unneeded time (a never-fitting gang's retry
// every backoff ceiling kept its empty nodes so). A request that can still
// be served keeps its room (the second loop, the pool's max raised).
func TestFailedRequestReleasesTheRoomItsMembersCountedOn(t *testing.T) {
	provider := testprovider.NewTestCloudProviderBuilder().WithOnScaleUp(func(string, int) error { return nil }).Build()
	provider.AddNodeGroup("ng", 0, 1, 1)
	n1 := BuildTestNode("n1", 10000, 10000)
	SetNodeReadyState(n1, true, time.Now())
	provider.AddNode("ng", n1)

	pr := request("ml", "big", v1.ProvisioningClassBestEffortAtomicScaleUp, v1.PodSet{PodTemplateRef: v1.Reference{Name: "big"}, Count: 1})
	u, err := toUnstructured(pr)
	if err != nil {
		t.Fatal(err)
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{v1.Resource: "ProvisioningRequestList"}, u)
	client := NewClient(dyn, corelisters.NewPodTemplateLister(cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})), nil)

	consumes := map[string]string{v1.ProvisioningRequestPodAnnotationKey: "big", v1.ProvisioningClassPodAnnotationKey: v1.ProvisioningClassBestEffortAtomicScaleUp}
	var members []*apiv1.Pod
	for _, name := range []string{"big-0", "big-1"} {
		p := BuildTestPod(name, 8000, 1000)
		p.Namespace, p.UID, p.Annotations = "ml", types.UID(name), consumes
		members = append(members, p)
	}
	// The pod the core injects for the request's one node.
	injected := BuildTestPod("big-req-0", 8000, 1000)
	injected.Namespace, injected.UID, injected.Annotations = "ml", "big-req-0", consumes

	o, ctx, _, nodeInfos := testOrchestrator(t, provider, client, members, []*apiv1.Node{n1})
	room := NewGangRoom(client)

	podsOnN1 := func() []string {
		ni, err := ctx.ClusterSnapshot.GetNodeInfo("n1")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, p := range ni.Pods() {
			out = append(out, p.Pod.Name)
		}
		return out
	}
	loop := func() *metav1.Condition {
		t.Helper()
		if err := ctx.ClusterSnapshot.SetClusterState([]*apiv1.Node{n1}, nil, nil); err != nil {
			t.Fatal(err)
		}
		if err := client.Refresh(); err != nil {
			t.Fatal(err)
		}
		if _, err := room.Process(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if got := podsOnN1(); len(got) != 1 || got[0] != "big-1" {
			t.Fatalf("after GangRoom, n1 holds %v; want the counted member big-1", got)
		}
		o.ScaleUp([]*apiv1.Pod{injected}, []*apiv1.Node{n1}, []*appsv1.DaemonSet{}, nodeInfos, false)
		if err := client.Refresh(); err != nil {
			t.Fatal(err)
		}
		got, ok := client.Request("ml", "big")
		if !ok {
			t.Fatal("request big is gone")
		}
		for i := range got.Status.Conditions {
			if got.Status.Conditions[i].Type == v1.Failed {
				return &got.Status.Conditions[i]
			}
		}
		return nil
	}

	f := loop()
	if f == nil || f.Status != metav1.ConditionTrue || f.Reason != ReasonNoNodeGroupCanHold {
		t.Fatalf("request big: Failed %+v; want True, %s (its 2 pods exceed the pool's one node)", f, ReasonNoNodeGroupCanHold)
	}
	if got := podsOnN1(); len(got) != 0 {
		t.Fatalf("after the loop failed request big, n1 holds %v in the loop's snapshot; want it empty, as scale-down should see it", got)
	}

	// The pool may now grow to two nodes: the request is served, and its
	// counted member keeps n1.
	provider.AddNodeGroup("ng", 0, 2, 1) // replaces the pool: max 2
	pr.Status.Conditions = nil
	fresh, err := toUnstructured(pr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dyn.Resource(v1.Resource).Namespace("ml").UpdateStatus(t.Context(), fresh, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if f := loop(); f != nil && f.Status == metav1.ConditionTrue {
		t.Fatalf("request big Failed once the pool may grow: %s: %s", f.Reason, f.Message)
	}
	if got := podsOnN1(); len(got) != 1 || got[0] != "big-1" {
		t.Fatalf("after the loop served request big, n1 holds %v in the loop's snapshot; want the counted member big-1", got)
	}
}
