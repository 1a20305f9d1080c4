// Tests of traces and figures: parsing and its errors, hand-computed figures, plain jobs and launchers, the report and chart, random traces, gangs' node-minutes, repeated traces.

package simulate

import (
	"encoding/xml"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestParseTrace(t *testing.T) {
	cases := []struct {
		name    string
		in      string
		wantErr string
		check   func(*testing.T, Trace)
	}{
		{name: "default", in: DefaultTrace, check: func(t *testing.T, tr Trace) {
			kinds := map[Kind]int{}
			for _, j := range tr.Jobs {
				kinds[j.Kind]++
			}
			if kinds[KindCPU] == 0 || kinds[KindGPU] == 0 || kinds[KindGang] == 0 {
				t.Errorf("default trace kinds %v, want cpu, gpu and gang jobs", kinds)
			}
		}},
		{name: "options and order", in: "5 b gang 4 8 16 30 min=2 max=3 require=zone\n# comment\n\n1 a gpu 1 1 4 2.5\n", check: func(t *testing.T, tr Trace) {
			if len(tr.Jobs) != 2 || tr.Jobs[0].Name != "a" {
				t.Fatalf("jobs %+v, want a then b", tr.Jobs)
			}
			b := tr.Jobs[1]
			if b.Min != 2 || b.Max != 3 || b.Require != "zone" || b.At != 5*time.Minute || b.Run != 30*time.Minute || b.MilliCPU != 16000 {
				t.Errorf("job b = %+v", b)
			}
			if tr.Jobs[0].Run != 150*time.Second {
				t.Errorf("a runs %s, want 2m30s", tr.Jobs[0].Run)
			}
			// b's work is 3 workers x 30m; at its min of 2 it ends at 5+45.
			if tr.Span() != 50*time.Minute {
				t.Errorf("span %s, want 50m", tr.Span())
			}
		}},
		{name: "launcher and priority", in: "0 mpi gang 8 8 16 30 min=4 launcher=2 priority=1000\n", check: func(t *testing.T, tr Trace) {
			j := tr.Jobs[0]
			if j.Members != 9 || j.Min != 5 || j.Max != 9 || j.LauncherMilliCPU != 2000 || j.Priority != 1000 {
				t.Errorf("job = %+v, want 9 members (8 workers and a launcher), min 5, max 9, priority 1000", j)
			}
			if pods := j.Pods(); len(pods) != 9 || pods[0] != "mpi-0" || pods[8] != "mpi-launcher" {
				t.Errorf("pods %v", pods)
			}
		}},
		{name: "spot", in: "0 el gang 4 8 16 30 min=2 spot=true launcher=2\n", check: func(t *testing.T, tr Trace) {
			j := tr.Jobs[0]
			if !j.Spot || j.Min != 3 || j.Max != 5 {
				t.Errorf("job = %+v, want spot, min 3, max 5", j)
			}
			if got := tr.Format(); !strings.Contains(got, "spot=true") {
				t.Errorf("Format lost the spot option:\n%s", got)
			}
			// Work is run-minutes at max workers: at min (2 of 4) it takes twice as long.
			if tr.Span() != 60*time.Minute || j.Work() != 120*time.Minute {
				t.Errorf("span %s, work %s; want 60m and 4 workers x 30m", tr.Span(), j.Work())
			}
		}},
		{name: "spot on a rigid gang", in: "0 g gang 4 8 16 30 spot=true\n", wantErr: "field spot: only an elastic gang"},
		{name: "spot on a gpu job", in: "0 r gpu 1 1 4 5 spot=true\n", wantErr: "field spot: only an elastic gang"},
		{name: "spot not a bool", in: "0 g gang 4 8 16 30 min=2 spot=maybe\n", wantErr: "field spot: want true or false"},
		{name: "launcher on a plain job", in: "0 r gpu 1 1 4 5 launcher=2\n", wantErr: "field launcher: want a gang job's launcher"},
		{name: "too few fields", in: "0 a cpu 1 0 8\n", wantErr: "trace line 1: want at least 7 fields"},
		{name: "bad kind", in: "0 a tpu 1 0 8 5\n", wantErr: "trace line 1: field kind: want cpu, gpu or gang"},
		{name: "duplicate name", in: "0 a cpu 1 0 8 5\n1 a cpu 1 0 8 5\n", wantErr: "trace line 2: field name: \"a\" already used on line 1"},
		{name: "min above members", in: "0 g gang 2 8 8 5 min=3\n", wantErr: "field min: want 1..2"},
		{name: "min above max", in: "0 g gang 4 8 8 5 min=3 max=2\n", wantErr: "min 3 is above max 2"},
		{name: "gpu job without GPUs", in: "0 r gpu 1 0 4 5\n", wantErr: "field gpus: a gpu job needs at least 1 GPU"},
		{name: "negative run", in: "0 r gpu 1 1 4 -5\n", wantErr: "field run-minutes"},
		{name: "unknown option", in: "0 r gpu 1 1 4 5 color=red\n", wantErr: "field color: unknown option"},
		{name: "empty", in: "# nothing\n", wantErr: "trace has no jobs"},
		{name: "NaN minute", in: "NaN r gpu 1 1 4 5\n", wantErr: "trace line 1: field minute: want a number of minutes, got \"NaN\""},
		{name: "infinite run", in: "0 r gpu 1 1 4 +Inf\n", wantErr: "field run-minutes: want a number of minutes, got \"+Inf\""},
		{name: "NaN run", in: "0 r gpu 1 1 4 nan\n", wantErr: "field run-minutes: want a number of minutes"},
		{name: "minute that overflows", in: "1e300 r gpu 1 1 4 5\n", wantErr: "field minute: want 0 to 1048576 minutes"},
		{name: "run that overflows", in: "0 r gpu 1 1 4 1e18\n", wantErr: "field run-minutes: want 0 to 1048576 minutes"},
		{name: "upper-case name", in: "0 Train_Job gpu 1 1 4 5\n", wantErr: "field name: \"Train_Job\" is not a valid job name"},
		{name: "name too long for its pods", in: "0 " + strings.Repeat("a", 60) + " gang 2 8 8 5 launcher=2\n", wantErr: "is too long for its pods' names"},
		{name: "members beyond bound", in: "0 g gang 1000000000000 8 8 5\n", wantErr: "field members: want a whole number from 1 to 10000"},
		{name: "GPUs beyond bound", in: "0 g gang 2 9999999999999 8 5\n", wantErr: "field gpus: want a whole number from 0 to 1024"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := ParseTrace(strings.NewReader(tc.in))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, tr)
		})
	}
}

// A hand-computed run: a gang that started, one that got only part of its
// members, a node never used.
func TestFigures(t *testing.T) {
	m := time.Minute
	r := NewRecord()
	r.NodeUp("cpu-0", "cpu", 0, 0)
	r.NodeUp("h-0", "gpu-heavy", 8, 10*m)
	r.NodeUp("h-1", "gpu-heavy", 8, 10*m)
	r.NodeUp("h-2", "gpu-heavy", 8, 20*m) // never used
	good := Job{Name: "good", Kind: KindGang, Members: 2, Min: 2, Max: 2, GPUs: 8}
	part := Job{Name: "part", Kind: KindGang, Members: 3, Min: 3, Max: 3, GPUs: 8, At: 5 * m}
	r.JobCreated(good, 0)
	r.JobCreated(part, 5*m)
	r.PodBound("good", "good-0", "h-0", 12*m)
	r.PodBound("good", "good-1", "h-1", 13*m)
	r.JobStarted("good", 13*m)
	r.PodDone("good", "good-0", "h-0", 8, 42*m)
	r.PodDone("good", "good-1", "h-1", 8, 43*m)
	r.PodBound("part", "part-0", "h-0", 50*m)
	r.PodDone("part", "part-0", "h-0", 8, 60*m)
	r.NodeDown("h-2", 30*m)
	r.End = 70 * m
	f := r.Figures(map[string]bool{"cpu-0": true})

	if f.PartialGangs != 1 || f.ExcessNodes != 1 {
		t.Errorf("partial %d excess %d, want 1 and 1", f.PartialGangs, f.ExcessNodes)
	}
	if f.NodesAdded["gpu-heavy"] != 3 || f.NodesAdded["cpu"] != 0 {
		t.Errorf("nodes added %v, want gpu-heavy 3 and no cpu", f.NodesAdded)
	}
	// Provisioned: h-0 and h-1 60 min x 8, h-2 10 min x 8 = 1040 GPU-minutes.
	// Used: good's members from its start at 13 to 42 and 43, 59 min x 8 =
	// 472 GPU-minutes; part never started, so its member only held GPUs.
	if !near(f.ProvisionedGPUHours, 1040.0/60) || !near(f.UsedGPUHours, 472.0/60) || !near(f.IdleGPUHours, 568.0/60) {
		t.Errorf("GPU-hours provisioned %.2f used %.2f idle %.2f, want 17.33, 7.87, 9.47", f.ProvisionedGPUHours, f.UsedGPUHours, f.IdleGPUHours)
	}
	if len(f.Jobs) != 2 || f.Jobs[0].Name != "good" || !f.Jobs[0].AtMin || f.Jobs[0].ToMin != 13*m || f.Jobs[1].AtMin || f.Jobs[1].MostRunning != 1 {
		t.Errorf("jobs %+v", f.Jobs)
	}
	// good's two nodes were up at 10 and it started at 13; part never had
	// three nodes' GPUs free at once.
	if f.LongestWaitAfterCapacity != 3*m || f.LongestWaitGang != "good" {
		t.Errorf("longest wait after capacity %s (%s), want 3m (good)", f.LongestWaitAfterCapacity, f.LongestWaitGang)
	}
	// GPUs paid for step with the heavy nodes: two at 10, a third 20-30.
	series, _ := r.GPUSeries()
	want := []Level{{0, 0}, {10 * m, 16}, {20 * m, 24}, {30 * m, 16}, {70 * m, 16}}
	if len(series) != len(want) {
		t.Fatalf("series %v, want %v", series, want)
	}
	for i := range want {
		if series[i] != want[i] {
			t.Errorf("series[%d] = %v, want %v", i, series[i], want[i])
		}
	}
}

// TestFiguresPlainJobOneAtATime: each pod of a plain job works on its own,
// so two pods that ran one after the other reach min, while a gang whose
// members ran one after the other never did.
func TestFiguresPlainJobOneAtATime(t *testing.T) {
	m := time.Minute
	r := NewRecord()
	r.NodeUp("cpu-0", "cpu", 0, 0)
	etl := Job{Name: "etl", Kind: KindCPU, Members: 2, Min: 2, Max: 2}
	gang := Job{Name: "g", Kind: KindGang, Members: 2, Min: 2, Max: 2}
	r.JobCreated(etl, 0)
	r.JobCreated(gang, 0)
	r.PodBound("etl", "etl-0", "cpu-0", 1*m)
	r.PodDone("etl", "etl-0", "cpu-0", 0, 10*m)
	r.PodBound("etl", "etl-1", "cpu-0", 11*m)
	r.PodBound("g", "g-0", "cpu-0", 1*m)
	r.PodDone("g", "g-0", "cpu-0", 0, 10*m)
	r.PodBound("g", "g-1", "cpu-0", 11*m)
	r.End = 20 * m
	f := r.Figures(nil)
	byName := map[string]JobFigures{}
	for _, j := range f.Jobs {
		byName[j.Name] = j
	}
	if e := byName["etl"]; !e.AtMin || !e.AtMax || e.ToMin != 11*m {
		t.Errorf("etl %+v, want at min and max after 11m", e)
	}
	if g := byName["g"]; g.AtMin || g.MostRunning != 1 {
		t.Errorf("gang %+v, want never at min with 1 running", g)
	}
}

// TestFiguresLauncherUsesNoGPU: an MPIJob-style launcher (and a pod that
// replaced it) works with CPUs only; its time counts for no GPU.
func TestFiguresLauncherUsesNoGPU(t *testing.T) {
	m := time.Minute
	r := NewRecord()
	r.NodeUp("cpu-0", "cpu", 0, 0)
	r.NodeUp("h-0", "gpu-heavy", 8, 0)
	r.NodeUp("h-1", "gpu-heavy", 8, 0)
	mpi := Job{Name: "mpi", Kind: KindGang, Members: 3, Min: 3, Max: 3, GPUs: 8, LauncherMilliCPU: 2000}
	r.JobCreated(mpi, 0)
	r.PodBound("mpi", "mpi-0", "h-0", 10*m)
	r.PodBound("mpi", "mpi-1", "h-1", 10*m)
	r.PodBound("mpi", "mpi-launcher", "cpu-0", 10*m)
	r.JobStarted("mpi", 10*m)
	r.PodDone("mpi", "mpi-launcher", "cpu-0", 0, 20*m) // evicted and replaced
	r.PodBound("mpi", "mpi-launcher-r1", "cpu-0", 20*m)
	r.End = 40 * m
	f := r.Figures(map[string]bool{"cpu-0": true})
	// Provisioned 2 x 8 GPUs x 40 min; used by the two workers 2 x 8 x 30.
	if !near(f.ProvisionedGPUHours, 640.0/60) || !near(f.UsedGPUHours, 480.0/60) || !near(f.IdleGPUHours, 160.0/60) {
		t.Errorf("GPU-hours provisioned %.2f used %.2f idle %.2f, want 10.67, 8.00, 2.67", f.ProvisionedGPUHours, f.UsedGPUHours, f.IdleGPUHours)
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestReportAndChart(t *testing.T) {
	m := time.Minute
	tr, err := ParseTrace(strings.NewReader("0 g gang 2 8 8 30\n"))
	if err != nil {
		t.Fatal(err)
	}
	mk := func(name string, bound int) Run {
		r := NewRecord()
		r.JobCreated(tr.Jobs[0], 0)
		r.NodeUp("n0", "gpu-heavy", 8, m)
		r.NodeUp("n1", "gpu-heavy", 8, m)
		for i := range bound {
			r.PodBound("g", []string{"g-0", "g-1"}[i], []string{"n0", "n1"}[i], 2*m)
		}
		if bound == 2 {
			r.JobStarted("g", 2*m)
		}
		r.End = 40 * m
		r.Prices = map[string]float64{"gpu-heavy": 98.32}
		return Run{Name: name, Record: r, Figures: r.Figures(nil)}
	}
	mu, up, base := mk("muster", 2), mk("upstream", 2), mk("baseline", 1)
	// The oracle: the gang's two H100 nodes up a boot minute before its
	// 30-minute run, 16 GPUs for 31 minutes (8.27 GPU-hours, 0.27 idle)
	// at $98.32 a node-hour: $101.60.
	oracle := OracleOf(tr, []OraclePool{{Name: "gpu-heavy", GPUs: 8, MilliCPU: 96000, Max: 8, Boot: m, Price: 98.32, PlacementGroup: true}})
	var sb strings.Builder
	if err := WriteReport(&sb, tr, &oracle, mu, up, base); err != nil {
		t.Fatal(err)
	}
	out := sb.String()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	// Two H100 nodes for 39 minutes at $98.32 an hour each: $127.82, 1.26
	// times the oracle's; idle 16 GPUs for the minute before the bind (and
	// 1 x 8 x 38 minutes more for the baseline's partial gang): 1 and 39
	// times the oracle's.
	wantLast := "muster: partial gangs 0, excess nodes 0, idle GPU-hours 0.3, cost $127.82, broken gangs 0, wait to min mean 2.0m p90 2.0m, idle 1.00x and cost 1.26x the oracle's; " +
		"upstream: partial gangs 0, excess nodes 0, idle GPU-hours 0.3, cost $127.82, broken gangs 0, wait to min mean 2.0m p90 2.0m, idle 1.00x and cost 1.26x the oracle's; " +
		"baseline: partial gangs 1, excess nodes 1, idle GPU-hours 10.4, cost $127.82, broken gangs 0, wait to min mean 40.0m p90 40.0m, idle 39.00x and cost 1.26x the oracle's; " +
		"oracle: idle GPU-hours 0.3, cost $101.60"
	if lines[len(lines)-1] != wantLast {
		t.Errorf("last line %q, want %q", lines[len(lines)-1], wantLast)
	}
	if !strings.Contains(out, "2.0m") || !strings.Contains(out, "never (1 ran)") {
		t.Errorf("report lacks the waits:\n%s", out)
	}
	for _, want := range []string{"MUSTER TO MIN", "UPSTREAM TO MIN", "BASELINE TO MAX", "GPU-hours idle, multiple of the oracle's", "GPU-hours used, share of the oracle's (work done)", "GPU-hours paid 8.3, used 8.0, idle 0.3, cost $101.60"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if !regexp.MustCompile(`(?m)^FIGURE +muster +upstream +baseline$`).MatchString(out) {
		t.Errorf("report's figures are not in a column per side:\n%s", out)
	}
	var svg strings.Builder
	if err := WriteChart(&svg, mu, up, base); err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal([]byte(svg.String()), new(struct{})); err != nil {
		t.Errorf("chart is not well-formed XML: %v", err)
	}
	if c := strings.Count(svg.String(), "<path "); c != 9 {
		t.Errorf("chart has %d series, want 9 (GPUs paid for, one curve per side, then paid for and used in each of 3 runs)", c)
	}
	for _, want := range []string{">trace minute<", ">GPUs<", ">20<", ">40<", "cost $127.82", "GPUs paid for (nodes up), every side", ">muster<", ">upstream<", ">baseline<"} {
		if !strings.Contains(svg.String(), want) {
			t.Errorf("chart lacks %q (axis labels, ticks up to 20 GPUs and minute 40, the cost)", want)
		}
	}
	// The baseline's gang held one node's 8 GPUs from minute 2 and never
	// started: 8 x 38 minutes.
	if !near(base.Figures.PartialGangGPUHours, 8*38.0/60) || mu.Figures.PartialGangGPUHours != 0 {
		t.Errorf("GPU-hours held by gangs that never started: muster %.2f, baseline %.2f, want 0 and %.2f",
			mu.Figures.PartialGangGPUHours, base.Figures.PartialGangGPUHours, 8*38.0/60)
	}
	paid, used := mu.Record.GPUSeries()
	if want := []Level{{0, 0}, {m, 16}, {40 * m, 16}}; fmt.Sprint(paid) != fmt.Sprint(want) {
		t.Errorf("GPUs paid %v, want %v", paid, want)
	}
	if want := []Level{{0, 0}, {2 * m, 16}, {40 * m, 16}}; fmt.Sprint(used) != fmt.Sprint(want) {
		t.Errorf("GPUs used %v, want %v", used, want)
	}
}

func TestNiceStep(t *testing.T) {
	for rough, want := range map[float64]float64{0: 1, 0.3: 1, 3: 5, 12: 20, 45: 50, 160: 200} {
		if got := niceStep(rough); got != want {
			t.Errorf("niceStep(%v) = %v, want %v", rough, got, want)
		}
	}
}

// Random traces are the same for a seed, differ between seeds, hold mixed
// gangs, and read back from their own format.
func TestRandomTraces(t *testing.T) {
	a, b := Random(1), Random(1)
	if a.Format() != b.Format() {
		t.Fatal("two traces from seed 1 differ")
	}
	if Random(2).Format() == a.Format() {
		t.Error("seeds 1 and 2 gave the same trace")
	}
	launchers, elastic, priorities := 0, 0, 0
	for seed := int64(1); seed <= 10; seed++ {
		tr := Random(seed)
		back, err := ParseTrace(strings.NewReader(tr.Format()))
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, tr.Format())
		}
		if back.Format() != tr.Format() {
			t.Errorf("seed %d: trace does not read back the same", seed)
		}
		for _, j := range tr.Jobs {
			if j.LauncherMilliCPU > 0 {
				launchers++
			}
			if j.Min < j.Max {
				elastic++
			}
			if j.Priority > 0 {
				priorities++
			}
			if j.Kind == KindGang && (j.Members-1)*int(j.GPUs) > 64 {
				t.Errorf("seed %d: %s needs more than the heavy pool's 64 GPUs", seed, j.Name)
			}
		}
	}
	if launchers == 0 || elastic == 0 || priorities == 0 {
		t.Errorf("ten traces have %d launchers, %d elastic jobs, %d high-priority jobs; want some of each", launchers, elastic, priorities)
	}
}

func TestGangNodeMinutes(t *testing.T) {
	trace, err := ParseTrace(strings.NewReader(`
0 mpi gang 6 8 16 21 launcher=2
1 half gang 3 4 16 10 min=2
2 big gang 2 16 16 30
3 retrain gpu 1 1 2 7
4 etl cpu 2 0 4 5
`))
	if err != nil {
		t.Fatal(err)
	}
	// mpi: six 8-GPU workers (the launcher takes no GPU node), 21 minutes;
	// half: three 4-GPU members share two 8-GPU nodes, 10 minutes; big
	// fits no 8-GPU node; retrain and etl are no gangs.
	if got, want := trace.GangNodeMinutes(8), 6*21.0+2*10.0; got != want {
		t.Errorf("GangNodeMinutes(8) = %v, want %v", got, want)
	}
	if got := trace.GangNodeMinutes(0); got != 0 {
		t.Errorf("GangNodeMinutes(0) = %v, want 0", got)
	}
}

func TestTraceRepeat(t *testing.T) {
	tr := Trace{Jobs: []Job{{Name: "a", At: 0}, {Name: "b", At: 50 * time.Minute}}}
	day, err := tr.Repeat(time.Hour, 3*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, j := range day.Jobs {
		got = append(got, fmt.Sprintf("%s@%.0f", j.Name, j.At.Minutes()))
	}
	if want := "a@0 b@50 a-c2@60 b-c2@110 a-c3@120 b-c3@170"; strings.Join(got, " ") != want {
		t.Errorf("Repeat = %s, want %s", strings.Join(got, " "), want)
	}
	if tr.Jobs[1].Name != "b" {
		t.Error("Repeat changed the trace it repeats")
	}
	if _, err := tr.Repeat(0, time.Hour); err == nil {
		t.Error("Repeat with a zero period: want an error")
	}
}

// A gang that breaks after it started: the GPU time of its broken run is
// work thrown away, the time its survivor holds a node below min is held by
// a broken gang, neither is used; a gang that never reaches min waits to
// the run's end in the wait figures, and a plain job's pods count as used.
func TestBrokenGangFigures(t *testing.T) {
	tr, err := ParseTrace(strings.NewReader(`0 rigid gang 2 8 16 30
0 never gang 2 8 16 30
0 solo gpu 1 1 2 10
`))
	if err != nil {
		t.Fatal(err)
	}
	m := time.Minute
	r := NewRecord()
	for _, j := range tr.Jobs {
		r.JobCreated(j, 0)
	}
	for _, n := range []string{"n0", "n1", "n2", "n3"} {
		r.NodeUp(n, "gpu-heavy", 8, 0)
	}
	// rigid: both bound at 2m and run; n1's member is lost at 12m, the
	// survivor holds n0 until its replacement binds at 20m, and the gang
	// runs again from 20m to its end at 50m.
	r.PodBound("rigid", "rigid-0", "n0", 2*m)
	r.PodBound("rigid", "rigid-1", "n1", 2*m)
	r.JobStarted("rigid", 2*m)
	r.PodDone("rigid", "rigid-1", "n1", 8, 12*m)
	r.JobBroken("rigid", 12*m)
	r.PodBound("rigid", "rigid-1-r1", "n1", 20*m)
	r.JobStarted("rigid", 20*m)
	r.JobFinished("rigid", 50*m)
	r.PodDone("rigid", "rigid-0", "n0", 8, 50*m)
	r.PodDone("rigid", "rigid-1-r1", "n1", 8, 50*m)
	// never: one member bound at 5m, the other never.
	r.PodBound("never", "never-0", "n2", 5*m)
	// solo: a plain pod from 1m to 11m.
	r.PodBound("solo", "solo-0", "n3", m)
	r.JobStarted("solo", m)
	r.PodDone("solo", "solo-0", "n3", 1, 11*m)
	r.JobFinished("solo", 11*m)
	r.End = 60 * m

	f := r.Figures(nil)
	h := func(gpus, minutes float64) float64 { return gpus * minutes / 60 }
	// rigid's kept run: 2 x 8 GPUs for 30m; solo: 1 GPU for 10m.
	if want := h(16, 30) + h(1, 10); !near(f.UsedGPUHours, want) {
		t.Errorf("used %.2f GPU-hours, want %.2f (the kept run and the plain pod)", f.UsedGPUHours, want)
	}
	// rigid's broken run: 2 x 8 GPUs for 10m.
	if want := h(16, 10); !near(f.LostWorkGPUHours, want) {
		t.Errorf("work thrown away %.2f GPU-hours, want %.2f", f.LostWorkGPUHours, want)
	}
	// rigid's survivor, 12m to 20m; never's member, 5m to the end.
	if want := h(8, 8) + h(8, 55); !near(f.BelowMinGPUHours, want) {
		t.Errorf("held below min %.2f GPU-hours, want %.2f", f.BelowMinGPUHours, want)
	}
	if want := h(8, 55); !near(f.PartialGangGPUHours, want) {
		t.Errorf("held by gangs that never started %.2f, want %.2f", f.PartialGangGPUHours, want)
	}
	if f.GangsBroken != 1 || f.PartialGangs != 1 {
		t.Errorf("broken gangs %d, partial gangs %d; want 1 and 1", f.GangsBroken, f.PartialGangs)
	}
	// Waits over the two gangs: rigid 2m, never 60m (to the end).
	if f.MeanWaitToMin != 31*m || f.P90WaitToMin != 60*m {
		t.Errorf("wait to min mean %s p90 %s, want 31m and 1h (never counted to the end)", f.MeanWaitToMin, f.P90WaitToMin)
	}
	if want := f.ProvisionedGPUHours - f.UsedGPUHours; !near(f.IdleGPUHours, want) {
		t.Errorf("idle %.2f, want paid minus used %.2f", f.IdleGPUHours, want)
	}
	// Turnaround over both gangs: rigid done at 50m, never not done,
	// counted to the end; one gang finished. A gang no pool could hold is
	// left out: then rigid's alone.
	if f.GangsFinished != 1 || f.MeanTurnaround != 55*m || f.JobsNotDone != 1 {
		t.Errorf("gangs finished %d, mean turnaround %s, jobs not done %d; want 1, 55m (50m and 60m to the end), 1", f.GangsFinished, f.MeanTurnaround, f.JobsNotDone)
	}
	r.CannotRun = map[string]bool{"never": true}
	if f := r.Figures(nil); f.MeanTurnaround != 50*m {
		t.Errorf("mean turnaround %s with never unable to run, want rigid's 50m", f.MeanTurnaround)
	}
	_, used := r.GPUSeries()
	for _, l := range used {
		if l.At >= 12*m && l.At < 20*m && l.Value != 0 {
			t.Errorf("the chart shows %d GPUs used at %s, while rigid was broken and solo done", l.Value, l.At)
		}
	}
}

func TestMeanAndP90(t *testing.T) {
	m := time.Minute
	for _, tc := range []struct {
		in        []time.Duration
		mean, p90 time.Duration
	}{
		{nil, 0, 0},
		{[]time.Duration{5 * m}, 5 * m, 5 * m},
		{[]time.Duration{10 * m, 1 * m, 2 * m, 3 * m, 4 * m, 5 * m, 6 * m, 7 * m, 8 * m, 9 * m}, 55 * m / 10, 9 * m},
		{[]time.Duration{1 * m, 2 * m, 3 * m, 4 * m, 5 * m, 6 * m, 7 * m, 8 * m, 9 * m, 10 * m, 11 * m}, 6 * m, 10 * m},
	} {
		if mean, p90 := meanAndP90(tc.in); mean != tc.mean || p90 != tc.p90 {
			t.Errorf("%v: mean %s p90 %s, want %s and %s", tc.in, mean, p90, tc.mean, tc.p90)
		}
	}
}
