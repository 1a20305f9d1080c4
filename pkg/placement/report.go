// The report: its table, one column per profile, the clique misses line and the stranded ratio.

package placement

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Profile names, as the report's columns show them.
const (
	ProfileMuster         = "Muster"
	ProfileLeastAllocated = "LeastAllocated"
	ProfileMostAllocated  = "MostAllocated"
	// ProfileUpstream is kube-scheduler's own gang scheduling: upstream
	// PodGroups (GenericWorkload, TopologyAwareWorkloadScheduling) under
	// the default profile.
	ProfileUpstream = "Upstream"
)

// RatioPrefix starts the report's last line.
const RatioPrefix = "stranded GPUs vs MostAllocated: "

// WriteReport writes the table, one column per result, the definitions, and
// as the last line Muster's mean stranded GPUs over MostAllocated's (see
// RatioLine). results must include the profiles ProfileMuster and
// ProfileMostAllocated.
func WriteReport(w io.Writer, c Cluster, t Trace, results []Result) error {
	muster, ok1 := find(results, ProfileMuster)
	most, ok2 := find(results, ProfileMostAllocated)
	if !ok1 || !ok2 {
		return fmt.Errorf("report: need results for profiles %s and %s", ProfileMuster, ProfileMostAllocated)
	}
	arrivals, departures := t.Counts()
	fmt.Fprintf(w, "Cluster: %s.\n", c)
	fmt.Fprintf(w, "Trace: %d gangs, %d arrivals and %d departures, at most %d GPUs asked for at once; smallest shape %d GPUs per member.\n\n",
		len(t.Gangs), arrivals, departures, t.Peak(), t.SmallestGPUs())

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(name string, cell func(Result) string) {
		cells := make([]string, len(results))
		for i, r := range results {
			cells[i] = cell(r)
		}
		fmt.Fprintf(tw, "%s\t%s\n", name, strings.Join(cells, "\t"))
	}
	head := []string{"METRIC"}
	for _, r := range results {
		head = append(head, r.Profile)
	}
	fmt.Fprintf(tw, "%s\n", strings.Join(head, "\t"))
	row(fmt.Sprintf("gangs fully placed (of %d)", len(t.Gangs)), func(r Result) string { return fmt.Sprint(r.Placed) })
	for i, l := range Levels {
		row("within one "+l.Name, func(r Result) string { return share(r.Within[i], r.Placed) })
		row("  bound: could fit one "+l.Name, func(r Result) string { return share(r.CouldFit[i], r.Placed) })
	}
	row("spanning zones", func(r Result) string { return share(r.ByScope[ScopeSpansZones], r.Placed) })
	clique := int(ScopeClique)
	row("fit one clique, landed in one", func(r Result) string {
		return fmt.Sprintf("%d/%d", r.FitAndWithin[clique], r.CouldFit[clique])
	})
	row("partial gangs at end (GPUs held)", func(r Result) string { return fmt.Sprintf("%d (%d)", r.PartialEnd, r.PartialGPUsEnd) })
	row("partial gangs, most at one step", func(r Result) string { return fmt.Sprint(r.MaxPartial) })
	row("pending gangs at end", func(r Result) string { return fmt.Sprint(r.PendingEnd) })
	row(fmt.Sprintf("stranded GPUs, mean of %d steps", muster.Steps), func(r Result) string { return fmt.Sprintf("%.2f", r.StrandedMean) })
	row("stranded GPUs at end", func(r Result) string { return fmt.Sprint(r.StrandedEnd) })
	row("partly used nodes at end", func(r Result) string { return fmt.Sprint(r.PartlyUsedEnd) })
	row(fmt.Sprintf("largest gang at end: %d-GPU members", c.GPUsPerNode), func(r Result) string { return fmt.Sprint(r.FreeNodesEnd) })
	row(fmt.Sprintf("  %d-GPU members in one clique", c.GPUsPerNode), func(r Result) string { return fmt.Sprint(r.FreeNodesInCliqueEnd) })
	row(fmt.Sprintf("  %d-GPU members", t.SmallestGPUs()), func(r Result) string { return fmt.Sprint(r.SmallestMembersEnd) })
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, `
Within one LEVEL: of the gangs fully placed at some step, those whose members
all sat in one domain of the level when the gang was first fully placed (one
node is within one clique, and so on). Bound: of the same gangs, those that
could fit one such domain at all, ceil(members / members per domain), i.e.
ceil(members x GPUs per member / domain GPUs) when members divide nodes evenly.
Partial gangs have some but not all members bound. Stranded GPUs: free GPUs on
partly used nodes with fewer free than the smallest shape's %d GPUs per member,
sampled after every step. Largest gang at end: members placeable on wholly
free nodes, on wholly free nodes of one clique, and of the smallest shape.
The last line divides the mean stranded GPUs over all steps.

`, t.SmallestGPUs())
	fmt.Fprintf(w, "%s: %s\n\n", muster.Profile, MissesLine(muster.CliqueMisses))
	_, err := fmt.Fprintln(w, RatioLine(muster, most))
	return err
}

// MissesLine lists the gangs that fit one clique but landed wider, saying
// where and whether a clique had room for them at the time.
func MissesLine(misses []Miss) string {
	if len(misses) == 0 {
		return "every placed gang that fits one clique landed in one clique."
	}
	parts := make([]string, len(misses))
	for i, m := range misses {
		room := "no clique had room"
		if m.RoomIn != "" {
			room = m.RoomIn + " had room"
		}
		where := "in one " + m.Scope.String()
		if m.Scope == ScopeSpansZones {
			where = "across zones"
		}
		parts[i] = fmt.Sprintf("%s %s at step %d %s (%s)", m.Gang.Name, m.Gang.Shape(), m.Step, where, room)
	}
	return fmt.Sprintf("%d gangs that fit one clique landed wider: %s.", len(misses), strings.Join(parts, ", "))
}

// RatioLine is the report's last line: Muster's mean stranded GPUs over
// MostAllocated's, two decimals, or both means if MostAllocated stranded none.
func RatioLine(muster, most Result) string {
	if most.StrandedMean == 0 {
		return fmt.Sprintf("%sno ratio, MostAllocated stranded none (mean per step: %s %.2f, %s 0.00)",
			RatioPrefix, muster.Profile, muster.StrandedMean, most.Profile)
	}
	return fmt.Sprintf("%s%.2f", RatioPrefix, muster.StrandedMean/most.StrandedMean)
}

func share(n, of int) string {
	if of == 0 {
		return fmt.Sprintf("%d/0", n)
	}
	return fmt.Sprintf("%d/%d (%.0f%%)", n, of, 100*float64(n)/float64(of))
}

func find(results []Result, profile string) (Result, bool) {
	for _, r := range results {
		if r.Profile == profile {
			return r, true
		}
	}
	return Result{}, false
}
