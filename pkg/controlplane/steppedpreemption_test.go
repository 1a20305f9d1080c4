// Unit tests of SteppedPreemption's choice among nodes where preemption would work.

package controlplane

import (
	"math"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
)

// The node SteppedPreemption preempts on is upstream's choice by upstream's
// rules, and, where they tie, the node first in name order, whatever the
// order of the map the candidates come in. Upstream left such a tie to
// map iteration (and read victims without a start time as started at each
// read's time.Now()), so a replay's baseline preempted different jobs from
// run to run.
func TestSteppedPreemptionBreaksTiesByName(t *testing.T) {
	victim := func(name string, prio int32, started *time.Time) *v1.Pod {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}, Spec: v1.PodSpec{Priority: &prio}}
		if started != nil {
			p.Status.StartTime = &metav1.Time{Time: *started}
		}
		return p
	}
	hourAgo := time.Now().Add(-time.Hour)
	for _, tc := range []struct {
		name    string
		victims map[string]*extenderv1.Victims
		want    string
	}{
		{"all alike: the first name", map[string]*extenderv1.Victims{
			"gpu-2": {Pods: []*v1.Pod{victim("a", 0, nil)}},
			"gpu-0": {Pods: []*v1.Pod{victim("b", 0, nil)}},
			"gpu-1": {Pods: []*v1.Pod{victim("c", 0, nil)}},
		}, "gpu-0"},
		{"a lower-priority victim first", map[string]*extenderv1.Victims{
			"gpu-0": {Pods: []*v1.Pod{victim("a", 0, nil)}},
			"gpu-1": {Pods: []*v1.Pod{victim("b", -10, nil)}},
		}, "gpu-1"},
		{"fewer victims first", map[string]*extenderv1.Victims{
			"gpu-0": {Pods: []*v1.Pod{victim("a", 0, nil), victim("b", 0, nil)}},
			"gpu-1": {Pods: []*v1.Pod{victim("c", 0, nil), victim("d", 0, nil)}, NumPDBViolations: 1},
			"gpu-2": {Pods: []*v1.Pod{victim("e", 0, nil)}},
		}, "gpu-2"},
		{"fewer PDB violations first", map[string]*extenderv1.Victims{
			"gpu-0": {Pods: []*v1.Pod{victim("a", 0, nil)}, NumPDBViolations: 1},
			"gpu-1": {Pods: []*v1.Pod{victim("b", 0, nil), victim("c", 0, nil)}},
		}, "gpu-1"},
		{"the latest started first; none set counts as now", map[string]*extenderv1.Victims{
			"gpu-0": {Pods: []*v1.Pod{victim("a", 0, &hourAgo)}},
			"gpu-1": {Pods: []*v1.Pod{victim("b", 0, nil)}},
		}, "gpu-1"},
	} {
		for range 20 { // map order changes between iterations
			if got := pickAsUpstream(tc.victims, (&steppedPreemption{}).OrderedScoreFuncs(t.Context(), tc.victims)); got != tc.want {
				t.Fatalf("%s: preempts on %s, want %s", tc.name, got, tc.want)
			}
		}
	}
}

// pickAsUpstream applies the score functions as upstream's
// pickOneNodeForPreemption does: each keeps the nodes scoring highest,
// until one is left; a tie left over goes to the first node in map order.
func pickAsUpstream(victims map[string]*extenderv1.Victims, funcs []func(string) int64) string {
	var nodes []string
	for n := range victims {
		nodes = append(nodes, n)
	}
	for _, f := range funcs {
		best, keep := int64(math.MinInt64), []string(nil)
		for _, n := range nodes {
			switch s := f(n); {
			case s > best:
				best, keep = s, []string{n}
			case s == best:
				keep = append(keep, n)
			}
		}
		if nodes = keep; len(nodes) == 1 {
			break
		}
	}
	return nodes[0]
}
