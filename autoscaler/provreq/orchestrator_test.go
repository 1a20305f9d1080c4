// Tests of the reasons a request's scale-up cannot happen now, without per-pool reasons: no status, all-or-nothing refused, cooldown, --max-nodes-total.

package provreq

import (
	"testing"

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
