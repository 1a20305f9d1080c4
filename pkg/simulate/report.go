// The side-by-side report of runs: the figures table, the summary line, and per-trace summaries.

package simulate

import (
	"fmt"
	"io"
	"slices"
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
	// Wall is the wall time the replay took, from the trace's start.
	Wall time.Duration
	// GroupBinds counts, on the upstream side, the gang members bound that
	// named their job's upstream PodGroup in spec.schedulingGroup.
	GroupBinds int
	// KueueAdmitted counts, on the kueue side, the Workloads Kueue
	// admitted with their ProvisioningRequest check Ready, KueueRequests
	// the ProvisioningRequests Kueue created.
	KueueAdmitted, KueueRequests int
}

// WriteReport writes the report of one or more runs, a column per side in
// the order given, with the oracle's figures (nil: none) under the table,
// ending with the summary line.
func WriteReport(w io.Writer, trace Trace, oracle *Oracle, runs ...Run) error {
	if len(runs) < 1 {
		return fmt.Errorf("report: want at least one run, got %d", len(runs))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "JOB\tKIND\tMEMBERS\tMIN\tMAX")
	for _, r := range runs {
		fmt.Fprintf(tw, "\t%s TO MIN\t%s TO MAX", strings.ToUpper(r.Name), strings.ToUpper(r.Name))
	}
	fmt.Fprintln(tw)
	jobs := make([]map[string]JobFigures, len(runs))
	for i, r := range runs {
		jobs[i] = byName(r.Figures.Jobs)
	}
	for _, j := range trace.Jobs {
		fmt.Fprintf(tw, "%s\t%s\t%d x %s\t%d\t%d", j.Name, j.Kind, j.Members, shape(j), j.Min, j.Max)
		for i := range runs {
			f := jobs[i][j.Name]
			fmt.Fprintf(tw, "\t%s\t%s", wait(f.AtMin, f.ToMin, f.MostRunning), wait(f.AtMax, f.ToMax, f.MostRunning))
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "FIGURE")
	for _, r := range runs {
		fmt.Fprintf(tw, "\t%s", r.Name)
	}
	fmt.Fprintln(tw)
	row := func(name string, f func(Figures) string) {
		fmt.Fprint(tw, name)
		for _, r := range runs {
			fmt.Fprintf(tw, "\t%s", f(r.Figures))
		}
		fmt.Fprintln(tw)
	}
	row("nodes added, by pool", func(f Figures) string { return pools(f.NodesAdded) })
	row("partial gangs (GPUs held, never started)", func(f Figures) string { return fmt.Sprint(f.PartialGangs) })
	row("excess nodes (added, never used)", func(f Figures) string { return fmt.Sprint(f.ExcessNodes) })
	row("nodes withdrawn while being created", func(f Figures) string { return fmt.Sprint(f.WithdrawnNodes) })
	row("GPU-hours paid (nodes up)", func(f Figures) string { return fmt.Sprintf("%.1f", f.ProvisionedGPUHours) })
	row("GPU-hours used", func(f Figures) string { return fmt.Sprintf("%.1f", f.UsedGPUHours) })
	row("GPU-hours idle", func(f Figures) string { return fmt.Sprintf("%.1f", f.IdleGPUHours) })
	row("GPU-hours held by gangs that never started", func(f Figures) string { return fmt.Sprintf("%.1f", f.PartialGangGPUHours) })
	row("GPU-hours held by gangs below min (never started or broken)", func(f Figures) string { return fmt.Sprintf("%.1f", f.BelowMinGPUHours) })
	row("GPU-hours of work thrown away (runs broken)", func(f Figures) string { return fmt.Sprintf("%.1f", f.LostWorkGPUHours) })
	row("gangs broken after they started", func(f Figures) string { return fmt.Sprint(f.GangsBroken) })
	row("cost ($, nodes' hours at the pools' prices)", func(f Figures) string { return fmt.Sprintf("%.2f", f.Cost) })
	if oracle != nil {
		// The multiples compare like with like only when a side did the
		// oracle's work: a run that ended before its jobs were done paid
		// for less of it.
		row("GPU-hours used, share of the oracle's (work done)", func(f Figures) string {
			if oracle.UsedGPUHours <= 0 {
				return "-"
			}
			return fmt.Sprintf("%.0f%%", 100*f.UsedGPUHours/oracle.UsedGPUHours)
		})
		row("GPU-hours idle, multiple of the oracle's", func(f Figures) string { return multiple(f.IdleGPUHours, oracle.IdleGPUHours) })
		row("cost, multiple of the oracle's", func(f Figures) string { return multiple(f.Cost, oracle.Cost) })
	}
	row("run ended at trace minute (jobs not done by then)", func(f Figures) string {
		return fmt.Sprintf("%.0f (%d)", f.End.Minutes(), f.JobsNotDone)
	})
	row("gangs finished; turnaround, mean over the gangs that can run (not done: to the end)", func(f Figures) string {
		return fmt.Sprintf("%d (%.1fm)", f.GangsFinished, f.MeanTurnaround.Minutes())
	})
	row("wait to min over all gangs, mean / p90 (never: to the end)", func(f Figures) string {
		return fmt.Sprintf("%.1fm / %.1fm", f.MeanWaitToMin.Minutes(), f.P90WaitToMin.Minutes())
	})
	if reclaims := slices.ContainsFunc(runs, func(r Run) bool { return r.Figures.Reclaims > 0 }); reclaims {
		row("spot nodes reclaimed (members on them)", func(f Figures) string { return fmt.Sprintf("%d (%d)", f.Reclaims, f.ReclaimedMembers) })
		row("gangs a reclaim took below min", func(f Figures) string { return fmt.Sprint(f.GangsBelowMinByReclaim) })
	}
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
	for _, r := range runs {
		if len(r.Figures.Excess) > 0 {
			fmt.Fprintf(w, "%s: excess nodes %s\n", r.Name, strings.Join(r.Figures.Excess, ", "))
		}
		for _, fl := range r.Figures.Failures {
			fmt.Fprintf(w, "%s: scale-up for %s failed (seen by minute %.0f): %s\n", r.Name, fl.Pool, fl.At.Minutes(), fl.Reason)
		}
	}
	if oracle != nil {
		fmt.Fprintf(w, "oracle (computed from the trace and the pools, not simulated): GPU-hours paid %.1f, used %.1f, idle %.1f, cost $%.2f\n",
			oracle.PaidGPUHours, oracle.UsedGPUHours, oracle.IdleGPUHours, oracle.Cost)
		for _, j := range oracle.Jobs {
			if j.Unplaceable {
				fmt.Fprintf(w, "oracle: job %s never runs: %s within the pools' max\n", j.Name, j.UnplaceableBy)
			}
		}
	}
	fmt.Fprintln(w)
	_, err := fmt.Fprintln(w, SummaryLine(oracle, runs...))
	return err
}

// SummaryLine is the report's last line: each side's figures and, with an
// oracle, its idle GPU-hours and cost as multiples of the oracle's, then
// the oracle's.
func SummaryLine(oracle *Oracle, runs ...Run) string {
	parts := make([]string, len(runs))
	for i, r := range runs {
		f := r.Figures
		parts[i] = fmt.Sprintf("%s: partial gangs %d, excess nodes %d, idle GPU-hours %.1f, cost $%.2f, broken gangs %d, wait to min mean %.1fm p90 %.1fm",
			r.Name, f.PartialGangs, f.ExcessNodes, f.IdleGPUHours, f.Cost, f.GangsBroken, f.MeanWaitToMin.Minutes(), f.P90WaitToMin.Minutes())
		if r.Figures.Reclaims > 0 {
			parts[i] += fmt.Sprintf(", gangs below min after a reclaim %d", r.Figures.GangsBelowMinByReclaim)
		}
		if oracle != nil {
			parts[i] += fmt.Sprintf(", idle %s and cost %s the oracle's", multiple(f.IdleGPUHours, oracle.IdleGPUHours), multiple(f.Cost, oracle.Cost))
		}
	}
	if oracle != nil {
		parts = append(parts, fmt.Sprintf("oracle: idle GPU-hours %.1f, cost $%.2f", oracle.IdleGPUHours, oracle.Cost))
	}
	return strings.Join(parts, "; ")
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

// TraceSummary is one generated trace's figures, for WriteSummary: the
// sides' names in the report's order, each side's figures over its
// replays of the trace (one each without --repeat), and the oracle's.
type TraceSummary struct {
	Seed   int64
	Sides  []string
	Runs   [][]Figures
	Oracle *Oracle
}

// WriteSummary writes one line per replayed trace: partial and broken
// gangs, excess nodes, idle GPU-hours (and as a multiple of the oracle's),
// cost, the mean and p90 wait to min, the gangs done and the mean
// turnaround, the jobs not done by the run's end and the longest wait after
// capacity, each column holding every side's value, in the order its
// header names them. A side replayed more than once shows each figure's
// median over its replays, and the range where they differ: "41.4
// (24.7–47.5)".
func WriteSummary(w io.Writer, traces []TraceSummary) error {
	if len(traces) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "SEED\tPARTIAL GANGS (%s)\tBROKEN GANGS\tEXCESS NODES\tIDLE GPU-HOURS\tIDLE / ORACLE'S\tCOST ($)\tCOST / ORACLE'S\tMEAN WAIT TO MIN\tP90 WAIT TO MIN\tGANGS DONE (MEAN TURNAROUND)\tJOBS NOT DONE\tLONGEST WAIT AFTER CAPACITY\n",
		strings.ToUpper(strings.Join(traces[0].Sides, "/")))
	for _, t := range traces {
		// col is a column: each side's value of get over its runs, as
		// format writes one value, joined in the sides' order.
		col := func(get func(Figures) float64, format func(float64) string) string {
			vs := make([]string, len(t.Runs))
			for i, runs := range t.Runs {
				vs[i] = spreadCell(runs, get, format)
			}
			return strings.Join(vs, " / ")
		}
		ofOracle := func(get func(Figures) float64, ref func(Oracle) float64) string {
			if t.Oracle == nil || ref(*t.Oracle) <= 0 {
				return "-"
			}
			r := ref(*t.Oracle)
			return col(func(f Figures) float64 { return get(f) / r }, func(x float64) string { return fmt.Sprintf("%.2fx", x) })
		}
		count := func(x float64) string { return fmt.Sprintf("%g", x) }
		minutes := func(x float64) string { return fmt.Sprintf("%.1fm", x) }
		tenths := func(x float64) string { return fmt.Sprintf("%.1f", x) }
		vs := make([]string, len(t.Runs))
		for i, runs := range t.Runs {
			vs[i] = spreadCell(runs, func(f Figures) float64 { return float64(f.GangsFinished) }, count) + " (" +
				spreadCell(runs, func(f Figures) float64 { return f.MeanTurnaround.Minutes() }, minutes) + ")"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.Seed,
			col(func(f Figures) float64 { return float64(f.PartialGangs) }, count),
			col(func(f Figures) float64 { return float64(f.GangsBroken) }, count),
			col(func(f Figures) float64 { return float64(f.ExcessNodes) }, count),
			col(func(f Figures) float64 { return f.IdleGPUHours }, tenths),
			ofOracle(func(f Figures) float64 { return f.IdleGPUHours }, func(o Oracle) float64 { return o.IdleGPUHours }),
			col(func(f Figures) float64 { return f.Cost }, func(x float64) string { return fmt.Sprintf("%.0f", x) }),
			ofOracle(func(f Figures) float64 { return f.Cost }, func(o Oracle) float64 { return o.Cost }),
			col(func(f Figures) float64 { return f.MeanWaitToMin.Minutes() }, minutes),
			col(func(f Figures) float64 { return f.P90WaitToMin.Minutes() }, minutes),
			strings.Join(vs, " / "),
			col(func(f Figures) float64 { return float64(f.JobsNotDone) }, count),
			col(func(f Figures) float64 { return f.LongestWaitAfterCapacity.Minutes() }, minutes))
	}
	return tw.Flush()
}

// spreadCell is one side's value of get over its runs: the one value when
// the runs agree (as format writes it), else "median (min–max)".
func spreadCell(runs []Figures, get func(Figures) float64, format func(float64) string) string {
	values := make([]float64, len(runs))
	for i, f := range runs {
		values[i] = get(f)
	}
	s, err := SpreadOf(values)
	if err != nil {
		return "-"
	}
	return s.FormatWith(format)
}
