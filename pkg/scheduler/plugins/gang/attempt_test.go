package gang

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	backendcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"

	"github.com/muster-project/muster/pkg/capacity"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/gangstate"
	"github.com/muster-project/muster/pkg/simulate"
)

// PostFilter fails the attempt of a gang whose quorum member fits no node,
// and says whether room is what it lacked: only then does the capacity plan
// keep holding room for it. A node rejecting the member for room alone
// (NodeResourcesFit's "Insufficient ...", or room held for others) is room;
// a rejection room cannot change (a taint, a class, or another plugin's
// reason for the whole cycle) is not: a node counts as room only when
// every reason it gave is room.
func TestPostFilterFailsTheAttemptAndSaysWhetherRoomWasShort(t *testing.T) {
	nodes := []*v1.Node{planNode("gpu-0").Node(), planNode("gpu-1").Node()}
	act := &activations{}
	fw, err := frameworkruntime.NewFramework(t.Context(), nil, &schedconfig.KubeSchedulerProfile{SchedulerName: "muster-scheduler"},
		frameworkruntime.WithPodActivator(act), frameworkruntime.WithWaitingPods(frameworkruntime.NewWaitingPodsMap()),
		frameworkruntime.WithSnapshotSharedLister(backendcache.NewSnapshot(nil, nodes)))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		reasons   []string
		roomShort bool
		summary   string
	}{
		{"short of GPUs", []string{"Insufficient nvidia.com/gpu"}, true, "2 Insufficient nvidia.com/gpu"},
		{"held for older gangs", []string{ReasonHeld}, true, "2 " + ReasonHeld},
		{"untolerated taint", []string{"node(s) had untolerated taint {dedicated: infra}"}, false, "untolerated taint"},
		{"room and a taint on one node", []string{"Insufficient nvidia.com/gpu", "node(s) had untolerated taint {dedicated: infra}"}, false, "untolerated taint"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := simulate.NewStepClock(time.Unix(1000, 0))
			pl, _, k := wakePlugin(t, clk, 10*time.Second, "moe", 2)
			pl.handle, pl.shapes = fw, capacity.NewShapes("nvidia.com/gpu")
			obj, _, _ := pl.pods.GetByKey("ns/moe-0")
			pod := obj.(*v1.Pod)
			statuses := framework.NewDefaultNodeToStatus()
			for _, n := range nodes {
				statuses.Set(n.Name, fwk.NewStatus(fwk.Unschedulable, tc.reasons...))
			}
			state := framework.NewCycleState()
			state.Write(gangstate.CycleKey, &gangstate.Cycle{Spec: mustSpec(t, pl, pod), Attempt: pl.tracker.Attempt(k)})

			_, st := pl.PostFilter(t.Context(), state, pod, statuses)
			if st.Code() != fwk.Unschedulable || !strings.Contains(st.Message(), "gang ns/moe could not place its quorum: member moe-0 fits no node (0 of min 2 placed") || !strings.Contains(st.Message(), tc.summary) {
				t.Fatalf("PostFilter: %v %q, want the gang's failure naming %q", st.Code(), st.Message(), tc.summary)
			}
			if _, _, backingOff := pl.tracker.BackingOff(k); !backingOff {
				t.Error("the gang's attempt failed without a backoff")
			}
			if short, ok := pl.roomShort.Load(k); !ok || short != tc.roomShort {
				t.Errorf("room short %v (%t), want %t", short, ok, tc.roomShort)
			}
		})
	}
}

func mustSpec(t *testing.T, pl *Gang, pod *v1.Pod) gang.Spec {
	t.Helper()
	spec, _, err := pl.resolve(pod)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}
