// Package gangstate holds what MusterGang and MusterTopology share within one
// scheduler profile: leadership, the domains room may be held in for
// starving gangs, the nodes booked for gangs, and MusterGang's queueing hint
// for freed room. A Set is built once where the plugins are registered
// (plugins.New) and handed to both factories, so nothing is kept
// process-wide: two schedulers in one process, or two profiles, share
// nothing, and a scheduler's state goes with it.
//
// The plugins' writers (gang status, pod marks, ProvisioningRequests) are
// controllers: a factory builds its writer and adds it to the State, and
// whoever runs the scheduler runs them beside it (Set.RunControllers), as
// scheduler-plugins runs its PodGroup controller beside its scheduler. A
// plugin's constructor starts no loop of its own.
package gangstate

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/muster-project/muster/pkg/apis/config"
	"github.com/muster-project/muster/pkg/capacity"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/podpatch"
)

// Set hands each profile's Muster plugins one State, and runs the
// controllers they add.
type Set struct {
	mu     sync.Mutex
	states map[fwk.Handle]*State
	// run is RunControllers' context, nil until it is called: controllers
	// added before wait in pending.
	run     context.Context
	pending []controller
	running sync.WaitGroup
}

// controller is a writer's loop, added by the plugin that built it: run
// until ctx (the plugin's, which ends with its scheduler) ends.
type controller struct {
	ctx  context.Context
	name string
	run  func(context.Context)
}

// NewSet returns an empty Set: one per scheduler.
func NewSet() *Set { return &Set{states: map[fwk.Handle]*State{}} }

// RunControllers runs every controller the plugins of s's profiles add,
// those added already and those added later (a scheduler built afterwards,
// as scheduler_perf builds one per workload), each until its plugin's
// context or ctx ends. It returns once ctx has ended and every controller
// has returned. It may be called once.
func (s *Set) RunControllers(ctx context.Context) {
	s.mu.Lock()
	if s.run != nil {
		s.mu.Unlock()
		panic("gangstate: RunControllers called twice on one Set")
	}
	s.run = ctx
	for _, c := range s.pending {
		s.start(c)
	}
	s.pending = nil
	s.mu.Unlock()
	<-ctx.Done()
	s.running.Wait()
}

// ControllersPending counts the controllers added that no RunControllers
// runs yet.
func (s *Set) ControllersPending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pending)
}

func (s *Set) add(c controller) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.run == nil {
		s.pending = append(s.pending, c)
		return
	}
	s.start(c)
}

// start runs c until its own context or the runner's ends; s.mu held.
func (s *Set) start(c controller) {
	ctx, cancel := context.WithCancel(c.ctx)
	stop := context.AfterFunc(s.run, cancel)
	klog.FromContext(ctx).V(2).Info("Starting Muster controller", "controller", c.name)
	s.running.Add(1)
	go func() {
		defer s.running.Done()
		defer stop()
		defer cancel()
		c.run(ctx)
	}()
}

// Lookup is the State of the profile with handle h; false when no Muster
// plugin was built for it.
func (s *Set) Lookup(h fwk.Handle) (*State, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.states[h]
	return st, ok
}

// For is the State of the profile with handle h (the framework hands every
// plugin of a profile the same handle); the first plugin built makes it.
func (s *Set) For(h fwk.Handle) *State {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.states[h]
	if !ok {
		st = &State{set: s}
		s.states[h] = st
	}
	return st
}

// State is one profile's shared state. Each part is set by the plugin that
// owns it and read by the other; a nil State (a plugin built by hand in a
// unit test) leads, and shares nothing.
type State struct {
	set     *Set
	leading Leadership

	mu        sync.RWMutex
	domain    func(gang.Key) (func(*v1.Node) bool, bool)
	booked    func() map[string]gang.Key
	nodesMay  func(gang.Key) (bool, string)
	never     func(gang.Key) (string, time.Time, bool)
	beyond    func(gang.Key) bool
	roomFreed fwk.QueueingHintFn
	status    StatusWriter
	requests  RequestWriter
	marks     *podpatch.Writer
	evicting  func() []*v1.Pod
	shapes    *capacity.Shapes
	gate      *Gate
	gateOn    atomic.Bool
}

// Gate is MusterGang's queue gate as MusterGangGate serves it (ShareGate).
type Gate struct {
	// Judge is MusterGang's verdict on pod where only a pod can change it;
	// nil (let through) for a pod only a node can let through (a parked
	// lead), which MusterGang's own PreEnqueue gates, its events including
	// nodes.
	Judge func(ctx context.Context, pod *v1.Pod) *fwk.Status
	// Events are the pod events that can change a verdict of MusterGangGate's,
	// with MusterGang's hints: no node event, so the queue passes over the
	// members it holds when a node comes.
	Events []fwk.ClusterEventWithHint
}

// StatusWriter is MusterGang's gang status writer, as the profile's other
// plugins and the scheduler's driver use it.
type StatusWriter interface {
	// ReportCondition sets a condition of another type than Scheduled on
	// the gang's PodGroup status, written with MusterGang's own; an empty
	// reason clears it.
	ReportCondition(k gang.Key, c metav1.Condition)
	// Settled says whether all it owes the API is written.
	Settled() bool
}

// RequestWriter is MusterTopology's ProvisioningRequest writer, as the
// scheduler's driver (muster simulate, the test harness) uses it.
type RequestWriter interface {
	// Settled says whether the latest verdicts are written.
	Settled() bool
	// Syncs counts the syncs begun, and the last one ended, and the gangs
	// holding a booking.
	Syncs() (begun, done uint64, booked int)
	// Kick has it sync now rather than when its period is up.
	Kick()
	// RequestsSeen is the resource version of the last request change its
	// informer has seen, and whether it reads requests from that informer.
	RequestsSeen() (resourceVersion string, informed bool)
	// RetryNeverFits has a gang's next request, held back because no
	// pool could ever hold the gang, be due now.
	RetryNeverFits(k gang.Key)
}

// Leadership is the profile's leadership; nil (always leading) for a nil State.
func (s *State) Leadership() *Leadership {
	if s == nil {
		return nil
	}
	return &s.leading
}

// ShareDomains makes domain, MusterTopology's answer to "on which nodes may
// room be held for this starving gang", part of MusterGang's capacity plan.
func (s *State) ShareDomains(domain func(gang.Key) (func(*v1.Node) bool, bool)) {
	s.mu.Lock()
	s.domain = domain
	s.mu.Unlock()
}

// HeldDomain is the node test of the nodes room may be held on for gang k's
// GPU members, nil when MusterTopology names none.
func (s *State) HeldDomain(k gang.Key) func(*v1.Node) bool {
	if s == nil {
		return nil
	}
	s.mu.RLock()
	domain := s.domain
	s.mu.RUnlock()
	if domain == nil {
		return nil
	}
	in, ok := domain(k)
	if !ok {
		return nil
	}
	return in
}

// ShareBookings makes booked, the nodes the autoscaler added for each gang
// by lower-case provider ID (MusterTopology's ProvisioningRequest writer),
// part of MusterGang's capacity plan.
func (s *State) ShareBookings(booked func() map[string]gang.Key) {
	s.mu.Lock()
	s.booked = booked
	s.mu.Unlock()
}

// Booked returns the nodes booked per gang by provider ID; nil when none.
func (s *State) Booked() map[string]gang.Key {
	if s == nil {
		return nil
	}
	s.mu.RLock()
	booked := s.booked
	s.mu.RUnlock()
	if booked == nil {
		return nil
	}
	return booked()
}

// ShareEvicting makes evicting, the members MusterGang evicted to make
// room that it has not yet seen deleted, readable by the scheduler's
// driver (Evicting).
func (s *State) ShareEvicting(evicting func() []*v1.Pod) {
	s.mu.Lock()
	s.evicting = evicting
	s.mu.Unlock()
}

// Evicting lists the pods MusterGang evicted and has not yet seen deleted;
// nil when none.
func (s *State) Evicting() []*v1.Pod {
	if s == nil {
		return nil
	}
	s.mu.RLock()
	evicting := s.evicting
	s.mu.RUnlock()
	if evicting == nil {
		return nil
	}
	return evicting()
}

// ShareNodesMayCome makes may, the ProvisioningRequest writer's answer to
// "may new nodes still come for this gang" (provisioning.Writer.NodesMayCome),
// what MusterGang's provision-or-preempt waits on.
func (s *State) ShareNodesMayCome(may func(gang.Key) (bool, string)) {
	s.mu.Lock()
	s.nodesMay = may
	s.mu.Unlock()
}

// NodesMayCome says whether new nodes may still come for gang k, and why
// not; known is false when the profile writes no ProvisioningRequests.
func (s *State) NodesMayCome(k gang.Key) (may bool, why string, known bool) {
	if s == nil {
		return false, "", false
	}
	s.mu.RLock()
	f := s.nodesMay
	s.mu.RUnlock()
	if f == nil {
		return false, "", false
	}
	may, why = f(k)
	return may, why, true
}

// ShareNeverFits makes never, the ProvisioningRequest writer's answer to
// "did the autoscaler find that no pool can ever hold this gang, and is its
// next request not due yet" (provisioning.Writer.NeverFits), what
// MusterGang parks a gang's lead on.
func (s *State) ShareNeverFits(never func(gang.Key) (string, time.Time, bool)) {
	s.mu.Lock()
	s.never = never
	s.mu.Unlock()
}

// NeverFits says whether the autoscaler found that no pool can hold gang
// k, and its next request is not due yet: why, and when it is due.
func (s *State) NeverFits(k gang.Key) (why string, due time.Time, never bool) {
	if s == nil {
		return "", time.Time{}, false
	}
	s.mu.RLock()
	f := s.never
	s.mu.RUnlock()
	if f == nil {
		return "", time.Time{}, false
	}
	return f(k)
}

// ShareBeyondDomains makes beyond, MusterTopology's answer to "does no
// domain of this gang's required level hold its GPU members, its nodes
// empty", part of MusterGang's test of a gang larger than the cluster.
func (s *State) ShareBeyondDomains(beyond func(gang.Key) bool) {
	s.mu.Lock()
	s.beyond = beyond
	s.mu.Unlock()
}

// BeyondDomains says whether MusterTopology's last look at gang k found no
// domain of its required level that holds its GPU members, its nodes empty.
func (s *State) BeyondDomains(k gang.Key) bool {
	if s == nil {
		return false
	}
	s.mu.RLock()
	f := s.beyond
	s.mu.RUnlock()
	return f != nil && f(k)
}

// ShareRoomFreed makes hint, MusterGang's queueing hint for a gang member
// when a pod leaves or a node comes, the one other plugins requeue gang
// members through: a gang whose quorum is not placed is then retried
// through its attempt lead alone, where any plugin saying Queue would
// requeue every member.
func (s *State) ShareRoomFreed(hint fwk.QueueingHintFn) {
	s.mu.Lock()
	s.roomFreed = hint
	s.mu.Unlock()
}

// RoomFreed is MusterGang's hint (ShareRoomFreed); false when the profile
// runs no MusterGang.
func (s *State) RoomFreed() (fwk.QueueingHintFn, bool) {
	if s == nil {
		return nil, false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.roomFreed, s.roomFreed != nil
}

// ServeGate says the profile runs MusterGangGate, so MusterGang's own
// PreEnqueue gates only what a node can change.
func (s *State) ServeGate() { s.gateOn.Store(true) }

// GateServed says whether the profile runs MusterGangGate.
func (s *State) GateServed() bool { return s != nil && s.gateOn.Load() }

// ShareGate makes g, MusterGang's gate, the one MusterGangGate serves.
func (s *State) ShareGate(g Gate) {
	s.mu.Lock()
	s.gate = &g
	s.mu.Unlock()
}

// Gate is MusterGang's gate (ShareGate); false when the profile runs no
// MusterGang.
func (s *State) Gate() (Gate, bool) {
	if s == nil {
		return Gate{}, false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.gate == nil {
		return Gate{}, false
	}
	return *s.gate, true
}

// ShareStatus makes w the profile's gang status writer (MusterGang's).
func (s *State) ShareStatus(w StatusWriter) {
	s.mu.Lock()
	s.status = w
	s.mu.Unlock()
}

// ReportCondition sets a condition on the gang's status through the
// profile's status writer; false when the profile runs no MusterGang.
func (s *State) ReportCondition(k gang.Key, c metav1.Condition) bool {
	w := s.statusWriter()
	if w == nil {
		return false
	}
	w.ReportCondition(k, c)
	return true
}

func (s *State) statusWriter() StatusWriter {
	if s == nil {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.status
}

// ShareRequests makes w the profile's ProvisioningRequest writer
// (MusterTopology's, when the API server serves ProvisioningRequests).
func (s *State) ShareRequests(w RequestWriter) {
	s.mu.Lock()
	s.requests = w
	s.mu.Unlock()
}

// Requests is the profile's ProvisioningRequest writer; false when it runs none.
func (s *State) Requests() (RequestWriter, bool) {
	if s == nil {
		return nil, false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.requests, s.requests != nil
}

// WritesPending names what the profile's Muster plugins still owe the API
// ("" when nothing): gang status and pod marks, or, with hints, the
// ProvisioningRequests of verdicts set since the hint writer's last sync.
func (s *State) WritesPending(hints bool) string {
	if w := s.statusWriter(); w != nil && !w.Settled() {
		return "MusterGang's gang status and pod marks"
	}
	if hints && s.HintsOwed() {
		return "MusterTopology's ProvisioningRequests"
	}
	return ""
}

// RetryNeverFits has the profile's ProvisioningRequest writer retry gang k
// at once if it holds back the gang's request because no pool could ever
// hold it: the gang's PodGroup changed (a smaller quorum may fit), and the
// autoscaler's answer was about the gang as it was.
func (s *State) RetryNeverFits(k gang.Key) {
	if w, ok := s.Requests(); ok {
		w.RetryNeverFits(k)
	}
}

// HintsOwed says whether the profile's ProvisioningRequest writer owes a
// sync for a verdict set since its last (RequestWriter.Settled).
func (s *State) HintsOwed() bool {
	w, ok := s.Requests()
	return ok && !w.Settled()
}

// Shapes is the profile's one cache of waiting members' shapes, which both
// plugins' plans read: the first call makes it and has it forget a member
// once pods, the scheduler's pod informer, sees it placed or deleted (a
// shape holds the waiting pod, its Example, for the ProvisioningRequest
// template: kept past the bind it would be a second copy of every running
// member). gpu, when not empty, names the GPU resource the shapes count
// (MusterTopology's gpuResourceName); MusterGang passes "" and reads the
// same shapes. A nil State gives a cache of the caller's own.
func (s *State) Shapes(pods cache.SharedIndexInformer, gpu v1.ResourceName) (*capacity.Shapes, error) {
	if s == nil {
		return watchShapes(pods, gpu)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shapes == nil {
		c, err := watchShapes(pods, gpu)
		if err != nil {
			return nil, err
		}
		s.shapes = c
	}
	if gpu != "" {
		s.shapes.SetGPU(gpu)
	}
	return s.shapes, nil
}

func watchShapes(pods cache.SharedIndexInformer, gpu v1.ResourceName) (*capacity.Shapes, error) {
	if gpu == "" {
		gpu = config.DefaultGPUResourceName
	}
	c := capacity.NewShapes(gpu)
	store := pods.GetStore()
	c.KeepOnlyLive(func(pod *v1.Pod) bool {
		o, ok, err := store.Get(pod)
		if err != nil || !ok {
			return false
		}
		p, isPod := o.(*v1.Pod)
		return isPod && p.UID == pod.UID && p.Spec.NodeName == ""
	})
	if _, err := pods.AddEventHandler(ShapesHandler(c)); err != nil {
		return nil, fmt.Errorf("watching pods for members' shapes: %w", err)
	}
	return c, nil
}

// ShapesHandler has c forget a member once it is placed or deleted. It
// forgets on every update of a placed pod, not only the bind, so a shape
// read from a lagging copy after the bind goes too.
func ShapesHandler(c *capacity.Shapes) cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, obj any) {
			if pod, ok := obj.(*v1.Pod); ok && pod.Spec.NodeName != "" {
				c.Forget(pod.UID)
			}
		},
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			if pod, ok := obj.(*v1.Pod); ok {
				c.Forget(pod.UID)
			}
		},
	}
}

// AddController hands the scheduler's runner (Set.RunControllers) a
// writer's loop to run until ctx, the plugin's context, ends. A nil State
// (a plugin built by hand in a unit test) runs nothing: the test drives
// the writer itself.
func (s *State) AddController(ctx context.Context, name string, run func(context.Context)) {
	if s == nil || s.set == nil {
		return
	}
	s.set.add(controller{ctx: ctx, name: name, run: run})
}

// Marks is the profile's one pod writer, so that every plugin of the
// profile marks pods through one client and one rate limit, whichever is
// built first. The first call builds it, from cfg or, without one, on
// client, and adds its loop as a controller running until ctx ends.
func (s *State) Marks(ctx context.Context, cfg *rest.Config, client kubernetes.Interface) (*podpatch.Writer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.marks != nil {
		return s.marks, nil
	}
	// One writer only: each starts its queue's goroutines when built, and
	// only the one that runs shuts them down.
	var w *podpatch.Writer
	if cfg != nil {
		var err error
		if w, err = podpatch.New(cfg); err != nil {
			return nil, err
		}
	} else {
		w = podpatch.NewForClient(client)
	}
	s.marks = w
	s.AddController(ctx, "pod marks", func(ctx context.Context) { w.Run(ctx, 2) })
	return w, nil
}
