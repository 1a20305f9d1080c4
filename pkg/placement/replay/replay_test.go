// Test of the placement report on the short trace and small cluster against each scheduler profile: gangs counted once, never partial for Muster, final pods agreeing, the table's rows.

package replay

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/muster-project/muster/pkg/controlplane"
	"github.com/muster-project/muster/pkg/placement"
)

// TestPlacementReportSmall runs the short trace on the small cluster against
// all three schedulers, each in its own control plane, and checks the report's
// structure and what must hold whatever the schedulers chose.
func TestPlacementReportSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three control planes")
	}
	if err := controlplane.SetupLogging(0); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if t.Failed() {
			var buf bytes.Buffer
			controlplane.DumpLoggedErrors(&buf)
			t.Log(buf.String())
		}
	}()
	c, tr := placement.SmallCluster(), placement.SmallTrace()
	var progress bytes.Buffer
	runs, err := runPlacement(context.Background(), &progress, c, tr, DefaultOptions())
	t.Log(progress.String())
	if err != nil {
		t.Fatal(err)
	}
	profiles := placementProfiles()
	if len(runs) != len(profiles) {
		t.Fatalf("%d runs, want one per profile (%d)", len(runs), len(profiles))
	}
	nodes := c.NodeList()
	var results []placement.Result
	for i, run := range runs {
		r := run.result
		results = append(results, r)
		name := profiles[i].name
		if r.Profile != name {
			t.Errorf("run %d is %q, want %q", i, r.Profile, name)
		}
		if r.Steps != len(tr.Events) || r.Gangs != len(tr.Gangs) {
			t.Errorf("%s: %d steps of %d gangs, want %d steps of %d", name, r.Steps, r.Gangs, len(tr.Events), len(tr.Gangs))
		}
		// Each fully placed gang is counted once, in exactly one scope.
		sum := 0
		for s, n := range r.ByScope {
			sum += n
			if s < len(r.Within) && r.Within[s] != sum {
				t.Errorf("%s: within one %s %d, want the %d placed in it or narrower", name, placement.Levels[s].Name, r.Within[s], sum)
			}
		}
		if sum != r.Placed || r.Placed > r.Gangs || r.Placed == 0 {
			t.Errorf("%s: %d gangs placed, %d by scope, of %d", name, r.Placed, sum, r.Gangs)
		}
		for l := range r.Within {
			// A gang inside one domain fits one: no scheduler beats the bound.
			if r.Within[l] > r.CouldFit[l] || r.FitAndWithin[l] != r.Within[l] || r.CouldFit[l] > r.Placed {
				t.Errorf("%s, level %s: within %d, could fit %d, both %d, of %d placed", name, placement.Levels[l].Name,
					r.Within[l], r.CouldFit[l], r.FitAndWithin[l], r.Placed)
			}
		}
		if clique := int(placement.ScopeClique); len(r.CliqueMisses) != r.CouldFit[clique]-r.FitAndWithin[clique] {
			t.Errorf("%s: %d clique misses listed, but %d of %d gangs that fit one clique landed in one", name,
				len(r.CliqueMisses), r.FitAndWithin[clique], r.CouldFit[clique])
		}
		if r.StrandedMean < 0 || float64(r.StrandedEnd) > float64(c.GPUs()) {
			t.Errorf("%s: stranded mean %.2f, end %d", name, r.StrandedMean, r.StrandedEnd)
		}
		// Muster places gangs all or nothing: never a partial gang.
		if name == placement.ProfileMuster && (r.MaxPartial != 0 || r.PartialEnd != 0) {
			t.Errorf("%s: %d partial gangs at the end, at most %d at a step; want none", name, r.PartialEnd, r.MaxPartial)
		}

		// The final pods, read from the API server, agree with the result.
		seen := map[string]bool{}
		pods := map[string]int{}
		for _, p := range run.final {
			if seen[p.Name] {
				t.Errorf("%s: pod %s listed twice", name, p.Name)
			}
			seen[p.Name] = true
			pods[p.Gang]++
			g, ok := tr.Gang(p.Gang)
			if !ok || p.GPUs != g.GPUs {
				t.Errorf("%s: pod %s of gang %q asks for %d GPUs; the trace says %+v", name, p.Name, p.Gang, p.GPUs, g)
			}
		}
		live := map[string]bool{}
		for _, e := range tr.Events {
			live[e.Gang] = e.Kind == placement.Arrive
		}
		for _, g := range tr.Gangs {
			want := 0
			if live[g.Name] {
				want = g.Members
			}
			if pods[g.Name] != want {
				t.Errorf("%s: gang %s has %d pods at the end, want %d", name, g.Name, pods[g.Name], want)
			}
		}
		snap, err := placement.Take(nodes, run.final, tr.SmallestGPUs())
		if err != nil {
			t.Errorf("%s: final pods: %v", name, err)
			continue
		}
		if snap.Stranded != r.StrandedEnd || snap.FreeNodes != r.FreeNodesEnd || snap.SmallestMembers != r.SmallestMembersEnd {
			t.Errorf("%s: final pods give stranded %d, free nodes %d, smallest members %d; the result says %d, %d, %d", name,
				snap.Stranded, snap.FreeNodes, snap.SmallestMembers, r.StrandedEnd, r.FreeNodesEnd, r.SmallestMembersEnd)
		}
	}

	var out bytes.Buffer
	if err := placement.WriteReport(&out, c, tr, results); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	t.Log("\n" + text)
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	last := lines[len(lines)-1]
	rest, ok := strings.CutPrefix(last, placement.RatioPrefix)
	if !ok {
		t.Fatalf("last line %q does not start with %q", last, placement.RatioPrefix)
	}
	if !strings.HasPrefix(rest, "no ratio, MostAllocated stranded none") {
		if x, err := strconv.ParseFloat(rest, 64); err != nil || x < 0 || rest != strconv.FormatFloat(x, 'f', 2, 64) {
			t.Errorf("last line %q: want a ratio with two decimals", last)
		}
	}
	header := false
	for _, l := range lines {
		if f := strings.Fields(l); len(f) == 5 && f[0] == "METRIC" {
			header = f[1] == placement.ProfileMuster && f[2] == placement.ProfileLeastAllocated && f[3] == placement.ProfileMostAllocated &&
				f[4] == placement.ProfileUpstream
		}
	}
	if !header {
		t.Errorf("no header row naming the four profiles:\n%s", text)
	}
}
