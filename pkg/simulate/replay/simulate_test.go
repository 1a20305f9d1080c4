// Tests of the simulate and chaos commands: smoke runs with and without Muster's hints and spot, the short chaos run, plain jobs' replacements, flags, progress, the trace clock.

package replay

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/muster-project/muster/pkg/controlplane"
	"github.com/muster-project/muster/pkg/simulate"
)

// smokeTrace has one job of each kind that must run, and a gang of 9 x 8
// GPUs that can never fit (the heavy pool holds 8 such members at its max).
const smokeTrace = `# minute name kind members gpus cpu run-minutes options
0 etl   cpu  1 0 2  3
0 pair  gang 2 8 16 4 require=placement-group
1 huge  gang 9 8 16 3 require=placement-group
`

// TestSimulateSmoke runs the whole loop the way make simulate does, on a
// short trace: the in-process API server and scheduler, armlocal with its
// node agent and the muster-autoscaler binary as separate processes, with
// Muster's hints and then with the baseline.
func TestSimulateSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the autoscaler binaries and runs the whole stack twice")
	}
	if err := controlplane.SetupLogging(0); err != nil {
		t.Fatal(err)
	}
	binDir := buildAutoscalerBinaries(t)
	dir := t.TempDir()
	tracePath := filepath.Join(dir, "smoke.trace")
	if err := os.WriteFile(tracePath, []byte(smokeTrace), 0o644); err != nil {
		t.Fatal(err)
	}
	// The user's pools, as the default ones but priced by the file.
	poolsPath := filepath.Join(dir, "pools.yaml")
	pools := strings.NewReplacer("pricePerHour: 98.32", "pricePerHour: 50", "bootMinutes: 10", "bootMinutes: 3", "bootMinutes: 5", "bootMinutes: 3").Replace(simulate.ExamplePools)
	if err := os.WriteFile(poolsPath, []byte(pools), 0o644); err != nil {
		t.Fatal(err)
	}
	o := Options{TracePath: tracePath, PoolsPath: poolsPath, BinDir: binDir, Minute: time.Second, Chart: filepath.Join(dir, "chart.svg"), Grace: 8 * time.Minute,
		// Muster against the default scheduler on the wall-time clock;
		// TestSimulateSides replays all three sides stepped.
		Sides: []string{"muster", "default"}}
	var progress bytes.Buffer
	trace, runs, err := simulateRuns(context.Background(), &progress, o, nil)
	t.Log(progress.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].Name != "muster" || runs[1].Name != "baseline" {
		t.Fatalf("runs %v, want muster then baseline", runs)
	}

	m := runs[0].Figures
	waits := map[string]simulate.JobFigures{}
	for _, j := range m.Jobs {
		waits[j.Name] = j
	}
	for _, name := range []string{"etl", "pair"} {
		if !waits[name].AtMin {
			t.Errorf("muster: %s never reached min: %+v", name, waits[name])
		}
	}
	if waits["huge"].MostRunning != 0 {
		t.Errorf("muster: %d members of the gang that can never fit were bound", waits["huge"].MostRunning)
	}
	if m.PartialGangs != 0 || m.ExcessNodes != 0 {
		t.Errorf("muster: partial gangs %d, excess nodes %d %v, want none", m.PartialGangs, m.ExcessNodes, m.Excess)
	}
	// Exactly the pair's two heavy nodes: none for the gang that can never fit.
	if got := m.NodesAdded["gpu-heavy"]; got != 2 {
		t.Errorf("muster: %d heavy nodes added, want exactly the pair's 2", got)
	}
	if got := m.NodesAdded["gpu-light"]; got != 0 {
		t.Errorf("muster: %d light-GPU nodes added, want none", got)
	}
	never := false
	for _, f := range m.Failures {
		never = never || strings.Contains(f.Pool, "muster-huge-") && strings.Contains(f.Reason, "even at its max size")
	}
	if !never {
		t.Errorf("muster: no failed scale-up says the huge gang can never fit: %+v", m.Failures)
	}

	// The cost is the nodes' hours at the file's prices.
	var want float64
	for _, n := range runs[0].Record.Nodes {
		end := n.Down
		if end == 0 {
			end = runs[0].Record.End
		}
		want += map[string]float64{"cpu": 0.768, "gpu-light": 0.526, "gpu-heavy": 50}[n.Pool] * (end - n.Up).Hours()
	}
	if want == 0 || m.Cost < want-1e-6 || m.Cost > want+1e-6 {
		t.Errorf("muster: cost $%.4f, want $%.4f from the pools file's prices", m.Cost, want)
	}

	var out bytes.Buffer
	if err := simulate.WriteReport(&out, trace, nil, runs...); err != nil {
		t.Fatal(err)
	}
	t.Log(out.String())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	last := regexp.MustCompile(`^muster: partial gangs 0, excess nodes 0, idle GPU-hours [0-9.]+, cost \$[0-9.]+, broken gangs 0, wait to min mean [0-9.]+m p90 [0-9.]+m; baseline: partial gangs [0-9]+, excess nodes [0-9]+, idle GPU-hours [0-9.]+, cost \$[0-9.]+, broken gangs [0-9]+, wait to min mean [0-9.]+m p90 [0-9.]+m$`)
	if !last.MatchString(lines[len(lines)-1]) {
		t.Errorf("last line %q, want %s", lines[len(lines)-1], last)
	}
	if chart, err := os.ReadFile(o.Chart); err != nil || !bytes.Contains(chart, []byte("<svg")) {
		t.Errorf("chart %s: %v, want an SVG", o.Chart, err)
	}
}

// TestSimulateSpotSmoke is make simulate-spot's CI variant: one elastic
// gang that opts in to spot (min 1 of 3 workers), a regular and a spot H100
// pool, and a reclaim rate under which seed 1 reclaims the spot pool's first
// node about 5 trace minutes after it comes up. Three runs: Muster with spot
// puts the quorum on the regular pool and the extras on spot, a reclaim
// shrinks the gang without taking it below min; Muster without spot buys no
// spot node.
func TestSimulateSpotSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the autoscaler binaries and runs the whole stack three times")
	}
	if err := controlplane.SetupLogging(0); err != nil {
		t.Fatal(err)
	}
	binDir := buildAutoscalerBinaries(t)
	dir := t.TempDir()
	tracePath := filepath.Join(dir, "spot.trace")
	if err := os.WriteFile(tracePath, []byte("0 el gang 3 8 16 15 min=1 spot=true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	poolsPath := filepath.Join(dir, "pools.yaml")
	pools := `pools:
- name: gpu-heavy
  vmSize: Standard_ND96isr_H100_v5
  max: 4
  bootMinutes: 3
  pricePerHour: 50
  familyQuotaVCPUs: 1000
- name: gpu-spot
  vmSize: Standard_ND96isr_H100_v5
  max: 4
  bootMinutes: 3
  pricePerHour: 15
  spot: true
  reclaimPerHour: 6
`
	if err := os.WriteFile(poolsPath, []byte(pools), 0o644); err != nil {
		t.Fatal(err)
	}
	if after, _ := simulate.ReclaimAfter(1, "gpu-spot000000", 6); after > 6*time.Minute {
		t.Fatalf("seed 1 reclaims gpu-spot000000 after %s; the test counts on a reclaim within its run", after)
	}
	o := Options{TracePath: tracePath, PoolsPath: poolsPath, BinDir: binDir, Minute: time.Second, Grace: 4 * time.Minute, Seed: 1, Sides: []string{"muster", "default"}}
	var progress bytes.Buffer
	trace, runs, err := simulateRuns(context.Background(), &progress, o, nil)
	t.Log(progress.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 3 || runs[0].Name != "muster" || runs[1].Name != "muster-no-spot" || runs[2].Name != "baseline" {
		t.Fatalf("runs %v, want muster, muster-no-spot, baseline", runs)
	}
	var out bytes.Buffer
	if err := simulate.WriteReport(&out, trace, nil, runs...); err != nil {
		t.Fatal(err)
	}
	t.Log(out.String())

	m := runs[0]
	if m.Figures.NodesAdded["gpu-spot"] == 0 || m.Figures.Reclaims == 0 || m.Figures.ReclaimedMembers == 0 {
		t.Errorf("muster: spot nodes added %d, reclaimed %d (members on them %d); want the extras on spot and a reclaim among them",
			m.Figures.NodesAdded["gpu-spot"], m.Figures.Reclaims, m.Figures.ReclaimedMembers)
	}
	if m.Figures.GangsBelowMinByReclaim != 0 || m.Figures.PartialGangs != 0 {
		t.Errorf("muster: %d gangs below min after a reclaim, %d partial; want none", m.Figures.GangsBelowMinByReclaim, m.Figures.PartialGangs)
	}
	jr := m.Record.Jobs["el"]
	if jr == nil || jr.Finished == 0 {
		t.Fatalf("muster: job el did not finish: %+v", jr)
	}
	// The quorum is the first member bound: on the regular pool.
	first, firstAt := "", time.Duration(-1)
	for pod, at := range jr.Bound {
		if firstAt < 0 || at < firstAt {
			first, firstAt = pod, at
		}
	}
	if n := m.Record.Nodes[jr.Node[first]]; n == nil || n.Pool != "gpu-heavy" {
		t.Errorf("muster: the quorum member %s ran on %s, want the regular pool", first, jr.Node[first])
	}
	if got := runs[1].Figures.NodesAdded["gpu-spot"]; got != 0 {
		t.Errorf("muster-no-spot: %d spot nodes added, want none", got)
	}
	if !strings.Contains(out.String(), "spot nodes reclaimed (members on them)") {
		t.Errorf("report lacks the reclaims row")
	}
}

// buildAutoscalerBinaries builds armlocal and muster-autoscaler from the
// nested autoscaler module, with its Makefile's flags, into a temporary
// directory.
func buildAutoscalerBinaries(t *testing.T) string {
	t.Helper()
	module := filepath.Join("..", "..", "..", "autoscaler")
	bin := t.TempDir()
	env := append(os.Environ(), "GOFLAGS=-mod=mod -tags=kwok")
	build := exec.Command(goBinary(), "build", "-o", bin+string(os.PathSeparator), "./cmd/armlocal", "./cmd/muster-autoscaler")
	build.Dir, build.Env = module, env
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the autoscaler binaries: %v\n%s", err, out)
	}
	// go test caches a pass by the files the test read; the binaries are
	// built in a subprocess, so read their sources here, or a changed
	// autoscaler would replay a cached pass.
	list := exec.Command(goBinary(), "list", "-deps", "-f", "{{if .Module}}{{if .Module.Main}}{{.Dir}}{{end}}{{end}}", "./cmd/armlocal", "./cmd/muster-autoscaler")
	list.Dir, list.Env = module, env
	out, err := list.Output()
	if err != nil {
		t.Fatalf("listing the autoscaler binaries' packages: %v", err)
	}
	files := []string{filepath.Join(module, "go.mod"), filepath.Join(module, "go.sum")}
	for _, d := range strings.Fields(string(out)) {
		matches, err := filepath.Glob(filepath.Join(d, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, matches...)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		if _, err := os.ReadFile(f); err != nil {
			t.Fatalf("reading %s: %v", f, err)
		}
	}
	return bin
}

// goBinary is the go command of the toolchain running the test.
func goBinary() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

// TestChaosShort is make chaos's CI variant: one seed, the first burst of its
// trace, every fault the window has room for, and all figures 0.
func TestChaosShort(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the scheduler and autoscaler binaries and runs the whole stack with faults")
	}
	if err := controlplane.SetupLogging(0); err != nil {
		t.Fatal(err)
	}
	binDir := buildAutoscalerBinaries(t)
	scheduler := filepath.Join(t.TempDir(), "muster-scheduler")
	build := exec.Command(goBinary(), "build", "-o", scheduler, "../../../cmd/muster-scheduler")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building muster-scheduler: %v\n%s", err, out)
	}
	o := ChaosOptions{Sim: Options{BinDir: binDir, Minute: time.Second, Seed: chaosCISeed}, Seeds: 1, SchedulerBin: scheduler, Short: true}
	var out, progress bytes.Buffer
	runs, err := Chaos(context.Background(), &out, &progress, o)
	t.Log(progress.String())
	t.Log(out.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].Done != runs[0].Jobs {
		t.Fatalf("runs %+v, want one with every job done", runs)
	}
	kinds := 0
	for _, n := range runs[0].Faults {
		kinds += min(n, 1)
	}
	if kinds < 5 {
		t.Errorf("faults injected %v, want at least five kinds", runs[0].Faults)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if want := "chaos: runs 1, partial gangs 0, leaked VMs 0, VMs deleted unasked 0, pools past max 0, starved gangs 0"; lines[len(lines)-1] != want {
		t.Errorf("last line %q, want %q", lines[len(lines)-1], want)
	}
}

// chaosCISeed is the seed CI's short chaos run replays.
const chaosCISeed = 1

// TestPlainJobDoneOnceItsReplacementsRan: a pod of a plain job lost with its
// node is replaced; the job is done only when the replacement has run too,
// and counted once however its pods end.
func TestPlainJobDoneOnceItsReplacementsRan(t *testing.T) {
	j := simulate.Job{Name: "etl", Kind: simulate.KindCPU, Members: 2, Min: 2, Max: 2, MilliCPU: 1000}
	w := &watcher{rec: simulate.NewRecord(), clk: clock{start: time.Now(), minute: time.Second}, jobs: map[string]simulate.Job{j.Name: j},
		done: map[string]bool{}, current: map[string][]string{}}
	w.created(j)
	w.rec.PodBound("etl", "etl-0", "n1", time.Minute)
	w.rec.PodBound("etl", "etl-1", "n2", time.Minute)
	// etl-0 is lost with n1 and replaced by etl-0-r1; etl-1 runs to its end.
	w.rec.PodDone("etl", "etl-0", "n1", 0, 2*time.Minute)
	w.current["etl"][0] = "etl-0-r1"
	w.rec.PodDone("etl", "etl-1", "n2", 0, 3*time.Minute)
	if w.podsOfJobDone(j) {
		t.Fatalf("job etl done while its replacement etl-0-r1 has not run")
	}
	w.rec.PodBound("etl", "etl-0-r1", "n3", 3*time.Minute)
	w.rec.PodDone("etl", "etl-0-r1", "n3", 0, 4*time.Minute)
	if !w.podsOfJobDone(j) {
		t.Fatalf("job etl not done after every current pod ran: %v", w.current["etl"])
	}
}

// The chaos run's stop leaves a heavy trace time for its work: seed 5's
// gangs ask about 1060 node-minutes of the 8-node heavy pool.
func TestChaosHardStopFollowsTheWork(t *testing.T) {
	pools := []poolInfo{{Name: "cpu", Max: 10}, {Name: "gpu-light", Max: 8, GPUs: 1}, {Name: "gpu-heavy", Max: 8, GPUs: 8}}
	heavy := simulate.Random(5)
	work := heavy.GangNodeMinutes(8)
	if work < 1000 {
		t.Fatalf("seed 5 asks %v node-minutes, want the heavy trace this test is about", work)
	}
	want := heavy.Jobs[0].At + time.Duration(work/8*chaosWorkFactor*float64(time.Minute))
	if got := chaosHardStop(heavy, pools); got != want || got <= heavy.Span()+chaosOvertime {
		t.Errorf("heavy trace: stop at %v, want %v (past span+overtime %v)", got, want, heavy.Span()+chaosOvertime)
	}
	light, err := simulate.ParseTrace(strings.NewReader("3 small gang 2 8 16 10\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := chaosHardStop(light, pools), light.Span()+chaosOvertime; got != want {
		t.Errorf("light trace: stop at %v, want span+overtime %v", got, want)
	}
}

func TestShowProgress(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var buf bytes.Buffer
	for _, tc := range []struct {
		w    io.Writer
		mode string
		want bool
	}{
		{f, "auto", false}, // a file is no terminal
		{&buf, "auto", false},
		{f, "always", true},
		{f, "never", false},
	} {
		if got := ShowProgress(tc.w, tc.mode); got != tc.want {
			t.Errorf("ShowProgress(%T, %s) = %v, want %v", tc.w, tc.mode, got, tc.want)
		}
	}
}

// TestSimulateRepeatFlags checks --repeat's and --until's bad values and
// combinations are refused, naming the flag, before anything starts.
func TestSimulateRepeatFlags(t *testing.T) {
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Repeat: 0, Minute: time.Second}, "--repeat: want 1 or more"},
		{Options{Repeat: -2, Minute: time.Second}, "--repeat: want 1 or more"},
		// --repeat goes with --random (each trace replayed so often), not with --trace.
		{Options{Repeat: 2, Random: 3, TracePath: "given.trace", Until: UntilHorizon, Minute: time.Second}, "--trace and --random"},
		{Options{Repeat: 1, Until: "finished", Minute: time.Second}, `--until: want done or horizon, got "finished"`},
		{Options{Repeat: 1, Until: UntilDone, Minute: time.Second}, "--overtime: want a positive trace duration with --until done"},
	} {
		err := Simulate(context.Background(), io.Discard, io.Discard, tc.o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err %v, want one saying %q", tc.o, err, tc.want)
		}
	}
}

// TestServeTraceClock reads the trace clock armlocal runs on: it moves a
// trace minute per --minute of wall time, from the clock's start.
func TestServeTraceClock(t *testing.T) {
	clk := clock{start: time.Now(), minute: 10 * time.Millisecond}
	url, stop, err := serveTraceClock(func() time.Time { return clk.start.Add(clk.now()) })
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	read := func() time.Time {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		at, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(string(b)))
		if err != nil {
			t.Fatalf("clock answered %q: %v", b, err)
		}
		return at
	}
	before := time.Since(clk.start)
	first := read()
	after := time.Since(clk.start)
	// Wall time since the start, in trace time: 10 ms a minute is x6000.
	if lo, hi := clk.start.Add(before*6000), clk.start.Add(after*6000); first.Before(lo) || first.After(hi) {
		t.Errorf("clock read %s, want between %s and %s", first, lo, hi)
	}
	time.Sleep(30 * time.Millisecond)
	if d := read().Sub(first); d < 3*time.Minute {
		t.Errorf("30 ms of wall time moved the clock %s, want at least 3 trace minutes", d)
	}
	if got := cloudDelay(Options{Minute: time.Second}, url, 3*time.Minute); got != 3*time.Minute {
		t.Errorf("delay on the trace clock: %s, want the trace time 3m", got)
	}
	if got := cloudDelay(Options{Minute: time.Second}, "", 3*time.Minute); got != 3*time.Second {
		t.Errorf("delay on wall time: %s, want 3s (a second per trace minute)", got)
	}
}

// A replacement is named by the job's pod it stands for and how often that
// one was replaced, not by the order the run's evictions were seen in: a
// gang's members evicted together get the same names in every replay.
func TestReplacementNamesFollowTheirPod(t *testing.T) {
	for _, order := range [][]string{
		{"gang-1-0", "gang-1-1", "gang-1-2"},
		{"gang-1-2", "gang-1-0", "gang-1-1"},
	} {
		w := &watcher{}
		got := map[string]string{}
		for _, p := range order {
			got[p] = w.replacementNameLocked(p)
		}
		for p, want := range map[string]string{"gang-1-0": "gang-1-0-r1", "gang-1-1": "gang-1-1-r1", "gang-1-2": "gang-1-2-r1"} {
			if got[p] != want {
				t.Errorf("evicted in order %v: %s replaced by %s, want %s", order, p, got[p], want)
			}
		}
		// Replaced again: the count goes on; a name with "-r" inside
		// keeps it.
		if again := w.replacementNameLocked("gang-1-1-r1"); again != "gang-1-1-r2" {
			t.Errorf("gang-1-1-r1 replaced by %s, want gang-1-1-r2", again)
		}
		if other := w.replacementNameLocked("llm-run-0"); other != "llm-run-0-r1" {
			t.Errorf("llm-run-0 replaced by %s, want llm-run-0-r1", other)
		}
	}
}

// TestSides checks --sides: the default is every side implemented, in the
// report's order whatever order they are given in; an unknown side, one not
// implemented yet or a repeat is an error naming it and the valid sides,
// before anything starts.
func TestSides(t *testing.T) {
	names := func(ms []runMode) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.name)
		}
		return out
	}
	for _, tc := range []struct {
		sides []string
		want  []string
		err   string
	}{
		{sides: nil, want: []string{"muster", "upstream", "baseline", "kueue"}},
		{sides: []string{"kueue", "muster"}, want: []string{"muster", "kueue"}},
		{sides: []string{"default", "muster"}, want: []string{"muster", "baseline"}},
		{sides: []string{"upstream"}, want: []string{"upstream"}},
		{sides: []string{"baseline", "upstream"}, want: []string{"upstream", "baseline"}},
		{sides: []string{"muster", "volcano"}, err: `--sides: unknown side "volcano"; want one or more of muster, upstream, default, kueue`},
		{sides: []string{"kueue", "kueue"}, err: `--sides: side "kueue" given twice`},
		{sides: []string{"muster", "muster"}, err: `--sides: side "muster" given twice`},
		{sides: []string{}, err: `--sides: no side given; want one or more of muster, upstream, default, kueue`},
	} {
		got, err := chosenSides(tc.sides)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("--sides %v: error %v, want %q", tc.sides, err, tc.err)
			}
			continue
		}
		if err != nil || fmt.Sprint(names(got)) != fmt.Sprint(tc.want) {
			t.Errorf("--sides %v: %v, %v; want %v", tc.sides, names(got), err, tc.want)
		}
	}
	o := DefaultOptions()
	o.Sides = []string{"muster", "kueue"}
	o.BinDir = t.TempDir() // no binaries: the sides are checked first
	o.KueueBin = filepath.Join(o.BinDir, "kueue")
	if err := Simulate(context.Background(), io.Discard, io.Discard, o); err == nil || !strings.Contains(err.Error(), "--kueue-bin: the kueue side needs "+o.KueueBin+" (build it with make kueue)") {
		t.Errorf("Simulate with --sides muster,kueue and no Kueue built: %v, want the missing binary named", err)
	}
	o.Sides = []string{"muster", "kueu"}
	if err := Simulate(context.Background(), io.Discard, io.Discard, o); err == nil || !strings.Contains(err.Error(), `unknown side "kueu"`) {
		t.Errorf("Simulate with --sides muster,kueu: %v, want the side named", err)
	}
	// Muster without spot joins only with spot pools and jobs, and only
	// when muster is a side.
	spot := simulate.PoolsFile{Pools: []simulate.PoolSpec{{Name: "s", Spot: true}}}
	tr := simulate.Trace{Jobs: []simulate.Job{{Name: "el", Spot: true}}}
	for _, tc := range []struct {
		sides []string
		want  []string
	}{
		{nil, []string{"muster", "muster-no-spot", "upstream", "baseline", "kueue"}},
		{[]string{"upstream", "default"}, []string{"upstream", "baseline"}},
	} {
		ms, err := runModes(tr, Options{Sides: tc.sides, pools: &spot})
		if err != nil || fmt.Sprint(names(ms)) != fmt.Sprint(tc.want) {
			t.Errorf("runModes with spot, --sides %v: %v, %v; want %v", tc.sides, names(ms), err, tc.want)
		}
	}
}

// TestRunWaitsForTheJobsThatCanRun checks when a run until done may end: once
// every job the pools can run is done, the tail after the last of them; a
// job no pool holds is not waited for. Without Until done every job is.
func TestRunWaitsForTheJobsThatCanRun(t *testing.T) {
	tr, err := simulate.ParseTrace(strings.NewReader(`0 small gang 2 8 16 30
1 single gpu 1 1 2 10
2 elastic gang 6 8 16 20 min=2
3 huge gang 12 8 16 30 require=placement-group
`))
	if err != nil {
		t.Fatal(err)
	}
	pools, err := oraclePoolsOf(Options{})
	if err != nil {
		t.Fatal(err)
	}
	newWatcher := func() *watcher {
		w := &watcher{rec: simulate.NewRecord(), jobs: map[string]simulate.Job{}, done: map[string]bool{}}
		for _, j := range tr.Jobs {
			w.jobs[j.Name] = j
			w.rec.JobCreated(j, j.At)
		}
		return w
	}
	finish := func(w *watcher, job string, at time.Duration) {
		w.done[job] = true
		w.rec.JobFinished(job, at)
	}

	cannotRun := map[string]bool{}
	for _, j := range tr.Jobs {
		if !simulate.CanRun(j, pools) {
			cannotRun[j.Name] = true
		}
	}
	w := newWatcher()
	w.rec.CannotRun = cannotRun
	w.waitFor(10 * time.Minute)
	if w.awaits("huge") || !w.awaits("small") || !w.awaits("single") || !w.awaits("elastic") {
		t.Fatalf("cannot run %v, want small, single and elastic awaited (huge is 12 nodes of a placement group)", cannotRun)
	}
	finish(w, "small", 40*time.Minute)
	finish(w, "elastic", 70*time.Minute)
	if _, ok := w.doneAt(); ok {
		t.Fatal("done with single not done")
	}
	finish(w, "single", 20*time.Minute)
	if at, ok := w.doneAt(); !ok || at != 80*time.Minute {
		t.Errorf("doneAt = %v, %v; want 80m (elastic done at 70m, and the tail), true", at, ok)
	}

	w = newWatcher() // until the horizon: every job, no tail
	finish(w, "small", 40*time.Minute)
	finish(w, "elastic", 70*time.Minute)
	finish(w, "single", 20*time.Minute)
	if _, ok := w.doneAt(); ok {
		t.Error("done with huge not done, waiting for every job")
	}
	finish(w, "huge", 90*time.Minute)
	if _, ok := w.doneAt(); !ok {
		t.Error("not done with every job done")
	}
}
