// The Resource SKUs catalogue cache, its parsing, and the static fallback sizes.

package agentpool

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"
	"k8s.io/klog/v2"
)

// skuInfo is what a template node needs to know about a VM size.
type skuInfo struct {
	Name     string
	Family   string // quota family; empty when unknown (static fallback)
	VCPUs    int
	MemoryGB float64
	GPUs     int
	Arch     string // amd64 or arm64
	// Static is true when the values come from the fallback table because
	// the Resource SKUs API was unreachable.
	Static bool
}

// staticSKUs is the fallback used only when the Resource SKUs API cannot be
// reached and nothing was cached: published sizes of common CPU and GPU VMs.
var staticSKUs = map[string]skuInfo{
	"standard_d4s_v5":           {VCPUs: 4, MemoryGB: 16},
	"standard_d8s_v5":           {VCPUs: 8, MemoryGB: 32},
	"standard_d16s_v5":          {VCPUs: 16, MemoryGB: 64},
	"standard_d32s_v5":          {VCPUs: 32, MemoryGB: 128},
	"standard_nc4as_t4_v3":      {VCPUs: 4, MemoryGB: 28, GPUs: 1},
	"standard_nc64as_t4_v3":     {VCPUs: 64, MemoryGB: 440, GPUs: 4},
	"standard_nc6s_v3":          {VCPUs: 6, MemoryGB: 112, GPUs: 1},
	"standard_nc24s_v3":         {VCPUs: 24, MemoryGB: 448, GPUs: 4},
	"standard_nv36ads_a10_v5":   {VCPUs: 36, MemoryGB: 440, GPUs: 1},
	"standard_nc24ads_a100_v4":  {VCPUs: 24, MemoryGB: 220, GPUs: 1},
	"standard_nc96ads_a100_v4":  {VCPUs: 96, MemoryGB: 880, GPUs: 4},
	"standard_nc40ads_h100_v5":  {VCPUs: 40, MemoryGB: 320, GPUs: 1},
	"standard_nd40rs_v2":        {VCPUs: 40, MemoryGB: 672, GPUs: 8},
	"standard_nd96asr_v4":       {VCPUs: 96, MemoryGB: 900, GPUs: 8},
	"standard_nd96amsr_a100_v4": {VCPUs: 96, MemoryGB: 1900, GPUs: 8},
	"standard_nd96isr_h100_v5":  {VCPUs: 96, MemoryGB: 1900, GPUs: 8},
	"standard_nd96isr_h200_v5":  {VCPUs: 96, MemoryGB: 1850, GPUs: 8},
}

// skuCatalog caches the Resource SKUs API for one location.
type skuCatalog struct {
	c        *clients
	location string
	ttl      time.Duration
	timeout  time.Duration

	mu      sync.Mutex
	skus    map[string]skuInfo // lower-case name
	fetched time.Time
}

// lookup returns a size's data: from the cache when fresh, from the API
// otherwise, from a stale cache when the API fails, and from the static table
// as a last resort (logged).
func (s *skuCatalog) lookup(ctx context.Context, name string) (skuInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.skus == nil || time.Since(s.fetched) > s.ttl {
		if err := s.refreshLocked(ctx); err != nil {
			if s.skus == nil {
				if info, ok := staticSKUs[strings.ToLower(name)]; ok {
					klog.InfoS("Resource SKUs API unreachable; using the static fallback table", "sku", name, "err", err)
					info.Name, info.Static = name, true
					info.Arch = "amd64"
					return info, nil
				}
				return skuInfo{}, fmt.Errorf("sku %s: Resource SKUs API unreachable and the size is not in the static fallback table: %w", name, err)
			}
			klog.InfoS("Resource SKUs API unreachable; using the cached catalogue", "age", time.Since(s.fetched).Round(time.Second), "err", err)
		}
	}
	info, ok := s.skus[strings.ToLower(name)]
	if !ok {
		return skuInfo{}, fmt.Errorf("sku %s: not offered in location %s according to the Resource SKUs API", name, s.location)
	}
	return info, nil
}

// names lists the cached VM sizes.
func (s *skuCatalog) names(ctx context.Context) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.skus == nil {
		_ = s.refreshLocked(ctx)
	}
	var out []string
	for _, k := range s.skus {
		out = append(out, k.Name)
	}
	return out
}

func (s *skuCatalog) refreshLocked(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	out := map[string]skuInfo{}
	pager := s.c.skus.NewListPager(&armcompute.ResourceSKUsClientListOptions{Filter: to.Ptr(fmt.Sprintf("location eq '%s'", s.location))})
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return err
		}
		for _, k := range page.Value {
			if k == nil || k.Name == nil || k.ResourceType == nil || !strings.EqualFold(*k.ResourceType, "virtualMachines") || !offeredIn(k, s.location) {
				continue
			}
			info, err := parseSKU(k)
			if err != nil {
				klog.V(4).InfoS("Skipping SKU", "sku", *k.Name, "err", err)
				continue
			}
			out[strings.ToLower(info.Name)] = info
		}
	}
	s.skus, s.fetched = out, time.Now()
	return nil
}

func offeredIn(k *armcompute.ResourceSKU, location string) bool {
	if len(k.Locations) == 0 {
		return true
	}
	for _, l := range k.Locations {
		if l != nil && strings.EqualFold(*l, location) {
			return true
		}
	}
	return false
}

// parseSKU reads the capabilities a template needs.
func parseSKU(k *armcompute.ResourceSKU) (skuInfo, error) {
	info := skuInfo{Name: *k.Name, Arch: "amd64"}
	if k.Family != nil {
		info.Family = *k.Family
	}
	for _, c := range k.Capabilities {
		if c == nil || c.Name == nil || c.Value == nil {
			continue
		}
		switch *c.Name {
		case capVCPUs:
			v, err := strconv.Atoi(*c.Value)
			if err != nil {
				return info, fmt.Errorf("capability vCPUs %q: %w", *c.Value, err)
			}
			info.VCPUs = v
		case capMemoryGB:
			v, err := strconv.ParseFloat(*c.Value, 64)
			if err != nil {
				return info, fmt.Errorf("capability MemoryGB %q: %w", *c.Value, err)
			}
			info.MemoryGB = v
		case capGPUs:
			// Fractional GPU sizes (e.g. NVadsA10 1/6) expose no whole GPU.
			v, err := strconv.ParseFloat(*c.Value, 64)
			if err != nil {
				return info, fmt.Errorf("capability GPUs %q: %w", *c.Value, err)
			}
			info.GPUs = int(math.Floor(v))
		case capArch:
			if strings.EqualFold(*c.Value, "Arm64") {
				info.Arch = "arm64"
			}
		}
	}
	if info.VCPUs == 0 || info.MemoryGB == 0 {
		return info, fmt.Errorf("missing vCPUs or MemoryGB capability")
	}
	return info, nil
}
