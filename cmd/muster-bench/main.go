// Command muster-bench measures scheduling throughput on an in-process
// control plane (pkg/throughput); this file parses its flags.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/muster-project/muster/pkg/controlplane"
	"github.com/muster-project/muster/pkg/throughput"
)

func main() { os.Exit(run()) }

// run parses the flags, runs muster-bench and returns its exit code, after
// the deferred clean-up (the CPU profile, the embedded etcd's data) has run.
func run() int {
	defer controlplane.StopEtcd()
	var o throughput.Options
	flag.IntVar(&o.Nodes, "nodes", 1000, "nodes (8 GPUs each)")
	flag.IntVar(&o.Pods, "pods", 2000, "pods per scenario (1 GPU each), rounded down to whole gangs")
	flag.IntVar(&o.Runs, "runs", 1, "runs of each scenario, taken in turn; the table shows their medians")
	flag.BoolVar(&o.ShowWrites, "writes", false, "also print each scenario's API writes per pod by verb and resource")
	flag.BoolVar(&o.WithUpstream, "upstream", true, "also schedule every gang scenario's gangs as upstream v1beta1 PodGroups under the default profile's GangScheduling (GenericWorkload on for those runs only)")
	flag.StringVar(&o.Only, "only", "", "run only these scenarios (comma separated names, e.g. gang512,upstream512); the ratio lines need plain and the gang scenarios")
	scale := flag.Bool("scale", false, "instead of the scenarios: gangs of 50 (launcher + 49 workers, two priorities) scheduled by a muster-scheduler process (--scheduler-binary); print its RSS and CPU per pod (e.g. --nodes 5000 --pods 10000)")
	schedulerBinary := flag.String("scheduler-binary", "bin/muster-scheduler", "the muster-scheduler binary --scale runs")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run (control plane included) to this file")
	logFile := flag.String("log", "", "write the control plane's and schedulers' logs to this file (with --log-v), to see why a run was slow")
	verbosity := flag.Int("log-v", 2, "log verbosity for --log (2 shows each failed gang attempt and its reason)")
	flag.Parse()
	if o.Nodes < 1 || o.Pods < 64 || o.Runs < 1 {
		fmt.Fprintln(os.Stderr, "muster-bench: need --nodes >= 1, --pods >= 64, --runs >= 1")
		return 2
	}
	throughput.LogTo(*logFile, *verbosity)
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "muster-bench:", err)
			return 1
		}
		defer pprof.StopCPUProfile()
	}
	if *scale {
		if err := throughput.RunScale(o.Nodes, o.Pods, *schedulerBinary); err != nil {
			fmt.Fprintln(os.Stderr, "muster-bench:", err)
			return 1
		}
		return 0
	}
	if err := throughput.Run(o); err != nil {
		fmt.Fprintln(os.Stderr, "muster-bench:", err)
		return 1
	}
	return 0
}
