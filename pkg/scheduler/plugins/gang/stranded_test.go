// Unit tests of stranded members: a quorum whose binds land one by one is not stranded on the way.

package gang

import (
	"testing"
	"time"

	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/podpatch"
	"github.com/muster-project/muster/pkg/simulate"
)

// A member bound while the rest of its quorum is permitted and binding is
// not stranded: the informer shows the binds one by one, and marking the
// first ones stranded-since (then unmarking them) cost two writes per
// member of every gang that bound. Once a permitted member's bind fails
// (Release), the bound one is stranded and marked.
func TestMembersBindingAreNotStranded(t *testing.T) {
	ctx := t.Context()
	clk := simulate.NewStepClock(time.Unix(1000, 0))
	pl, _, k := wakePlugin(t, clk, time.Second, "duo", 2)
	pl.strandedPolicy = gang.StrandedEvict
	marks := podpatch.NewForClient(nil) // never run: marks stay pending
	pl.status = newStatusWriter(pl.handle, pl, marks, time.Second)
	members := pl.members(k)
	bound := members[0].DeepCopy()
	bound.Spec.NodeName = "n0"
	if err := pl.pods.Update(bound); err != nil {
		t.Fatal(err)
	}
	pl.tracker.Wait(k, members[0].UID)
	pl.tracker.PermitAll(k, members[1].UID)
	spec := gang.Spec{Key: k, MinMember: 2, Timeout: time.Minute}
	observe := func() gang.Observed {
		return gang.Observed{Counts: pl.tracker.Count(k, pl.members(k), "")}
	}
	pl.status.checkStranded(ctx, spec, observe(), pl.members(k), nil)
	if marks.Pending() != 0 {
		t.Fatal("a bound member was marked stranded while the rest of its quorum was binding")
	}
	pl.tracker.Release(k, members[1].UID) // its bind failed
	pl.status.checkStranded(ctx, spec, observe(), pl.members(k), nil)
	first, ok := marks.Carried(bound, gang.StrandedSinceAnnotation)
	if !ok || first == "" {
		t.Fatal("the bound member was not marked stranded once its sibling's bind failed")
	}

	// The sibling is retried and permitted again while the count runs, and
	// its bind fails again: the count is neither stopped nor restarted (the
	// mark stays, the time it gives does not move), so the timeout runs
	// from the first fall however often the sibling is retried.
	since := pl.status.stranded[k]
	clk.StepTo(clk.Now().Add(40 * time.Second))
	pl.tracker.PermitAll(k, members[1].UID)
	pl.status.checkStranded(ctx, spec, observe(), pl.members(k), nil)
	if v, ok := marks.Carried(bound, gang.StrandedSinceAnnotation); !ok || v != first {
		t.Fatalf("stranded-since %q (set %v) while the sibling was retried, want %q kept", v, ok, first)
	}
	clk.StepTo(clk.Now().Add(10 * time.Second))
	pl.tracker.Release(k, members[1].UID)
	pl.status.checkStranded(ctx, spec, observe(), pl.members(k), nil)
	if v, _ := marks.Carried(bound, gang.StrandedSinceAnnotation); v != first {
		t.Errorf("stranded-since %q after the retried bind failed, want %q", v, first)
	}
	if got := pl.status.stranded[k]; !got.Equal(since) {
		t.Errorf("stranded count restarted at %v by a retried bind, want it running from %v", got, since)
	}
}
