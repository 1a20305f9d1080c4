// Unit tests of the claims ledger: one gang's claimed GPUs left out of another's choice.

package gputopology

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"

	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/gangstate"
)

// Two gangs placing their quorums at once, members interleaved as the queue
// hands them out: the second does not choose the node the first chose and
// has begun to fill, though its free GPUs would hold the second's quorum
// were the first's unplaced members not counted. Without the claim both
// chose the fuller node, and one member of four found no room there.
func TestChoiceLeavesOutOtherGangsClaims(t *testing.T) {
	ctx := context.Background()
	c := newCluster(2, 1, 2, 2)
	busy := st.MakePod().Namespace("ml").Name("busy").UID("busy").Node("gpu-00000").
		Req(map[v1.ResourceName]string{"nvidia.com/gpu": "1"}).Obj()
	c.infos[0].AddPod(busy)
	pl := newTestPlugin()
	specOf := func(name string) gang.Spec {
		return gang.Spec{Key: gang.Key{Namespace: "ml", Name: name}, Source: gang.SourceLabels, MinMember: 4, MaxMember: 4}
	}
	a, b := members("a", 4, "1"), members("b", 4, "1")
	var scratch []int
	nodes := map[string][]string{}
	for i := range 4 {
		nodes["a"] = append(nodes["a"], scheduleOne(ctx, t, pl, c, specOf("a"), a[i], &scratch))
		if i == 0 {
			if got := pl.claimed["gpu-00000"]; got != 3 {
				t.Errorf("after a's first member: %d GPUs of gpu-00000 claimed for a, want 3", got)
			}
		}
		if i == 0 {
			// Nor does a lone pod take the claimed GPUs.
			lone := st.MakePod().Namespace("ml").Name("lone").UID("lone").Req(map[v1.ResourceName]string{"nvidia.com/gpu": "4"}).Obj()
			state := framework.NewCycleState()
			if _, st := pl.PreFilter(ctx, state, lone, c.views); !st.IsSuccess() {
				t.Fatal(st.AsError())
			}
			if st := pl.Filter(ctx, state, lone, c.views[0]); st.IsSuccess() || st.Message() != ReasonClaimed {
				t.Errorf("a lone 4-GPU pod on gpu-00000 (6 free, 3 claimed by a): %v, want %q", st, ReasonClaimed)
			}
		}
		nodes["b"] = append(nodes["b"], scheduleOne(ctx, t, pl, c, specOf("b"), b[i], &scratch))
	}
	for g, want := range map[string]string{"a": "gpu-00000", "b": "gpu-00001"} {
		for _, n := range nodes[g] {
			if n != want {
				t.Errorf("gang %s placed on %v, want every member on %s", g, nodes[g], want)
				break
			}
		}
	}
	if len(pl.claimed) != 0 {
		t.Errorf("claims left after both quorums were reserved: %v", pl.claimed)
	}

	// A gang whose member fits no node in its domain ends its attempt in
	// PostFilter: its claim goes with it.
	cg := members("c", 2, "1")
	state := framework.NewCycleState()
	gangstate.StoreSpec(state, gang.Spec{Key: gang.Key{Namespace: "ml", Name: "c"}, Source: gang.SourceLabels, MinMember: 2, MaxMember: 2})
	if _, st := pl.PreFilter(ctx, state, cg[0], c.views); !st.IsSuccess() {
		t.Fatal(st.AsError())
	}
	if len(pl.claimed) == 0 {
		t.Fatal("gang c chose a domain but claimed nothing")
	}
	pl.PostFilter(ctx, state, cg[0], nil)
	if len(pl.claimed) != 0 {
		t.Errorf("claims left after gang c's attempt failed: %v", pl.claimed)
	}
}
