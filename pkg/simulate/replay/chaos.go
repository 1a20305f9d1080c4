// Chaos runs: per seed, a simulated run with faults injected and its invariants checked.

package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/utils/ptr"

	"github.com/muster-project/muster/pkg/controlplane"
	"github.com/muster-project/muster/pkg/simulate"
	"github.com/muster-project/muster/pkg/topology"
)

// Trace-time bounds of a chaos run's invariants and faults.
const (
	chaosGangTimeout  = 10 * time.Minute // scheduleTimeoutSeconds, in trace time
	chaosPartialBound = chaosGangTimeout + 5*time.Minute
	chaosLeakBound    = 25 * time.Minute // > provisioning timeout 15m + restart; > scale-down delays
	chaosRestartAfter = 2 * time.Minute  // a killed component comes back
	chaosBindWindow   = 4 * time.Minute  // binds to one node refused this long
	chaosQuotaWindow  = 10 * time.Minute // the GPU quota stays cut this long
	// ARM storms last a span of trace time, as ARM's throttling windows do,
	// not a number of requests: a count outlives a component that is down.
	chaosStormWindow = 5 * time.Minute
	chaosOvertime    = 120 * time.Minute
	// chaosWorkFactor scales the time a trace's gangs need on the GPU pool
	// at its max, packed perfectly, into the time a run gives them: faults
	// undo runs (a lost node or a preemption restarts a gang), new nodes
	// boot for minutes, and the quota cut stops scale-up for a while.
	chaosWorkFactor = 2
	chaosHeavyPool  = "gpu-heavy"
	chaosLease      = "muster-chaos"
)

// ChaosOptions is one chaos command's settings (muster chaos's flags).
type ChaosOptions struct {
	Sim          Options // the replay's: BinDir, Seed, Minute, KeepLogs
	Seeds        int     // generated traces, seeds Sim.Seed, Sim.Seed+1, ...
	SchedulerBin string  // the muster-scheduler binary
	Short        bool    // only the first burst of each trace
}

// DefaultChaosOptions is muster chaos's defaults.
func DefaultChaosOptions() ChaosOptions {
	return ChaosOptions{Sim: Options{BinDir: filepath.Join("autoscaler", "bin"), Minute: time.Second, Seed: 1, faults: true},
		Seeds: 20, SchedulerBin: filepath.Join("bin", "muster-scheduler")}
}

// runChaos runs every seed and writes the table; its error names the seeds
// that broke an invariant.
func Chaos(ctx context.Context, out, progress io.Writer, o ChaosOptions) ([]simulate.ChaosRun, error) {
	if o.Seeds < 1 {
		return nil, fmt.Errorf("--seeds: must be at least 1, got %d", o.Seeds)
	}
	if o.Sim.Minute <= 0 {
		return nil, fmt.Errorf("--minute: must be positive, got %s", o.Sim.Minute)
	}
	for _, bin := range []string{filepath.Join(o.Sim.BinDir, "armlocal"), filepath.Join(o.Sim.BinDir, "muster-autoscaler"), o.SchedulerBin} {
		if _, err := os.Stat(bin); err != nil {
			return nil, fmt.Errorf("%s not found (make build and make -C autoscaler build make it): %w", bin, err)
		}
	}
	o.Sim.faults = true
	var runs []simulate.ChaosRun
	for i := range o.Seeds {
		seed := o.Sim.Seed + int64(i)
		trace := simulate.Random(seed)
		if o.Short {
			trace = trace.FirstBurst()
		}
		r, err := chaosOnce(ctx, progress, seed, trace, o)
		if err != nil {
			return runs, fmt.Errorf("seed %d: %w", seed, err)
		}
		runs = append(runs, r)
	}
	failed, err := simulate.WriteChaosTable(out, runs)
	if err != nil {
		return runs, err
	}
	if len(failed) > 0 {
		return runs, fmt.Errorf("invariants broken on seeds %v; replay one with: muster chaos --seeds 1 --seed %d --keep-logs", failed, failed[0])
	}
	return runs, nil
}

// chaos is one seed's run: the components it kills and restarts, the
// faults it injects and what it sees.
type chaos struct {
	o          ChaosOptions
	env        *controlplane.Env
	kubeconfig string
	dir        string
	procCtx    context.Context
	cloud      *process
	clk        clock
	rng        *rand.Rand
	pods       corelisters.PodLister
	nodes      corelisters.NodeLister
	progress   io.Writer

	mu         sync.Mutex
	schedulers [2]*process
	schedLogs  [2]string
	autoscaler *process
	faults     map[string]int
	// striking counts faults still under way (waiting to strike, to undo,
	// to restart a component); refusals names bind-refusing policies.
	striking int
	refusals int
}

func chaosOnce(ctx context.Context, progress io.Writer, seed int64, trace simulate.Trace, o ChaosOptions) (run simulate.ChaosRun, err error) {
	began := time.Now()
	run = simulate.ChaosRun{Seed: seed, Jobs: len(trace.Jobs)}
	dir, err := os.MkdirTemp("", fmt.Sprintf("muster-chaos-%d-", seed))
	if err != nil {
		return run, err
	}
	if o.Sim.KeepLogs {
		defer fmt.Fprintf(progress, "seed %d: component logs in %s\n", seed, dir)
	} else {
		defer os.RemoveAll(dir)
	}
	tb := controlplane.NewProcessTB(fmt.Sprintf("muster-chaos-%d", seed))
	defer tb.End(&err)
	env, kubeconfig, warm, err := startCluster(ctx, tb, trace, controlplane.MusterProfile, false)
	if err != nil {
		return run, err
	}
	procCtx, stopProcs := context.WithCancel(ctx)
	defer stopProcs()
	// Wall time: the chaos run's fault windows are sent in wall time.
	cloud, err := startArmlocal(procCtx, o.Sim, kubeconfig, dir, "")
	if err != nil {
		return run, err
	}
	defer cloud.stop()
	c := &chaos{o: o, env: env, kubeconfig: kubeconfig, dir: dir, procCtx: procCtx, cloud: cloud,
		rng: rand.New(rand.NewSource(seed)), progress: progress, faults: map[string]int{}}
	defer c.stopComponents()
	for i := range c.schedulers {
		if err := c.startScheduler(i); err != nil {
			return run, err
		}
	}
	ca, err := startAutoscaler(procCtx, o.Sim, kubeconfig, cloud, runMode{muster: true}, dir, "")
	if err != nil {
		return run, err
	}
	c.autoscaler = ca

	select {
	case <-ctx.Done():
		return run, errors.New("interrupted")
	case <-time.After(time.Until(warm)):
	}
	rec := simulate.NewRecord()
	c.clk = clock{start: time.Now(), minute: o.Sim.Minute}
	w := &watcher{rec: rec, clk: c.clk, wallMinute: o.Sim.Minute, env: env, jobs: map[string]simulate.Job{}, started: map[string]bool{},
		done: map[string]bool{}, finished: map[string]bool{}, current: map[string][]string{}, gen: map[string]int{}}
	gangs := map[string]bool{}
	mins := map[string]int{}
	for _, j := range trace.Jobs {
		w.jobs[j.Name] = j
		if j.Kind == simulate.KindGang {
			gangs[j.Name], mins[j.Name] = true, j.Min
		}
	}
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	if err := w.watch(watchCtx); err != nil {
		return run, err
	}
	factory := informers.NewSharedInformerFactory(env.Client, 0)
	c.pods, c.nodes = factory.Core().V1().Pods().Lister(), factory.Core().V1().Nodes().Lister()
	if err := controlplane.StartInformers(watchCtx, factory); err != nil {
		return run, err
	}

	inv := &simulate.Invariants{PartialBound: chaosPartialBound, LeakBound: chaosLeakBound, Max: map[string]int{}}
	poolMin := map[string]int{}
	for _, p := range cloud.pools {
		inv.Max[p.Name], poolMin[p.Name] = p.Max, p.Min
	}
	var lastArrival time.Duration
	for _, j := range trace.Jobs {
		lastArrival = max(lastArrival, j.At)
	}
	plan := simulate.PlanFaults(seed, 2*time.Minute, lastArrival+25*time.Minute)
	lost := map[string]bool{}
	check := func(final bool) error {
		s, err := c.snapshot(ctx, mins)
		if err != nil {
			return err
		}
		if final {
			inv.Finish(s, poolMin)
			return nil
		}
		for _, node := range inv.Observe(s) {
			lost[node] = true
		}
		c.collectLostPods(ctx, lost)
		return nil
	}

	next, nextFault := 0, 0
	var tailFrom time.Duration
	hardStop := chaosHardStop(trace, cloud.pools)
	lastCheck, lastReport := time.Time{}, time.Time{}
	for {
		if ctx.Err() != nil {
			return run, errors.New("interrupted")
		}
		now := c.clk.now()
		for next < len(trace.Jobs) && trace.Jobs[next].At <= now {
			j := trace.Jobs[next]
			w.created(j)
			if err := createJob(ctx, env, j, runMode{name: "muster", muster: true}); err != nil {
				return run, err
			}
			next++
		}
		for nextFault < len(plan) && plan[nextFault].At <= now {
			c.inject(ctx, plan[nextFault].Kind)
			nextFault++
		}
		if time.Since(lastCheck) >= 250*time.Millisecond {
			if err := check(false); err != nil && ctx.Err() == nil {
				fmt.Fprintf(progress, "[chaos %d minute %3.0f] check: %v\n", seed, now.Minutes(), err)
			}
			lastCheck = time.Now()
		}
		if time.Since(lastReport) >= 5*time.Second {
			fmt.Fprintf(progress, "[chaos %d minute %3.0f] %s\n", seed, now.Minutes(), w.status())
			lastReport = time.Now()
		}
		settled := next == len(trace.Jobs) && nextFault == len(plan) && w.allDone(len(trace.Jobs)) && c.undone() == 0
		if tailFrom == 0 && !settled && now >= hardStop {
			c.describeStall(seed)
		}
		if tailFrom == 0 && (settled || now >= hardStop) {
			// Every job has ended (or the run is out of time): give the
			// autoscaler the leak bound to scale down, then look last.
			tailFrom = max(now, 1)
			c.clearFaults(ctx)
		}
		if tailFrom > 0 && now-tailFrom > chaosLeakBound+time.Minute {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := check(true); err != nil {
		return run, fmt.Errorf("last check: %w", err)
	}
	finished := map[string]bool{}
	w.mu.Lock()
	rec.End = c.clk.now()
	run.Done = len(w.done)
	for _, j := range trace.Jobs {
		if w.finished[j.Name] || (j.Kind != simulate.KindGang && w.podsOfJobDone(j)) {
			finished[j.Name] = true
		} else if jr := rec.Jobs[j.Name]; jr != nil {
			fmt.Fprintf(progress, "[chaos %d] job %s did not finish: started %v, pods %v, bound %d, stopped %d\n",
				seed, j.Name, w.started[j.Name], w.current[j.Name], len(jr.Bound), len(jr.Done))
		}
	}
	w.mu.Unlock()
	stopWatch()
	figures := rec.Figures(map[string]bool{systemNode: true})
	run.Figures = inv.Figures(figures, gangs, finished)
	c.mu.Lock()
	run.Faults = c.faults
	c.mu.Unlock()
	run.Wall = time.Since(began)
	fmt.Fprintf(progress, "[chaos %d minute %3.0f] done: %s\n", seed, c.clk.now().Minutes(), w.status())
	return run, nil
}

// at turns a wall-clock time into trace time since the run's start.
func (c clock) at(t time.Time) time.Duration {
	return time.Duration(float64(t.Sub(c.start)) / float64(c.minute) * float64(time.Minute))
}

// describeStall prints, when a run is out of time, what each node runs and
// what waits, so that the seed's replay says where to look.
func (c *chaos) describeStall(seed int64) {
	pods, err := c.pods.Pods(simNamespace).List(labels.Everything())
	if err != nil {
		return
	}
	onNode := map[string][]string{}
	var waiting []string
	for _, p := range pods {
		switch {
		case p.DeletionTimestamp != nil:
			onNode["(terminating)"] = append(onNode["(terminating)"], p.Name)
		case p.Spec.NodeName == "":
			waiting = append(waiting, p.Name)
		default:
			onNode[p.Spec.NodeName] = append(onNode[p.Spec.NodeName], p.Name)
		}
	}
	fmt.Fprintf(c.progress, "[chaos %d minute %3.0f] out of time; waiting: %v\n", seed, c.clk.now().Minutes(), waiting)
	for node, names := range onNode {
		fmt.Fprintf(c.progress, "[chaos %d]   %s: %v\n", seed, node, names)
	}
}

// cloudState is armlocal's GET /state.
type cloudState struct {
	Pools []struct {
		Kind      string `json:"kind"`
		Name      string `json:"name"`
		Capacity  int    `json:"capacity"`
		Instances []struct {
			Name    string    `json:"name"`
			State   string    `json:"state"`
			Created time.Time `json:"created"`
		} `json:"instances"`
	} `json:"pools"`
	Deletions []struct {
		Pool     string    `json:"pool"`
		Instance string    `json:"instance"`
		At       time.Time `json:"at"`
		Cause    string    `json:"cause"`
	} `json:"deletions"`
}

func (c *chaos) cloudState(ctx context.Context) (cloudState, error) {
	var st cloudState
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.cloud.faultsURL+"/state", nil)
	if err != nil {
		return st, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return st, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return st, fmt.Errorf("armlocal state: %s: %s", resp.Status, strings.TrimSpace(string(b)))
	}
	return st, json.NewDecoder(resp.Body).Decode(&st)
}

// snapshot reads the cloud, then the pods: a VM deleted after the cloud was
// read cannot have its pods missed.
func (c *chaos) snapshot(ctx context.Context, mins map[string]int) (simulate.Snapshot, error) {
	st, err := c.cloudState(ctx)
	if err != nil {
		return simulate.Snapshot{}, err
	}
	s := simulate.Snapshot{At: c.clk.now(), Running: map[string]int{}, Min: mins, PodsOnNode: map[string]int{}}
	pods, err := c.pods.Pods(simNamespace).List(labels.Everything())
	if err != nil {
		return s, err
	}
	for _, p := range pods {
		if p.Spec.NodeName == "" || p.DeletionTimestamp != nil {
			continue
		}
		s.PodsOnNode[p.Spec.NodeName]++
		if job := p.Labels[jobLabel]; mins[job] > 0 {
			s.Running[job]++
		}
	}
	for _, p := range st.Pools {
		if p.Kind != "" && p.Kind != "vmss" {
			continue
		}
		ps := simulate.PoolSnapshot{Name: p.Name, Capacity: p.Capacity}
		for _, in := range p.Instances {
			ps.Instances = append(ps.Instances, simulate.InstanceSnapshot{Name: in.Name, State: in.State, Created: c.clk.at(in.Created)})
		}
		s.Pools = append(s.Pools, ps)
	}
	for _, d := range st.Deletions {
		s.Deletions = append(s.Deletions, simulate.Deletion{Pool: d.Pool, Instance: d.Instance, Cause: d.Cause, At: c.clk.at(d.At)})
	}
	return s, nil
}

// collectLostPods plays the pod garbage collector for nodes whose VMs are
// gone: their pods are deleted (with a grace period, so the watcher sees
// them go and replaces them as a training operator would).
func (c *chaos) collectLostPods(ctx context.Context, lost map[string]bool) {
	pods, err := c.pods.Pods(simNamespace).List(labels.Everything())
	if err != nil {
		return
	}
	grace := int64(30)
	for _, p := range pods {
		if lost[p.Spec.NodeName] && p.DeletionTimestamp == nil {
			_ = c.env.Client.CoreV1().Pods(simNamespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &grace})
		}
	}
}

// startScheduler starts scheduler replica i as a muster-scheduler process
// with leader election on one Lease.
func (c *chaos) startScheduler(i int) error {
	timeout := int64(max(1, c.wall(chaosGangTimeout).Seconds()))
	bound := int64(max(1, c.wall(starvationBound).Seconds()))
	config := controlplane.LeaderElected(controlplane.MusterConfig(c.kubeconfig, controlplane.GangArgs{BackoffSeconds: 2, StatusSyncMillis: 250,
		ScheduleTimeoutSeconds: timeout, StarvationBoundSeconds: &bound, Preemption: tracePreemption(c.o.Sim.Minute)}), chaosLease)
	path := filepath.Join(c.dir, "scheduler-config.yaml")
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		return err
	}
	log := freshLog(c.dir, fmt.Sprintf("muster-scheduler-%d", i))
	p, err := startProcess(c.procCtx, c.o.SchedulerBin, []string{"--config=" + path, "--secure-port=0", "--v=2"}, log)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.schedulers[i], c.schedLogs[i] = p, log
	c.mu.Unlock()
	return nil
}

func (c *chaos) wall(trace time.Duration) time.Duration { return wallOf(c.o.Sim, trace) }

// leader is the scheduler replica holding the Lease, by its log (-1: none
// yet). A replica acquires the lease once in its life.
func (c *chaos) leader() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, log := range c.schedLogs {
		if b, err := os.ReadFile(log); err == nil && bytes.Contains(b, []byte("Successfully acquired lease")) {
			return i
		}
	}
	return -1
}

func (c *chaos) stopComponents() {
	c.mu.Lock()
	procs := []*process{c.autoscaler}
	procs = append(procs, c.schedulers[:]...)
	c.mu.Unlock()
	for _, p := range procs {
		p.stop()
	}
}

func (p *process) kill() {
	if p == nil || p.cmd.Process == nil {
		return
	}
	_ = p.cmd.Process.Kill()
	<-p.done
}

func (c *chaos) undone() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.striking
}

// inject strikes with one fault; those that wait (for a scale-up, to
// restart, to undo) do so in the background.
func (c *chaos) inject(ctx context.Context, kind string) {
	c.mu.Lock()
	c.striking++
	r := c.rng.Int63()
	c.mu.Unlock()
	rng := rand.New(rand.NewSource(r))
	go func() {
		defer func() {
			c.mu.Lock()
			c.striking--
			c.mu.Unlock()
		}()
		applied, err := c.strike(ctx, kind, rng)
		if err != nil && ctx.Err() == nil {
			fmt.Fprintf(c.progress, "[chaos minute %3.0f] %s: %v\n", c.clk.now().Minutes(), kind, err)
		}
		if applied {
			c.mu.Lock()
			c.faults[kind]++
			c.mu.Unlock()
		}
	}()
}

func (c *chaos) strike(ctx context.Context, kind string, rng *rand.Rand) (bool, error) {
	sleep := func(trace time.Duration) bool {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(c.wall(trace)):
			return true
		}
	}
	switch kind {
	case simulate.FaultSchedulerKill:
		i := c.leader()
		if i < 0 {
			i = 0
		}
		c.mu.Lock()
		p := c.schedulers[i]
		c.mu.Unlock()
		p.kill()
		if !sleep(chaosRestartAfter) {
			return true, nil
		}
		return true, c.startScheduler(i)
	case simulate.FaultAutoscalerKill:
		// Mid scale-up: once a VM is being created, or after five minutes.
		for range int(5 * time.Minute / (15 * time.Second)) {
			if st, err := c.cloudState(ctx); err == nil && creating(st) {
				break
			}
			if !sleep(15 * time.Second) {
				return false, nil
			}
		}
		c.mu.Lock()
		p := c.autoscaler
		c.mu.Unlock()
		p.kill()
		if !sleep(chaosRestartAfter) {
			return true, nil
		}
		// A Deployment restarts a pod that exits: so does the run, once a
		// trace minute, a few times.
		ca, err := startAutoscaler(c.procCtx, c.o.Sim, c.kubeconfig, c.cloud, runMode{muster: true}, c.dir, "")
		for try := 1; err != nil && try < 10 && ctx.Err() == nil; try++ {
			fmt.Fprintf(c.progress, "[chaos minute %3.0f] restarting the autoscaler: %v\n", c.clk.now().Minutes(), err)
			sleep(time.Minute)
			ca, err = startAutoscaler(c.procCtx, c.o.Sim, c.kubeconfig, c.cloud, runMode{muster: true}, c.dir, "")
		}
		if err != nil {
			return true, err
		}
		c.mu.Lock()
		c.autoscaler = ca
		c.mu.Unlock()
		return true, nil
	case simulate.FaultNodeLoss:
		for range 5 {
			if pool, vm := c.victimVM(ctx, rng); vm != "" {
				return true, c.postFault(ctx, map[string]any{"kind": "delete-instance", "pool": pool, "instance": vm})
			}
			if !sleep(time.Minute) {
				return false, nil
			}
		}
		return false, nil
	case simulate.FaultBindFailures:
		for range 5 {
			if node := c.gpuNode(rng); node != "" {
				return true, c.refuseBinds(ctx, node)
			}
			if !sleep(time.Minute) {
				return false, nil
			}
		}
		return false, nil
	case simulate.FaultThrottle:
		return true, c.postFault(ctx, map[string]any{"kind": "throttle", "op": "*", "for": c.wall(chaosStormWindow).String(), "retryAfter": max(c.wall(time.Minute), time.Second).String()})
	case simulate.FaultServerError:
		return true, c.postFault(ctx, map[string]any{"kind": "server-error", "op": "*", "for": c.wall(chaosStormWindow / 2).String(), "status": []int{500, 503}[rng.Intn(2)]})
	case simulate.FaultSlowARM:
		return true, c.postFault(ctx, map[string]any{"kind": "delay", "op": "*", "count": 10, "delay": c.wall(time.Minute).String()})
	case simulate.FaultPartialProvisioning:
		return true, c.postFault(ctx, map[string]any{"kind": "partial-provisioning", "pool": chaosHeavyPool, "succeed": rng.Intn(2)})
	case simulate.FaultQuotaCut:
		if err := c.postFault(ctx, map[string]any{"kind": "quota", "pool": chaosHeavyPool, "vcpus": heavyQuotaVCPUs / 2}); err != nil {
			return false, err
		}
		sleep(chaosQuotaWindow)
		return true, c.postFault(context.WithoutCancel(ctx), map[string]any{"kind": "quota", "pool": chaosHeavyPool, "vcpus": heavyQuotaVCPUs})
	}
	return false, fmt.Errorf("unknown fault kind %q", kind)
}

func creating(st cloudState) bool {
	for _, p := range st.Pools {
		for _, in := range p.Instances {
			if in.State == "Creating" {
				return true
			}
		}
	}
	return false
}

// victimVM picks a provisioned GPU VM: two times in three one that runs a
// gang's members, else one that runs nothing (room a waiting gang may be
// counting on).
func (c *chaos) victimVM(ctx context.Context, rng *rand.Rand) (pool, vm string) {
	st, err := c.cloudState(ctx)
	if err != nil {
		return "", ""
	}
	busy := map[string]bool{}
	if pods, err := c.pods.Pods(simNamespace).List(labels.Everything()); err == nil {
		for _, p := range pods {
			if p.Spec.NodeName != "" && p.DeletionTimestamp == nil && p.Labels[jobLabel] != "" {
				busy[p.Spec.NodeName] = true
			}
		}
	}
	wantBusy := rng.Intn(3) < 2
	var first, second [][2]string
	for _, p := range st.Pools {
		if !strings.HasPrefix(p.Name, "gpu") {
			continue
		}
		for _, in := range p.Instances {
			if in.State != "Succeeded" {
				continue
			}
			if busy[in.Name] == wantBusy {
				first = append(first, [2]string{p.Name, in.Name})
			} else {
				second = append(second, [2]string{p.Name, in.Name})
			}
		}
	}
	for _, from := range [][][2]string{first, second} {
		if len(from) > 0 {
			v := from[rng.Intn(len(from))]
			return v[0], v[1]
		}
	}
	return "", ""
}

// gpuNode picks a registered GPU node.
func (c *chaos) gpuNode(rng *rand.Rand) string {
	nodes, err := c.nodes.List(labels.Everything())
	if err != nil {
		return ""
	}
	var names []string
	for _, n := range nodes {
		if _, ok := n.Status.Allocatable[controlplane.GPU]; ok && n.Labels[topology.LegacyAgentPoolLabel] != "system" {
			names = append(names, n.Name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return names[rng.Intn(len(names))]
}

// refuseBinds makes the API server refuse binds to node for a while (a
// ValidatingAdmissionPolicy on pods/binding: a webhook or API server
// hiccup in a real cluster), then lifts it.
func (c *chaos) refuseBinds(ctx context.Context, node string) error {
	c.mu.Lock()
	c.refusals++
	name := fmt.Sprintf("chaos-refuse-binds-%d", c.refusals)
	c.mu.Unlock()
	adm := c.env.Client.AdmissionregistrationV1()
	policy := &admissionv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionv1.Fail),
			MatchConstraints: &admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionv1.RuleWithOperations{Operations: []admissionv1.OperationType{admissionv1.Create},
					Rule: admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods/binding"}}},
			}}},
			Validations: []admissionv1.Validation{{Expression: fmt.Sprintf("object.target.name != %q", node), Message: "chaos: binds to " + node + " fail"}},
		},
	}
	if _, err := adm.ValidatingAdmissionPolicies().Create(ctx, policy, metav1.CreateOptions{}); err != nil {
		return err
	}
	binding := &admissionv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       admissionv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: name, ValidationActions: []admissionv1.ValidationAction{admissionv1.Deny}},
	}
	if _, err := adm.ValidatingAdmissionPolicyBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		return err
	}
	select {
	case <-ctx.Done():
	case <-time.After(c.wall(chaosBindWindow)):
	}
	lift := context.WithoutCancel(ctx)
	if err := adm.ValidatingAdmissionPolicyBindings().Delete(lift, name, metav1.DeleteOptions{}); err != nil {
		return err
	}
	return adm.ValidatingAdmissionPolicies().Delete(lift, name, metav1.DeleteOptions{})
}

// postFault asks armlocal to inject a fault.
func (c *chaos) postFault(ctx context.Context, fault map[string]any) error {
	return c.cloud.postFault(ctx, fault)
}

// postFault asks armlocal (started with faults on) to inject a fault.
func (p *process) postFault(ctx context.Context, fault map[string]any) error {
	body, err := json.Marshal(fault)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.faultsURL+"/faults", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("armlocal refused fault %s: %s: %s", body, resp.Status, strings.TrimSpace(string(b)))
	}
	return nil
}

// clearFaults removes what is left of the injected ARM faults (a partial
// provisioning no scale-up met, say) before the run's last stretch.
func (c *chaos) clearFaults(ctx context.Context) {
	if err := c.postFault(ctx, map[string]any{"kind": "clear"}); err != nil && ctx.Err() == nil {
		fmt.Fprintf(c.progress, "[chaos minute %3.0f] clearing faults: %v\n", c.clk.now().Minutes(), err)
	}
}

// chaosHardStop is the trace time a run ends at even if jobs are left: the
// trace's span plus the overtime, or, for a trace whose gangs ask more of
// the GPU pool than that allows, from the first arrival chaosWorkFactor
// times their node time on the pool at its max. A gang left unfinished at
// the stop counts as starved, so the stop must leave room for the work:
// seed 5 asks about 1060 node-minutes of an 8-node pool (132 minutes
// packed perfectly), and a span plus overtime of 182 minutes ended it with
// a gang preempted and restarted still running.
func chaosHardStop(trace simulate.Trace, pools []poolInfo) time.Duration {
	stop := trace.Span() + chaosOvertime
	var pool poolInfo
	for _, p := range pools {
		if p.GPUs > pool.GPUs {
			pool = p
		}
	}
	if pool.Max <= 0 || len(trace.Jobs) == 0 {
		return stop
	}
	first := trace.Jobs[0].At
	for _, j := range trace.Jobs {
		first = min(first, j.At)
	}
	work := trace.GangNodeMinutes(int64(pool.GPUs)) / float64(pool.Max) * chaosWorkFactor
	return max(stop, first+time.Duration(work*float64(time.Minute)))
}
