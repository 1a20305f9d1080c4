// Unit tests of Evicting: the members evicted to make room, until the plugin sees them deleted.

package gang

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"

	"github.com/muster-project/muster/pkg/capacity"
	"github.com/muster-project/muster/pkg/gang"
)

// A member evicted to make room counts as evicting until the plugin sees
// it deleted (a stepped scheduler waits for that before its next pod); one
// whose eviction failed (here: already gone) never counts.
func TestEvictedMembersCountUntilSeenDeleted(t *testing.T) {
	victim := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "old-0", UID: types.UID("u-old-0")}}
	gone := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "old-1", UID: types.UID("u-old-1")}}
	fw, err := frameworkruntime.NewFramework(t.Context(), nil, &schedconfig.KubeSchedulerProfile{SchedulerName: "muster-scheduler"},
		frameworkruntime.WithClientSet(fake.NewClientset(victim)), frameworkruntime.WithEventRecorder(events.NewFakeRecorder(10)))
	if err != nil {
		t.Fatal(err)
	}
	pl := &Gang{handle: fw, shapes: capacity.NewShapes("nvidia.com/gpu")}
	if got := pl.Evicting(); len(got) != 0 {
		t.Fatalf("evicting %d before any eviction", len(got))
	}
	pl.evict(t.Context(), victim, gang.ReasonPreempted, v1.PodReasonPreemptionByScheduler, "made room")
	pl.evict(t.Context(), gone, gang.ReasonPreempted, v1.PodReasonPreemptionByScheduler, "made room")
	got := pl.Evicting()
	if len(got) != 1 || got[0].UID != victim.UID {
		t.Fatalf("evicting %v, want old-0 alone", got)
	}
	pl.podDeleted(victim.UID)
	if got := pl.Evicting(); len(got) != 0 {
		t.Fatalf("evicting %v after old-0 was seen deleted, want none", got)
	}
}
