// Tests of the report: the stranded ratio line, the clique misses line, and the table's rows, one cell per profile.

package placement

import (
	"bytes"
	"strings"
	"testing"
)

func TestRatioLine(t *testing.T) {
	for _, tc := range []struct {
		muster, most float64
		want         string
	}{
		{1, 2, "stranded GPUs vs MostAllocated: 0.50"},
		{2.1, 3.1, "stranded GPUs vs MostAllocated: 0.68"},
		{0, 3, "stranded GPUs vs MostAllocated: 0.00"},
		{3, 2, "stranded GPUs vs MostAllocated: 1.50"},
		{1.25, 0, "stranded GPUs vs MostAllocated: no ratio, MostAllocated stranded none (mean per step: Muster 1.25, MostAllocated 0.00)"},
	} {
		got := RatioLine(Result{Profile: ProfileMuster, StrandedMean: tc.muster}, Result{Profile: ProfileMostAllocated, StrandedMean: tc.most})
		if got != tc.want {
			t.Errorf("RatioLine(%v, %v) = %q, want %q", tc.muster, tc.most, got, tc.want)
		}
	}
}

func TestMissesLine(t *testing.T) {
	if got, want := MissesLine(nil), "every placed gang that fits one clique landed in one clique."; got != want {
		t.Errorf("MissesLine(nil) = %q, want %q", got, want)
	}
	got := MissesLine([]Miss{
		{Gang: Gang{Name: "g17", Members: 8, GPUs: 8}, Scope: ScopeRack, Step: 20},
		{Gang: Gang{Name: "g24", Members: 4, GPUs: 3}, Scope: ScopeSpansZones, Step: 31, RoomIn: "clique-03"},
	})
	want := "2 gangs that fit one clique landed wider: g17 8x8 at step 20 in one rack (no clique had room), g24 4x3 at step 31 across zones (clique-03 had room)."
	if got != want {
		t.Errorf("MissesLine = %q, want %q", got, want)
	}
}

func TestWriteReport(t *testing.T) {
	tr := SmallTrace()
	results := []Result{
		{Profile: ProfileMuster, Gangs: 12, Steps: 16, Placed: 10, Within: [4]int{2, 8, 9, 10}, CouldFit: [4]int{3, 8, 10, 10},
			FitAndWithin: [4]int{2, 8, 9, 10}, StrandedMean: 0.5, StrandedEnd: 1, FreeNodesEnd: 4, FreeNodesInCliqueEnd: 2, SmallestMembersEnd: 20},
		{Profile: ProfileLeastAllocated, Gangs: 12, Steps: 16, Placed: 9, Within: [4]int{1, 2, 3, 9}, CouldFit: [4]int{3, 7, 9, 9},
			FitAndWithin: [4]int{1, 2, 3, 9}, PartialEnd: 1, PartialGPUsEnd: 16, MaxPartial: 2, StrandedMean: 0.25},
		{Profile: ProfileMostAllocated, Gangs: 12, Steps: 16, Placed: 10, Within: [4]int{2, 4, 6, 7}, CouldFit: [4]int{3, 8, 10, 10},
			FitAndWithin: [4]int{2, 4, 6, 7}, ByScope: [numScopes]int{2, 2, 2, 1, 3}, StrandedMean: 2},
	}
	var buf bytes.Buffer
	if err := WriteReport(&buf, SmallCluster(), tr, results); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if last := lines[len(lines)-1]; last != "stranded GPUs vs MostAllocated: 0.25" {
		t.Errorf("last line %q, want %q", last, "stranded GPUs vs MostAllocated: 0.25")
	}
	// Rows as name and cells, one cell per profile in order.
	rows := map[string][]string{}
	for _, l := range lines {
		cells := strings.Split(l, "  ")
		var kept []string
		for _, c := range cells {
			if c = strings.TrimSpace(c); c != "" {
				kept = append(kept, c)
			}
		}
		if len(kept) == 4 {
			rows[kept[0]] = kept[1:]
		}
	}
	for name, want := range map[string][]string{
		"METRIC":                             {"Muster", "LeastAllocated", "MostAllocated"},
		"gangs fully placed (of 12)":         {"10", "9", "10"},
		"within one clique":                  {"8/10 (80%)", "2/9 (22%)", "4/10 (40%)"},
		"bound: could fit one clique":        {"8/10 (80%)", "7/9 (78%)", "8/10 (80%)"},
		"within one zone":                    {"10/10 (100%)", "9/9 (100%)", "7/10 (70%)"},
		"spanning zones":                     {"0/10 (0%)", "0/9 (0%)", "3/10 (30%)"},
		"fit one clique, landed in one":      {"8/8", "2/7", "4/8"},
		"partial gangs at end (GPUs held)":   {"0 (0)", "1 (16)", "0 (0)"},
		"partial gangs, most at one step":    {"0", "2", "0"},
		"stranded GPUs, mean of 16 steps":    {"0.50", "0.25", "2.00"},
		"largest gang at end: 8-GPU members": {"4", "0", "0"},
		"8-GPU members in one clique":        {"2", "0", "0"},
		"2-GPU members":                      {"20", "0", "0"},
	} {
		got := rows[name]
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("row %q: %q, want %q\n%s", name, got, want, out)
		}
	}
	if !strings.Contains(out, "\nMuster: every placed gang that fits one clique landed in one clique.\n") {
		t.Errorf("Muster's clique misses missing:\n%s", out)
	}
	if !strings.Contains(out, "Trace: 12 gangs, 12 arrivals and 4 departures, at most 97 GPUs asked for at once; smallest shape 2 GPUs per member.") {
		t.Errorf("trace line missing:\n%s", out)
	}

	if err := WriteReport(&buf, SmallCluster(), tr, results[:2]); err == nil {
		t.Error("WriteReport without MostAllocated: no error")
	}
}
