// VM scale sets and their instances: creation, SDK models, capacity PATCH and deleteInstances.

package armlocal

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	azfake "github.com/Azure/azure-sdk-for-go/sdk/azcore/fake"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"
	computefake "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7/fake"
)

// ScaleSetSpec describes a scale set to create.
type ScaleSetSpec struct {
	ResourceGroup string
	Name          string
	SKU           string
	Capacity      int
	Tags          map[string]string
	Zones         []string
	// ProximityPlacementGroup is the PPG's name (in the same resource group).
	ProximityPlacementGroup string
	// ProvisioningDelay is how long this scale set's new instances stay
	// Creating (0: the server's ProvisioningDelay): GPU sizes boot slower.
	ProvisioningDelay time.Duration
	// Spot makes the scale set's VMs Azure Spot VMs (priority Spot).
	Spot *Spot
}

// Spot is a pool's spot settings.
type Spot struct {
	// EvictionPolicy is Delete or Deallocate; empty means Azure's default
	// (Deallocate for scale sets, Delete for AKS agent pools).
	EvictionPolicy string
	// MaxPrice in USD per hour; 0 or -1 means capacity-only eviction (-1).
	MaxPrice float64
}

func (sp *Spot) policy(def string) string {
	if sp.EvictionPolicy == "" {
		return def
	}
	return sp.EvictionPolicy
}

func (sp *Spot) maxPrice() float64 {
	if sp.MaxPrice == 0 {
		return -1
	}
	return sp.MaxPrice
}

// InstanceView is an instance as tests see it.
type InstanceView struct {
	ID           string // instance ID (scale sets) or machine name (agent pools)
	ComputerName string
	ProviderID   string
	State        string
	Zone         string // availability zone ("1", "2", ...); empty when the pool is not zonal
}

// AddScaleSet creates a scale set with Capacity instances already provisioned.
func (s *Server) AddScaleSet(spec ScaleSetSpec) error {
	if spec.ResourceGroup == "" || spec.Name == "" || spec.SKU == "" {
		return fmt.Errorf("scale set needs resourceGroup, name and sku: %+v", spec)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.skuLocked(spec.SKU); !ok {
		return fmt.Errorf("scale set %s: sku %s is not in the catalogue", spec.Name, spec.SKU)
	}
	key := strings.ToLower(spec.ResourceGroup + "/" + spec.Name)
	if _, ok := s.scaleSets[key]; ok {
		return fmt.Errorf("scale set %s/%s exists", spec.ResourceGroup, spec.Name)
	}
	if err := validSpot(spec.Spot); err != nil {
		return fmt.Errorf("scale set %s: %w", spec.Name, err)
	}
	ss := &scaleSet{pool: pool{resourceGroup: spec.ResourceGroup, name: spec.Name, sku: spec.SKU, tags: copyMap(spec.Tags), zones: spec.Zones, ppg: spec.ProximityPlacementGroup, provDelay: spec.ProvisioningDelay, spot: spec.Spot}}
	past := s.now().Add(-time.Minute)
	for i := 0; i < spec.Capacity; i++ {
		id := ss.nextID
		ss.nextID++
		ss.instances = append(ss.instances, &instance{id: id, computerName: computerName(spec.Name, id), created: past, readyAt: past})
	}
	ss.capacity = spec.Capacity
	s.scaleSets[key] = ss
	return nil
}

// ScaleSet returns a scale set's capacity and live instances.
func (s *Server) ScaleSet(resourceGroup, name string) (int, []InstanceView, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	s.settleLocked(now)
	ss, ok := s.scaleSets[strings.ToLower(resourceGroup+"/"+name)]
	if !ok {
		return 0, nil, false
	}
	var out []InstanceView
	for _, i := range ss.live() {
		out = append(out, InstanceView{ID: strconv.Itoa(i.id), ComputerName: i.computerName,
			ProviderID: "azure://" + s.vmID(ss.resourceGroup, ss.name, i.id), State: i.state(now), Zone: i.zone})
	}
	return ss.capacity, out, true
}

// CapacityWrites returns how many scale set updates that set a capacity the
// server has taken (those refused by an injected fault not counted); other
// updates (tags only) are not capacity writes.
func (s *Server) CapacityWrites() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.capacityWrites
}

// ScaleSetCapacityWrites returns how many updates that set a capacity one
// scale set has taken (0 for a scale set it does not have).
func (s *Server) ScaleSetCapacityWrites(resourceGroup, name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss, ok := s.scaleSets[strings.ToLower(resourceGroup+"/"+name)]; ok {
		return ss.capacityWrites
	}
	return 0
}

// ScaleSetTags returns a scale set's tags.
func (s *Server) ScaleSetTags(resourceGroup, name string) map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.scaleSets[strings.ToLower(resourceGroup+"/"+name)]
	if !ok {
		return nil
	}
	return copyMap(ss.tags)
}

// SetScaleSetTag sets one tag of a scale set, as an operator editing it
// does (min and max of an auto-discovered pool are tags).
func (s *Server) SetScaleSetTag(resourceGroup, name, key, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.scaleSets[strings.ToLower(resourceGroup+"/"+name)]
	if !ok {
		return fmt.Errorf("scale set %s/%s not found", resourceGroup, name)
	}
	ss.tags[key] = value
	return nil
}

func (s *Server) vmssID(rg, name string) string {
	return fmt.Sprintf("/subscriptions/%s/resourceGroups/%s/providers/Microsoft.Compute/virtualMachineScaleSets/%s", s.opts.SubscriptionID, rg, name)
}

func (s *Server) vmID(rg, vmss string, id int) string {
	return fmt.Sprintf("%s/virtualMachines/%d", s.vmssID(rg, vmss), id)
}

func (s *Server) ppgRef(rg, ppg string) *armcompute.SubResource {
	if ppg == "" {
		return nil
	}
	return &armcompute.SubResource{ID: to.Ptr(fmt.Sprintf("/subscriptions/%s/resourceGroups/%s/providers/Microsoft.Compute/proximityPlacementGroups/%s", s.opts.SubscriptionID, rg, ppg))}
}

func (s *Server) scaleSetModelLocked(ss *scaleSet, now time.Time) armcompute.VirtualMachineScaleSet {
	state := StateSucceeded
	for _, i := range ss.live() {
		if st := i.state(now); st == StateCreating || st == StateDeleting {
			state = "Updating"
		}
	}
	var profile *armcompute.VirtualMachineScaleSetVMProfile
	if ss.spot != nil {
		profile = &armcompute.VirtualMachineScaleSetVMProfile{
			Priority:       to.Ptr(armcompute.VirtualMachinePriorityTypesSpot),
			EvictionPolicy: to.Ptr(armcompute.VirtualMachineEvictionPolicyTypes(ss.spot.policy(EvictDeallocate))),
			BillingProfile: &armcompute.BillingProfile{MaxPrice: to.Ptr(ss.spot.maxPrice())},
		}
	}
	return armcompute.VirtualMachineScaleSet{
		ID:       to.Ptr(s.vmssID(ss.resourceGroup, ss.name)),
		Name:     to.Ptr(ss.name),
		Type:     to.Ptr("Microsoft.Compute/virtualMachineScaleSets"),
		Location: to.Ptr(s.opts.Location),
		Tags:     ptrMap(ss.tags),
		Zones:    to.SliceOfPtrs(ss.zones...),
		SKU:      &armcompute.SKU{Name: to.Ptr(ss.sku), Tier: to.Ptr("Standard"), Capacity: to.Ptr(int64(ss.capacity))},
		Properties: &armcompute.VirtualMachineScaleSetProperties{
			ProvisioningState:       to.Ptr(state),
			ProximityPlacementGroup: s.ppgRef(ss.resourceGroup, ss.ppg),
			Overprovision:           to.Ptr(false),
			OrchestrationMode:       to.Ptr(armcompute.OrchestrationModeUniform),
			VirtualMachineProfile:   profile,
		},
	}
}

func (s *Server) vmModelLocked(rg, vmss, sku string, i *instance, now time.Time, expand bool) *armcompute.VirtualMachineScaleSetVM {
	st := i.state(now)
	vm := &armcompute.VirtualMachineScaleSetVM{
		ID:         to.Ptr(s.vmID(rg, vmss, i.id)),
		Name:       to.Ptr(fmt.Sprintf("%s_%d", vmss, i.id)),
		InstanceID: to.Ptr(strconv.Itoa(i.id)),
		Type:       to.Ptr("Microsoft.Compute/virtualMachineScaleSets/virtualMachines"),
		Location:   to.Ptr(s.opts.Location),
		SKU:        &armcompute.SKU{Name: to.Ptr(sku), Tier: to.Ptr("Standard")},
		Properties: &armcompute.VirtualMachineScaleSetVMProperties{
			ProvisioningState: to.Ptr(st),
			OSProfile:         &armcompute.OSProfile{ComputerName: to.Ptr(i.computerName)},
		},
	}
	if i.zone != "" {
		vm.Zones = []*string{to.Ptr(i.zone)}
	}
	if expand {
		iv := &armcompute.VirtualMachineScaleSetVMInstanceView{ComputerName: to.Ptr(i.computerName)}
		iv.Statuses = append(iv.Statuses, &armcompute.InstanceViewStatus{
			Code: to.Ptr("ProvisioningState/" + strings.ToLower(st)), Level: to.Ptr(armcompute.StatusLevelTypesInfo), DisplayStatus: to.Ptr("Provisioning " + strings.ToLower(st)),
		})
		if st == StateFailed {
			iv.Statuses[0].Code = to.Ptr("ProvisioningState/failed/" + i.failCode)
			iv.Statuses[0].Level = to.Ptr(armcompute.StatusLevelTypesError)
			iv.Statuses[0].Message = to.Ptr(i.failMessage)
		}
		if st == StateSucceeded {
			power := "running"
			if i.deallocated {
				power = "deallocated"
			}
			iv.Statuses = append(iv.Statuses, &armcompute.InstanceViewStatus{
				Code: to.Ptr("PowerState/" + power), Level: to.Ptr(armcompute.StatusLevelTypesInfo), DisplayStatus: to.Ptr("VM " + power),
			})
		}
		vm.Properties.InstanceView = iv
	}
	return vm
}

func (s *Server) computeFakes() *computefake.ServerFactory {
	return &computefake.ServerFactory{
		VirtualMachineScaleSetsServer: computefake.VirtualMachineScaleSetsServer{
			Get: func(ctx context.Context, rg, name string, _ *armcompute.VirtualMachineScaleSetsClientGetOptions) (resp azfake.Responder[armcompute.VirtualMachineScaleSetsClientGetResponse], errResp azfake.ErrorResponder) {
				s.mu.Lock()
				defer s.mu.Unlock()
				now := s.now()
				s.settleLocked(now)
				ss, ok := s.scaleSets[strings.ToLower(rg+"/"+name)]
				if !ok {
					errResp.SetResponseError(http.StatusNotFound, "ResourceNotFound")
					return
				}
				resp.SetResponse(http.StatusOK, armcompute.VirtualMachineScaleSetsClientGetResponse{VirtualMachineScaleSet: s.scaleSetModelLocked(ss, now)}, nil)
				return
			},
			NewListPager: func(rg string, _ *armcompute.VirtualMachineScaleSetsClientListOptions) (resp azfake.PagerResponder[armcompute.VirtualMachineScaleSetsClientListResponse]) {
				s.mu.Lock()
				defer s.mu.Unlock()
				now := s.now()
				s.settleLocked(now)
				var list []*armcompute.VirtualMachineScaleSet
				for _, ss := range sortedScaleSets(s.scaleSets) {
					if strings.EqualFold(ss.resourceGroup, rg) {
						m := s.scaleSetModelLocked(ss, now)
						list = append(list, &m)
					}
				}
				resp.AddPage(http.StatusOK, armcompute.VirtualMachineScaleSetsClientListResponse{VirtualMachineScaleSetListResult: armcompute.VirtualMachineScaleSetListResult{Value: list}}, nil)
				return
			},
		},
		VirtualMachineScaleSetVMsServer: computefake.VirtualMachineScaleSetVMsServer{
			NewListPager: func(rg, name string, opts *armcompute.VirtualMachineScaleSetVMsClientListOptions) (resp azfake.PagerResponder[armcompute.VirtualMachineScaleSetVMsClientListResponse]) {
				s.mu.Lock()
				defer s.mu.Unlock()
				now := s.now()
				s.settleLocked(now)
				expand := opts != nil && opts.Expand != nil && strings.EqualFold(*opts.Expand, "instanceView")
				var list []*armcompute.VirtualMachineScaleSetVM
				if ss, ok := s.scaleSets[strings.ToLower(rg+"/"+name)]; ok {
					for _, i := range ss.live() {
						list = append(list, s.vmModelLocked(ss.resourceGroup, ss.name, ss.sku, i, now, expand))
					}
				} else if ap := s.agentPoolByScaleSetLocked(rg, name); ap != nil {
					// An agent pool's machines are the VMs of a scale set in
					// the cluster's node resource group.
					for _, i := range ap.live() {
						list = append(list, s.vmModelLocked(ap.nodeRG, ap.vmssName, ap.sku, i, now, expand))
					}
				} else {
					resp.AddResponseError(http.StatusNotFound, "ResourceNotFound")
					return
				}
				resp.AddPage(http.StatusOK, armcompute.VirtualMachineScaleSetVMsClientListResponse{VirtualMachineScaleSetVMListResult: armcompute.VirtualMachineScaleSetVMListResult{Value: list}}, nil)
				return
			},
		},
		ResourceSKUsServer: computefake.ResourceSKUsServer{
			NewListPager: func(_ *armcompute.ResourceSKUsClientListOptions) (resp azfake.PagerResponder[armcompute.ResourceSKUsClientListResponse]) {
				s.mu.Lock()
				defer s.mu.Unlock()
				var list []*armcompute.ResourceSKU
				for _, k := range s.skus {
					list = append(list, s.resourceSKU(k))
				}
				resp.AddPage(http.StatusOK, armcompute.ResourceSKUsClientListResponse{ResourceSKUsResult: armcompute.ResourceSKUsResult{Value: list}}, nil)
				return
			},
		},
		UsageServer: computefake.UsageServer{
			NewListPager: func(location string, _ *armcompute.UsageClientListOptions) (resp azfake.PagerResponder[armcompute.UsageClientListResponse]) {
				s.mu.Lock()
				defer s.mu.Unlock()
				if !strings.EqualFold(location, s.opts.Location) {
					resp.AddPage(http.StatusOK, armcompute.UsageClientListResponse{}, nil)
					return
				}
				now := s.now()
				s.settleLocked(now)
				per, total := s.usageLocked(now)
				list := []*armcompute.Usage{{
					Name:         &armcompute.UsageName{Value: to.Ptr("cores"), LocalizedValue: to.Ptr("Total Regional vCPUs")},
					CurrentValue: to.Ptr(int32(total)), Limit: to.Ptr(int64(s.regional)), Unit: to.Ptr("Count"),
				}}
				seen := map[string]bool{}
				for _, k := range s.skus {
					f := strings.ToLower(k.Family)
					if seen[f] {
						continue
					}
					seen[f] = true
					list = append(list, &armcompute.Usage{
						Name:         &armcompute.UsageName{Value: to.Ptr(k.Family), LocalizedValue: to.Ptr(k.Family + " vCPUs")},
						CurrentValue: to.Ptr(int32(per[f])), Limit: to.Ptr(int64(s.familyLimitLocked(k.Family))), Unit: to.Ptr("Count"),
					})
				}
				resp.AddPage(http.StatusOK, armcompute.UsageClientListResponse{ListUsagesResult: armcompute.ListUsagesResult{Value: list}}, nil)
				return
			},
		},
	}
}

func (s *Server) resourceSKU(k SKU) *armcompute.ResourceSKU {
	arch := k.Arch
	if arch == "" {
		arch = "x64"
	}
	caps := []*armcompute.ResourceSKUCapabilities{
		{Name: to.Ptr("vCPUs"), Value: to.Ptr(strconv.Itoa(k.VCPUs))},
		{Name: to.Ptr("MemoryGB"), Value: to.Ptr(strconv.FormatFloat(k.MemoryGB, 'f', -1, 64))},
		{Name: to.Ptr("CpuArchitectureType"), Value: to.Ptr(arch)},
		{Name: to.Ptr("HyperVGenerations"), Value: to.Ptr("V1,V2")},
	}
	if k.GPUs > 0 {
		caps = append(caps, &armcompute.ResourceSKUCapabilities{Name: to.Ptr("GPUs"), Value: to.Ptr(strconv.Itoa(k.GPUs))})
	}
	return &armcompute.ResourceSKU{
		Name: to.Ptr(k.Name), Tier: to.Ptr("Standard"), Size: to.Ptr(strings.TrimPrefix(k.Name, "Standard_")),
		Family: to.Ptr(k.Family), ResourceType: to.Ptr("virtualMachines"),
		Locations:    []*string{to.Ptr(s.opts.Location)},
		LocationInfo: []*armcompute.ResourceSKULocationInfo{{Location: to.Ptr(s.opts.Location), Zones: to.SliceOfPtrs(k.Zones...)}},
		Capabilities: caps,
	}
}

// scaleSetUpdate is PATCH on a scale set: only sku.capacity and tags are
// honoured. A capacity increase adds instances (quota permitting); a decrease
// removes the newest instances, as a scale set without a scale-in policy does.
func (s *Server) scaleSetUpdate(w http.ResponseWriter, r *http.Request, rg, name string) {
	var upd armcompute.VirtualMachineScaleSetUpdate
	if err := decodeBody(r, &upd); err != nil {
		writeError(w, http.StatusBadRequest, "InvalidRequestContent", err.Error())
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	s.settleLocked(now)
	ss, ok := s.scaleSets[strings.ToLower(rg+"/"+name)]
	if !ok {
		writeError(w, http.StatusNotFound, "ResourceNotFound", fmt.Sprintf("The Resource 'Microsoft.Compute/virtualMachineScaleSets/%s' under resource group '%s' was not found.", name, rg))
		return
	}
	if upd.Tags != nil {
		// ARM replaces a resource's tags with those a write sends.
		ss.tags = map[string]string{}
		for k, v := range upd.Tags {
			if v != nil {
				ss.tags[k] = *v
			}
		}
	}
	op := &operation{pool: &ss.pool}
	if upd.SKU != nil && upd.SKU.Capacity != nil {
		s.capacityWrites++
		ss.capacityWrites++
		want := int(*upd.SKU.Capacity)
		if want < 0 {
			writeError(w, http.StatusBadRequest, "InvalidParameter", "sku.capacity must not be negative")
			return
		}
		switch {
		case want > ss.capacity:
			if msg, ok := s.checkQuotaLocked(now, ss.sku, want-ss.capacity); !ok {
				writeError(w, http.StatusConflict, "OperationNotAllowed", msg)
				return
			}
			s.preemptLocked(&ss.pool, now)
			op.creates = s.addInstancesLocked(now, &ss.pool, ss.name, want-ss.capacity)
		case want < ss.capacity:
			op.deletes = s.retireNewestLocked(&ss.pool, ss.capacity-want, now)
		}
		ss.capacity = want
	}
	model := s.scaleSetModelLocked(ss, now)
	if len(op.creates)+len(op.deletes) > 0 {
		// The operation is under way until the async status says otherwise.
		model.Properties.ProvisioningState = to.Ptr("Updating")
	}
	s.startOperationLocked(w, r, op, http.StatusOK, model)
}

// scaleSetDeleteInstances deletes exactly the named instances and lowers the
// capacity by as many.
func (s *Server) scaleSetDeleteInstances(w http.ResponseWriter, r *http.Request, rg, name string) {
	var ids armcompute.VirtualMachineScaleSetVMInstanceRequiredIDs
	if err := decodeBody(r, &ids); err != nil {
		writeError(w, http.StatusBadRequest, "InvalidRequestContent", err.Error())
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	s.settleLocked(now)
	ss, ok := s.scaleSets[strings.ToLower(rg+"/"+name)]
	if !ok {
		writeError(w, http.StatusNotFound, "ResourceNotFound", fmt.Sprintf("scale set %s/%s not found", rg, name))
		return
	}
	var targets []*instance
	for _, p := range ids.InstanceIDs {
		if p == nil {
			continue
		}
		id, err := strconv.Atoi(*p)
		if err != nil {
			writeError(w, http.StatusBadRequest, "InvalidParameter", fmt.Sprintf("instanceIds: %q is not an instance ID", *p))
			return
		}
		inst := ss.find(id)
		if inst == nil {
			writeError(w, http.StatusNotFound, "NotFound", fmt.Sprintf("instanceIds: instance %d of scale set %s not found", id, name))
			return
		}
		targets = append(targets, inst)
	}
	op := &operation{}
	for _, inst := range targets {
		if inst.deleteAt.IsZero() {
			inst.deleteAt = now.Add(s.delDelay)
			s.noteDeletionLocked(&ss.pool, inst, DeletionRequested, now)
			ss.capacity--
		}
		op.deletes = append(op.deletes, inst)
	}
	s.startOperationLocked(w, r, op, http.StatusAccepted, nil)
}

func copyMap(m map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

func ptrMap(m map[string]string) map[string]*string {
	out := map[string]*string{}
	for k, v := range m {
		out[k] = to.Ptr(v)
	}
	return out
}
