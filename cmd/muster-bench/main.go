// Command muster-bench measures scheduling throughput on an in-process
// control plane (pkg/throughput); this file parses its flags.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

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
	flag.BoolVar(&o.SchedOnly, "sched-only", true, "also run every scenario with its pods created before its scheduler starts: a throughput of scheduling alone (first bind to last)")
	flag.StringVar(&o.Only, "only", "", "run only these scenarios (comma separated names, e.g. gang512,upstream512); the ratio lines need plain and the gang scenarios")
	scale := flag.Bool("scale", false, "instead of the scenarios: the scale grid, --pods pending pods in each of --gangs waiting gangs (a launcher and workers, two priorities) at each of --grid-nodes cluster sizes, scheduled by a muster-scheduler process (--scheduler-binary) and by upstream's kube-scheduler with GangScheduling (--upstream-binary), each started once the pods exist; a table of pods/s, gang p99, CPU per pod and peak RSS, and the --svg chart")
	schedulerBinary := flag.String("scheduler-binary", "bin/muster-scheduler", "the muster-scheduler binary --scale runs")
	upstreamBinary := flag.String("upstream-binary", "bin/kube-scheduler", "the kube-scheduler binary --scale runs (hack/kube-scheduler)")
	gridNodes := flag.String("grid-nodes", "500,1000,2000,5000", "--scale: the cluster sizes, ascending")
	gridGangs := flag.String("gangs", "10,100,1000", "--scale: the numbers of waiting gangs (each of --pods/gangs members)")
	cellTimeout := flag.Duration("cell-timeout", 15*time.Minute, "--scale: how long a side of a cell may take to bind its warm-up pod, and then its pods")
	sides := flag.String("sides", "muster,upstream", "--scale: the sides to run, in the first cell's order (the next cell takes them the other way round)")
	svg := flag.String("svg", "bench-scale.svg", "--scale: write the chart of pods/s against cluster size here (\"\" for none)")
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
		so := throughput.ScaleOptions{Pods: o.Pods, MusterBinary: *schedulerBinary, UpstreamBinary: *upstreamBinary, Sides: strings.Split(*sides, ","), Timeout: *cellTimeout}
		var err error
		if so.Nodes, err = ints(*gridNodes); err == nil {
			so.Gangs, err = ints(*gridGangs)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "muster-bench:", err)
			return 2
		}
		if err := runScale(so, *svg); err != nil {
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

// runScale runs the scale grid, prints its table and writes its chart.
func runScale(o throughput.ScaleOptions, svg string) error {
	cells, err := throughput.RunScale(context.Background(), o, os.Stderr)
	if len(cells) > 0 {
		if terr := throughput.WriteScaleTable(os.Stdout, o.Pods, cells); terr != nil && err == nil {
			err = terr
		}
	}
	if err != nil {
		return err
	}
	if svg == "" {
		return nil
	}
	f, err := os.Create(svg)
	if err != nil {
		return err
	}
	if err := throughput.WriteScaleChart(f, cells); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Printf("chart: %s\n", svg)
	return nil
}

// ints parses a comma-separated list of integers.
func ints(list string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("%q: %w", list, err)
		}
		out = append(out, n)
	}
	return out, nil
}
