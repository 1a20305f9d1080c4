// Tests of the gang rows kubectl muster prints: built from labels, PodGroups and upstream's Workload API gangs, ages and shortened messages.

package gangview

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	schedv1alpha1 "sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	autoscalingv1 "github.com/muster-project/muster/pkg/apis/autoscaling/v1"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/provisioning"
	"github.com/muster-project/muster/pkg/topology"
)

var t0 = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)

func pod(name string, labels, annotations map[string]string, created time.Duration, node string, boundAt time.Duration, why string) v1.Pod {
	p := v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: name, Labels: labels, Annotations: annotations,
		CreationTimestamp: metav1.NewTime(t0.Add(created))}}
	p.Spec.NodeName = node
	switch {
	case node != "":
		p.Status.Phase = v1.PodRunning
		p.Status.Conditions = []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0.Add(boundAt))}}
	case why != "":
		p.Status.Conditions = []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: v1.PodReasonUnschedulable, Message: why}}
	}
	return p
}

func TestBuild(t *testing.T) {
	label := func(name string) map[string]string { return map[string]string{gang.GroupLabel: name} }
	elastic := map[string]string{gang.MinMemberAnnotation: "2", gang.MaxMemberAnnotation: "3", topology.RequiredLevelAnnotation: "placement-group"}
	pgLabel := map[string]string{gang.PodGroupLabel: "train"}
	node := func(name, pg, zone string) v1.Node {
		return v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			"kubernetes.io/hostname": name, topology.PlacementGroupLabel: pg, topology.ZoneLabel: zone}}}
	}
	o := Objects{
		Pods: []v1.Pod{
			pod("llm-0", label("llm"), elastic, 0, "n0", 5*time.Second, ""),
			pod("llm-1", label("llm"), elastic, time.Second, "n1", 9*time.Second, ""),
			pod("llm-2", label("llm"), elastic, time.Second, "", 0, "gang team-a/llm has its quorum; elastic member waits for room"),
			pod("train-0", pgLabel, nil, 2*time.Second, "", 0, ""),
			pod("bad-0", label("bad"), map[string]string{gang.MinMemberAnnotation: "x"}, 0, "", 0, ""),
			pod("spread-0", label("spread"), map[string]string{gang.MinMemberAnnotation: "2"}, 0, "n0", time.Second, ""),
			pod("spread-1", label("spread"), map[string]string{gang.MinMemberAnnotation: "2"}, 0, "n2", 2*time.Second, ""),
			{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "plain"}},
		},
		PodGroups: []PodGroup{{
			PodGroup: schedv1alpha1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "train", CreationTimestamp: metav1.NewTime(t0)},
				Spec: schedv1alpha1.PodGroupSpec{MinMember: 2}, Status: schedv1alpha1.PodGroupStatus{Phase: gang.PhasePending}},
			Conditions: []metav1.Condition{{Type: gang.ConditionScheduled, Status: metav1.ConditionFalse, Reason: gang.ReasonAwaitingQuorum, Message: "waiting for quorum: 1 of 2 members exist"}},
		}, {
			PodGroup: schedv1alpha1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "empty", CreationTimestamp: metav1.NewTime(t0)},
				Spec: schedv1alpha1.PodGroupSpec{MinMember: 4}},
		}},
		Requests: []autoscalingv1.ProvisioningRequest{{
			ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "muster-train-1", Labels: map[string]string{provisioning.GangLabel: "train"}, CreationTimestamp: metav1.NewTime(t0)},
			Spec:       autoscalingv1.ProvisioningRequestSpec{PodSets: []autoscalingv1.PodSet{{Count: 1}}},
			Status: autoscalingv1.ProvisioningRequestStatus{Conditions: []metav1.Condition{
				{Type: autoscalingv1.Provisioned, Status: metav1.ConditionFalse, Reason: "CapacityIsNotFound"}}},
		}},
		Nodes: []v1.Node{node("n0", "pg-a", "z1"), node("n1", "pg-a", "z1"), node("n2", "pg-b", "z1")},
	}
	rows := Build(o, t0.Add(time.Minute))
	got := map[string]Row{}
	var order []string
	for _, r := range rows {
		got[r.Name] = r
		order = append(order, r.Name)
	}
	if strings.Join(order, ",") != "bad,empty,llm,spread,train" {
		t.Fatalf("rows %v, want bad,empty,llm,spread,train (no row for a plain pod)", order)
	}
	llm := got["llm"]
	if llm.Source != "labels" || llm.Members != 3 || llm.Bound != 2 || llm.Min != 2 || llm.Max != 3 || llm.Phase != gang.PhaseRunning || llm.Reason != gang.ReasonQuorumPlaced {
		t.Errorf("llm: %+v", llm)
	}
	if llm.Waited != 9*time.Second || llm.Domain != "placement-group=pg-a" {
		t.Errorf("llm waited %s in %q, want 9s (first created to the min-th bind) in placement-group=pg-a", llm.Waited, llm.Domain)
	}
	if s := got["spread"]; s.Domain != "zone=z1" || s.Waited != 2*time.Second {
		t.Errorf("spread: domain %q waited %s, want zone=z1 and 2s", s.Domain, s.Waited)
	}
	train := got["train"]
	if train.Source != "podgroup" || train.Reason != gang.ReasonAwaitingQuorum || train.Message != "waiting for quorum: 1 of 2 members exist" || train.Waited != 58*time.Second {
		t.Errorf("train: %+v", train)
	}
	if train.Request != "muster-train-1 (1 pods, CapacityIsNotFound)" {
		t.Errorf("train request %q", train.Request)
	}
	if e := got["empty"]; e.Members != 0 || e.Min != 4 || e.Phase != gang.PhasePending || e.Waited != time.Minute {
		t.Errorf("empty PodGroup: %+v", e)
	}
	if b := got["bad"]; b.Reason != gang.ReasonInvalidSpec || !strings.Contains(b.Message, gang.MinMemberAnnotation) {
		t.Errorf("bad: %+v, want InvalidSpec naming the annotation", b)
	}
}

func TestAgeAndShort(t *testing.T) {
	for d, want := range map[time.Duration]string{45 * time.Second: "45s", 12*time.Minute + 3*time.Second: "12m03s", 3*time.Hour + 20*time.Minute: "3h20m", 52 * time.Hour: "2d4h"} {
		if got := Age(d); got != want {
			t.Errorf("Age(%s) = %q, want %q", d, got, want)
		}
	}
	if got := Short("a  long\nmessage here", 10); got != "a long me…" {
		t.Errorf("Short: %q", got)
	}
}

// Gangs from upstream's Workload API: their rows read the upstream PodGroup
// (min from minCount, max from its Workload's annotation, status from the
// conditions Muster writes there).
func TestBuildWorkloadGangs(t *testing.T) {
	member := func(name, group string, node string) v1.Pod {
		p := pod(name, nil, nil, 0, node, time.Second, "")
		p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &group}
		return p
	}
	wpg := func(name string, min int32, conds ...metav1.Condition) schedv1beta1.PodGroup {
		return schedv1beta1.PodGroup{
			ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: name, CreationTimestamp: metav1.NewTime(t0)},
			Spec: schedv1beta1.PodGroupSpec{WorkloadRef: &schedv1beta1.WorkloadReference{WorkloadName: "job", TemplateName: "w"},
				SchedulingPolicy: schedv1beta1.PodGroupSchedulingPolicy{Gang: &schedv1beta1.GangSchedulingPolicy{MinCount: min}}},
			Status: schedv1beta1.PodGroupStatus{Conditions: conds},
		}
	}
	o := Objects{
		Pods: []v1.Pod{member("mpi-0", "mpi", "n0"), member("mpi-1", "mpi", "n1"), member("lost-0", "lost", "")},
		WorkloadPodGroups: []schedv1beta1.PodGroup{
			wpg("mpi", 2,
				metav1.Condition{Type: gang.ConditionScheduled, Status: metav1.ConditionTrue, Reason: gang.ReasonQuorumPlaced, Message: "2 members placed (min 2, max 3)"},
				metav1.Condition{Type: schedv1beta1.PodGroupInitiallyScheduled, Status: metav1.ConditionTrue, Reason: "Scheduled"}),
			wpg("idle", 4),
		},
		Workloads: []schedv1beta1.Workload{{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "job", Annotations: map[string]string{gang.MaxMemberAnnotation: "3"}}}},
	}
	rows := Build(o, t0.Add(time.Minute))
	got := map[string]Row{}
	for _, r := range rows {
		got[r.Name] = r
	}
	if r := got["mpi"]; r.Source != "workload" || r.Min != 2 || r.Max != 3 || r.Bound != 2 || r.Reason != gang.ReasonQuorumPlaced || r.Phase != gang.PhaseRunning {
		t.Errorf("mpi row = %+v", r)
	}
	if r := got["idle"]; r.Source != "workload" || r.Min != 4 || r.Members != 0 || r.Waited != time.Minute {
		t.Errorf("idle row = %+v", r)
	}
	if r := got["lost"]; r.Reason != gang.ReasonInvalidSpec || !strings.Contains(r.Message, "PodGroup team-a/lost (scheduling.k8s.io/v1beta1) does not exist") {
		t.Errorf("lost row = %+v", r)
	}
}
