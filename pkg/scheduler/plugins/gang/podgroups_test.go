// Unit tests of the PodGroup informers' handlers: a PodGroup that comes or whose spec changes wakes its own gang's members, a status write wakes no one, and PodGroups are no queue event.

package gang

import (
	"fmt"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	fwk "k8s.io/kube-scheduler/framework"
	schedv1alpha1 "sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
	schedlisters "sigs.k8s.io/scheduler-plugins/pkg/generated/listers/scheduling/v1alpha1"

	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/gangstate"
	"github.com/muster-project/muster/pkg/simulate"
)

// A PodGroup's arrival, and a change of its spec, annotations or deletion,
// wake the unplaced members of the gang it defines, of either PodGroup
// kind, and no other gang's; a status write wakes no one; nothing is woken
// before the queue first ran the gate. The queue is never asked about
// PodGroups: each event would run a hint for every parked pod of every
// gang.
func TestPodGroupWakesItsOwnGang(t *testing.T) {
	ctx := t.Context()
	clk := simulate.NewStepClock(time.Unix(1000, 0))
	pl, act, _, _, _ := heldPlugin(t, clk, 3) // with a CRD-free gang beside
	// As New leaves it: PodGroup changes release reservations.
	pl.started.Store(true)
	podGroups := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	pl.podGroups = schedlisters.NewPodGroupLister(podGroups)
	member := func(name string, i int, label func(*v1.Pod)) {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("%s-%d", name, i), UID: types.UID(fmt.Sprintf("u-%s-%d", name, i)),
			CreationTimestamp: metav1.Unix(int64(200+i), 0)}}
		label(p)
		if err := pl.pods.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 {
		member("mpi", i, func(p *v1.Pod) {
			p.Labels = map[string]string{gang.PodGroupLabel: "mpi"}
			if i == 0 {
				p.Spec.NodeName = "gpu-0" // placed: no wake
			}
		})
		member("ray", i, func(p *v1.Pod) { p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: new("ray")} })
	}
	events, err := pl.EventsToRegister(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range events {
		if r := ev.Event.Resource; r != fwk.UnscheduledPod && r != fwk.TargetPod && r != fwk.AssignedPod && r != fwk.Node {
			t.Errorf("registered %s: the queue would ask about every parked pod on each of its events", r)
		}
	}

	spPG := &schedv1alpha1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "mpi", Generation: 1}, Spec: schedv1alpha1.PodGroupSpec{MinMember: 3}}
	if err := podGroups.Add(spPG); err != nil {
		t.Fatal(err)
	}
	sp := pl.podGroupHandler(ctx)
	sp.OnAdd(spPG, true)
	if got := act.take(); got != nil {
		t.Fatalf("before the queue ran the gate, a PodGroup's arrival activated %v", got)
	}
	if st := pl.PreEnqueue(ctx, &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"}}); !st.IsSuccess() || pl.queueing.Load() {
		t.Fatalf("a pod outside any gang: gate %v, queueing %v; want it through, and no gang member gated yet", st, pl.queueing.Load())
	}
	obj, _, _ := pl.pods.GetByKey("ns/mpi-1")
	pl.PreEnqueue(ctx, obj.(*v1.Pod))
	if !pl.queueing.Load() {
		t.Fatal("the gate ran on a member, and the plugin does not know the queue is there")
	}
	_ = act.take()

	// A change to what a gang is has the request writer retry it at once
	// if it holds the gang back as one no pool could ever hold: the
	// autoscaler's answer was about the gang as it was.
	retried := &retryRecorder{}
	pl.state = &gangstate.State{}
	pl.state.ShareRequests(retried)
	step := func(what string, f func(), want ...string) {
		t.Helper()
		f()
		if got := act.take(); !slices.Equal(got, want) {
			t.Errorf("%s: activated %v, want %v", what, got, want)
		}
	}
	retries := func(what string, want ...string) {
		t.Helper()
		if got := retried.take(); !slices.Equal(got, want) {
			t.Errorf("%s: never-fits retries %v, want %v", what, got, want)
		}
	}
	mpi := []string{"ns/mpi-1", "ns/mpi-2"}
	step("scheduler-plugins PodGroup added", func() { sp.OnAdd(spPG, false) }, mpi...)
	status := spPG.DeepCopy()
	status.Status.Phase = schedv1alpha1.PodGroupPending
	status.ResourceVersion = "2"
	step("its status written", func() { sp.OnUpdate(spPG, status) })
	retries("its status written")
	grown := status.DeepCopy()
	grown.Generation, grown.Spec.MinMember = 2, 2
	step("its minMember changed", func() { sp.OnUpdate(status, grown) }, mpi...)
	retries("its minMember changed", "ns/mpi")
	annotated := grown.DeepCopy()
	annotated.Annotations = map[string]string{gang.MaxMemberAnnotation: "4"}
	step("its max annotation set", func() { sp.OnUpdate(grown, annotated) }, mpi...)
	retries("its max annotation set", "ns/mpi")
	deleting := annotated.DeepCopy()
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Unix(2000, 0)}
	step("marked for deletion", func() { sp.OnUpdate(annotated, deleting) }, mpi...)

	up := pl.workloadPodGroupHandler(ctx)
	upPG := &schedv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "ray", Generation: 1}}
	step("upstream PodGroup added", func() { up.OnAdd(upPG, false) }, "ns/ray-0", "ns/ray-1", "ns/ray-2")
	upStatus := upPG.DeepCopy()
	upStatus.Status.Conditions = []metav1.Condition{{Type: schedv1beta1.PodGroupInitiallyScheduled, Status: metav1.ConditionFalse}}
	step("its status written", func() { up.OnUpdate(upPG, upStatus) })
	step("a PodGroup no pod names added", func() {
		sp.OnAdd(&schedv1alpha1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "idle"}}, false)
	})
}

// retryRecorder is a RequestWriter that records the gangs it was asked to
// retry at once.
type retryRecorder struct{ keys []string }

func (r *retryRecorder) Settled() bool                { return true }
func (r *retryRecorder) Syncs() (uint64, uint64, int) { return 0, 0, 0 }
func (r *retryRecorder) Kick()                        {}
func (r *retryRecorder) RequestsSeen() (string, bool) { return "", false }
func (r *retryRecorder) RetryNeverFits(k gang.Key)    { r.keys = append(r.keys, k.String()) }
func (r *retryRecorder) take() []string               { k := r.keys; r.keys = nil; return k }
