package harness

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
)

// StepGateName is the PreEnqueue plugin that holds the scheduling queue
// while a stepped replay makes a step's changes (Scheduler.Hold): every
// scheduler the harness starts registers it, and Stepped enables it.
const StepGateName = "StepGate"

// stepGate keeps pods out of the active and backoff queues while held and
// remembers them, so that Release lets them all in at once: the pods a step
// creates, and those its new nodes or ended jobs wake, are then ordered by
// the queue as one batch, instead of the first change's pods being
// scheduled before the later changes land (which depends on timing).
type stepGate struct {
	mu    sync.Mutex
	held  bool
	gated map[types.UID]*v1.Pod
}

func (g *stepGate) Name() string { return StepGateName }

func (g *stepGate) PreEnqueue(_ context.Context, pod *v1.Pod) *fwk.Status {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.held {
		delete(g.gated, pod.UID)
		return nil
	}
	g.gated[pod.UID] = pod
	return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "held while the simulator makes a trace step's changes")
}

// factory is the gate as a plugin of every profile that enables it.
func (g *stepGate) factory(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) {
	return g, nil
}

// Hold keeps every pod that enters the scheduling queue from now on out of
// it until Release. Call it while the scheduler is quiet (Quiet): a pod
// already queued is not held.
func (s *Scheduler) Hold() {
	s.gate.mu.Lock()
	defer s.gate.mu.Unlock()
	s.gate.held = true
}

// Release lets the pods held since Hold into the queue at once and returns
// how many.
func (s *Scheduler) Release() int {
	s.gate.mu.Lock()
	s.gate.held = false
	pods := make(map[string]*v1.Pod, len(s.gate.gated))
	for _, p := range s.gate.gated {
		pods[p.Namespace+"/"+p.Name] = p
	}
	clear(s.gate.gated)
	s.gate.mu.Unlock()
	if len(pods) > 0 {
		s.sched.SchedulingQueue.Activate(klog.Background(), pods)
	}
	return len(pods)
}

// Caught says whether the scheduler has seen what the API server holds
// (nodes and pods, as listed): as many nodes in its cache, as many pods
// placed (its cache holds them and the pods it assumed), and every pending
// pod of its profiles in its queue. A stepped replay releases the queue
// only then, so that no change made while it was held reaches the
// scheduler after the others were scheduled.
func (s *Scheduler) Caught(nodes []v1.Node, pods []v1.Pod) (bool, string) {
	if n := s.sched.Cache.NodeCount(); n != len(nodes) {
		return false, fmt.Sprintf("%d of %d nodes in the scheduler's cache", n, len(nodes))
	}
	placed := 0
	var pending []*v1.Pod
	for i := range pods {
		p := &pods[i]
		switch {
		case p.Spec.NodeName != "":
			placed++
		case p.DeletionTimestamp == nil && s.sched.Profiles[p.Spec.SchedulerName] != nil:
			pending = append(pending, p)
		}
	}
	if n, err := s.sched.Cache.PodCount(); err != nil || n != placed {
		return false, fmt.Sprintf("%d of %d placed pods in the scheduler's cache", n, placed)
	}
	queued, _ := s.sched.SchedulingQueue.PendingPods()
	in := make(map[types.UID]bool, len(queued))
	for _, p := range queued {
		in[p.UID] = true
	}
	for _, p := range s.sched.SchedulingQueue.InFlightPods() {
		in[p.UID] = true
	}
	for _, p := range pending {
		if !in[p.UID] {
			return false, fmt.Sprintf("pod %s/%s not yet in the scheduler's queue", p.Namespace, p.Name)
		}
	}
	return true, ""
}

var profileLine = regexp.MustCompile(`(?m)^- schedulerName: .*\n`)

// Stepped readies a KubeSchedulerConfiguration for a stepped replay: nodes
// filtered and scored one at a time (parallelism 1: in parallel, which of
// several equally scored nodes a pod gets depends on which goroutine
// finished first) and the StepGate PreEnqueue plugin in every profile.
func Stepped(config string) string {
	config = strings.Replace(config, "kind: KubeSchedulerConfiguration\n", "kind: KubeSchedulerConfiguration\nparallelism: 1\n", 1)
	gate := "{name: " + StepGateName + "}"
	if strings.Contains(config, "    preEnqueue:\n      enabled: [") {
		return strings.ReplaceAll(config, "    preEnqueue:\n      enabled: [", "    preEnqueue:\n      enabled: ["+gate+", ")
	}
	return profileLine.ReplaceAllStringFunc(config, func(line string) string {
		return line + "  plugins:\n    preEnqueue:\n      enabled: [" + gate + "]\n"
	})
}
