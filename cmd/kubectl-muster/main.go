// kubectl-muster is a kubectl plugin (kubectl muster ...) that shows
// Muster's gangs as the scheduler sees them: from its labels, from
// scheduler-plugins PodGroups, with what the scheduler and the autoscaler
// said of them. It reads; it never writes.
package main

import (
	"os"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/muster-project/muster/cmd/kubectl-muster/app"
)

func main() {
	cmd := app.NewCommand(genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr})
	if err := cmd.Execute(); err != nil {
		os.Exit(1)
	}
}
