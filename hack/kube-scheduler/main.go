// Command kube-scheduler is upstream's kube-scheduler, built from the
// vendored k8s.io/kubernetes (its cmd/kube-scheduler/scheduler.go, which is
// not vendored, word for word): no Muster plugin is registered. `make
// bench-scale` runs it as its own process beside muster-scheduler, with the
// control plane's Workload API gates on (controlplane.WorkloadFeatureGates),
// so that the default profile gang-schedules upstream PodGroups and its
// resident memory and CPU time are upstream's alone.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register" // for JSON log format registration
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version" // for version metric registration
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
)

func main() {
	command := app.NewSchedulerCommand()
	code := cli.Run(command)
	os.Exit(code)
}
