// The backend interface over the two pool kinds, VM scale sets and AKS agent pools, via the SDK.

package agentpool

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"
	apiv1 "k8s.io/api/core/v1"
	"k8s.io/autoscaler/cluster-autoscaler/cloudprovider"
)

// vm is one instance of a pool as Azure reports it.
type vm struct {
	key        string // scale set instance ID, or AKS machine name
	providerID string // azure:///subscriptions/.../virtualMachines/<id>
	state      cloudprovider.InstanceState
	failCode   string // set when provisioning failed
	failMsg    string
	// deallocated: the VM is stopped and deallocated, as Azure leaves a
	// reclaimed spot VM whose eviction policy is Deallocate.
	deallocated bool
}

// poolState is a pool as Azure reports it.
type poolState struct {
	size     int
	sku      string
	location string
	zones    []string
	ppg      string // proximity placement group name, or ""
	tags     map[string]string
	labels   map[string]string // AKS node labels
	taints   []apiv1.Taint     // AKS node taints
	maxPods  int
	mode     string // AKS: System or User
	// spot: the pool's VMs are Azure Spot VMs, reclaimable at any time.
	spot           bool
	evictionPolicy string  // spot: Delete or Deallocate
	maxPrice       float64 // spot: USD per hour, -1 for capacity-only eviction
	instances      []vm
}

// lro is a started long-running operation.
type lro interface {
	Done() bool
	Poll(ctx context.Context) (*http.Response, error)
	Result(ctx context.Context) error
}

type poller[T any] struct{ p *runtime.Poller[T] }

func (p poller[T]) Done() bool                                       { return p.p.Done() }
func (p poller[T]) Poll(ctx context.Context) (*http.Response, error) { return p.p.Poll(ctx) }
func (p poller[T]) Result(ctx context.Context) error                 { _, err := p.p.Result(ctx); return err }

// backend is one kind of Azure pool, driven through the real SDK clients.
type backend interface {
	get(ctx context.Context) (*poolState, error)
	// setSize writes a new size, and the pool's whole tag set when tags is
	// not nil, in one write.
	setSize(ctx context.Context, st *poolState, size int, tags map[string]string) (lro, error)
	// setTags writes the pool's whole tag set and nothing else.
	setTags(ctx context.Context, st *poolState, tags map[string]string) (lro, error)
	deleteInstances(ctx context.Context, keys []string) (lro, error)
	describe() string
}

// normalizeProviderID lower-cases the resource group segment, as kubelet's
// Azure provider IDs have it, so that instances match registered nodes.
func normalizeProviderID(resourceID string) string {
	id := "azure://" + resourceID
	parts := strings.Split(id, "/")
	for i := 0; i+1 < len(parts); i++ {
		if strings.EqualFold(parts[i], "resourceGroups") {
			parts[i+1] = strings.ToLower(parts[i+1])
		}
	}
	return strings.Join(parts, "/")
}

func lastSegment(id string) string {
	if i := strings.LastIndex(id, "/"); i >= 0 {
		return id[i+1:]
	}
	return id
}

// scaleSetBackend is a VM scale set pool (acs-engine, aks-engine, Cluster API).
type scaleSetBackend struct {
	c             *clients
	resourceGroup string
	name          string
}

func (b *scaleSetBackend) describe() string {
	return fmt.Sprintf("scale set %s/%s", b.resourceGroup, b.name)
}

func (b *scaleSetBackend) get(ctx context.Context) (*poolState, error) {
	ss, err := b.c.scaleSets.Get(ctx, b.resourceGroup, b.name, nil)
	if err != nil {
		return nil, err
	}
	st := &poolState{tags: map[string]string{}}
	if ss.SKU == nil || ss.SKU.Name == nil || ss.SKU.Capacity == nil {
		return nil, fmt.Errorf("%s: sku.name or sku.capacity missing in Azure's answer", b.describe())
	}
	st.sku, st.size = *ss.SKU.Name, int(*ss.SKU.Capacity)
	if ss.Location != nil {
		st.location = *ss.Location
	}
	for _, z := range ss.Zones {
		if z != nil {
			st.zones = append(st.zones, *z)
		}
	}
	for k, v := range ss.Tags {
		if v != nil {
			st.tags[k] = *v
		}
	}
	if ss.Properties != nil && ss.Properties.ProximityPlacementGroup != nil && ss.Properties.ProximityPlacementGroup.ID != nil {
		st.ppg = lastSegment(*ss.Properties.ProximityPlacementGroup.ID)
	}
	if ss.Properties != nil && ss.Properties.VirtualMachineProfile != nil {
		vp := ss.Properties.VirtualMachineProfile
		// "Low" is the older name of Spot.
		if vp.Priority != nil && (*vp.Priority == armcompute.VirtualMachinePriorityTypesSpot || *vp.Priority == armcompute.VirtualMachinePriorityTypesLow) {
			st.spot, st.evictionPolicy, st.maxPrice = true, string(armcompute.VirtualMachineEvictionPolicyTypesDeallocate), -1
			if vp.EvictionPolicy != nil {
				st.evictionPolicy = string(*vp.EvictionPolicy)
			}
			if vp.BillingProfile != nil && vp.BillingProfile.MaxPrice != nil {
				st.maxPrice = *vp.BillingProfile.MaxPrice
			}
		}
	}
	pager := b.c.vms.NewListPager(b.resourceGroup, b.name, &armcompute.VirtualMachineScaleSetVMsClientListOptions{Expand: to.Ptr("instanceView")})
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, v := range page.Value {
			if v == nil || v.ID == nil || v.InstanceID == nil {
				continue
			}
			st.instances = append(st.instances, scaleSetVM(v))
		}
	}
	return st, nil
}

func scaleSetVM(v *armcompute.VirtualMachineScaleSetVM) vm {
	out := vm{key: *v.InstanceID, providerID: normalizeProviderID(*v.ID), state: cloudprovider.InstanceRunning}
	ps := ""
	if v.Properties != nil && v.Properties.ProvisioningState != nil {
		ps = strings.ToLower(*v.Properties.ProvisioningState)
	}
	switch ps {
	case "creating":
		out.state = cloudprovider.InstanceCreating
	case "deleting":
		out.state = cloudprovider.InstanceDeleting
	case "failed":
		out.state = cloudprovider.InstanceCreating
		out.failCode, out.failMsg = "ProvisioningFailed", "provisioning state Failed"
		if v.Properties.InstanceView != nil {
			for _, s := range v.Properties.InstanceView.Statuses {
				if s == nil || s.Code == nil {
					continue
				}
				if rest, ok := strings.CutPrefix(*s.Code, "ProvisioningState/failed/"); ok {
					out.failCode = rest
					if s.Message != nil {
						out.failMsg = *s.Message
					}
				}
			}
		}
	}
	if ps == "succeeded" && v.Properties.InstanceView != nil {
		for _, s := range v.Properties.InstanceView.Statuses {
			if s != nil && s.Code != nil && strings.EqualFold(*s.Code, "PowerState/deallocated") {
				out.deallocated = true
			}
		}
	}
	return out
}

func (b *scaleSetBackend) setSize(ctx context.Context, st *poolState, size int, tags map[string]string) (lro, error) {
	upd := armcompute.VirtualMachineScaleSetUpdate{SKU: &armcompute.SKU{Name: to.Ptr(st.sku), Capacity: to.Ptr(int64(size))}}
	if tags != nil {
		upd.Tags = ptrTags(tags)
	}
	p, err := b.c.scaleSets.BeginUpdate(ctx, b.resourceGroup, b.name, upd, nil)
	if err != nil {
		return nil, err
	}
	return poller[armcompute.VirtualMachineScaleSetsClientUpdateResponse]{p}, nil
}

func (b *scaleSetBackend) setTags(ctx context.Context, _ *poolState, tags map[string]string) (lro, error) {
	p, err := b.c.scaleSets.BeginUpdate(ctx, b.resourceGroup, b.name, armcompute.VirtualMachineScaleSetUpdate{Tags: ptrTags(tags)}, nil)
	if err != nil {
		return nil, err
	}
	return poller[armcompute.VirtualMachineScaleSetsClientUpdateResponse]{p}, nil
}

// ptrTags is a tag set as the SDK takes it; ARM replaces a resource's tags
// with what a write sends.
func ptrTags(tags map[string]string) map[string]*string {
	out := make(map[string]*string, len(tags))
	for k, v := range tags {
		out[k] = to.Ptr(v)
	}
	return out
}

func (b *scaleSetBackend) deleteInstances(ctx context.Context, keys []string) (lro, error) {
	p, err := b.c.scaleSets.BeginDeleteInstances(ctx, b.resourceGroup, b.name,
		armcompute.VirtualMachineScaleSetVMInstanceRequiredIDs{InstanceIDs: to.SliceOfPtrs(keys...)}, nil)
	if err != nil {
		return nil, err
	}
	return poller[armcompute.VirtualMachineScaleSetsClientDeleteInstancesResponse]{p}, nil
}

// agentPoolBackend is an AKS managed cluster agent pool.
type agentPoolBackend struct {
	c             *clients
	resourceGroup string
	cluster       string
	name          string
	location      string
	// raw is the last agent pool read, written back with a new count so that
	// no other property changes.
	mu  sync.Mutex
	raw *armcontainerservice.AgentPool
}

func (b *agentPoolBackend) describe() string {
	return fmt.Sprintf("agent pool %s of managed cluster %s/%s", b.name, b.resourceGroup, b.cluster)
}

func (b *agentPoolBackend) get(ctx context.Context) (*poolState, error) {
	ap, err := b.c.pools.Get(ctx, b.resourceGroup, b.cluster, b.name, nil)
	if err != nil {
		return nil, err
	}
	p := ap.Properties
	if p == nil || p.Count == nil || p.VMSize == nil {
		return nil, fmt.Errorf("%s: properties.count or properties.vmSize missing in Azure's answer", b.describe())
	}
	st := &poolState{size: int(*p.Count), sku: *p.VMSize, location: b.location, tags: map[string]string{}, labels: map[string]string{}}
	for _, z := range p.AvailabilityZones {
		if z != nil {
			st.zones = append(st.zones, *z)
		}
	}
	for k, v := range p.Tags {
		if v != nil {
			st.tags[k] = *v
		}
	}
	for k, v := range p.NodeLabels {
		if v != nil {
			st.labels[k] = *v
		}
	}
	for _, t := range p.NodeTaints {
		if t == nil {
			continue
		}
		taint, err := parseTaint(*t)
		if err != nil {
			return nil, fmt.Errorf("%s: properties.nodeTaints: %w", b.describe(), err)
		}
		st.taints = append(st.taints, taint)
	}
	if p.MaxPods != nil {
		st.maxPods = int(*p.MaxPods)
	}
	if p.Mode != nil {
		st.mode = string(*p.Mode)
	}
	if p.ProximityPlacementGroupID != nil {
		st.ppg = lastSegment(*p.ProximityPlacementGroupID)
	}
	if p.ScaleSetPriority != nil && *p.ScaleSetPriority == armcontainerservice.ScaleSetPrioritySpot {
		st.spot, st.evictionPolicy, st.maxPrice = true, string(armcontainerservice.ScaleSetEvictionPolicyDelete), -1
		if p.ScaleSetEvictionPolicy != nil {
			st.evictionPolicy = string(*p.ScaleSetEvictionPolicy)
		}
		if p.SpotMaxPrice != nil {
			st.maxPrice = float64(*p.SpotMaxPrice)
		}
	}
	pager := b.c.machines.NewListPager(b.resourceGroup, b.cluster, b.name, nil)
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, m := range page.Value {
			if m == nil || m.Name == nil || m.Properties == nil || m.Properties.ResourceID == nil {
				continue
			}
			st.instances = append(st.instances, vm{key: *m.Name, providerID: normalizeProviderID(*m.Properties.ResourceID), state: cloudprovider.InstanceRunning})
		}
	}
	if err := b.machineStates(ctx, st.instances); err != nil {
		return nil, err
	}
	raw := ap.AgentPool
	b.mu.Lock()
	b.raw = &raw
	b.mu.Unlock()
	return st, nil
}

// machineStates fills in the machines' provisioning states, which the
// Machines API does not report, from the VMs of the scale sets in the node
// resource group that their resource IDs name: a machine being created is
// Creating (so the core waits for it and a withdrawal can take it back),
// one that failed carries its error.
func (b *agentPoolBackend) machineStates(ctx context.Context, machines []vm) error {
	type scaleSetRef struct{ rg, name string }
	byID := map[string]vm{}
	listed := map[scaleSetRef]bool{}
	for _, m := range machines {
		rg, vmss, ok := scaleSetOfVM(m.providerID)
		if !ok || listed[scaleSetRef{rg, vmss}] {
			continue
		}
		listed[scaleSetRef{rg, vmss}] = true
		pager := b.c.vms.NewListPager(rg, vmss, &armcompute.VirtualMachineScaleSetVMsClientListOptions{Expand: to.Ptr("instanceView")})
		for pager.More() {
			page, err := pager.NextPage(ctx)
			if err != nil {
				return fmt.Errorf("%s: listing the VMs of scale set %s/%s behind its machines: %w", b.describe(), rg, vmss, err)
			}
			for _, v := range page.Value {
				if v != nil && v.ID != nil && v.InstanceID != nil {
					sv := scaleSetVM(v)
					byID[strings.ToLower(sv.providerID)] = sv
				}
			}
		}
	}
	for i, m := range machines {
		if v, ok := byID[strings.ToLower(m.providerID)]; ok {
			machines[i].state, machines[i].failCode, machines[i].failMsg, machines[i].deallocated = v.state, v.failCode, v.failMsg, v.deallocated
		}
	}
	return nil
}

// scaleSetOfVM parses a scale set VM's provider ID
// (azure:///subscriptions/.../resourceGroups/RG/providers/Microsoft.Compute/virtualMachineScaleSets/VMSS/virtualMachines/ID).
func scaleSetOfVM(providerID string) (rg, vmss string, ok bool) {
	parts := strings.Split(strings.TrimPrefix(providerID, "azure://"), "/")
	for i := 0; i+1 < len(parts); i++ {
		switch strings.ToLower(parts[i]) {
		case "resourcegroups":
			rg = parts[i+1]
		case "virtualmachinescalesets":
			vmss = parts[i+1]
		}
	}
	return rg, vmss, rg != "" && vmss != ""
}

// setSize writes the pool back with a new count, on condition that nobody
// changed it since it was read (If-Match with its ETag): two writers cannot
// overwrite each other's count. A conflict is a 412 the caller retries from
// a fresh read.
func (b *agentPoolBackend) setSize(ctx context.Context, _ *poolState, size int, tags map[string]string) (lro, error) {
	return b.put(ctx, &size, tags)
}

func (b *agentPoolBackend) setTags(ctx context.Context, _ *poolState, tags map[string]string) (lro, error) {
	return b.put(ctx, nil, tags)
}

// put writes the pool back as last read, with a new count and tags where
// given.
func (b *agentPoolBackend) put(ctx context.Context, size *int, tags map[string]string) (lro, error) {
	b.mu.Lock()
	raw := b.raw
	b.mu.Unlock()
	if raw == nil {
		return nil, fmt.Errorf("%s: not read yet", b.describe())
	}
	ap := *raw
	props := *ap.Properties
	if size != nil {
		props.Count = to.Ptr(int32(*size))
	}
	if tags != nil {
		props.Tags = ptrTags(tags)
	}
	// Read-only fields are not sent back.
	props.ProvisioningState, props.PowerState = nil, nil
	ap.Properties = &props
	var opts *armcontainerservice.AgentPoolsClientBeginCreateOrUpdateOptions
	if props.ETag != nil {
		opts = &armcontainerservice.AgentPoolsClientBeginCreateOrUpdateOptions{IfMatch: props.ETag}
	}
	props.ETag = nil
	p, err := b.c.pools.BeginCreateOrUpdate(ctx, b.resourceGroup, b.cluster, b.name, ap, opts)
	if err != nil {
		return nil, err
	}
	return poller[armcontainerservice.AgentPoolsClientCreateOrUpdateResponse]{p}, nil
}

func (b *agentPoolBackend) deleteInstances(ctx context.Context, keys []string) (lro, error) {
	p, err := b.c.pools.BeginDeleteMachines(ctx, b.resourceGroup, b.cluster, b.name,
		armcontainerservice.AgentPoolDeleteMachinesParameter{MachineNames: to.SliceOfPtrs(keys...)}, nil)
	if err != nil {
		return nil, err
	}
	return poller[armcontainerservice.AgentPoolsClientDeleteMachinesResponse]{p}, nil
}
