// Command muster-bench measures scheduling throughput on an in-process control
// plane: plain pods under the upstream default scheduler, then the same pods
// in CRD-free gangs of 8 and of 64 under muster-scheduler. It prints a table
// and, last, the gang/plain throughput ratio.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"text/tabwriter"
	"time"

	"k8s.io/klog/v2"

	"github.com/muster-project/muster/test/bench"
	"github.com/muster-project/muster/test/harness"
)

func main() {
	nodes := flag.Int("nodes", 1000, "nodes (8 GPUs each)")
	pods := flag.Int("pods", 2000, "pods per scenario (1 GPU each), rounded down to whole gangs")
	runs := flag.Int("runs", 1, "runs of each scenario; the table shows their means")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run (control plane included) to this file")
	flag.Parse()
	if *nodes < 1 || *pods < 64 || *runs < 1 {
		fmt.Fprintln(os.Stderr, "muster-bench: need --nodes >= 1, --pods >= 64, --runs >= 1")
		os.Exit(2)
	}
	quietKlog()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "muster-bench:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if err := run(*nodes, *pods, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "muster-bench:", err)
		os.Exit(1)
	}
}

// quietKlog keeps the embedded control plane's logging off stderr: it logs
// harmless errors as its components start and stop ("The manifest file is
// empty"), which drowned the results. The bench's own failures come back as
// errors and are printed.
func quietKlog() {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	for k, v := range map[string]string{"logtostderr": "false", "alsologtostderr": "false", "stderrthreshold": "FATAL", "v": "0"} {
		_ = fs.Set(k, v)
	}
	klog.SetOutput(io.Discard)
}

type row struct {
	name                     string
	pods                     int
	podsPerSec, p50Ms, p99Ms float64
}

func run(nodes, pods, runs int) error {
	tb := harness.NewProcessTB("muster-bench")
	defer tb.Close()
	ctx := context.Background()
	start := time.Now()
	env, err := startEnv(tb)
	if err != nil {
		return err
	}
	cfg := bench.Config{Nodes: nodes, Pods: pods}
	if err := bench.EnsureNodes(ctx, env.Client, nodes); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "control plane and %d nodes ready in %v\n", nodes, time.Since(start).Round(time.Millisecond))

	var rows []row
	byName := map[string]row{}
	for _, sc := range bench.Scenarios() {
		r := row{name: sc.Name}
		for i := 0; i < runs; i++ {
			res, err := bench.Run(ctx, env, cfg, sc)
			if err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "%s run %d: %d pods in %v\n", sc.Name, i+1, res.Pods, res.Elapsed.Round(time.Millisecond))
			r.pods = res.Pods
			r.podsPerSec += res.PodsPerSec / float64(runs)
			r.p50Ms += bench.Ms(res.P50) / float64(runs)
			r.p99Ms += bench.Ms(res.P99) / float64(runs)
		}
		rows = append(rows, r)
		byName[sc.Name] = r
	}

	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "scenario\tpods\tpods/s\tp50 ms\tp99 ms\t")
	for _, r := range rows {
		fmt.Fprintf(w, "%s\t%d\t%.1f\t%.1f\t%.1f\t\n", r.name, r.pods, r.podsPerSec, r.p50Ms, r.p99Ms)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	plain := byName[bench.Plain.Name].podsPerSec
	fmt.Printf("gang64/plain throughput ratio: %.2f\n", byName[bench.Gang64.Name].podsPerSec/plain)
	fmt.Printf("gang/plain throughput ratio: %.2f\n", byName[bench.Gang8.Name].podsPerSec/plain)
	return nil
}

// startEnv starts the control plane; the upstream test servers report fatal
// setup errors by panicking through the TB.
func startEnv(tb *harness.ProcessTB) (env *harness.Env, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("control plane: %v", r)
		}
	}()
	return harness.Start(tb)
}
