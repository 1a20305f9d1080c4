// Tests of the scale-down order: ties broken by name whatever order candidates come in, removable nodes handed on empty first, then to drain, risky last.

package scaledownorder

import (
	"math/rand/v2"
	"slices"
	"testing"

	apiv1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	testprovider "k8s.io/autoscaler/cluster-autoscaler/cloudprovider/test"
	"k8s.io/autoscaler/cluster-autoscaler/context"
	"k8s.io/autoscaler/cluster-autoscaler/processors/nodes"
	"k8s.io/autoscaler/cluster-autoscaler/processors/scaledowncandidates"
	"k8s.io/autoscaler/cluster-autoscaler/simulator"
)

func node(name string) *apiv1.Node { return &apiv1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}} }

// earlierIfEmpty stands for upstream's comparers: it ranks the nodes named
// in empty first and says nothing of the rest.
type earlierIfEmpty map[string]bool

func (e earlierIfEmpty) ScaleDownEarlierThan(a, b *apiv1.Node) bool { return e[a.Name] && !e[b.Name] }

// Whatever order the candidates come in, they are weighed in one: upstream's
// ranking first, then by name.
func TestByNameBreaksTies(t *testing.T) {
	names := []string{"gpu-3", "cpu-1", "gpu-1", "cpu-0", "gpu-2"}
	want := []string{"gpu-1", "gpu-3", "cpu-0", "cpu-1", "gpu-2"}
	for seed := range uint64(20) {
		in := make([]*apiv1.Node, len(names))
		for i, n := range names {
			in[i] = node(n)
		}
		rand.New(rand.NewPCG(seed, 1)).Shuffle(len(in), func(i, j int) { in[i], in[j] = in[j], in[i] })
		got := sortCandidates(in, earlierIfEmpty{"gpu-1": true, "gpu-3": true}, ByName{})
		if !slices.Equal(got, want) {
			t.Fatalf("shuffle %d: order %v, want %v", seed, got, want)
		}
	}
}

// sortCandidates sorts nodes as a ScaleDownCandidatesSortingProcessor with
// these comparers does, and returns their names.
func sortCandidates(in []*apiv1.Node, comparers ...scaledowncandidates.CandidatesComparer) []string {
	provider := testprovider.NewTestCloudProviderBuilder().Build()
	provider.AddNodeGroup("pool", 0, 10, len(in))
	for _, n := range in {
		provider.AddNode("pool", n)
	}
	p := scaledowncandidates.NewScaleDownCandidatesSortingProcessor(comparers)
	sorted, err := p.GetScaleDownCandidates(&context.AutoscalingContext{CloudProvider: provider}, in)
	if err != nil {
		panic(err)
	}
	out := make([]string, len(sorted))
	for i, n := range sorted {
		out[i] = n.Name
	}
	return out
}

// recordSet keeps the candidates it was handed and finds all removable.
type recordSet struct{ got []string }

func (r *recordSet) FilterUnremovableNodes(_ *context.AutoscalingContext, _ *nodes.ScaleDownContext, candidates []simulator.NodeToBeRemoved) ([]simulator.NodeToBeRemoved, []simulator.UnremovableNode) {
	r.got = r.got[:0]
	for _, c := range candidates {
		r.got = append(r.got, c.Node.Name)
	}
	return candidates, nil
}

func (r *recordSet) CleanUp() {}

// The removable nodes reach the next processor empty first, then those to
// drain, risky ones last, by name within each: the same order whichever way
// the planner's map handed them over.
func TestSetOrdersRemovableNodes(t *testing.T) {
	pod := &apiv1.Pod{}
	candidates := []simulator.NodeToBeRemoved{
		{Node: node("cpu-2"), PodsToReschedule: []*apiv1.Pod{pod}},
		{Node: node("gpu-1")},
		{Node: node("cpu-1"), PodsToReschedule: []*apiv1.Pod{pod}, IsRisky: true},
		{Node: node("cpu-0"), PodsToReschedule: []*apiv1.Pod{pod}},
		{Node: node("gpu-0")},
	}
	want := []string{"gpu-0", "gpu-1", "cpu-0", "cpu-2", "cpu-1"}
	for seed := range uint64(20) {
		in := slices.Clone(candidates)
		rand.New(rand.NewPCG(seed, 2)).Shuffle(len(in), func(i, j int) { in[i], in[j] = in[j], in[i] })
		next := &recordSet{}
		removable, unremovable := Set{Next: next}.FilterUnremovableNodes(&context.AutoscalingContext{}, &nodes.ScaleDownContext{}, in)
		if !slices.Equal(next.got, want) {
			t.Fatalf("shuffle %d: next processor got %v, want %v", seed, next.got, want)
		}
		if len(removable) != len(candidates) || len(unremovable) != 0 {
			t.Fatalf("shuffle %d: the next processor's answer was not passed on: %d removable, %d unremovable", seed, len(removable), len(unremovable))
		}
	}
}
