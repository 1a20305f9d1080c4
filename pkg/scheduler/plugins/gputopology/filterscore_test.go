// Unit tests of Filter, Score, NormalizeScore, Reserve and Unreserve: the filter rules, the spread of tiers, a domain forgotten with its last reservation.

package gputopology

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"

	"github.com/muster-project/muster/pkg/capacity"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/gangstate"
	"github.com/muster-project/muster/pkg/scheduler/provisioning"
	"github.com/muster-project/muster/pkg/topology"
)

// Filter, one rule per row, each named by the reason it gives: a node of
// another GPU class, without the free GPUs, with GPUs other gangs' domain
// choices claimed, outside the quorum's chosen domain, outside the gang's
// required domain (and, for an opted-in extra, a spot node there), or
// booked for another gang (a lone pod may take what one booked member
// leaves).
func TestFilterRules(t *testing.T) {
	c := newCluster(4, 1, 2, 4) // racks rack-0000 (gpu-00000, gpu-00001) and rack-0001
	a100 := c.infos[3].Node()
	a100.Labels[topology.ProductLabel] = "NVIDIA-A100-SXM4-80GB"
	c.infos[1].AddPod(st.MakePod().Namespace("ml").Name("busy").UID("busy").Node("gpu-00001").Req(map[v1.ResourceName]string{"nvidia.com/gpu": "6"}).Obj())
	c.infos[2].Node().Spec.ProviderID = "azure:///vm-2"
	c.infos[2].Node().Labels[capacity.SpotLabel] = capacity.SpotValue
	rack0 := labelValue{label: topology.LeafLabel, value: "rack-0000"}
	h100 := topology.Class{Products: []string{"NVIDIA-H100*"}}
	booking := provisioning.Booking{Key: gang.Key{Namespace: "ml", Name: "other"}, Nodes: map[string]bool{"azure:///vm-2": true}, GPUs: 4}
	pl := newTestPlugin()
	for _, tc := range []struct {
		name   string
		state  cycleState
		node   int
		code   fwk.Code
		reason string
	}{
		{"any node of its class", cycleState{gpus: 8, class: h100}, 0, fwk.Success, ""},
		{"another GPU class", cycleState{gpus: 8, class: h100}, 3, fwk.UnschedulableAndUnresolvable, ReasonGPUClass},
		{"too few free GPUs", cycleState{gpus: 4}, 1, fwk.Unschedulable, ReasonGPUCount},
		{"free GPUs another gang's choice claimed", cycleState{gpus: 4, claimed: map[string]int64{"gpu-00000": 6}}, 0, fwk.Unschedulable, ReasonClaimed},
		{"outside the quorum's domain", cycleState{gpus: 8, domain: rack0}, 3, fwk.UnschedulableAndUnresolvable, ReasonDomain},
		{"inside the quorum's domain", cycleState{gpus: 8, domain: rack0}, 0, fwk.Success, ""},
		{"outside the required domain", cycleState{gpus: 8, required: rack0}, 3, fwk.UnschedulableAndUnresolvable, ReasonRequired},
		{"a spot node outside the required domain, for an opted-in extra", cycleState{gpus: 8, required: rack0, preferSpot: true}, 2, fwk.UnschedulableAndUnresolvable, ReasonSpotRequired},
		{"booked for another gang", cycleState{gpus: 2, booked: []provisioning.Booking{booking}}, 2, fwk.Unschedulable, ReasonBooked},
		{"a lone pod on what a booked member leaves", cycleState{gpus: 2, booked: []provisioning.Booking{booking}, lone: true}, 2, fwk.Success, ""},
		{"a lone pod that would leave a booked member too little", cycleState{gpus: 6, booked: []provisioning.Booking{booking}, lone: true}, 2, fwk.Unschedulable, ReasonBooked},
	} {
		state := framework.NewCycleState()
		s := tc.state
		state.Write(stateKey, &s)
		st := pl.Filter(context.Background(), state, nil, c.infos[tc.node])
		if st.Code() != tc.code || (tc.reason != "" && st.Message() != tc.reason) {
			t.Errorf("%s: %v %q, want %v %q", tc.name, st.Code(), st.Message(), tc.code, tc.reason)
		}
	}
	// A pod PreFilter skipped is not this plugin's to filter.
	if st := pl.Filter(context.Background(), framework.NewCycleState(), nil, c.infos[3]); !st.IsSuccess() {
		t.Errorf("without cycle state: %v %q", st.Code(), st.Message())
	}
}

// NormalizeScore maps the lowest raw score to 0 and the highest to the
// framework's maximum, keeping tiers apart however close their raw values
// (every node of a gang's domain scores at least 10000 raw); equal scores
// all get the maximum.
func TestNormalizeScoreSpreadsTiers(t *testing.T) {
	pl := newTestPlugin()
	scores := fwk.NodeScoreList{{Name: "a", Score: 10000}, {Name: "b", Score: 10050}, {Name: "c", Score: 10100}}
	if st := pl.NormalizeScore(context.Background(), nil, nil, scores); !st.IsSuccess() {
		t.Fatal(st)
	}
	if scores[0].Score != 0 || scores[1].Score != fwk.MaxNodeScore/2 || scores[2].Score != fwk.MaxNodeScore {
		t.Errorf("normalized %v, want 0, %d, %d", scores, fwk.MaxNodeScore/2, fwk.MaxNodeScore)
	}
	equal := fwk.NodeScoreList{{Name: "a", Score: 7}, {Name: "b", Score: 7}}
	_ = pl.NormalizeScore(context.Background(), nil, nil, equal)
	if equal[0].Score != fwk.MaxNodeScore || equal[1].Score != fwk.MaxNodeScore {
		t.Errorf("equal scores normalized to %v, want both %d", equal, fwk.MaxNodeScore)
	}
}

// Unreserving every member forgets the gang's domain, so the next attempt
// chooses afresh; the index gives the GPUs back.
func TestUnreserveForgetsDomain(t *testing.T) {
	ctx := context.Background()
	c := newCluster(64, 8, 16, 32)
	pl := newTestPlugin()
	spec := gang.Spec{Key: gang.Key{Namespace: "ml", Name: "g"}, Source: gang.SourceLabels, MinMember: 4, MaxMember: 4,
		Annotations: map[string]string{topology.PreferredLevelAnnotation: "clique"}}
	pods := members("g", 4, "8")
	state := framework.NewCycleState()
	gangstate.StoreSpec(state, spec)
	if _, st := pl.PreFilter(ctx, state, pods[0], c.views); !st.IsSuccess() {
		t.Fatal(st.AsError())
	}
	if st := pl.Reserve(ctx, state, pods[0], "gpu-00000"); !st.IsSuccess() {
		t.Fatal(st.AsError())
	}
	if v, _ := pl.index.Node("gpu-00000"); v.FreeGPUs != 0 {
		t.Errorf("after Reserve gpu-00000 has %d free GPUs in the index, want 0", v.FreeGPUs)
	}
	pl.Unreserve(ctx, state, pods[0], "gpu-00000")
	if len(pl.gangs) != 0 {
		t.Errorf("gang still tracked after its last member was unreserved")
	}
	if v, _ := pl.index.Node("gpu-00000"); v.FreeGPUs != 8 {
		t.Errorf("after Unreserve gpu-00000 has %d free GPUs in the index, want 8", v.FreeGPUs)
	}
}

// BenchmarkGang512On5000 places one 512-member gang of 8-GPU members on 5000
// nodes (cliques of 8, racks of 32, zones of 1000) per iteration through
// PreFilter, Filter, Score and Reserve.
func BenchmarkGang512On5000(b *testing.B) {
	benchmarkGang(b, 5000, 512, map[string]string{topology.PreferredLevelAnnotation: "clique", topology.RequiredLevelAnnotation: "zone"})
}

// BenchmarkGang512On5000Anywhere is the same gang with no topology ask that
// is still placed in the narrowest level that holds it.
func BenchmarkGang512On5000Anywhere(b *testing.B) {
	benchmarkGang(b, 5000, 512, nil)
}

func benchmarkGang(b *testing.B, nodes, size int, ann map[string]string) {
	ctx := context.Background()
	pods := members("g", size, "8")
	b.ReportAllocs()
	var decisions int64
	for b.Loop() {
		b.StopTimer()
		c := newCluster(nodes, 8, 32, 1000)
		pl := newTestPlugin()
		spec := gang.Spec{Key: gang.Key{Namespace: "ml", Name: "g"}, Source: gang.SourceLabels, MinMember: int32(size), MaxMember: int32(size), Annotations: ann}
		b.StartTimer()
		schedule(ctx, b, pl, c, spec, pods)
		decisions += pl.decisions
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*size), "ns/member")
	b.ReportMetric(float64(decisions)/float64(b.N), "decisions/gang")
}
