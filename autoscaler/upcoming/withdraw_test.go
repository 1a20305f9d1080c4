// Unit tests of withdrawing upcoming nodes: the instances still being created, the pods still waiting, and the surplus to withdraw.

package upcoming

import (
	"reflect"
	"testing"

	apiv1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/autoscaler/cluster-autoscaler/cloudprovider"
)

func TestCreating(t *testing.T) {
	inst := func(id string, state cloudprovider.InstanceState, failed bool) cloudprovider.Instance {
		in := cloudprovider.Instance{Id: id, Status: &cloudprovider.InstanceStatus{State: state}}
		if failed {
			in.Status.ErrorInfo = &cloudprovider.InstanceErrorInfo{ErrorClass: cloudprovider.OutOfResourcesErrorClass}
		}
		return in
	}
	instances := []cloudprovider.Instance{
		inst("azure:///vm/0", cloudprovider.InstanceRunning, false),
		inst("azure:///vm/1", cloudprovider.InstanceCreating, false),
		inst("azure:///VM/2", cloudprovider.InstanceCreating, false), // its node registered already
		inst("azure:///vm/3", cloudprovider.InstanceCreating, true),  // failed: the core deletes it
		inst("azure:///vm/4", cloudprovider.InstanceDeleting, false),
		inst("azure:///vm/5", cloudprovider.InstanceCreating, false),
		{Id: "azure:///vm/6"}, // no status
	}
	if got := creating(instances, map[string]bool{"azure:///vm/2": true}); got != 2 {
		t.Errorf("creating = %d, want 2 (instances 1 and 5)", got)
	}
}

func pod(name string, mutate ...func(*apiv1.Pod)) *apiv1.Pod {
	p := &apiv1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}}
	for _, m := range mutate {
		m(p)
	}
	return p
}

func TestWaiting(t *testing.T) {
	gated := pod("gated", func(p *apiv1.Pod) { p.Spec.SchedulingGates = []apiv1.PodSchedulingGate{{Name: "muster.io/gang"}} })
	fresh, unschedulable := pod("fresh"), pod("unschedulable", func(p *apiv1.Pod) {
		p.Status.Conditions = []apiv1.PodCondition{{Type: apiv1.PodScheduled, Status: apiv1.ConditionFalse, Reason: apiv1.PodReasonUnschedulable}}
	})
	all := []*apiv1.Pod{
		pod("running", func(p *apiv1.Pod) { p.Spec.NodeName = "gpu-light000001" }),
		pod("done", func(p *apiv1.Pod) { p.Status.Phase = apiv1.PodSucceeded }),
		pod("failed", func(p *apiv1.Pod) { p.Status.Phase = apiv1.PodFailed }),
		pod("leaving", func(p *apiv1.Pod) { p.DeletionTimestamp = &metav1.Time{} }),
		gated, fresh, unschedulable,
	}
	if got, want := waiting(all), []*apiv1.Pod{gated, fresh, unschedulable}; !reflect.DeepEqual(got, want) {
		var names []string
		for _, p := range got {
			names = append(names, p.Name)
		}
		t.Errorf("waiting = %v, want gated, fresh, unschedulable", names)
	}
}

func TestSurplus(t *testing.T) {
	for _, c := range []struct{ creating, fitting, want int }{
		{2, 0, 2}, // every pod went elsewhere
		{2, 1, 1}, // one still waits
		{2, 2, 0},
		{1, 5, 0}, // more waiting than coming: the core scales up again
		{0, 0, 0},
	} {
		if got := surplus(c.creating, c.fitting); got != c.want {
			t.Errorf("surplus(%d, %d) = %d, want %d", c.creating, c.fitting, got, c.want)
		}
	}
}
