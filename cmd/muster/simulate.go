// muster simulate's flags; the replays are pkg/simulate/replay's.

package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/muster-project/muster/pkg/simulate"
	"github.com/muster-project/muster/pkg/simulate/replay"
)

func newSimulateCommand() *cobra.Command {
	o := replay.DefaultOptions()
	var progressMode, cpuProfile string
	cmd := &cobra.Command{
		Use:   "simulate",
		Short: "Replay a bursty training trace on the whole stack, with Muster, upstream's gang scheduling, the default scheduler and Kueue, and compare",
		Long: `simulate runs the whole stack in one command, once per side: an in-process kube-apiserver,
a scheduler, the local Azure Resource Manager endpoint (armlocal, with a CPU, a
light-GPU and a heavy-GPU pool starting at 0, provisioning delays and quotas,
and a node agent that registers a Node for each instance that comes up) and the
custom cluster-autoscaler (muster-autoscaler) as separate processes. It replays
a trace of jobs, running each bound job for its duration, on each side of
--sides: muster (muster-scheduler and its autoscaler hints, the autoscaler
withdrawing upcoming nodes no pending pod needs), upstream (kube-scheduler's
default profile with upstream gang scheduling, GenericWorkload on, each gang an
upstream PodGroup of minCount min; a stock autoscaler), default (the default
scheduler and a stock autoscaler, reported as baseline) and kueue (Kueue, built
by make kueue, admitting each gang as a plain pod group through a
ProvisioningRequest admission check the autoscaler serves; the default
scheduler places what Kueue admitted), and prints them in
columns: waits to min and max, nodes per pool (also drawn to --chart),
GPU-hours provisioned and used, partial gangs, excess nodes, nodes withdrawn
while being created and failed scale-ups. Under them the oracle, computed from
the trace and the pools: what a clairvoyant provisioner would pay (every job's
nodes up its pool's boot time before it starts), and each side's idle
GPU-hours and cost as multiples of it.

With --pools FILE it plans the user's own pools: each run's cost in $ (the
nodes' hours at the pools' prices), GPU-hours paid, used and idle, and
GPU-hours held by gangs that never started, side by side. Pools may be spot
(spot: true, with a price and a reclaim rate; reclaims are drawn from
--seed); elastic gangs marked spot=true in the trace tolerate spot nodes and,
under Muster, put their members above min there. Then the trace runs a third
time, Muster without spot, and the report adds reclaims and gangs a reclaim
took below min.

With --repeat N each side runs N times on the same trace and seed, and the
report ends with each figure as median (min–max) over the runs, and each
job's minutes to min, so that a reader sees how far to trust a figure.
With --random too, each generated trace is replayed N times on each side,
and the summary's figures are medians, with their range where the
replays differ.

A gang's run-minutes are its run at max workers: an elastic gang running
fewer workers takes longer in proportion.

Trace time is not wall time: the simulator steps a trace clock (--step) that
the cloud, the autoscaler and Muster's plugins run on, waiting between steps
until the system is quiet and jumping ahead when nothing moves, so a replay
repeats itself and a day of jobs (--trace-for 24h) takes minutes. With
--step 0 one trace minute takes --minute of wall time instead.

Each side runs until every job the pools can run is done (--until done), and
--grace after, so that its cost and idle GPU-hours pay for the same work as
the other sides'; a job no pool could ever hold is not waited for, and a side
that cannot finish its jobs (a deadlock of partial gangs) stops --overtime
past the trace's end. The report says when each run ended and how many jobs
were not done. --until horizon stops every side at the same trace time
instead, whatever each has done by then.

Trace format (--trace FILE):
` + "\n" + simulate.DefaultTrace + `
Pools format (--pools FILE), the shipped example:

` + simulate.ExamplePools,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if progressMode != "auto" && progressMode != "always" && progressMode != "never" {
				return fmt.Errorf("--progress %q: want auto, always or never", progressMode)
			}
			progress := cmd.ErrOrStderr()
			if !replay.ShowProgress(progress, progressMode) {
				progress = io.Discard
			}
			if os.Getenv("GOGC") == "" {
				// The API server, etcd and scheduler in this one process
				// allocate at a rate that had the garbage collector take
				// a third of a replay's CPU; a few hundred MB more heap
				// is cheap beside that.
				debug.SetGCPercent(400)
			}
			if cpuProfile != "" {
				f, err := os.Create(cpuProfile)
				if err != nil {
					return fmt.Errorf("--cpuprofile: %w", err)
				}
				defer f.Close()
				if err := pprof.StartCPUProfile(f); err != nil {
					return fmt.Errorf("--cpuprofile: %w", err)
				}
				defer pprof.StopCPUProfile()
			}
			return replay.Simulate(ctx, cmd.OutOrStdout(), progress, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.TracePath, "trace", "", "trace file (default: the built-in trace shown above)")
	f.StringVar(&o.PoolsPath, "pools", "", "pools file: the cluster to plan, VM sizes, bounds, boot times and prices (default: the built-in pools, pkg/simulate/pools.example.yaml; format below)")
	f.StringVar(&o.BinDir, "bin-dir", o.BinDir, "directory holding the muster-autoscaler and armlocal binaries (make -C autoscaler build)")
	f.DurationVar(&o.Step, "step", o.Step, "trace time between the stepped clock's steps while jobs come, bind or end (0: no steps; trace time runs on wall time, --minute per trace minute)")
	f.DurationVar(&o.Minute, "minute", o.Minute, "with --step 0, the wall time one trace minute takes")
	f.DurationVar(&o.TraceFor, "trace-for", 0, "replay the trace again every --trace-every for this long, e.g. 24h for a day of its load (copies' jobs are named -c2, -c3, ...)")
	f.DurationVar(&o.TraceEvery, "trace-every", o.TraceEvery, "with --trace-for, how often a copy of the trace starts")
	f.StringVar(&o.Chart, "chart", o.Chart, "SVG file for the chart of GPUs paid for and used over time, both runs")
	f.DurationVar(&o.Grace, "grace", o.Grace, "trace time to keep running after the last job that can run was done (--until done), or after the last job could have ended (--until horizon), so that the nodes' scale-down is paid")
	f.StringVar(&o.Until, "until", o.Until, "when each side's run ends: done (once every job the pools can run is done, and --grace after; every side then pays for the same work) or horizon (the same trace time on every side, whatever each has done by then)")
	f.DurationVar(&o.Overtime, "overtime", o.Overtime, "with --until done, how long past the trace's last possible end a side may take to finish its jobs before the run stops (the report gives the jobs not done)")
	f.BoolVar(&o.KeepLogs, "keep-logs", false, "keep the components' logs (their directory is printed)")
	f.StringVar(&progressMode, "progress", "auto", "progress lines on stderr: auto (when stderr is a terminal), always or never")
	f.IntVar(&o.Random, "random", 0, "replay this many generated bursty traces (mixed shapes, launchers, priorities, elastic gangs; see --seed) instead of one, and sum them up")
	f.Int64Var(&o.Seed, "seed", o.Seed, "seed of every random choice: the first generated trace (--random; trace i uses seed+i) and spot reclaims; the same for every run and side")
	f.IntVar(&o.Repeat, "repeat", o.Repeat, "run each side this many times (each generated trace, with --random) and report each figure as median (min–max)")
	f.StringSliceVar(&o.Sides, "sides", replay.DefaultSides(), "sides to replay the trace on, a column each: muster (Muster's plugins and autoscaler path), upstream (kube-scheduler's default profile with upstream gang scheduling, gangs as upstream PodGroups, stock autoscaler), default (the default scheduler and stock autoscaler; reported as baseline), kueue (Kueue with a ProvisioningRequest admission check, the default scheduler; needs make kueue)")
	f.StringVar(&o.KueueBin, "kueue-bin", "bin/kueue", "the kueue side's Kueue binary, its CRDs in the directory beside it named BINARY-crds (make kueue)")
	f.StringVar(&o.StepLog, "step-log", "", "write the cluster as each step left it (nodes, pods, ProvisioningRequests) to DIR/SIDE-REPLAY.log, to diff two replays and find the step where they part (stepped clock only)")
	f.StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of this process (API server, scheduler and simulator; not armlocal or the autoscaler) to this file, to see where a slow replay's time goes")
	return cmd
}
