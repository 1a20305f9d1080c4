// Tests of the State the profile's plugins share: one per profile whichever plugin is built first, none for a plugin built by hand.

package gangstate

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/muster-project/muster/pkg/gang"
)

// handle stands for a profile's framework handle: the Set only compares it.
type handle struct {
	fwk.Handle
	profile string
}

type statusWriter struct {
	reported []metav1.Condition
	settled  bool
}

func (w *statusWriter) ReportCondition(_ gang.Key, c metav1.Condition) {
	w.reported = append(w.reported, c)
}
func (w *statusWriter) Settled() bool { return w.settled }

// Each profile of a scheduler gets one State, shared by its plugins
// whichever is built first; another profile, or another scheduler's Set,
// shares nothing with it.
func TestStatePerProfile(t *testing.T) {
	a, b := &handle{profile: "a"}, &handle{profile: "b"}
	set := NewSet()
	if _, ok := set.Lookup(a); ok {
		t.Fatal("a profile no plugin was built for has a State")
	}
	st := set.For(a)
	if set.For(a) != st {
		t.Fatal("two plugins of one profile got two States")
	}
	if got, ok := set.Lookup(a); !ok || got != st {
		t.Fatal("Lookup does not find the profile's State")
	}
	if set.For(b) == st || NewSet().For(a) == st {
		t.Fatal("another profile, or another scheduler, shares a profile's State")
	}

	k := gang.Key{Namespace: "ns", Name: "g"}
	rack := func(n *v1.Node) bool { return n.Labels["rack"] == "r1" }
	st.ShareDomains(func(g gang.Key) (func(*v1.Node) bool, bool) { return rack, g == k })
	st.ShareBookings(func() map[string]gang.Key { return map[string]gang.Key{"azure:///vm-0": k} })
	w := &statusWriter{}
	st.ShareStatus(w)
	if in := st.HeldDomain(k); in == nil || !in(&v1.Node{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"rack": "r1"}}}) {
		t.Error("the domain MusterTopology names is not the one MusterGang reads")
	}
	if st.HeldDomain(gang.Key{Namespace: "ns", Name: "other"}) != nil {
		t.Error("a gang MusterTopology names no domain for has one")
	}
	if got := st.Booked(); got["azure:///vm-0"] != k {
		t.Errorf("booked %v", got)
	}
	if !st.ReportCondition(k, metav1.Condition{Type: gang.ConditionPreempting}) || len(w.reported) != 1 {
		t.Error("a condition reported through the State did not reach the status writer")
	}
	if got := st.WritesPending(true); got == "" {
		t.Error("an unsettled status writer owes nothing")
	}
	w.settled = true
	if got := st.WritesPending(true); got != "" {
		t.Errorf("a settled status writer and no request writer owe %q", got)
	}
	other := set.For(b)
	if other.HeldDomain(k) != nil || other.Booked() != nil || other.ReportCondition(k, metav1.Condition{}) {
		t.Error("another profile sees this profile's domains, bookings or status writer")
	}
	if _, ok := other.RoomFreed(); ok {
		t.Error("a profile without MusterGang has its room-freed hint")
	}
}

// A plugin built by hand (a unit test) has no State: it leads and shares nothing.
func TestNilState(t *testing.T) {
	var st *State
	if !st.Leadership().Leading() {
		t.Error("a plugin without a State does not lead")
	}
	if st.HeldDomain(gang.Key{}) != nil || st.Booked() != nil || st.ReportCondition(gang.Key{}, metav1.Condition{}) || st.WritesPending(true) != "" {
		t.Error("a nil State shares something")
	}
	if _, ok := st.RoomFreed(); ok {
		t.Error("a nil State has a room-freed hint")
	}
	if _, ok := st.Requests(); ok {
		t.Error("a nil State has a request writer")
	}
}

// A plugin's writer runs only once the scheduler's runner runs it, added
// before the runner starts or after (a later scheduler's profile); it stops
// with its plugin's context or the runner's, and the runner returns only
// once every writer has.
func TestControllersRunBesideTheScheduler(t *testing.T) {
	set := NewSet()
	type loop struct {
		started, stopped chan struct{}
	}
	add := func(st *State, ctx context.Context, name string) loop {
		l := loop{started: make(chan struct{}), stopped: make(chan struct{})}
		st.AddController(ctx, name, func(ctx context.Context) {
			close(l.started)
			<-ctx.Done()
			close(l.stopped)
		})
		return l
	}
	pluginCtx, endPlugin := context.WithCancel(t.Context())
	defer endPlugin()
	early := add(set.For(&handle{profile: "a"}), pluginCtx, "early")
	var nilState *State
	nilState.AddController(t.Context(), "by hand", func(context.Context) { t.Error("a nil State's controller ran") })
	if n := set.ControllersPending(); n != 1 {
		t.Fatalf("%d controllers wait for the runner, want 1", n)
	}
	select {
	case <-early.started:
		t.Fatal("a controller ran before RunControllers")
	default:
	}

	runCtx, endRun := context.WithCancel(t.Context())
	returned := make(chan struct{})
	go func() { set.RunControllers(runCtx); close(returned) }()
	<-early.started
	late := add(set.For(&handle{profile: "b"}), t.Context(), "late")
	<-late.started
	if n := set.ControllersPending(); n != 0 {
		t.Fatalf("%d controllers still wait once the runner runs", n)
	}

	endPlugin() // the first scheduler stops: its writer with it
	<-early.stopped
	select {
	case <-late.stopped:
		t.Fatal("another scheduler's writer stopped with the first")
	case <-returned:
		t.Fatal("the runner returned while its context is live")
	default:
	}
	endRun()
	<-late.stopped
	<-returned
}
