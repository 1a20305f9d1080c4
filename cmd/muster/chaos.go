// muster chaos's flags; the runs are pkg/simulate/replay's.

package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/muster-project/muster/pkg/simulate/replay"
)

func newChaosCommand() *cobra.Command {
	o := replay.DefaultChaosOptions()
	cmd := &cobra.Command{
		Use:   "chaos",
		Short: "Replay random traces on the whole stack while injecting faults, and check that nothing breaks",
		Long: `chaos runs the stack of muster simulate (Muster's side only) on generated
traces (--seeds of them, from --seed on) while it injects faults at random
times, the same for a seed: the leading scheduler killed (two muster-scheduler
processes run with leader election; the standby takes over, the killed one
restarts), the autoscaler killed mid scale-up and restarted, VMs lost under
running and waiting gangs, binds to one node refused, ARM 429 storms, 5xx and
slow answers, partial provisioning, the GPU quota cut for a while.

It checks while the run goes, and at its end, that no gang runs 1..min-1
members for longer than its timeout allows (partial gangs), no VM stays
unprovisioned or unused past the autoscaler's delays (leaked VMs), the
autoscaler never deletes a VM its pods run on (VMs deleted unasked), no pool
goes past its max, and every gang (each fits the cluster alone) runs min
members and finishes its run by the end (starved gangs). The run ends when
every job has, or at the latest at the trace's span plus two hours, or
twice the time its gangs need on the GPU pool at its max if that is later. It prints a table per seed and the line
"chaos: runs N, partial gangs 0, ...", and exits 1 naming the seeds to replay
when any figure is not 0.

Needs armlocal and muster-autoscaler in --bin-dir (make -C autoscaler build)
and the muster-scheduler binary (--scheduler-bin); make chaos builds them.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			_, err := replay.Chaos(ctx, cmd.OutOrStdout(), cmd.ErrOrStderr(), o)
			return err
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.Seeds, "seeds", o.Seeds, "how many generated traces to run, seeds --seed, --seed+1, ...")
	f.Int64Var(&o.Sim.Seed, "seed", o.Sim.Seed, "first seed: it picks the trace, the faults' times and kinds and their targets")
	f.BoolVar(&o.Short, "short", false, "keep only the first burst of each trace (the CI variant)")
	f.StringVar(&o.Sim.BinDir, "bin-dir", o.Sim.BinDir, "directory holding the muster-autoscaler and armlocal binaries (make -C autoscaler build)")
	f.StringVar(&o.SchedulerBin, "scheduler-bin", o.SchedulerBin, "the muster-scheduler binary (make build)")
	f.DurationVar(&o.Sim.Minute, "minute", o.Sim.Minute, "wall time one trace minute takes")
	f.BoolVar(&o.Sim.KeepLogs, "keep-logs", false, "keep the components' logs (their directory is printed)")
	return cmd
}
