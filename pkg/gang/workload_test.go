// Tests of gangs from upstream's Workload API: a pod's scheduling group, the spec merged from PodGroup and Workload, and the InitiallyScheduled condition.

package gang

import (
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestGroupOfSchedulingGroup(t *testing.T) {
	member := func(group string, labels map[string]string) *v1.Pod {
		p := pod(labels, nil)
		p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: ptr.To(group)}
		return p
	}
	tests := []struct {
		name    string
		pod     *v1.Pod
		want    Key
		wantErr string
	}{
		{name: "names an upstream PodGroup", pod: member("train", nil), want: Key{"ns", "train"}},
		{name: "and a scheduler-plugins label", pod: member("train", map[string]string{PodGroupLabel: "train"}),
			wantErr: "Pod ns/p: metadata.labels[scheduling.x-k8s.io/pod-group]: spec.schedulingGroup already names PodGroup \"train\""},
		{name: "and a CRD-free label", pod: member("train", map[string]string{GroupLabel: "other"}),
			wantErr: "metadata.labels[muster.dev/pod-group]: spec.schedulingGroup already names"},
		{name: "empty name", pod: member("", nil), wantErr: "Pod ns/p: spec.schedulingGroup.podGroupName: must name a PodGroup"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key, src, isGang, err := GroupOf(tt.pod)
			if !checkErr(t, err, tt.wantErr) {
				return
			}
			if key != tt.want || src != SourceWorkload || !isGang {
				t.Errorf("GroupOf = %v %v %v, want %v Workload true", key, src, isGang, tt.want)
			}
		})
	}
	// A schedulingGroup without a name (another group selection) is no gang.
	p := pod(nil, nil)
	p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{}
	if _, _, isGang, err := GroupOf(p); isGang || err != nil {
		t.Errorf("GroupOf(schedulingGroup without podGroupName) = %v %v, want no gang", isGang, err)
	}
}

func TestSpecFromWorkload(t *testing.T) {
	created := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	gangPG := func(min int32, ann map[string]string) *schedv1beta1.PodGroup {
		return &schedv1beta1.PodGroup{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "mpi", Annotations: ann, CreationTimestamp: created},
			Spec: schedv1beta1.PodGroupSpec{
				WorkloadRef:      &schedv1beta1.WorkloadReference{WorkloadName: "job", TemplateName: "workers"},
				SchedulingPolicy: schedv1beta1.PodGroupSchedulingPolicy{Gang: &schedv1beta1.GangSchedulingPolicy{MinCount: min}},
			},
		}
	}
	wl := &schedv1beta1.Workload{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "job", Annotations: map[string]string{
		MaxMemberAnnotation: "12", ScheduleTimeoutAnnotation: "90", "muster.dev/gpu-product": "NVIDIA-H100*"}}}
	with := func(pg *schedv1beta1.PodGroup, f func(*schedv1beta1.PodGroup)) *schedv1beta1.PodGroup {
		f(pg)
		return pg
	}

	tests := []struct {
		name    string
		pg      *schedv1beta1.PodGroup
		wl      *schedv1beta1.Workload
		want    Spec
		wantGPU string
		wantErr string
	}{
		{name: "rigid gang", pg: gangPG(9, nil),
			want: Spec{MinMember: 9, MaxMember: 9, Timeout: defaults.ScheduleTimeout}},
		{name: "workload supplies max, timeout and class", pg: gangPG(9, nil), wl: wl,
			want: Spec{MinMember: 9, MaxMember: 12, Timeout: 90 * time.Second}, wantGPU: "NVIDIA-H100*"},
		{name: "the PodGroup's annotation wins over its workload's", pg: gangPG(9, map[string]string{MaxMemberAnnotation: "10"}), wl: wl,
			want: Spec{MinMember: 9, MaxMember: 10, Timeout: 90 * time.Second}, wantGPU: "NVIDIA-H100*"},
		{name: "topology constraint and disruption mode", pg: with(gangPG(4, nil), func(pg *schedv1beta1.PodGroup) {
			pg.Spec.SchedulingConstraints = &schedv1beta1.PodGroupSchedulingConstraints{Topology: []schedv1beta1.TopologyConstraint{{Key: "topology.kubernetes.io/zone"}}}
			pg.Spec.DisruptionMode = &schedv1beta1.DisruptionMode{All: &schedv1beta1.AllDisruptionMode{}}
		}), want: Spec{MinMember: 4, MaxMember: 4, Timeout: defaults.ScheduleTimeout, TopologyKey: "topology.kubernetes.io/zone", WholeOnly: true}},
		{name: "single disruption mode", pg: with(gangPG(4, nil), func(pg *schedv1beta1.PodGroup) {
			pg.Spec.DisruptionMode = &schedv1beta1.DisruptionMode{Single: &schedv1beta1.SingleDisruptionMode{}}
		}), want: Spec{MinMember: 4, MaxMember: 4, Timeout: defaults.ScheduleTimeout}},
		{name: "basic policy: independent pods", pg: with(gangPG(4, nil), func(pg *schedv1beta1.PodGroup) {
			pg.Spec.SchedulingPolicy = schedv1beta1.PodGroupSchedulingPolicy{Basic: &schedv1beta1.BasicSchedulingPolicy{}}
		}), want: Spec{MinMember: 1, MaxMember: defaults.MaxGangMembers, Timeout: defaults.ScheduleTimeout}},
		{name: "no policy", pg: with(gangPG(4, nil), func(pg *schedv1beta1.PodGroup) { pg.Spec.SchedulingPolicy = schedv1beta1.PodGroupSchedulingPolicy{} }),
			wantErr: "PodGroup ns/mpi (scheduling.k8s.io/v1beta1): spec.schedulingPolicy: sets neither basic nor gang"},
		{name: "minCount zero", pg: gangPG(0, nil), wantErr: "spec.schedulingPolicy.gang.minCount: must be at least 1, got 0"},
		{name: "minCount over the scheduler's bound", pg: gangPG(5000, nil), wantErr: "spec.schedulingPolicy.gang.minCount: 5000 exceeds the scheduler's maxGangMembers (1000)"},
		{name: "max below min", pg: gangPG(9, map[string]string{MaxMemberAnnotation: "4"}), wantErr: "metadata.annotations[muster.dev/max-member]: max 4 is less than min 9"},
		{name: "bad timeout on the workload names the workload", pg: gangPG(2, nil),
			wl:      &schedv1beta1.Workload{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "job", Annotations: map[string]string{ScheduleTimeoutAnnotation: "soon"}}},
			wantErr: "Workload ns/job (scheduling.k8s.io/v1beta1): metadata.annotations[muster.dev/schedule-timeout-seconds]: must be a whole number of seconds"},
		{name: "spot extras asked of a whole-only gang", pg: with(gangPG(2, map[string]string{MaxMemberAnnotation: "4", SpotExtrasAnnotation: "true"}), func(pg *schedv1beta1.PodGroup) {
			pg.Spec.DisruptionMode = &schedv1beta1.DisruptionMode{All: &schedv1beta1.AllDisruptionMode{}}
		}), wantErr: "metadata.annotations[muster.dev/spot-extras]: must not be true for a PodGroup with spec.disruptionMode.all"},
		{name: "empty topology key", pg: with(gangPG(2, nil), func(pg *schedv1beta1.PodGroup) {
			pg.Spec.SchedulingConstraints = &schedv1beta1.PodGroupSchedulingConstraints{Topology: []schedv1beta1.TopologyConstraint{{}}}
		}), wantErr: "spec.schedulingConstraints.topology[0].key: must name a node label"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SpecFromWorkload(tt.pg, tt.wl, defaults)
			if !checkErr(t, err, tt.wantErr) {
				return
			}
			if got.Key != (Key{"ns", "mpi"}) || got.Source != SourceWorkload || !got.Created.Equal(created.Time) {
				t.Errorf("key/source/created = %v %v %v", got.Key, got.Source, got.Created)
			}
			if got.MinMember != tt.want.MinMember || got.MaxMember != tt.want.MaxMember || got.Timeout != tt.want.Timeout ||
				got.TopologyKey != tt.want.TopologyKey || got.WholeOnly != tt.want.WholeOnly {
				t.Errorf("spec = min %d max %d timeout %v topology %q whole %v, want min %d max %d timeout %v topology %q whole %v",
					got.MinMember, got.MaxMember, got.Timeout, got.TopologyKey, got.WholeOnly,
					tt.want.MinMember, tt.want.MaxMember, tt.want.Timeout, tt.want.TopologyKey, tt.want.WholeOnly)
			}
			if got.Annotations["muster.dev/gpu-product"] != tt.wantGPU {
				t.Errorf("GPU class annotation = %q, want %q", got.Annotations["muster.dev/gpu-product"], tt.wantGPU)
			}
		})
	}
	// Merging must not write into the informer's objects.
	pg := gangPG(9, map[string]string{MaxMemberAnnotation: "10"})
	if _, err := SpecFromWorkload(pg, wl, defaults); err != nil {
		t.Fatal(err)
	}
	if len(pg.Annotations) != 1 || len(wl.Annotations) != 3 {
		t.Errorf("SpecFromWorkload changed its inputs: %v %v", pg.Annotations, wl.Annotations)
	}
}

func TestInitiallyScheduled(t *testing.T) {
	tests := []struct {
		sum        Summary
		ok         bool
		status     metav1.ConditionStatus
		wantReason string
	}{
		{sum: Summary{Placed: true, Reason: ReasonQuorumPlaced}, ok: true, status: metav1.ConditionTrue, wantReason: "Scheduled"},
		{sum: Summary{Placed: true, Reason: ReasonAtMax}, ok: true, status: metav1.ConditionTrue, wantReason: "Scheduled"},
		{sum: Summary{Reason: ReasonUnschedulable, Message: "room for 3"}, ok: true, status: metav1.ConditionFalse, wantReason: schedv1beta1.PodGroupReasonUnschedulable},
		{sum: Summary{Reason: ReasonWaitingForRoom}, ok: true, status: metav1.ConditionFalse, wantReason: schedv1beta1.PodGroupReasonUnschedulable},
		{sum: Summary{Reason: ReasonInvalidSpec}, ok: true, status: metav1.ConditionFalse, wantReason: schedv1beta1.PodGroupReasonSchedulerError},
		{sum: Summary{Reason: ReasonAwaitingQuorum}},
		{sum: Summary{Reason: ReasonMembersLost}},
	}
	for _, tt := range tests {
		c, ok := InitiallyScheduled(tt.sum)
		if ok != tt.ok || (ok && (c.Status != tt.status || c.Reason != tt.wantReason || c.Type != schedv1beta1.PodGroupInitiallyScheduled)) {
			t.Errorf("InitiallyScheduled(%s) = %+v %v, want %v %s %v", tt.sum.Reason, c, ok, tt.status, tt.wantReason, tt.ok)
		}
	}
}
