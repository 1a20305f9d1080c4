// Tests of the node agent: provider IDs lower-casing the resource group, Nodes registered for provisioned instances and removed with their pods, others' Nodes left alone.

package nodeagent

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"
	apiv1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/muster-project/muster/autoscaler/armlocal"
	"github.com/muster-project/muster/autoscaler/cloudprovider/agentpool"
	"github.com/muster-project/muster/autoscaler/nodeagent/apiservertest"
)

// The resource group is deliberately not lower-case: kubelet's provider IDs
// (and the provider's instance IDs) lower-case it.
const rg = "RG-Sim"

const waitLimit = 2 * time.Minute // hang guard, not a timing assertion

func waitFor(t *testing.T, what string, cond func() (bool, error)) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		ok, err := cond()
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestProviderIDLowerCasesResourceGroup(t *testing.T) {
	for in, want := range map[string]string{
		"azure:///subscriptions/S/resourceGroups/RG-Sim/providers/Microsoft.Compute/virtualMachineScaleSets/Pool/virtualMachines/3": "azure:///subscriptions/S/resourceGroups/rg-sim/providers/Microsoft.Compute/virtualMachineScaleSets/Pool/virtualMachines/3",
		"azure:///subscriptions/S/resourcegroups/MC_X/providers/x":                                                                  "azure:///subscriptions/S/resourcegroups/mc_x/providers/x",
		"kind://docker/kind/worker": "kind://docker/kind/worker",
	} {
		if got := ProviderID(in); got != want {
			t.Errorf("ProviderID(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestAgentRegistersAndRemovesNodes: a heavy-GPU scale set scaled to 2
// through the real SDK client gets two Ready Nodes built from the
// provider's template (labels, capacity, taints, provider ID as the
// provider reports the instances); an instance still provisioning gets
// none; deleting an instance deletes its Node and the pods bound to it;
// Nodes the agent did not register are left alone.
func TestAgentRegistersAndRemovesNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a control plane")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	kube := kubernetes.NewForConfigOrDie(apiservertest.Start(t))

	arm, err := armlocal.New(armlocal.Options{ProvisioningDelay: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(arm.Close)
	tags := func(max string) map[string]string {
		return map[string]string{"cluster-autoscaler-enabled": "true", "min": "0", "max": max,
			"k8s.io_cluster-autoscaler_node-template_taint_nvidia.com_gpu": "present:NoSchedule"}
	}
	for _, ss := range []armlocal.ScaleSetSpec{
		{ResourceGroup: rg, Name: "gpu-heavy", SKU: "Standard_ND96isr_H100_v5", ProximityPlacementGroup: "ppg-ib", Zones: []string{"1", "2"}, Tags: tags("4")},
		{ResourceGroup: rg, Name: "gpu-light", SKU: "Standard_NC4as_T4_v3", Tags: tags("4")},
		// Not tagged for discovery: the provider does not manage it.
		{ResourceGroup: rg, Name: "unmanaged", SKU: "Standard_D4s_v5", Capacity: 1},
	} {
		if err := arm.AddScaleSet(ss); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := agentpool.ParseConfig([]byte(fmt.Sprintf(`
resourceManagerEndpoint: %[1]s
activeDirectoryAuthorityHost: %[1]s
tenantId: %[2]s
subscriptionId: %[3]s
resourceGroup: %[4]s
location: %[5]s
auth: {method: client-secret, clientId: agent, clientSecretFile: /nonexistent/unused-with-an-injected-credential}
autoDiscovery: {tags: {cluster-autoscaler-enabled: "true"}}
cacheTTL: 100ms
`, arm.URL(), arm.TenantID(), arm.SubscriptionID(), rg, arm.Location())))
	if err != nil {
		t.Fatal(err)
	}
	prov, err := NewArmlocalProvider(arm, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = prov.Cleanup() })

	// Nodes the agent must never touch: one carrying an armlocal provider ID
	// of an instance that does not exist (registered by someone else), one
	// of another cloud.
	prefix := ArmlocalProviderIDPrefix(arm)
	foreign := map[string]string{
		"foreign-azure": prefix + "resourceGroups/rg-sim/providers/Microsoft.Compute/virtualMachineScaleSets/gpu-heavy/virtualMachines/99",
		"foreign-kind":  "kind://docker/kind/worker",
	}
	for name, pid := range foreign {
		if _, err := kube.CoreV1().Nodes().Create(ctx, &apiv1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: apiv1.NodeSpec{ProviderID: pid}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	agent, err := New(Config{Client: kube, Cloud: ArmlocalScaleSets{Server: arm, ScaleSets: []ScaleSet{{rg, "gpu-heavy"}, {rg, "gpu-light"}, {rg, "unmanaged"}}},
		Provider: prov, ProviderIDPrefix: prefix, Interval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { agent.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	f, err := armcompute.NewClientFactory(arm.SubscriptionID(), arm.Credential(), arm.ClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	vmss := f.NewVirtualMachineScaleSetsClient()
	poll := &runtime.PollUntilDoneOptions{Frequency: 20 * time.Millisecond}

	// An instance that stays Creating (an hour) must not get a Node.
	arm.SetProvisioningDelay(time.Hour)
	if _, err := vmss.BeginUpdate(ctx, rg, "gpu-light", armcompute.VirtualMachineScaleSetUpdate{SKU: &armcompute.SKU{Capacity: to.Ptr[int64](1)}}, nil); err != nil {
		t.Fatal(err)
	}
	arm.SetProvisioningDelay(200 * time.Millisecond)
	p, err := vmss.BeginUpdate(ctx, rg, "gpu-heavy", armcompute.VirtualMachineScaleSetUpdate{SKU: &armcompute.SKU{Capacity: to.Ptr[int64](2)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.PollUntilDone(ctx, poll); err != nil {
		t.Fatal(err)
	}
	_, heavy, _ := arm.ScaleSet(rg, "gpu-heavy")
	if len(heavy) != 2 {
		t.Fatalf("heavy pool instances %+v, want 2", heavy)
	}

	ready := func(n *apiv1.Node) bool {
		if hasTaint(n, apiv1.TaintNodeNotReady) {
			return false
		}
		return readyStatus(n) == apiv1.ConditionTrue
	}
	waitFor(t, "two Ready heavy-GPU nodes", func() (bool, error) {
		for _, inst := range heavy {
			n, err := kube.CoreV1().Nodes().Get(ctx, inst.ComputerName, metav1.GetOptions{})
			if err != nil || !ready(n) {
				return false, nil
			}
		}
		return true, nil
	})

	// Provider IDs exactly as the provider reports the pool's instances (the
	// autoscaler matches them by string).
	providerIDs := map[string]bool{}
	for _, g := range prov.NodeGroups() {
		if g.Id() != "gpu-heavy" {
			continue
		}
		insts, err := g.Nodes()
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range insts {
			providerIDs[i.Id] = true
		}
	}
	zones := map[string]bool{}
	for _, inst := range heavy {
		n, err := kube.CoreV1().Nodes().Get(ctx, inst.ComputerName, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !providerIDs[n.Spec.ProviderID] {
			t.Errorf("node %s: provider ID %q is not one the provider reports (%v)", n.Name, n.Spec.ProviderID, providerIDs)
		}
		if !strings.Contains(n.Spec.ProviderID, "/resourceGroups/rg-sim/") {
			t.Errorf("node %s: provider ID %q does not have the lower-case resource group", n.Name, n.Spec.ProviderID)
		}
		want := map[string]string{
			"kubernetes.io/hostname":           inst.ComputerName,
			"agentpool":                        "gpu-heavy",
			"kubernetes.azure.com/agentpool":   "gpu-heavy",
			"node.kubernetes.io/instance-type": "Standard_ND96isr_H100_v5",
			"topology.kubernetes.io/region":    "westeurope",
			"topology.kubernetes.io/zone":      "westeurope-" + inst.Zone,
			"kubernetes.io/os":                 "linux",
			"kubernetes.io/arch":               "amd64",
			"nvidia.com/gpu.product":           "NVIDIA-H100-80GB-HBM3",
			"nvidia.com/gpu.count":             "8",
			"nvidia.com/gpu.memory":            "81559",
			"muster.dev/placement-group":       "ppg-ib",
		}
		for k, v := range want {
			if n.Labels[k] != v {
				t.Errorf("node %s: label %s = %q, want %q", n.Name, k, n.Labels[k], v)
			}
		}
		zones[inst.Zone] = true
		wantCap := map[apiv1.ResourceName]string{"cpu": "96", "memory": "1900Gi", "nvidia.com/gpu": "8", "pods": "110"}
		for r, v := range wantCap {
			q := n.Status.Allocatable[r]
			c := n.Status.Capacity[r]
			if q.Cmp(resource.MustParse(v)) != 0 || c.Cmp(resource.MustParse(v)) != 0 {
				t.Errorf("node %s: %s capacity %s allocatable %s, want %s", n.Name, r, c.String(), q.String(), v)
			}
		}
		if len(n.Spec.Taints) != 1 || n.Spec.Taints[0] != (apiv1.Taint{Key: "nvidia.com/gpu", Value: "present", Effect: apiv1.TaintEffectNoSchedule}) {
			t.Errorf("node %s: taints %+v, want only nvidia.com/gpu=present:NoSchedule", n.Name, n.Spec.Taints)
		}
		if n.Annotations[RegisteredByAnnotation] != "armlocal" {
			t.Errorf("node %s: annotations %v", n.Name, n.Annotations)
		}
	}
	if len(zones) != 2 || zones[""] {
		t.Errorf("heavy instances' zones %v, want two distinct zones", zones)
	}

	// A pod bound to the node whose instance goes away is deleted with it.
	victim := heavy[0]
	pod := &apiv1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "worker-0", Namespace: "default"},
		Spec: apiv1.PodSpec{Containers: []apiv1.Container{{Name: "train", Image: "trainer"}}}}
	if _, err := kube.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := kube.CoreV1().Pods("default").Bind(ctx, &apiv1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "worker-0", Namespace: "default"},
		Target: apiv1.ObjectReference{Kind: "Node", Name: victim.ComputerName}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The node goes first, then its pods: when the pod's deletion is seen,
	// its node is already gone, so nothing could have been bound to it in
	// between.
	podWatch, err := kube.CoreV1().Pods("default").Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=worker-0"})
	if err != nil {
		t.Fatal(err)
	}
	defer podWatch.Stop()
	nodeAtPodDeletion := make(chan error, 1)
	go func() {
		for ev := range podWatch.ResultChan() {
			if ev.Type == watch.Deleted {
				_, err := kube.CoreV1().Nodes().Get(context.Background(), victim.ComputerName, metav1.GetOptions{})
				nodeAtPodDeletion <- err
				return
			}
		}
	}()
	dp, err := vmss.BeginDeleteInstances(ctx, rg, "gpu-heavy", armcompute.VirtualMachineScaleSetVMInstanceRequiredIDs{InstanceIDs: []*string{to.Ptr(victim.ID)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dp.PollUntilDone(ctx, poll); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the deleted instance's node to go", func() (bool, error) {
		_, err := kube.CoreV1().Nodes().Get(ctx, victim.ComputerName, metav1.GetOptions{})
		return err != nil, nil
	})
	select {
	case err := <-nodeAtPodDeletion:
		if !apierrors.IsNotFound(err) {
			t.Errorf("when pod worker-0 was deleted its node %s was still there (get: %v); the node must go first", victim.ComputerName, err)
		}
	case <-time.After(30 * time.Second):
		t.Errorf("pod worker-0 bound to the deleted node still exists")
	}

	// Two more passes, synchronously, after the deletion: nothing else moves.
	cancel()
	<-done
	for i := 0; i < 2; i++ {
		res, err := agent.Sync(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Registered)+len(res.Deleted) != 0 {
			t.Fatalf("steady-state pass did something: %+v", res)
		}
	}
	nodes, err := kube.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range nodes.Items {
		names = append(names, n.Name)
	}
	_, light, _ := arm.ScaleSet(rg, "gpu-light")
	_, unmanaged, _ := arm.ScaleSet(rg, "unmanaged")
	want := fmt.Sprint([]string{"foreign-azure", "foreign-kind", heavy[1].ComputerName})
	if got := fmt.Sprint(names); got != want {
		t.Fatalf("nodes %s, want %s (light instance %+v Creating, unmanaged pool instance %+v)", got, want, light, unmanaged)
	}
	if len(light) != 1 || light[0].State != armlocal.StateCreating {
		t.Fatalf("light pool instances %+v, want one Creating", light)
	}

	// The cloud is as the last pass, which had nothing to do, left it: a
	// Sync lists no Nodes, so it does not see a Node deleted by hand. A
	// full pass (Run's) does, and registers the running instance again.
	if err := kube.CoreV1().Nodes().Delete(context.Background(), heavy[1].ComputerName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if res, err := agent.Sync(context.Background()); err != nil || len(res.Registered)+len(res.Deleted) != 0 {
		t.Fatalf("pass over an unchanged cloud: %+v, %v; want nothing done", res, err)
	}
	if res, err := agent.SyncAll(context.Background()); err != nil || fmt.Sprint(res.Registered) != fmt.Sprint([]string{heavy[1].ComputerName}) {
		t.Fatalf("full pass: %+v, %v; want %s registered again", res, err, heavy[1].ComputerName)
	}
}
