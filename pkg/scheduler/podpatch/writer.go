// Package podpatch writes Muster's marks on gang members: annotations (the
// autoscaler's consume mark, safe-to-evict) and the PodScheduled condition of
// gated members. A big gang makes many of them at once, so they go through a
// client of their own, rate limited apart from the scheduler's (whose QPS
// the binder needs), and are coalesced: marks for one pod made before its
// turn comes go out as one patch, the latest value of each winning.
//
// The writer decides nothing: callers say what a pod should carry.
package podpatch

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

// Defaults of the writer's own client.
const (
	DefaultQPS   = 20
	DefaultBurst = 40
	// maxRetries bounds how often one pod's marks are retried after an
	// error other than the pod being gone; later marks start afresh.
	maxRetries = 8
)

// Writer coalesces and writes pod marks. Its zero value is not usable; see
// New.
type Writer struct {
	client kubernetes.Interface
	queue  workqueue.TypedRateLimitingInterface[types.NamespacedName]

	mu      sync.Mutex
	pending map[types.NamespacedName]*change
	limiter flowcontrol.RateLimiter
	// written remembers annotation values written lately, so that a caller
	// reading a lagging informer does not have them written twice. Nothing
	// else writes Muster's annotations; conditions, which the scheduler
	// overwrites, are not remembered.
	written map[types.NamespacedName]map[string]writtenValue
	// inflight holds the annotations a worker is writing: the API server
	// may have them before written does.
	inflight map[types.NamespacedName]map[string]*string
	// sending counts the changes a worker has taken off pending and not yet
	// had answered: unwritten, though no longer pending.
	sending int
	swept   time.Time

	writes atomic.Int64
}

type writtenValue struct {
	value *string
	at    time.Time
}

// rememberFor is how long a written annotation value is taken as the pod's
// own: longer than an informer lags, short enough that a value someone else
// changed is written again.
const rememberFor = 10 * time.Second

// change is what one pod should carry once written: annotations to set (a
// nil value removes one) and status conditions, the latest per type.
type change struct {
	annotations map[string]*string
	conditions  map[v1.PodConditionType]v1.PodCondition
}

// New builds a writer whose client is a copy of cfg, with a user agent of
// its own and the writer's rate limit (SetRate) instead of cfg's, so its
// writes neither starve nor are starved by the scheduler's binds.
func New(cfg *rest.Config) (*Writer, error) {
	c := rest.CopyConfig(cfg)
	c.QPS, c.RateLimiter = -1, nil // limited by the writer, see SetRate
	c = rest.AddUserAgent(c, "muster-pod-writer")
	client, err := kubernetes.NewForConfig(c)
	if err != nil {
		return nil, fmt.Errorf("building the pod writer's client: %w", err)
	}
	return NewForClient(client), nil
}

// NewForClient builds a writer on the given client, at DefaultQPS.
func NewForClient(client kubernetes.Interface) *Writer {
	return &Writer{
		client: client,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[types.NamespacedName](),
			workqueue.TypedRateLimitingQueueConfig[types.NamespacedName]{Name: "muster_pod_writer"}),
		pending:  map[types.NamespacedName]*change{},
		written:  map[types.NamespacedName]map[string]writtenValue{},
		inflight: map[types.NamespacedName]map[string]*string{},
		limiter:  flowcontrol.NewTokenBucketRateLimiter(DefaultQPS, DefaultBurst),
	}
}

// SetRate sets how many patches a second the writer sends, and its burst.
func (w *Writer) SetRate(qps float32, burst int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.limiter = flowcontrol.NewTokenBucketRateLimiter(qps, burst)
}

// Annotate asks for the pod's annotations to be set (nil removes one). It
// writes only those the pod will not carry anyway (see carried), which
// only the writer knows: a value asked for while another is being written
// goes out after it.
func (w *Writer) Annotate(pod *v1.Pod, annotations map[string]*string) {
	key := types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}
	now := time.Now()
	var fresh map[string]*string
	w.mu.Lock()
	for k, v := range annotations {
		if sameValue(w.carried(key, pod, k, now), v) {
			continue
		}
		if fresh == nil {
			fresh = map[string]*string{}
		}
		fresh[k] = v
	}
	w.mu.Unlock()
	if len(fresh) == 0 {
		return
	}
	w.add(pod, func(c *change) {
		if c.annotations == nil {
			c.annotations = map[string]*string{}
		}
		for k, v := range fresh {
			c.annotations[k] = v
		}
	})
}

// carried is the value of annotation k the pod will have once the writer is
// done, as far as it knows: the value pending or being written, else one
// written in the last rememberFor (the caller's copy may predate it), else
// the pod's own. Called with mu held.
func (w *Writer) carried(key types.NamespacedName, pod *v1.Pod, k string, now time.Time) *string {
	if c := w.pending[key]; c != nil {
		if v, ok := c.annotations[k]; ok {
			return v
		}
	}
	if v, ok := w.inflight[key][k]; ok {
		return v
	}
	if was, ok := w.written[key][k]; ok && now.Sub(was.at) < rememberFor {
		return was.value
	}
	if v, ok := pod.Annotations[k]; ok {
		return &v
	}
	return nil
}

// Carried is the value of annotation k the pod will have once the writer
// is done, as far as it knows (see carried); ok is false when it will have
// none. Callers that decide whether a pod needs a mark ask this, not the
// pod's own annotations: an informer's copy does not show a write pending
// or in flight.
func (w *Writer) Carried(pod *v1.Pod, k string) (value string, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	v := w.carried(types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}, pod, k, time.Now())
	if v == nil {
		return "", false
	}
	return *v, true
}

func sameValue(a, b *string) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}

// SetCondition asks for a status condition of the pod to be set.
func (w *Writer) SetCondition(pod *v1.Pod, cond v1.PodCondition) {
	w.add(pod, func(c *change) {
		if c.conditions == nil {
			c.conditions = map[v1.PodConditionType]v1.PodCondition{}
		}
		c.conditions[cond.Type] = cond
	})
}

// Unset drops a condition of type t asked for the pod and not yet sent: a
// caller whose mark no longer holds (a gated member admitted) has it
// neither written late over what the scheduler wrote since nor cost a
// write. A value already on its way is not recalled.
func (w *Writer) Unset(pod *v1.Pod, t v1.PodConditionType) {
	key := types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}
	w.mu.Lock()
	defer w.mu.Unlock()
	c := w.pending[key]
	if c == nil {
		return
	}
	delete(c.conditions, t)
	if len(c.annotations) == 0 && len(c.conditions) == 0 {
		delete(w.pending, key) // the queue's turn for it finds nothing
	}
}

func (w *Writer) add(pod *v1.Pod, apply func(*change)) {
	key := types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}
	w.mu.Lock()
	c := w.pending[key]
	if c == nil {
		c = &change{}
		w.pending[key] = c
	}
	apply(c)
	w.mu.Unlock()
	w.queue.Add(key)
}

// Forget drops what is pending for a pod that is gone.
func (w *Writer) Forget(namespace, name string) {
	key := types.NamespacedName{Namespace: namespace, Name: name}
	w.mu.Lock()
	delete(w.pending, key)
	delete(w.written, key)
	w.mu.Unlock()
}

// Remembered is how many pods the writer remembers written values of.
func (w *Writer) Remembered() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.written)
}

// Pending is how many pods have marks not yet written.
func (w *Writer) Pending() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.pending)
}

// Unwritten counts the pods with a change pending or being sent: zero once
// everything asked for has been answered. A write in flight is not pending
// any more, but its pod does not show it yet, so a caller waiting for the
// writer to settle (muster simulate's quiet step, the tests' caught-up
// check) must wait for it too.
func (w *Writer) Unwritten() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.pending) + w.sending
}

// Writes is how many patches the writer has sent.
func (w *Writer) Writes() int64 { return w.writes.Load() }

// Run writes with the given number of workers until ctx ends.
func (w *Writer) Run(ctx context.Context, workers int) {
	go func() { <-ctx.Done(); w.queue.ShutDown() }()
	// A value written for a pod as it was deleted is remembered after the
	// pod was forgotten; with no further writes nothing would drop it.
	go wait.Until(func() { w.sweep(time.Now()) }, rememberFor, ctx.Done())
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for w.next(ctx) {
			}
		}()
	}
	wg.Wait()
}

func (w *Writer) next(ctx context.Context) bool {
	key, quit := w.queue.Get()
	if quit {
		return false
	}
	defer w.queue.Done(key)
	w.mu.Lock()
	c := w.pending[key]
	delete(w.pending, key)
	if c != nil && len(c.annotations) > 0 {
		w.inflight[key] = c.annotations
	}
	if c != nil {
		w.sending++
	}
	w.mu.Unlock()
	if c == nil {
		w.queue.Forget(key)
		return true
	}
	err := w.write(ctx, key, c)
	giveUp := err != nil && w.queue.NumRequeues(key) >= maxRetries
	w.mu.Lock()
	w.sending--
	delete(w.inflight, key) // remembered, or restored below (the queue writes one pod at a time)
	if err != nil && !giveUp {
		w.restoreLocked(key, c)
	}
	w.mu.Unlock()
	switch {
	case giveUp:
		klog.FromContext(ctx).Error(err, "Giving up on marking a gang member", "pod", key)
	case err != nil:
		klog.FromContext(ctx).V(2).Info("Could not mark a gang member; retrying", "pod", key, "err", err)
		w.queue.AddRateLimited(key)
		return true
	}
	w.queue.Forget(key)
	return true
}

// restoreLocked puts a failed change back under any newer marks for the
// pod. Called with mu held.
func (w *Writer) restoreLocked(key types.NamespacedName, failed *change) {
	newer := w.pending[key]
	if newer == nil {
		w.pending[key] = failed
		return
	}
	for k, v := range failed.annotations {
		if _, ok := newer.annotations[k]; !ok {
			if newer.annotations == nil {
				newer.annotations = map[string]*string{}
			}
			newer.annotations[k] = v
		}
	}
	for t, cond := range failed.conditions {
		if _, ok := newer.conditions[t]; !ok {
			if newer.conditions == nil {
				newer.conditions = map[v1.PodConditionType]v1.PodCondition{}
			}
			newer.conditions[t] = cond
		}
	}
}

// remember notes annotation values written, dropping those past
// rememberFor so the memory holds only pods marked lately.
func (w *Writer) remember(key types.NamespacedName, annotations map[string]*string) {
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	m := w.written[key]
	if m == nil {
		m = map[string]writtenValue{}
		w.written[key] = m
	}
	for k, v := range annotations {
		m[k] = writtenValue{value: v, at: now}
	}
	if len(w.written) > 1024 && now.Sub(w.swept) > rememberFor {
		w.sweepLocked(now)
	}
}

// sweep drops the values remembered for rememberFor or longer.
func (w *Writer) sweep(now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.sweepLocked(now)
}

func (w *Writer) sweepLocked(now time.Time) {
	w.swept = now
	for k, vals := range w.written {
		for a, v := range vals {
			if now.Sub(v.at) >= rememberFor {
				delete(vals, a)
			}
		}
		if len(vals) == 0 {
			delete(w.written, k)
		}
	}
}

// wait takes one token of the rate limit.
func (w *Writer) wait(ctx context.Context) error {
	w.mu.Lock()
	l := w.limiter
	w.mu.Unlock()
	return l.Wait(ctx)
}

// write sends a pod's change in one write: annotations alone as a merge
// patch of the pod; with conditions, a strategic merge patch of the status
// subresource (conditions merged by type), which takes the pod's
// annotations too (the pod status strategy resets only its spec, deletion
// timestamp and owner references): one write per member where there would
// be two. A pod that is gone needs nothing.
func (w *Writer) write(ctx context.Context, key types.NamespacedName, c *change) error {
	if len(c.annotations) == 0 && len(c.conditions) == 0 {
		return nil
	}
	body := map[string]any{}
	if len(c.annotations) > 0 {
		body["metadata"] = map[string]any{"annotations": c.annotations}
	}
	typ, subresources := types.MergePatchType, []string(nil)
	if len(c.conditions) > 0 {
		conds := make([]v1.PodCondition, 0, len(c.conditions))
		for _, cond := range c.conditions {
			conds = append(conds, cond)
		}
		body["status"] = map[string]any{"conditions": conds}
		typ, subresources = types.StrategicMergePatchType, []string{"status"}
	}
	if err := w.wait(ctx); err != nil {
		return err
	}
	patch, _ := json.Marshal(body)
	w.writes.Add(1)
	if _, err := w.client.CoreV1().Pods(key.Namespace).Patch(ctx, key.Name, typ, patch, metav1.PatchOptions{}, subresources...); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	}
	if len(c.annotations) > 0 {
		w.remember(key, c.annotations)
	}
	return nil
}
