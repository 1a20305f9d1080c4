// Tests that the local v1 types match upstream's: requests and statuses decode into v1beta1 with nothing lost and back, condition types and class names the same.

package v1_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	upstream "k8s.io/autoscaler/cluster-autoscaler/apis/provisioningrequest/autoscaling.x-k8s.io/v1beta1"

	v1 "github.com/muster-project/muster/autoscaler/provreq/apis/v1"
)

// TestShapesMatchUpstream: a request and its status written by the local v1
// types decode into upstream's Go types (v1beta1, whose schema v1 kept) with
// nothing lost, and back. Unknown JSON fields are rejected on both sides.
func TestShapesMatchUpstream(t *testing.T) {
	at := metav1.NewTime(time.Unix(1_700_000_000, 0).UTC())
	local := v1.ProvisioningRequest{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1.GroupVersion.String(), Kind: v1.Kind},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "gang-a", Labels: map[string]string{"muster.dev/gang": "gang-a"}},
		Spec: v1.ProvisioningRequestSpec{
			ProvisioningClassName: v1.ProvisioningClassBestEffortAtomicScaleUp,
			PodSets:               []v1.PodSet{{PodTemplateRef: v1.Reference{Name: "gang-a"}, Count: 3}},
			Parameters:            map[string]v1.Parameter{"p": "x"},
		},
		Status: v1.ProvisioningRequestStatus{
			Conditions: []metav1.Condition{{Type: v1.Provisioned, Status: metav1.ConditionTrue, Reason: "CapacityIsProvisioned",
				Message: "gpu-heavy pool adding 3 nodes", LastTransitionTime: at, ObservedGeneration: 1}},
			ProvisioningClassDetails: map[string]v1.Detail{"d": "y"},
		},
	}
	raw, err := json.Marshal(local)
	if err != nil {
		t.Fatal(err)
	}
	var up upstream.ProvisioningRequest
	dec := json.NewDecoder(bytesReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&up); err != nil {
		t.Fatalf("upstream types do not accept the local shape %s: %v", raw, err)
	}
	if up.Spec.ProvisioningClassName != upstream.ProvisioningClassBestEffortAtomicScaleUp ||
		len(up.Spec.PodSets) != 1 || up.Spec.PodSets[0].PodTemplateRef.Name != "gang-a" || up.Spec.PodSets[0].Count != 3 ||
		up.Spec.Parameters["p"] != "x" || up.Status.ProvisioningClassDetails["d"] != "y" ||
		len(up.Status.Conditions) != 1 || up.Status.Conditions[0].Type != upstream.Provisioned || up.Status.Conditions[0].Message != "gpu-heavy pool adding 3 nodes" {
		t.Fatalf("upstream decoded %+v", up)
	}
	raw2, err := json.Marshal(up)
	if err != nil {
		t.Fatal(err)
	}
	var back v1.ProvisioningRequest
	dec = json.NewDecoder(bytesReader(raw2))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&back); err != nil {
		t.Fatalf("local types do not accept upstream's shape %s: %v", raw2, err)
	}
	raw3, err := json.Marshal(back)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(raw3, raw) {
		t.Fatalf("round trip through upstream's types changed the object:\n got %s\nwant %s", raw3, raw)
	}
}

// TestNamesMatchUpstream: condition types and class names are upstream's.
func TestNamesMatchUpstream(t *testing.T) {
	for local, up := range map[string]string{
		v1.Accepted: upstream.Accepted, v1.Provisioned: upstream.Provisioned, v1.Failed: upstream.Failed,
		v1.BookingExpired: upstream.BookingExpired, v1.CapacityRevoked: upstream.CapacityRevoked,
		v1.ProvisioningClassBestEffortAtomicScaleUp: upstream.ProvisioningClassBestEffortAtomicScaleUp,
		v1.ProvisioningClassCheckCapacity:           upstream.ProvisioningClassCheckCapacity,
	} {
		if local != up {
			t.Errorf("local %q, upstream %q", local, up)
		}
	}
	if v1.GroupVersion.Group != upstream.SchemeGroupVersion.Group {
		t.Errorf("group %q, upstream %q", v1.GroupVersion.Group, upstream.SchemeGroupVersion.Group)
	}
}
