// Package replay runs `muster simulate` and `muster chaos`: a trace of
// training jobs replayed on the whole stack (an in-process control plane, a
// scheduler, armlocal with its node agent and muster-autoscaler as child
// processes), with Muster and with a baseline, or with faults injected.
// What it models and reports (traces, pools, records, the tables) is
// pkg/simulate's, free of any API server.
//
// This file: options, replays with Muster and the baseline, the cluster,
// jobs, the watcher.
package replay

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	autoscalingv1 "github.com/muster-project/muster/pkg/apis/autoscaling/v1"
	"github.com/muster-project/muster/pkg/capacity"
	"github.com/muster-project/muster/pkg/childproc"
	"github.com/muster-project/muster/pkg/controlplane"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/simulate"
	"github.com/muster-project/muster/pkg/topology"
)

// simNamespace is where the simulated jobs run.
const simNamespace = "training"

// jobLabel names the trace job a pod belongs to.
const jobLabel = "sim.muster.dev/job"

// Options is one simulate command's settings (muster simulate's flags).
type Options struct {
	TracePath string // the trace file; "" is the built-in trace
	BinDir    string // where the muster-autoscaler and armlocal binaries are
	Minute    time.Duration
	// Step is the stepped trace clock's step (0: trace time is wall time
	// scaled by Minute).
	Step time.Duration
	// TraceFor repeats the trace every TraceEvery for this long (0: once).
	TraceFor, TraceEvery time.Duration
	Chart                string // the SVG chart's file
	// Grace is trace time after the last job could have ended (Until
	// horizon), or after the last job that can run was done (Until done).
	Grace time.Duration
	// Until is when a run ends: UntilDone once every job that can run on
	// the pools is done, and Grace after (so the nodes' scale-down is
	// paid), or Overtime past the horizon if they are not; UntilHorizon
	// (or "") at the trace's span plus Grace, or sooner if every job is
	// done.
	Until    string
	Overtime time.Duration
	KeepLogs bool
	Random   int   // generated traces to replay instead of one trace
	Repeat   int   // runs of each side
	Seed     int64 // first generated trace's seed
	// PoolsPath is the user's pools file; pools what it holds.
	PoolsPath string
	pools     *simulate.PoolsFile
	// StepLog is the directory each replay's steps are written to; replay
	// numbers the replay (from 0) in their names.
	StepLog string
	replay  int
	// faults turns on armlocal's fault endpoint (chaos runs).
	faults bool
	// Sides are the sides to replay the trace on (--sides, names of
	// knownSides); nil is every side implemented.
	Sides []string
	// KueueBin is the kueue side's Kueue binary, its CRDs in KueueBin-crds
	// (make kueue); "" is bin/kueue.
	KueueBin string
}

// DefaultOptions is muster simulate's defaults.
func DefaultOptions() Options {
	return Options{BinDir: filepath.Join("autoscaler", "bin"), Minute: time.Second, Step: time.Minute, TraceEvery: time.Hour, Chart: "simulate.svg", Grace: 10 * time.Minute, Until: UntilDone, Overtime: 4 * time.Hour, Repeat: 1, Seed: 1}
}

// Until's values.
const (
	// UntilDone runs each side until the jobs that can run are done, so
	// that every side's cost and idle GPU-hours pay for the same work.
	UntilDone = "done"
	// UntilHorizon stops each side at the same trace time, whatever it
	// has done by then.
	UntilHorizon = "horizon"
)

// checkUntil says what is wrong with --until and --overtime.
func checkUntil(o Options) error {
	switch o.Until {
	case "", UntilHorizon:
		return nil
	case UntilDone:
		if o.Overtime <= 0 {
			return fmt.Errorf("--overtime: want a positive trace duration with --until %s, got %s", UntilDone, o.Overtime)
		}
		return nil
	}
	return fmt.Errorf("--until: want %s or %s, got %q", UntilDone, UntilHorizon, o.Until)
}

func Simulate(ctx context.Context, out, progress io.Writer, o Options) error {
	if o.Repeat < 1 {
		return fmt.Errorf("--repeat: want 1 or more runs of each side, got %d", o.Repeat)
	}
	if _, err := chosenSides(o.Sides); err != nil {
		return err
	}
	if err := checkUntil(o); err != nil {
		return err
	}
	if o.Random > 0 {
		return runRandom(ctx, out, progress, o)
	}
	if o.Repeat > 1 {
		return runRepeat(ctx, out, progress, o)
	}
	_, _, _, err := reportOnce(ctx, out, progress, o, nil)
	return err
}

// reportOnce replays the trace (given, or the one o names) once on every
// side and writes the report, with the trace's oracle.
func reportOnce(ctx context.Context, out, progress io.Writer, o Options, given *simulate.Trace) (simulate.Trace, *simulate.Oracle, []simulate.Run, error) {
	trace, runs, err := simulateRuns(ctx, progress, o, given)
	if err != nil {
		return trace, nil, nil, err
	}
	oracle, err := oracleOf(trace, o)
	if err != nil {
		return trace, nil, nil, err
	}
	return trace, oracle, runs, simulate.WriteReport(out, trace, oracle, runs...)
}

// oracleOf is the trace's oracle on the run's pools: the user's pools file,
// or the cluster armlocal runs without one.
func oracleOf(trace simulate.Trace, o Options) (*simulate.Oracle, error) {
	pools, err := oraclePoolsOf(o)
	if err != nil {
		return nil, err
	}
	oracle := simulate.OracleOf(trace, pools)
	return &oracle, nil
}

// oraclePoolsOf is the run's pools as the oracle (and the kueue side's
// quota) counts them.
func oraclePoolsOf(o Options) ([]simulate.OraclePool, error) {
	pf := defaultPools()
	switch {
	case o.pools != nil:
		pf = *o.pools
	case o.PoolsPath != "":
		f, err := os.Open(o.PoolsPath)
		if err != nil {
			return nil, fmt.Errorf("--pools: %w", err)
		}
		pf, err = simulate.ParsePools(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("--pools %s: %w", o.PoolsPath, err)
		}
	}
	return simulate.OraclePools(pf)
}

// writeWhereRepeatsPart says, side by side, whether each later replay's
// step log (--step-log) matches the first replay's, and if not the first
// step where they part.
func writeWhereRepeatsPart(out io.Writer, o Options, bySide [][]simulate.Run) error {
	fmt.Fprintf(out, "== where replays part (step logs in %s)\n", o.StepLog)
	for _, runs := range bySide {
		if len(runs) == 0 {
			continue
		}
		name := runs[0].Name
		first := filepath.Join(o.StepLog, fmt.Sprintf("%s-1.log", name))
		for i := 2; i <= len(runs); i++ {
			other := filepath.Join(o.StepLog, fmt.Sprintf("%s-%d.log", name, i))
			diff, err := diffStepLogs(first, other)
			if err != nil {
				return fmt.Errorf("--step-log: %w", err)
			}
			if diff == "" {
				fmt.Fprintf(out, "%s replay %d: the same as replay 1, step for step\n", name, i)
				continue
			}
			fmt.Fprintf(out, "%s replay %d parts from replay 1 at %s\n", name, i, diff)
		}
	}
	fmt.Fprintln(out)
	return nil
}

// diffStepLogs is firstStepDifference of two step log files.
func diffStepLogs(a, b string) (string, error) {
	fa, err := os.Open(a)
	if err != nil {
		return "", err
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return "", err
	}
	defer fb.Close()
	return firstStepDifference(fa, fb, 8)
}

// showProgress says whether progress lines go to w: always, never, or
// (auto) when w is a terminal, so a log or a pipe gets only the report.
func ShowProgress(w io.Writer, mode string) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// starvationBound is the capacity plan's starvation bound in trace time.
const starvationBound = 10 * time.Minute

// maxWaitForNodes is how long a gang that new nodes could serve waits for
// them before it preempts lower-priority gangs, in trace time: the default's
// ten minutes, not ten wall minutes (ten trace hours).
const maxWaitForNodes = 10 * time.Minute

// tracePreemption is the preemption args of the simulated profile: the
// default policy, with its wait for new nodes scaled to one trace minute
// taking minute of wall time.
func tracePreemption(minute time.Duration) string {
	wait := int64(max(1, maxWaitForNodes.Minutes()*minute.Seconds()))
	return fmt.Sprintf("[{minPriority: %d, policy: LowerPriority, maxWaitForNodesSeconds: %d}]", math.MinInt32, wait)
}

// runRepeat replays the trace o.repeat times on each side, writes the first
// replay's report, each replay's summary line, and the figures' spread.
func runRepeat(ctx context.Context, out, progress io.Writer, o Options) error {
	_, _, _, err := repeatTrace(ctx, out, progress, o, nil, o.Seed)
	return err
}

// repeatTrace replays one trace (given, or the one o names) o.Repeat times
// on each side: it writes the first replay's report, each later replay's
// summary line, the figures' spread and, with --step-log, where the
// replays part. seed names the trace in what it writes (a generated
// trace's own seed). It returns the trace, its oracle and each side's runs.
func repeatTrace(ctx context.Context, out, progress io.Writer, o Options, given *simulate.Trace, seed int64) (simulate.Trace, *simulate.Oracle, [][]simulate.Run, error) {
	var (
		trace  simulate.Trace
		bySide [][]simulate.Run
		oracle *simulate.Oracle
	)
	for i := range o.Repeat {
		fmt.Fprintf(progress, "== replay %d of %d (seed %d)\n", i+1, o.Repeat, seed)
		oi := o
		oi.replay = i
		if i > 0 {
			oi.Chart = "" // the chart is the first replay's
		}
		var runs []simulate.Run
		var err error
		if i == 0 {
			fmt.Fprintf(out, "== replay 1 of %d\n", o.Repeat)
			trace, oracle, runs, err = reportOnce(ctx, out, progress, oi, given)
			bySide = make([][]simulate.Run, len(runs))
			fmt.Fprintln(out)
		} else {
			_, runs, err = simulateRuns(ctx, progress, oi, given)
			if err == nil {
				fmt.Fprintf(out, "== replay %d of %d: %s\n", i+1, o.Repeat, simulate.SummaryLine(oracle, runs...))
			}
		}
		if err != nil {
			return trace, nil, nil, fmt.Errorf("replay %d of %d: %w", i+1, o.Repeat, err)
		}
		for s, r := range runs {
			bySide[s] = append(bySide[s], r)
		}
	}
	sides := make([]simulate.RepeatSide, len(bySide))
	for s, runs := range bySide {
		var err error
		if sides[s], err = simulate.RepeatOf(runs); err != nil {
			return trace, nil, nil, err
		}
	}
	fmt.Fprintf(out, "\n== %d replays of each side, seed %d\n", o.Repeat, seed)
	if err := simulate.WriteRepeatTable(out, sides...); err != nil {
		return trace, nil, nil, err
	}
	fmt.Fprintln(out)
	if o.StepLog != "" {
		if err := writeWhereRepeatsPart(out, o, bySide); err != nil {
			return trace, nil, nil, err
		}
	}
	_, err := fmt.Fprintln(out, simulate.RepeatSummaryLine(sides...))
	return trace, oracle, bySide, err
}

// runRandom replays --random generated traces, the same for every side,
// each --repeat times, writing each one's report and then one line per
// trace: each figure the median over the trace's replays, with its range
// where they differ.
func runRandom(ctx context.Context, out, progress io.Writer, o Options) error {
	if o.TracePath != "" {
		return errors.New("--trace and --random: give one or the other")
	}
	o.Chart = ""
	var summary []simulate.TraceSummary
	for i := range o.Random {
		seed := o.Seed + int64(i)
		trace := simulate.Random(seed)
		fmt.Fprintf(out, "== trace %d of %d (seed %d; replay with --trace after saving this):\n%s\n", i+1, o.Random, seed, trace.Format())
		ts := simulate.TraceSummary{Seed: seed}
		var bySide [][]simulate.Run
		if o.Repeat > 1 {
			var err error
			if _, ts.Oracle, bySide, err = repeatTrace(ctx, out, progress, o, &trace, seed); err != nil {
				return fmt.Errorf("trace seed %d: %w", seed, err)
			}
			fmt.Fprintln(out)
		} else {
			_, oracle, runs, err := reportOnce(ctx, out, progress, o, &trace)
			if err != nil {
				return fmt.Errorf("trace seed %d: %w", seed, err)
			}
			ts.Oracle = oracle
			fmt.Fprintln(out)
			for _, r := range runs {
				bySide = append(bySide, []simulate.Run{r})
			}
		}
		for _, runs := range bySide {
			figures := make([]simulate.Figures, len(runs))
			for k, r := range runs {
				figures[k] = r.Figures
			}
			ts.Sides, ts.Runs = append(ts.Sides, runs[0].Name), append(ts.Runs, figures)
		}
		summary = append(summary, ts)
	}
	return simulate.WriteSummary(out, summary)
}

// simulateRuns replays the trace with Muster, then with the baseline, and
// draws the chart.
func simulateRuns(ctx context.Context, progress io.Writer, o Options, given *simulate.Trace) (simulate.Trace, []simulate.Run, error) {
	if o.Step < 0 {
		return simulate.Trace{}, nil, fmt.Errorf("--step: want 0 (wall time) or a positive trace duration, got %s", o.Step)
	}
	if o.Step == 0 && o.Minute <= 0 {
		return simulate.Trace{}, nil, fmt.Errorf("--minute: must be positive with --step 0, got %s", o.Minute)
	}
	if o.StepLog != "" {
		if o.Step == 0 {
			return simulate.Trace{}, nil, errors.New("--step-log: logs the stepped clock's steps; --step 0 has none")
		}
		if err := os.MkdirAll(o.StepLog, 0o755); err != nil {
			return simulate.Trace{}, nil, fmt.Errorf("--step-log: %w", err)
		}
	}
	trace := simulate.Default()
	if given != nil {
		trace = *given
	} else if o.TracePath != "" {
		f, err := os.Open(o.TracePath)
		if err != nil {
			return trace, nil, fmt.Errorf("--trace: %w", err)
		}
		trace, err = simulate.ParseTrace(f)
		f.Close()
		if err != nil {
			return trace, nil, fmt.Errorf("--trace %s: %w", o.TracePath, err)
		}
	}
	if o.TraceFor > 0 {
		var err error
		if trace, err = trace.Repeat(o.TraceEvery, o.TraceFor); err != nil {
			return trace, nil, fmt.Errorf("--trace-every: %w", err)
		}
	}
	if o.PoolsPath != "" && o.pools == nil {
		f, err := os.Open(o.PoolsPath)
		if err != nil {
			return trace, nil, fmt.Errorf("--pools: %w", err)
		}
		pf, err := simulate.ParsePools(f)
		f.Close()
		if err != nil {
			return trace, nil, fmt.Errorf("--pools %s: %w", o.PoolsPath, err)
		}
		o.pools = &pf
	}
	modes, err := runModes(trace, o)
	if err != nil {
		return trace, nil, err
	}
	if slices.ContainsFunc(modes, func(m runMode) bool { return m.kueue }) {
		if err := checkKueueBuilt(o); err != nil {
			return trace, nil, err
		}
		if err := parseableServerVersion(); err != nil {
			return trace, nil, err
		}
	}
	for _, bin := range []string{"armlocal", "muster-autoscaler"} {
		if _, err := os.Stat(filepath.Join(o.BinDir, bin)); err != nil {
			return trace, nil, fmt.Errorf("--bin-dir: %s not found in %s (build it with make -C autoscaler build): %w", bin, o.BinDir, err)
		}
	}
	logDir, err := os.MkdirTemp("", "muster-simulate-")
	if err != nil {
		return trace, nil, err
	}
	if !o.KeepLogs {
		defer os.RemoveAll(logDir)
	}
	var runs []simulate.Run
	for _, m := range modes {
		pace := fmt.Sprintf("%s per minute", o.Minute)
		if o.Step > 0 {
			pace = fmt.Sprintf("stepped, %s steps", o.Step)
		}
		span := fmt.Sprintf("over %.0f trace minutes", (trace.Span() + o.Grace).Minutes())
		if o.Until == UntilDone {
			span = fmt.Sprintf("until the jobs that can run are done (at most %.0f trace minutes)", (trace.Span() + o.Grace + o.Overtime).Minutes())
		}
		fmt.Fprintf(progress, "== %s run: %d jobs %s (%s)\n", m.name, len(trace.Jobs), span, pace)
		r, err := simulateOnce(ctx, progress, m, trace, o, filepath.Join(logDir, m.name))
		if err != nil {
			return trace, nil, fmt.Errorf("%s run: %w (component logs in %s)", m.name, err, logDir)
		}
		runs = append(runs, r)
	}
	if o.Chart != "" {
		f, err := os.Create(o.Chart)
		if err != nil {
			return trace, nil, fmt.Errorf("--chart: %w", err)
		}
		err = simulate.WriteChart(f, runs...)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return trace, nil, fmt.Errorf("--chart: %w", err)
		}
		fmt.Fprintf(progress, "GPUs paid for and used drawn to %s\n", o.Chart)
	}
	if o.KeepLogs {
		fmt.Fprintf(progress, "component logs in %s\n", logDir)
	}
	return trace, runs, nil
}

// runMode is one replay of the trace: a side (Muster, upstream's gang
// scheduling or the default scheduler), and whether the trace's spot jobs
// tolerate spot nodes (and, under Muster, put their members above min there).
type runMode struct {
	name string
	// muster runs Muster's scheduler profile and the autoscaler's Muster
	// path (ProvisioningRequests, withdrawal of unneeded upcoming nodes).
	muster bool
	// upstream runs kube-scheduler's default profile with upstream gang
	// scheduling (GenericWorkload and TopologyAwareWorkloadScheduling on,
	// the control plane serving the Workload API), gangs as upstream
	// PodGroups.
	upstream bool
	// kueue runs Kueue (its pod integration, a ClusterQueue with the
	// ProvisioningRequest admission check) with the default scheduler and
	// the autoscaler's ProvisioningRequest consumer, gangs as Kueue plain
	// pod groups.
	kueue bool
	spot  bool
}

// side is a value of --sides: its name and the replay it runs; a side not
// yet implemented has none and says so.
type side struct {
	name string
	mode *runMode
}

// knownSides are the sides --sides accepts, in the report's column order.
// Adding a side is one entry here (and its runMode's handling).
var knownSides = []side{
	{name: "muster", mode: &runMode{name: "muster", muster: true, spot: true}},
	{name: "upstream", mode: &runMode{name: "upstream", upstream: true, spot: true}},
	// The default kube-scheduler and the stock autoscaler: reported as
	// "baseline", as the report always has.
	{name: "default", mode: &runMode{name: "baseline", spot: true}},
	{name: "kueue", mode: &runMode{name: "kueue", kueue: true, spot: true}},
}

// DefaultSides is every side implemented, --sides' default.
func DefaultSides() []string {
	var out []string
	for _, s := range knownSides {
		if s.mode != nil {
			out = append(out, s.name)
		}
	}
	return out
}

// sideAliases are other names --sides takes for a side.
var sideAliases = map[string]string{"baseline": "default"}

// chosenSides checks --sides and returns the chosen sides in knownSides'
// order: an unknown side, a side not yet implemented or a repeat is an
// error naming it.
func chosenSides(names []string) ([]runMode, error) {
	if names == nil {
		names = DefaultSides()
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("--sides: no side given; want one or more of %s", strings.Join(DefaultSides(), ", "))
	}
	chosen := map[string]bool{}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if a, ok := sideAliases[n]; ok {
			n = a
		}
		i := slices.IndexFunc(knownSides, func(s side) bool { return s.name == n })
		switch {
		case i < 0:
			return nil, fmt.Errorf("--sides: unknown side %q; want one or more of %s", n, strings.Join(DefaultSides(), ", "))
		case knownSides[i].mode == nil:
			return nil, fmt.Errorf("--sides: side %q is not implemented yet; want one or more of %s", n, strings.Join(DefaultSides(), ", "))
		case chosen[n]:
			return nil, fmt.Errorf("--sides: side %q given twice", n)
		}
		chosen[n] = true
	}
	var out []runMode
	for _, s := range knownSides {
		if chosen[s.name] {
			out = append(out, *s.mode)
		}
	}
	return out, nil
}

// runModes are the replays to compare: the chosen sides; with spot pools
// and spot jobs, and Muster among the sides, also Muster without spot, the
// jobs' spot option ignored, so that spot's own effect shows.
func runModes(trace simulate.Trace, o Options) ([]runMode, error) {
	sides, err := chosenSides(o.Sides)
	if err != nil {
		return nil, err
	}
	var modes []runMode
	for _, m := range sides {
		modes = append(modes, m)
		if m.name == "muster" && o.pools != nil && o.pools.HasSpot() && slices.ContainsFunc(trace.Jobs, func(j simulate.Job) bool { return j.Spot }) {
			modes = append(modes, runMode{name: "muster-no-spot", muster: true})
		}
	}
	return modes, nil
}

// clock turns wall time since start into trace time.
type clock struct {
	start  time.Time
	minute time.Duration
}

func (c clock) now() time.Duration {
	return time.Duration(float64(time.Since(c.start)) / float64(c.minute) * float64(time.Minute))
}

func (c clock) wall(trace time.Duration) time.Duration {
	return time.Duration(float64(trace) / float64(time.Minute) * float64(c.minute))
}

func simulateOnce(ctx context.Context, progress io.Writer, mode runMode, trace simulate.Trace, o Options, dir string) (run simulate.Run, err error) {
	name, muster := mode.name, mode.muster
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return run, err
	}
	tb := controlplane.NewProcessTB("muster-simulate-" + name)
	defer tb.End(&err)
	env, kubeconfig, warm, err := startCluster(ctx, tb, trace, schedulerFor(muster), mode.upstream)
	if err != nil {
		return run, err
	}
	// Stepped, the plugins' timers and ages run on the trace clock: a trace
	// minute is a minute to them. On wall time they are scaled by --minute.
	var stepClock *simulate.StepClock
	minute, statusSync, hintSync, podWrites := o.Minute, int64(250), int64(200), int64(0)
	if o.Step > 0 {
		stepClock = simulate.NewStepClock(traceEpoch())
		// The status writer's wall-time period is kept well inside the
		// quiet window a step waits for, so what it owes is written by
		// then, and pod writes are not paced in wall time: a step stands
		// for a trace minute, in which the default 20 writes a second
		// would write far more than a step ever has to. The hint writer
		// syncs when a step kicks it (stepper.settle), its period only a
		// backstop: every 10 ms, as it once was, it made 13 syncs a step,
		// each over every waiting gang, a fifth of a day's CPU.
		minute, statusSync, hintSync, podWrites = time.Minute, 10, hintSyncSteppedMillis, 2000
	}
	config := controlplane.DefaultConfig(kubeconfig)
	if muster {
		// The starvation bound is a time a user reasons about in trace
		// time: ten trace minutes, not the default's ten wall minutes
		// (ten trace hours at one second per minute).
		bound := int64(max(1, starvationBound.Minutes()*minute.Seconds()))
		config = controlplane.MusterConfig(kubeconfig, controlplane.GangArgs{BackoffSeconds: 2, StatusSyncMillis: statusSync, HintSyncMillis: hintSync, PodWriteQPS: podWrites,
			StarvationBoundSeconds: &bound, Preemption: tracePreemption(minute)})
	}
	var sched *controlplane.Scheduler
	switch {
	case mode.upstream && stepClock != nil:
		sched, err = env.StartSteppedKubeScheduler(ctx, config, stepClock)
	case mode.upstream:
		sched, err = env.StartKubeScheduler(ctx, config)
	case stepClock != nil:
		sched, err = env.StartSteppedScheduler(ctx, config, stepClock)
	default:
		sched, err = env.StartScheduler(ctx, config)
	}
	if err != nil {
		return run, fmt.Errorf("starting the scheduler: %w", err)
	}
	defer sched.Stop()

	procCtx, stopProcs := context.WithCancel(ctx)
	defer stopProcs()
	reclaimRates := map[string]float64{}
	if o.pools != nil {
		for _, p := range o.pools.Pools {
			if p.Spot && p.ReclaimPerHour > 0 {
				reclaimRates[p.Name] = p.ReclaimPerHour
				o.faults = true // reclaims reach armlocal through its fault endpoint
			}
		}
		if o.pools.HasSpot() {
			if err := spotFirst(ctx, env, o.pools); err != nil {
				return run, err
			}
		}
	}
	// The cloud runs on a trace clock the simulator serves, so its boot
	// delays are trace minutes however fast the trace runs.
	wallClock := clock{start: time.Now(), minute: o.Minute}
	now := func() time.Time { return wallClock.start.Add(wallClock.now()) }
	if stepClock != nil {
		now = stepClock.Now
		o.faults = true // armlocal's sync endpoint is served beside its fault endpoint
	}
	clockURL, stopClock, err := serveTraceClock(now)
	if err != nil {
		return run, err
	}
	defer stopClock()
	cloud, err := startArmlocal(procCtx, o, kubeconfig, dir, clockURL)
	if err != nil {
		return run, err
	}
	defer cloud.stop()
	ca, err := startAutoscaler(procCtx, o, kubeconfig, cloud, mode, dir, clockURL)
	if err != nil {
		return run, err
	}
	defer ca.stop()
	if mode.kueue {
		pools, err := oraclePoolsOf(o)
		if err != nil {
			return run, err
		}
		kq, err := startKueue(procCtx, o, env, kubeconfig, dir, pools)
		if err != nil {
			return run, err
		}
		defer kq.stop()
	}

	if stepClock == nil {
		// The trace starts once the autoscaler's GPU wait (below) has
		// passed. A stepped clock reads an hour past wall time: no pod
		// is ever young to the autoscaler there.
		select {
		case <-ctx.Done():
			return run, errors.New("interrupted")
		case <-time.After(time.Until(warm)):
		}
	}
	rec := simulate.NewRecord()
	rec.Prices = map[string]float64{}
	for _, p := range cloud.pools {
		rec.Prices[p.Name] = p.HourlyPrice
	}
	oraclePools, err := oraclePoolsOf(o)
	if err != nil {
		return run, err
	}
	rec.CannotRun = map[string]bool{}
	for _, j := range trace.Jobs {
		if !simulate.CanRun(j, oraclePools) {
			rec.CannotRun[j.Name] = true
		}
	}
	wallStart := time.Now()
	var clk traceClock = clock{start: wallStart, minute: o.Minute}
	var events *simulate.StepClock
	if stepClock != nil {
		events = simulate.NewStepClock(stepClock.Now())
		clk = steppedClock{c: events, start: events.Now()}
	}
	w := &watcher{rec: rec, clk: clk, env: env, jobs: map[string]simulate.Job{}, started: map[string]bool{},
		done: map[string]bool{}, finished: map[string]bool{}, current: map[string][]string{}, gen: map[string]int{},
		reclaimRates: reclaimRates, seed: o.Seed, cloud: cloud, reclaimed: map[string]bool{}, wallMinute: o.Minute, upstream: mode.upstream, kueue: mode.kueue}
	if stepClock != nil {
		w.stepped = &gangWork{w: w, clk: events, running: map[string]*gangRun{}}
	}
	for _, j := range trace.Jobs {
		w.jobs[j.Name] = j
	}
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	if err := w.watch(watchCtx); err != nil {
		return run, err
	}
	// Nodes up before the trace starts (the system node, pools' min) count
	// in cost and GPU-hours but were not added for the trace.
	initial := map[string]bool{systemNode: true}
	w.mu.Lock()
	for n := range rec.Nodes {
		initial[n] = true
	}
	w.mu.Unlock()

	end := trace.Span() + o.Grace
	if o.Until == UntilDone {
		w.waitFor(o.Grace)
		end += o.Overtime
	}
	if stepClock != nil {
		st := &stepper{env: env, sched: sched, events: events, clk: stepClock, start: stepClock.Now(), cloudSync: cloud.syncURL(),
			autoscalerRun: ca.runURL, clockPushes: []string{cloud.clockURL(), ca.clockURL()},
			http: &http.Client{Timeout: settleTimeout}, window: quietWindow}
		if mode.kueue {
			// Kueue's controllers run on wall time between the
			// scheduler and the autoscaler: its Workloads are
			// watched as changes too, with a longer quiet window.
			st.window, st.workloads = kueueQuietWindow, true
		}
		if o.StepLog != "" {
			f, err := os.Create(filepath.Join(o.StepLog, fmt.Sprintf("%s-%d.log", name, o.replay+1)))
			if err != nil {
				return run, fmt.Errorf("--step-log: %w", err)
			}
			defer f.Close()
			buf := bufio.NewWriter(f)
			defer buf.Flush()
			if st.log, err = newStepLog(buf, env); err != nil {
				return run, err
			}
		}
		if err := st.replay(ctx, progress, name, w, trace, end, o.Step, func(j simulate.Job) error {
			return createJob(ctx, env, j, mode)
		}); err != nil {
			return run, err
		}
	}
	deadline := wallStart.Add(wallClock.wall(end))
	next := 0
	lastReport := time.Time{}
	for stepClock == nil && time.Now().Before(deadline) {
		if ctx.Err() != nil {
			return run, errors.New("interrupted")
		}
		for next < len(trace.Jobs) && trace.Jobs[next].At <= clk.now() {
			j := trace.Jobs[next]
			// Recorded first: a pod can bind before createJob returns.
			w.created(j)
			if err := createJob(ctx, env, j, mode); err != nil {
				return run, err
			}
			next++
		}
		if at, ok := w.doneAt(); ok && clk.now() >= at && next == len(trace.Jobs) {
			break
		}
		if time.Since(lastReport) >= 5*time.Second {
			// Requests that failed are replaced as shortfalls change, so
			// failures are collected while the run goes, not only at its end.
			w.failures()
			fmt.Fprintf(progress, "[%s minute %3.0f] %s\n", name, clk.now().Minutes(), w.status())
			lastReport = time.Now()
		}
		time.Sleep(100 * time.Millisecond)
	}
	w.failures()
	w.mu.Lock()
	rec.End = clk.now()
	w.mu.Unlock()
	stopWatch()
	wall := time.Since(wallStart)
	perHour := ""
	if ph, err := simulate.WallPerTraceHour(wall, rec.End); err == nil {
		perHour = fmt.Sprintf(" (%s wall per trace hour)", ph.Round(time.Second/10))
	}
	fmt.Fprintf(progress, "[%s minute %3.0f] done in %s%s: %s\n", name, clk.now().Minutes(), wall.Round(time.Second/10), perHour, w.status())
	w.mu.Lock()
	groupBinds, ungrouped := w.groupBinds, w.ungrouped
	w.mu.Unlock()
	if ungrouped != "" {
		return run, fmt.Errorf("gang pod %s/%s was bound without spec.schedulingGroup: upstream did not schedule it as a gang member", simNamespace, ungrouped)
	}
	r := simulate.Run{Name: name, Record: rec, Figures: rec.Figures(initial), Wall: wall, GroupBinds: groupBinds}
	if mode.kueue {
		w.mu.Lock()
		r.KueueAdmitted, r.KueueRequests = len(w.kueueSeen.admitted), len(w.kueueSeen.requests)
		w.mu.Unlock()
	}
	return r, nil
}

// startCluster starts the run's API server (serving upstream's Workload API
// with workloadAPI) with its namespace, system node, GPU-wait sentinel (for
// pods of scheduler) and the trace's PriorityClasses; the trace may start at
// warm.
func startCluster(ctx context.Context, tb *controlplane.ProcessTB, trace simulate.Trace, scheduler string, workloadAPI bool) (env *controlplane.Env, kubeconfig string, warm time.Time, err error) {
	if env, err = controlplane.StartWith(tb, controlplane.Options{WorkloadAPI: workloadAPI}); err != nil {
		return nil, "", warm, err
	}
	if kubeconfig, err = env.Kubeconfig(); err != nil {
		return nil, "", warm, err
	}
	if err := controlplane.CreateNamespace(ctx, env.Client, simNamespace); err != nil {
		return nil, "", warm, err
	}
	if warm, err = prepareCluster(ctx, env, scheduler); err != nil {
		return nil, "", warm, err
	}
	return env, kubeconfig, warm, createPriorityClasses(ctx, env, trace)
}

// systemNode is the cluster's one node outside the autoscaled pools, as AKS
// always has a system pool: tainted for system pods only, so no job runs on
// it, but the scheduler has a node to run its plugins against (with none at
// all it fails pods before any plugin, so no gang could say what it lacks).
const systemNode = "system-0"

// gpuWait is how long cluster-autoscaler's core waits, whatever its flags,
// before scaling up for unschedulable GPU pods when even the oldest is newer
// than that (it expects more to come). Real clusters barely notice 30 s; at a
// trace minute per second it would hold every GPU job for 30 minutes.
const gpuWait = 31 * time.Second

// prepareCluster registers the system node and a sentinel GPU pod that no
// node can ever hold (so the autoscaler ignores it), and returns when the
// sentinel is older than gpuWait: from then on the autoscaler treats GPU
// pods like any other, in both runs.
//
// The sentinel goes to the run's scheduler: the autoscaler counts only pods a
// scheduler has marked unschedulable, and an ignored sentinel would leave
// every GPU pod of the run to the 30 s wait.
func prepareCluster(ctx context.Context, env *controlplane.Env, scheduler string) (time.Time, error) {
	rl := v1.ResourceList{v1.ResourceCPU: resource.MustParse("4"), v1.ResourceMemory: resource.MustParse("16Gi"), v1.ResourcePods: resource.MustParse("110")}
	node := &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: systemNode, Labels: map[string]string{topology.HostnameLabel: systemNode, topology.LegacyAgentPoolLabel: "system", topology.AgentPoolLabel: "system"}},
		Spec:       v1.NodeSpec{Taints: []v1.Taint{{Key: "CriticalAddonsOnly", Value: "true", Effect: v1.TaintEffectNoSchedule}}},
		Status:     v1.NodeStatus{Capacity: rl, Allocatable: rl, Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}}},
	}
	if err := controlplane.CreateNode(ctx, env.Client, node); err != nil {
		return time.Time{}, fmt.Errorf("registering the system node: %w", err)
	}
	sentinel := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "gpu-wait-sentinel"},
		Spec: v1.PodSpec{
			SchedulerName: scheduler,
			NodeSelector:  map[string]string{"sim.muster.dev/never": "true"},
			Containers: []v1.Container{{Name: "c", Image: "pause", Resources: v1.ResourceRequirements{
				Requests: v1.ResourceList{controlplane.GPU: resource.MustParse("1")}, Limits: v1.ResourceList{controlplane.GPU: resource.MustParse("1")}}}},
		},
	}
	created, err := env.Client.CoreV1().Pods("default").Create(ctx, sentinel, metav1.CreateOptions{})
	if err != nil {
		return time.Time{}, fmt.Errorf("creating the GPU-wait sentinel: %w", err)
	}
	return created.CreationTimestamp.Add(gpuWait), nil
}

// spotFirst writes the priority expander's ConfigMap: spot pools before all
// others, as the README advises, the same for every run.
func spotFirst(ctx context.Context, env *controlplane.Env, pf *simulate.PoolsFile) error {
	var spot []string
	for _, p := range pf.Pools {
		if p.Spot {
			spot = append(spot, "  - ^"+regexp.QuoteMeta(p.Name)+"$\n")
		}
	}
	cm := &v1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "cluster-autoscaler-priority-expander"},
		Data: map[string]string{"priorities": "50:\n" + strings.Join(spot, "") + "10:\n  - .*\n"}}
	if _, err := env.Client.CoreV1().ConfigMaps(cm.Namespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("writing the priority expander's ConfigMap: %w", err)
	}
	return nil
}

// createJob creates a job's pods: for a gang job under Muster or the
// default scheduler a CRD-free gang (the default scheduler ignores the gang
// labels), under upstream an upstream PodGroup (scheduling.k8s.io/v1beta1)
// of minCount min that every member, launcher included, names in
// spec.schedulingGroup; under kueue every pod in Kueue's queue (a gang as
// a Kueue plain pod group of its min members), as Kueue's pod webhook would
// leave it; plain pods otherwise. A launcher asks for its CPUs
// and no GPU; a job with a priority gets a PriorityClass of that value.
// With spot, a spot job's pods tolerate spot nodes and, under Muster, opt in
// to running their extras there.
func createJob(ctx context.Context, env *controlplane.Env, j simulate.Job, mode runMode) error {
	muster, spot := mode.muster, mode.spot
	priorityClass := ""
	if j.Priority > 0 {
		priorityClass = priorityClassOf(j.Priority)
	}
	group := ""
	if mode.upstream && j.Kind == simulate.KindGang {
		// Upstream has no max: an elastic gang's max members are all in
		// the group, and minCount is its min.
		group = j.Name
		pg := controlplane.WorkloadPodGroup(simNamespace, group, int32(j.Min))
		// Upstream fails every member whose priority is not its group's
		// (a scheduler error, retried forever).
		pg.Spec.PriorityClassName = priorityClass
		if _, err := env.Client.SchedulingV1beta1().PodGroups(simNamespace).Create(ctx, pg, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating upstream PodGroup %s/%s for job %s: %w", simNamespace, group, j.Name, err)
		}
	}
	names := j.Pods()
	if mode.kueue {
		names = kueuePods(j)
	}
	for _, name := range names {
		gpus, milliCPU := j.GPUs, j.MilliCPU
		if name == j.Launcher() {
			gpus, milliCPU = 0, j.LauncherMilliCPU
		}
		req := v1.ResourceList{v1.ResourceCPU: *resource.NewMilliQuantity(max(milliCPU, 100), resource.DecimalSI), v1.ResourceMemory: resource.MustParse("1Gi")}
		var tol []v1.Toleration
		if gpus > 0 {
			req[controlplane.GPU] = *resource.NewQuantity(gpus, resource.DecimalSI)
			tol = []v1.Toleration{{Key: topology.GPUResource, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}}
		}
		sched := schedulerFor(muster)
		p := &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: simNamespace, Name: name, Labels: map[string]string{jobLabel: j.Name}, Annotations: map[string]string{}},
			Spec: v1.PodSpec{SchedulerName: sched, Tolerations: tol, PriorityClassName: priorityClass,
				Containers: []v1.Container{{Name: "worker", Image: "trainer", Resources: v1.ResourceRequirements{Requests: req, Limits: limitsFor(req)}}}},
		}
		switch {
		case group != "":
			p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &group}
		case mode.kueue:
			// A Kueue plain pod group (asKueueWebhookWould, below,
			// once the pod's spec is complete).
		case j.Kind == simulate.KindGang:
			p.Labels[gang.GroupLabel] = j.Name
			p.Annotations[gang.MinMemberAnnotation] = strconv.Itoa(j.Min)
			p.Annotations[gang.MaxMemberAnnotation] = strconv.Itoa(j.Max)
			if j.Require != "" {
				p.Annotations[topology.RequiredLevelAnnotation] = j.Require
			}
			if j.Spot && spot && muster {
				p.Annotations[gang.SpotExtrasAnnotation] = "true"
			}
		}
		if j.Spot && spot {
			p.Spec.Tolerations = append(p.Spec.Tolerations, v1.Toleration{Key: capacity.SpotLabel, Operator: v1.TolerationOpEqual, Value: capacity.SpotValue, Effect: v1.TaintEffectNoSchedule})
		}
		if mode.kueue {
			if err := asKueueWebhookWould(p, j, j.Priority); err != nil {
				return err
			}
		}
		created, err := env.Client.CoreV1().Pods(simNamespace).Create(ctx, p, metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("creating pod %s: %w", p.Name, err)
		}
		// The API server drops spec.schedulingGroup when GenericWorkload
		// is off: the pod would then be scheduled one by one, not as a gang.
		if group != "" && !inGroup(created, group) {
			return fmt.Errorf("pod %s/%s: spec.schedulingGroup dropped by the API server (want PodGroup %s; is GenericWorkload on?)", simNamespace, p.Name, group)
		}
	}
	return nil
}

// inGroup says whether pod names the upstream PodGroup group in
// spec.schedulingGroup.
func inGroup(p *v1.Pod, group string) bool {
	sg := p.Spec.SchedulingGroup
	return sg != nil && sg.PodGroupName != nil && *sg.PodGroupName == group
}

func priorityClassOf(p int32) string { return fmt.Sprintf("sim-priority-%d", p) }

// createPriorityClasses creates the trace's PriorityClasses before it starts:
// the API server's priority admission reads them from a cache, so a class
// created just before its first pod may not be found yet.
func createPriorityClasses(ctx context.Context, env *controlplane.Env, trace simulate.Trace) error {
	done := map[int32]bool{}
	for _, j := range trace.Jobs {
		if j.Priority <= 0 || done[j.Priority] {
			continue
		}
		done[j.Priority] = true
		if err := controlplane.CreatePriorityClass(ctx, env.Client, priorityClassOf(j.Priority), j.Priority); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating PriorityClass %s: %w", priorityClassOf(j.Priority), err)
		}
	}
	return nil
}

// schedulerFor is the scheduler name the run's pods ask for.
func schedulerFor(muster bool) string {
	if muster {
		return controlplane.MusterProfile
	}
	return v1.DefaultSchedulerName
}

func limitsFor(req v1.ResourceList) v1.ResourceList {
	if q, ok := req[controlplane.GPU]; ok {
		return v1.ResourceList{controlplane.GPU: q}
	}
	return nil
}

// watcher records pods and nodes as they come and go, and plays the
// workloads: a job starts when min of its members run together (each pod of
// a cpu or gpu job on its own), runs for its duration, and is then deleted.
type watcher struct {
	rec  *simulate.Record
	clk  traceClock
	env  *controlplane.Env
	jobs map[string]simulate.Job

	mu       sync.Mutex
	started  map[string]bool // job (or pod, for plain jobs) started
	done     map[string]bool // jobs finished (each counted once)
	finished map[string]bool // gangs whose run ended
	// untilDone: the run waits for the jobs but those the record says
	// cannot run (Record.CannotRun), and tail after the last of them is
	// done; otherwise for every job, with no tail.
	untilDone bool
	tail      time.Duration
	bound     map[string]string
	seenFail  map[string]bool
	// current lists each job's pods: an evicted pod is replaced by a new
	// one, as a training operator would.
	current map[string][]string
	// gen counts a gang's restarts: a gang preempted whole starts again,
	// and the timer of its earlier start must not end it.
	gen map[string]int
	// replaced counts the replacements of each pod of a job, by the name
	// of the job's pod they stand for (replacementNameLocked).
	replaced map[string]int
	// ending marks pods whose end the watcher has handled: deleted because
	// their run is over, or replaced once evicted or lost, so that a later
	// notification of their deletion is not taken for a loss.
	ending map[string]bool
	// reclaimRates are the spot pools' reclaims per node-hour; each node's
	// reclaim time comes from seed and its name. reclaimed marks nodes
	// reclaimed, whose pods' loss is then counted as the reclaim's.
	reclaimRates map[string]float64
	seed         int64
	cloud        *process
	reclaimed    map[string]bool
	// upstream: gangs are upstream PodGroups. groupBinds counts the
	// members bound that named their job's PodGroup, ungrouped the first
	// member bound that did not (the API server had dropped the field).
	upstream   bool
	groupBinds int
	ungrouped  string
	// kueue: the run's pods are Kueue's (kueuePods, asKueueWebhookWould);
	// the watcher plays their kubelet's phases, which Kueue reads, and
	// records what Kueue did (kueueSeen).
	kueue     bool
	kueueSeen kueueRecord
	// dynamic writes Kueue's objects (the kueue side).
	dynamic dynamic.Interface
	// pods and workloads are the informers' stores of the run's pods
	// and (kueue) Workloads.
	pods, workloads cache.Store
	// writing counts API writes the watcher left running (replacement
	// pods, start times), which a step waits for.
	writing pendingWrites
	// wallMinute is a trace minute's wall time when clk is wall time;
	// stepped, when it is a stepped trace clock, accrues gangs' work.
	wallMinute time.Duration
	stepped    *gangWork
	// requests and autoscalerEvents hold the run's ProvisioningRequests
	// and the cluster-autoscaler's events, for failures.
	requests, autoscalerEvents cache.SharedIndexInformer
}

func (w *watcher) created(j simulate.Job) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.rec.JobCreated(j, w.clk.now())
	w.current[j.Name] = j.Pods()
	if w.kueue {
		w.current[j.Name] = kueuePods(j)
	}
}

func (w *watcher) allDone(n int) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.done) >= n
}

// waitFor makes the run wait for the jobs but those that cannot run
// (Record.CannotRun), and tail after the last of them is done, instead of
// for every job.
func (w *watcher) waitFor(tail time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.untilDone, w.tail = true, tail
}

// awaits says whether the run waits for job.
func (w *watcher) awaits(job string) bool {
	return !w.untilDone || !w.rec.CannotRun[job]
}

// doneAt says whether the jobs the run waits for are all done and, if so,
// when the run may end: then, or its tail after the last was done.
func (w *watcher) doneAt() (time.Duration, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.untilDone {
		return 0, len(w.done) >= len(w.jobs)
	}
	var last time.Duration
	for n := range w.jobs {
		if !w.awaits(n) {
			continue
		}
		if !w.done[n] {
			return 0, false
		}
		if jr := w.rec.Jobs[n]; jr != nil {
			last = max(last, jr.Finished)
		}
	}
	return last + w.tail, true
}

func (w *watcher) status() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	nodes := map[string]int{}
	for _, n := range w.rec.Nodes {
		if n.Down == 0 {
			nodes[n.Pool]++
		}
	}
	parts := []string{}
	for pool, c := range nodes {
		parts = append(parts, fmt.Sprintf("%s %d", pool, c))
	}
	return fmt.Sprintf("jobs done %d/%d, pods bound %d, nodes: %s", len(w.done), len(w.jobs), len(w.bound), strings.Join(parts, ", "))
}

func (w *watcher) watch(ctx context.Context) error {
	w.bound = map[string]string{}
	w.seenFail = map[string]bool{}
	w.ending = map[string]bool{}
	factory := informers.NewSharedInformerFactory(w.env.Client, 0)
	pods := factory.Core().V1().Pods().Informer()
	w.pods = pods.GetStore()
	nodes := factory.Core().V1().Nodes().Informer()
	w.autoscalerEvents = informers.NewSharedInformerFactoryWithOptions(w.env.Client, 0, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.FieldSelector = "source=cluster-autoscaler"
	})).Core().V1().Events().Informer()
	dyn, err := dynamic.NewForConfig(w.env.Config)
	if err != nil {
		return err
	}
	untyped := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dyn, 0, simNamespace, nil)
	w.requests = untyped.ForResource(autoscalingv1.Resource).Informer()
	synced := []cache.InformerSynced{w.autoscalerEvents.HasSynced, w.requests.HasSynced}
	if w.kueue {
		if err := w.watchKueue(ctx, untyped); err != nil {
			return err
		}
		synced = append(synced, untyped.ForResource(kueueWorkloads).Informer().HasSynced)
	}
	// Failed scale-ups are recorded as they are seen, at the trace time
	// then. Read only every few wall seconds (failures), a request that
	// failed and was replaced in between went unseen, so the count
	// followed how fast the replay ran.
	if _, err := w.requests.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { w.requestFailures(w.clk.now(), o) },
		UpdateFunc: func(_, o any) { w.requestFailures(w.clk.now(), o) },
	}); err != nil {
		return err
	}
	if _, err := w.autoscalerEvents.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { w.eventFailure(w.clk.now(), o) },
		UpdateFunc: func(_, o any) { w.eventFailure(w.clk.now(), o) },
	}); err != nil {
		return err
	}
	untyped.Start(ctx.Done())
	go w.autoscalerEvents.Run(ctx.Done())
	if _, err := pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { w.pod(ctx, o) },
		UpdateFunc: func(_, o any) { w.pod(ctx, o) },
		DeleteFunc: func(o any) {
			if t, ok := o.(cache.DeletedFinalStateUnknown); ok {
				o = t.Obj
			}
			if p, ok := o.(*v1.Pod); ok {
				if w.kueue {
					w.podGone(ctx, p)
				}
				w.gone(ctx, p)
			}
		},
	}); err != nil {
		return err
	}
	if _, err := nodes.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(o any) {
			n, ok := o.(*v1.Node)
			if !ok {
				return
			}
			gpus := n.Status.Allocatable[controlplane.GPU]
			pool := n.Labels[topology.LegacyAgentPoolLabel]
			w.mu.Lock()
			w.rec.NodeUp(n.Name, pool, gpus.Value(), w.clk.now())
			w.mu.Unlock()
			if after, ok := simulate.ReclaimAfter(w.seed, n.Name, w.reclaimRates[pool]); ok {
				w.clk.afterFunc(after, func() { w.reclaim(ctx, pool, n.Name) })
			}
		},
		DeleteFunc: func(o any) {
			if t, ok := o.(cache.DeletedFinalStateUnknown); ok {
				o = t.Obj
			}
			if n, ok := o.(*v1.Node); ok {
				w.mu.Lock()
				w.rec.NodeDown(n.Name, w.clk.now())
				w.mu.Unlock()
			}
		},
	}); err != nil {
		return err
	}
	if err := controlplane.StartInformers(ctx, factory); err != nil {
		return err
	}
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		return errors.New("watching the run's ProvisioningRequests and the autoscaler's events: not synced")
	}
	return nil
}

// reclaim plays Azure reclaiming the spot node at the end of its life (a
// timer on the trace clock): the VM is evicted (deleted) if the node is
// still up by then.
func (w *watcher) reclaim(ctx context.Context, pool, node string) {
	if ctx.Err() != nil {
		return
	}
	w.mu.Lock()
	n := w.rec.Nodes[node]
	up := n != nil && n.Down == 0
	if up {
		w.reclaimed[node] = true
	}
	w.mu.Unlock()
	if !up {
		return
	}
	if err := w.cloud.postFault(ctx, map[string]any{"kind": "evict-spot", "pool": pool, "instance": node}); err != nil {
		w.mu.Lock()
		delete(w.reclaimed, node)
		w.mu.Unlock()
		if ctx.Err() == nil {
			fmt.Fprintf(os.Stderr, "simulate: reclaiming spot node %s: %v\n", node, err)
		}
		return
	}
	w.mu.Lock()
	w.rec.Reclaims++
	w.mu.Unlock()
}

// pod records a bind and starts what can start.
func (w *watcher) pod(ctx context.Context, o any) {
	p, ok := o.(*v1.Pod)
	if ok && w.kueue && w.deleteFinished(ctx, p) {
		return
	}
	if ok && p.Namespace == simNamespace && p.Spec.NodeName != "" && p.DeletionTimestamp != nil {
		w.evicted(ctx, p)
		return
	}
	if !ok || p.Namespace != simNamespace || p.Spec.NodeName == "" || p.DeletionTimestamp != nil {
		return
	}
	jobName := p.Labels[jobLabel]
	j, ok := w.jobs[jobName]
	if !ok {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, seen := w.bound[p.Name]; seen {
		return
	}
	w.bound[p.Name] = p.Spec.NodeName
	w.rec.PodBound(jobName, p.Name, p.Spec.NodeName, w.clk.now())
	if w.upstream && j.Kind == simulate.KindGang {
		if inGroup(p, jobName) {
			w.groupBinds++
		} else if w.ungrouped == "" {
			w.ungrouped = p.Name
		}
	}
	w.startedLocked(ctx, p)
	if j.Kind != simulate.KindGang {
		w.startLocked(ctx, j, []string{p.Name}, p.Name)
		return
	}
	if w.started[jobName] {
		return
	}
	running := 0
	jr := w.rec.Jobs[jobName]
	for pod := range jr.Bound {
		if _, done := jr.Done[pod]; !done {
			running++
		}
	}
	if running >= j.Min {
		w.startLocked(ctx, j, nil, jobName)
	}
}

// startedLocked writes the pod's start time, as its node's kubelet would
// when it takes the pod, on the schedulers' clock: preemption (Muster's
// and upstream's) counts the work a victim loses from it, and without it
// both read the API server's wall-time creation stamp, which on a stepped
// clock puts every pod an hour and a trace back. w.mu is held; a step
// waits for the write (writing).
func (w *watcher) startedLocked(ctx context.Context, p *v1.Pod) {
	if p.Status.StartTime != nil {
		return
	}
	patch := fmt.Sprintf(`{"status":{"startTime":%q}}`, w.clk.stamp().UTC().Format(time.RFC3339))
	if w.kueue {
		// Kueue tells a pod group's running members by their phase.
		patch = fmt.Sprintf(`{"status":{"startTime":%q,"phase":"Running"}}`, w.clk.stamp().UTC().Format(time.RFC3339))
	}
	w.writing.start()
	go func() {
		defer w.writing.done()
		_, err := w.env.Client.CoreV1().Pods(p.Namespace).Patch(ctx, p.Name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}, "status")
		if err != nil && !apierrors.IsNotFound(err) && ctx.Err() == nil {
			fmt.Fprintf(os.Stderr, "simulate: writing the start time of pod %s: %v\n", p.Name, err)
		}
	}()
}

// startLocked runs pods (nil: the whole job) for the job's duration, then
// deletes them. key marks what started.
func (w *watcher) startLocked(ctx context.Context, j simulate.Job, pods []string, key string) {
	if w.started[key] {
		return
	}
	w.started[key] = true
	w.rec.JobStarted(j.Name, w.clk.now())
	gen := w.gen[j.Name]
	finish := func() {
		if ctx.Err() != nil {
			return
		}
		w.mu.Lock()
		if w.gen[j.Name] != gen {
			w.mu.Unlock() // preempted whole and started again since
			return
		}
		names := pods
		if names == nil {
			names = append([]string(nil), w.current[j.Name]...)
			w.finished[j.Name] = true
		}
		for _, n := range names {
			w.ending[n] = true
		}
		w.mu.Unlock()
		zero := int64(0)
		for _, n := range names {
			if w.kueue {
				// As its kubelet would: Kueue ends a workload once its
				// pods succeeded, and then lifts their finalizer; the
				// pod is deleted after that (deleteFinished), as
				// deleted before Kueue saw it succeed its Workload
				// would hold its quota (no garbage collector runs).
				if err := setPhase(ctx, w.env, n, v1.PodSucceeded); err != nil && ctx.Err() == nil {
					fmt.Fprintf(os.Stderr, "simulate: reporting pod %s succeeded: %v\n", n, err)
				}
				continue
			}
			_ = w.env.Client.CoreV1().Pods(simNamespace).Delete(ctx, n, metav1.DeleteOptions{GracePeriodSeconds: &zero})
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		now := w.clk.now()
		for _, n := range names {
			if node, ok := w.bound[n]; ok {
				w.rec.PodDone(j.Name, n, node, j.PodGPUs(n), now)
			}
		}
		if pods == nil || w.podsOfJobDone(j) {
			w.done[j.Name] = true
			w.rec.JobFinished(j.Name, now)
		}
	}
	switch {
	case pods != nil:
		w.clk.afterFunc(j.Run, finish)
	case w.stepped != nil:
		w.stepped.start(j, gen, w.clk.now(), finish)
	default:
		go func() {
			if w.workOut(ctx, j, gen) {
				finish()
			}
		}()
	}
}

// workOut waits, on wall time, until a gang has done its work
// (simulate.Job.Work): worker time accrues at the workers it runs, up to
// max, measured every twentieth of a trace minute (on a stepped clock,
// gangWork does it step by step). It returns false when ctx ends or the gang stopped
// (fell below min) since it started as gen.
func (w *watcher) workOut(ctx context.Context, j simulate.Job, gen int) bool {
	tick := time.NewTicker(max(w.wallMinute/20, 5*time.Millisecond))
	defer tick.Stop()
	_, most := j.Workers()
	var done time.Duration
	w.mu.Lock()
	last := w.clk.now()
	w.mu.Unlock()
	for done < j.Work() {
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
		w.mu.Lock()
		if w.gen[j.Name] != gen {
			w.mu.Unlock()
			return false
		}
		now := w.clk.now()
		done += (now - last) * time.Duration(min(w.runningWorkersLocked(j), most))
		last = now
		w.mu.Unlock()
	}
	return true
}

// runningWorkersLocked counts the job's current workers (not its launcher)
// that are bound and not done.
func (w *watcher) runningWorkersLocked(j simulate.Job) int {
	jr := w.rec.Jobs[j.Name]
	if jr == nil {
		return 0
	}
	n := 0
	for _, pod := range w.current[j.Name] {
		if j.IsLauncher(pod) {
			continue
		}
		if _, bound := jr.Bound[pod]; bound {
			if _, done := jr.Done[pod]; !done {
				n++
			}
		}
	}
	return n
}

// podsOfJobDone says every member of a plain job has finished: each of its
// current pods, so that a pod lost with its node counts only once its
// replacement has run.
func (w *watcher) podsOfJobDone(j simulate.Job) bool {
	jr := w.rec.Jobs[j.Name]
	if jr == nil || len(w.current[j.Name]) == 0 {
		return false
	}
	for _, n := range w.current[j.Name] {
		if _, done := jr.Done[n]; !done {
			return false
		}
	}
	return true
}

// evicted plays the kubelet and the job's operator for a pod being evicted
// (shed or preempted): the pod stops at once, and, unless its job has
// ended, a new pod takes its place and waits to be scheduled. A gang left
// with fewer than min members running starts again when it has them.
//
// A pod the watcher deleted itself, its run over, shows a deletion stamp
// too: the API server writes it before it removes a pod deleted without a
// grace period. That pod is not replaced (it once was whenever this
// notification came before the removal, so replays of one trace differed).
func (w *watcher) evicted(ctx context.Context, p *v1.Pod) {
	jobName := p.Labels[jobLabel]
	j, ok := w.jobs[jobName]
	if !ok {
		return
	}
	w.mu.Lock()
	handled := w.ending[p.Name]
	w.ending[p.Name] = true // later notifications of its deletion are handled
	w.mu.Unlock()
	if handled {
		return
	}
	if w.kueue {
		// Its kubelet reports the pod stopped: Kueue then lets it go
		// (its finalizer) as a failed member, or a failed single pod.
		if err := setPhase(ctx, w.env, p.Name, v1.PodFailed); err != nil && ctx.Err() == nil {
			fmt.Fprintf(os.Stderr, "simulate: reporting evicted pod %s failed: %v\n", p.Name, err)
		}
	}
	zero := int64(0)
	if err := w.env.Client.CoreV1().Pods(simNamespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil && !apierrors.IsNotFound(err) {
		fmt.Fprintf(os.Stderr, "simulate: stopping evicted pod %s: %v\n", p.Name, err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.replaceLocked(ctx, j, p)
}

// gone handles a bound pod deleted outright, without a grace period, as the
// node agent does with the pods of a VM that was lost: the same as an
// eviction, unless the watcher ended the pod itself or has handled it.
func (w *watcher) gone(ctx context.Context, p *v1.Pod) {
	if p.Namespace != simNamespace || p.Spec.NodeName == "" {
		return
	}
	j, ok := w.jobs[p.Labels[jobLabel]]
	if !ok {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	jr := w.rec.Jobs[j.Name]
	if jr == nil || w.ending[p.Name] {
		return
	}
	if _, bound := jr.Bound[p.Name]; !bound {
		return
	}
	if _, done := jr.Done[p.Name]; done {
		return
	}
	w.ending[p.Name] = true
	w.replaceLocked(ctx, j, p)
}

// replaceLocked records p as stopped and, unless its job has ended, creates
// the pod that takes its place.
func (w *watcher) replaceLocked(ctx context.Context, j simulate.Job, p *v1.Pod) {
	jobName := j.Name
	w.rec.PodDone(jobName, p.Name, p.Spec.NodeName, j.PodGPUs(p.Name), w.clk.now())
	if w.finished[jobName] {
		return
	}
	byReclaim := w.reclaimed[p.Spec.NodeName]
	if byReclaim {
		w.rec.ReclaimedMembers++
	}
	fresh := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: w.replacementNameLocked(p.Name),
		Labels: p.Labels, Annotations: p.Annotations}, Spec: *p.Spec.DeepCopy()}
	fresh.Spec.NodeName = ""
	fresh.Spec.Priority = nil // set again from the PriorityClass
	if w.kueue {
		// Gated and finalized again, as Kueue's webhook would; the
		// role hash is the evicted pod's. (p's maps are the
		// informer's.)
		fresh.Labels, fresh.Annotations = maps.Clone(p.Labels), maps.Clone(p.Annotations)
		if err := asKueueWebhookWould(fresh, j, j.Priority); err != nil {
			fmt.Fprintf(os.Stderr, "simulate: replacing evicted pod %s: %v\n", p.Name, err)
			return
		}
	}
	for i, n := range w.current[jobName] {
		if n == p.Name {
			w.current[jobName][i] = fresh.Name
		}
	}
	if j.Kind == simulate.KindGang && w.started[jobName] {
		running := 0
		jr := w.rec.Jobs[jobName]
		for _, n := range w.current[jobName] {
			if _, bound := jr.Bound[n]; bound {
				if _, done := jr.Done[n]; !done {
					running++
				}
			}
		}
		if running < j.Min {
			w.started[jobName] = false
			w.gen[jobName]++
			w.rec.JobBroken(jobName, w.clk.now())
			if byReclaim {
				w.rec.BelowMinByReclaim[jobName] = true
			}
		}
	}
	w.writing.start()
	go func() {
		defer w.writing.done()
		if _, err := w.env.Client.CoreV1().Pods(simNamespace).Create(ctx, fresh, metav1.CreateOptions{}); err != nil && ctx.Err() == nil {
			fmt.Fprintf(os.Stderr, "simulate: replacing evicted pod %s: %v\n", p.Name, err)
		}
	}()
}

// replacementNameLocked names the pod that replaces pod: the name of the
// job's pod it stands for and how many times that one has been replaced,
// gang-1-4-r1 and then gang-1-4-r2. The number once counted every
// replacement of the run, so when a gang was preempted its members'
// replacements were numbered in the order their evictions were seen,
// which changed from replay to replay, and the queues, which break ties
// by name, took them in another order (seed 3 of --random, minute 24).
// replacementSuffix is what replacementNameLocked adds to a job's pod's name.
var replacementSuffix = regexp.MustCompile(`-r[0-9]+$`)

func (w *watcher) replacementNameLocked(pod string) string {
	first := replacementSuffix.ReplaceAllString(pod, "")
	if w.replaced == nil {
		w.replaced = map[string]int{}
	}
	w.replaced[first]++
	return fmt.Sprintf("%s-r%d", first, w.replaced[first])
}

// failures records failed scale-ups (the informers' handlers record them as
// they come; this catches any they did not) and the nodes withdrawn:
// ProvisioningRequests the autoscaler failed, and the autoscaler's failure
// and withdrawal events. It reads the watcher's
// informers: listing every event of the cluster each time cost more than
// the scheduler's own work once a day's backlog of gangs had filled it
// with FailedScheduling events.
func (w *watcher) failures() {
	now := w.clk.now()
	for _, o := range w.requests.GetStore().List() {
		w.requestFailures(now, o)
	}
	withdrawn := 0
	for _, o := range w.autoscalerEvents.GetStore().List() {
		e, ok := o.(*v1.Event)
		if !ok {
			continue
		}
		w.eventFailure(now, e)
		if e.Reason == withdrawnReason {
			withdrawn += withdrawnNodes(e.Message) * int(max(e.Count, 1))
		}
	}
	w.mu.Lock()
	w.rec.WithdrawnNodes = withdrawn
	w.mu.Unlock()
}

// eventFailure records the failed scale-up an autoscaler event reports, if
// it reports one.
func (w *watcher) eventFailure(now time.Duration, o any) {
	e, ok := o.(*v1.Event)
	if ok && e.Type == v1.EventTypeWarning && strings.Contains(e.Reason, "ScaleUp") && strings.Contains(e.Reason, "Fail") {
		w.addFailure(now, e.InvolvedObject.Kind+" "+e.InvolvedObject.Name, e.Reason+": "+e.Message)
	}
}

// withdrawnReason is the reason of muster-autoscaler's event for upcoming
// nodes it withdrew (package upcoming of the autoscaler module, which this
// module does not import).
const withdrawnReason = "ScaleUpWithdrawn"

var withdrawnMessage = regexp.MustCompile(`Withdrew ([0-9]+) node`)

// withdrawnNodes reads the node count of a withdrawal event's message.
func withdrawnNodes(msg string) int {
	m := withdrawnMessage.FindStringSubmatch(msg)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// requestFailures records a ProvisioningRequest's failure, if it failed.
func (w *watcher) requestFailures(now time.Duration, o any) {
	u, ok := o.(*unstructured.Unstructured)
	if !ok {
		return
	}
	var pr autoscalingv1.ProvisioningRequest
	if runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &pr) != nil {
		return
	}
	for _, c := range pr.Status.Conditions {
		if (c.Type == autoscalingv1.Failed && c.Status == metav1.ConditionTrue) || c.Reason == autoscalingv1.CapacityIsNotFound {
			w.addFailure(now, "request "+pr.Name, c.Message)
		}
	}
}

func (w *watcher) addFailure(at time.Duration, what, why string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	key := what + "|" + why
	if w.seenFail[key] {
		return
	}
	w.seenFail[key] = true
	w.rec.ScaleUpFailures = append(w.rec.ScaleUpFailures, simulate.Failure{At: at, Pool: what, Reason: why})
}

// process is a component running as a child process.
type process struct {
	cmd  *exec.Cmd
	done chan struct{}
	// cloudConfig and caFile are what armlocal wrote for the autoscaler.
	cloudConfig, caFile string
	// faultsURL is armlocal's fault endpoint (chaos runs), pools its pools.
	faultsURL string
	pools     []poolInfo
	// runURL is a stepped autoscaler's POST /run-once.
	runURL string
}

func (p *process) stop() {
	if p == nil || p.cmd.Process == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

func startProcess(ctx context.Context, bin string, args []string, logPath string, env ...string) (*process, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := childproc.Start(cmd); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", filepath.Base(bin), err)
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); logFile.Close(); close(p.done) }()
	return p, nil
}

// waitFile waits until path exists and is not empty, or the process exits.
func waitFile(p *process, path string, timeout time.Duration) ([]byte, error) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
			return b, nil
		}
		select {
		case <-p.done:
			return nil, fmt.Errorf("%s exited before writing %s", filepath.Base(p.cmd.Path), path)
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil, fmt.Errorf("%s did not write %s within %s", filepath.Base(p.cmd.Path), path, timeout)
}

// lastLines returns the tail of a log for error messages.
func lastLines(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if len(lines) > n {
			lines = lines[1:]
		}
	}
	return strings.Join(lines, "\n")
}

// pendingWrites counts writes in flight. Unlike a sync.WaitGroup it may
// start a write while a step waits: the watcher starts them from informer
// handlers at any time, and a WaitGroup whose count goes up from zero
// during a Wait panics ("WaitGroup is reused before previous Wait has
// returned"), which the start-time writes, one per bound pod, made
// likely.
type pendingWrites struct{ n atomic.Int64 }

func (p *pendingWrites) start() { p.n.Add(1) }
func (p *pendingWrites) done()  { p.n.Add(-1) }

// wait returns once no write is in flight (or ctx ends); a write started
// after that is the next wait's.
func (p *pendingWrites) wait(ctx context.Context) {
	for p.n.Load() > 0 && ctx.Err() == nil {
		time.Sleep(time.Millisecond)
	}
}
