// Tests of MusterGangGate: which of the two gates holds which member, in
// either order, each verdict judged once, and the gate's events.

package gang

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/gangstate"
	"github.com/muster-project/muster/pkg/scheduler/podpatch"
	"github.com/muster-project/muster/pkg/simulate"
)

// gatePlugins is MusterGang beside an elastic gang "el" (min 1 of 3: el-0
// leads, el-1 and el-2 wait behind it), a parked gang "huge" (min 2 of
// 2: beyond the cluster, no pool can hold it, its next request due in an
// hour) and a pod of no gang; with MusterGangGate when gate is set.
func gatePlugins(t *testing.T, gate bool) (*Gang, *Gate) {
	t.Helper()
	clk := simulate.NewStepClock(time.Unix(1000, 0))
	pl, _, _ := wakePlugin(t, clk, time.Second, "el", 3)
	pl.status = newStatusWriter(pl.handle, pl, podpatch.NewForClient(nil), time.Second) // never run: nothing here is written
	setMembers(t, pl, "el", "1", "3")
	addGang(t, pl.pods, "huge", 2)
	if err := pl.pods.Add(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: "u-web"}}); err != nil {
		t.Fatal(err)
	}
	huge := gang.Key{Namespace: "ns", Name: "huge"}
	pl.state = gangstate.NewSet().For(pl.handle)
	pl.state.ShareNeverFits(func(k gang.Key) (string, time.Time, bool) {
		return "failed: no node group can hold it", clk.Now().Add(time.Hour), k == huge
	})
	pl.beyondCluster.Store(huge, struct{}{})
	pl.state.ShareGate(gangstate.Gate{Judge: pl.gateJudge, Events: pl.gateEvents()})
	if !gate {
		return pl, nil
	}
	pl.state.ServeGate()
	return pl, &Gate{state: pl.state}
}

// pass runs the PreEnqueue plugins on pod as the queue does, in the order
// given, stopping at the first that gates it: the plugin that gated it
// ("" when none did) and its status.
func pass(t *testing.T, pod *v1.Pod, plugins ...fwk.PreEnqueuePlugin) (string, *fwk.Status) {
	t.Helper()
	for _, p := range plugins {
		if st := p.PreEnqueue(t.Context(), pod); !st.IsSuccess() {
			return p.Name(), st
		}
	}
	return "", nil
}

// The gate holds every member for what only pods can change (here: held
// behind its gang's lead), so that the queue passes over it when a node
// comes; MusterGang holds a parked gang's lead, which a node can let
// through. The queue runs PreEnqueue plugins in no set order: either order
// gives the same verdicts. Without the gate, MusterGang holds them all.
func TestGateHoldsWhatOnlyPodsChange(t *testing.T) {
	want := map[string]string{"el-0": "", "el-1": GateName, "el-2": GateName, "huge-0": Name, "huge-1": GateName, "web": ""}
	reason := map[string]string{"el-1": "member el-0 tries for the gang", "huge-0": "waits for a node that could hold one of its members"}
	for _, order := range []string{"gate first", "MusterGang first"} {
		t.Run(order, func(t *testing.T) {
			pl, g := gatePlugins(t, true)
			plugins := []fwk.PreEnqueuePlugin{g, pl}
			if order == "MusterGang first" {
				plugins = []fwk.PreEnqueuePlugin{pl, g}
			}
			for _, name := range []string{"el-0", "el-1", "el-2", "huge-0", "huge-1", "web"} {
				obj, _, _ := pl.pods.GetByKey("ns/" + name)
				by, st := pass(t, obj.(*v1.Pod), plugins...)
				if by != want[name] {
					t.Errorf("%s gated by %q (%v), want %q", name, by, st.Message(), want[name])
				}
				if r := reason[name]; r != "" && !strings.Contains(st.Message(), r) {
					t.Errorf("%s: %q, want it to say %q", name, st.Message(), r)
				}
			}
		})
	}
	pl, _ := gatePlugins(t, false)
	for _, name := range []string{"el-1", "huge-0", "huge-1"} {
		obj, _, _ := pl.pods.GetByKey("ns/" + name)
		if by, _ := pass(t, obj.(*v1.Pod), pl); by != Name {
			t.Errorf("without %s, %s gated by %q, want %s", GateName, name, by, Name)
		}
	}
}

// The gate's events are MusterGang's pod events, none of a node's: the
// queue asks a gated pod's gating plugin's hints on each of that plugin's
// events, so a node added asks nothing about the members the gate holds.
// MusterGang keeps its node events (its parked leads and the attempts it
// rejects need them). A gate without MusterGang in its profile says so.
func TestGateRegistersNoNodeEvent(t *testing.T) {
	pl, g := gatePlugins(t, true)
	events, err := g.EventsToRegister(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	has := func(events []fwk.ClusterEventWithHint, r fwk.EventResource, a fwk.ActionType) bool {
		for _, e := range events {
			if e.Event.Resource == r && e.Event.ActionType&a != 0 && e.QueueingHintFn != nil {
				return true
			}
		}
		return false
	}
	for _, e := range events {
		if e.Event.Resource == fwk.Node {
			t.Errorf("%s registers %s", GateName, e.Event.Label())
		}
	}
	for _, e := range []fwk.ClusterEvent{{Resource: fwk.UnscheduledPod, ActionType: fwk.Add}, {Resource: fwk.TargetPod, ActionType: fwk.Update}, {Resource: fwk.AssignedPod, ActionType: fwk.Delete}} {
		if !has(events, e.Resource, e.ActionType) {
			t.Errorf("%s does not register %s with a hint", GateName, e.Label())
		}
	}
	own, _ := pl.EventsToRegister(t.Context())
	if !has(own, fwk.Node, fwk.Add) {
		t.Errorf("%s no longer registers nodes added", Name)
	}

	alone := &Gate{state: gangstate.NewSet().For(pl.handle)}
	if _, err := alone.EventsToRegister(t.Context()); err == nil || !strings.Contains(err.Error(), "enable "+Name) {
		t.Errorf("a gate without %s: %v, want an error naming it", Name, err)
	}
	obj, _, _ := pl.pods.GetByKey("ns/el-0")
	if st := alone.PreEnqueue(t.Context(), obj.(*v1.Pod)); st.Code() != fwk.UnschedulableAndUnresolvable {
		t.Errorf("a gate without %s let a member through: %v", Name, st)
	}
}
