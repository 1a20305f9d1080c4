// The pools file of muster simulate --pools (the user's scale sets): parsing and examples.

package simulate

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"regexp"

	yaml "go.yaml.in/yaml/v3"
)

// ExamplePools is the pools file that ships (pkg/simulate/pools.example.yaml):
// the default simulation's three pools, priced and with their boot times.
//
//go:embed pools.example.yaml
var ExamplePools string

// ExampleSpotPools (pkg/simulate/pools.spot.example.yaml) adds a spot pool
// of H100 nodes to the example, for elastic jobs that opt in (make
// simulate-spot).
//
//go:embed pools.spot.example.yaml
var ExampleSpotPools string

// PoolsFile is a user's cluster for muster simulate --pools.
type PoolsFile struct {
	// RegionalQuotaVCPUs is the region's total vCPU quota (0: 10000).
	RegionalQuotaVCPUs int        `yaml:"regionalQuotaVCPUs"`
	Pools              []PoolSpec `yaml:"pools"`
}

// PoolSpec is one scale set.
type PoolSpec struct {
	// Name of the scale set: lower-case letters, digits and '-'.
	Name string `yaml:"name"`
	// VMSize is the Azure VM size; GPUs per node and their class follow
	// from it.
	VMSize string `yaml:"vmSize"`
	Min    int    `yaml:"min"`
	Max    int    `yaml:"max"`
	// BootMinutes is how many trace minutes a new VM takes to become a
	// Ready node.
	BootMinutes float64 `yaml:"bootMinutes"`
	// PricePerHour is $ per node-hour (0: the size's list price).
	PricePerHour float64 `yaml:"pricePerHour"`
	// PlacementGroup is the proximity placement group (InfiniBand), or "".
	PlacementGroup string `yaml:"placementGroup"`
	// FamilyQuotaVCPUs is the VM family's vCPU quota (0: no limit of its own).
	FamilyQuotaVCPUs int `yaml:"familyQuotaVCPUs"`
	// Spot makes the pool's VMs spot VMs (labelled and tainted as AKS does;
	// evicted VMs are deleted). Its price must be given.
	Spot bool `yaml:"spot"`
	// ReclaimPerHour is, for a spot pool, how many times per node-hour
	// (trace time) Azure reclaims a node: each node's reclaim time is drawn
	// from --seed, the same in every run.
	ReclaimPerHour float64 `yaml:"reclaimPerHour"`

	line int
}

var poolName = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$`)

// ParsePools reads and validates a pools file. Errors name the file's line
// and the field.
func ParsePools(r io.Reader) (PoolsFile, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return PoolsFile{}, err
	}
	var pf PoolsFile
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&pf); err != nil {
		if errors.Is(err, io.EOF) {
			return PoolsFile{}, errors.New("pools file is empty")
		}
		return PoolsFile{}, fmt.Errorf("pools file: %w", err)
	}
	// Lines of each pool and field, for the checks below.
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return PoolsFile{}, fmt.Errorf("pools file: %w", err)
	}
	fieldLines := make([]map[string]int, len(pf.Pools))
	top := map[string]int{}
	if len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode {
		m := doc.Content[0]
		for i := 0; i+1 < len(m.Content); i += 2 {
			top[m.Content[i].Value] = m.Content[i].Line
			if m.Content[i].Value != "pools" || m.Content[i+1].Kind != yaml.SequenceNode {
				continue
			}
			for k, item := range m.Content[i+1].Content {
				if k >= len(pf.Pools) {
					break
				}
				pf.Pools[k].line = item.Line
				fieldLines[k] = map[string]int{}
				for j := 0; j+1 < len(item.Content); j += 2 {
					fieldLines[k][item.Content[j].Value] = item.Content[j].Line
				}
			}
		}
	}
	if pf.RegionalQuotaVCPUs < 0 {
		return PoolsFile{}, fmt.Errorf("pools file line %d: field regionalQuotaVCPUs: want 0 (the default) or more, got %d", top["regionalQuotaVCPUs"], pf.RegionalQuotaVCPUs)
	}
	if len(pf.Pools) == 0 {
		return PoolsFile{}, fmt.Errorf("pools file line %d: field pools: no pools", top["pools"])
	}
	seen := map[string]int{}
	for k, p := range pf.Pools {
		bad := func(field, format string, args ...any) error {
			line, ok := fieldLines[k][field]
			if !ok {
				line = p.line
			}
			return fmt.Errorf("pools file line %d: pool %q: field %s: %s", line, p.Name, field, fmt.Sprintf(format, args...))
		}
		switch {
		case !poolName.MatchString(p.Name):
			return PoolsFile{}, bad("name", "want 1-40 lower-case letters, digits or '-', got %q", p.Name)
		case seen[p.Name] != 0:
			return PoolsFile{}, bad("name", "already used on line %d", seen[p.Name])
		case p.VMSize == "":
			return PoolsFile{}, bad("vmSize", "required (an Azure VM size such as Standard_ND96isr_H100_v5)")
		case p.Min < 0:
			return PoolsFile{}, bad("min", "want 0 or more, got %d", p.Min)
		case p.Max < 1 || p.Max < p.Min:
			return PoolsFile{}, bad("max", "want at least 1 and at least min (%d), got %d", p.Min, p.Max)
		case p.BootMinutes <= 0 || p.BootMinutes > 120:
			return PoolsFile{}, bad("bootMinutes", "want more than 0 and at most 120 trace minutes, got %v", p.BootMinutes)
		case p.PricePerHour < 0:
			return PoolsFile{}, bad("pricePerHour", "want 0 (the size's list price) or more, got %v", p.PricePerHour)
		case p.FamilyQuotaVCPUs < 0:
			return PoolsFile{}, bad("familyQuotaVCPUs", "want 0 or more, got %d", p.FamilyQuotaVCPUs)
		case p.Spot && p.PricePerHour == 0:
			return PoolsFile{}, bad("pricePerHour", "a spot pool needs its price (spot prices vary by region and hour; give the one you plan for)")
		case p.ReclaimPerHour < 0 || p.ReclaimPerHour > 60:
			return PoolsFile{}, bad("reclaimPerHour", "want 0 to 60 reclaims per node-hour, got %v", p.ReclaimPerHour)
		case p.ReclaimPerHour > 0 && !p.Spot:
			return PoolsFile{}, bad("reclaimPerHour", "only spot pools are reclaimed; set spot: true or remove it")
		}
		seen[p.Name] = p.line
	}
	return pf, nil
}

// HasSpot says whether any pool is a spot pool.
func (pf PoolsFile) HasSpot() bool {
	for _, p := range pf.Pools {
		if p.Spot {
			return true
		}
	}
	return false
}
