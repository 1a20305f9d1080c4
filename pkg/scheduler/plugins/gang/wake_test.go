package gang

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"

	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/gangstate"
	"github.com/muster-project/muster/pkg/simulate"
)

// activations records what the plugin moves to the active queue: the
// scheduling queue's part, behind the framework's Handle.Activate.
type activations struct {
	mu   sync.Mutex
	pods []string
}

func (a *activations) Activate(_ klog.Logger, pods map[string]*v1.Pod) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for k := range pods {
		a.pods = append(a.pods, k)
	}
	slices.Sort(a.pods)
}

func (a *activations) take() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := a.pods
	a.pods = nil
	return out
}

// wakePlugin is MusterGang with a gang's members in its pod index, behind a
// framework built by upstream's runtime (its waiting pods and Activate), on
// a clock that moves only when the test steps it.
func wakePlugin(t *testing.T, clk *simulate.StepClock, backoff time.Duration, name string, n int) (*Gang, *activations, gang.Key) {
	t.Helper()
	act := &activations{}
	fw, err := frameworkruntime.NewFramework(t.Context(), nil, &schedconfig.KubeSchedulerProfile{SchedulerName: "muster-scheduler"},
		frameworkruntime.WithPodActivator(act), frameworkruntime.WithWaitingPods(frameworkruntime.NewWaitingPodsMap()))
	if err != nil {
		t.Fatal(err)
	}
	pods := cache.NewIndexer(cache.MetaNamespaceKeyFunc, gangstate.Indexers())
	for i := range n {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("%s-%d", name, i), UID: types.UID(fmt.Sprintf("u-%s-%d", name, i)),
			CreationTimestamp: metav1.Unix(int64(100+i), 0),
			Labels:            map[string]string{gang.GroupLabel: name}, Annotations: map[string]string{gang.MinMemberAnnotation: fmt.Sprint(n)}}}
		if err := pods.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	pl := &Gang{handle: fw, tracker: gang.NewTracker(clk.Now), clock: clk, pods: pods, backoff: backoff,
		status: &statusWriter{dirty: map[gang.Key]struct{}{}}}
	return pl, act, gang.Key{Namespace: "ns", Name: name}
}

// A gang that backs off is always woken when its backoff ends, through its
// lead alone, whatever fails meanwhile: a failure during the backoff pushes
// the wake out (it does not arm a second one, nor is the first lost), and
// a failure after the wake fired arms a new one. The plugin's fail is what
// PostFilter and Permit's timeout call; the clock is stepped, so each
// interleaving is the one named.
func TestBackoffAlwaysEndsInAWake(t *testing.T) {
	ctx := t.Context()
	clk := simulate.NewStepClock(time.Unix(1000, 0))
	pl, act, k := wakePlugin(t, clk, 10*time.Second, "llm", 3)
	step := func(d time.Duration) []string {
		clk.StepTo(clk.Now().Add(d))
		return act.take()
	}

	pl.fail(ctx, k, "room for 2", pl.tracker.Attempt(k))
	if _, _, backingOff := pl.tracker.BackingOff(k); !backingOff || pl.tracker.WakesArmed() != 1 {
		t.Fatalf("after a failure: backing off %v, wakes armed %d; want a backoff and one wake", backingOff, pl.tracker.WakesArmed())
	}
	if got := step(9 * time.Second); len(got) != 0 {
		t.Fatalf("activated %v before the backoff ended", got)
	}
	if got := step(time.Second); !slices.Equal(got, []string{"ns/llm-0"}) {
		t.Fatalf("at the end of the backoff activated %v, want the lead ns/llm-0 alone", got)
	}
	if n := pl.tracker.WakesArmed(); n != 0 {
		t.Fatalf("%d wakes armed after the wake fired, want 0", n)
	}

	// The woken attempt fails again: a new wake, at the new deadline.
	pl.fail(ctx, k, "room for 2", pl.tracker.Attempt(k))
	// A failure while it backs off (a member's Permit timed out) pushes the
	// backoff out by 4 s: the wake armed first fires and waits the rest.
	if got := step(4 * time.Second); len(got) != 0 {
		t.Fatalf("activated %v during the backoff", got)
	}
	pl.fail(ctx, k, "timed out", pl.tracker.Attempt(k))
	if n := pl.tracker.WakesArmed(); n != 1 {
		t.Fatalf("%d wakes armed after a failure during the backoff, want the one", n)
	}
	if got := step(6 * time.Second); len(got) != 0 {
		t.Fatalf("activated %v at the first deadline, which the second failure pushed out", got)
	}
	if _, left, backingOff := pl.tracker.BackingOff(k); !backingOff || left != 4*time.Second {
		t.Fatalf("backing off %v with %s left, want 4s", backingOff, left)
	}
	if got := step(4 * time.Second); !slices.Equal(got, []string{"ns/llm-0"}) {
		t.Fatalf("at the pushed-out deadline activated %v, want ns/llm-0", got)
	}
	if _, _, backingOff := pl.tracker.BackingOff(k); backingOff || pl.tracker.WakesArmed() != 0 {
		t.Fatalf("after the wake: backing off %v, wakes armed %d", backingOff, pl.tracker.WakesArmed())
	}
	if got := step(time.Hour); len(got) != 0 {
		t.Fatalf("activated %v again with no failure since", got)
	}
}

// A failure whose attempt overlapped a change (room freed during it) does
// not back off and arms no wake: the change requeues the gang. A failure
// after that, with nothing changed, backs off and wakes as usual.
func TestFailureAfterAChangeLeavesTheWakeToIt(t *testing.T) {
	ctx := t.Context()
	clk := simulate.NewStepClock(time.Unix(1000, 0))
	pl, act, k := wakePlugin(t, clk, 10*time.Second, "moe", 2)

	attempt := pl.tracker.Attempt(k)
	pl.tracker.Unblock(k) // room freed while the attempt ran
	pl.fail(ctx, k, "room for 1", attempt)
	if _, _, backingOff := pl.tracker.BackingOff(k); backingOff || pl.tracker.WakesArmed() != 0 {
		t.Fatalf("after a change during the attempt: backing off %v, wakes armed %d; want neither", backingOff, pl.tracker.WakesArmed())
	}
	clk.StepTo(clk.Now().Add(time.Hour))
	if got := act.take(); len(got) != 0 {
		t.Fatalf("activated %v: the change's own requeue retries the gang", got)
	}

	pl.fail(ctx, k, "room for 1", pl.tracker.Attempt(k))
	clk.StepTo(clk.Now().Add(10 * time.Second))
	if got := act.take(); !slices.Equal(got, []string{"ns/moe-0"}) {
		t.Fatalf("activated %v, want the lead ns/moe-0 at the end of the backoff", got)
	}
}

// The quorum gate's wake reaches every member, the one whose arrival the
// notice is about too. The plugin hears of pods late: the queue may have
// added and gated moe-0 when one member existed, and the notice of moe-0's
// own arrival reaches the plugin only once all three exist. That notice is
// the one that finds the quorum, and the wake skipped its pod, so moe-0
// stayed gated (TestRoomFreedRequeuesGangLeads, once in a stress run:
// "fewer than 3 members exist" with all three there).
func TestQuorumWakeReachesTheMemberItIsAbout(t *testing.T) {
	clk := simulate.NewStepClock(time.Unix(1000, 0))
	pl, act, _ := wakePlugin(t, clk, 10*time.Second, "moe", 3)
	first, ok, err := pl.pods.GetByKey("ns/moe-0")
	if err != nil || !ok {
		t.Fatalf("moe-0: %v %v", ok, err)
	}
	pl.quorumArrived(t.Context(), first)
	if got, want := act.take(), []string{"ns/moe-0", "ns/moe-1", "ns/moe-2"}; !slices.Equal(got, want) {
		t.Fatalf("the quorum's arrival woke %v, want every member %v", got, want)
	}
	pl.quorumArrived(t.Context(), first)
	if got := act.take(); len(got) != 0 {
		t.Fatalf("woke %v again for a quorum already woken", got)
	}
}
