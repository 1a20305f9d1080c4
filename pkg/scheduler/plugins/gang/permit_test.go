// Unit tests of Permit, Unreserve and PostBind: members held until the quorum has nodes, a lost reservation failing the attempt.

package gang

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"

	"github.com/muster-project/muster/pkg/simulate"
)

// Permit holds a gang's members until min of them have nodes, each for
// what is left of the gang's timeout counted from its first waiting
// member, then lets the min-th through and names the others to allow;
// Unreserve of a waiting member fails the gang's attempt, and says so
// differently once the timeout has passed.
func TestPermitHoldsMembersUntilTheQuorumHasNodes(t *testing.T) {
	clk := simulate.NewStepClock(time.Unix(1000, 0))
	pl, _, k := wakePlugin(t, clk, 10*time.Second, "llm", 3)
	pl.defaults.ScheduleTimeout = time.Minute
	member := func(i int) *v1.Pod {
		obj, ok, err := pl.pods.GetByKey("ns/llm-" + string(rune('0'+i)))
		if err != nil || !ok {
			t.Fatalf("member %d: %v %t", i, err, ok)
		}
		return obj.(*v1.Pod)
	}
	permit := func(i int) (*fwk.Status, time.Duration) {
		t.Helper()
		return pl.Permit(t.Context(), framework.NewCycleState(), member(i), "gpu-0")
	}

	st, wait := permit(0)
	if st.Code() != fwk.Wait || !strings.Contains(st.Message(), "waiting for 2 more members to be placed") || wait != time.Minute {
		t.Fatalf("first member: %v %q for %s, want Wait for 2 more members, a minute", st.Code(), st.Message(), wait)
	}
	clk.StepTo(clk.Now().Add(20 * time.Second))
	st, wait = permit(1)
	if st.Code() != fwk.Wait || !strings.Contains(st.Message(), "waiting for 1 more members") || wait != 40*time.Second {
		t.Fatalf("second member: %v %q for %s, want Wait for 1 more, the 40 s left of the gang's minute", st.Code(), st.Message(), wait)
	}
	if !pl.tracker.IsWaiting(k, member(0).UID) || !pl.tracker.IsWaiting(k, member(1).UID) {
		t.Fatal("the waiting members are not tracked as waiting")
	}
	if st, _ := permit(2); !st.IsSuccess() {
		t.Fatalf("the min-th member: %v %q, want it through with the others", st.Code(), st.Message())
	}
	if pl.tracker.IsWaiting(k, member(0).UID) || pl.tracker.IsWaiting(k, member(1).UID) {
		t.Error("members still waiting once the quorum has nodes")
	}

	// Another attempt: one member waits, then loses its reservation.
	k2pl, _, k2 := wakePlugin(t, clk, 10*time.Second, "moe", 2)
	k2pl.defaults.ScheduleTimeout = time.Minute
	obj, _, _ := k2pl.pods.GetByKey("ns/moe-0")
	moe0 := obj.(*v1.Pod)
	if st, _ := k2pl.Permit(t.Context(), framework.NewCycleState(), moe0, "gpu-0"); st.Code() != fwk.Wait {
		t.Fatalf("moe-0: %v, want Wait", st.Code())
	}
	k2pl.Unreserve(t.Context(), framework.NewCycleState(), moe0, "gpu-0")
	reason, left, backingOff := k2pl.tracker.BackingOff(k2)
	if !backingOff || left != 10*time.Second || !strings.Contains(reason, "member moe-0 lost its reservation (0 of min 2 placed)") {
		t.Fatalf("after a waiting member lost its reservation: backing off %t for %s, %q", backingOff, left, reason)
	}

	// Past the timeout, the same loss says the timeout passed.
	clk.StepTo(clk.Now().Add(11 * time.Second)) // the backoff is over
	if st, _ := k2pl.Permit(t.Context(), framework.NewCycleState(), moe0, "gpu-0"); st.Code() != fwk.Wait {
		t.Fatalf("moe-0 again: %v, want Wait", st.Code())
	}
	clk.StepTo(clk.Now().Add(time.Minute))
	k2pl.Unreserve(t.Context(), framework.NewCycleState(), moe0, "gpu-0")
	if reason := k2pl.tracker.LastFailure(k2); !strings.Contains(reason, "could not place its quorum within its 1m0s timeout (0 of min 2 placed, 1 waited)") {
		t.Fatalf("after the timeout: %q", reason)
	}
}

// PostBind has the bound member's gang status written again (its placed
// count changed), and nothing for a pod outside a gang.
func TestPostBindRefreshesTheGangsStatus(t *testing.T) {
	clk := simulate.NewStepClock(time.Unix(1000, 0))
	pl, _, k := wakePlugin(t, clk, 10*time.Second, "llm", 2)
	obj, _, _ := pl.pods.GetByKey("ns/llm-0")
	pl.PostBind(t.Context(), framework.NewCycleState(), st.MakePod().Namespace("ns").Name("lone").Obj(), "gpu-0")
	if len(pl.status.dirty) != 0 {
		t.Fatalf("a lone pod's bind marked gangs for a status write: %v", pl.status.dirty)
	}
	pl.PostBind(t.Context(), framework.NewCycleState(), obj.(*v1.Pod), "gpu-0")
	if _, ok := pl.status.dirty[k]; !ok || len(pl.status.dirty) != 1 {
		t.Fatalf("after llm-0 bound, gangs owed a status write: %v, want %s", pl.status.dirty, k)
	}
}
