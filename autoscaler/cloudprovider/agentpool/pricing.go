// The PricingModel: per-SKU hourly prices for nodes, unit prices for pods' requests.

package agentpool

import (
	"fmt"
	"strings"
	"time"

	apiv1 "k8s.io/api/core/v1"
	"k8s.io/autoscaler/cluster-autoscaler/cloudprovider"
	"k8s.io/klog/v2"
)

// defaultPrices are approximate pay-as-you-go Linux prices (USD per hour,
// West Europe) of common sizes; the cloud-config's prices and pricesFile
// override and extend them.
var defaultPrices = map[string]float64{
	"standard_d4s_v5":           0.192,
	"standard_d8s_v5":           0.384,
	"standard_d16s_v5":          0.768,
	"standard_d32s_v5":          1.536,
	"standard_nc4as_t4_v3":      0.526,
	"standard_nc64as_t4_v3":     4.352,
	"standard_nc6s_v3":          3.06,
	"standard_nc24s_v3":         12.24,
	"standard_nv36ads_a10_v5":   3.20,
	"standard_nc24ads_a100_v4":  3.673,
	"standard_nc96ads_a100_v4":  14.692,
	"standard_nc40ads_h100_v5":  6.98,
	"standard_nd40rs_v2":        22.032,
	"standard_nd96asr_v4":       27.197,
	"standard_nd96amsr_a100_v4": 32.77,
	"standard_nd96isr_h100_v5":  98.32,
	"standard_nd96isr_h200_v5":  110.24,
}

// defaultUnitPrices price requests and unknown sizes: roughly what a vCPU,
// a GiB and a GPU cost on general-purpose and GPU sizes.
var defaultUnitPrices = UnitPrices{CPU: 0.033, MemoryGB: 0.004, GPU: 3.0}

// pricing is the PricingModel: node prices from the per-SKU hourly table
// (so the price expander prefers CPU and light-GPU pools when they suffice),
// pod prices from unit prices of their requests.
type pricing struct {
	prices map[string]float64 // lower-case SKU -> USD/hour
	units  UnitPrices
}

func newPricing(c *Config) *pricing {
	p := &pricing{prices: map[string]float64{}, units: defaultUnitPrices}
	for k, v := range defaultPrices {
		p.prices[k] = v
	}
	for k, v := range c.Prices {
		p.prices[strings.ToLower(k)] = v
	}
	if c.UnitPrices != nil {
		p.units = *c.UnitPrices
	}
	return p
}

var _ cloudprovider.PricingModel = &pricing{}

func hours(start, end time.Time) float64 {
	if end.Before(start) {
		return 0
	}
	return end.Sub(start).Hours()
}

// NodePrice is the SKU's hourly price times the hours; a size missing from
// the table is priced from its resources (logged once per call site).
func (p *pricing) NodePrice(node *apiv1.Node, start, end time.Time) (float64, error) {
	sku := node.Labels[InstanceTypeLabel]
	if sku == "" {
		sku = node.Labels[BetaInstanceTypeLabel]
	}
	if price, ok := p.prices[strings.ToLower(sku)]; ok {
		return price * hours(start, end), nil
	}
	if sku == "" && len(node.Status.Capacity) == 0 {
		return 0, fmt.Errorf("node %s: no %s label and no capacity to price it by", node.Name, InstanceTypeLabel)
	}
	klog.V(4).InfoS("No price for SKU; estimating from capacity", "node", node.Name, "sku", sku)
	return p.resourcesPrice(node.Status.Capacity) * hours(start, end), nil
}

// PodPrice prices a pod's requests with the unit prices.
func (p *pricing) PodPrice(pod *apiv1.Pod, start, end time.Time) (float64, error) {
	total := apiv1.ResourceList{}
	for _, c := range pod.Spec.Containers {
		for k, v := range c.Resources.Requests {
			q := total[k]
			q.Add(v)
			total[k] = q
		}
	}
	return p.resourcesPrice(total) * hours(start, end), nil
}

func (p *pricing) resourcesPrice(rl apiv1.ResourceList) float64 {
	var price float64
	if q, ok := rl[apiv1.ResourceCPU]; ok {
		price += float64(q.MilliValue()) / 1000 * p.units.CPU
	}
	if q, ok := rl[apiv1.ResourceMemory]; ok {
		price += float64(q.Value()) / (1 << 30) * p.units.MemoryGB
	}
	if q, ok := rl[GPUResourceName]; ok {
		price += float64(q.Value()) * p.units.GPU
	}
	return price
}
