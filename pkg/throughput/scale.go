// The scale grid: the same gang load at several cluster sizes and numbers of
// waiting gangs, under muster-scheduler and under upstream's kube-scheduler
// with its gang scheduling, each as its own process: throughput, latency,
// CPU per pod and peak resident memory.

package throughput

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/muster-project/muster/pkg/childproc"
	"github.com/muster-project/muster/pkg/controlplane"
	"github.com/muster-project/muster/test/bench"
)

// Sides of the scale grid: Muster's profile in a muster-scheduler process,
// and upstream's default profile with GangScheduling in a kube-scheduler
// process (hack/kube-scheduler) with the Workload API's gates on.
const (
	SideMuster   = "muster"
	SideUpstream = "upstream"
)

// ScaleOptions size the scale grid.
type ScaleOptions struct {
	// Nodes are the cluster sizes (8 GPUs a node), run in ascending order
	// as the cluster grows; Gangs, the numbers of waiting gangs.
	Nodes, Gangs []int
	// Pods is every cell's pods, in Gangs gangs of Pods/Gangs members: a
	// launcher (one CPU, no GPU) and one-GPU workers, every other gang at
	// the high priority (bench.Scale's shape).
	Pods int
	// MusterBinary and UpstreamBinary are the muster-scheduler and
	// kube-scheduler binaries.
	MusterBinary, UpstreamBinary string
	// Timeout bounds each cell's wait for its binds (default 15m).
	Timeout time.Duration
	// LogDir, when set, keeps each scheduler process's log there.
	LogDir string
	// Sides are the sides to run, in the first cell's order (default
	// SideMuster, SideUpstream); with two, the next cell runs them the other
	// way round, and so on.
	Sides []string
}

// ScaleCell is one side's run of one cell of the grid.
type ScaleCell struct {
	Nodes, Gangs, GangSize int
	Side                   string
	Result                 bench.Result
	// PeakRSS is the scheduler process's peak resident set (VmHWM) when
	// every pod is bound; CPU, its user plus system time by then, start-up
	// and informer sync included.
	PeakRSS int64
	CPU     time.Duration
}

// CPUPerPod is the process's CPU time per bound pod.
func (c ScaleCell) CPUPerPod() time.Duration {
	if c.Result.Bound == 0 {
		return 0
	}
	return c.CPU / time.Duration(c.Result.Bound)
}

// ScaleScenario is the grid's load for gangs waiting gangs: pods in gangs of
// pods/gangs (a launcher and workers, two priorities), as upstream PodGroups
// with upstream.
func ScaleScenario(gangs, pods int, upstream bool) bench.Scenario {
	name := fmt.Sprintf("scale-g%d", gangs)
	if upstream {
		name = "upstream-" + name
	}
	return bench.Scenario{Name: name, GangSize: pods / gangs, Mixed: true, Priorities: true, Upstream: upstream}
}

// RunScale runs the grid: for each cluster size (ascending, the cluster
// grows between them) and each number of waiting gangs, the same pods under
// each side, each side's scheduler a process of its own started after every
// pod exists (bench.Config.PreCreate), so that its figures are its own and
// not the in-process control plane's, and its throughput is scheduling's
// alone. The sides alternate which goes first from one cell to the next.
// progress gets a line per run.
func RunScale(ctx context.Context, o ScaleOptions, progress io.Writer) ([]ScaleCell, error) {
	if o.Timeout <= 0 {
		o.Timeout = 15 * time.Minute
	}
	if len(o.Sides) == 0 {
		o.Sides = []string{SideMuster, SideUpstream}
	}
	for _, s := range o.Sides {
		if s != SideMuster && s != SideUpstream {
			return nil, fmt.Errorf("side %q: the sides are %s and %s", s, SideMuster, SideUpstream)
		}
	}
	for _, b := range []string{o.MusterBinary, o.UpstreamBinary} {
		if _, err := os.Stat(b); err != nil {
			return nil, fmt.Errorf("scheduler binary: %w (make build puts them in bin/)", err)
		}
	}
	for i, n := range o.Nodes {
		if n < 1 || (i > 0 && n <= o.Nodes[i-1]) {
			return nil, fmt.Errorf("cluster sizes %v: want positive and ascending", o.Nodes)
		}
	}
	for _, g := range o.Gangs {
		if g < 1 || o.Pods/g < 1 {
			return nil, fmt.Errorf("%d gangs of %d pods: want at least one pod a gang", g, o.Pods)
		}
		if gpus := o.Pods - g; gpus > o.Nodes[0]*bench.GPUsPerNode {
			return nil, fmt.Errorf("%d gangs of %d pods need %d GPUs, more than %d nodes have", g, o.Pods, gpus, o.Nodes[0])
		}
	}
	tb := controlplane.NewProcessTB("muster-bench")
	defer tb.Close()
	env, err := startEnv(tb, controlplane.Options{WorkloadAPI: true})
	if err != nil {
		return nil, err
	}
	logDir := o.LogDir
	if logDir == "" {
		logDir = tb.TempDir()
	}
	var cells []ScaleCell
	for _, nodes := range o.Nodes {
		start := time.Now()
		if err := bench.EnsureNodes(ctx, env.Client, nodes); err != nil {
			return cells, err
		}
		fmt.Fprintf(progress, "%d nodes ready in %v\n", nodes, time.Since(start).Round(time.Millisecond))
		for _, gangs := range o.Gangs {
			sides := append([]string(nil), o.Sides...)
			if len(sides) == 2 && len(cells)/2%2 == 1 {
				sides[0], sides[1] = sides[1], sides[0]
			}
			for _, side := range sides {
				cell, err := runCell(ctx, env, o, logDir, nodes, gangs, side)
				if err != nil {
					return cells, fmt.Errorf("%s at %d nodes, %d gangs: %w", side, nodes, gangs, err)
				}
				r := cell.Result
				fmt.Fprintf(progress, "%s %d nodes %d gangs: %d pods bound, warm-up bound %v after start, %.1f pods/s, gang p99 %v, CPU %v, peak RSS %.0f MiB\n",
					side, nodes, gangs, r.Bound, r.Startup.Round(time.Millisecond), r.SchedPodsPerSec, r.P99.Round(time.Millisecond), cell.CPU, mib(cell.PeakRSS))
				cells = append(cells, cell)
			}
		}
	}
	return cells, nil
}

// runCell runs one side of one cell: its scheduler process is started once
// the pods exist and read when every pod is bound.
func runCell(ctx context.Context, env *controlplane.Env, o ScaleOptions, logDir string, nodes, gangs int, side string) (ScaleCell, error) {
	sc := ScaleScenario(gangs, o.Pods, side == SideUpstream)
	cell := ScaleCell{Nodes: nodes, Gangs: gangs, GangSize: sc.GangSize, Side: side}
	var (
		mu      sync.Mutex
		pid     int
		readErr error
	)
	cfg := bench.Config{Nodes: nodes, Pods: o.Pods, Timeout: o.Timeout, PreCreate: true,
		StartScheduler: func(ctx context.Context, config string, sc bench.Scenario) (func(), error) {
			binary, args := o.MusterBinary, []string(nil)
			if sc.Upstream {
				binary, args = o.UpstreamBinary, []string{"--feature-gates=" + controlplane.WorkloadFeatureGates}
			}
			base := fmt.Sprintf("%s-%dnodes-%dgangs", side, nodes, gangs)
			path := filepath.Join(logDir, base+".yaml")
			if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
				return nil, err
			}
			log, err := os.Create(filepath.Join(logDir, base+".log"))
			if err != nil {
				return nil, err
			}
			cmd := exec.Command(binary, append([]string{"--config", path, "--secure-port", "0", "--v", "0"}, args...)...)
			cmd.Stdout, cmd.Stderr = log, log
			if err := childproc.Start(cmd); err != nil {
				_ = log.Close()
				return nil, fmt.Errorf("starting %s: %w", binary, err)
			}
			mu.Lock()
			pid = cmd.Process.Pid
			mu.Unlock()
			return func() {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				_ = log.Close()
			}, nil
		},
		Bound: func() {
			mu.Lock()
			defer mu.Unlock()
			var err, cerr error
			cell.PeakRSS, err = peakResidentBytes(pid)
			cell.CPU, cerr = cpuTime(pid)
			readErr = errors.Join(err, cerr)
		},
	}
	res, err := bench.Run(ctx, env, cfg, sc)
	cell.Result = res
	if err != nil {
		return cell, err
	}
	if readErr != nil {
		return cell, fmt.Errorf("reading the scheduler's /proc: %w", readErr)
	}
	return cell, nil
}

// WriteScaleTable prints the grid, a row per cell with both sides side by
// side, and the muster/upstream ratios of throughput and peak RSS.
func WriteScaleTable(w io.Writer, pods int, cells []ScaleCell) error {
	type key struct{ nodes, gangs int }
	by := map[key]map[string]ScaleCell{}
	var order []key
	for _, c := range cells {
		k := key{c.Nodes, c.Gangs}
		if by[k] == nil {
			by[k] = map[string]ScaleCell{}
			order = append(order, k)
		}
		by[k][c.Side] = c
	}
	fmt.Fprintf(w, "%d pending pods a cell in gangs of a launcher and workers (two priorities), created before the scheduler process starts;\n", pods)
	fmt.Fprintln(w, "start: process start to the bind of a warm-up pod at the top priority (informers synced); pods/s: binds after it per second until the last;")
	fmt.Fprintln(w, "from start: every pod over process start to last bind; gang p99: from the warm-up pod's bind to each gang's quorum bound;")
	fmt.Fprintln(w, "CPU and peak RSS (VmHWM): the scheduler process's, start-up and informer sync included")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "nodes\tgangs\tsize\tside\tbound\tstart s\tpods/s\tfrom start\tgang p99 s\tCPU ms/pod\tpeak RSS MiB\tpods/s ratio\tRSS ratio\t")
	for _, k := range order {
		m, u := by[k][SideMuster], by[k][SideUpstream]
		for _, c := range []ScaleCell{m, u} {
			if c.Side == "" {
				continue
			}
			ratios := "\t\t"
			if c.Side == SideMuster && u.Side != "" && u.Result.SchedPodsPerSec > 0 && u.PeakRSS > 0 {
				ratios = fmt.Sprintf("%.2f\t%.2f\t", m.Result.SchedPodsPerSec/u.Result.SchedPodsPerSec, float64(m.PeakRSS)/float64(u.PeakRSS))
			}
			fromStart := 0.0
			if d := c.Result.Startup + c.Result.Scheduling; d > 0 {
				fromStart = float64(c.Result.Bound) / d.Seconds()
			}
			fmt.Fprintf(tw, "%d\t%d\t%d\t%s\t%d/%d\t%.1f\t%.1f\t%.1f\t%.2f\t%.2f\t%.0f\t%s\n", c.Nodes, c.Gangs, c.GangSize, c.Side,
				c.Result.Bound, c.Result.Pods, c.Result.Startup.Seconds(), c.Result.SchedPodsPerSec, fromStart, c.Result.P99.Seconds(),
				bench.Ms(c.CPUPerPod()), mib(c.PeakRSS), ratios)
		}
	}
	return tw.Flush()
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// residentBytes is the process's resident set (VmRSS).
func residentBytes(pid int) (int64, error) { return statusBytes(pid, "VmRSS:") }

// peakResidentBytes is the process's peak resident set so far (VmHWM).
func peakResidentBytes(pid int) (int64, error) { return statusBytes(pid, "VmHWM:") }

// statusBytes reads a "kB" field of /proc/<pid>/status.
func statusBytes(pid int, field string) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field); ok {
			fields := strings.Fields(rest) // "123456 kB"
			kb, err := strconv.ParseInt(fields[0], 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("/proc/%d/status has no %s", pid, strings.TrimSuffix(field, ":"))
}

// cpuTime is the process's user plus system CPU time so far.
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command name (which may hold spaces) in parentheses.
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: too few fields", pid)
	}
	// utime and stime are fields 14 and 15 of stat, in clock ticks of
	// USER_HZ, which Linux fixes at 100 for /proc.
	const userHZ = 100
	var ticks int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, err
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / userHZ, nil
}
