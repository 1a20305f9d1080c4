// Unit tests of the gangs' placement records: what is forgotten when a gang goes.

package gputopology

import (
	"context"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"

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
