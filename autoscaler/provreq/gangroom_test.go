// Tests of the room a waiting gang counts on: its request's pending consumers beyond its count and every in-room consumer, none of held, vanished or Failed requests, by priority then age.

package provreq

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	apiv1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/autoscaler/cluster-autoscaler/core"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/framework"

	"github.com/muster-project/muster/autoscaler/contract"
	v1 "github.com/muster-project/muster/autoscaler/provreq/apis/v1"
)

// TestCountedOn: per request, the pending consumers beyond its count are the
// room its gang counts on; none of a held or vanished request's, nor of a
// Failed one's; every consumer of a gang's in-room name (no request has
// it); bound and terminating pods are not pending; higher priority, then
// older gangs first.
func TestCountedOn(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	consumer := func(name, req string, prio int32, age time.Duration) *apiv1.Pod {
		p := &apiv1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: name, CreationTimestamp: metav1.NewTime(t0.Add(-age)),
			Annotations: map[string]string{v1.ProvisioningRequestPodAnnotationKey: req, v1.ProvisioningClassPodAnnotationKey: v1.ProvisioningClassBestEffortAtomicScaleUp}}}
		p.Spec.Priority = &prio
		return p
	}
	var pods []*apiv1.Pod
	for i := 3; i >= 0; i-- { // out of order: the choice is by name
		pods = append(pods, consumer(fmt.Sprintf("w-%d", i), "short-one", 0, time.Minute))
	}
	bound := consumer("w-9", "short-one", 0, time.Minute)
	bound.Spec.NodeName = "gpu-0"
	leaving := consumer("w-8", "short-one", 0, time.Minute)
	leaving.DeletionTimestamp = &metav1.Time{Time: t0}
	pods = append(pods, bound, leaving,
		consumer("launcher", "held", 0, time.Hour),
		consumer("urgent-0", "urgent", 1000, 0), consumer("urgent-1", "urgent", 1000, 0),
		consumer("huge-0", "never", 0, 2*time.Hour), consumer("huge-1", "never", 0, 2*time.Hour),
		consumer("fits-1", "muster-fits"+contract.InRoomSuffix, 0, 3*time.Hour), consumer("fits-0", "muster-fits"+contract.InRoomSuffix, 0, 3*time.Hour),
		&apiv1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "plain"}})

	failed := request("ml", "never", v1.ProvisioningClassBestEffortAtomicScaleUp, v1.PodSet{Count: 1})
	failed.Status.Conditions = []metav1.Condition{cond(v1.Failed, metav1.ConditionTrue, ReasonNoNodeGroupCanHold, t0)}
	requests := map[string]*v1.ProvisioningRequest{
		"short-one": request("ml", "short-one", v1.ProvisioningClassBestEffortAtomicScaleUp, v1.PodSet{Count: 1}),
		"urgent":    request("ml", "urgent", v1.ProvisioningClassBestEffortAtomicScaleUp, v1.PodSet{Count: 1}),
		"never":     failed,
	}
	lookup := func(ns, name string) (*v1.ProvisioningRequest, bool) {
		pr, ok := requests[name]
		return pr, ok && ns == "ml"
	}
	var got []string
	for _, p := range CountedOn(pods, lookup) {
		got = append(got, p.Name)
	}
	want := []string{"urgent-1", "fits-0", "fits-1", "w-1", "w-2", "w-3"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("CountedOn = %v, want %v", got, want)
	}
}

// In-room members count only on nodes that exist: the core's placeholders
// for instances not yet registered were bought for other pods (make test:
// TestInRoomMembersBuyNothingAndKeepTheirRoom bought three H100 nodes, one
// per loop, for one plain pod while the in-room members took each
// placeholder). The annotation is the core's.
func TestInRoomMembersCountOnExistingNodesOnly(t *testing.T) {
	if upcomingNodeAnnotation != core.NodeUpcomingAnnotation {
		t.Fatalf("upcomingNodeAnnotation %q, the core's is %q", upcomingNodeAnnotation, core.NodeUpcomingAnnotation)
	}
	node := func(annotations map[string]string) *framework.NodeInfo {
		return framework.NewNodeInfo(&apiv1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Annotations: annotations}}, nil)
	}
	if !existing(node(nil)) {
		t.Error("a registered node is not taken for existing")
	}
	if existing(node(map[string]string{core.NodeUpcomingAnnotation: "true"})) {
		t.Error("an upcoming placeholder is taken for existing")
	}
}
