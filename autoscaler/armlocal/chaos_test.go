// Tests of the record of instance deletions with their causes, an injected loss lowering capacity as Azure does, and Snapshot of each instance's state.

package armlocal_test

import (
	"context"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"

	"github.com/muster-project/muster/autoscaler/armlocal"
)

// TestDeletionsAndSnapshot: every instance deletion is logged with its
// cause (a DeleteInstances call, a lowered capacity, an injected loss), an
// injected loss lowers the capacity as Azure does, and Snapshot shows each
// instance's state.
func TestDeletionsAndSnapshot(t *testing.T) {
	s := start(t, armlocal.Options{ProvisioningDelay: 300 * time.Millisecond})
	if err := s.AddScaleSet(armlocal.ScaleSetSpec{ResourceGroup: rg, Name: "gpu", SKU: "Standard_ND96isr_H100_v5", Capacity: 0, Tags: map[string]string{"min": "0"}}); err != nil {
		t.Fatal(err)
	}
	ss, _ := vmssClients(t, s)
	ctx := context.Background()
	p, err := ss.BeginUpdate(ctx, rg, "gpu", armcompute.VirtualMachineScaleSetUpdate{SKU: &armcompute.SKU{Capacity: to.Ptr[int64](4)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	snap := s.Snapshot()
	if len(snap.Pools) != 1 || snap.Pools[0].Capacity != 4 || len(snap.Pools[0].Instances) != 4 || snap.Pools[0].Instances[0].State != armlocal.StateCreating {
		t.Fatalf("while provisioning: %+v", snap)
	}
	if time.Since(snap.Pools[0].Instances[0].Created) > time.Minute {
		t.Errorf("instance created at %s", snap.Pools[0].Instances[0].Created)
	}
	if _, err := p.PollUntilDone(ctx, pollOpts()); err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, in := range s.Snapshot().Pools[0].Instances {
		if in.State != armlocal.StateSucceeded {
			t.Errorf("instance %s %s after the operation", in.Name, in.State)
		}
		names = append(names, in.Name)
	}
	if len(s.Deletions()) != 0 {
		t.Fatalf("deletions %+v before any", s.Deletions())
	}

	dp, err := ss.BeginDeleteInstances(ctx, rg, "gpu", armcompute.VirtualMachineScaleSetVMInstanceRequiredIDs{InstanceIDs: []*string{to.Ptr("0")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dp.PollUntilDone(ctx, pollOpts()); err != nil {
		t.Fatal(err)
	}
	if err := scaleTo(ctx, ss, "gpu", 2); err != nil { // retires the newest, 3
		t.Fatal(err)
	}
	if err := s.DeleteInstance(rg, "gpu", names[1]); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteInstance(rg, "gpu", names[1]); err == nil {
		t.Error("deleting a gone instance again: no error")
	}
	if err := s.DeleteInstance(rg, "nope", names[2]); err == nil {
		t.Error("deleting from an unknown scale set: no error")
	}
	got := s.Deletions()
	want := []armlocal.Deletion{{Pool: "gpu", Instance: names[0], Cause: armlocal.DeletionRequested},
		{Pool: "gpu", Instance: names[3], Cause: armlocal.DeletionScaleIn}, {Pool: "gpu", Instance: names[1], Cause: armlocal.DeletionInjected}}
	if len(got) != len(want) {
		t.Fatalf("deletions %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].Pool != want[i].Pool || got[i].Instance != want[i].Instance || got[i].Cause != want[i].Cause || got[i].At.IsZero() {
			t.Errorf("deletion %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	capacity, insts, _ := s.ScaleSet(rg, "gpu")
	if capacity != 1 || len(insts) != 1 || s.Snapshot().Pools[0].Instances[0].Name != names[2] {
		t.Errorf("after the injected loss: capacity %d, instances %+v, want only %s", capacity, insts, names[2])
	}
}
