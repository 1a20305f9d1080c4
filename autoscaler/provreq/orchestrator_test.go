// Tests of the Orchestrator: the reasons a scale-up cannot happen now without per-pool reasons, the requests of a loop grouped in order, merged statuses.

package provreq

import (
	"strings"
	"testing"

	v1 "github.com/muster-project/muster/autoscaler/provreq/apis/v1"
	apiv1 "k8s.io/api/core/v1"
	testprovider "k8s.io/autoscaler/cluster-autoscaler/cloudprovider/test"
	ca_context "k8s.io/autoscaler/cluster-autoscaler/context"
	"k8s.io/autoscaler/cluster-autoscaler/processors/status"
)

func TestNotNowReasonsWithoutPerPoolReasons(t *testing.T) {
	cp := testprovider.NewTestCloudProviderBuilder().Build()
	cp.AddNodeGroup("gpu-heavy", 0, 8, 6)
	cp.AddNodeGroup("cpu", 0, 4, 4)
	o := &Orchestrator{ctx: &ca_context.AutoscalingContext{CloudProvider: cp}}

	for _, tc := range []struct {
		name string
		st   *status.ScaleUpStatus
		want string
	}{
		{"no status", nil, "no scale-up status"},
		{"all-or-nothing refused a part", &status.ScaleUpStatus{Result: status.ScaleUpNoOptionsAvailable},
			"no single pool can add nodes for all of them at once; nodes each pool can still add: cpu 0, gpu-heavy 2"},
		{"cooldown", &status.ScaleUpStatus{Result: status.ScaleUpInCooldown}, "scale-up in cooldown"},
		{"max nodes total", &status.ScaleUpStatus{Result: status.ScaleUpLimitedByMaxNodesTotal}, "cluster at --max-nodes-total"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := o.notNowReasons(tc.st); got != tc.want {
				t.Errorf("notNowReasons = %q, want %q", got, tc.want)
			}
		})
	}
}

// A loop's pods of requests are served request by request, in the order
// they came (the Injector's), each request's pods together.
func TestByRequestKeepsTheInjectorsOrder(t *testing.T) {
	consumes := func(name, req string) *apiv1.Pod {
		return pod(name, map[string]string{v1.ProvisioningRequestPodAnnotationKey: req})
	}
	groups := byRequest([]*apiv1.Pod{consumes("u-0", "urgent"), consumes("o-0", "old"), consumes("u-1", "urgent"), consumes("n-0", "new")})
	var got []string
	for _, g := range groups {
		var names []string
		for _, p := range g {
			names = append(names, p.Name)
		}
		got = append(got, strings.Join(names, "+"))
	}
	if want := "u-0+u-1,o-0,n-0"; strings.Join(got, ",") != want {
		t.Fatalf("groups %v, want %s", got, want)
	}
}

// The status of a loop that ran several scale-ups: successful when any
// was, else the most telling result; every request's infos and pods kept.
func TestMergeStatus(t *testing.T) {
	a := &status.ScaleUpStatus{Result: status.ScaleUpNoOptionsAvailable, PodsRemainUnschedulable: []status.NoScaleUpInfo{{Pod: pod("a-0", nil)}}}
	b := &status.ScaleUpStatus{Result: status.ScaleUpSuccessful, PodsTriggeredScaleUp: []*apiv1.Pod{pod("b-0", nil)}}
	c := &status.ScaleUpStatus{Result: status.ScaleUpNotNeeded}
	got := mergeStatus(mergeStatus(mergeStatus(nil, a), b), c)
	if got.Result != status.ScaleUpSuccessful || len(got.PodsTriggeredScaleUp) != 1 || len(got.PodsRemainUnschedulable) != 1 {
		t.Fatalf("merged %+v, want successful with b's triggering pod and a's unschedulable one", got)
	}
	if a.Result != status.ScaleUpNoOptionsAvailable || len(a.PodsTriggeredScaleUp) != 0 {
		t.Fatal("merging changed a status merged in")
	}
	if got := mergeStatus(c, a); got.Result != status.ScaleUpNoOptionsAvailable {
		t.Fatalf("not needed and no options: %v, want no options (the one that says why a pod waits)", got.Result)
	}
	if got := mergeStatus(nil, nil); got != nil {
		t.Fatalf("nothing merged: %+v, want nil", got)
	}
}
