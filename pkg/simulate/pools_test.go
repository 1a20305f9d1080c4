// Tests of the pools file: the shipped examples and spot trace parse, bad fields refused naming the line, pool and field.

package simulate

import (
	"os"
	"slices"
	"strings"
	"testing"
)

func TestParsePools(t *testing.T) {
	pf, err := ParsePools(strings.NewReader(ExamplePools))
	if err != nil {
		t.Fatalf("the shipped example: %v", err)
	}
	if pf.RegionalQuotaVCPUs != 2000 || len(pf.Pools) != 3 || pf.Pools[2].Name != "gpu-heavy" || pf.Pools[2].BootMinutes != 10 ||
		pf.Pools[2].PlacementGroup != "ppg-ib" || pf.Pools[2].FamilyQuotaVCPUs != 768 || pf.Pools[0].PricePerHour != 0.768 {
		t.Fatalf("parsed %+v", pf)
	}
	spot, err := ParsePools(strings.NewReader(ExampleSpotPools))
	if err != nil {
		t.Fatalf("the shipped spot example: %v", err)
	}
	f, err := os.Open("spot.trace")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if tr, err := ParseTrace(f); err != nil || !slices.ContainsFunc(tr.Jobs, func(j Job) bool { return j.Spot }) {
		t.Fatalf("the shipped spot trace: %v (or no spot job in it)", err)
	}
	if !spot.HasSpot() || pf.HasSpot() {
		t.Fatalf("HasSpot: spot example %v, example %v", spot.HasSpot(), pf.HasSpot())
	}
	const good = "pools:\n- name: a\n  vmSize: Standard_D4s_v5\n  max: 2\n  bootMinutes: 3\n"
	for _, tc := range []struct{ name, body, want string }{
		{"empty", "", "pools file is empty"},
		{"no pools", "regionalQuotaVCPUs: 10\npools: []\n", "line 2: field pools: no pools"},
		{"unknown field", good + "  gpus: 8\n", "line 6: field gpus not found"},
		{"wrong type", "pools:\n- name: a\n  max: many\n", "line 3: cannot unmarshal"},
		{"bad name", strings.Replace(good, "name: a", "name: A_b", 1), `line 2: pool "A_b": field name: want 1-40 lower-case`},
		{"duplicate", good + "- name: a\n  vmSize: Standard_D4s_v5\n  max: 1\n  bootMinutes: 1\n", `line 6: pool "a": field name: already used on line 2`},
		{"no size", strings.Replace(good, "  vmSize: Standard_D4s_v5\n", "", 1), `line 2: pool "a": field vmSize: required`},
		{"max below min", good + "  min: 3\n", `line 4: pool "a": field max: want at least 1 and at least min (3), got 2`},
		{"boot", strings.Replace(good, "bootMinutes: 3", "bootMinutes: 0", 1), `line 5: pool "a": field bootMinutes: want more than 0`},
		{"price", good + "  pricePerHour: -1\n", `line 6: pool "a": field pricePerHour`},
		{"spot without price", good + "  spot: true\n", `line 2: pool "a": field pricePerHour: a spot pool needs its price`},
		{"reclaim regular", good + "  reclaimPerHour: 0.5\n", `line 6: pool "a": field reclaimPerHour: only spot pools are reclaimed`},
		{"reclaim negative", good + "  spot: true\n  pricePerHour: 1\n  reclaimPerHour: -1\n", `line 8: pool "a": field reclaimPerHour: want 0 to 60`},
		{"quota", "regionalQuotaVCPUs: -5\n" + good, "line 1: field regionalQuotaVCPUs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParsePools(strings.NewReader(tc.body))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want one saying %q", err, tc.want)
			}
		})
	}
}
