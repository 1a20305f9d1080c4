// Package replay runs the placement trace against each scheduler profile
// (Muster, LeastAllocated, MostAllocated, upstream gang scheduling), each in
// its own in-process control plane, and writes pkg/placement's report:
// `muster placement-report`.
package replay

import (
	"context"
	"fmt"
	"io"
	"time"

	v1 "k8s.io/api/core/v1"
	schedv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	corelisters "k8s.io/client-go/listers/core/v1"

	"github.com/muster-project/muster/pkg/controlplane"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/placement"
	"github.com/muster-project/muster/pkg/topology"
)

// placementNamespace is where the trace's gangs run.
const placementNamespace = "training"

// Options tune how the trace is driven, not what it measures.
type Options struct {
	// Quiet is how long the bound-pod count must stay unchanged before a
	// step counts as settled; StepCap bounds the wait for one step.
	Quiet, StepCap time.Duration
}

// DefaultOptions is muster placement-report's defaults.
func DefaultOptions() Options {
	return Options{Quiet: 400 * time.Millisecond, StepCap: 15 * time.Second}
}

// Muster's gang args for the report: short waits so that a gang that did not
// fit retries promptly when room frees up.
var placementGangArgs = controlplane.GangArgs{BackoffSeconds: 1, ScheduleTimeoutSeconds: 10, StatusSyncMillis: 200}

// schedProfile is one scheduler the trace runs against.
type schedProfile struct {
	name          string // report column
	schedulerName string // the pods' spec.schedulerName
	config        func(kubeconfig string) string
	// upstream: the control plane serves the Workload API and each gang is an
	// upstream PodGroup (gang minCount, the zone as its topology constraint)
	// for kube-scheduler's own gang scheduling.
	upstream bool
}

func placementProfiles() []schedProfile {
	return []schedProfile{
		{placement.ProfileMuster, controlplane.MusterProfile, func(kc string) string { return controlplane.MusterConfig(kc, placementGangArgs) }, false},
		{placement.ProfileLeastAllocated, v1.DefaultSchedulerName, func(kc string) string { return controlplane.BaselineConfig(kc, controlplane.LeastAllocated) }, false},
		{placement.ProfileMostAllocated, v1.DefaultSchedulerName, func(kc string) string { return controlplane.BaselineConfig(kc, controlplane.MostAllocated) }, false},
		{placement.ProfileUpstream, v1.DefaultSchedulerName, controlplane.DefaultConfig, true},
	}
}

// Report runs t on c once per profile and writes the report to
// out, progress to progress.
func Report(ctx context.Context, out, progress io.Writer, c placement.Cluster, t placement.Trace, opts Options) error {
	runs, err := runPlacement(ctx, progress, c, t, opts)
	if err != nil {
		return err
	}
	results := make([]placement.Result, len(runs))
	for i, r := range runs {
		results[i] = r.result
	}
	fmt.Fprintln(progress)
	return placement.WriteReport(out, c, t, results)
}

// profileRun is what one profile's run produced: the analysis's result and
// the pods as they were at the end.
type profileRun struct {
	result placement.Result
	final  []placement.PodState
}

// runPlacement runs t on c once per profile, in order.
func runPlacement(ctx context.Context, progress io.Writer, c placement.Cluster, t placement.Trace, opts Options) ([]profileRun, error) {
	if opts.Quiet <= 0 {
		return nil, fmt.Errorf("--quiet must be positive, got %s", opts.Quiet)
	}
	if opts.StepCap <= opts.Quiet {
		return nil, fmt.Errorf("--step-cap (%s) must be longer than --quiet (%s)", opts.StepCap, opts.Quiet)
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	arrivals, departures := t.Counts()
	fmt.Fprintf(progress, "Placement report: %d gangs, %d steps (%d arrivals, %d departures) on %d nodes, once per scheduler.\n",
		len(t.Gangs), len(t.Events), arrivals, departures, c.Nodes)
	var runs []profileRun
	for _, p := range placementProfiles() {
		r, err := runPlacementProfile(ctx, progress, p, c, t, opts)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.name, err)
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// runPlacementProfile runs the trace against one scheduler in a fresh control
// plane and returns what the analysis found.
func runPlacementProfile(ctx context.Context, progress io.Writer, p schedProfile, c placement.Cluster, t placement.Trace, opts Options) (res profileRun, err error) {
	begin := time.Now()
	tb := controlplane.NewProcessTB("muster-placement")
	defer func() {
		// Stopping the components makes them complain about each other.
		controlplane.QuietDuring(tb.Close)
	}()
	defer func() {
		// A panic while the control plane starts (the TB's TempDir panics
		// when it cannot make a directory) becomes the error.
		if r := recover(); r != nil {
			err = fmt.Errorf("control plane: %v", r)
		}
	}()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	fmt.Fprintf(progress, "%-15s starting a control plane and the scheduler...\n", p.name+":")
	env, err := controlplane.StartWith(tb, controlplane.Options{WorkloadAPI: p.upstream})
	if err != nil {
		return res, err
	}
	kubeconfig, err := env.Kubeconfig()
	if err != nil {
		return res, err
	}
	if err := controlplane.CreateNamespace(ctx, env.Client, placementNamespace); err != nil {
		return res, fmt.Errorf("creating namespace %s: %w", placementNamespace, err)
	}
	nodes := c.NodeList()
	for _, n := range nodes {
		kv := make([]string, 0, 2*len(n.Labels))
		for k, v := range n.Labels {
			kv = append(kv, k, v)
		}
		if err := controlplane.CreateNode(ctx, env.Client, controlplane.GPUNode(n.Name, n.GPUs, kv...)); err != nil {
			return res, fmt.Errorf("creating node %s: %w", n.Name, err)
		}
	}
	factory := informers.NewSharedInformerFactoryWithOptions(env.Client, 0, informers.WithNamespace(placementNamespace))
	pods := factory.Core().V1().Pods().Lister().Pods(placementNamespace)
	factory.Start(ctx.Done())
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return res, fmt.Errorf("pod watch: %v did not sync", typ)
		}
	}
	startScheduler := env.StartScheduler
	if p.upstream {
		startScheduler = env.StartKubeScheduler
	}
	sched, err := startScheduler(ctx, p.config(kubeconfig))
	if err != nil {
		return res, fmt.Errorf("starting the scheduler: %w", err)
	}
	defer controlplane.QuietDuring(sched.Stop)

	start := time.Now()
	analysis := placement.NewAnalysis(t, nodes)
	capped := 0
	var states []placement.PodState
	for i, e := range t.Events {
		if err := applyEvent(ctx, env, p, c, t, e); err != nil {
			return res, fmt.Errorf("step %d (%s): %w", i+1, e, err)
		}
		settled, err := settle(ctx, pods, t, e, opts)
		if err != nil {
			return res, fmt.Errorf("step %d (%s): %w", i+1, e, err)
		}
		if !settled {
			capped++
		}
		states, err = podStates(pods)
		if err != nil {
			return res, err
		}
		if err := analysis.Observe(states); err != nil {
			return res, fmt.Errorf("step %d (%s): %w", i+1, e, err)
		}
	}
	note := ""
	if capped > 0 {
		note = fmt.Sprintf("; %d steps stopped waiting at the %s cap", capped, opts.StepCap)
	}
	fmt.Fprintf(progress, "%-15s %d steps in %.1fs (control plane %.1fs)%s\n", p.name+":", len(t.Events),
		time.Since(start).Seconds(), start.Sub(begin).Seconds(), note)
	return profileRun{result: analysis.Result(p.name), final: states}, nil
}

// applyEvent creates an arriving gang's member pods, one by one in order, or
// deletes a departing gang's pods at once.
func applyEvent(ctx context.Context, env *controlplane.Env, p schedProfile, c placement.Cluster, t placement.Trace, e placement.Event) error {
	g, ok := t.Gang(e.Gang)
	if !ok {
		return fmt.Errorf("gang %s is not in the trace", e.Gang)
	}
	if e.Kind == placement.Depart {
		err := env.Client.CoreV1().Pods(placementNamespace).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: new(int64)},
			metav1.ListOptions{LabelSelector: controlplane.Selector(gang.GroupLabel, g.Name)})
		if err != nil {
			return fmt.Errorf("deleting the pods of gang %s: %w", g.Name, err)
		}
		return nil
	}
	members := controlplane.LabelMembers(placementNamespace, g.Name, g.Members, g.GPUs, g.Members, g.Members)
	for i := range members {
		members[i].Scheduler = p.schedulerName
		for k, v := range g.Annotations(c) {
			members[i].Annotations[k] = v
		}
	}
	if p.upstream {
		return createUpstreamGang(ctx, env, c, g, members)
	}
	return controlplane.CreatePods(ctx, env.Client, members...)
}

// createUpstreamGang creates a gang as upstream's Workload API has it: a
// PodGroup with the gang's size as minCount and, where Muster's annotations
// require a zone, the zone label as its topology constraint (upstream has
// no GPU class or preferred level), then the members naming it in
// spec.schedulingGroup. The gang label stays for the report to count them.
func createUpstreamGang(ctx context.Context, env *controlplane.Env, c placement.Cluster, g placement.Gang, members []controlplane.Member) error {
	pg := controlplane.WorkloadPodGroup(placementNamespace, g.Name, int32(g.Members))
	if level, ok := g.Annotations(c)[topology.RequiredLevelAnnotation]; ok {
		if level != "zone" {
			return fmt.Errorf("gang %s: required level %q has no upstream topology key here", g.Name, level)
		}
		pg.Spec.SchedulingConstraints = &schedv1beta1.PodGroupSchedulingConstraints{Topology: []schedv1beta1.TopologyConstraint{{Key: topology.ZoneLabel}}}
	}
	if _, err := env.Client.SchedulingV1beta1().PodGroups(placementNamespace).Create(ctx, pg, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating PodGroup %s: %w", g.Name, err)
	}
	for i := range members {
		members[i].SchedulingGroup = g.Name
	}
	return controlplane.CreatePods(ctx, env.Client, members...)
}

// settle waits until the step has taken effect and the scheduler is quiet:
// an arriving gang's members all exist and each is bound or has been tried
// (PodScheduled False for a reason other than SchedulingGated, which Muster
// shows while a gang's members are still arriving); a departing gang's pods
// are gone; every pending pod has a PodScheduled condition; and the number of
// pods and of bound pods has not changed for opts.Quiet. It returns false if
// that took longer than opts.StepCap.
func settle(ctx context.Context, pods corelisters.PodNamespaceLister, t placement.Trace, e placement.Event, opts Options) (bool, error) {
	g, _ := t.Gang(e.Gang)
	type signature struct{ pods, bound int }
	var last signature
	lastChange := time.Now()
	deadline := lastChange.Add(opts.StepCap)
	for {
		list, err := pods.List(labels.Everything())
		if err != nil {
			return false, err
		}
		var sig signature
		ready := true
		mine := 0
		for _, pod := range list {
			sig.pods++
			bound := pod.Spec.NodeName != ""
			if bound {
				sig.bound++
			}
			cond := podScheduled(pod)
			if !bound && cond == nil {
				ready = false
			}
			if pod.Labels[gang.GroupLabel] != g.Name {
				continue
			}
			mine++
			if e.Kind == placement.Arrive && !bound && (cond == nil || cond.Status != v1.ConditionFalse || cond.Reason == v1.PodReasonSchedulingGated) {
				ready = false
			}
		}
		switch e.Kind {
		case placement.Arrive:
			ready = ready && mine == g.Members
		case placement.Depart:
			ready = ready && mine == 0
		}
		now := time.Now()
		if sig != last {
			last, lastChange = sig, now
		}
		if ready && now.Sub(lastChange) >= opts.Quiet {
			return true, nil
		}
		if now.After(deadline) {
			return false, nil
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(25 * time.Millisecond):
		}
	}
}

func podScheduled(pod *v1.Pod) *v1.PodCondition {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == v1.PodScheduled {
			return &pod.Status.Conditions[i]
		}
	}
	return nil
}

// podStates turns the watched pods into the analysis's plain data.
func podStates(pods corelisters.PodNamespaceLister) ([]placement.PodState, error) {
	list, err := pods.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	out := make([]placement.PodState, 0, len(list))
	for _, pod := range list {
		name := pod.Labels[gang.GroupLabel]
		if name == "" {
			return nil, fmt.Errorf("pod %s/%s: metadata.labels[%s] is not set", pod.Namespace, pod.Name, gang.GroupLabel)
		}
		var gpus int64
		for _, ctr := range pod.Spec.Containers {
			if q, ok := ctr.Resources.Requests[controlplane.GPU]; ok {
				gpus += q.Value()
			}
		}
		out = append(out, placement.PodState{Name: pod.Name, Gang: name, Node: pod.Spec.NodeName, GPUs: gpus})
	}
	return out, nil
}
