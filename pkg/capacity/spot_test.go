// Tests of spot nodes: the label, the rules on which members may use them, tolerations of the spot taint, reclaimed nodes that went NotReady or unreachable.

package capacity

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestSpotRules(t *testing.T) {
	spot := &v1.Node{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{SpotLabel: SpotValue}}}
	regular := &v1.Node{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{SpotLabel: "regular"}}}
	if !IsSpot(spot) || IsSpot(regular) || IsSpot(&v1.Node{}) || IsSpot(nil) {
		t.Fatal("IsSpot")
	}
	for _, tc := range []struct {
		quorum, optedIn bool
		want            string
	}{
		{quorum: true, optedIn: true, want: SpotDeniedQuorum},
		{quorum: true, want: SpotDeniedQuorum},
		{optedIn: false, want: SpotDeniedNotOptedIn},
		{optedIn: true, want: ""},
	} {
		if got := SpotRule(tc.quorum, tc.optedIn); got != tc.want {
			t.Errorf("SpotRule(quorum %v, opted in %v) = %q, want %q", tc.quorum, tc.optedIn, got, tc.want)
		}
	}
	for _, tc := range []struct {
		name string
		tols []v1.Toleration
		want bool
	}{
		{name: "none"},
		{name: "the spot taint", tols: []v1.Toleration{{Key: SpotLabel, Operator: v1.TolerationOpEqual, Value: SpotValue, Effect: v1.TaintEffectNoSchedule}}, want: true},
		{name: "the key, any value", tols: []v1.Toleration{{Key: SpotLabel, Operator: v1.TolerationOpExists}}, want: true},
		{name: "everything", tols: []v1.Toleration{{Operator: v1.TolerationOpExists}}, want: true},
		{name: "another taint", tols: []v1.Toleration{{Key: "nvidia.com/gpu", Operator: v1.TolerationOpExists}}},
		{name: "NoExecute only", tols: []v1.Toleration{{Key: SpotLabel, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute}}},
	} {
		if got := TolerateSpot(&v1.Pod{Spec: v1.PodSpec{Tolerations: tc.tols}}); got != tc.want {
			t.Errorf("%s: TolerateSpot = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestSpotReclaimed(t *testing.T) {
	node := func(spot bool, ready v1.ConditionStatus, taints ...string) *v1.Node {
		n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{}}}
		if spot {
			n.Labels[SpotLabel] = SpotValue
		}
		n.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady, Status: ready}}
		for _, k := range taints {
			n.Spec.Taints = append(n.Spec.Taints, v1.Taint{Key: k, Effect: v1.TaintEffectNoExecute})
		}
		return n
	}
	for _, tc := range []struct {
		name string
		n    *v1.Node
		want string
	}{
		{name: "ready spot node", n: node(true, v1.ConditionTrue)},
		{name: "NotReady spot node", n: node(true, v1.ConditionFalse), want: "went NotReady"},
		{name: "unknown spot node", n: node(true, v1.ConditionUnknown), want: "went NotReady"},
		{name: "unreachable taint", n: node(true, v1.ConditionTrue, v1.TaintNodeUnreachable), want: "was tainted " + v1.TaintNodeUnreachable},
		{name: "NotReady regular node", n: node(false, v1.ConditionFalse)},
	} {
		if got := SpotReclaimed(tc.n); got != tc.want {
			t.Errorf("%s: SpotReclaimed = %q, want %q", tc.name, got, tc.want)
		}
	}
}
