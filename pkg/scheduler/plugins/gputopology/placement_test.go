// Unit tests of the gangs' placement records: what is forgotten when a gang goes.

package gputopology

import (
	"context"
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"

	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/gangstate"
	"github.com/muster-project/muster/pkg/scheduler/provisioning"
)

// TestHintTimeForgottenWhenGangGone: a gang whose members never bound leaves
// no hint time behind once its last member is deleted.
func TestHintTimeForgottenWhenGangGone(t *testing.T) {
	informer := cache.NewSharedIndexInformer(&cache.ListWatch{}, &v1.Pod{}, 0, cache.Indexers{})
	if err := gangstate.EnsureGangIndex(informer); err != nil {
		t.Fatal(err)
	}
	pl := newTestPlugin()
	pl.pods = informer.GetIndexer()
	pl.hinted = map[gang.Key]time.Time{}
	k := gang.Key{Namespace: "ml", Name: "g"}
	pods := members("g", 2, "8")
	for _, p := range pods {
		if err := pl.pods.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	pl.hinted[k] = time.Now()

	// As the informer does: the store first, then the handler.
	remove := func(p *v1.Pod) {
		if err := pl.pods.Delete(p); err != nil {
			t.Fatal(err)
		}
		pl.podGone(p)
	}
	remove(pods[0])
	if _, ok := pl.hinted[k]; !ok {
		t.Fatal("hint time forgotten while a member is left")
	}
	remove(pods[1])
	if _, ok := pl.hinted[k]; ok {
		t.Error("hint time kept after the gang's last unbound member was deleted")
	}

	// A cycle that began before the last member went fails after podGone
	// ran: its PostFilter records nothing that nothing would ever forget.
	w, err := provisioning.NewWriter(nil, nil, nil, provisioning.Options{Members: func(gang.Key) []*v1.Pod { return nil }, Synced: func() bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	pl.requests = w
	state := framework.NewCycleState()
	gangstate.StoreSpec(state, gang.Spec{Key: k, MinMember: 2})
	if _, st := pl.PostFilter(context.Background(), state, pods[1], nil); st.IsSuccess() {
		t.Fatalf("PostFilter of a gone gang's member succeeded: %v", st)
	}
	if _, ok := pl.hinted[k]; ok {
		t.Error("PostFilter of a gang whose last member is gone left a hint time")
	}
}

// A member's shape is dropped once it is placed: the shape holds the pod as
// it was while waiting, so a cache that kept it until the pod was deleted
// held a second copy of every running member. Updates of a waiting member
// keep it (its attempts read it again).
func TestPlacedMembersShapesAreDropped(t *testing.T) {
	pl := newTestPlugin()
	launcher := st.MakePod().Namespace("ml").Name("mpi-launcher").UID("mpi-launcher").Label(gang.GroupLabel, "mpi").
		Req(map[v1.ResourceName]string{v1.ResourceCPU: "8"}).Obj()
	pods := append(members("mpi", 3, "8"), launcher)
	for _, p := range pods {
		p.ResourceVersion = "1"
		pl.memberShapes.Of(p) // as the gang's attempts read them
	}
	shapes := func() int { return pl.stateEntries()["shape-pods"] }
	if n := shapes(); n != 4 {
		t.Fatalf("shape-pods %d after the attempt read 4 members", n)
	}
	waiting := pods[1].DeepCopy()
	waiting.ResourceVersion = "2"
	waiting.Annotations = map[string]string{"muster.dev/consume-provisioning-request": "mpi-r1"}
	pl.podChanged(pods[1], waiting)
	if n := shapes(); n != 4 {
		t.Errorf("shape-pods %d after a waiting member's update, want 4", n)
	}
	for i, p := range pods {
		bound := p.DeepCopy()
		bound.ResourceVersion, bound.Spec.NodeName = "3", fmt.Sprintf("gpu-%05d", i)
		pl.podChanged(p, bound)
	}
	if n := shapes(); n != 0 {
		t.Errorf("shape-pods %d once every member is bound, want 0", n)
	}
}
