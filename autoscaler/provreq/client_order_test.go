// Tests of olderRequest: Muster's creation stamp orders requests made within one second, the creationTimestamp otherwise, a malformed stamp counting as none.

package provreq

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/muster-project/muster/autoscaler/provreq/apis/v1"
)

// TestOlderRequest: Muster's creation stamp orders requests created within
// one second of the creationTimestamp, in the order they came and not by
// name; without it (a request of another writer) the creationTimestamp
// does, and a malformed stamp counts as none.
func TestOlderRequest(t *testing.T) {
	second := metav1.NewTime(time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC))
	req := func(name, stamp string, created metav1.Time) *v1.ProvisioningRequest {
		pr := &v1.ProvisioningRequest{ObjectMeta: metav1.ObjectMeta{Namespace: "training", Name: name, CreationTimestamp: created}}
		if stamp != "" {
			pr.Annotations = map[string]string{CreatedAnnotation: stamp}
		}
		return pr
	}
	later := metav1.NewTime(second.Add(time.Second))
	for _, c := range []struct {
		name string
		a, b *v1.ProvisioningRequest
		want bool
	}{
		{"same second: the earlier stamp first, whatever the names", req("muster-mpi", "2026-11-26T12:00:00.2Z", second), req("muster-huge", "2026-11-26T12:00:00.7Z", second), true},
		{"same second: the later stamp after", req("muster-huge", "2026-11-26T12:00:00.7Z", second), req("muster-mpi", "2026-11-26T12:00:00.2Z", second), false},
		{"equal stamps: by name", req("muster-huge", "2026-11-26T12:00:00.5Z", second), req("muster-mpi", "2026-11-26T12:00:00.5Z", second), true},
		{"no stamps: creationTimestamp", req("b", "", second), req("a", "", later), true},
		{"no stamps, same second: by name", req("b", "", second), req("a", "", second), false},
		{"a malformed stamp is no stamp", req("b", "yesterday", second), req("a", "", later), true},
	} {
		if got := olderRequest(c.a, c.b); got != c.want {
			t.Errorf("%s: olderRequest(%s, %s) = %v, want %v", c.name, c.a.Name, c.b.Name, got, c.want)
		}
	}
}
