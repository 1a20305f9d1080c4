// Replays on a stepped trace clock: the stepper, gangs' work accrued, settling and catching up.

package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	corev1 "k8s.io/api/core/v1"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	utilclock "k8s.io/utils/clock"

	autoscalingv1 "github.com/muster-project/muster/pkg/apis/autoscaling/v1"
	"github.com/muster-project/muster/pkg/controlplane"
	"github.com/muster-project/muster/pkg/simulate"
)

// traceClock is the trace time the watcher plays the jobs on: wall time
// scaled by --minute (clock, muster chaos) or the simulator's stepped clock.
type traceClock interface {
	// now is the trace time since the trace started.
	now() time.Duration
	// afterFunc runs f once d of trace time has passed.
	afterFunc(d time.Duration, f func())
	// stamp is the time a kubelet would write on an object now, on the
	// clock the schedulers read: wall time, or the stepped clock's.
	stamp() time.Time
}

func (c clock) afterFunc(d time.Duration, f func()) { time.AfterFunc(c.wall(d), f) }
func (c clock) stamp() time.Time                    { return time.Now() }

// steppedClock is a simulate.StepClock read as trace time since start.
type steppedClock struct {
	c     *simulate.StepClock
	start time.Time
}

func (s steppedClock) now() time.Duration                  { return s.c.Since(s.start) }
func (s steppedClock) afterFunc(d time.Duration, f func()) { s.c.AfterFunc(d, f) }
func (s steppedClock) stamp() time.Time                    { return s.c.Now() }

// traceEpoch is where a stepped trace clock starts: an hour after the wall
// time it is made, so that it never runs behind the wall-time stamps the API
// server puts on objects (the autoscaler would take every pod for a young one
// to wait for) and always reads later than any of them.
func traceEpoch() time.Time { return time.Now().Add(time.Hour).Truncate(time.Second) }

// gangWork accrues running gangs' work on a stepped trace clock. A gang's
// workers change only while a step settles, so each step credits every
// running gang with its workers' time since the last (accrue), and once the
// step has settled each gang's end is set at what it has left at its
// workers now (plan).
type gangWork struct {
	w       *watcher
	clk     *simulate.StepClock
	running map[string]*gangRun
}

type gangRun struct {
	job        simulate.Job
	gen        int
	done, last time.Duration
	timer      utilclock.Timer
	finish     func()
}

// start begins a gang's run at now; w.mu is held.
func (g *gangWork) start(j simulate.Job, gen int, now time.Duration, finish func()) {
	if old := g.running[j.Name]; old != nil && old.timer != nil {
		old.timer.Stop()
	}
	r := &gangRun{job: j, gen: gen, last: now, finish: finish}
	g.running[j.Name] = r
	g.planLocked(r)
}

// accrue credits each running gang with its workers' time up to now.
func (g *gangWork) accrue(now time.Duration) {
	g.w.mu.Lock()
	defer g.w.mu.Unlock()
	for name, r := range g.running {
		if g.w.gen[name] != r.gen {
			g.stopLocked(name, r) // fell below min: it starts afresh
			continue
		}
		_, most := r.job.Workers()
		r.done += (now - r.last) * time.Duration(min(g.w.runningWorkersLocked(r.job), most))
		r.last = now
	}
}

// plan sets each running gang's end by its workers now.
func (g *gangWork) plan() {
	g.w.mu.Lock()
	defer g.w.mu.Unlock()
	for name, r := range g.running {
		if g.w.gen[name] != r.gen {
			g.stopLocked(name, r)
			continue
		}
		g.planLocked(r)
	}
}

func (g *gangWork) stopLocked(name string, r *gangRun) {
	if r.timer != nil {
		r.timer.Stop()
	}
	delete(g.running, name)
}

func (g *gangWork) planLocked(r *gangRun) {
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
	_, most := r.job.Workers()
	workers := time.Duration(min(g.w.runningWorkersLocked(r.job), most))
	if workers == 0 {
		return
	}
	left := max(r.job.Work()-r.done, 0)
	r.timer = g.clk.AfterFunc((left+workers-1)/workers, func() { g.end(r) })
}

// end runs when a gang's work should be done: the step accrued it up to now.
func (g *gangWork) end(r *gangRun) {
	g.w.mu.Lock()
	if g.running[r.job.Name] != r {
		g.w.mu.Unlock()
		return
	}
	if r.done < r.job.Work() {
		g.planLocked(r)
		g.w.mu.Unlock()
		return
	}
	delete(g.running, r.job.Name)
	g.w.mu.Unlock()
	r.finish()
}

// stepper drives one replay on a stepped trace clock. Each step fires what
// is due (arrivals, runs ending, reclaims, the plugins' timers), has the
// cloud's node agent register what booted, waits until the system is quiet,
// runs one autoscaler loop, has the node agent catch up with what the
// autoscaler did, and waits again. The next step comes --step later while
// things move, or, after a step in which nothing did, at the next thing due
// (at most idleJump on, so that the autoscaler still sees idle nodes age).
type stepper struct {
	env   *controlplane.Env
	sched *controlplane.Scheduler
	// stored reads the stored nodes and pods the scheduler must have seen
	// (caughtUp), decoding only what changed since its last read.
	stored *controlplane.StoredReader
	// events is the clock the trace's own events are timed on (runs
	// ending, reclaims): a step comes when one is due. The components'
	// timers (a gang's backoff, say) run on clk, stepped with it: they
	// fire on the step that passes them, as a retry every few seconds
	// would not change what a step settles to.
	events, clk *simulate.StepClock
	start       time.Time
	// cloudSync is armlocal's POST /sync, autoscalerRun the autoscaler's
	// POST /run-once.
	cloudSync, autoscalerRun string
	// clockPushes are the POST /clock of the processes on the trace clock
	// (armlocal, the autoscaler): each step's time is pushed to them as
	// the clock moves, not read by them over HTTP for every call they
	// serve or make (tens a step).
	clockPushes []string
	http        *http.Client
	// window is how long nothing must change for the system to be quiet.
	window time.Duration
	// workloads: Kueue runs, and its Workloads count as changes.
	workloads bool
	// spent is wall time by phase of a step, for the progress line.
	spent map[string]time.Duration
	// flushed is when unschedulable pods were last retried.
	flushed time.Time
	// lastChange is the wall time (Unix ns) of the last change watchChanges
	// saw, lastRequestChange of the last to a ProvisioningRequest.
	lastChange, lastRequestChange atomic.Int64
	// seenRevision is the newest resourceVersion among the changes
	// watchChanges saw: a step is settled only once nothing it watches
	// was written after it (the storage says so), so that a write still
	// on its way to the watches is waited for however slow the machine.
	seenRevision atomic.Int64
	// requestVersion is the newest resourceVersion of a ProvisioningRequest
	// watchChanges saw; requestsSynced is the lastRequestChange a finished
	// hint sync had seen (hintsSeeRequests).
	requestVersion atomic.Int64
	requestsSynced int64
	// lateCatchUps counts half steps whose changes the scheduler had not
	// all seen within catchUpTimeout.
	lateCatchUps int
	// quietHalves counts second halves left out: the autoscaler's loop
	// and the cloud wrote nothing the scheduler reads.
	quietHalves int
	// log, when set, gets the cluster as each step left it (--step-log).
	log *stepLog
	// nodes and pods are watchChanges' informer stores; emptySince is the
	// trace time each node was first seen empty at a step (scaleDownDue).
	nodes, pods cache.Store
	emptySince  map[string]time.Duration
}

// scaleDownGrace is how long past an empty node's unneeded time the replay
// steps on without jumping: the autoscaler's count may have begun a few
// steps after the node emptied (a member still terminating, a loop
// skipped).
const scaleDownGrace = 3 * time.Minute

// scaleDownDue records, after a step at trace time now, since when each
// node has been empty, and returns when the first of them becomes
// removable: empty for the autoscaler's unneeded time, which its loop at
// the step it emptied began to count. A jump over a quiet stretch stops
// there, so an empty node goes when its unneeded time is up, as with a
// loop every few seconds, not up to a jump later: on the default trace
// four nodes freed at minute 53 went at 60 (the steps were 53, 54, 55, 60),
// where the same unneeded time took six minutes on the kueue side, and the
// difference was that side's whole lead in cost. Steps come every step
// for scaleDownGrace after that; a node kept longer (needed, or a delay
// after a scale-up) is jumped past as before.
func (s *stepper) scaleDownDue(now, step time.Duration) (time.Duration, bool) {
	if s.nodes == nil || s.pods == nil {
		return 0, false
	}
	busy := map[string]bool{}
	for _, o := range s.pods.List() {
		if p, ok := o.(*corev1.Pod); ok && p.Spec.NodeName != "" && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			busy[p.Spec.NodeName] = true
		}
	}
	if s.emptySince == nil {
		s.emptySince = map[string]time.Duration{}
	}
	seen := map[string]bool{}
	var due time.Duration
	found := false
	for _, o := range s.nodes.List() {
		n, ok := o.(*corev1.Node)
		if !ok {
			continue
		}
		seen[n.Name] = true
		if busy[n.Name] {
			delete(s.emptySince, n.Name)
			continue
		}
		since, ok := s.emptySince[n.Name]
		if !ok {
			since = now
			s.emptySince[n.Name] = now
		}
		d := since + simUnneededTime
		if d <= now && now < d+scaleDownGrace {
			// Its loop may have begun the count a step or two after the
			// node emptied: step on while its removal is imminent.
			d = now + step
		}
		if d > now && (!found || d < due) {
			due, found = d, true
		}
	}
	for name := range s.emptySince {
		if !seen[name] {
			delete(s.emptySince, name)
		}
	}
	return due, found
}

// timed runs f and adds its wall time to phase.
func (s *stepper) timed(phase string, f func() error) error {
	began := time.Now()
	err := f()
	if s.spent == nil {
		s.spent = map[string]time.Duration{}
	}
	s.spent[phase] += time.Since(began)
	return err
}

// idleJump bounds a jump over a quiet stretch: the autoscaler's scale-down
// delay, so an idle node goes within one jump of when it would anyway.
const idleJump = simUnneededTime

// quietWindow is how long no pod, node or ProvisioningRequest may change,
// with the scheduler holding nothing, for a step to count as settled.
// Every other wait of a step is for something named (the scheduler's queue,
// Muster's writes, a hint sync, a write the step's watches have not seen:
// unseenWrites); this one only leaves the API server's other watchers
// (the scheduler's informers, the watcher's) the turn to receive what the
// step's watches did. It was 25 ms before unseenWrites, a third of a
// step's wall time.
const quietWindow = 10 * time.Millisecond

// hintSyncSteppedMillis is Muster's hint writer's period in a stepped
// replay, wall time: a backstop, as a step kicks the syncs it waits for.
const hintSyncSteppedMillis = 60_000

// settleTimeout bounds a wait for quiet (a gang at Permit waits its
// timeout, in wall time).
const settleTimeout = 3 * time.Minute

// unschedulableFlush is how often, in trace time, a step retries pods the
// scheduler found unschedulable, as its own flush does in wall time
// (podMaxInUnschedulablePodsDuration); cluster events retry them sooner.
const unschedulableFlush = 5 * time.Minute

// settle retries the scheduler's pods backing off (and every
// unschedulableFlush those found unschedulable), then waits until the
// watcher's writes are done, the scheduler holds nothing and no pod, node
// or ProvisioningRequest has changed for the quiet window.
func (s *stepper) settle(ctx context.Context, w *watcher) error {
	now := s.clk.Now()
	full := now.Sub(s.flushed) >= unschedulableFlush
	if full {
		s.flushed = now
	}
	s.sched.Flush(full)
	deadline := time.Now().Add(settleTimeout)
	since := time.Now()
	// Muster's hint writer reads ProvisioningRequests' status (what the
	// autoscaler booked) only when it syncs, and ends a booking when it
	// sees the gang's pods bound: after a change to a request, or to a pod
	// while a gang holds a booking, a step is quiet once one of its syncs
	// began after the change. Its period is long in a stepped replay
	// (hintSyncSteppedMillis): it syncs when kicked, and a step is quiet
	// only once a sync has begun after the scheduler last went quiet and
	// after the last change, and no verdict is owed a sync since.
	var seen, seenRequest int64
	var hintSync uint64
	kicked := false
	// owed: a sync is owed for a change the writers' informers had not
	// seen yet (since owedSince); kicked once they have.
	owed, owedSince := false, time.Time{}
	// unseenSince: since when the storage has held writes the watches had
	// not seen, once the system was otherwise quiet.
	var unseenSince time.Time
	for {
		w.writing.wait(ctx)
		quiet, held := s.sched.QuietButHints()
		if !quiet && s.sched.RetryUntried() > 0 {
			// An upstream pod group in flight at the release came
			// back to its backoff queue untried with the step's
			// changes: tried now, not when its backoff ends.
			quiet, held = s.sched.QuietButHints()
		}
		begun, done, booked := s.sched.HintSyncs()
		if last := s.lastChange.Load(); last != seen {
			seen, kicked = last, false
			if req := s.lastRequestChange.Load(); req != seenRequest || booked > 0 {
				seenRequest, owed, owedSince = req, true, time.Now()
			}
		}
		if owed && s.hintsSaw(ctx, owedSince) {
			// The sync owed starts now, not when the scheduler is
			// quiet.
			owed, hintSync = false, begun
			s.sched.KickHints()
		}
		switch {
		case !quiet:
			kicked = false
		case !kicked || (done > hintSync && s.sched.HintsOwed()):
			// The scheduler holds nothing: the writer syncs on what it
			// decided.
			hintSync, kicked = begun, true
			s.sched.KickHints()
		}
		if quiet && (owed || done <= hintSync) {
			quiet, held = false, "the hint writer has not synced since the last change"
		}
		now := time.Now()
		if !quiet {
			since = now
		} else if changed := time.Unix(0, seen); now.Sub(changed) >= s.window && now.Sub(since) >= s.window {
			if s.unseenWrites(ctx) {
				if unseenSince.IsZero() {
					unseenSince = now
				}
				if now.Sub(unseenSince) < catchUpTimeout {
					since = now
					continue
				}
				// A relist reports a deletion it missed with the
				// object's last resourceVersion, not the deletion's.
				s.lateCatchUps++
				klog.FromContext(ctx).Info("The step's watches did not see every write in time; going on", "minute", s.clk.Since(s.start).Minutes())
			}
			if seenRequest != 0 {
				s.requestsSynced = seenRequest // a sync begun after it has ended
			}
			return nil
		}
		if now.After(deadline) {
			return fmt.Errorf("the system did not settle within %s at trace minute %.1f: the scheduler holds %s", settleTimeout, s.clk.Since(s.start).Minutes(), held)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// unseenWrites says whether a pod, node, ProvisioningRequest (or Kueue
// Workload) was written after the newest change watchChanges saw.
func (s *stepper) unseenWrites(ctx context.Context) bool {
	written, err := s.env.WrittenSince(ctx, s.seenRevision.Load(), s.watched()...)
	if err != nil {
		klog.FromContext(ctx).V(2).Info("Settling: could not read what was written", "err", err)
	}
	return written
}

// watched are the stored resources whose changes a step settles on.
func (s *stepper) watched() []string {
	stored := []string{controlplane.StoredPods, controlplane.StoredNodes, controlplane.StoredProvisioningRequests}
	if s.workloads {
		stored = append(stored, storedWorkloads)
	}
	return stored
}

// watchChanges notes the wall time of every change to the objects that
// decide where pods run: pods, nodes and ProvisioningRequests (events, the
// autoscaler's status ConfigMap and leases do not count).
func (s *stepper) watchChanges(ctx context.Context) error {
	touch := func(o any) {
		s.lastChange.Store(time.Now().UnixNano())
		raiseToVersionOf(&s.seenRevision, o)
	}
	handler := cache.ResourceEventHandlerFuncs{AddFunc: touch, UpdateFunc: func(_, o any) { touch(o) }, DeleteFunc: touch}
	typed := informers.NewSharedInformerFactory(s.env.Client, 0)
	dyn, err := dynamic.NewForConfig(s.env.Config)
	if err != nil {
		return err
	}
	untyped := dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0)
	s.pods, s.nodes = typed.Core().V1().Pods().Informer().GetStore(), typed.Core().V1().Nodes().Informer().GetStore()
	for _, inf := range []cache.SharedIndexInformer{typed.Core().V1().Pods().Informer(), typed.Core().V1().Nodes().Informer()} {
		if _, err := inf.AddEventHandler(handler); err != nil {
			return err
		}
	}
	if s.workloads {
		if _, err := untyped.ForResource(kueueWorkloads).Informer().AddEventHandler(handler); err != nil {
			return err
		}
	}
	touchRequest := func(o any) {
		raiseToVersionOf(&s.requestVersion, o)
		s.lastRequestChange.Store(time.Now().UnixNano())
		touch(o)
	}
	if _, err := untyped.ForResource(autoscalingv1.Resource).Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: touchRequest, UpdateFunc: func(_, o any) { touchRequest(o) }, DeleteFunc: touchRequest}); err != nil {
		return err
	}
	untyped.Start(ctx.Done())
	if err := controlplane.StartInformers(ctx, typed); err != nil {
		return err
	}
	for typ, ok := range untyped.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("watching changes: %v did not sync", typ)
		}
	}
	return nil
}

// raiseToVersionOf raises newest to the resourceVersion of o (an informer's
// object or tombstone) when that is newer.
func raiseToVersionOf(newest *atomic.Int64, o any) {
	if d, ok := o.(cache.DeletedFinalStateUnknown); ok {
		o = d.Obj
	}
	m, err := meta.Accessor(o)
	if err != nil {
		return
	}
	v, err := strconv.ParseInt(m.GetResourceVersion(), 10, 64)
	if err != nil {
		return
	}
	for seen := newest.Load(); v > seen && !newest.CompareAndSwap(seen, v); seen = newest.Load() {
	}
}

// syncCloud has armlocal's node agent catch up with the cloud at the
// clock's time and returns the cloud's next change.
func (s *stepper) syncCloud(ctx context.Context) (next time.Time, ok bool, err error) {
	var reply struct {
		Now  string `json:"now"`
		Next string `json:"next"`
	}
	if err := s.post(ctx, s.cloudSync, "", &reply); err != nil {
		return time.Time{}, false, fmt.Errorf("armlocal sync: %w", err)
	}
	if reply.Next == "" {
		return time.Time{}, false, nil
	}
	next, err = time.Parse(time.RFC3339Nano, reply.Next)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("armlocal sync: next %q: %w", reply.Next, err)
	}
	return next, true, nil
}

// runAutoscaler runs one autoscaler loop at the clock's time, once the
// autoscaler has seen every ProvisioningRequest change the replay saw (it
// watches them).
func (s *stepper) runAutoscaler(ctx context.Context) error {
	run := s.autoscalerRun
	if v := s.requestVersion.Load(); v > 0 {
		run += "?provisioningRequestsVersion=" + strconv.FormatInt(v, 10)
	}
	if err := s.post(ctx, run, "", nil); err != nil {
		return fmt.Errorf("autoscaler loop: %w", err)
	}
	return nil
}

// post POSTs body (none when empty) to url and decodes a 200's answer into
// reply (nil: ignored); 204 is an answer without one.
func (s *stepper) post(ctx context.Context, url, body string, reply any) error {
	var in io.Reader
	if body != "" {
		in = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, in)
	if err != nil {
		return err
	}
	resp, err := s.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNoContent {
		return fmt.Errorf("%s: %s: %s", url, resp.Status, strings.TrimSpace(string(answer)))
	}
	if reply != nil && resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(answer, reply); err != nil {
			return fmt.Errorf("%s: %w", url, err)
		}
	}
	return nil
}

// step runs one step at the clock's time in two halves. First the trace's
// changes: what the clock fired on its way here (runs ending, the plugins'
// timers), the arrivals (create) and what the cloud booted; then an
// autoscaler loop and what the cloud did for it. The scheduling queue is
// held while a half's changes are made, released once the scheduler has
// seen them all, and the half ends when the system is quiet: so the
// scheduler decides on all of a half's changes at once, whatever the
// timing of their arrival. It returns the cloud's next change.
func (s *stepper) step(ctx context.Context, w *watcher, create func() error) (cloudNext time.Time, ok bool, err error) {
	s.sched.Hold() // already held when the clock was stepped
	sync := func() (err error) { cloudNext, ok, err = s.syncCloud(ctx); return err }
	half := 0
	release := func() error {
		if err := s.caughtUp(ctx, w); err != nil {
			return err
		}
		if err := s.hintsSeeRequests(ctx); err != nil {
			return err
		}
		half++
		released := s.sched.Release()
		klog.FromContext(ctx).V(3).Info("Trace step: queue released", "minute", s.clk.Since(s.start).Minutes(), "half", half, "pods", released)
		return s.settle(ctx, w)
	}
	// The second half is settled again only if the autoscaler's loop or
	// the cloud wrote a pod, node or ProvisioningRequest: otherwise the
	// scheduler already settled on what the cluster is (the clock has not
	// moved), and its quiet window would be a step's largest cost.
	var settled int64
	hold := func() (err error) {
		s.sched.Hold()
		settled, err = s.env.Revision(ctx)
		return err
	}
	secondRelease := func() error {
		written, err := s.env.WrittenSince(ctx, settled, s.watched()...)
		if err != nil {
			klog.FromContext(ctx).V(2).Info("Settling the step's second half: could not read what was written", "err", err)
		}
		if !written {
			if released := s.sched.Release(); released == 0 {
				s.quietHalves++
				return nil
			}
		}
		return release()
	}
	for _, p := range []struct {
		name string
		f    func() error
	}{{"arrivals", create}, {"cloud", sync}, {"settle", release},
		{"settle", hold}, {"autoscaler", func() error { return s.runAutoscaler(ctx) }}, {"cloud", sync}, {"settle", secondRelease}} {
		if err := s.timed(p.name, p.f); err != nil {
			return time.Time{}, false, err
		}
	}
	w.stepped.plan()
	return cloudNext, ok, nil
}

// catchUpTimeout bounds a wait for the scheduler to see a half step's
// changes; past it the step goes on (and says so in its progress line).
const catchUpTimeout = 10 * time.Second

// hintsSeeRequests waits, with the queue held, until watchChanges and
// Muster's hint writers' informers have seen every ProvisioningRequest
// write in the storage and, when one came since
// the last hint sync saw them, until a hint sync begun now has ended: so
// the scheduler decides a half step knowing what the autoscaler answered
// in it (a request Failed because no pool can grow lets a gang preempt at
// once). The writer's period once did this by chance, syncing every 10 ms
// beside the autoscaler's loop.
func (s *stepper) hintsSeeRequests(ctx context.Context) error {
	deadline := time.Now().Add(catchUpTimeout)
	// until polls done every millisecond; false once the deadline passed.
	until := func(done func() bool) (bool, error) {
		for !done() {
			if time.Now().After(deadline) {
				return false, nil
			}
			select {
			case <-ctx.Done():
				return false, ctx.Err()
			case <-time.After(time.Millisecond):
			}
		}
		return true, nil
	}
	// The writers' informers must have them too, for the sync below.
	var err error
	seen, waitErr := until(func() bool {
		var written bool
		written, err = s.env.WrittenSince(ctx, s.requestVersion.Load(), controlplane.StoredProvisioningRequests)
		return err == nil && !written && s.sched.HintsSawRequests(s.requestVersion.Load())
	})
	if waitErr != nil {
		return waitErr
	}
	if !seen {
		s.lateCatchUps++
		klog.FromContext(ctx).Info("The replay or Muster's hint writer did not see the step's ProvisioningRequests in time; going on", "minute", s.clk.Since(s.start).Minutes(), "err", err)
	}
	req := s.lastRequestChange.Load()
	if req == s.requestsSynced {
		return nil
	}
	begun, _, _ := s.sched.HintSyncs()
	s.sched.KickHints()
	synced, waitErr := until(func() bool { _, done, _ := s.sched.HintSyncs(); return done > begun })
	if waitErr != nil {
		return waitErr
	}
	if !synced {
		return fmt.Errorf("the hint writer did not sync within %s at trace minute %.1f", catchUpTimeout, s.clk.Since(s.start).Minutes())
	}
	s.requestsSynced = req
	return nil
}

// hintsSaw says whether Muster's hint writers' informers have seen every
// ProvisioningRequest change watchChanges saw, so that a sync kicked now
// reads them; past catchUpTimeout since it was first asked (since), it
// goes on, counted as a late catch-up.
func (s *stepper) hintsSaw(ctx context.Context, since time.Time) bool {
	if s.sched.HintsSawRequests(s.requestVersion.Load()) {
		return true
	}
	if time.Since(since) < catchUpTimeout {
		return false
	}
	s.lateCatchUps++
	klog.FromContext(ctx).Info("Muster's hint writer did not see the step's ProvisioningRequests in time; going on", "minute", s.clk.Since(s.start).Minutes())
	return true
}

// caughtUp waits, with the queue held, until the watcher's writes are done
// and the scheduler has seen every node and pod the API server lists.
func (s *stepper) caughtUp(ctx context.Context, w *watcher) error {
	w.writing.wait(ctx)
	deadline := time.Now().Add(catchUpTimeout)
	if s.stored == nil {
		s.stored = s.env.NewStoredReader()
	}
	for {
		// Read from the storage: a consistent list through the API
		// server waited for its watch cache, tens of ms a half step.
		nodes, pods, err := s.stored.NodesAndPods(ctx)
		if err != nil {
			return err
		}
		ok, why := s.sched.Caught(nodes, pods)
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			s.lateCatchUps++
			klog.FromContext(ctx).Info("The scheduler did not see a step's changes in time; going on", "minute", s.clk.Since(s.start).Minutes(), "missing", why)
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// nextStep is the trace time of the step after now: step on while things
// move, else the first of what is due (an arrival, a timer, the cloud's next
// change) within idleJump; never past end.
func nextStep(now, step, end time.Duration, moved bool, due ...time.Duration) time.Duration {
	next := now + idleJump
	if moved {
		next = now + step
	}
	for _, d := range due {
		if d > now && d < next {
			next = d
		}
	}
	return min(next, end)
}

// replay plays the trace on the stepped clock until the jobs the watcher
// waits for are done (doneAt) or the clock reaches end. create makes a
// job's pods.
func (s *stepper) replay(ctx context.Context, progress io.Writer, name string, w *watcher, trace simulate.Trace, end, step time.Duration, create func(simulate.Job) error) error {
	// The watches end with the replay: left open they would hold the API
	// server's shutdown for its minute of grace.
	watchCtx, stopWatching := context.WithCancel(ctx)
	defer stopWatching()
	if err := s.watchChanges(watchCtx); err != nil {
		return err
	}
	if err := s.pushClock(ctx); err != nil {
		return err
	}
	next, changes, steps := 0, -1, 0
	lastReport, began := time.Time{}, time.Now()
	for steps = 1; ; steps++ {
		now := w.clk.now()
		arrivals := func() error {
			for next < len(trace.Jobs) && trace.Jobs[next].At <= now {
				j := trace.Jobs[next]
				w.created(j) // first: a pod can bind before create returns
				if err := create(j); err != nil {
					return err
				}
				next++
			}
			return nil
		}
		cloudNext, cloudPending, err := s.step(ctx, w, arrivals)
		if err != nil {
			return err
		}
		if s.log != nil {
			if err := s.log.write(ctx, now.Minutes()); err != nil {
				return err
			}
		}
		if time.Since(lastReport) >= 5*time.Second {
			w.failures()
			fmt.Fprintf(progress, "[%s minute %3.0f] %s; %s\n", name, now.Minutes(), w.status(), s.stepStats(steps, began))
			lastReport = time.Now()
		}
		doneAt, done := w.doneAt()
		if (done && now >= doneAt && next == len(trace.Jobs)) || now >= end {
			fmt.Fprintf(progress, "[%s minute %3.0f] %s\n", name, now.Minutes(), s.stepStats(steps, began))
			return nil
		}
		w.mu.Lock()
		moved := w.rec.Changes != changes
		changes = w.rec.Changes
		w.mu.Unlock()
		var due []time.Duration
		if next < len(trace.Jobs) {
			due = append(due, trace.Jobs[next].At)
		}
		if t, ok := s.events.Next(); ok {
			due = append(due, t.Sub(s.start))
		}
		if cloudPending {
			due = append(due, cloudNext.Sub(s.start))
		}
		if t, ok := s.scaleDownDue(now, step); ok {
			due = append(due, t)
		}
		if done {
			due = append(due, doneAt)
		}
		to := nextStep(now, step, end, moved, due...)
		s.sched.Hold() // what the clock fires is decided on with the next step's changes
		w.stepped.accrue(to)
		s.events.StepTo(s.start.Add(to))
		s.clk.StepTo(s.start.Add(to))
		if err := s.pushClock(ctx); err != nil {
			return err
		}
	}
}

// pushClock sets the trace clock's time in the processes that run on it.
func (s *stepper) pushClock(ctx context.Context) error {
	now := s.clk.Now().UTC().Format(time.RFC3339Nano)
	for _, url := range s.clockPushes {
		if err := s.post(ctx, url, now, nil); err != nil {
			return fmt.Errorf("pushing the trace clock: %w", err)
		}
	}
	return nil
}

// stepStats says how many steps ran since began and where their wall time
// went.
func (s *stepper) stepStats(steps int, began time.Time) string {
	per := func(d time.Duration) time.Duration { return (d / time.Duration(steps)).Round(time.Millisecond) }
	halves := ""
	if s.quietHalves > 0 {
		halves = fmt.Sprintf("; %d second halves needed no settling", s.quietHalves)
	}
	if s.lateCatchUps > 0 {
		halves += fmt.Sprintf("; %d half steps went on before the scheduler saw all their changes", s.lateCatchUps)
	}
	return fmt.Sprintf("%d steps, %s wall each (autoscaler %s, settling %s, cloud %s)%s", steps,
		per(time.Since(began)), per(s.spent["autoscaler"]), per(s.spent["settle"]), per(s.spent["cloud"]), halves)
}

// syncURL is armlocal's POST /sync, beside its fault endpoint.
func (p *process) syncURL() string { return p.faultsURL + "/sync" }

// clockURL is where a process on the trace clock takes its time pushed
// (POST /clock): armlocal's fault endpoint, a stepped autoscaler's
// run-on-request address.
func (p *process) clockURL() string {
	if p.runURL != "" {
		return strings.TrimSuffix(p.runURL, "/run-once") + "/clock"
	}
	return p.faultsURL + "/clock"
}
