// Command muster is Muster's tool for trying the gang scheduler without a
// cluster (demo, simulate, chaos, placement-report); see pkg/cli/muster.
package main

import (
	"os"

	"github.com/muster-project/muster/pkg/cli/muster"
)

func main() { os.Exit(muster.Main()) }
