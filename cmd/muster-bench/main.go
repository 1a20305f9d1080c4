// Command muster-bench measures scheduling throughput on an in-process
// control plane; see pkg/cli/musterbench.
package main

import (
	"os"

	"github.com/muster-project/muster/pkg/cli/musterbench"
)

func main() { os.Exit(musterbench.Main()) }
