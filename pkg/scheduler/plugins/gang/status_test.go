package gang

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/gangstate"
	"github.com/muster-project/muster/pkg/scheduler/podpatch"
	"github.com/muster-project/muster/pkg/simulate"
)

// Other plugins report conditions on a gang's status through the profile's
// State: a new or changed condition marks the gang for writing, the same
// one again does not, and an empty reason clears it, keeping its
// transition time while its status stands.
func TestReportedConditionsAreWrittenWhenTheyChange(t *testing.T) {
	clk := simulate.NewStepClock(time.Unix(1000, 0))
	pl, _, k := wakePlugin(t, clk, time.Second, "llm", 2)
	pl.status = newStatusWriter(pl.handle, pl, podpatch.NewForClient(nil), time.Second) // never run: nothing here is written
	st := &gangstate.State{}
	st.ShareStatus(pl.status)
	w := pl.status
	dirty := func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		_, ok := w.dirty[k]
		w.dirty = map[gang.Key]struct{}{}
		return ok
	}
	cond := func() (metav1.Condition, bool) {
		w.mu.Lock()
		defer w.mu.Unlock()
		c, ok := w.extra[k][gang.ConditionPreempting]
		return c, ok
	}
	making := metav1.Condition{Type: gang.ConditionPreempting, Status: metav1.ConditionTrue, Reason: gang.ReasonMadeRoom, Message: "shed 2 members of ns/young"}

	if !st.ReportCondition(k, making) || !dirty() {
		t.Fatal("a new condition did not mark the gang for writing")
	}
	first, _ := cond()
	st.ReportCondition(k, making)
	if dirty() {
		t.Error("the same condition again marked the gang for writing")
	}
	more := making
	more.Message = "shed 3 members of ns/young"
	st.ReportCondition(k, more)
	if !dirty() {
		t.Error("a changed message did not mark the gang for writing")
	}
	if c, _ := cond(); c.Message != more.Message || !c.LastTransitionTime.Equal(&first.LastTransitionTime) {
		t.Errorf("after a changed message: %q since %v, want the new message since %v (its status stood)", c.Message, c.LastTransitionTime, first.LastTransitionTime)
	}
	st.ReportCondition(k, metav1.Condition{Type: gang.ConditionPreempting})
	if _, ok := cond(); ok || !dirty() {
		t.Errorf("an empty reason left the condition (%t) or did not mark the gang (want marked)", ok)
	}
	if !w.reported[gang.ConditionPreempting] {
		t.Error("a type once reported is not remembered as Muster's to remove from an upstream PodGroup")
	}
}
