// Command perftable reads the output of `go test -bench PerfScheduling` in
// test/perf (upstream's scheduler_perf) on stdin and prints, per workload,
// upstream's SchedulingThroughput (pods/s: average and percentiles over the
// run's one-second samples) under upstream's plugins and under Muster's,
// side by side, with the ratio of the averages. A case named MusterX is the
// twin of case X.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
)

// result is one workload's metrics, by "metric/bucket".
type result map[string]float64

var benchLine = regexp.MustCompile(`^BenchmarkPerfScheduling/([^/\s]+)/([^\s]+?)(-\d+)?\s+\d+\s+(.*)$`)

func main() {
	results, err := parse(os.Stdin)
	if err == nil {
		err = write(os.Stdout, results)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "perftable:", err)
		os.Exit(1)
	}
}

// parse collects results[case][workload] from benchmark lines: the values
// follow the iteration count as "value unit" pairs.
func parse(r io.Reader) (map[string]map[string]result, error) {
	out := map[string]map[string]result{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		fields := strings.Fields(m[4])
		if len(fields)%2 != 0 {
			return nil, fmt.Errorf("benchmark line of %s/%s: odd number of value/unit fields", m[1], m[2])
		}
		res := result{}
		for i := 0; i < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				return nil, fmt.Errorf("benchmark line of %s/%s: value %q of %s: %w", m[1], m[2], fields[i], fields[i+1], err)
			}
			res[fields[i+1]] = v
		}
		if out[m[1]] == nil {
			out[m[1]] = map[string]result{}
		}
		out[m[1]][m[2]] = res
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no BenchmarkPerfScheduling results on stdin")
	}
	return out, nil
}

func write(w io.Writer, results map[string]map[string]result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "case\tworkload\tscheduler\tpods/s avg\tp50\tp90\tp99\tattempt p99 ms\theap max MB\tmuster/upstream\t")
	bases := map[string]bool{}
	for c := range results {
		bases[strings.TrimPrefix(c, "Muster")] = true
	}
	var cases []string
	for c := range bases {
		cases = append(cases, c)
	}
	sort.Strings(cases)
	for _, c := range cases {
		workloads := map[string]bool{}
		for _, side := range []string{c, "Muster" + c} {
			for wl := range results[side] {
				workloads[wl] = true
			}
		}
		var names []string
		for wl := range workloads {
			names = append(names, wl)
		}
		sort.Strings(names)
		for _, wl := range names {
			up, hasUp := results[c][wl]
			mu, hasMu := results["Muster"+c][wl]
			if hasUp {
				row(tw, c, wl, "upstream", up, "")
			}
			if !hasMu {
				continue
			}
			ratio := "-"
			if a, b := up["SchedulingThroughput/Average"], mu["SchedulingThroughput/Average"]; hasUp && a > 0 && b > 0 {
				ratio = fmt.Sprintf("%.2f", b/a)
			}
			row(tw, c, wl, "muster", mu, ratio)
		}
	}
	return tw.Flush()
}

func row(w io.Writer, c, wl, who string, r result, ratio string) {
	get := func(k string) string {
		if v, ok := r[k]; ok {
			return fmt.Sprintf("%.1f", v)
		}
		return "-" // scheduler_perf measures no throughput for runs under a second or so
	}
	fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", c, wl, who,
		get("SchedulingThroughput/Average"), get("SchedulingThroughput/Perc50"), get("SchedulingThroughput/Perc90"), get("SchedulingThroughput/Perc99"),
		get("scheduler_scheduling_attempt_duration_ms/Perc99"), get("heap_memory_usage/Max"), ratio)
}
