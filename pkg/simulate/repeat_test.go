// Tests of repeated runs: the spread of a figure, the repeat of runs of one side, wall time per trace hour, and the repeat table.

package simulate

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestSpreadOf(t *testing.T) {
	cases := []struct {
		name    string
		in      []float64
		want    Spread
		wantErr bool
	}{
		{name: "none", in: nil, wantErr: true},
		{name: "one", in: []float64{3}, want: Spread{3, 3, 3}},
		{name: "odd, unsorted", in: []float64{5, 1, 3}, want: Spread{3, 1, 5}},
		{name: "even: mean of the middle two", in: []float64{4, 1, 2, 10}, want: Spread{3, 1, 10}},
		{name: "all equal", in: []float64{2, 2, 2}, want: Spread{2, 2, 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := SpreadOf(c.in)
			if (err != nil) != c.wantErr {
				t.Fatalf("err %v, want error %t", err, c.wantErr)
			}
			if got != c.want {
				t.Errorf("SpreadOf(%v) = %+v, want %+v", c.in, got, c.want)
			}
		})
	}
}

func TestSpreadOfLeavesItsInput(t *testing.T) {
	in := []float64{3, 1, 2}
	if _, err := SpreadOf(in); err != nil {
		t.Fatal(err)
	}
	if in[0] != 3 || in[1] != 1 || in[2] != 2 {
		t.Errorf("input reordered to %v", in)
	}
}

func TestSpreadFormat(t *testing.T) {
	cases := []struct {
		s    Spread
		verb string
		want string
	}{
		{Spread{2, 2, 2}, "%g", "2"},
		{Spread{2.5, 2, 3}, "%g", "2.5 (2–3)"},
		{Spread{5.25, 5.2, 8.6}, "%.1f", "5.2 (5.2–8.6)"},
		// Runs that differ below the printed precision print as one value.
		{Spread{41.8, 41.79, 41.81}, "%.1f", "41.8"},
	}
	for _, c := range cases {
		if got := c.s.Format(c.verb); got != c.want {
			t.Errorf("%+v.Format(%q) = %q, want %q", c.s, c.verb, got, c.want)
		}
	}
}

// figures builds a run's figures with the fields the repeat table reads.
func figures(partial, excess int, added map[string]int, idle float64, jobs ...JobFigures) Figures {
	return Figures{PartialGangs: partial, ExcessNodes: excess, NodesAdded: added, IdleGPUHours: idle, Jobs: jobs}
}

func TestRepeatOf(t *testing.T) {
	gang := func(toMin time.Duration, at bool) JobFigures {
		return JobFigures{Name: "llm-a", AtMin: at, ToMin: toMin}
	}
	cases := []struct {
		name    string
		runs    []Run
		wantErr string
		check   func(*testing.T, RepeatSide)
	}{
		{name: "no runs", wantErr: "no runs"},
		{name: "mixed sides", runs: []Run{{Name: "muster"}, {Name: "baseline"}}, wantErr: `run 2 is "baseline"`},
		{
			name: "equal runs are exact",
			runs: []Run{
				{Name: "muster", Figures: figures(0, 1, map[string]int{"gpu-heavy": 4}, 2.5, gang(3*time.Minute, true))},
				{Name: "muster", Figures: figures(0, 1, map[string]int{"gpu-heavy": 4}, 2.5, gang(3*time.Minute, true))},
			},
			check: func(t *testing.T, s RepeatSide) {
				for _, f := range s.Figures {
					if !f.Spread.Exact() {
						t.Errorf("%s: %+v, want one value", f.Name, f.Spread)
					}
				}
				for _, f := range s.Figures {
					if f.Name == wallRow {
						t.Errorf("runs that measured no wall time have a %q row", wallRow)
					}
				}
				if j := s.Jobs[0]; j.Reached != 2 || j.ToMin != (Spread{3, 3, 3}) {
					t.Errorf("job %+v, want reached in both, 3 minutes", j)
				}
			},
		},
		{
			name: "spread, a pool one run never used, a job one run never started",
			runs: []Run{
				{Name: "baseline", Figures: figures(1, 2, map[string]int{"gpu-heavy": 4}, 5.2, gang(0, false))},
				{Name: "baseline", Figures: figures(0, 3, map[string]int{"gpu-heavy": 5, "cpu": 1}, 8.6, gang(24*time.Minute, true))},
				{Name: "baseline", Figures: figures(0, 2, map[string]int{"gpu-heavy": 4}, 6.0, gang(20*time.Minute, true))},
			},
			check: func(t *testing.T, s RepeatSide) {
				want := map[string]Spread{
					"partial gangs (GPUs held, never started)": {0, 0, 1},
					"excess nodes (added, never used)":         {2, 2, 3},
					"nodes added":                              {4, 4, 6},
					"  nodes added, cpu":                       {0, 0, 1},
					"  nodes added, gpu-heavy":                 {4, 4, 5},
					"GPU-hours idle":                           {6.0, 5.2, 8.6},
				}
				got := map[string]Spread{}
				for _, f := range s.Figures {
					got[f.Name] = f.Spread
				}
				for name, w := range want {
					if got[name] != w {
						t.Errorf("%s = %+v, want %+v", name, got[name], w)
					}
				}
				if j := s.Jobs[0]; j.Reached != 2 || j.Runs != 3 || j.ToMin != (Spread{22, 20, 24}) {
					t.Errorf("job %+v, want reached in 2 of 3, 22 (20–24) minutes", j)
				}
				if got := s.Jobs[0].cell(); got != "22.0 (20.0–24.0), never in 1 of 3" {
					t.Errorf("job cell %q", got)
				}
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := RepeatOf(c.runs)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err %v, want one saying %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, s)
		})
	}
}

func TestRepeatOfWallPerTraceHour(t *testing.T) {
	run := func(wall time.Duration) Run {
		return Run{Name: "muster", Record: &Record{End: 30 * time.Minute}, Wall: wall}
	}
	s, err := RepeatOf([]Run{run(30 * time.Second), run(45 * time.Second), run(36 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	last := s.Figures[len(s.Figures)-1]
	if last.Name != wallRow || last.Spread != (Spread{72, 60, 90}) {
		t.Errorf("last row %+v, want %s 72 (60–90)", last, wallRow)
	}
}

func TestWriteRepeatTable(t *testing.T) {
	m, err := RepeatOf([]Run{
		{Name: "muster", Figures: figures(0, 0, map[string]int{"gpu-heavy": 6}, 1, JobFigures{Name: "llm-a", AtMin: true, ToMin: 3 * time.Minute})},
		{Name: "muster", Figures: figures(0, 0, map[string]int{"gpu-heavy": 6}, 2, JobFigures{Name: "llm-a", AtMin: true, ToMin: 3 * time.Minute})},
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := RepeatOf([]Run{
		{Name: "baseline", Figures: figures(1, 2, map[string]int{"gpu-heavy": 7, "cpu": 1}, 5, JobFigures{Name: "llm-a"})},
		{Name: "baseline", Figures: figures(1, 3, map[string]int{"gpu-heavy": 8}, 7, JobFigures{Name: "llm-a"})},
	})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteRepeatTable(&out, m, b); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"muster (2 runs)", "baseline (2 runs)",
		// The cpu row exists for both sides: muster never added a cpu node.
		"  nodes added, cpu",
		"excess nodes (added, never used)",
		"2.5 (2–3)",
		"llm-a",
		"never",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
	for _, line := range strings.Split(got, "\n") {
		if strings.HasPrefix(line, "  nodes added, cpu") && len(strings.Fields(line)) != 6 {
			t.Errorf("cpu row %q: want a cell for each side", line)
		}
	}
	if cpu, partial := strings.Index(got, "  nodes added, cpu"), strings.Index(got, "partial gangs"); cpu < 0 || cpu > partial {
		t.Errorf("the cpu pool's row is not with the nodes added:\n%s", got)
	}
	if err := WriteRepeatTable(&out); err == nil {
		t.Error("no sides: want an error")
	}
	line := RepeatSummaryLine(m, b)
	if want := "muster over 2 runs: nodes added 6, partial gangs 0, excess nodes 0, broken gangs 0, wait to min mean 0.0m, p90 0.0m; baseline over 2 runs: nodes added 8, partial gangs 1, excess nodes 2.5 (2–3), broken gangs 0, wait to min mean 0.0m, p90 0.0m"; line != want {
		t.Errorf("summary line\n %q\nwant\n %q", line, want)
	}
}

func TestWallPerTraceHour(t *testing.T) {
	got, err := WallPerTraceHour(90*time.Second, 30*time.Minute)
	if err != nil || got != 3*time.Minute {
		t.Errorf("90s for 30 trace minutes = %s, %v; want 3m0s per trace hour", got, err)
	}
	if _, err := WallPerTraceHour(time.Second, 0); err == nil {
		t.Error("zero trace time: want an error")
	}
}
