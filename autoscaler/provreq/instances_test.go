// Tests of the record of instances each request's scale-up added: two scale-ups of one pool in flight, late instances, a restart, an unknown node group.

package provreq

import (
	"fmt"
	"testing"

	apiv1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	testprovider "k8s.io/autoscaler/cluster-autoscaler/cloudprovider/test"

	v1 "github.com/muster-project/muster/autoscaler/provreq/apis/v1"
)

// TestRecordInstances: each request records exactly the instances its
// scale-up added, also with two scale-ups of one pool in flight, instances
// that appear late, and after a restart.
func TestRecordInstances(t *testing.T) {
	cp := testprovider.NewTestCloudProviderBuilder().Build()
	cp.AddNodeGroup("gpu", 0, 10, 1)
	add := func(names ...string) {
		for _, n := range names {
			cp.AddNode("gpu", &apiv1.Node{ObjectMeta: metav1.ObjectMeta{Name: n}})
		}
	}
	add("old-0")
	groups := cp.NodeGroups()
	c := NewClient(nil, nil, nil)
	req := func(name string) *v1.ProvisioningRequest {
		return &v1.ProvisioningRequest{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: name, UID: types.UID(name)}}
	}
	a, b := req("a"), req("b")
	c.requests = []*v1.ProvisioningRequest{a, b}
	record := func(pr *v1.ProvisioningRequest, registered map[string]bool) []string {
		t.Helper()
		if _, err := c.recordInstances(pr, groups, registered); err != nil {
			t.Fatal(err)
		}
		_, _, ids, _ := v1.AddedInstances(pr)
		return ids
	}

	// a's scale-up of 2; one instance is listed at once, one later.
	c.startRecord(a, "gpu", 2, instancesBefore(groups)["gpu"])
	add("new-0")
	if got := fmt.Sprint(record(a, nil)); got != "[new-0]" {
		t.Fatalf("a records %s, want [new-0]", got)
	}
	// b's scale-up of 1 starts before a's second instance is listed.
	c.startRecord(b, "gpu", 1, instancesBefore(groups)["gpu"])
	add("new-1", "new-2")
	if got := fmt.Sprint(record(a, nil)); got != "[new-0 new-1]" {
		t.Fatalf("a records %s, want [new-0 new-1]", got)
	}
	if got := fmt.Sprint(record(b, nil)); got != "[new-2]" {
		t.Fatalf("b records %s, want [new-2] (new-1 is a's)", got)
	}
	// Complete: nothing more is taken.
	add("new-3")
	if got := fmt.Sprint(record(a, nil)); got != "[new-0 new-1]" {
		t.Fatalf("a records %s after it was complete", got)
	}

	// A restart loses the lists from before: an instance added is one not
	// registered as a Node and not recorded by another request.
	r := req("r")
	c.requests = append(c.requests, r)
	v1.SetAddedInstances(r, "gpu", 1, nil)
	c2 := &Client{requests: c.requests, scaleUps: map[types.UID]scaleUp{}}
	if _, err := c2.recordInstances(r, groups, map[string]bool{"old-0": true}); err != nil {
		t.Fatal(err)
	}
	if _, _, ids, _ := v1.AddedInstances(r); fmt.Sprint(ids) != "[new-3]" {
		t.Fatalf("after a restart r records %v, want [new-3]", ids)
	}

	// A record naming a node group the provider lacks is an error naming
	// the field.
	v1.SetAddedInstances(r, "gone", 1, nil)
	if _, err := c2.recordInstances(r, groups, nil); err == nil {
		t.Fatal("no error for a node group the provider lacks")
	}
}
