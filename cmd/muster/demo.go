// muster demo's flags; the run is pkg/demo's.

package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	kubectlmuster "github.com/muster-project/muster/cmd/kubectl-muster/app"
	"github.com/muster-project/muster/pkg/demo"
	"github.com/muster-project/muster/pkg/demo/embedded"
)

func newDemoCommand() *cobra.Command {
	nodes := 48
	showMetrics := false
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run an in-process control plane and muster-scheduler and submit a bursty mix of gangs",
		Long: `demo starts etcd, kube-apiserver and muster-scheduler in this process, registers a
simulated pool of 8-GPU nodes, and submits gangs in waves: single-pod jobs,
4-member gangs, a large pre-training gang, an elastic gang (min < max) and one
gang too big for the cluster. It prints progress once a second and then a table
of how long each gang took to reach min and max, or why it waits.

It exits non-zero if a gang that fits did not reach min (or the elastic gang
its max), or if the gang that cannot fit got any member bound.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if err := embedded.Run(ctx, cmd.OutOrStdout(), nodes, kubectlMusterGangs); err != nil {
				return err
			}
			if showMetrics {
				return embedded.WriteMusterMetrics(cmd.OutOrStdout())
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&nodes, "nodes", nodes, fmt.Sprintf("number of simulated 8-GPU nodes (at least %d)", demo.MinNodes))
	cmd.Flags().BoolVar(&showMetrics, "show-metrics", false, "then print the scheduler's muster_* metrics as its /metrics serves them")
	return cmd
}

// kubectlMusterGangs runs `kubectl muster gangs -A -o wide` against the
// demo's API server.
func kubectlMusterGangs(out io.Writer, kubeconfig string) error {
	cmd := kubectlmuster.NewCommand(genericiooptions.IOStreams{In: strings.NewReader(""), Out: out, ErrOut: out})
	cmd.SetArgs([]string{"--kubeconfig", kubeconfig, "gangs", "-A", "-o", "wide"})
	return cmd.Execute()
}
