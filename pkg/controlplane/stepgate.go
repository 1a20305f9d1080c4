// The stepped scheduler: StepGate holding the queue (Hold, Release), Caught, the barrier before a pop.

package controlplane

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/utils/clock"
)

// StepGateName is the PreEnqueue plugin that holds the scheduling queue
// while a stepped replay makes a step's changes (Scheduler.Hold): every
// scheduler an Env starts registers it, and StartSteppedScheduler
// enables it.
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

	// serial turns on the barrier before each pop (StartSteppedScheduler);
	// placed is the cache's pod count the last barrier saw (only the
	// scheduling goroutine reads and writes it).
	serial atomic.Bool
	placed int

	// releases are when Release let the held pods in: SteppedPrioritySort
	// reads the queue's stamps by them.
	releases releases

	// groups is set for a scheduler with upstream gang scheduling on
	// (StartSteppedKubeScheduler on a control plane serving the Workload
	// API). Upstream puts a pod group whose attempt failed in its backoff
	// queue with no rejecting plugin, whatever the failure, so no event
	// wakes it and it is retried whenever its wall-time backoff ends,
	// forever: such a queue is never quiet. So Release also activates the
	// pods backing off, and Quiet counts only those not attempted since
	// the last Release (attempted, the pods the scheduler popped since,
	// cleared by each Release): the group has then been tried with
	// the step's changes, and until the next step's it fails the same way.
	groups    bool
	attempted map[types.UID]struct{}
}

// popped records that the scheduler took pods from its queue.
func (g *stepGate) popped(pods []*v1.Pod) {
	if !g.groups {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, p := range pods {
		g.attempted[p.UID] = struct{}{}
	}
}

// triedSinceRelease says whether the scheduler took pod from its queue
// since the last Release.
func (g *stepGate) triedSinceRelease(pod *v1.Pod) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, ok := g.attempted[pod.UID]
	return ok
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
// how many. SteppedPrioritySort counts the pods the queue stamped before
// a release (added while held, or failed earlier) ahead of those it
// stamps after.
func (s *Scheduler) Release() int {
	s.gate.mu.Lock()
	s.gate.releases.mark(time.Now())
	s.gate.held = false
	clear(s.gate.attempted) // what was tried before this release is not news
	pods := make(map[string]*v1.Pod, len(s.gate.gated))
	for _, p := range s.gate.gated {
		pods[p.Namespace+"/"+p.Name] = p
	}
	clear(s.gate.gated)
	s.gate.mu.Unlock()
	released := len(pods)
	if s.gate.groups {
		if b, ok := s.sched.SchedulingQueue.(interface{ PodsInBackoffQ() []*v1.Pod }); ok {
			for _, p := range b.PodsInBackoffQ() {
				pods[p.Namespace+"/"+p.Name] = p
			}
		}
	}
	if len(pods) > 0 {
		s.sched.SchedulingQueue.Activate(klog.Background(), pods)
	}
	return released
}

// CaughtUp lists the nodes and pods (both at once: each waits for the API
// server's watch cache to reach etcd's latest revision, which is most of
// its time) and says whether the scheduler has seen them all (Caught) and
// every pod passes also (nil: any), and why not. err is a listing's error.
func (s *Scheduler) CaughtUp(ctx context.Context, c kubernetes.Interface, also func(*v1.Pod) (bool, string)) (ok bool, why string, err error) {
	var (
		nodes    *v1.NodeList
		nodesErr error
		listed   sync.WaitGroup
	)
	listed.Go(func() { nodes, nodesErr = c.CoreV1().Nodes().List(ctx, metav1.ListOptions{}) })
	pods, podsErr := c.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	listed.Wait()
	if err := errors.Join(nodesErr, podsErr); err != nil {
		return false, "", err
	}
	if also != nil {
		for i := range pods.Items {
			if ok, why := also(&pods.Items[i]); !ok {
				return false, why, nil
			}
		}
	}
	ok, why = s.Caught(nodes.Items, pods.Items)
	return ok, why, nil
}

// Caught says whether the scheduler has seen what the API server holds
// (nodes and pods, as listed): every node in its cache as listed (its
// resourceVersion: a node registered and then made ready is two changes),
// as many pods placed (its cache holds them and the pods it assumed), and
// every pending pod of its profiles in its queue. A stepped replay
// releases the queue only then, so that no change made while it was held
// reaches the scheduler after the others were scheduled. (Counting nodes
// was not enough: beside a CPU hog a node's taint removal reached the
// scheduler after the release, the pods tried first found no room, and
// pods tried later took the node.)
func (s *Scheduler) Caught(nodes []v1.Node, pods []v1.Pod) (bool, string) {
	if n := s.sched.Cache.NodeCount(); n != len(nodes) {
		return false, fmt.Sprintf("%d of %d nodes in the scheduler's cache", n, len(nodes))
	}
	cached := s.sched.Cache.Dump().Nodes
	for i := range nodes {
		n := &nodes[i]
		if ni := cached[n.Name]; ni == nil || ni.Node() == nil || ni.Node().ResourceVersion != n.ResourceVersion {
			return false, fmt.Sprintf("node %s at resourceVersion %s not yet in the scheduler's cache", n.Name, n.ResourceVersion)
		}
	}
	placed := 0
	var pending []*v1.Pod
	for i := range pods {
		p := &pods[i]
		switch {
		case p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed:
			// The scheduler watches only pods that have not ended.
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

// StartSteppedScheduler is StartSchedulerOn for a stepped replay: the
// config readied by stepped, and before each pod it takes from its queue
// the scheduler waits until what it did with the last one has played out
// (beforePop), and of equally scored nodes it takes the first in name
// order (byNodeName).
func (e *Env) StartSteppedScheduler(ctx context.Context, config string, c clock.WithDelayedExecution) (*Scheduler, error) {
	s, err := e.StartSchedulerOn(ctx, stepped(config), c)
	if err == nil {
		s.gate.serial.Store(true)
	}
	return s, err
}

// popBarrierTimeout bounds one barrier before a pop; past it the pop goes on.
const popBarrierTimeout = 10 * time.Second

// beforePop is a stepped scheduler's barrier before each pop: when a pod
// was placed, bound or gone since the last one, it waits until the pods
// the scheduler let through Permit are bound and seen bound, and, while a
// gang holds a booking, until Muster's hint writer has synced since (a gang
// bound ends its booking, which wakes pending GPU pods). Without it, when
// the bind of one pod reaches the scheduler's informer, and so what that
// wakes, depends on timing: a stepped replay would schedule a half step's
// pods in an order that changes from run to run. The plugins' status
// writes are not waited for here: they change no pod's place in the
// queue, and a step waits for them before it ends.
//
// First, whether or not a pod was placed, it waits until the members
// MusterGang evicted to make room (Muster.Evicting) are gone from the
// scheduler's cache: they hold their nodes until then, and the simulator,
// playing the kubelet, deletes them at once; without the wait, which of
// the freed nodes a preempting gang's members took followed how many
// deletions had come in by each attempt.
func (s *Scheduler) beforePop(ctx context.Context) {
	if !s.gate.serial.Load() {
		return
	}
	deadline := time.Now().Add(popBarrierTimeout)
	wait := func(done func() bool) bool {
		for !done() {
			if ctx.Err() != nil || time.Now().After(deadline) {
				return false
			}
			time.Sleep(500 * time.Microsecond)
		}
		return true
	}
	var evicted []*v1.Pod
	for _, f := range s.sched.Profiles {
		evicted = append(evicted, s.muster.Evicting(f)...)
	}
	if len(evicted) > 0 && !wait(func() bool { return s.evictedGone(evicted) }) {
		return
	}
	// A pod the last cycle let through Permit was assumed then, which
	// changed the count; nothing to wait for while it stays the same.
	placed, err := s.sched.Cache.PodCount()
	if err != nil || placed == s.gate.placed {
		return
	}
	s.gate.placed = placed
	if !wait(func() bool { return s.binding() == 0 }) {
		return
	}
	for _, f := range s.sched.Profiles {
		begun, _, booked, ok := s.muster.HintSyncs(f)
		if !ok || booked == 0 {
			continue
		}
		s.muster.KickHints(f) // a stepped replay's writer syncs when kicked
		if !wait(func() bool { _, done, _, _ := s.muster.HintSyncs(f); return done > begun }) {
			return
		}
	}
}

// evictedGone says whether Muster's plugins have seen every pod they
// evicted deleted and the scheduler's cache no longer holds evicted.
func (s *Scheduler) evictedGone(evicted []*v1.Pod) bool {
	for _, f := range s.sched.Profiles {
		if len(s.muster.Evicting(f)) > 0 {
			return false
		}
	}
	for _, p := range evicted {
		if _, err := s.sched.Cache.GetPod(p); err == nil {
			return false
		}
	}
	return true
}

// HintSyncs adds up Muster.HintSyncs over the scheduler's profiles: the
// ProvisioningRequest syncs its Muster plugins began, those that ended
// (counted by when they began) and the gangs holding bookings; done is 1
// where none writes hints, so that a caller waiting for done to pass begun
// does not wait.
func (s *Scheduler) HintSyncs() (begun, done uint64, booked int) {
	any := false
	for _, f := range s.sched.Profiles {
		if b, d, n, ok := s.muster.HintSyncs(f); ok {
			begun, done, booked, any = begun+b, done+d, booked+n, true
		}
	}
	if !any {
		return 0, 1, 0
	}
	return begun, done, booked
}

// HintsSawRequests says whether every Muster hint writer that reads
// ProvisioningRequests from an informer has seen the change at resource
// version rv: a sync kicked after that reads it.
func (s *Scheduler) HintsSawRequests(rv int64) bool {
	for _, f := range s.sched.Profiles {
		seen, informed := s.muster.HintRequestsSeen(f)
		if !informed {
			continue
		}
		if v, err := strconv.ParseInt(seen, 10, 64); err != nil || v < rv {
			return false
		}
	}
	return true
}

// KickHints has Muster's hint writers sync now (Muster.KickHints).
func (s *Scheduler) KickHints() {
	for _, f := range s.sched.Profiles {
		s.muster.KickHints(f)
	}
}

// binding counts the pods the scheduler assumed on a node that are not
// waiting at Permit: on their way to bind, or bound and not yet seen so.
func (s *Scheduler) binding() int {
	assumed := s.sched.Cache.Dump().AssumedPods
	if assumed.Len() == 0 {
		return 0
	}
	for _, f := range s.sched.Profiles {
		f.IterateOverWaitingPods(func(wp fwk.WaitingPod) { assumed.Delete(string(wp.GetPod().UID)) })
	}
	return assumed.Len()
}

var profileLine = regexp.MustCompile(`(?m)^- schedulerName: .*\n`)

// stepped readies a KubeSchedulerConfiguration for a stepped replay: nodes
// filtered and scored one at a time (parallelism 1: in parallel, which of
// several equally scored nodes a pod gets depends on which goroutine
// finished first), the StepGate PreEnqueue plugin in every profile, and in
// a profile with no plugins of its own (upstream's default, which
// preempts) SteppedPreemption in place of DefaultPreemption and
// SteppedPrioritySort in place of PrioritySort.
func stepped(config string) string {
	config = strings.Replace(config, "kind: KubeSchedulerConfiguration\n", "kind: KubeSchedulerConfiguration\nparallelism: 1\n", 1)
	gate := "{name: " + StepGateName + "}"
	if strings.Contains(config, "    preEnqueue:\n      enabled: [") {
		return strings.ReplaceAll(config, "    preEnqueue:\n      enabled: [", "    preEnqueue:\n      enabled: ["+gate+", ")
	}
	return profileLine.ReplaceAllStringFunc(config, func(line string) string {
		return line + "  plugins:\n    preEnqueue:\n      enabled: [" + gate + "]\n" +
			"    multiPoint:\n      enabled: [{name: " + SteppedPreemptionName + "}, {name: " + SteppedPrioritySortName + "}]\n" +
			"      disabled: [{name: DefaultPreemption}, {name: PrioritySort}]\n"
	})
}
