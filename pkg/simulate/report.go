package simulate

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// Run is one replay of the trace: its name ("muster", "baseline"), record
// and figures.
type Run struct {
	Name    string
	Record  *Record
	Figures Figures
}

// WriteReport writes the side-by-side report, ending with the summary line.
func WriteReport(w io.Writer, trace Trace, muster, baseline Run) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "JOB\tKIND\tMEMBERS\tMIN\tMAX\t%s TO MIN\t%s TO MAX\t%s TO MIN\t%s TO MAX\n",
		strings.ToUpper(muster.Name), strings.ToUpper(muster.Name), strings.ToUpper(baseline.Name), strings.ToUpper(baseline.Name))
	mj, bj := byName(muster.Figures.Jobs), byName(baseline.Figures.Jobs)
	for _, j := range trace.Jobs {
		m, b := mj[j.Name], bj[j.Name]
		fmt.Fprintf(tw, "%s\t%s\t%d x %s\t%d\t%d\t%s\t%s\t%s\t%s\n", j.Name, j.Kind, j.Members, shape(j), j.Min, j.Max,
			wait(m.AtMin, m.ToMin, m.MostRunning), wait(m.AtMax, m.ToMax, m.MostRunning),
			wait(b.AtMin, b.ToMin, b.MostRunning), wait(b.AtMax, b.ToMax, b.MostRunning))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "FIGURE\t%s\t%s\n", muster.Name, baseline.Name)
	row := func(name string, f func(Figures) string) {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", name, f(muster.Figures), f(baseline.Figures))
	}
	row("nodes added, by pool", func(f Figures) string { return pools(f.NodesAdded) })
	row("partial gangs (GPUs held, never started)", func(f Figures) string { return fmt.Sprint(f.PartialGangs) })
	row("excess nodes (added, never used)", func(f Figures) string { return fmt.Sprint(f.ExcessNodes) })
	row("nodes withdrawn while being created", func(f Figures) string { return fmt.Sprint(f.WithdrawnNodes) })
	row("GPU-hours paid (nodes up)", func(f Figures) string { return fmt.Sprintf("%.1f", f.ProvisionedGPUHours) })
	row("GPU-hours used", func(f Figures) string { return fmt.Sprintf("%.1f", f.UsedGPUHours) })
	row("GPU-hours idle", func(f Figures) string { return fmt.Sprintf("%.1f", f.IdleGPUHours) })
	row("GPU-hours held by gangs that never started", func(f Figures) string { return fmt.Sprintf("%.1f", f.PartialGangGPUHours) })
	row("cost ($, nodes' hours at the pools' prices)", func(f Figures) string { return fmt.Sprintf("%.2f", f.Cost) })
	row("failed scale-ups", func(f Figures) string { return fmt.Sprint(len(f.Failures)) })
	row("longest wait of a gang after the capacity it needed existed", func(f Figures) string {
		if f.LongestWaitGang == "" {
			return "0m"
		}
		return fmt.Sprintf("%.1fm (%s)", f.LongestWaitAfterCapacity.Minutes(), f.LongestWaitGang)
	})
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range []Run{muster, baseline} {
		if len(r.Figures.Excess) > 0 {
			fmt.Fprintf(w, "%s: excess nodes %s\n", r.Name, strings.Join(r.Figures.Excess, ", "))
		}
		for _, fl := range r.Figures.Failures {
			fmt.Fprintf(w, "%s: scale-up for %s failed (seen by minute %.0f): %s\n", r.Name, fl.Pool, fl.At.Minutes(), fl.Reason)
		}
	}
	fmt.Fprintln(w)
	_, err := fmt.Fprintln(w, SummaryLine(muster, baseline))
	return err
}

// SummaryLine is the report's last line.
func SummaryLine(muster, baseline Run) string {
	one := func(r Run) string {
		return fmt.Sprintf("%s: partial gangs %d, excess nodes %d, idle GPU-hours %.1f, cost $%.2f", r.Name, r.Figures.PartialGangs, r.Figures.ExcessNodes, r.Figures.IdleGPUHours, r.Figures.Cost)
	}
	return one(muster) + "; " + one(baseline)
}

func byName(js []JobFigures) map[string]JobFigures {
	out := make(map[string]JobFigures, len(js))
	for _, j := range js {
		out[j.Name] = j
	}
	return out
}

func shape(j Job) string {
	if j.GPUs > 0 {
		return fmt.Sprintf("%d GPU", j.GPUs)
	}
	return fmt.Sprintf("%d CPU", j.MilliCPU/1000)
}

// wait renders a wait in trace minutes, or how far the job got.
func wait(ok bool, d time.Duration, most int) string {
	if ok {
		return fmt.Sprintf("%.1fm", d.Minutes())
	}
	if most > 0 {
		return fmt.Sprintf("never (%d ran)", most)
	}
	return "never"
}

func pools(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s %d", n, m[n])
	}
	return strings.Join(parts, ", ")
}

// TraceSummary is one generated trace's figures, for WriteSummary.
type TraceSummary struct {
	Seed             int64
	Muster, Baseline Figures
}

// WriteSummary writes one line per replayed trace: partial gangs, excess
// nodes, idle GPU-hours and the longest wait after capacity, both runs.
func WriteSummary(w io.Writer, traces []TraceSummary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SEED\tPARTIAL GANGS (MUSTER/BASELINE)\tEXCESS NODES\tIDLE GPU-HOURS\tIDLE RATIO\tLONGEST WAIT AFTER CAPACITY")
	for _, t := range traces {
		ratio := "-"
		if t.Baseline.IdleGPUHours > 0 {
			ratio = fmt.Sprintf("%.2f", t.Muster.IdleGPUHours/t.Baseline.IdleGPUHours)
		}
		fmt.Fprintf(tw, "%d\t%d / %d\t%d / %d\t%.1f / %.1f\t%s\t%.1fm / %.1fm\n", t.Seed,
			t.Muster.PartialGangs, t.Baseline.PartialGangs, t.Muster.ExcessNodes, t.Baseline.ExcessNodes,
			t.Muster.IdleGPUHours, t.Baseline.IdleGPUHours, ratio,
			t.Muster.LongestWaitAfterCapacity.Minutes(), t.Baseline.LongestWaitAfterCapacity.Minutes())
	}
	return tw.Flush()
}
