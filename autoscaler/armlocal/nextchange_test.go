// Tests of NextChange: the clock time of the cloud's next change by itself (a boot, a throttling window's end, a deletion, an operation settling), none once all is done.

package armlocal_test

import (
	"context"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/muster-project/muster/autoscaler/armlocal"
)

// TestNextChange drives the cloud through the SDK clients on a clock of its
// own and checks that NextChange names the clock time of the next thing the
// cloud does by itself: a boot (the server's and a scale set's own
// provisioning delay, an agent pool's machines), the end of a throttling
// window, a deletion completing, an operation settling while its instance
// is being deleted; and nothing once all is done.
func TestNextChange(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	clk := clocktesting.NewFakePassiveClock(t0)
	s := start(t, armlocal.Options{Clock: clk, ProvisioningDelay: 3 * time.Minute, DeletionDelay: time.Minute})
	for _, spec := range []armlocal.ScaleSetSpec{
		{ResourceGroup: rg, Name: "cpu", SKU: "Standard_D4s_v5"},
		{ResourceGroup: rg, Name: "gpu-heavy", SKU: "Standard_ND96isr_H100_v5", ProvisioningDelay: 5 * time.Minute},
	} {
		if err := s.AddScaleSet(spec); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AddAgentPool(armlocal.AgentPoolSpec{ResourceGroup: rg, Cluster: "aks1", Name: "gpulight", VMSize: "Standard_NC4as_T4_v3", Count: 1}); err != nil {
		t.Fatal(err)
	}
	ss, vms := vmssClients(t, s)
	f, err := armcontainerservice.NewClientFactory(s.SubscriptionID(), s.Credential(), fastOptions(s))
	if err != nil {
		t.Fatal(err)
	}
	pools := f.NewAgentPoolsClient()

	// want checks NextChange at the clock's time: the next change at
	// t0+next, or none when next is negative.
	want := func(step string, next time.Duration) {
		t.Helper()
		now, got, ok := s.NextChange()
		if !now.Equal(clk.Now()) {
			t.Errorf("%s: now %s, want the clock's %s", step, now, clk.Now())
		}
		switch {
		case next < 0 && ok:
			t.Errorf("%s: next change at t0+%s, want none", step, got.Sub(t0))
		case next >= 0 && !ok:
			t.Errorf("%s: no next change, want t0+%s", step, next)
		case next >= 0 && !got.Equal(t0.Add(next)):
			t.Errorf("%s: next change at t0+%s, want t0+%s", step, got.Sub(t0), next)
		}
	}
	at := func(d time.Duration) { clk.SetTime(t0.Add(d)) }
	scale := func(name string, capacity int64) *runtime.Poller[armcompute.VirtualMachineScaleSetsClientUpdateResponse] {
		t.Helper()
		p, err := ss.BeginUpdate(ctx, rg, name, armcompute.VirtualMachineScaleSetUpdate{SKU: &armcompute.SKU{Capacity: to.Ptr(capacity)}}, nil)
		if err != nil {
			t.Fatalf("scaling %s to %d: %v", name, capacity, err)
		}
		return p
	}
	deleteVM := func(name, id string) {
		t.Helper()
		if _, err := ss.BeginDeleteInstances(ctx, rg, name, armcompute.VirtualMachineScaleSetVMInstanceRequiredIDs{InstanceIDs: []*string{to.Ptr(id)}}, nil); err != nil {
			t.Fatalf("deleting %s/%s: %v", name, id, err)
		}
	}

	want("nothing under way", -1)

	// A boot on the server's delay.
	scale("cpu", 1)
	want("cpu scaled up at t0", 3*time.Minute)

	// At t0+1m: a boot on the scale set's own delay, later; an agent pool's
	// new machine, on the server's delay; a throttling window, sooner.
	at(time.Minute)
	scale("gpu-heavy", 1)
	want("gpu-heavy scaled up at t0+1m", 3*time.Minute)
	ap, err := pools.Get(ctx, rg, "aks1", "gpulight", nil)
	if err != nil {
		t.Fatal(err)
	}
	ap.Properties.Count = to.Ptr[int32](2)
	if _, err := pools.BeginCreateOrUpdate(ctx, rg, "aks1", "gpulight", ap.AgentPool, nil); err != nil {
		t.Fatal(err)
	}
	s.InjectThrottleFor(armlocal.OpUsageList, 90*time.Second, time.Second)
	want("throttled at t0+1m", 150*time.Second)

	// The window ends exactly now: not after now, so the boot is next.
	at(150 * time.Second)
	want("window over", 3*time.Minute)

	// The CPU VM has booted at t0+3m; the next change is the agent pool's
	// machine (t0+4m). Deleting the CPU VM takes the clock's minute: also
	// t0+4m.
	at(3 * time.Minute)
	if st := listVMs(t, vms, "cpu"); st["0"] != armlocal.StateSucceeded {
		t.Fatalf("cpu VM %v at its boot time", st)
	}
	deleteVM("cpu", "0")
	want("cpu VM deleted at t0+3m", 4*time.Minute)

	// At t0+4m the machine has booted and the VM is gone: gpu-heavy's boot
	// at t0+6m is next.
	at(4 * time.Minute)
	if st := listVMs(t, vms, "cpu"); len(st) != 0 {
		t.Fatalf("cpu VMs %v after the deletion delay, want none", st)
	}
	if _, machines, _ := s.AgentPool(rg, "aks1", "gpulight"); len(machines) != 2 || machines[1].State != armlocal.StateSucceeded {
		t.Fatalf("agent pool machines %+v at their boot time", machines)
	}
	want("deletion done", 6*time.Minute)

	at(6 * time.Minute)
	want("all booted", -1)

	// An operation settles at a time none of its instances changes state:
	// a scale-up whose VM is deleted while booting, with a deletion delay
	// longer than the boot's rest, stays InProgress until the boot time
	// (t0+9m) while the VM is Deleting until t0+9m30s.
	s.SetProvisioningDelay(3 * time.Minute)
	up := scale("cpu", 1)
	at(8*time.Minute + 30*time.Second)
	deleteVM("cpu", "1")
	want("scale-up's VM deleted while booting", 9*time.Minute)
	at(9 * time.Minute)
	if st := listVMs(t, vms, "cpu"); st["1"] != armlocal.StateDeleting {
		t.Fatalf("cpu VMs %v, want instance 1 Deleting", st)
	}
	if _, err := up.Poll(ctx); err != nil {
		t.Fatal(err)
	}
	if !up.Done() {
		t.Fatal("the scale-up is still in progress at its VM's boot time")
	}
	want("scale-up settled", 9*time.Minute+30*time.Second)
	at(9*time.Minute + 30*time.Second)
	want("all done", -1)
}
