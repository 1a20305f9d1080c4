package gang

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/muster-project/muster/pkg/gang"
)

// A gang's lead is found once per delivery of a cluster event, however many
// of its members the queue asks about; a pod the scheduler forgot twice,
// unchanged (its Permit rejected twice), is two deliveries.
func TestLeadFoundOncePerDelivery(t *testing.T) {
	young := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "young-0", UID: "u-young-0", ResourceVersion: "7"}}
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "cpu-0", UID: "u-cpu-0", ResourceVersion: "9"}}
	k := gang.Key{Namespace: "ns", Name: "mpi"}
	var m leadMemo
	runs := 0
	lead := func() types.UID { runs++; return "u-mpi-0" }
	ask := func(oldObj, newObj any, members int) {
		t.Helper()
		for range members {
			if got := m.of(k, deliveryOf(oldObj, newObj), lead); got != "u-mpi-0" {
				t.Fatalf("lead %q, want u-mpi-0", got)
			}
		}
	}
	ask(young, nil, 7) // the scheduler forgets an assumed pod: seven members asked
	if runs != 1 {
		t.Fatalf("lead found %d times for one delivery, want 1", runs)
	}
	ask(young.DeepCopy(), nil, 7) // forgotten again, unchanged: a copy made for its next cycle
	if runs != 2 {
		t.Fatalf("lead found %d times for two deliveries of one unchanged pod, want 2", runs)
	}
	ask(nil, node, 3)
	ask(cache.DeletedFinalStateUnknown{Key: "ns/young-0", Obj: young}, nil, 2)
	if runs != 4 {
		t.Fatalf("lead found %d times for four deliveries, want 4", runs)
	}
	ask(nil, &v1.Node{}, 2) // an object without a UID: every time
	if runs != 6 {
		t.Fatalf("lead found %d times, want 6: an event without a name is not remembered", runs)
	}
}
