// Provider, the cloudprovider.CloudProvider: node groups, node lookup, pricing, GPU types.

package agentpool

import (
	"fmt"
	"sort"
	"strings"

	apiv1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/autoscaler/cluster-autoscaler/cloudprovider"
	"k8s.io/autoscaler/cluster-autoscaler/utils/errors"
	"k8s.io/autoscaler/cluster-autoscaler/utils/gpu"
)

// Provider is the cloudprovider.CloudProvider for Azure agent pools.
type Provider struct {
	m  *manager
	rl *cloudprovider.ResourceLimiter
}

var _ cloudprovider.CloudProvider = &Provider{}

// New builds the provider from a validated config and checks that every
// listed pool exists.
func New(cfg *Config, opts Options, rl *cloudprovider.ResourceLimiter) (*Provider, error) {
	m, err := newManager(cfg, opts)
	if err != nil {
		return nil, err
	}
	if err := m.start(); err != nil {
		m.stop()
		return nil, err
	}
	return &Provider{m: m, rl: rl}, nil
}

// Name returns the provider name.
func (p *Provider) Name() string { return ProviderName }

// NodeGroups returns the pools that may scale (max > 0).
func (p *Provider) NodeGroups() []cloudprovider.NodeGroup {
	var out []cloudprovider.NodeGroup
	for _, g := range p.m.list() {
		if g.maxSize > 0 {
			out = append(out, g)
		}
	}
	return out
}

// NodeGroupForNode maps a node to its pool by provider ID; nodes of no
// managed pool get nil.
func (p *Provider) NodeGroupForNode(node *apiv1.Node) (cloudprovider.NodeGroup, error) {
	g := p.groupFor(node)
	if g == nil {
		return nil, nil
	}
	return g, nil
}

func (p *Provider) groupFor(node *apiv1.Node) *nodeGroup {
	pid := strings.ToLower(node.Spec.ProviderID)
	if pid == "" {
		return nil
	}
	groups := p.m.list()
	// Scale set pools: the provider ID names the scale set.
	for _, g := range groups {
		if b, ok := g.be.(*scaleSetBackend); ok {
			prefix := strings.ToLower(fmt.Sprintf("/resourcegroups/%s/providers/microsoft.compute/virtualmachinescalesets/%s/virtualmachines/", b.resourceGroup, b.name))
			if strings.Contains(pid, prefix) {
				return g
			}
		}
	}
	// AKS pools: the machines list gives the provider IDs (their scale set
	// lives in the node resource group under a generated name).
	for _, g := range groups {
		if _, ok := g.be.(*agentPoolBackend); !ok {
			continue
		}
		if st, err := g.cached(false); err == nil {
			for _, v := range st.instances {
				if strings.ToLower(v.providerID) == pid {
					return g
				}
			}
		}
	}
	for _, g := range groups {
		if _, ok := g.be.(*agentPoolBackend); ok && g.hasInstance(pid) {
			return g
		}
	}
	// A machine already gone (a spot VM evicted under the Delete policy) is
	// in no list; AKS's label on its node still names the pool, so that
	// HasInstance can say it is gone.
	if name := node.Labels[AgentPoolLabel]; name != "" {
		for _, g := range groups {
			if b, ok := g.be.(*agentPoolBackend); ok && strings.EqualFold(b.name, name) && strings.Contains(pid, "/virtualmachinescalesets/") {
				return g
			}
		}
	}
	return nil
}

// HasInstance reports whether the node's instance still exists. For nodes of
// no managed pool it answers ErrNotImplemented: this provider cannot tell.
func (p *Provider) HasInstance(node *apiv1.Node) (bool, error) {
	g := p.groupFor(node)
	if g == nil {
		return true, cloudprovider.ErrNotImplemented
	}
	return g.hasInstance(node.Spec.ProviderID), nil
}

// Pricing returns the per-SKU price table model.
func (p *Provider) Pricing() (cloudprovider.PricingModel, errors.AutoscalerError) {
	return p.m.pricing, nil
}

// GetAvailableMachineTypes lists the VM sizes offered in the location.
func (p *Provider) GetAvailableMachineTypes() ([]string, error) {
	names := p.m.skus.names(p.m.ctx)
	sort.Strings(names)
	return names, nil
}

// NewNodeGroup is not implemented: no node auto-provisioning.
func (p *Provider) NewNodeGroup(machineType string, labels map[string]string, systemLabels map[string]string,
	taints []apiv1.Taint, extraResources map[string]resource.Quantity) (cloudprovider.NodeGroup, error) {
	return nil, cloudprovider.ErrNotImplemented
}

// GetResourceLimiter returns the limits from the upstream flags.
func (p *Provider) GetResourceLimiter() (*cloudprovider.ResourceLimiter, error) { return p.rl, nil }

// GPULabel is GPU Feature Discovery's product label, which template nodes
// carry and the scheduler reads.
func (p *Provider) GPULabel() string { return GPUProductLabel }

// GetAvailableGPUTypes lists the GPU products of the pools' sizes.
func (p *Provider) GetAvailableGPUTypes() map[string]struct{} {
	out := map[string]struct{}{}
	for _, g := range p.m.list() {
		st, err := g.cached(false)
		if err != nil {
			continue
		}
		if info, err := p.m.skus.lookup(p.m.ctx, st.sku); err == nil && info.GPUs > 0 {
			out[gpuModelFor(info.Name).product] = struct{}{}
		}
	}
	return out
}

// GetNodeGpuConfig reads the node's GPU product label and nvidia.com/gpu.
func (p *Provider) GetNodeGpuConfig(node *apiv1.Node) *cloudprovider.GpuConfig {
	return gpu.GetNodeGPUFromCloudProvider(p, node)
}

// Cleanup stops background work (operation watchers).
func (p *Provider) Cleanup() error {
	p.m.stop()
	return nil
}

// Refresh rediscovers pools when due and refreshes expired pool caches.
func (p *Provider) Refresh() error { return p.m.refresh() }
