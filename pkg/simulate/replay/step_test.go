// Tests of replays on the stepped clock: a step waits for members held between Reserve and Bind, the next step's time, a mixed trace's replays giving the same figures.

package replay

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"

	"github.com/muster-project/muster/pkg/controlplane"
	"github.com/muster-project/muster/pkg/simulate"
	"k8s.io/client-go/tools/cache"
)

// holdPermit holds pods labelled hold=true at Permit until the test lets
// them go: members between Reserve and Bind for as long as it likes.
type holdPermit struct {
	h    fwk.Handle
	mu   sync.Mutex
	held map[string]bool
}

func (p *holdPermit) Name() string { return "HoldPermit" }

func (p *holdPermit) Permit(_ context.Context, _ fwk.CycleState, pod *v1.Pod, _ string) (*fwk.Status, time.Duration) {
	if pod.Labels["hold"] != "true" {
		return nil, 0
	}
	p.mu.Lock()
	p.held[pod.Name] = true
	p.mu.Unlock()
	return fwk.NewStatus(fwk.Wait, "held by the test"), 2 * time.Minute
}

// release lets every held pod go on to Bind.
func (p *holdPermit) release() {
	p.h.IterateOverWaitingPods(func(wp fwk.WaitingPod) { wp.Allow(p.Name()) })
}

func (p *holdPermit) heldCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.held)
}

// TestStepWaitsForMembersBetweenReserveAndBind is the stepped clock's
// quiescence rule on the real API server and scheduler: while a gang's
// members are reserved and held at Permit, a step's wait for quiet does not
// end; it ends once they are bound.
func TestStepWaitsForMembersBetweenReserveAndBind(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an API server and a scheduler")
	}
	ctx := context.Background()
	env, err := controlplane.Start(t)
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig, err := env.Kubeconfig()
	if err != nil {
		t.Fatal(err)
	}
	if err := controlplane.CreateNamespace(ctx, env.Client, simNamespace); err != nil {
		t.Fatal(err)
	}
	if err := controlplane.CreateNode(ctx, env.Client, controlplane.GPUNode("gpu-0", 8)); err != nil {
		t.Fatal(err)
	}
	clk := simulate.NewStepClock(traceEpoch())
	config := controlplane.MusterConfig(kubeconfig, controlplane.GangArgs{StatusSyncMillis: 10, HintSyncMillis: 10})
	config = strings.Replace(config, "permit:\n      enabled: [{name: MusterGang}]", "permit:\n      enabled: [{name: MusterGang}, {name: HoldPermit}]", 1)
	hold := &holdPermit{held: map[string]bool{}}
	sched, err := env.StartSchedulerOn(ctx, config, clk, app.WithPlugin("HoldPermit", func(_ context.Context, _ runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		hold.h = h
		return hold, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer sched.Stop()
	s := &stepper{env: env, sched: sched, clk: clk, start: clk.Now(), http: http.DefaultClient, window: quietWindow}
	w := &watcher{}
	watchCtx, stopWatching := context.WithCancel(ctx)
	defer stopWatching()
	if err := s.watchChanges(watchCtx); err != nil {
		t.Fatal(err)
	}

	// Quiet to begin with.
	if err := s.settle(ctx, w); err != nil {
		t.Fatal(err)
	}
	members := controlplane.LabelMembers(simNamespace, "held", 3, 2, 3, 3)
	for i := range members {
		members[i].Labels["hold"] = "true"
	}
	if err := controlplane.CreatePods(ctx, env.Client, members...); err != nil {
		t.Fatal(err)
	}
	settled := make(chan error, 1)
	go func() { settled <- s.settle(ctx, w) }()
	deadline := time.Now().Add(time.Minute)
	for hold.heldCount() < len(members) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d members reached Permit within a minute", hold.heldCount(), len(members))
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Held well past the quiet window: the step must still be waiting.
	select {
	case err := <-settled:
		t.Fatalf("the wait for quiet ended (%v) while %d members were held between Reserve and Bind", err, hold.heldCount())
	case <-time.After(20 * quietWindow):
	}
	if quiet, held := sched.Quiet(); quiet {
		t.Fatalf("Quiet with members held at Permit (%s)", held)
	}
	hold.release()
	select {
	case err := <-settled:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the wait for quiet did not end within a minute of the members' release")
	}
	pods, err := env.Client.CoreV1().Pods(simNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if p.Spec.NodeName == "" {
			t.Errorf("the step went on with member %s not bound", p.Name)
		}
	}
}

func TestNextStep(t *testing.T) {
	const step, end = 30 * time.Second, 100 * time.Minute
	for _, c := range []struct {
		name  string
		now   time.Duration
		moved bool
		due   []time.Duration
		want  time.Duration
	}{
		{"moving: a step on", 10 * time.Minute, true, nil, 10*time.Minute + step},
		{"moving: something due sooner", 10 * time.Minute, true, []time.Duration{10*time.Minute + 5*time.Second}, 10*time.Minute + 5*time.Second},
		{"quiet: jump to what is due", 10 * time.Minute, false, []time.Duration{13 * time.Minute, 12 * time.Minute}, 12 * time.Minute},
		{"quiet, nothing due: at most idleJump", 10 * time.Minute, false, []time.Duration{40 * time.Minute}, 10*time.Minute + idleJump},
		{"due now or past is not a step", 10 * time.Minute, false, []time.Duration{10 * time.Minute, time.Minute}, 10*time.Minute + idleJump},
		{"never past the end", 99 * time.Minute, false, nil, end},
	} {
		if got := nextStep(c.now, step, end, c.moved, c.due...); got != c.want {
			t.Errorf("%s: nextStep = %s, want %s", c.name, got, c.want)
		}
	}
}

// mixedTrace mixes shapes, priorities and churn: a CPU job, an MPIJob-style
// gang (a CPU launcher beside its GPU workers), a rigid gang on one
// placement group, an elastic gang of higher priority, single-GPU jobs, and
// a gang that can never fit.
const mixedTrace = `# minute name kind members gpus cpu run-minutes options
0 etl     cpu  1 0 2  3
0 pair    gang 2 8 16 4 require=placement-group
1 mpi     gang 2 1 4  3 launcher=2
1 elastic gang 3 8 16 4 min=1 max=3 priority=100
2 one     gpu  2 1 4  2
3 huge    gang 9 8 16 3 require=placement-group
`

// TestSteppedReplayRepeats replays a short mixed trace on the stepped clock
// twice, and a third time with another process keeping a core busy, and
// wants each side to give the same summary figures each time (nodes added
// by pool, partial gangs, excess nodes) and each job's wait to min within
// one step. A failure says where the replays' step logs (--step-log) part.
func TestSteppedReplayRepeats(t *testing.T) {
	if testing.Short() {
		t.Skip("replays a trace six times on the whole stack")
	}
	if err := controlplane.SetupLogging(0); err != nil {
		t.Fatal(err)
	}
	binDir := buildAutoscalerBinaries(t)
	dir := t.TempDir()
	tracePath := filepath.Join(dir, "mixed.trace")
	if err := os.WriteFile(tracePath, []byte(mixedTrace), 0o644); err != nil {
		t.Fatal(err)
	}
	steps := filepath.Join(dir, "steps")
	o := Options{TracePath: tracePath, BinDir: binDir, Step: time.Minute, Grace: 6 * time.Minute, Seed: 1, StepLog: steps,
		// Muster's and the default scheduler's sides: upstream's is
		// TestSimulateSides', which keeps this test's six replays to time.
		Sides: []string{"muster", "default"}}
	replay := func(label string, i int) []simulate.Run {
		t.Helper()
		var progress bytes.Buffer
		oi := o
		oi.replay = i
		_, runs, err := simulateRuns(context.Background(), &progress, oi, nil)
		t.Logf("%s:\n%s", label, progress.String())
		if err != nil {
			t.Fatal(err)
		}
		// Most autoscaler loops write nothing the scheduler reads; such a
		// step's second half is not settled again (a step's largest cost).
		if n := strings.Count(progress.String(), "second halves needed no settling"); n == 0 {
			t.Errorf("%s: no step left out its second half's settling", label)
		}
		return runs
	}
	first := replay("first replay", 0)
	second := replay("second replay", 1)
	hog := exec.Command("sh", "-c", "while :; do :; done")
	if err := hog.Start(); err != nil {
		t.Fatal(err)
	}
	third := replay("replay beside a CPU hog", 2)
	_ = hog.Process.Kill()
	_ = hog.Wait()

	for i, other := range [][]simulate.Run{second, third} {
		for s := range first {
			a, b := first[s].Figures, other[s].Figures
			name := fmt.Sprintf("%s, replay %d", first[s].Name, i+2)
			parted := false
			report := func(format string, args ...any) {
				t.Helper()
				t.Errorf(format, args...)
				if parted {
					return
				}
				parted = true
				// Where the replays parted is what a failure here
				// needs to be understood.
				diff, err := diffStepLogs(filepath.Join(steps, first[s].Name+"-1.log"), filepath.Join(steps, fmt.Sprintf("%s-%d.log", first[s].Name, i+2)))
				if err != nil {
					t.Errorf("%s: reading the step logs: %v", name, err)
				}
				t.Logf("%s parts from the first replay at %s", name, diff)
			}
			if fmt.Sprint(a.NodesAdded) != fmt.Sprint(b.NodesAdded) || a.PartialGangs != b.PartialGangs || a.ExcessNodes != b.ExcessNodes {
				report("%s: nodes added %v, partial gangs %d, excess nodes %d; the first replay: %v, %d, %d",
					name, b.NodesAdded, b.PartialGangs, b.ExcessNodes, a.NodesAdded, a.PartialGangs, a.ExcessNodes)
			}
			for j, ja := range a.Jobs {
				jb := b.Jobs[j]
				if ja.AtMin != jb.AtMin || (ja.AtMin && (ja.ToMin-jb.ToMin > o.Step || jb.ToMin-ja.ToMin > o.Step)) {
					report("%s: job %s reached min %v after %s; the first replay %v after %s (more than a step apart)", name, ja.Name, jb.AtMin, jb.ToMin, ja.AtMin, ja.ToMin)
				}
			}
		}
	}
	m := first[0].Figures
	if m.PartialGangs != 0 || m.ExcessNodes != 0 {
		t.Errorf("muster: partial gangs %d, excess nodes %d, want none", m.PartialGangs, m.ExcessNodes)
	}
}

// sidesTrace is mixedTrace (a launcher and workers gang, an elastic gang at
// priority 100, single-GPU pods, a gang that can never fit) and a one-member
// gang at priority 1000.
const sidesTrace = mixedTrace + "2 rush    gang 1 1 4  2 priority=1000\n"

// TestSimulateSides replays a short mixed trace on the stepped clock on
// every side, muster, upstream, default and kueue, and wants each to
// finish; on the upstream side every gang that fits to have reached min with
// members that named their upstream PodGroup (the watcher fails the run if a
// gang member binds without spec.schedulingGroup), and the gang that never
// fits to have bound nothing (upstream binds a gang's members only once
// minCount of them have a place). On the kueue side every gang that fits
// reaches min, every job's Workload is admitted with its ProvisioningRequest
// check Ready, through requests Kueue created for those with GPUs, and the
// gang that never fits binds nothing. Each side runs until its jobs that
// can run are done (--until done), and the grace after, or (the default
// scheduler, whose partial gangs can hold each other's nodes) to the
// overtime.
func TestSimulateSides(t *testing.T) {
	if testing.Short() {
		t.Skip("replays a trace on the whole stack, once per side")
	}
	if err := controlplane.SetupLogging(0); err != nil {
		t.Fatal(err)
	}
	binDir := buildAutoscalerBinaries(t)
	dir := t.TempDir()
	tracePath := filepath.Join(dir, "sides.trace")
	if err := os.WriteFile(tracePath, []byte(sidesTrace), 0o644); err != nil {
		t.Fatal(err)
	}
	o := Options{TracePath: tracePath, BinDir: binDir, Step: time.Minute, Grace: 6 * time.Minute, Seed: 1, KueueBin: buildKueue(t),
		Until: UntilDone, Overtime: time.Hour}
	var progress bytes.Buffer
	trace, runs, err := simulateRuns(context.Background(), &progress, o, nil)
	t.Log(progress.String())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range runs {
		names = append(names, r.Name)
	}
	if fmt.Sprint(names) != "[muster upstream baseline kueue]" {
		t.Fatalf("runs %v, want muster, upstream, baseline, kueue", names)
	}
	// Until done: each side ran until every job but huge (no pool holds
	// it) was done, and its grace after, well before the overtime. The
	// default scheduler may not get there: huge's members can take the
	// heavy pool at its max and hold it, partial, from pair; it then
	// stops at the overtime.
	capped := trace.Span() + o.Grace + o.Overtime
	for _, r := range runs {
		last := time.Duration(0)
		for _, jr := range r.Record.Jobs {
			last = max(last, jr.Finished)
		}
		f := r.Figures
		if r.Name == "baseline" && f.End == capped && f.PartialGangs > 0 {
			t.Logf("baseline: stopped at the overtime (%s) with %d jobs not done and %d partial gangs", f.End, f.JobsNotDone, f.PartialGangs)
			continue
		}
		if f.JobsNotDone != 1 || f.End != last+o.Grace {
			t.Errorf("%s: run ended at %s with %d jobs not done, want at %s (the last job done at %s, and the grace) with 1 (huge)", r.Name, f.End, f.JobsNotDone, last+o.Grace, last)
		}
	}
	oracle, err := oracleOf(trace, o)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := simulate.WriteReport(&out, trace, oracle, runs...); err != nil {
		t.Fatal(err)
	}
	t.Log(out.String())
	up := runs[1]
	jobs := jobsByName(up.Figures)
	members := 0
	for _, j := range trace.Jobs {
		if j.Kind != simulate.KindGang || j.Name == "huge" {
			continue
		}
		members += j.Min
		if !jobs[j.Name].AtMin {
			t.Errorf("upstream: gang %s never reached min: %+v", j.Name, jobs[j.Name])
		}
	}
	if up.GroupBinds < members {
		t.Errorf("upstream: %d gang members bound in their PodGroup, want at least the fitting gangs' %d", up.GroupBinds, members)
	}
	if n := jobs["huge"].MostRunning; n != 0 {
		t.Errorf("upstream: %d members of the gang that never fits were bound, want none", n)
	}
	for _, r := range runs {
		if r.Name != "upstream" && r.GroupBinds != 0 {
			t.Errorf("%s: %d members bound in an upstream PodGroup, want none", r.Name, r.GroupBinds)
		}
		if r.Name != "kueue" && (r.KueueAdmitted != 0 || r.KueueRequests != 0) {
			t.Errorf("%s: Kueue admitted %d Workloads through %d ProvisioningRequests, want none", r.Name, r.KueueAdmitted, r.KueueRequests)
		}
	}
	kq := runs[3]
	kjobs := jobsByName(kq.Figures)
	// Each gang is one Workload (a plain pod group), each pod of a plain
	// job one of its own.
	// A job without GPUs needs no ProvisioningRequest (the check's
	// managedResources are the GPUs): Kueue sets its check Ready at once.
	workloads, requested := 0, 0
	for _, j := range trace.Jobs {
		if j.Name == "huge" {
			continue
		}
		if j.GPUs > 0 {
			if j.Kind == simulate.KindGang {
				requested++
			} else {
				requested += j.Members
			}
		}
		if j.Kind == simulate.KindGang {
			workloads++
			if !kjobs[j.Name].AtMin {
				t.Errorf("kueue: gang %s never reached min: %+v", j.Name, kjobs[j.Name])
			}
		} else {
			workloads += j.Members
		}
	}
	t.Logf("kueue: %d Workloads admitted through the ProvisioningRequest check, %d requests created by Kueue", kq.KueueAdmitted, kq.KueueRequests)
	if kq.KueueAdmitted < workloads {
		t.Errorf("kueue: %d Workloads admitted with their ProvisioningRequest check Ready, want every fitting job's %d", kq.KueueAdmitted, workloads)
	}
	if kq.KueueRequests < requested {
		t.Errorf("kueue: %d ProvisioningRequests created by Kueue, want at least one for each of the %d fitting jobs' Workloads with GPUs", kq.KueueRequests, requested)
	}
	if n := kjobs["huge"].MostRunning; n != 0 {
		t.Errorf("kueue: %d members of the gang that never fits were bound, want none", n)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	last := regexp.MustCompile(`^muster: .*; upstream: .*, idle [0-9.]+x and cost [0-9.]+x the oracle's; baseline: .*; kueue: .*, idle [0-9.]+x and cost [0-9.]+x the oracle's; oracle: idle GPU-hours [0-9.]+, cost \$[0-9.]+$`)
	if !last.MatchString(lines[len(lines)-1]) {
		t.Errorf("last line %q, want %s", lines[len(lines)-1], last)
	}
}

// TestPendingWritesStartDuringWait: a write may start while a step waits
// for the writes in flight (the watcher starts them from informer
// handlers); the wait ends once none is.
func TestPendingWritesStartDuringWait(t *testing.T) {
	var p pendingWrites
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
				p.start()
				p.done()
			}
		}
	}()
	for range 1000 {
		p.wait(t.Context())
	}
	close(stop)
	p.start()
	ended := make(chan struct{})
	go func() { p.wait(t.Context()); close(ended) }()
	if p.n.Load() != 1 {
		t.Fatalf("%d writes in flight, want 1", p.n.Load())
	}
	p.done()
	<-ended
}

// jobsByName keys a run's per-job figures by job name.
func jobsByName(f simulate.Figures) map[string]simulate.JobFigures {
	out := make(map[string]simulate.JobFigures, len(f.Jobs))
	for _, j := range f.Jobs {
		out[j.Name] = j
	}
	return out
}

// A jump over a quiet stretch stops when an empty node's unneeded time is
// up, and the replay steps on for scaleDownGrace after (the autoscaler's
// count may begin a step late); a node that stays empty longer, or a busy
// one, holds no step.
func TestScaleDownDue(t *testing.T) {
	nodes, pods := cache.NewStore(cache.MetaNamespaceKeyFunc), cache.NewStore(cache.MetaNamespaceKeyFunc)
	for _, name := range []string{"a", "b"} {
		if err := nodes.Add(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
			t.Fatal(err)
		}
	}
	busy := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "on-b"}, Spec: v1.PodSpec{NodeName: "b"}}
	if err := pods.Add(busy); err != nil {
		t.Fatal(err)
	}
	s := &stepper{nodes: nodes, pods: pods}
	step := time.Minute
	check := func(now time.Duration, want time.Duration, wantOK bool) {
		t.Helper()
		got, ok := s.scaleDownDue(now, step)
		if ok != wantOK || (ok && got != want) {
			t.Fatalf("at %v: due %v, %t; want %v, %t", now, got, ok, want, wantOK)
		}
	}
	check(10*time.Minute, 10*time.Minute+simUnneededTime, true) // a empty since 10
	check(12*time.Minute, 10*time.Minute+simUnneededTime, true)
	check(10*time.Minute+simUnneededTime, 11*time.Minute+simUnneededTime, true) // up: step on
	check(10*time.Minute+simUnneededTime+scaleDownGrace, 0, false)              // kept: jump as before
	// b's pod ends: b's own count starts.
	done := busy.DeepCopy()
	done.Status.Phase = v1.PodSucceeded
	if err := pods.Update(done); err != nil {
		t.Fatal(err)
	}
	now := 20 * time.Minute
	check(now, now+simUnneededTime, true)
	// a pod lands on a: its count starts again when it empties.
	if err := pods.Add(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "on-a"}, Spec: v1.PodSpec{NodeName: "a"}}); err != nil {
		t.Fatal(err)
	}
	check(21*time.Minute, now+simUnneededTime, true)
	if err := pods.Delete(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "on-a"}}); err != nil {
		t.Fatal(err)
	}
	check(22*time.Minute, now+simUnneededTime, true)
	check(22*time.Minute+simUnneededTime, 23*time.Minute+simUnneededTime, true) // a's up, b's in its grace: step on
	check(22*time.Minute+simUnneededTime+scaleDownGrace, 0, false)
}

// TestUnseenWrites: a step counts as settled only once its watches have
// seen every pod, node and ProvisioningRequest write etcd holds; the
// storage, not a wait, says whether they have.
func TestUnseenWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an API server")
	}
	ctx := context.Background()
	env, err := controlplane.Start(t)
	if err != nil {
		t.Fatal(err)
	}
	if err := controlplane.CreateNamespace(ctx, env.Client, simNamespace); err != nil {
		t.Fatal(err)
	}
	s := &stepper{env: env, window: quietWindow}
	watchCtx, stopWatching := context.WithCancel(ctx)
	defer stopWatching()
	if err := s.watchChanges(watchCtx); err != nil {
		t.Fatal(err)
	}
	pod := controlplane.LabelMembers(simNamespace, "seen", 1, 1, 1, 1)[0].Pod()
	created, err := env.Client.CoreV1().Pods(simNamespace).Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var rv int64
	if _, err := fmt.Sscan(created.ResourceVersion, &rv); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for s.seenRevision.Load() < rv {
		if time.Now().After(deadline) {
			t.Fatalf("the watches did not see pod %s (resourceVersion %d) within a minute", created.Name, rv)
		}
		time.Sleep(time.Millisecond)
	}
	if s.unseenWrites(ctx) {
		t.Errorf("writes unseen after the watches saw the last one (resourceVersion %d)", rv)
	}
	// As if the pod's write were still on its way to the watches.
	s.seenRevision.Store(rv - 1)
	if !s.unseenWrites(ctx) {
		t.Errorf("no write unseen with the watches one revision behind pod %s", created.Name)
	}
	if err := env.Client.CoreV1().Pods(simNamespace).Delete(ctx, created.Name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}
	s.seenRevision.Store(rv) // the deletion not seen yet
	if !s.unseenWrites(ctx) {
		t.Errorf("the pod's deletion counted as seen before the watches saw it")
	}
}
