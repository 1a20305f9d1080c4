// Package simulate holds what `muster simulate` replays and reports, free of
// any API server or cloud: the trace of jobs (its file format and the default
// one), the record of what happened during a run (jobs, pods, nodes,
// scale-ups), the figures computed from a record, and the report that puts a
// Muster run and a baseline run side by side, with a chart of nodes per pool.
//
// Time: a trace is written in minutes; the simulator runs one trace minute in
// one wall-clock second, so GPU-hours are reported in trace time.
package simulate

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
)

// Kind is what a job needs.
type Kind string

// Job kinds, as in the seed scenario: CPU work (Spark-style), single-GPU
// retrains that finish fast, and multi-node 8-GPU gangs that run long.
const (
	KindCPU  Kind = "cpu"
	KindGPU  Kind = "gpu"
	KindGang Kind = "gang"
)

// Job is one line of a trace.
type Job struct {
	Name string
	At   time.Duration // arrival, trace time
	Kind Kind
	// Members pods are created; Min of them must run together (Min = Members
	// for rigid jobs), at most Max run.
	Members, Min, Max int
	GPUs              int64 // per member
	MilliCPU          int64 // per member
	Run               time.Duration
	// Require is the topology level all min members must share ("" none).
	Require string
	// LauncherMilliCPU, when above 0, is an MPIJob-style launcher: one more
	// member, asking for that much CPU and no GPU, counted in Members, Min
	// and Max (the trace's members field counts workers only).
	LauncherMilliCPU int64
	// Priority is the job's pod priority (a PriorityClass the simulator
	// creates).
	Priority int32
	// Spot: the job tolerates spot nodes and, under Muster, opts in to
	// putting its members above min there (muster.dev/spot-extras). Elastic
	// gangs only.
	Spot bool
}

// Launcher is the name of a job's launcher pod.
func (j Job) Launcher() string { return j.Name + "-launcher" }

// IsLauncher says whether pod is the job's launcher or a replacement of it
// (NAME-launcher-rN).
func (j Job) IsLauncher(pod string) bool {
	return j.LauncherMilliCPU > 0 && (pod == j.Launcher() || strings.HasPrefix(pod, j.Launcher()+"-r"))
}

// PodGPUs is how many GPUs a pod of the job asks for: none for the launcher
// or a replacement of it (NAME-launcher-rN), the job's GPUs for a worker.
func (j Job) PodGPUs(pod string) int64 {
	if j.IsLauncher(pod) {
		return 0
	}
	return j.GPUs
}

// Pods lists the names of a job's pods: workers NAME-0.., then the launcher.
func (j Job) Pods() []string {
	workers := j.Members
	if j.LauncherMilliCPU > 0 {
		workers--
	}
	out := make([]string, 0, j.Members)
	for i := range workers {
		out = append(out, fmt.Sprintf("%s-%d", j.Name, i))
	}
	if j.LauncherMilliCPU > 0 {
		out = append(out, j.Launcher())
	}
	return out
}

// Trace is a list of jobs by arrival.
type Trace struct{ Jobs []Job }

// Scale is how much trace time one wall-clock second stands for.
const Scale = time.Minute / time.Second

// ParseTrace reads the trace format, one job per line:
//
//	# minute  name        kind  members  gpus  cpu  run-minutes  [min=N] [max=N] [require=LEVEL] [launcher=CPU] [priority=P] [spot=true]
//	0         etl-1       cpu   1        0     8    10
//	2         retrain-1   gpu   1        1     4    3
//	5         llm-1       gang  4        8     16   60           require=placement-group
//
// Blank lines and lines starting with # are ignored. Errors name the line
// and the field.
func ParseTrace(r io.Reader) (Trace, error) {
	var t Trace
	sc := bufio.NewScanner(r)
	names := map[string]int{}
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		f := strings.Fields(text)
		bad := func(field, format string, args ...any) error {
			return fmt.Errorf("trace line %d: field %s: %s", line, field, fmt.Sprintf(format, args...))
		}
		if len(f) < 7 {
			return Trace{}, fmt.Errorf("trace line %d: want at least 7 fields (minute name kind members gpus cpu run-minutes), got %d", line, len(f))
		}
		at, err := parseMinutes(f[0], false)
		if err != nil {
			return Trace{}, bad("minute", "%v", err)
		}
		j := Job{Name: f[1], At: at, Kind: Kind(f[2])}
		if errs := validation.IsDNS1123Label(j.Name); len(errs) > 0 {
			return Trace{}, bad("name", "%q is not a valid job name: %s", j.Name, strings.Join(errs, "; "))
		}
		if prev, dup := names[j.Name]; dup {
			return Trace{}, bad("name", "%q already used on line %d", j.Name, prev)
		}
		names[j.Name] = line
		switch j.Kind {
		case KindCPU, KindGPU, KindGang:
		default:
			return Trace{}, bad("kind", "want cpu, gpu or gang, got %q", f[2])
		}
		ints := []struct {
			field string
			s     string
			dst   *int64
			min   int64
			max   int64
		}{{"members", f[3], new(int64), 1, MaxMembers}, {"gpus", f[4], &j.GPUs, 0, maxPerMember}, {"cpu", f[5], new(int64), 0, maxPerMember}}
		for _, x := range ints {
			n, err := strconv.ParseInt(x.s, 10, 64)
			if err != nil || n < x.min || n > x.max {
				return Trace{}, bad(x.field, "want a whole number from %d to %d, got %q", x.min, x.max, x.s)
			}
			*x.dst = n
		}
		j.Members = int(*ints[0].dst)
		j.MilliCPU = *ints[2].dst * 1000
		if j.Run, err = parseMinutes(f[6], true); err != nil {
			return Trace{}, bad("run-minutes", "%v", err)
		}
		j.Min, j.Max = j.Members, j.Members
		for _, opt := range f[7:] {
			k, v, ok := strings.Cut(opt, "=")
			if !ok {
				return Trace{}, bad(opt, "want key=value")
			}
			switch k {
			case "min", "max":
				n, err := strconv.Atoi(v)
				if err != nil || n < 1 || n > j.Members {
					return Trace{}, bad(k, "want 1..%d (members), got %q", j.Members, v)
				}
				if k == "min" {
					j.Min = n
				} else {
					j.Max = n
				}
			case "require":
				j.Require = v
			case "launcher":
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil || n < 1 || j.Kind != KindGang {
					return Trace{}, bad(k, "want a gang job's launcher CPUs (1 or more), got %q", v)
				}
				j.LauncherMilliCPU = n * 1000
			case "priority":
				n, err := strconv.ParseInt(v, 10, 32)
				if err != nil || n < 0 || n > 1000000000 {
					return Trace{}, bad(k, "want 0..1000000000, got %q", v)
				}
				j.Priority = int32(n)
			case "spot":
				b, err := strconv.ParseBool(v)
				if err != nil {
					return Trace{}, bad(k, "want true or false, got %q", v)
				}
				j.Spot = b
			default:
				return Trace{}, bad(k, "unknown option; want min, max, require, launcher, priority or spot")
			}
		}
		if j.Min > j.Max {
			return Trace{}, bad("min", "min %d is above max %d", j.Min, j.Max)
		}
		if j.Spot && (j.Kind != KindGang || j.Min == j.Max) {
			return Trace{}, bad("spot", "only an elastic gang (max above min) puts members on spot nodes: its quorum never goes there")
		}
		if j.LauncherMilliCPU > 0 {
			j.Members, j.Min, j.Max = j.Members+1, j.Min+1, j.Max+1
		}
		for _, pod := range []string{j.Launcher(), fmt.Sprintf("%s-%d", j.Name, j.Members-1)} {
			if errs := validation.IsDNS1123Label(pod); len(errs) > 0 {
				return Trace{}, bad("name", "%q is too long for its pods' names (%s): %s", j.Name, pod, strings.Join(errs, "; "))
			}
		}
		if j.Kind == KindGPU && j.GPUs == 0 {
			return Trace{}, bad("gpus", "a gpu job needs at least 1 GPU")
		}
		if j.Kind == KindCPU && j.GPUs != 0 {
			return Trace{}, bad("gpus", "a cpu job asks for no GPUs")
		}
		t.Jobs = append(t.Jobs, j)
	}
	if err := sc.Err(); err != nil {
		return Trace{}, err
	}
	if len(t.Jobs) == 0 {
		return Trace{}, fmt.Errorf("trace has no jobs")
	}
	sort.SliceStable(t.Jobs, func(a, b int) bool { return t.Jobs[a].At < t.Jobs[b].At })
	return t, nil
}

// Bounds of a trace's fields: beyond them a trace is a typo, not a workload,
// and durations would overflow.
const (
	// MaxMembers is the most members (workers) one job may have.
	MaxMembers = 10000
	// maxPerMember bounds the GPUs and CPUs one member asks for.
	maxPerMember = 1024
	// maxMinutes bounds arrival and run times: about two years.
	maxMinutes = 1 << 20
)

// parseMinutes reads a finite number of minutes up to maxMinutes: from 0,
// or, when positive, above 0.
func parseMinutes(s string, positive bool) (time.Duration, error) {
	m, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil || math.IsNaN(m) || math.IsInf(m, 0):
		return 0, fmt.Errorf("want a number of minutes, got %q", s)
	case positive && m <= 0:
		return 0, fmt.Errorf("want more than 0 minutes, got %q", s)
	case m < 0 || m > maxMinutes:
		return 0, fmt.Errorf("want 0 to %d minutes, got %q", maxMinutes, s)
	}
	return time.Duration(m * float64(time.Minute)), nil
}

// DefaultTrace is the built-in burst, modelled on the seed scenario: CPU ETL
// jobs, single-GPU retrains that finish in minutes, and multi-node 8-GPU
// training gangs that run for an hour, arriving in two bursts.
const DefaultTrace = `# minute  name          kind  members  gpus  cpu  run-minutes  options
0          etl-1         cpu   2        0     6    15
0          retrain-1     gpu   1        1     2    5
1          llm-a         gang  4        8     16   35           require=placement-group
1          retrain-2     gpu   1        1     2    5
2          retrain-3     gpu   1        1     2    6
3          etl-2         cpu   1        0     6    10
4          ddp-b         gang  4        8     16   30           min=2 require=placement-group
10         retrain-4     gpu   1        1     2    5
18         etl-3         cpu   2        0     6    10
20         llm-c         gang  2        8     16   25           require=placement-group
21         retrain-5     gpu   1        1     2    4
22         retrain-6     gpu   1        1     2    4
24         huge-moe      gang  12       8     16   30           require=placement-group
`

// Default returns the parsed built-in trace.
func Default() Trace {
	t, err := ParseTrace(strings.NewReader(DefaultTrace))
	if err != nil {
		panic("default trace: " + err.Error())
	}
	return t
}

// Workers is how many of the job's members are workers (not its launcher),
// at most and at least.
func (j Job) Workers() (least, most int) {
	if j.LauncherMilliCPU > 0 {
		return j.Min - 1, j.Max - 1
	}
	return j.Min, j.Max
}

// Work is a gang's work in worker-minutes: its run-minutes at max workers.
// An elastic gang running fewer workers progresses in proportion, so it
// finishes sooner the more of its extras run (why elastic jobs take spot
// nodes); a rigid gang always runs max, so it takes its run-minutes.
func (j Job) Work() time.Duration {
	_, most := j.Workers()
	return j.Run * time.Duration(most)
}

// Span is when the last job could end if it started on arrival (an elastic
// gang running only its min workers).
func (t Trace) Span() time.Duration {
	var end time.Duration
	for _, j := range t.Jobs {
		run := j.Run
		if least, _ := j.Workers(); j.Kind == KindGang && least > 0 {
			run = j.Work() / time.Duration(least)
		}
		end = max(end, j.At+run)
	}
	return end
}

// GangNodeMinutes is the node time the trace's gangs ask of a pool whose
// nodes have gpusPerNode GPUs, in node-minutes: each GPU member takes the
// nodes its GPUs fill for its job's run. Jobs that ask for no GPUs, or for
// more GPUs per member than such a node has, ask nothing of it.
func (t Trace) GangNodeMinutes(gpusPerNode int64) float64 {
	if gpusPerNode <= 0 {
		return 0
	}
	var total float64
	for _, j := range t.Jobs {
		if j.Kind != KindGang || j.GPUs <= 0 || j.GPUs > gpusPerNode {
			continue
		}
		workers := j.Members
		if j.LauncherMilliCPU > 0 {
			workers--
		}
		perNode := gpusPerNode / j.GPUs // members sharing one node
		nodes := (int64(workers) + perNode - 1) / perNode
		total += float64(nodes) * j.Run.Minutes()
	}
	return total
}

// Repeat is the trace again every period until total: a day of its load is
// Repeat(time.Hour, 24*time.Hour). Copy i's jobs arrive i periods later,
// named with the suffix -c<i+1> (the first copy keeps its names).
func (t Trace) Repeat(period, total time.Duration) (Trace, error) {
	if period <= 0 {
		return t, fmt.Errorf("repeating a trace: period %s, want more than 0", period)
	}
	var out Trace
	for i := 0; time.Duration(i)*period < total; i++ {
		for _, j := range t.Jobs {
			if i > 0 {
				j.Name = fmt.Sprintf("%s-c%d", j.Name, i+1)
			}
			j.At += time.Duration(i) * period
			out.Jobs = append(out.Jobs, j)
		}
	}
	sort.SliceStable(out.Jobs, func(a, b int) bool { return out.Jobs[a].At < out.Jobs[b].At })
	return out, nil
}
