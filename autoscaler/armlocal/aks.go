// AKS agent pools and their machines: creation, resizing, SDK models, PUT and deleteMachines.

package armlocal

import (
	"context"
	"fmt"
	"hash/fnv"
	"net/http"
	"sort"
	"strings"
	"time"

	azfake "github.com/Azure/azure-sdk-for-go/sdk/azcore/fake"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"
	aksfake "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6/fake"
)

// AgentPoolSpec describes an AKS agent pool to create.
type AgentPoolSpec struct {
	ResourceGroup string
	Cluster       string
	Name          string
	VMSize        string
	Count         int
	Tags          map[string]string
	NodeLabels    map[string]string
	NodeTaints    []string // "key=value:Effect"
	Zones         []string
	// ProximityPlacementGroup is the PPG's name (in the cluster's resource group).
	ProximityPlacementGroup string
	MaxPods                 int
	Mode                    string // System or User (default User)
	// Spot makes it a spot pool (scaleSetPriority Spot); AKS adds the spot
	// label and NoSchedule taint to its nodes.
	Spot *Spot
}

// AddAgentPool creates an agent pool (and its managed cluster, on first use)
// with Count machines already provisioned.
func (s *Server) AddAgentPool(spec AgentPoolSpec) error {
	if spec.ResourceGroup == "" || spec.Cluster == "" || spec.Name == "" || spec.VMSize == "" {
		return fmt.Errorf("agent pool needs resourceGroup, cluster, name and vmSize: %+v", spec)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.skuLocked(spec.VMSize); !ok {
		return fmt.Errorf("agent pool %s: vm size %s is not in the catalogue", spec.Name, spec.VMSize)
	}
	ck := strings.ToLower(spec.ResourceGroup + "/" + spec.Cluster)
	nodeRG, ok := s.clusters[ck]
	if !ok {
		nodeRG = fmt.Sprintf("MC_%s_%s_%s", spec.ResourceGroup, spec.Cluster, s.opts.Location)
		s.clusters[ck] = nodeRG
	}
	key := ck + "/" + strings.ToLower(spec.Name)
	if _, ok := s.pools[key]; ok {
		return fmt.Errorf("agent pool %s exists", key)
	}
	if err := validSpot(spec.Spot); err != nil {
		return fmt.Errorf("agent pool %s: %w", spec.Name, err)
	}
	h := fnv.New32a()
	h.Write([]byte(key))
	mode := spec.Mode
	if mode == "" {
		mode = "User"
	}
	ap := &agentPool{
		pool:     pool{resourceGroup: spec.ResourceGroup, name: spec.Name, sku: spec.VMSize, tags: copyMap(spec.Tags), zones: spec.Zones, ppg: spec.ProximityPlacementGroup, spot: spec.Spot},
		cluster:  spec.Cluster,
		nodeRG:   nodeRG,
		vmssName: fmt.Sprintf("aks-%s-%08d-vmss", spec.Name, h.Sum32()%100000000),
		count:    spec.Count, mode: mode, nodeLabels: copyMap(spec.NodeLabels),
		nodeTaints: append([]string(nil), spec.NodeTaints...), maxPods: spec.MaxPods, provisioning: StateSucceeded,
	}
	past := s.now().Add(-time.Minute)
	for i := 0; i < spec.Count; i++ {
		id := ap.nextID
		ap.nextID++
		ap.instances = append(ap.instances, &instance{id: id, computerName: computerName(ap.vmssName, id), created: past, readyAt: past})
	}
	s.pools[key] = ap
	return nil
}

// AgentPool returns an agent pool's count and live machines.
func (s *Server) AgentPool(resourceGroup, cluster, name string) (int, []InstanceView, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	s.settleLocked(now)
	ap, ok := s.pools[strings.ToLower(resourceGroup+"/"+cluster+"/"+name)]
	if !ok {
		return 0, nil, false
	}
	var out []InstanceView
	for _, m := range ap.live() {
		out = append(out, InstanceView{ID: m.computerName, ComputerName: m.computerName,
			ProviderID: "azure://" + s.vmID(ap.nodeRG, ap.vmssName, m.id), State: m.state(now), Zone: m.zone})
	}
	return ap.count, out, true
}

// AgentPoolCapacityWrites returns how many PUTs changing its count one
// agent pool has taken (0 for a pool it does not have).
func (s *Server) AgentPoolCapacityWrites(resourceGroup, cluster, name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ap, ok := s.pools[strings.ToLower(resourceGroup+"/"+cluster+"/"+name)]; ok {
		return ap.capacityWrites
	}
	return 0
}

// etag is the pool's entity tag: it changes with every write to the pool.
func (ap *agentPool) etag() string { return fmt.Sprintf("\"%d\"", ap.version) }

// agentPoolByScaleSetLocked finds the agent pool whose machines are the VMs
// of scale set vmss in the node resource group rg.
func (s *Server) agentPoolByScaleSetLocked(rg, vmss string) *agentPool {
	for _, ap := range s.pools {
		if strings.EqualFold(ap.nodeRG, rg) && strings.EqualFold(ap.vmssName, vmss) {
			return ap
		}
	}
	return nil
}

// ResizeAgentPool sets an agent pool's count as another writer (the portal,
// an IaC run) would, changing its ETag; new machines come up at once.
func (s *Server) ResizeAgentPool(resourceGroup, cluster, name string, count int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	s.settleLocked(now)
	ap := s.findPoolLocked(resourceGroup, cluster, name)
	if ap == nil {
		return fmt.Errorf("agent pool %s/%s/%s not found", resourceGroup, cluster, name)
	}
	if live := len(ap.live()); count > live {
		for _, m := range s.addInstancesLocked(now, &ap.pool, ap.vmssName, count-live) {
			m.readyAt = now
		}
	}
	ap.count = count
	ap.version++
	return nil
}

func (s *Server) agentPoolID(ap *agentPool) string {
	return fmt.Sprintf("/subscriptions/%s/resourceGroups/%s/providers/Microsoft.ContainerService/managedClusters/%s/agentPools/%s", s.opts.SubscriptionID, ap.resourceGroup, ap.cluster, ap.name)
}

func (s *Server) agentPoolModelLocked(ap *agentPool) armcontainerservice.AgentPool {
	mode := armcontainerservice.AgentPoolMode(ap.mode)
	p := &armcontainerservice.ManagedClusterAgentPoolProfileProperties{
		Count:             to.Ptr(int32(ap.count)),
		VMSize:            to.Ptr(ap.sku),
		EnableAutoScaling: to.Ptr(false),
		NodeLabels:        ptrMap(ap.nodeLabels),
		NodeTaints:        to.SliceOfPtrs(ap.nodeTaints...),
		AvailabilityZones: to.SliceOfPtrs(ap.zones...),
		Tags:              ptrMap(ap.tags),
		Mode:              &mode,
		OSType:            to.Ptr(armcontainerservice.OSTypeLinux),
		Type:              to.Ptr(armcontainerservice.AgentPoolTypeVirtualMachineScaleSets),
		ProvisioningState: to.Ptr(ap.provisioning),
		ETag:              to.Ptr(ap.etag()),
	}
	if ap.maxPods > 0 {
		p.MaxPods = to.Ptr(int32(ap.maxPods))
	}
	if ap.ppg != "" {
		p.ProximityPlacementGroupID = s.ppgRef(ap.resourceGroup, ap.ppg).ID
	}
	if ap.spot != nil {
		// As AKS does: the priority, its settings, and the spot label and
		// taint on the pool's nodes.
		p.ScaleSetPriority = to.Ptr(armcontainerservice.ScaleSetPrioritySpot)
		p.ScaleSetEvictionPolicy = to.Ptr(armcontainerservice.ScaleSetEvictionPolicy(ap.spot.policy(EvictDelete)))
		p.SpotMaxPrice = to.Ptr(float32(ap.spot.maxPrice()))
		labels := copyMap(ap.nodeLabels)
		if labels == nil {
			labels = map[string]string{}
		}
		labels[SpotLabel] = "spot"
		p.NodeLabels = ptrMap(labels)
		taint := SpotLabel + "=spot:NoSchedule"
		if !containsString(ap.nodeTaints, taint) {
			p.NodeTaints = append(p.NodeTaints, to.Ptr(taint))
		}
	}
	return armcontainerservice.AgentPool{
		ID: to.Ptr(s.agentPoolID(ap)), Name: to.Ptr(ap.name),
		Type: to.Ptr("Microsoft.ContainerService/managedClusters/agentPools"), Properties: p,
	}
}

func (s *Server) machineModel(ap *agentPool, m *instance) *armcontainerservice.Machine {
	return &armcontainerservice.Machine{
		ID:   to.Ptr(s.agentPoolID(ap) + "/machines/" + m.computerName),
		Name: to.Ptr(m.computerName),
		Type: to.Ptr("Microsoft.ContainerService/managedClusters/agentPools/machines"),
		Properties: &armcontainerservice.MachineProperties{
			ResourceID: to.Ptr(s.vmID(ap.nodeRG, ap.vmssName, m.id)),
		},
	}
}

func (s *Server) findPoolLocked(rg, cluster, name string) *agentPool {
	return s.pools[strings.ToLower(rg+"/"+cluster+"/"+name)]
}

func (s *Server) aksFakes() *aksfake.ServerFactory {
	return &aksfake.ServerFactory{
		AgentPoolsServer: aksfake.AgentPoolsServer{
			Get: func(ctx context.Context, rg, cluster, name string, _ *armcontainerservice.AgentPoolsClientGetOptions) (resp azfake.Responder[armcontainerservice.AgentPoolsClientGetResponse], errResp azfake.ErrorResponder) {
				s.mu.Lock()
				defer s.mu.Unlock()
				s.settleLocked(s.now())
				ap := s.findPoolLocked(rg, cluster, name)
				if ap == nil {
					errResp.SetResponseError(http.StatusNotFound, "NotFound")
					return
				}
				resp.SetResponse(http.StatusOK, armcontainerservice.AgentPoolsClientGetResponse{AgentPool: s.agentPoolModelLocked(ap)}, nil)
				return
			},
			NewListPager: func(rg, cluster string, _ *armcontainerservice.AgentPoolsClientListOptions) (resp azfake.PagerResponder[armcontainerservice.AgentPoolsClientListResponse]) {
				s.mu.Lock()
				defer s.mu.Unlock()
				s.settleLocked(s.now())
				if _, ok := s.clusters[strings.ToLower(rg+"/"+cluster)]; !ok {
					resp.AddResponseError(http.StatusNotFound, "ResourceNotFound")
					return
				}
				var list []*armcontainerservice.AgentPool
				for _, ap := range sortedPools(s.pools) {
					if strings.EqualFold(ap.resourceGroup, rg) && strings.EqualFold(ap.cluster, cluster) {
						m := s.agentPoolModelLocked(ap)
						list = append(list, &m)
					}
				}
				resp.AddPage(http.StatusOK, armcontainerservice.AgentPoolsClientListResponse{AgentPoolListResult: armcontainerservice.AgentPoolListResult{Value: list}}, nil)
				return
			},
		},
		MachinesServer: aksfake.MachinesServer{
			NewListPager: func(rg, cluster, name string, _ *armcontainerservice.MachinesClientListOptions) (resp azfake.PagerResponder[armcontainerservice.MachinesClientListResponse]) {
				s.mu.Lock()
				defer s.mu.Unlock()
				s.settleLocked(s.now())
				ap := s.findPoolLocked(rg, cluster, name)
				if ap == nil {
					resp.AddResponseError(http.StatusNotFound, "NotFound")
					return
				}
				var list []*armcontainerservice.Machine
				for _, m := range ap.live() {
					list = append(list, s.machineModel(ap, m))
				}
				resp.AddPage(http.StatusOK, armcontainerservice.MachinesClientListResponse{MachineListResult: armcontainerservice.MachineListResult{Value: list}}, nil)
				return
			},
			Get: func(ctx context.Context, rg, cluster, name, machine string, _ *armcontainerservice.MachinesClientGetOptions) (resp azfake.Responder[armcontainerservice.MachinesClientGetResponse], errResp azfake.ErrorResponder) {
				s.mu.Lock()
				defer s.mu.Unlock()
				s.settleLocked(s.now())
				ap := s.findPoolLocked(rg, cluster, name)
				if ap != nil {
					for _, m := range ap.live() {
						if strings.EqualFold(m.computerName, machine) {
							resp.SetResponse(http.StatusOK, armcontainerservice.MachinesClientGetResponse{Machine: *s.machineModel(ap, m)}, nil)
							return
						}
					}
				}
				errResp.SetResponseError(http.StatusNotFound, "NotFound")
				return
			},
		},
	}
}

// agentPoolPut updates an existing pool's count (and tags). Creating pools
// is not served: the autoscaler never does.
func (s *Server) agentPoolPut(w http.ResponseWriter, r *http.Request, rg, cluster, name string) {
	var in armcontainerservice.AgentPool
	if err := decodeBody(r, &in); err != nil {
		writeError(w, http.StatusBadRequest, "InvalidRequestContent", err.Error())
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	s.settleLocked(now)
	ap := s.findPoolLocked(rg, cluster, name)
	if ap == nil {
		writeError(w, http.StatusNotFound, "NotFound", fmt.Sprintf("agent pool %s of managed cluster %s/%s not found (armlocal does not create pools)", name, rg, cluster))
		return
	}
	if in.Properties == nil || in.Properties.Count == nil {
		writeError(w, http.StatusBadRequest, "InvalidParameter", "properties.count is required")
		return
	}
	if m := r.Header.Get("If-Match"); m != "" && m != "*" && m != ap.etag() {
		writeError(w, http.StatusPreconditionFailed, "PreconditionFailed",
			fmt.Sprintf("agent pool %s was changed since it was read: If-Match %s, current ETag %s", name, m, ap.etag()))
		return
	}
	ap.version++
	if in.Properties.VMSize != nil && !strings.EqualFold(*in.Properties.VMSize, ap.sku) {
		writeError(w, http.StatusBadRequest, "InvalidParameter", "properties.vmSize cannot be changed")
		return
	}
	if in.Properties.Tags != nil {
		// A PUT replaces the pool's tags with those it sends.
		ap.tags = map[string]string{}
		for k, v := range in.Properties.Tags {
			if v != nil {
				ap.tags[k] = *v
			}
		}
	}
	want := int(*in.Properties.Count)
	if want != ap.count {
		ap.capacityWrites++
	}
	op := &operation{aks: ap}
	live := ap.live()
	switch {
	case want > len(live):
		if msg, ok := s.checkQuotaLocked(now, ap.sku, want-len(live)); !ok {
			writeError(w, http.StatusBadRequest, "QuotaExceeded", msg)
			return
		}
		op.creates = s.addInstancesLocked(now, &ap.pool, ap.vmssName, want-len(live))
	case want < len(live):
		op.deletes = s.retireNewestLocked(&ap.pool, len(live)-want, now)
	}
	ap.count = want
	ap.lastOpFailed = false
	ap.provisioning = "Scaling"
	if len(op.creates) == 0 && len(op.deletes) == 0 {
		ap.provisioning = StateSucceeded
	}
	s.startOperationLocked(w, r, op, http.StatusOK, s.agentPoolModelLocked(ap))
}

// agentPoolDeleteMachines deletes exactly the named machines and lowers the
// pool's count by as many.
func (s *Server) agentPoolDeleteMachines(w http.ResponseWriter, r *http.Request, rg, cluster, name string) {
	var in armcontainerservice.AgentPoolDeleteMachinesParameter
	if err := decodeBody(r, &in); err != nil {
		writeError(w, http.StatusBadRequest, "InvalidRequestContent", err.Error())
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	s.settleLocked(now)
	ap := s.findPoolLocked(rg, cluster, name)
	if ap == nil {
		writeError(w, http.StatusNotFound, "NotFound", fmt.Sprintf("agent pool %s not found", name))
		return
	}
	var targets []*instance
	for _, n := range in.MachineNames {
		if n == nil {
			continue
		}
		var found *instance
		for _, m := range ap.live() {
			if strings.EqualFold(m.computerName, *n) {
				found = m
			}
		}
		if found == nil {
			writeError(w, http.StatusNotFound, "NotFound", fmt.Sprintf("machineNames: machine %s of agent pool %s not found", *n, name))
			return
		}
		targets = append(targets, found)
	}
	ap.version++
	op := &operation{aks: ap}
	for _, m := range targets {
		if m.deleteAt.IsZero() {
			m.deleteAt = now.Add(s.delDelay)
			s.noteDeletionLocked(&ap.pool, m, DeletionRequested, now)
			ap.count--
		}
		op.deletes = append(op.deletes, m)
	}
	s.startOperationLocked(w, r, op, http.StatusAccepted, nil)
}

func sortedPools(m map[string]*agentPool) []*agentPool {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]*agentPool, 0, len(keys))
	for _, k := range keys {
		out = append(out, m[k])
	}
	return out
}

func sortedScaleSets(m map[string]*scaleSet) []*scaleSet {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]*scaleSet, 0, len(keys))
	for _, k := range keys {
		out = append(out, m[k])
	}
	return out
}
