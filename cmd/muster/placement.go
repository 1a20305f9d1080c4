// muster placement-report's flags; the runs are pkg/placement/replay's.

package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/muster-project/muster/pkg/placement"
	"github.com/muster-project/muster/pkg/placement/replay"
)

func newPlacementReportCommand() *cobra.Command {
	opts := replay.DefaultOptions()
	small := false
	cmd := &cobra.Command{
		Use:   "placement-report",
		Short: "Compare Muster's GPU placement with the default scheduler's on a fixed trace of gangs",
		Long: `placement-report runs one fixed trace of gang arrivals and departures on a
synthetic cluster (64 nodes of 8 GPUs in cliques of 8 nodes, racks of 16 and
zones of 32) four times, each in a fresh in-process control plane: with
muster-scheduler, with the default scheduler whose NodeResourcesFit scores
LeastAllocated and then MostAllocated, and with upstream's own gang
scheduling (each gang an upstream PodGroup, scheduling.k8s.io/v1beta1, with
its size as minCount and the zone as its topology constraint where Muster's
gang requires one; GenericWorkload and TopologyAwareWorkloadScheduling on,
default profile). Every run sees the same pods, created
and deleted in the same order, one step at a time; after each step it waits
until the scheduler has settled and takes a snapshot.

It prints one table, a column per scheduler: how many gangs landed within one
clique, rack and zone against the most that could, partial gangs, stranded
GPUs (mean over steps and at the end) and the largest gang still placeable at
the end. The last line is "stranded GPUs vs MostAllocated: X", Muster's mean
stranded GPUs over MostAllocated's. Progress goes to stderr.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			c, t := placement.DefaultCluster(), placement.DefaultTrace()
			if small {
				c, t = placement.SmallCluster(), placement.SmallTrace()
			}
			return replay.Report(ctx, cmd.OutOrStdout(), cmd.ErrOrStderr(), c, t, opts)
		},
	}
	cmd.Flags().BoolVar(&small, "small", small, "run the short trace on a 16-node cluster instead (a quick look; not the report's numbers)")
	cmd.Flags().DurationVar(&opts.Quiet, "quiet", opts.Quiet, "how long bound pods must stay unchanged before a step counts as settled")
	cmd.Flags().DurationVar(&opts.StepCap, "step-cap", opts.StepCap, "longest wait for one step to settle")
	return cmd
}
