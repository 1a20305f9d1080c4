// Repeated runs: the spread of each figure (median, min, max), the repeat table and summary line.

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

// Spread is one figure over repeated runs of the same trace and seed: its
// median, least and greatest value. A reader trusts a figure whose Min and
// Max agree and reads the others as a range.
type Spread struct {
	Median, Min, Max float64
}

// SpreadOf is the spread of values: the median of an even count is the mean
// of the two middle values.
func SpreadOf(values []float64) (Spread, error) {
	if len(values) == 0 {
		return Spread{}, fmt.Errorf("spread: no values")
	}
	s := slices.Clone(values)
	slices.Sort(s)
	n := len(s)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return Spread{Median: med, Min: s[0], Max: s[n-1]}, nil
}

// Exact says every run gave the same value.
func (s Spread) Exact() bool { return s.Min == s.Max }

// Format renders the spread as "median (min–max)" with the verb's precision
// ("%g" for counts, whose median may be a half; "%.1f"), or the one value
// when every run agreed to that precision.
func (s Spread) Format(verb string) string {
	return s.FormatWith(func(x float64) string { return fmt.Sprintf(verb, x) })
}

// FormatWith is Format with format writing each value ("41.4m", "2.07x").
func (s Spread) FormatWith(format func(float64) string) string {
	lo, hi := format(s.Min), format(s.Max)
	if s.Exact() || lo == hi {
		return format(s.Median)
	}
	return fmt.Sprintf("%s (%s–%s)", format(s.Median), lo, hi)
}

// RepeatFigure is one row of the repeat table: a figure's name, how its
// values print, and its spread over one side's runs.
type RepeatFigure struct {
	Name   string
	Verb   string
	Spread Spread
}

// JobSpread is one job's wait to min over repeated runs: the spread of the
// waits of the runs in which it reached min, and in how many it did.
type JobSpread struct {
	Name    string
	Reached int // runs in which the job reached min
	Runs    int
	ToMin   Spread // minutes; zero when Reached is 0
}

// RepeatSide is one side (muster, baseline, ...) of a repeated replay.
type RepeatSide struct {
	Name    string
	Runs    int
	Figures []RepeatFigure
	Jobs    []JobSpread
}

// figureRows are the repeat table's rows, in the order of WriteReport's
// figures; pools get their own rows (see RepeatOf).
var figureRows = []struct {
	name, verb string
	get        func(Figures) float64
}{
	{"nodes added", "%g", func(f Figures) float64 { return float64(sumPools(f.NodesAdded)) }},
	{"partial gangs (GPUs held, never started)", "%g", func(f Figures) float64 { return float64(f.PartialGangs) }},
	{"excess nodes (added, never used)", "%g", func(f Figures) float64 { return float64(f.ExcessNodes) }},
	{"nodes withdrawn while being created", "%g", func(f Figures) float64 { return float64(f.WithdrawnNodes) }},
	{"GPU-hours paid (nodes up)", "%.1f", func(f Figures) float64 { return f.ProvisionedGPUHours }},
	{"GPU-hours used", "%.1f", func(f Figures) float64 { return f.UsedGPUHours }},
	{"GPU-hours idle", "%.1f", func(f Figures) float64 { return f.IdleGPUHours }},
	{"GPU-hours held by gangs that never started", "%.1f", func(f Figures) float64 { return f.PartialGangGPUHours }},
	{"GPU-hours held by gangs below min (never started or broken)", "%.1f", func(f Figures) float64 { return f.BelowMinGPUHours }},
	{"GPU-hours of work thrown away (runs broken)", "%.1f", func(f Figures) float64 { return f.LostWorkGPUHours }},
	{"gangs broken after they started", "%g", func(f Figures) float64 { return float64(f.GangsBroken) }},
	{"cost ($)", "%.2f", func(f Figures) float64 { return f.Cost }},
	{"gangs finished", "%g", func(f Figures) float64 { return float64(f.GangsFinished) }},
	{"mean gang turnaround (minutes)", "%.1f", func(f Figures) float64 { return f.MeanTurnaround.Minutes() }},
	{"mean wait to min over all gangs (minutes)", "%.1f", func(f Figures) float64 { return f.MeanWaitToMin.Minutes() }},
	{"p90 wait to min over all gangs (minutes)", "%.1f", func(f Figures) float64 { return f.P90WaitToMin.Minutes() }},
	{"failed scale-ups", "%g", func(f Figures) float64 { return float64(len(f.Failures)) }},
	{"longest wait of a gang after capacity existed (minutes)", "%.1f", func(f Figures) float64 { return f.LongestWaitAfterCapacity.Minutes() }},
}

// wallRow is the table's last row, wall time per trace hour.
const wallRow = "wall seconds per trace hour"

// poolRow starts the name of a row of nodes added to one pool.
const poolRow = "  nodes added, "

// rowRank orders the table's rows as figureRows, each pool's row just after
// the nodes added in all.
func rowRank(name string) int {
	if strings.HasPrefix(name, poolRow) {
		return 1
	}
	for i, r := range figureRows {
		if r.name == name {
			return 2 * i
		}
	}
	return 2 * len(figureRows)
}

func sumPools(m map[string]int) int {
	n := 0
	for _, c := range m {
		n += c
	}
	return n
}

// RepeatOf aggregates one side's repeated runs of the same trace: each
// figure's spread, nodes added also per pool (a pool a run added none to
// counts 0 in it), and each job's wait to min. The runs must all have the
// side's name.
func RepeatOf(runs []Run) (RepeatSide, error) {
	if len(runs) == 0 {
		return RepeatSide{}, fmt.Errorf("repeat: no runs")
	}
	side := RepeatSide{Name: runs[0].Name, Runs: len(runs)}
	for i, r := range runs {
		if r.Name != side.Name {
			return RepeatSide{}, fmt.Errorf("repeat: run %d is %q, want every run of side %q", i+1, r.Name, side.Name)
		}
	}
	values := func(get func(Figures) float64) []float64 {
		v := make([]float64, len(runs))
		for i, r := range runs {
			v[i] = get(r.Figures)
		}
		return v
	}
	add := func(name, verb string, get func(Figures) float64) error {
		s, err := SpreadOf(values(get))
		if err != nil {
			return err
		}
		side.Figures = append(side.Figures, RepeatFigure{Name: name, Verb: verb, Spread: s})
		return nil
	}
	for _, row := range figureRows {
		if err := add(row.name, row.verb, row.get); err != nil {
			return RepeatSide{}, err
		}
		if row.name != "nodes added" {
			continue
		}
		var pools []string
		for _, r := range runs {
			for p := range r.Figures.NodesAdded {
				if !slices.Contains(pools, p) {
					pools = append(pools, p)
				}
			}
		}
		sort.Strings(pools)
		for _, p := range pools {
			if err := add(poolRow+p, "%g", func(f Figures) float64 { return float64(f.NodesAdded[p]) }); err != nil {
				return RepeatSide{}, err
			}
		}
	}
	// Wall time per trace hour, where every run measured it: how long a
	// reader waits for a day of trace, and a check that the load of the
	// machine did not stretch one run.
	var perHour []float64
	for _, r := range runs {
		if r.Wall <= 0 || r.Record == nil {
			break
		}
		ph, err := WallPerTraceHour(r.Wall, r.Record.End)
		if err != nil {
			break
		}
		perHour = append(perHour, ph.Seconds())
	}
	if len(perHour) == len(runs) {
		s, _ := SpreadOf(perHour)
		side.Figures = append(side.Figures, RepeatFigure{Name: wallRow, Verb: "%.1f", Spread: s})
	}

	// Jobs in the first run's order (arrival, then name).
	for _, jf := range runs[0].Figures.Jobs {
		js := JobSpread{Name: jf.Name, Runs: len(runs)}
		var waits []float64
		for _, r := range runs {
			for _, o := range r.Figures.Jobs {
				if o.Name == jf.Name && o.AtMin {
					waits = append(waits, o.ToMin.Minutes())
				}
			}
		}
		js.Reached = len(waits)
		if len(waits) > 0 {
			js.ToMin, _ = SpreadOf(waits)
		}
		side.Jobs = append(side.Jobs, js)
	}
	return side, nil
}

// WriteRepeatTable writes each side's figures over its runs as median
// (min–max), side by side, then each job's wait to min.
func WriteRepeatTable(w io.Writer, sides ...RepeatSide) error {
	if len(sides) == 0 {
		return fmt.Errorf("repeat table: no sides")
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "FIGURE: MEDIAN (MIN–MAX)")
	for _, s := range sides {
		fmt.Fprintf(tw, "\t%s (%d runs)", s.Name, s.Runs)
	}
	fmt.Fprintln(tw)
	// Rows by name: sides may differ in the pools they added nodes to.
	var names []string
	verbs := map[string]string{}
	for _, s := range sides {
		for _, f := range s.Figures {
			if _, ok := verbs[f.Name]; !ok {
				names = append(names, f.Name)
				verbs[f.Name] = f.Verb
			}
		}
	}
	slices.SortStableFunc(names, func(a, b string) int {
		if ra, rb := rowRank(a), rowRank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a, b)
	})
	for _, name := range names {
		fmt.Fprint(tw, name)
		for _, s := range sides {
			cell := fmt.Sprintf(verbs[name], 0.0)
			for _, f := range s.Figures {
				if f.Name == name {
					cell = f.Spread.Format(f.Verb)
				}
			}
			fmt.Fprintf(tw, "\t%s", cell)
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "JOB: MINUTES TO MIN")
	for _, s := range sides {
		fmt.Fprintf(tw, "\t%s", s.Name)
	}
	fmt.Fprintln(tw)
	for _, j := range sides[0].Jobs {
		fmt.Fprint(tw, j.Name)
		for _, s := range sides {
			cell := "-"
			for _, o := range s.Jobs {
				if o.Name == j.Name {
					cell = o.cell()
				}
			}
			fmt.Fprintf(tw, "\t%s", cell)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

func (j JobSpread) cell() string {
	switch {
	case j.Reached == 0:
		return "never"
	case j.Reached < j.Runs:
		return fmt.Sprintf("%s, never in %d of %d", j.ToMin.Format("%.1f"), j.Runs-j.Reached, j.Runs)
	}
	return j.ToMin.Format("%.1f")
}

// RepeatSummaryLine is the repeat report's last line: per side, the spread of
// the figures a reader must be able to trust (nodes added, partial and
// broken gangs, excess nodes) and of the waits to min (mean, p90).
func RepeatSummaryLine(sides ...RepeatSide) string {
	parts := make([]string, len(sides))
	for i, s := range sides {
		var fs []string
		for _, f := range s.Figures {
			switch f.Name {
			case "partial gangs (GPUs held, never started)":
				fs = append(fs, "partial gangs "+f.Spread.Format(f.Verb))
			case "excess nodes (added, never used)":
				fs = append(fs, "excess nodes "+f.Spread.Format(f.Verb))
			case "gangs broken after they started":
				fs = append(fs, "broken gangs "+f.Spread.Format(f.Verb))
			case "mean wait to min over all gangs (minutes)":
				fs = append(fs, "wait to min mean "+f.Spread.Format(f.Verb)+"m")
			case "p90 wait to min over all gangs (minutes)":
				fs = append(fs, "p90 "+f.Spread.Format(f.Verb)+"m")
			case "nodes added":
				fs = append(fs, "nodes added "+f.Spread.Format(f.Verb))
			}
		}
		parts[i] = fmt.Sprintf("%s over %d runs: %s", s.Name, s.Runs, strings.Join(fs, ", "))
	}
	return strings.Join(parts, "; ")
}

// WallPerTraceHour is the wall time a run took per hour of trace time.
func WallPerTraceHour(wall, trace time.Duration) (time.Duration, error) {
	if trace <= 0 {
		return 0, fmt.Errorf("wall per trace hour: trace time %s must be positive", trace)
	}
	return time.Duration(float64(wall) / trace.Hours()), nil
}
