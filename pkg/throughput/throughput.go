// Package throughput is what muster-bench measures: scheduling throughput on
// an in-process control plane: plain pods under the upstream default scheduler, then the same pods
// in CRD-free gangs of 8, 64 and 512 and in gangs of 1 to 64 shaped as MPI
// jobs (a launcher without GPUs plus workers) under muster-scheduler, and
// (--upstream) the same gangs as upstream v1beta1 PodGroups under the default
// profile's GangScheduling. It prints a table of medians over --runs and,
// last, the gang64/plain throughput ratio, that of the worst gang scenario
// and the worst muster/upstream ratio over the gang scenarios, in pods/s and
// in scheduling throughput alone.
package throughput

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"k8s.io/klog/v2"

	"github.com/muster-project/muster/pkg/controlplane"
	"github.com/muster-project/muster/test/bench"
)

// LogTo keeps the embedded control plane's logging off stderr: it logs
// harmless errors as its components start and stop ("The manifest file is
// empty"), which drowned the results. The bench's own failures come back as
// errors and are printed. With path set the logs go there, at verbosity v.
func LogTo(path string, v int) {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	for k, val := range map[string]string{"logtostderr": "false", "alsologtostderr": "false", "stderrthreshold": "FATAL", "v": "0"} {
		_ = fs.Set(k, val)
	}
	var out io.Writer = io.Discard
	if path != "" {
		f, err := os.Create(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "muster-bench: --log:", err)
		} else {
			out = f
			_ = fs.Set("v", fmt.Sprint(v))
		}
	}
	klog.SetOutput(out)
}

// Options is muster-bench's settings (its flags).
type Options struct {
	Nodes, Pods, Runs int
	// ShowWrites also prints each scenario's API writes per pod.
	ShowWrites bool
	// WithUpstream also schedules every gang scenario's gangs as upstream
	// PodGroups under the default profile's GangScheduling.
	WithUpstream bool
	// Only names the scenarios to run (comma separated; "" is all).
	Only string
	// SchedOnly also runs every scenario with its pods created before its
	// scheduler starts (bench.Config.PreCreate), for a throughput of
	// scheduling alone.
	SchedOnly bool
}

// writeTable prints the API writes per pod of each scenario, by verb and
// resource: where a scenario's extra API server load comes from.
func writeTable(rows []row) error {
	keys := map[string]bool{}
	for _, r := range rows {
		for k := range r.writes {
			if k != "POST pods" {
				keys[k] = true
			}
		}
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(w, "writes per pod\t")
	for _, r := range rows {
		fmt.Fprintf(w, "%s\t", r.name)
	}
	fmt.Fprintln(w)
	for _, k := range sorted {
		fmt.Fprintf(w, "%s\t", k)
		for _, r := range rows {
			fmt.Fprintf(w, "%.2f\t", r.writes[k])
		}
		fmt.Fprintln(w)
	}
	return w.Flush()
}

type row struct {
	name                     string
	pods                     int
	podsPerSec, p50Ms, p99Ms float64
	memberP99Ms              float64 // gangs: p99 from each member's own creation
	createShare              float64 // of the wall time, creating the pods
	schedPodsPerSec          float64 // pods created first: first bind to last
	writesPerPod             float64
	writes                   map[string]float64 // per pod, by verb and resource
	breakdown                bench.Breakdown    // the last run's
}

// Run runs the scenarios o selects and prints their table to stdout.
func Run(o Options) error {
	nodes, pods, runs := o.Nodes, o.Pods, o.Runs
	tb := controlplane.NewProcessTB("muster-bench")
	defer tb.Close()
	ctx := context.Background()
	start := time.Now()
	env, err := startEnv(tb, controlplane.Options{WorkloadAPI: o.WithUpstream})
	if err != nil {
		return err
	}
	cfg := bench.Config{Nodes: nodes, Pods: pods}
	if err := bench.EnsureNodes(ctx, env.Client, nodes); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "control plane and %d nodes ready in %v\n", nodes, time.Since(start).Round(time.Millisecond))

	// Runs go round the scenarios in turn, so that a slow spell of the
	// machine touches every scenario alike; each figure is the median of
	// the runs.
	scenarios, err := selected(bench.Scenarios(o.WithUpstream), o.Only)
	if err != nil {
		return err
	}
	results := make([][]bench.Result, len(scenarios))
	preResults := make([][]bench.Result, len(scenarios))
	preCfg := cfg
	preCfg.PreCreate = true
	for i := 0; i < runs; i++ {
		for j, sc := range scenarios {
			res, err := bench.Run(ctx, env, cfg, sc)
			if err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "%s run %d: %d pods in %v (created in %v), %.1f pods/s\n", sc.Name, i+1, res.Pods,
				res.Elapsed.Round(time.Millisecond), res.Creating.Round(time.Millisecond), res.PodsPerSec)
			results[j] = append(results[j], res)
			if !o.SchedOnly {
				continue
			}
			pre, err := bench.Run(ctx, env, preCfg, sc)
			if err != nil {
				return fmt.Errorf("%s, pods created first: %w", sc.Name, err)
			}
			fmt.Fprintf(os.Stderr, "%s run %d, pods created first: first bind %v after the scheduler started, then %.1f pods/s\n", sc.Name, i+1,
				pre.Startup.Round(time.Millisecond), pre.SchedPodsPerSec)
			preResults[j] = append(preResults[j], pre)
		}
	}
	var rows []row
	for j, sc := range scenarios {
		rs := results[j]
		r := row{name: sc.Name, pods: rs[0].Pods, writes: map[string]float64{},
			podsPerSec:   median(rs, func(r bench.Result) float64 { return r.PodsPerSec }),
			p50Ms:        median(rs, func(r bench.Result) float64 { return bench.Ms(r.P50) }),
			p99Ms:        median(rs, func(r bench.Result) float64 { return bench.Ms(r.P99) }),
			writesPerPod: median(rs, bench.Result.WritesPerPod),
			memberP99Ms:  median(rs, func(r bench.Result) float64 { return bench.Ms(r.MemberP99) }),
			createShare: median(rs, func(r bench.Result) float64 {
				if r.Elapsed <= 0 {
					return 0
				}
				return float64(r.Creating) / float64(r.Elapsed)
			}),
			breakdown: rs[len(rs)-1].Breakdown,
		}
		if pre := preResults[j]; len(pre) > 0 {
			r.schedPodsPerSec = median(pre, func(r bench.Result) float64 { return r.SchedPodsPerSec })
		}
		for _, res := range rs {
			for k := range res.Writes {
				r.writes[k] = 0 // every key some run wrote
			}
		}
		for k := range r.writes {
			r.writes[k] = median(rs, func(r bench.Result) float64 { return r.Writes[k] / float64(r.Pods) })
		}
		rows = append(rows, r)
	}

	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "scenario\tpods\tpods/s\tcreating %\tsched-only pods/s\tp50 ms\tp99 ms\tmember p99 ms\tAPI writes/pod\t")
	for _, r := range rows {
		schedOnly, memberP99 := "-", "-"
		if r.schedPodsPerSec > 0 {
			schedOnly = fmt.Sprintf("%.1f", r.schedPodsPerSec)
		}
		if r.memberP99Ms > 0 {
			memberP99 = fmt.Sprintf("%.1f", r.memberP99Ms)
		}
		fmt.Fprintf(w, "%s\t%d\t%.1f\t%.0f\t%s\t%.1f\t%.1f\t%s\t%.2f\t\n", r.name, r.pods, r.podsPerSec, 100*r.createShare, schedOnly, r.p50Ms, r.p99Ms, memberP99, r.writesPerPod)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Println("pods/s: first create call to last bind; creating %: of that, until the last create call returned; sched-only pods/s: the same pods created")
	fmt.Println("before the scheduler starts, first bind to last; p50/p99: per gang from its last member's creation to its quorum bound (plain: per pod);")
	fmt.Println("member p99: per gang member from its own creation to its bind")
	fmt.Println("where the time went (last run; ms per bound pod, from the scheduler's metrics):")
	for _, r := range rows {
		fmt.Printf("  %s: %s\n", r.name, r.breakdown)
	}
	if o.ShowWrites {
		if err := writeTable(rows); err != nil {
			return err
		}
	}
	for _, l := range ratioLines(scenarios, rows) {
		fmt.Println(l)
	}
	return nil
}

// ratioLines are the table's last lines: gang64 against plain pods, the
// worst gang scenario against plain pods, and the worst gang scenario
// against its upstream twin, in pods/s from the first create call to the
// last bind and, where the runs measured it (--sched-only), in scheduling
// throughput alone. The first figure is bounded by how fast the pods are
// created on this machine (a scenario that keeps up with creation shows
// its creation rate); the second is what scheduler_perf reports, the
// schedulers' own difference. A line whose scenarios did not run is left
// out.
func ratioLines(scenarios []bench.Scenario, rows []row) []string {
	byName := map[string]row{}
	for _, r := range rows {
		byName[r.name] = r
	}
	plain, ok := byName[bench.Plain.Name]
	if !ok {
		return nil
	}
	var out []string
	if g, ok := byName[bench.Gang64.Name]; ok {
		out = append(out, fmt.Sprintf("gang64/plain throughput ratio: %.2f", g.podsPerSec/plain.podsPerSec))
	}
	// worst is the lowest of f over the gang scenarios, and the lowest
	// ratio of f against each one's upstream twin.
	worst := func(f func(row) float64) (lowest, vsUpstream float64) {
		for j, sc := range scenarios {
			if sc.Upstream || sc == bench.Plain || f(rows[j]) <= 0 {
				continue
			}
			if lowest == 0 || f(rows[j]) < lowest {
				lowest = f(rows[j])
			}
			if u, ok := bench.UpstreamOf(sc); ok {
				if ur, ok := byName[u.Name]; ok && f(ur) > 0 {
					if r := f(rows[j]) / f(ur); vsUpstream == 0 || r < vsUpstream {
						vsUpstream = r
					}
				}
			}
		}
		return lowest, vsUpstream
	}
	lowest, vsUpstream := worst(func(r row) float64 { return r.podsPerSec })
	if lowest > 0 {
		out = append(out, fmt.Sprintf("gang/plain throughput ratio: %.2f", lowest/plain.podsPerSec))
	}
	if vsUpstream > 0 {
		out = append(out, fmt.Sprintf("muster/upstream gang throughput ratio: %.2f", vsUpstream))
	}
	if _, vsUpstream := worst(func(r row) float64 { return r.schedPodsPerSec }); vsUpstream > 0 {
		out = append(out, fmt.Sprintf("muster/upstream gang scheduling throughput ratio (pods created first): %.2f", vsUpstream))
	}
	return out
}

// selected is the scenarios named in list (all of them if it is empty),
// in report order.
func selected(all []bench.Scenario, list string) ([]bench.Scenario, error) {
	if list == "" {
		return all, nil
	}
	want := map[string]bool{}
	for _, name := range strings.Split(list, ",") {
		want[strings.TrimSpace(name)] = true
	}
	var out []bench.Scenario
	for _, sc := range all {
		if want[sc.Name] {
			out = append(out, sc)
			delete(want, sc.Name)
		}
	}
	if len(want) > 0 {
		var names []string
		for _, sc := range all {
			names = append(names, sc.Name)
		}
		return nil, fmt.Errorf("--only: unknown scenario(s) %v; the scenarios are %s", sortedKeys(want), strings.Join(names, ", "))
	}
	return out, nil
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// median is the median of f over the runs (the mean of the middle two
// for an even count).
func median(rs []bench.Result, f func(bench.Result) float64) float64 {
	v := make([]float64, len(rs))
	for i, r := range rs {
		v[i] = f(r)
	}
	sort.Float64s(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// startEnv starts the control plane; a panic while it starts (the TB's
// TempDir panics when it cannot make a directory) becomes the error.
func startEnv(tb *controlplane.ProcessTB, o controlplane.Options) (env *controlplane.Env, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("control plane: %v", r)
		}
	}()
	return controlplane.StartWith(tb, o)
}
