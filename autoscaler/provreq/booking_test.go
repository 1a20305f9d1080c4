// Tests of Booking: a Provisioned request's unbound pods held in the snapshot, Provisioned=False once they no longer fit, a running member never booked twice.

package provreq

import (
	"fmt"
	"strings"
	"testing"
	"time"

	apiv1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ca_context "k8s.io/autoscaler/cluster-autoscaler/context"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/clustersnapshot/testsnapshot"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	v1 "github.com/muster-project/muster/autoscaler/provreq/apis/v1"

	"github.com/muster-project/muster/autoscaler/contract"
)

func gpuTestNode(name string) *apiv1.Node {
	rl := apiv1.ResourceList{apiv1.ResourceCPU: resource.MustParse("96"), apiv1.ResourceMemory: resource.MustParse("1900Gi"),
		apiv1.ResourcePods: resource.MustParse("110"), gpu: resource.MustParse("8")}
	return &apiv1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name, contract.GPUProductLabel: "NVIDIA-H100-80GB-HBM3"}},
		Status:     apiv1.NodeStatus{Capacity: rl, Allocatable: rl, Conditions: []apiv1.NodeCondition{{Type: apiv1.NodeReady, Status: apiv1.ConditionTrue}}},
	}
}

// gangAClient is a Client over a fake API holding pr and gang-a's
// PodTemplate, and that API.
func gangAClient(t *testing.T, pr *v1.ProvisioningRequest) (*Client, *dynamicfake.FakeDynamicClient) {
	t.Helper()
	u, err := toUnstructured(pr)
	if err != nil {
		t.Fatal(err)
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{v1.Resource: "ProvisioningRequestList"}, u)
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	if err := idx.Add(template("ml", "gang-a")); err != nil {
		t.Fatal(err)
	}
	return NewClient(dyn, corelisters.NewPodTemplateLister(idx), nil), dyn
}

// TestBooking: a Provisioned request's pods that have not bound are held in
// the snapshot; when they no longer fit, the request goes back to
// Provisioned=False.
func TestBooking(t *testing.T) {
	provisioned := []metav1.Condition{cond(v1.Accepted, metav1.ConditionTrue, ReasonAccepted, time.Now()), cond(v1.Provisioned, metav1.ConditionTrue, ReasonCapacityIsProvisioned, time.Now())}
	for _, tc := range []struct {
		name      string
		nodes     int
		bound     int // real consumers of the request already bound
		conds     []metav1.Condition
		wantFake  int // booked pods in the snapshot afterwards
		wantLost  string
		wantTouch bool
	}{
		{name: "all booked", nodes: 3, conds: provisioned, wantFake: 3},
		{name: "bound members are not booked again", nodes: 3, bound: 1, conds: provisioned, wantFake: 2},
		{name: "all bound", nodes: 3, bound: 3, conds: provisioned, wantFake: 0},
		{name: "capacity gone", nodes: 1, conds: provisioned, wantFake: 1, wantLost: "2 pods of 3 not bound yet no longer fit", wantTouch: true},
		{name: "not provisioned yet", nodes: 3, conds: provisioned[:1], wantFake: 0},
		{name: "booking expired", nodes: 3, conds: append(append([]metav1.Condition(nil), provisioned...), cond(v1.BookingExpired, metav1.ConditionTrue, ReasonBookingExpired, time.Now())), wantFake: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr := request("ml", "gang-a", v1.ProvisioningClassBestEffortAtomicScaleUp, v1.PodSet{PodTemplateRef: v1.Reference{Name: "gang-a"}, Count: 3})
			pr.Status.Conditions = tc.conds
			c, dyn := gangAClient(t, pr)
			if err := c.Refresh(); err != nil {
				t.Fatal(err)
			}

			var nodes []*apiv1.Node
			for i := 0; i < tc.nodes; i++ {
				nodes = append(nodes, gpuTestNode(fmt.Sprintf("gpu-%d", i)))
			}
			var scheduled []*apiv1.Pod
			realPods, err := PodsForRequest(pr, c.PodTemplate)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < tc.bound; i++ {
				p := realPods[i].DeepCopy()
				p.Name, p.UID, p.OwnerReferences = fmt.Sprintf("member-%d", i), "", nil
				p.Spec.NodeName = nodes[i].Name
				scheduled = append(scheduled, p)
			}
			snap := testsnapshot.NewTestSnapshotOrDie(t)
			if err := snap.SetClusterState(nodes, scheduled, nil); err != nil {
				t.Fatal(err)
			}
			before := len(dyn.Actions())
			b := NewBooking(c, Options{})
			if _, err := b.Process(&ca_context.AutoscalingContext{ClusterSnapshot: snap}, nil); err != nil {
				t.Fatal(err)
			}
			infos, err := snap.ListNodeInfos()
			if err != nil {
				t.Fatal(err)
			}
			fake := 0
			for _, ni := range infos {
				for _, pi := range ni.Pods() {
					if strings.HasPrefix(pi.Pod.Name, "gang-a-") {
						fake++
					}
				}
			}
			if fake != tc.wantFake {
				t.Fatalf("%d booked pods in the snapshot, want %d", fake, tc.wantFake)
			}
			if touched := len(dyn.Actions()) > before; touched != tc.wantTouch {
				t.Fatalf("request written: %v, want %v (%v)", touched, tc.wantTouch, dyn.Actions()[before:])
			}
			if tc.wantLost != "" {
				got, _ := c.Request("ml", "gang-a")
				p := findCondition(got, v1.Provisioned)
				if p == nil || p.Status != metav1.ConditionFalse || p.Reason != ReasonCapacityIsNotFound || !strings.Contains(p.Message, tc.wantLost) {
					t.Fatalf("Provisioned %+v, want False CapacityIsNotFound with %q", p, tc.wantLost)
				}
			}
		})
	}
}

// TestBookingKeepsNoRunningMemberTwice: gang-a's request names a launcher
// (no GPUs) and two 8-GPU workers; the workers run on the two nodes added
// for them, the launcher has not bound. The booking holds the launcher's
// room only: the third GPU node stays free for another request. Taking
// bound members off the request's pods in podSet order booked a worker,
// which ran already, in that node's 8 GPUs.
func TestBookingKeepsNoRunningMemberTwice(t *testing.T) {
	pr := request("ml", "gang-a", v1.ProvisioningClassBestEffortAtomicScaleUp,
		v1.PodSet{PodTemplateRef: v1.Reference{Name: "launcher"}, Count: 1}, v1.PodSet{PodTemplateRef: v1.Reference{Name: "worker"}, Count: 2})
	pr.Status.Conditions = []metav1.Condition{cond(v1.Accepted, metav1.ConditionTrue, ReasonAccepted, time.Now()), cond(v1.Provisioned, metav1.ConditionTrue, ReasonCapacityIsProvisioned, time.Now())}
	u, err := toUnstructured(pr)
	if err != nil {
		t.Fatal(err)
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{v1.Resource: "ProvisioningRequestList"}, u)
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	launcher := template("ml", "launcher")
	launcher.Template.Annotations = nil
	launcher.Template.Spec.Containers[0].Resources = apiv1.ResourceRequirements{Requests: apiv1.ResourceList{apiv1.ResourceCPU: resource.MustParse("2")}}
	for _, tmpl := range []*apiv1.PodTemplate{launcher, template("ml", "worker")} {
		if err := idx.Add(tmpl); err != nil {
			t.Fatal(err)
		}
	}
	c := NewClient(dyn, corelisters.NewPodTemplateLister(idx), nil)
	if err := c.Refresh(); err != nil {
		t.Fatal(err)
	}

	nodes := []*apiv1.Node{gpuTestNode("gpu-0"), gpuTestNode("gpu-1"), gpuTestNode("free")}
	members, err := PodsForRequest(pr, c.PodTemplate)
	if err != nil {
		t.Fatal(err)
	}
	var running []*apiv1.Pod
	for i, w := range members[1:] {
		p := w.DeepCopy()
		p.Name, p.UID, p.OwnerReferences = fmt.Sprintf("gang-a-worker-%d", i), "", nil
		p.Spec.NodeName = nodes[i].Name
		running = append(running, p)
	}
	snap := testsnapshot.NewTestSnapshotOrDie(t)
	if err := snap.SetClusterState(nodes, running, nil); err != nil {
		t.Fatal(err)
	}
	before := len(dyn.Actions())
	if _, err := NewBooking(c, Options{}).Process(&ca_context.AutoscalingContext{ClusterSnapshot: snap}, nil); err != nil {
		t.Fatal(err)
	}
	var booked []string
	infos, err := snap.ListNodeInfos()
	if err != nil {
		t.Fatal(err)
	}
	for _, ni := range infos {
		for _, pi := range ni.Pods() {
			if pi.Pod.Spec.NodeName == "" || !strings.HasPrefix(pi.Pod.Name, "gang-a-worker-") {
				booked = append(booked, fmt.Sprintf("%s on %s", pi.Pod.Name, ni.Node().Name))
			}
			if _, gpus := pi.Pod.Spec.Containers[0].Resources.Requests[gpu]; gpus && ni.Node().Name == "free" {
				t.Errorf("%s (a worker's shape) booked in the free node: the workers run already", pi.Pod.Name)
			}
		}
	}
	if len(booked) != 1 || !strings.HasPrefix(booked[0], "gang-a-0-0 ") {
		t.Fatalf("booked %v, want only the launcher (gang-a-0-0)", booked)
	}
	if len(dyn.Actions()) > before {
		t.Fatalf("request written %v; its capacity is not lost", dyn.Actions()[before:])
	}
}

// TestBookingStartsWhenItsNodesRegister: a request provisioned twelve
// minutes ago whose two nodes are still booting keeps its booking (ten
// minutes) past the TTL; once both have registered the booking runs ten
// minutes from then, and expires after.
func TestBookingStartsWhenItsNodesRegister(t *testing.T) {
	provisionedAt := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	now := provisionedAt.Add(12 * time.Minute)
	pr := request("ml", "gang-a", v1.ProvisioningClassBestEffortAtomicScaleUp, v1.PodSet{PodTemplateRef: v1.Reference{Name: "gang-a"}, Count: 2})
	pr.Status.Conditions = []metav1.Condition{cond(v1.Accepted, metav1.ConditionTrue, ReasonAccepted, provisionedAt), cond(v1.Provisioned, metav1.ConditionTrue, ReasonCapacityIsProvisioned, provisionedAt)}
	ids := []string{"azure:///vmss/gpu/virtualmachines/0", "azure:///vmss/gpu/virtualmachines/1"}
	v1.SetAddedInstances(pr, "gpu", 2, ids)
	c, _ := gangAClient(t, pr)
	b := NewBooking(c, Options{Now: func() time.Time { return now }})
	// process runs a loop's booking on two nodes, registered (their
	// provider IDs set) or still upcoming (the core's placeholders).
	process := func(registered bool) {
		t.Helper()
		var nodes []*apiv1.Node
		for i, id := range ids {
			n := gpuTestNode(fmt.Sprintf("gpu-%d", i))
			if registered {
				n.Spec.ProviderID = id
			}
			nodes = append(nodes, n)
		}
		snap := testsnapshot.NewTestSnapshotOrDie(t)
		if err := snap.SetClusterState(nodes, nil, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Process(&ca_context.AutoscalingContext{ClusterSnapshot: snap}, nil); err != nil {
			t.Fatal(err)
		}
	}
	expired := func() *metav1.Condition {
		t.Helper()
		b.Refresh()
		got, _ := c.Request("ml", "gang-a")
		return findCondition(got, v1.BookingExpired)
	}

	b.Refresh()
	process(false)
	if e := expired(); e != nil {
		t.Fatalf("BookingExpired while the nodes boot, 12 minutes after the scale-up: %+v", e)
	}
	process(true) // both registered at minute 12
	now = provisionedAt.Add(21 * time.Minute)
	if e := expired(); e != nil {
		t.Fatalf("BookingExpired 9 minutes after the nodes came up: %+v", e)
	}
	now = provisionedAt.Add(23 * time.Minute)
	e := expired()
	if e == nil || e.Status != metav1.ConditionTrue || !strings.Contains(e.Message, "after its nodes came up") {
		t.Fatalf("BookingExpired %+v, want True 11 minutes after the nodes came up", e)
	}
}

// TestBookingPutsEachRequestOnItsOwnNodesFirst: the older request "old" was
// provisioned a node still booting (not in the snapshot); the younger
// "young" had its node "gpu-young" register. Each books one 8-GPU pod.
// Booked oldest first anywhere, old's pod took gpu-young and young was set
// back as having lost its capacity, though its node had come. Young's pod
// is booked on its own node, and only old, whose node has not come (and no
// placeholder stands for it in this snapshot), finds no room.
func TestBookingPutsEachRequestOnItsOwnNodesFirst(t *testing.T) {
	const prefix = "azure:///subscriptions/s/resourcegroups/rg/providers/microsoft.compute/virtualmachinescalesets/gpu/virtualmachines/"
	c := provisionedRequests(t, []string{"old", "young"}, func(pr *v1.ProvisioningRequest, _ *apiv1.PodTemplate) {
		v1.SetAddedInstances(pr, "gpu", 1, []string{prefix + pr.Name})
	})
	if got := c.Requests(); len(got) != 2 || got[0].Name != "old" {
		t.Fatalf("requests %v; want old first", got)
	}
	young := gpuTestNode("gpu-young")
	young.Spec.ProviderID = prefix + "young"
	snap := testsnapshot.NewTestSnapshotOrDie(t)
	if err := snap.SetClusterState([]*apiv1.Node{young}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := NewBooking(c, Options{}).Process(&ca_context.AutoscalingContext{ClusterSnapshot: snap}, nil); err != nil {
		t.Fatal(err)
	}
	ni, err := snap.GetNodeInfo("gpu-young")
	if err != nil {
		t.Fatal(err)
	}
	if pods := ni.Pods(); len(pods) != 1 || !strings.HasPrefix(pods[0].Pod.Name, "young-") {
		var names []string
		for _, p := range pods {
			names = append(names, p.Pod.Name)
		}
		t.Fatalf("gpu-young holds %v; want young's pod", names)
	}
	if p := findCondition(mustRequest(t, c, "young"), v1.Provisioned); p == nil || p.Status != metav1.ConditionTrue {
		t.Fatalf("young: Provisioned %+v; want it kept True, its node is up", p)
	}
	if p := findCondition(mustRequest(t, c, "old"), v1.Provisioned); p == nil || p.Status != metav1.ConditionFalse {
		t.Fatalf("old: Provisioned %+v; want False, no room for it in this snapshot", p)
	}
}

func mustRequest(t *testing.T, c *Client, name string) *v1.ProvisioningRequest {
	t.Helper()
	if err := c.Refresh(); err != nil {
		t.Fatal(err)
	}
	pr, ok := c.Request("ml", name)
	if !ok {
		t.Fatalf("request %s is gone", name)
	}
	return pr
}

// Pods booked anywhere go biggest first (first fit decreasing): an older
// request's 1-GPU pod booked first took an 8-GPU node a younger gang's
// pod needed, beside a 1-GPU node, and the gang was set back as having lost
// its capacity (make simulate's kueue side, one replay in three: which node
// the small pod took depended on where the simulator's node scan began).
func TestBookingPlacesTheBiggestPodsFirst(t *testing.T) {
	c := provisionedRequests(t, []string{"small", "big"}, func(pr *v1.ProvisioningRequest, tm *apiv1.PodTemplate) {
		if pr.Name == "small" {
			tm.Template.Spec.Containers[0].Resources.Limits[gpu] = resource.MustParse("1")
		}
	})
	// Whichever node a scan begins at, the outcome is the same.
	for _, order := range [][]string{{"a-heavy", "b-light"}, {"b-light", "a-heavy"}} {
		var nodes []*apiv1.Node
		for _, name := range order {
			n := gpuTestNode(name)
			if strings.HasSuffix(name, "light") {
				n.Status.Allocatable[gpu] = resource.MustParse("1")
				n.Status.Capacity[gpu] = resource.MustParse("1")
			}
			nodes = append(nodes, n)
		}
		snap := testsnapshot.NewTestSnapshotOrDie(t)
		if err := snap.SetClusterState(nodes, nil, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := NewBooking(c, Options{}).Process(&ca_context.AutoscalingContext{ClusterSnapshot: snap}, nil); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"small", "big"} {
			if p := findCondition(mustRequest(t, c, name), v1.Provisioned); p == nil || p.Status != metav1.ConditionTrue {
				t.Fatalf("nodes %v: %s Provisioned %+v; want True, both fit", order, name, p)
			}
		}
	}
}

// provisionedRequests is a Client over a fake API holding a Provisioned
// request of one pod per name, each a second younger than the one before,
// and its PodTemplate; prepare may change either before they are stored.
func provisionedRequests(t *testing.T, names []string, prepare func(*v1.ProvisioningRequest, *apiv1.PodTemplate)) *Client {
	t.Helper()
	provisioned := []metav1.Condition{cond(v1.Accepted, metav1.ConditionTrue, ReasonAccepted, time.Now()), cond(v1.Provisioned, metav1.ConditionTrue, ReasonCapacityIsProvisioned, time.Now())}
	var objs []runtime.Object
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for i, name := range names {
		pr := request("ml", name, v1.ProvisioningClassBestEffortAtomicScaleUp, v1.PodSet{PodTemplateRef: v1.Reference{Name: name}, Count: 1})
		pr.CreationTimestamp = metav1.NewTime(time.Unix(int64(1000+i), 0))
		pr.Status.Conditions = provisioned
		tm := template("ml", name)
		prepare(pr, tm)
		u, err := toUnstructured(pr)
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, u)
		if err := idx.Add(tm); err != nil {
			t.Fatal(err)
		}
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{v1.Resource: "ProvisioningRequestList"}, objs...)
	c := NewClient(dyn, corelisters.NewPodTemplateLister(idx), nil)
	if err := c.Refresh(); err != nil {
		t.Fatal(err)
	}
	return c
}
