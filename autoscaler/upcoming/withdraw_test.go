package upcoming

import (
	"reflect"
	"testing"

	apiv1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/autoscaler/cluster-autoscaler/core"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/framework"
)

func placeholder(name string) *apiv1.Node {
	return &apiv1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{core.NodeUpcomingAnnotation: "true"}}}
}

func TestPlaceholderGroup(t *testing.T) {
	cases := []struct {
		node *apiv1.Node
		want string
	}{
		{placeholder("template-node-for-gpu-light-5577006791947779410-upcoming-0"), "gpu-light"},
		{placeholder("template-node-for-gpu-light-2-8674665223082153551-upcoming-12"), "gpu-light-2"},
		{placeholder("template-node-for-cpu-1-upcoming-3"), "cpu"},
		// Not the core's upcoming-node name, or not annotated.
		{placeholder("gpu-light000003"), ""},
		{placeholder("template-node-for-gpu-light-5577006791947779410"), ""},
		{&apiv1.Node{ObjectMeta: metav1.ObjectMeta{Name: "template-node-for-cpu-1-upcoming-3"}}, ""},
	}
	for _, c := range cases {
		if got := placeholderGroup(c.node); got != c.want {
			t.Errorf("placeholderGroup(%s) = %q, want %q", c.node.Name, got, c.want)
		}
	}
}

func pod(uid string, mutate ...func(*apiv1.Pod)) *apiv1.Pod {
	p := &apiv1.Pod{ObjectMeta: metav1.ObjectMeta{Name: uid, Namespace: "default", UID: types.UID(uid)}}
	for _, m := range mutate {
		m(p)
	}
	return p
}

func daemonSet(p *apiv1.Pod) {
	ctrl := true
	p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "gpu-driver", Controller: &ctrl}}
}

func bound(p *apiv1.Pod) { p.Spec.NodeName = "cpu000000" }

func TestEmptyPlaceholders(t *testing.T) {
	infos := []*framework.NodeInfo{
		// A real node with a running pod.
		framework.NewNodeInfo(&apiv1.Node{ObjectMeta: metav1.ObjectMeta{Name: "cpu000000"}}, nil, framework.NewPodInfo(pod("running", bound), nil)),
		// Upcoming light nodes: one holds a packed pending pod, two only
		// the DaemonSet pod every new node starts with.
		framework.NewNodeInfo(placeholder("template-node-for-gpu-light-1-upcoming-0"), nil,
			framework.NewPodInfo(pod("ds-0", daemonSet), nil), framework.NewPodInfo(pod("retrain-6"), nil)),
		framework.NewNodeInfo(placeholder("template-node-for-gpu-light-1-upcoming-1"), nil, framework.NewPodInfo(pod("ds-1", daemonSet), nil)),
		framework.NewNodeInfo(placeholder("template-node-for-gpu-light-1-upcoming-2"), nil),
		// An upcoming heavy node holding a booked pod.
		framework.NewNodeInfo(placeholder("template-node-for-gpu-heavy-7-upcoming-0"), nil, framework.NewPodInfo(pod("booked"), nil)),
	}
	empty, placed := emptyPlaceholders(infos)
	want := map[string][]string{"gpu-light": {"template-node-for-gpu-light-1-upcoming-1", "template-node-for-gpu-light-1-upcoming-2"}}
	if !reflect.DeepEqual(empty, want) {
		t.Errorf("empty placeholders %v, want %v", empty, want)
	}
	for _, uid := range []types.UID{"running", "ds-0", "retrain-6", "ds-1", "booked"} {
		if !placed[uid] {
			t.Errorf("pod %s not counted as placed", uid)
		}
	}
}

func TestUnplaced(t *testing.T) {
	gated := pod("gated", func(p *apiv1.Pod) { p.Spec.SchedulingGates = []apiv1.PodSchedulingGate{{Name: "muster.io/gang"}} })
	fresh := pod("fresh")
	all := []*apiv1.Pod{
		pod("running", bound),
		pod("done", func(p *apiv1.Pod) { p.Status.Phase = apiv1.PodSucceeded }),
		pod("failed", func(p *apiv1.Pod) { p.Status.Phase = apiv1.PodFailed }),
		pod("leaving", func(p *apiv1.Pod) { p.DeletionTimestamp = &metav1.Time{} }),
		pod("packed"),     // the core packed it onto a node
		pod("unhelpable"), // the core judged it and found no node
		gated, fresh,
	}
	got := unplaced(all, []*apiv1.Pod{pod("unhelpable")}, map[types.UID]bool{"packed": true})
	if want := []*apiv1.Pod{gated, fresh}; !reflect.DeepEqual(got, want) {
		var names []string
		for _, p := range got {
			names = append(names, p.Name)
		}
		t.Errorf("unplaced = %v, want gated and fresh", names)
	}
}
