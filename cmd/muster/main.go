// Command muster is Muster's tool for trying the gang scheduler without a
// cluster: `muster demo` runs a control plane and muster-scheduler
// in-process and submits a bursty mix of gangs to a simulated GPU pool;
// `muster simulate`, `muster chaos` and `muster placement-report` replay
// traces against it. This command parses flags; what each subcommand runs
// is in pkg/demo, pkg/simulate/replay and pkg/placement.
package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/muster-project/muster/pkg/controlplane"
)

func main() {
	err := newRootCommand().Execute()
	controlplane.StopEtcd() // the embedded control plane's data, hundreds of MB
	if err != nil {
		controlplane.DumpLoggedErrors(os.Stderr)
		os.Exit(1)
	}
}

func newRootCommand() *cobra.Command {
	var verbosity int
	root := &cobra.Command{
		Use:           "muster",
		Short:         "Muster gang scheduling tools",
		SilenceUsage:  true,
		SilenceErrors: false,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			return controlplane.SetupLogging(verbosity)
		},
	}
	root.PersistentFlags().IntVarP(&verbosity, "v", "v", 0, "log verbosity of the embedded control plane and scheduler (0 shows errors only)")
	root.AddCommand(newDemoCommand())
	root.AddCommand(newSimulateCommand())
	root.AddCommand(newChaosCommand())
	root.AddCommand(newPlacementReportCommand())
	return root
}
