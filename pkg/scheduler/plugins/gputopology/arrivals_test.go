// Unit tests of arrivals: on a trace clock, Score's came-up-while-waiting tier compares when the plugin first saw pod and node.

package gputopology

import (
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/simulate"
)

// A gang's members go to the nodes that came up while they waited, by when
// the plugin saw them on the trace clock, whatever the wall seconds the
// API server stamped: here the nodes seen three trace minutes after the
// members were stamped in the members' own wall second, and those seen
// with the members in the next one. Read from the stamps (no arrivals,
// as on wall time), the members take the other two.
func TestCameUpWhileWaitingIsTraceTime(t *testing.T) {
	wall := time.Unix(100, 0)
	for _, tc := range []struct {
		name     string
		arrivals bool
		want     []string
	}{
		{"trace clock: first seen", true, []string{"gpu-00002", "gpu-00003"}},
		{"wall time: creation stamps", false, []string{"gpu-00000", "gpu-00001"}},
	} {
		clk := simulate.NewStepClock(time.Unix(10000, 0))
		pl := newTestPlugin()
		if tc.arrivals {
			pl.arrivals = newArrivals(clk)
		}
		c := newCluster(4, 4, 4, 4)
		pods := members("g", 2, "8")
		for _, p := range pods {
			p.CreationTimestamp = metav1.NewTime(wall)
		}
		for i, ni := range c.infos {
			n := ni.Node()
			n.CreationTimestamp = metav1.NewTime(wall) // the members' second
			if i < 2 {
				n.CreationTimestamp = metav1.NewTime(wall.Add(time.Second))
			}
		}
		if pl.arrivals != nil {
			for _, p := range pods {
				pl.arrivals.seen(p)
			}
			pl.arrivals.seen(c.infos[0].Node())
			pl.arrivals.seen(c.infos[1].Node())
			clk.StepTo(clk.Now().Add(3 * time.Minute))
			pl.arrivals.seen(c.infos[2].Node())
			// gpu-00003's notice has not come yet: seen now.
		}
		spec := gang.Spec{Key: gang.Key{Namespace: "ml", Name: "g"}, Source: gang.SourceLabels, MinMember: 2, MaxMember: 2}
		got := schedule(t.Context(), t, pl, c, spec, pods)
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: members on %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A node deleted and registered again under its name counts from its new
// sighting.
func TestArrivalsForgetDeletedNodes(t *testing.T) {
	clk := simulate.NewStepClock(time.Unix(10000, 0))
	a := newArrivals(clk)
	c := newCluster(1, 1, 1, 1)
	node := c.infos[0].Node()
	pod := members("g", 1, "8")[0]
	a.seen(node)
	clk.StepTo(clk.Now().Add(time.Minute))
	a.seen(pod)
	if a.cameUpWhileWaiting(pod, node) {
		t.Fatal("a node seen before the pod came up while it waited")
	}
	a.gone(node)
	clk.StepTo(clk.Now().Add(time.Minute))
	a.seen(node)
	if !a.cameUpWhileWaiting(pod, node) {
		t.Fatal("a node registered again after the pod was seen did not come up while it waited")
	}
}
