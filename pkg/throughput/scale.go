// The Scale scenario against muster-scheduler as its own process: its resident memory and CPU time.

package throughput

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/muster-project/muster/pkg/controlplane"
	"github.com/muster-project/muster/test/bench"
)

// RunScale schedules the Scale scenario (gangs of 50, a launcher and 49
// one-GPU workers, at two priorities) with muster-scheduler running as its
// own process, built from this tree, so that its resident memory and CPU
// time are its own and not the in-process control plane's. It prints the
// scheduler's RSS with the nodes only and at its peak, and its CPU time per
// scheduled pod.
func RunScale(nodes, pods int, binary string) error {
	tb := controlplane.NewProcessTB("muster-bench")
	defer tb.Close()
	ctx := context.Background()
	if _, err := os.Stat(binary); err != nil {
		return fmt.Errorf("--scheduler-binary: %w (make build puts it in bin/)", err)
	}
	env, err := startEnv(tb, controlplane.Options{})
	if err != nil {
		return err
	}
	start := time.Now()
	if err := bench.EnsureNodes(ctx, env.Client, nodes); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "control plane and %d nodes ready in %v\n", nodes, time.Since(start).Round(time.Millisecond))

	var (
		proc                *os.Process
		mu                  sync.Mutex
		idleRSS, peakRSS    int64
		cpuBefore, cpuAfter time.Duration
		sampleErr           error
	)
	sample := func() {
		rss, err := residentBytes(proc.Pid)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			sampleErr = errors.Join(sampleErr, err)
			return
		}
		peakRSS = max(peakRSS, rss)
	}
	cfg := bench.Config{Nodes: nodes, Pods: pods, Timeout: 15 * time.Minute,
		StartMuster: func(ctx context.Context, config string) (func(), error) {
			path := filepath.Join(tb.TempDir(), "muster-scheduler.yaml")
			if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
				return nil, err
			}
			log, err := os.Create(filepath.Join(tb.TempDir(), "muster-scheduler.log"))
			if err != nil {
				return nil, err
			}
			cmd := exec.Command(binary, "--config", path, "--secure-port", "0", "--v", "0")
			cmd.Stdout, cmd.Stderr = log, log
			if err := cmd.Start(); err != nil {
				return nil, fmt.Errorf("starting %s: %w", binary, err)
			}
			proc = cmd.Process
			done := make(chan struct{})
			go func() {
				t := time.NewTicker(200 * time.Millisecond)
				defer t.Stop()
				for {
					select {
					case <-done:
						return
					case <-t.C:
						sample()
					}
				}
			}()
			return func() {
				close(done)
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				_ = log.Close()
			}, nil
		},
		Creating: func() {
			// The scheduler has its informers synced and has bound the
			// warm-up pod: what it holds now is the nodes' cost.
			rss, err := residentBytes(proc.Pid)
			cpu, cerr := cpuTime(proc.Pid)
			mu.Lock()
			defer mu.Unlock()
			idleRSS, cpuBefore, sampleErr = rss, cpu, errors.Join(sampleErr, err, cerr)
		},
		Bound: func() {
			sample()
			cpu, err := cpuTime(proc.Pid)
			mu.Lock()
			defer mu.Unlock()
			cpuAfter, sampleErr = cpu, errors.Join(sampleErr, err)
		},
	}
	res, err := bench.Run(ctx, env, cfg, bench.Scale)
	if err != nil {
		return err
	}
	// The sampler has stopped with the scheduler.
	if sampleErr != nil {
		return fmt.Errorf("reading muster-scheduler's /proc: %w", sampleErr)
	}
	cpu := cpuAfter - cpuBefore
	fmt.Printf("scale: %d nodes, %d pods in %d gangs (launcher + %d one-GPU workers, two priorities), muster-scheduler as its own process\n",
		nodes, res.Pods, res.Gangs, bench.Scale.GangSize-1)
	fmt.Printf("scheduled in %v: %.1f pods/s, gang latency p50 %.0f ms, p99 %.0f ms\n",
		res.Elapsed.Round(time.Millisecond), res.PodsPerSec, bench.Ms(res.P50), bench.Ms(res.P99))
	fmt.Printf("scheduler RSS: %.0f MiB with the nodes only, %.0f MiB at peak (%.1f KiB per pod above idle)\n",
		mib(idleRSS), mib(peakRSS), float64(peakRSS-idleRSS)/1024/float64(res.Pods))
	fmt.Printf("scheduler CPU: %v for %d pods, %.2f ms per scheduled pod\n", cpu.Round(time.Millisecond), res.Bound, bench.Ms(cpu)/float64(res.Bound))
	return nil
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// residentBytes is the process's resident set (VmRSS).
func residentBytes(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			fields := strings.Fields(rest) // "123456 kB"
			kb, err := strconv.ParseInt(fields[0], 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("/proc/%d/status has no VmRSS", pid)
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
