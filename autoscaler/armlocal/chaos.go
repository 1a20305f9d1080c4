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
)

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
	now := time.Now()
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
	now := time.Now()
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
