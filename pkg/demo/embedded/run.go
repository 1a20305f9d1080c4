// Package embedded runs `muster demo`: pkg/demo's scenario of gangs in an
// in-process control plane with muster-scheduler, its progress and report,
// then the same gangs under upstream's gang scheduling.
package embedded

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	schedv1beta1 "k8s.io/api/scheduling/v1beta1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/prometheus/common/expfmt"
	"k8s.io/component-base/metrics/legacyregistry"

	autoscalingv1 "github.com/muster-project/muster/pkg/apis/autoscaling/v1"
	"github.com/muster-project/muster/pkg/controlplane"
	"github.com/muster-project/muster/pkg/demo"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/provisioning"
	"github.com/muster-project/muster/pkg/topology"
)

const (
	demoCap          = 90 * time.Second
	demoBackoff      = 2   // seconds
	demoStatusMillis = 200 // PodGroup status sync period
)

// printer serialises lines from the progress ticker and the submitter.
type printer struct {
	mu   sync.Mutex
	out  io.Writer
	last demo.Progress // the last progress printed
}

// progress prints a progress line and remembers what it said.
func (p *printer) progress(elapsed time.Duration, pr demo.Progress) {
	p.mu.Lock()
	p.last = pr
	p.mu.Unlock()
	p.printf("%s\n", demo.ProgressLine(elapsed, pr))
}

func (p *printer) printf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.out, format, args...)
}

// Run runs the demo on a scenario of nodes simulated 8-GPU nodes, writing
// progress and its report to out; showGangs, when set, prints the gangs as
// kubectl muster shows them from the demo's API server (kubeconfig) before
// it stops. Its error says which gang did not do what the scenario expects.
func Run(ctx context.Context, out io.Writer, nodes int, showGangs func(out io.Writer, kubeconfig string) error) (err error) {
	scen, err := demo.NewScenario(nodes)
	if err != nil {
		return err
	}
	if err := scen.Check(); err != nil {
		return fmt.Errorf("scenario: %w", err)
	}
	p := &printer{out: out}
	begin := time.Now()

	tb := controlplane.NewProcessTB("muster-demo")
	defer tb.End(&err)

	p.printf("Starting etcd, kube-apiserver and muster-scheduler in-process...\n")
	// The control plane serves upstream's Workload API, as a 1.37 cluster
	// using it does; muster-scheduler runs with GenericWorkload off.
	env, err := controlplane.StartWith(tb, controlplane.Options{WorkloadAPI: true})
	if err != nil {
		return err
	}
	kubeconfig, err := env.Kubeconfig()
	if err != nil {
		return err
	}
	if err := controlplane.CreateNamespace(ctx, env.Client, demo.Namespace); err != nil {
		return err
	}
	if err := createNodes(ctx, env, scen); err != nil {
		return err
	}
	sched, err := env.StartScheduler(ctx, controlplane.MusterConfig(kubeconfig, controlplane.GangArgs{
		BackoffSeconds: demoBackoff, StatusSyncMillis: demoStatusMillis}))
	if err != nil {
		return fmt.Errorf("starting muster-scheduler: %w", err)
	}
	defer sched.Stop()

	board := demo.NewBoard(scen.Gangs)
	board.SetNodes(scen.Nodes())
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	if err := watchPods(watchCtx, env, board); err != nil {
		return err
	}
	// Stopping the components makes them complain about each other.
	defer controlplane.SilenceLogging()
	var gpus int64
	var pools []string
	for _, pl := range scen.Pools {
		gpus += int64(pl.Nodes) * pl.GPUs
		pools = append(pools, fmt.Sprintf("%d x %s (%d x %s)", pl.Nodes, pl.Name, pl.GPUs, pl.Product))
	}
	p.printf("Control plane up in %.1fs. Cluster: %s = %d GPUs.\n", time.Since(begin).Seconds(), strings.Join(pools, ", "), gpus)
	p.printf("Submitting %d gangs (%d pods) in %d waves, %.1fs apart.\n\n", len(scen.Gangs), scen.TotalMembers(), scen.Waves(), demo.WaveInterval.Seconds())

	start := time.Now()
	deadline := start.Add(demoCap)
	runCtx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()

	// Progress, once a second, until the run ends.
	progressDone := make(chan struct{})
	go func() {
		defer close(progressDone)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-runCtx.Done():
				return
			case <-t.C:
				p.progress(time.Since(start), board.Progress())
			}
		}
	}()

	submitErr := make(chan error, 1)
	go func() { submitErr <- submit(runCtx, env, scen, board, p, start, false) }()

	var reasons map[string]string
	settled := false
	for !settled {
		select {
		case err := <-submitErr:
			if err != nil {
				cancel()
				<-progressDone
				return err
			}
			submitErr = nil
		case <-runCtx.Done():
			settled = true // out of time (or interrupted): report what there is
			continue
		case <-time.After(100 * time.Millisecond):
		}
		if submitErr != nil || !board.Settled() {
			continue
		}
		// Everything that fits is placed; wait until the gangs that do not
		// fit say why.
		reasons = waitReasons(runCtx, env, board.Results())
		settled = reasonsGiven(board.Results(), reasons)
		if !settled {
			select {
			case <-runCtx.Done():
				settled = true
			case <-time.After(400 * time.Millisecond):
			}
		}
	}
	cancel()
	<-progressDone
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted")
	}

	results := board.Results()
	reasons = waitReasons(ctx, env, results)
	asked := askedAutoscaler(ctx, env)
	for i := range results {
		results[i].Reason = reasons[results[i].Gang.Name]
		results[i].Asked = asked[results[i].Gang.Name]
	}
	if pr := board.Progress(); pr != p.last {
		p.progress(time.Since(start), pr)
	}
	if time.Now().After(deadline) {
		p.printf("Stopped at the %s cap.\n", demoCap)
	} else {
		p.printf("Settled after %.1fs.\n", time.Since(start).Seconds())
	}
	// One scheduler per process at a time: its configz and metrics
	// registrations are the process's. Muster's work is done and reported.
	sched.Stop()
	upstream, err := runUpstreamDemo(ctx, scen, p)
	if err != nil {
		return fmt.Errorf("upstream gang scheduling: %w", err)
	}
	for i := range results {
		results[i].Upstream = demo.UpstreamCell(upstream[i])
	}
	p.printf("\n")
	p.mu.Lock()
	werr := demo.WriteTable(out, results)
	p.mu.Unlock()
	if werr != nil {
		return werr
	}
	p.printf("\nTimes run from a gang's last member creation until min / max members were bound\n" +
		"(0.00s if that happened while its last members were still being created).\n")
	// The same gangs as a user sees them on a real cluster: kubectl muster,
	// run in-process against this API server.
	p.printf("\n$ kubectl muster gangs -A -o wide\n")
	p.mu.Lock()
	kerr := showGangs(out, kubeconfig)
	p.mu.Unlock()
	if kerr != nil {
		return fmt.Errorf("kubectl muster gangs: %w", kerr)
	}
	if problems := demo.Verdict(results); len(problems) > 0 {
		return errors.New("demo failed: " + strings.Join(problems, "; "))
	}
	p.printf("OK: every gang that fits reached min (elastic gangs their max) inside the topology it asked for; the gang too big for the cluster bound nothing, says why and asked the autoscaler for exactly what it lacks.\n")
	return nil
}

// upstreamCap bounds the upstream run: gangs that fit are placed in seconds.
const upstreamCap = 30 * time.Second

// runUpstreamDemo runs the same scenario once more, in a fresh control
// plane, under kube-scheduler's own gang scheduling (default profile with
// GenericWorkload and TopologyAwareWorkloadScheduling on): every gang an
// upstream PodGroup with its min as minCount and the level it must sit
// within as its topology constraint. It returns the results in scenario
// order.
func runUpstreamDemo(ctx context.Context, scen demo.Scenario, p *printer) (results []demo.Result, err error) {
	p.printf("\nThe same gangs under kube-scheduler's own gang scheduling (upstream PodGroups, GenericWorkload on), in a second control plane...\n")
	tb := controlplane.NewProcessTB("muster-demo-upstream")
	defer tb.End(&err)
	env, err := controlplane.StartWith(tb, controlplane.Options{WorkloadAPI: true})
	if err != nil {
		return nil, err
	}
	kubeconfig, err := env.Kubeconfig()
	if err != nil {
		return nil, err
	}
	if err := controlplane.CreateNamespace(ctx, env.Client, demo.Namespace); err != nil {
		return nil, err
	}
	if err := createNodes(ctx, env, scen); err != nil {
		return nil, err
	}
	sched, err := env.StartKubeScheduler(ctx, controlplane.DefaultConfig(kubeconfig))
	if err != nil {
		return nil, fmt.Errorf("starting kube-scheduler: %w", err)
	}
	defer sched.Stop()
	board := demo.NewBoard(scen.Gangs)
	board.SetNodes(scen.Nodes())
	runCtx, cancel := context.WithTimeout(ctx, upstreamCap)
	defer cancel()
	if err := watchPods(runCtx, env, board); err != nil {
		return nil, err
	}
	start := time.Now()
	if err := submit(runCtx, env, scen, board, &printer{out: io.Discard}, start, true); err != nil {
		return nil, err
	}
	// Settled: every gang that fits is placed and nothing moved for a
	// second, or nothing moved for three (upstream may not place them all).
	last, still := board.Progress(), time.Now()
	for runCtx.Err() == nil {
		time.Sleep(100 * time.Millisecond)
		if pr := board.Progress(); pr != last {
			last, still = pr, time.Now()
		}
		if quiet := time.Since(still); (board.Settled() && quiet >= time.Second) || quiet >= 3*time.Second {
			break
		}
	}
	p.printf("Upstream: %d of %d pods bound, %d of %d gangs at min, after %.1fs.\n", last.Bound, last.Pods, last.AtMin, last.Gangs, time.Since(start).Seconds())
	return board.Results(), nil
}

// WriteMusterMetrics prints the muster_* series of the in-process
// scheduler's registry (the one its /metrics serves), in the text format.
func WriteMusterMetrics(out io.Writer) error {
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "\nmuster-scheduler /metrics, muster_* series:")
	enc := expfmt.NewEncoder(out, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range families {
		if strings.HasPrefix(mf.GetName(), "muster_") {
			if err := enc.Encode(mf); err != nil {
				return err
			}
		}
	}
	return nil
}

func createNodes(ctx context.Context, env *controlplane.Env, scen demo.Scenario) error {
	for _, n := range scen.Nodes() {
		kv := make([]string, 0, 2*len(n.Labels))
		for k, v := range n.Labels {
			kv = append(kv, k, v)
		}
		if err := controlplane.CreateNode(ctx, env.Client, controlplane.GPUNode(n.Name, n.GPUs, kv...)); err != nil {
			return fmt.Errorf("creating node %s: %w", n.Name, err)
		}
	}
	return nil
}

// watchPods feeds the board from a pod watch: each member's first sighting
// with a node is its bind time.
func watchPods(ctx context.Context, env *controlplane.Env, board *demo.Board) error {
	factory := informers.NewSharedInformerFactoryWithOptions(env.Client, 0, informers.WithNamespace(demo.Namespace))
	inf := factory.Core().V1().Pods().Informer()
	seen := func(obj any) {
		pod, ok := obj.(*v1.Pod)
		if !ok || pod.Spec.NodeName == "" {
			return
		}
		now := time.Now()
		if name := gangName(pod); name != "" {
			board.Bound(name, pod.Name, pod.Spec.NodeName, now)
		}
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    seen,
		UpdateFunc: func(_, obj any) { seen(obj) },
	}); err != nil {
		return err
	}
	return controlplane.StartInformers(ctx, factory)
}

func gangName(pod *v1.Pod) string {
	if sg := pod.Spec.SchedulingGroup; sg != nil && sg.PodGroupName != nil {
		return *sg.PodGroupName
	}
	if n := pod.Labels[gang.PodGroupLabel]; n != "" {
		return n
	}
	return pod.Labels[gang.GroupLabel]
}

// submit creates the scenario's gangs in waves, WaveInterval apart whether or
// not the previous wave's pods are all created yet. Gangs of one wave are
// created concurrently, each one's members in a burst.
func submit(ctx context.Context, env *controlplane.Env, scen demo.Scenario, board *demo.Board, p *printer, start time.Time, upstream bool) error {
	var wg sync.WaitGroup
	errs := make(chan error, len(scen.Gangs))
	for w := 0; w < scen.Waves(); w++ {
		select {
		case <-ctx.Done():
		case <-time.After(time.Until(start.Add(time.Duration(w) * demo.WaveInterval))):
		}
		if ctx.Err() != nil {
			break
		}
		var names []string
		for _, g := range scen.Gangs {
			if g.Wave != w {
				continue
			}
			desc := fmt.Sprintf("%s (%s x %d GPU", g.Name, plural(g.Members, "pod"), g.GPUs)
			if g.Min != g.Members || g.Max != g.Members {
				desc += fmt.Sprintf(", min %d max %d", g.Min, g.Max)
			}
			names = append(names, desc+")")
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := createGang(ctx, env, g, upstream); err != nil {
					errs <- err
					return
				}
				board.Created(g.Name, time.Now())
			}()
		}
		p.printf("[%5.1fs] wave %d: %s\n", time.Since(start).Seconds(), w+1, strings.Join(names, ", "))
	}
	wg.Wait()
	close(errs)
	return <-errs
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// createGang creates a gang's objects and members. upstream creates every
// gang as an upstream PodGroup for kube-scheduler's own gang scheduling.
func createGang(ctx context.Context, env *controlplane.Env, g demo.Gang, upstream bool) error {
	var members []controlplane.Member
	switch {
	case upstream || g.Source == demo.SourceWorkload:
		if err := createWorkloadPodGroup(ctx, env, g, upstream); err != nil {
			return err
		}
		for i := range g.Members {
			m := controlplane.Member{Namespace: demo.Namespace, Name: fmt.Sprintf("%s-%d", g.Name, i), GPUs: g.GPUs, SchedulingGroup: g.Name}
			if upstream {
				m.Scheduler = v1.DefaultSchedulerName
			}
			members = append(members, m)
		}
	case g.Source == demo.SourcePodGroup:
		max := int32(g.Max)
		if g.Max == g.Min {
			max = 0
		}
		pg := controlplane.PodGroup(demo.Namespace, g.Name, int32(g.Min), max, 0)
		for k, v := range g.Ask {
			if pg.Annotations == nil {
				pg.Annotations = map[string]string{}
			}
			pg.Annotations[k] = v
		}
		if _, err := env.PodGroups.SchedulingV1alpha1().PodGroups(demo.Namespace).Create(ctx, pg, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating PodGroup %s: %w", g.Name, err)
		}
		members = controlplane.PodGroupMembers(demo.Namespace, g.Name, g.Members, g.GPUs)
	default:
		members = controlplane.LabelMembers(demo.Namespace, g.Name, g.Members, g.GPUs, g.Min, g.Max)
		for i := range members {
			for k, v := range g.Ask {
				members[i].Annotations[k] = v
			}
		}
	}
	// Members arrive in a burst, as from a job controller: several at once.
	work := make(chan controlplane.Member)
	errs := make(chan error, createWorkers)
	var wg sync.WaitGroup
	for range createWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for m := range work {
				pod := m.Pod()
				pod.Spec.NodeSelector = map[string]string{demo.LabelAgentPool: g.Pool}
				if _, err := env.Client.CoreV1().Pods(m.Namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil && ctx.Err() == nil {
					select {
					case errs <- fmt.Errorf("creating pod %s: %w", m.Name, err):
					default:
					}
				}
			}
		}()
	}
	for _, m := range members {
		work <- m
	}
	close(work)
	wg.Wait()
	close(errs)
	return <-errs
}

// createWorkloadPodGroup creates a gang's upstream PodGroup
// (scheduling.k8s.io/v1beta1): minCount is its min; for Muster, max and its
// GPU class and topology asks are annotations; for kube-scheduler's own gang
// scheduling (upstream), the level the gang must sit within is its topology
// constraint, the only ask upstream has a field for.
func createWorkloadPodGroup(ctx context.Context, env *controlplane.Env, g demo.Gang, upstream bool) error {
	pg := controlplane.WorkloadPodGroup(demo.Namespace, g.Name, int32(g.Min))
	if upstream {
		if g.Within != "" {
			i := slices.IndexFunc(demo.Levels, func(l topology.Level) bool { return l.Name == g.Within })
			if i < 0 {
				return fmt.Errorf("gang %s: level %q is none of the demo's", g.Name, g.Within)
			}
			pg.Spec.SchedulingConstraints = &schedv1beta1.PodGroupSchedulingConstraints{
				Topology: []schedv1beta1.TopologyConstraint{{Key: demo.Levels[i].Label}}}
		}
	} else {
		pg.Annotations = maps.Clone(g.Ask)
		if g.Max != g.Min {
			if pg.Annotations == nil {
				pg.Annotations = map[string]string{}
			}
			pg.Annotations[gang.MaxMemberAnnotation] = fmt.Sprint(g.Max)
		}
	}
	if _, err := env.Client.SchedulingV1beta1().PodGroups(demo.Namespace).Create(ctx, pg, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating PodGroup %s (%s): %w", g.Name, gang.WorkloadGroupVersion, err)
	}
	return nil
}

// createWorkers is how many members of one gang are created concurrently.
const createWorkers = 8

var podGroupGVR = schema.GroupVersionResource{Group: "scheduling.x-k8s.io", Version: "v1alpha1", Resource: "podgroups"}

// waitReasons reads, for each gang not at min, why it waits: the PodGroup's
// Scheduled condition, or for a CRD-free gang an unbound member's
// PodScheduled condition.
func waitReasons(ctx context.Context, env *controlplane.Env, results []demo.Result) map[string]string {
	out := map[string]string{}
	dc, err := dynamic.NewForConfig(env.Config)
	if err != nil {
		return out
	}
	for _, r := range results {
		if r.AtMin() {
			continue
		}
		g := r.Gang
		if g.Source == demo.SourceWorkload {
			pg, err := env.Client.SchedulingV1beta1().PodGroups(demo.Namespace).Get(ctx, g.Name, metav1.GetOptions{})
			if err != nil {
				continue
			}
			if c := apimeta.FindStatusCondition(pg.Status.Conditions, gang.ConditionScheduled); c != nil {
				out[g.Name] = c.Reason + ": " + c.Message
			}
			continue
		}
		if g.Source == demo.SourcePodGroup {
			u, err := dc.Resource(podGroupGVR).Namespace(demo.Namespace).Get(ctx, g.Name, metav1.GetOptions{})
			if err != nil {
				continue
			}
			st, _ := u.Object["status"].(map[string]any)
			conds, _ := st["conditions"].([]any)
			for _, c := range conds {
				m, _ := c.(map[string]any)
				if m["type"] == gang.ConditionScheduled {
					reason, _ := m["reason"].(string)
					msg, _ := m["message"].(string)
					out[g.Name] = reason + ": " + msg
				}
			}
			continue
		}
		pods, err := env.Client.CoreV1().Pods(demo.Namespace).List(ctx, metav1.ListOptions{LabelSelector: controlplane.Selector(gang.GroupLabel, g.Name)})
		if err != nil {
			continue
		}
		for _, pod := range pods.Items {
			if pod.Spec.NodeName != "" {
				continue
			}
			for _, c := range pod.Status.Conditions {
				if c.Type == v1.PodScheduled && c.Status == v1.ConditionFalse && c.Message != "" {
					out[g.Name] = c.Reason + ": " + c.Message
				}
			}
			if out[g.Name] != "" {
				break
			}
		}
	}
	return out
}

// askedAutoscaler reads the ProvisioningRequests muster-scheduler keeps for
// short gangs: what each gang asked the cluster-autoscaler for.
func askedAutoscaler(ctx context.Context, env *controlplane.Env) map[string]string {
	out := map[string]string{}
	dc, err := dynamic.NewForConfig(env.Config)
	if err != nil {
		return out
	}
	// The writer reconciles once a second; give it a moment to catch up.
	deadline := time.Now().Add(3 * time.Second)
	for {
		list, err := dc.Resource(autoscalingv1.Resource).Namespace(demo.Namespace).List(ctx, metav1.ListOptions{})
		if err == nil {
			for _, u := range list.Items {
				var pr autoscalingv1.ProvisioningRequest
				if runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &pr) != nil || len(pr.Spec.PodSets) == 0 {
					continue
				}
				out[pr.Labels[provisioning.GangLabel]] = fmt.Sprintf("%d pods (%s)", pr.Spec.PodSets[0].Count, pr.Name)
			}
		}
		if len(out) > 0 || time.Now().After(deadline) || ctx.Err() != nil {
			return out
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// reasonsGiven says every gang that cannot fit reports the reason it must.
func reasonsGiven(results []demo.Result, reasons map[string]string) bool {
	for _, r := range results {
		if !r.Gang.Fits && !strings.Contains(reasons[r.Gang.Name], r.Gang.WaitReason) {
			return false
		}
	}
	return true
}
