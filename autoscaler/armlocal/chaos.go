// Spot evictions and instance deletions, the record of deletions, and Snapshot of every pool.

package armlocal

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Causes of an instance's deletion, as Deletions reports them.
const (
	// DeletionRequested: a DeleteInstances (scale set) or DeleteMachines
	// (agent pool) call named the instance.
	DeletionRequested = "delete-instances"
	// DeletionScaleIn: a lowered capacity or count retired the instance (the
	// newest first, as a scale set without a scale-in policy does).
	DeletionScaleIn = "scale-in"
	// DeletionInjected: DeleteInstance took it (a lost host, a spot
	// eviction), not a client.
	DeletionInjected = "injected"
	// DeletionSpotEviction: EvictSpot reclaimed a spot VM of a pool whose
	// eviction policy is Delete.
	DeletionSpotEviction = "spot-eviction"
)

// Spot eviction policies.
const (
	EvictDelete     = "Delete"
	EvictDeallocate = "Deallocate"
)

// SpotLabel is the label and taint key AKS puts on spot nodes.
const SpotLabel = "kubernetes.azure.com/scalesetpriority"

func validSpot(sp *Spot) error {
	if sp == nil {
		return nil
	}
	if sp.EvictionPolicy != "" && sp.EvictionPolicy != EvictDelete && sp.EvictionPolicy != EvictDeallocate {
		return fmt.Errorf("spot.evictionPolicy %q: want %s or %s", sp.EvictionPolicy, EvictDelete, EvictDeallocate)
	}
	if sp.MaxPrice < 0 && sp.MaxPrice != -1 {
		return fmt.Errorf("spot.maxPrice %g: want -1 or a price above 0 (MaxPriceValueInvalid)", sp.MaxPrice)
	}
	return nil
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// EvictSpot reclaims a running spot VM as Azure does when it needs the
// capacity back (after its 30 s notice, which only the VM itself sees):
// under the Delete policy the VM is deleted and its scale set's capacity
// drops by one; under Deallocate it stays, stopped and deallocated, and
// counts on. scaleSet is a scale set, or the scale set behind an agent pool
// in its node resource group.
func (s *Server) EvictSpot(resourceGroup, scaleSet, computerName string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	s.settleLocked(now)
	var p *pool
	policy, capacity := EvictDeallocate, (*int)(nil)
	if ss, ok := s.scaleSets[strings.ToLower(resourceGroup+"/"+scaleSet)]; ok {
		p, capacity = &ss.pool, &ss.capacity
	} else if ap := s.agentPoolByScaleSetLocked(resourceGroup, scaleSet); ap != nil {
		p, capacity, policy = &ap.pool, &ap.count, EvictDelete
	} else {
		return fmt.Errorf("scale set %s/%s not found", resourceGroup, scaleSet)
	}
	if p.spot == nil {
		return fmt.Errorf("scale set %s/%s is not a spot pool: its VMs are not evicted", resourceGroup, scaleSet)
	}
	policy = p.spot.policy(policy)
	for _, inst := range p.live() {
		if !strings.EqualFold(inst.computerName, computerName) {
			continue
		}
		if !inst.deleteAt.IsZero() || inst.deallocated {
			return fmt.Errorf("instance %s of scale set %s is already evicted or being deleted", computerName, scaleSet)
		}
		if policy == EvictDeallocate {
			inst.deallocated = true
			return nil
		}
		inst.deleteAt = now.Add(s.delDelay)
		s.noteDeletionLocked(p, inst, DeletionSpotEviction, now)
		*capacity--
		return nil
	}
	return fmt.Errorf("scale set %s has no instance %s", scaleSet, computerName)
}

// Deletion is one instance starting to be deleted.
type Deletion struct {
	Pool     string    `json:"pool"`
	Instance string    `json:"instance"` // computer name: the node's name
	At       time.Time `json:"at"`
	Cause    string    `json:"cause"`
}

func (s *Server) noteDeletionLocked(p *pool, inst *instance, cause string, now time.Time) {
	s.deletions = append(s.deletions, Deletion{Pool: p.name, Instance: inst.computerName, At: now, Cause: cause})
}

// Deletions returns every instance deletion so far, oldest first: what a
// chaos run checks the autoscaler's deletions against.
func (s *Server) Deletions() []Deletion {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Deletion(nil), s.deletions...)
}

// DeleteInstance takes one instance of a scale set away as Azure does when
// a host fails or a spot VM is evicted with the Delete policy: it starts
// deleting at once and the scale set's capacity drops by one.
func (s *Server) DeleteInstance(resourceGroup, scaleSet, computerName string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	s.settleLocked(now)
	ss, ok := s.scaleSets[strings.ToLower(resourceGroup+"/"+scaleSet)]
	if !ok {
		return fmt.Errorf("scale set %s/%s not found", resourceGroup, scaleSet)
	}
	for _, inst := range ss.live() {
		if !strings.EqualFold(inst.computerName, computerName) {
			continue
		}
		if !inst.deleteAt.IsZero() {
			return fmt.Errorf("instance %s of scale set %s is already being deleted", computerName, scaleSet)
		}
		inst.deleteAt = now.Add(s.delDelay)
		s.noteDeletionLocked(&ss.pool, inst, DeletionInjected, now)
		ss.capacity--
		return nil
	}
	return fmt.Errorf("scale set %s has no instance %s", scaleSet, computerName)
}

// State is what Snapshot reports.
type State struct {
	Pools []PoolState `json:"pools"`
}

// PoolState is one scale set's or agent pool's size and instances.
type PoolState struct {
	Kind          string          `json:"kind"` // vmss or aks
	ResourceGroup string          `json:"resourceGroup"`
	Name          string          `json:"name"`
	SKU           string          `json:"sku"`
	Capacity      int             `json:"capacity"`
	Instances     []InstanceState `json:"instances"`
}

// InstanceState is one instance and its provisioning state.
type InstanceState struct {
	Name    string    `json:"name"`  // computer name
	State   string    `json:"state"` // Creating, Succeeded, Failed or Deleting
	Created time.Time `json:"created"`
}

// Snapshot returns every scale set and agent pool with its instances, by
// name.
func (s *Server) Snapshot() State {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	s.settleLocked(now)
	var st State
	add := func(kind string, p *pool, capacity int) {
		ps := PoolState{Kind: kind, ResourceGroup: p.resourceGroup, Name: p.name, SKU: p.sku, Capacity: capacity}
		for _, inst := range p.live() {
			ps.Instances = append(ps.Instances, InstanceState{Name: inst.computerName, State: inst.state(now), Created: inst.created})
		}
		st.Pools = append(st.Pools, ps)
	}
	for _, ss := range s.scaleSets {
		add("vmss", &ss.pool, ss.capacity)
	}
	for _, ap := range s.pools {
		add("aks", &ap.pool, ap.count)
	}
	sort.Slice(st.Pools, func(a, b int) bool {
		if st.Pools[a].Kind != st.Pools[b].Kind {
			return st.Pools[a].Kind > st.Pools[b].Kind
		}
		return st.Pools[a].Name < st.Pools[b].Name
	})
	return st
}
