// Random: bursty traces of mixed jobs generated from a seed, and Trace.Format writing them back.

package simulate

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"time"
)

// Random generates a bursty trace of mixed jobs, the same for a seed: two or
// three bursts of four to eight jobs each, CPU jobs, single-GPU retrains and
// 8-GPU gangs, some elastic, some MPIJob-style with a CPU launcher, some
// confined to one placement group, a quarter of the gangs at priority 1000.
// Gangs stay within the heavy pool's eight nodes, so each could run alone.
func Random(seed int64) Trace {
	rng := rand.New(rand.NewSource(seed))
	var lines []string
	add := func(at float64, name, kind string, members, gpus, cpu int, run float64, opts ...string) {
		lines = append(lines, strings.TrimSpace(fmt.Sprintf("%.0f %s %s %d %d %d %.0f %s", at, name, kind, members, gpus, cpu, run, strings.Join(opts, " "))))
	}
	bursts := 2 + rng.Intn(2)
	n := 0
	for b := range bursts {
		start := float64(b*20 + rng.Intn(6))
		for range 4 + rng.Intn(5) {
			n++
			at := start + float64(rng.Intn(5))
			switch r := rng.Intn(10); {
			case r < 2:
				add(at, fmt.Sprintf("etl-%d", n), "cpu", 1+rng.Intn(2), 0, 4+rng.Intn(3), float64(5+rng.Intn(11)))
			case r < 5:
				add(at, fmt.Sprintf("retrain-%d", n), "gpu", 1, 1, 2, float64(3+rng.Intn(6)))
			default:
				workers := 2 + rng.Intn(5)
				var opts []string
				if rng.Intn(10) < 4 {
					opts = append(opts, fmt.Sprintf("min=%d", (workers+1)/2))
				}
				if rng.Intn(10) < 4 {
					opts = append(opts, "launcher=2")
				}
				if rng.Intn(2) == 0 {
					opts = append(opts, "require=placement-group")
				}
				if rng.Intn(4) == 0 {
					opts = append(opts, "priority=1000")
				}
				add(at, fmt.Sprintf("gang-%d", n), "gang", workers, 8, 16, float64(15+rng.Intn(21)), opts...)
			}
		}
	}
	sort.SliceStable(lines, func(a, b int) bool { return atOf(lines[a]) < atOf(lines[b]) })
	t, err := ParseTrace(strings.NewReader(strings.Join(lines, "\n")))
	if err != nil {
		panic(fmt.Sprintf("random trace %d: %v", seed, err))
	}
	return t
}

func atOf(line string) time.Duration {
	var m float64
	fmt.Sscan(line, &m)
	return time.Duration(m * float64(time.Minute))
}

// Format writes a trace in the trace format, so a generated one can be
// replayed with --trace.
func (t Trace) Format() string {
	var b strings.Builder
	b.WriteString("# minute  name  kind  members  gpus  cpu  run-minutes  options\n")
	for _, j := range t.Jobs {
		workers, min, max := j.Members, j.Min, j.Max
		var opts []string
		if j.LauncherMilliCPU > 0 {
			workers, min, max = workers-1, min-1, max-1
			opts = append(opts, fmt.Sprintf("launcher=%d", j.LauncherMilliCPU/1000))
		}
		if min != workers {
			opts = append(opts, fmt.Sprintf("min=%d", min))
		}
		if max != workers {
			opts = append(opts, fmt.Sprintf("max=%d", max))
		}
		if j.Require != "" {
			opts = append(opts, "require="+j.Require)
		}
		if j.Priority != 0 {
			opts = append(opts, fmt.Sprintf("priority=%d", j.Priority))
		}
		if j.Spot {
			opts = append(opts, "spot=true")
		}
		fmt.Fprintf(&b, "%g %s %s %d %d %d %g %s\n", j.At.Minutes(), j.Name, j.Kind, workers, j.GPUs, j.MilliCPU/1000, j.Run.Minutes(), strings.Join(opts, " "))
	}
	return b.String()
}
