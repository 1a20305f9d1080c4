// Unit test of dropping a request: its templates are deleted from a list the watch cache serves at once.

package provisioning

import (
	"context"
	"strconv"
	"testing"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	autoscalingv1 "github.com/muster-project/muster/pkg/apis/autoscaling/v1"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/podpatch"
)

// A drop deletes the request's PodTemplates by label from a list not older
// than the last template the writer created, which the API server's watch
// cache serves at once; a consistent list waited for the cache's next
// progress notification, up to 100 ms a drop. When the writer cannot vouch
// for every template (one already existed, or it just became leader) the
// list is consistent.
func TestDropListsTemplatesNotOlderThanItsOwn(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset()
	revision, exists := 40, false
	client.PrependReactor("create", "podtemplates", func(a clienttesting.Action) (bool, runtime.Object, error) {
		tmpl := a.(clienttesting.CreateAction).GetObject().(*v1.PodTemplate).DeepCopy()
		if exists {
			return true, nil, apierrors.NewAlreadyExists(v1.Resource("podtemplates"), tmpl.Name)
		}
		revision++
		tmpl.ResourceVersion = strconv.Itoa(revision)
		return true, tmpl, nil
	})
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{autoscalingv1.Resource: "ProvisioningRequestList"})
	k := gang.Key{Namespace: "ns", Name: "llm"}
	member := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: k.Namespace, Name: "llm-0", UID: types.UID("u0")}}
	leading := true
	w, err := NewWriter(client, dyn, podpatch.NewForClient(nil), Options{Members: func(gang.Key) []*v1.Pod { return []*v1.Pod{member} },
		Synced: func() bool { return true }, Leading: func() bool { return leading }})
	if err != nil {
		t.Fatal(err)
	}
	want := Want{Key: k, Min: 2, Sets: []Set{{Member: member, Count: 2, GPUs: 8, Shape: "8 GPUs"}}}
	// dropped drops request name and returns the list its templates were
	// deleted from.
	dropped := func(name string) metav1.ListOptions {
		t.Helper()
		client.ClearActions()
		w.drop(ctx, k, name, "test")
		for _, a := range client.Actions() {
			if dc, ok := a.(clienttesting.DeleteCollectionActionImpl); ok {
				return dc.ListOptions
			}
		}
		t.Fatalf("dropping %s deleted no PodTemplates by label", name)
		return metav1.ListOptions{}
	}
	if err := w.create(ctx, want, "r1"); err != nil {
		t.Fatal(err)
	}
	if got := dropped("r1"); got.ResourceVersion != "41" || got.ResourceVersionMatch != metav1.ResourceVersionMatchNotOlderThan || got.LabelSelector != RequestLabel+"="+requestLabelValue("r1") {
		t.Errorf("templates of r1 deleted from list %+v, want label %s=%s, not older than 41 (its template)", got, RequestLabel, requestLabelValue("r1"))
	}

	exists = true // another leader created it first
	if err := w.create(ctx, want, "r2"); err != nil {
		t.Fatal(err)
	}
	if got := dropped("r2"); got.ResourceVersion != "" || got.ResourceVersionMatch != "" {
		t.Errorf("after a template already existed, templates deleted from list %+v, want a consistent list", got)
	}

	exists = false
	if err := w.create(ctx, want, "r3"); err != nil {
		t.Fatal(err)
	}
	leading = false
	w.Sync(ctx) // a standby's
	leading = true
	w.Sync(ctx) // leader again: another leader may have written templates meanwhile
	if got := dropped("r3"); got.ResourceVersion != "" || got.ResourceVersionMatch != "" {
		t.Errorf("after becoming leader again, templates deleted from list %+v, want a consistent list", got)
	}
}

// A request with one PodSet has one PodTemplate, named as the request: its
// drop deletes that by name, without the label-selected DeleteCollection
// (a list and a delete in the API server). With more PodSets, or when the
// Sync did not read the request, both.
func TestDropDeletesTemplatesByPodSets(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset()
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{autoscalingv1.Resource: "ProvisioningRequestList"})
	k := gang.Key{Namespace: "ns", Name: "mpi"}
	launcher := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: k.Namespace, Name: "mpi-launcher", UID: types.UID("l")}}
	worker := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: k.Namespace, Name: "mpi-worker-0", UID: types.UID("w")}}
	w, err := NewWriter(client, dyn, podpatch.NewForClient(nil), Options{Members: func(gang.Key) []*v1.Pod { return []*v1.Pod{launcher, worker} },
		Synced: func() bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	oneSet := Want{Key: k, Min: 2, Sets: []Set{{Member: worker, Count: 2, GPUs: 8, Shape: "8 GPUs"}}}
	twoSets := Want{Key: k, Min: 3, Sets: []Set{{Member: worker, Count: 2, GPUs: 8, Shape: "8 GPUs"}, {Member: launcher, Count: 1, Shape: "CPU"}}}
	for _, tc := range []struct {
		name           string
		want           Want
		read           bool // the running Sync read the request
		wantCollection bool
	}{
		{name: "one-set", want: oneSet, read: true},
		{name: "two-sets", want: twoSets, read: true, wantCollection: true},
		{name: "not-read", want: oneSet, wantCollection: true},
	} {
		if err := w.create(ctx, tc.want, tc.name); err != nil {
			t.Fatal(err)
		}
		w.fetched = nil
		if tc.read {
			u, err := dyn.Resource(autoscalingv1.Resource).Namespace(k.Namespace).Get(ctx, tc.name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			w.fetched = map[types.NamespacedName]fetchedRequest{{Namespace: k.Namespace, Name: tc.name}: {u: u}}
		}
		client.ClearActions()
		w.drop(ctx, k, tc.name, "test")
		collection, named := false, false
		for _, a := range client.Actions() {
			switch a := a.(type) {
			case clienttesting.DeleteCollectionActionImpl:
				collection = true
			case clienttesting.DeleteActionImpl:
				named = named || (a.GetResource().Resource == "podtemplates" && a.GetName() == tc.name)
			}
		}
		if collection != tc.wantCollection || !named {
			t.Errorf("%s: DeleteCollection %v (want %v), template deleted by name %v (want true)", tc.name, collection, tc.wantCollection, named)
		}
		if _, err := dyn.Resource(autoscalingv1.Resource).Namespace(k.Namespace).Get(ctx, tc.name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("%s: request still there after its drop (%v)", tc.name, err)
		}
		if _, err := client.CoreV1().PodTemplates(k.Namespace).Get(ctx, tc.name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("%s: its template still there after the drop (%v)", tc.name, err)
		}
	}
}
