// Command muster-scheduler is the upstream kube-scheduler with Muster's plugins
// (MusterGang, MusterTopology) registered. Run it as a secondary scheduler with a
// KubeSchedulerConfiguration whose profile is named muster-scheduler (see
// manifests/scheduler/config.yaml); it takes every kube-scheduler flag.
package main

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"

	"github.com/muster-project/muster/pkg/scheduler/plugins"
	"github.com/muster-project/muster/pkg/scheduler/served"
)

// gcPercent is the Go GC's target (GOGC) unless the environment sets one.
// The runtime's 100 lets the heap grow to twice what is live: at 5000 nodes
// and 10,000 pending pods Muster's peak RSS ran a fifth to a third above
// upstream kube-scheduler's on the same cluster, because it binds faster
// and so holds more in flight at once (events, pod marks, binds). At 50 it
// came within a tenth of upstream's, its CPU per pod still under a third of
// upstream's (make bench-scale prints both).
const gcPercent = 50

func main() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
	if err := plugins.SetFeatureDefaults(); err != nil {
		fmt.Fprintln(os.Stderr, "muster-scheduler:", err)
		os.Exit(1)
	}
	// Features whose API the cluster does not serve are turned off first:
	// the scheduler is built from 1.37 and runs on older API servers.
	var command *cobra.Command
	muster := plugins.New()
	opts := append([]app.Option{served.SchedulerOption(func() *pflag.FlagSet { return command.Flags() })}, muster.Options()...)
	command = app.NewSchedulerCommand(opts...)
	// The status, mark and ProvisioningRequest writers run beside the
	// scheduler, each until the scheduler's context ends.
	go muster.RunControllers(context.Background())
	os.Exit(cli.Run(command))
}
