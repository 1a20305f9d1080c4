// Tests of NodeInUseFromListers: an instance is in use when its node runs a pod other than a DaemonSet's, a mirror or a finished one, provider IDs matched whatever their case.

package agentpool

import (
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"

	apiv1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

func TestNodeInUseFromListers(t *testing.T) {
	const id = "azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/gpu/virtualMachines/3"
	onNode := func(name string, mutate func(*apiv1.Pod)) *apiv1.Pod {
		p := &apiv1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Spec: apiv1.PodSpec{NodeName: "gpu-3"}, Status: apiv1.PodStatus{Phase: apiv1.PodRunning}}
		if mutate != nil {
			mutate(p)
		}
		return p
	}
	daemon := onNode("agent", func(p *apiv1.Pod) {
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "agent", Controller: to.Ptr(true)}}
	})
	mirror := onNode("static", func(p *apiv1.Pod) { p.Annotations = map[string]string{apiv1.MirrorPodAnnotationKey: "x"} })
	done := onNode("done", func(p *apiv1.Pod) { p.Status.Phase = apiv1.PodSucceeded })
	elsewhere := onNode("elsewhere", func(p *apiv1.Pod) { p.Spec.NodeName = "gpu-4" })
	worker := onNode("worker-0", nil)
	for _, tc := range []struct {
		name       string
		providerID string
		pods       []*apiv1.Pod
		want       bool
	}{
		{name: "a worker runs there", providerID: id, pods: []*apiv1.Pod{daemon, worker}, want: true},
		{name: "provider IDs match whatever their case", providerID: "AZURE:///subscriptions/s/resourceGroups/RG/providers/Microsoft.Compute/virtualMachineScaleSets/gpu/virtualMachines/3", pods: []*apiv1.Pod{worker}, want: true},
		{name: "only DaemonSet, mirror and finished pods", providerID: id, pods: []*apiv1.Pod{daemon, mirror, done, elsewhere}, want: false},
		{name: "never registered as a node", providerID: id + "0", pods: []*apiv1.Pod{worker}, want: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nodes := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
			pods := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
			for _, n := range []*apiv1.Node{
				{ObjectMeta: metav1.ObjectMeta{Name: "gpu-3"}, Spec: apiv1.NodeSpec{ProviderID: id}},
				{ObjectMeta: metav1.ObjectMeta{Name: "gpu-4"}, Spec: apiv1.NodeSpec{ProviderID: id + "4"}},
			} {
				if err := nodes.Add(n); err != nil {
					t.Fatal(err)
				}
			}
			for _, p := range tc.pods {
				if err := pods.Add(p); err != nil {
					t.Fatal(err)
				}
			}
			inUse := NodeInUseFromListers(corelisters.NewNodeLister(nodes), corelisters.NewPodLister(pods))
			if got := inUse(tc.providerID); got != tc.want {
				t.Fatalf("in use = %v, want %v", got, tc.want)
			}
		})
	}
}
