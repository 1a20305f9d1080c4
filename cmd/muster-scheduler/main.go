// Command muster-scheduler is the upstream kube-scheduler with Muster's plugins
// (MusterGang, MusterTopology) registered. Run it as a secondary scheduler with a
// KubeSchedulerConfiguration whose profile is named muster-scheduler (see
// manifests/scheduler/config.yaml); it takes every kube-scheduler flag.
package main

import (
	"context"
	"fmt"
	"os"

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

func main() {
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
