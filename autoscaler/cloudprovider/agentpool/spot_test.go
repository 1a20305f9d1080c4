// Tests of spot pools: their templates' label and taint, capacity failures reported out-of-resources, evicted VMs removed and never reported failed.

package agentpool

import (
	"strings"
	"testing"
	"time"

	apiv1 "k8s.io/api/core/v1"
	"k8s.io/autoscaler/cluster-autoscaler/cloudprovider"

	"github.com/muster-project/muster/autoscaler/armlocal"
)

// spotEnv adds spot pools to the seed scenario: a spot scale set of light
// GPUs (eviction policy Deallocate, a max price) beside the regular one, and
// a spot AKS agent pool (AKS's default policy, Delete).
func spotEnv(t *testing.T, provisioning time.Duration) *env {
	t.Helper()
	e := newEnv(t, provisioning)
	if err := e.srv.AddScaleSet(armlocal.ScaleSetSpec{ResourceGroup: rg, Name: "gpu-spot", SKU: "Standard_NC4as_T4_v3",
		Spot: &armlocal.Spot{EvictionPolicy: armlocal.EvictDeallocate, MaxPrice: 0.5},
		Tags: map[string]string{"cluster-autoscaler-enabled": "true", "min": "0", "max": "4"}}); err != nil {
		t.Fatal(err)
	}
	if err := e.srv.AddAgentPool(armlocal.AgentPoolSpec{ResourceGroup: rg, Cluster: "aks1", Name: "spotaks", VMSize: "Standard_ND96asr_v4",
		Spot: &armlocal.Spot{}}); err != nil {
		t.Fatal(err)
	}
	e.cfg.Pools = []PoolConfig{{Name: "spotaks", Type: PoolTypeAKS, Min: 0, Max: 4}}
	return e
}

// TestSpotPoolTemplates: a spot pool is read as one, with its eviction
// policy and max price, and its template node carries the label and the
// NoSchedule taint AKS puts on spot nodes (once, also when AKS reports the
// taint itself); a regular pool's does not.
func TestSpotPoolTemplates(t *testing.T) {
	e := spotEnv(t, 50*time.Millisecond)
	p := e.provider(t)
	for _, tc := range []struct {
		pool       string
		spot       bool
		policy     string
		maxPrice   float64
		wantTaints int
	}{
		{pool: "gpu-spot", spot: true, policy: "Deallocate", maxPrice: 0.5, wantTaints: 1},
		{pool: "spotaks", spot: true, policy: "Delete", maxPrice: -1, wantTaints: 1},
		{pool: "gpu-light", wantTaints: 1}, // its own, from a tag
	} {
		g := group(t, p, tc.pool)
		st, err := g.fresh()
		if err != nil {
			t.Fatal(err)
		}
		if st.spot != tc.spot || st.evictionPolicy != tc.policy || st.maxPrice != tc.maxPrice {
			t.Errorf("%s: spot %v policy %q max price %g, want %v %q %g", tc.pool, st.spot, st.evictionPolicy, st.maxPrice, tc.spot, tc.policy, tc.maxPrice)
		}
		ni, err := g.TemplateNodeInfo()
		if err != nil {
			t.Fatal(err)
		}
		n := ni.Node()
		spotTaints := 0
		for _, taint := range n.Spec.Taints {
			if taint.Key == SpotLabel {
				spotTaints++
				if taint.Value != SpotValue || taint.Effect != apiv1.TaintEffectNoSchedule {
					t.Errorf("%s: spot taint %v", tc.pool, taint)
				}
			}
		}
		want := 0
		if tc.spot {
			want = 1
		}
		if spotTaints != want || (n.Labels[SpotLabel] == SpotValue) != tc.spot {
			t.Errorf("%s: template labels %v taints %v; want the spot label and taint %v", tc.pool, n.Labels, n.Spec.Taints, tc.spot)
		}
		if len(n.Spec.Taints) != tc.wantTaints {
			t.Errorf("%s: taints %v, want %d", tc.pool, n.Spec.Taints, tc.wantTaints)
		}
	}
}

// TestSpotCapacityFailuresAreOutOfResources: in a spot pool every failed
// scale-up is reported out-of-resources, so the core backs the pool off and
// turns to a regular pool; the same failure in a regular pool keeps its own
// class.
func TestSpotCapacityFailuresAreOutOfResources(t *testing.T) {
	for _, tc := range []struct {
		pool, code string
		want       cloudprovider.InstanceErrorClass
	}{
		{pool: "gpu-spot", code: "SkuNotAvailable", want: cloudprovider.OutOfResourcesErrorClass},
		{pool: "gpu-spot", code: "SpotPriceGreaterThanProvidedMaxPrice", want: cloudprovider.OutOfResourcesErrorClass},
		{pool: "gpu-spot", code: "OSProvisioningTimedOut", want: cloudprovider.OutOfResourcesErrorClass},
		{pool: "gpu-light", code: "SpotPriceGreaterThanProvidedMaxPrice", want: cloudprovider.OutOfResourcesErrorClass},
		{pool: "gpu-light", code: "OSProvisioningTimedOut", want: cloudprovider.OtherErrorClass},
	} {
		t.Run(tc.pool+"/"+tc.code, func(t *testing.T) {
			e := spotEnv(t, 50*time.Millisecond)
			p := e.provider(t)
			g := group(t, p, tc.pool)
			e.srv.InjectPartialProvisioning(tc.pool, 0, tc.code)
			if err := g.AtomicIncreaseSize(2); err != nil {
				t.Fatal(err)
			}
			p.m.wg.Wait()
			eventually(t, "the failed scale-up to be cleaned up", func() bool { c, _ := states(e, tc.pool); return c == 0 && settled(e, tc.pool) })
			n, insts := reportedFailed(t, g)
			if n != 2 {
				t.Fatalf("%d instances reported failed, want 2: %+v", n, insts)
			}
			for _, i := range insts {
				if got := i.Status.ErrorInfo.ErrorClass; got != tc.want {
					t.Errorf("instance %s: error class %v, want %v (code %s)", i.Id, got, tc.want, i.Status.ErrorInfo.ErrorCode)
				}
			}
		})
	}
}

// TestSpotEvictions: a reclaimed spot VM is noticed and removed, and is
// never reported as a failed instance. Deallocate policy: the VM stays,
// stopped, until the provider's refresh deletes it and lowers the pool's
// size. Delete policy (AKS): Azure deletes it; the provider no longer lists
// it and HasInstance says so, so the core treats its node as deleted.
func TestSpotEvictions(t *testing.T) {
	e := spotEnv(t, 50*time.Millisecond)
	p := e.provider(t)

	// Deallocate: the scale set keeps the VM until the provider removes it.
	g := group(t, p, "gpu-spot")
	if err := g.IncreaseSize(2); err != nil {
		t.Fatal(err)
	}
	p.m.wg.Wait()
	eventually(t, "2 spot VMs", func() bool { c, st := states(e, "gpu-spot"); return c == 2 && len(st) == 2 && settled(e, "gpu-spot") })
	_, insts, _ := e.srv.ScaleSet(rg, "gpu-spot")
	if err := e.srv.EvictSpot(rg, "gpu-spot", insts[0].ComputerName); err != nil {
		t.Fatal(err)
	}
	if c, st := states(e, "gpu-spot"); c != 2 || len(st) != 2 {
		t.Fatalf("after a Deallocate eviction, before the provider acts: capacity %d, instances %v", c, st)
	}
	g.invalidate()
	if err := p.Refresh(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the reclaimed VM removed", func() bool {
		c, st := states(e, "gpu-spot")
		_, still := st[insts[0].ID]
		return c == 1 && len(st) == 1 && !still
	})
	if n, all := reportedFailed(t, g); n != 0 {
		t.Fatalf("a reclaimed VM reported as failed: %+v", all)
	}
	if err := e.srv.EvictSpot(rg, "gpu-light", "any"); err == nil || !strings.Contains(err.Error(), "not a spot pool") {
		t.Fatalf("evicting from a regular pool: %v", err)
	}

	// Delete (AKS): the machine is gone; nothing failed, nothing to remove.
	ga := group(t, p, "spotaks")
	if err := ga.AtomicIncreaseSize(2); err != nil {
		t.Fatal(err)
	}
	p.m.wg.Wait()
	_, machines, _ := e.srv.AgentPool(rg, "aks1", "spotaks")
	if len(machines) != 2 {
		t.Fatalf("spot agent pool: %+v", machines)
	}
	nodeRG, vmss, ok := scaleSetOfVM(strings.TrimPrefix(machines[1].ProviderID, "azure://"))
	if !ok {
		t.Fatalf("provider ID %s", machines[1].ProviderID)
	}
	if err := e.srv.EvictSpot(nodeRG, vmss, machines[1].ComputerName); err != nil {
		t.Fatal(err)
	}
	evicted := node("evicted", machines[1].ProviderID)
	evicted.Labels = map[string]string{AgentPoolLabel: "spotaks"} // as AKS labels its nodes
	eventually(t, "the evicted machine gone", func() bool {
		ga.invalidate()
		has, err := p.HasInstance(evicted)
		return err == nil && !has
	})
	if n, all := reportedFailed(t, ga); n != 0 || len(all) != 1 {
		t.Fatalf("after a Delete eviction: %d reported failed, instances %+v; want 0 and the other machine", n, all)
	}
	if c, _, _ := e.srv.AgentPool(rg, "aks1", "spotaks"); c != 1 {
		t.Fatalf("agent pool count %d after the eviction, want 1", c)
	}
}
