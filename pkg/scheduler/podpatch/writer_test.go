// Unit tests of the pod writer: a condition asked for and then unset is not written.

package podpatch

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// A condition asked for and unset before its turn is not written; the
// pod's annotations asked for with it still are.
func TestUnsetDropsAPendingCondition(t *testing.T) {
	w := NewForClient(nil) // never run: changes stay pending
	a := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}}
	b := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "b"}}
	gated := v1.PodCondition{Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: v1.PodReasonSchedulingGated, Message: "waits for quorum"}
	w.SetCondition(a, gated)
	w.SetCondition(b, gated)
	x := "x"
	w.Annotate(b, map[string]*string{"muster.test/x": &x})
	w.Unset(a, v1.PodScheduled)
	w.Unset(b, v1.PodScheduled)
	if got := w.Pending(); got != 1 {
		t.Fatalf("%d pods pending, want b alone (its annotation)", got)
	}
	if v, ok := w.Carried(b, "muster.test/x"); !ok || v != "x" {
		t.Errorf("b's annotation was dropped with its condition: %q %t", v, ok)
	}
	if c := w.pending[keyOf(b)]; c == nil || len(c.conditions) != 0 {
		t.Errorf("b's pending change %+v, want its annotation alone", c)
	}
	w.Unset(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "none"}}, v1.PodScheduled) // nothing pending: nothing to do
}

func keyOf(p *v1.Pod) types.NamespacedName {
	return types.NamespacedName{Namespace: p.Namespace, Name: p.Name}
}
