// Tests of the added-instances record in provisioningClassDetails: a thousand IDs within a detail's limit, read back, cleared, IDs with no common prefix kept whole.

package v1

import (
	"fmt"
	"testing"
)

func TestAddedInstancesRoundTrip(t *testing.T) {
	const p = "azure:///subscriptions/S/resourceGroups/RG/providers/Microsoft.Compute/virtualMachineScaleSets/gpu/virtualMachines/"
	var ids []string
	for i := range 1000 {
		ids = append(ids, fmt.Sprintf("%s%d", p, i))
	}
	pr := &ProvisioningRequest{}
	SetAddedInstances(pr, "gpu", 1000, ids)
	if n := len(pr.Status.ProvisioningClassDetails[DetailInstances]); n > 32768 {
		t.Fatalf("1000 instances take %d characters, over a detail's 32768", n)
	}
	pool, added, got, ok := AddedInstances(pr)
	if !ok || pool != "gpu" || added != 1000 || len(got) != 1000 || got[7] != "azure:///subscriptions/s/resourcegroups/rg/providers/microsoft.compute/virtualmachinescalesets/gpu/virtualmachines/7" {
		t.Fatalf("read back %q %d %d ok=%v, first %v", pool, added, len(got), ok, got[:1])
	}
	ClearAddedInstances(pr)
	if _, _, _, ok := AddedInstances(pr); ok {
		t.Fatal("a cleared record still reads as a scale-up")
	}
	// IDs with nothing in common but the scheme keep whole IDs.
	SetAddedInstances(pr, "mixed", 2, []string{"a://x/1", "b://y/2"})
	if _, _, got, _ := AddedInstances(pr); fmt.Sprint(got) != "[a://x/1 b://y/2]" {
		t.Fatalf("mixed IDs read back as %v", got)
	}
}
