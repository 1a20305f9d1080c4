// Tests of the PodGroup types' wire compatibility with scheduler-plugins': shared fields identical, Muster's status fields kept, the same phases, registration in the scheme.

package v1alpha1

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	spv1alpha1 "sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
)

func int32Ptr(v int32) *int32 { return &v }

// Comparisons use equality.Semantic, which compares quantities and times by
// value (JSON decoding sets a time's location and a quantity's cached string).

// TestPodGroupWireCompatibility round-trips a Muster PodGroup through JSON and
// decodes the same bytes into scheduler-plugins' PodGroup: the shared fields
// must come out identical, and the Muster-only status fields must survive a
// round trip through Muster's own type.
func TestPodGroupWireCompatibility(t *testing.T) {
	start := metav1.NewTime(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
	tests := []struct {
		name string
		pg   PodGroup
	}{
		{
			name: "empty",
			pg:   PodGroup{},
		},
		{
			name: "spec only",
			pg: PodGroup{
				TypeMeta:   metav1.TypeMeta{APIVersion: SchemeGroupVersion.String(), Kind: "PodGroup"},
				ObjectMeta: metav1.ObjectMeta{Name: "job-a", Namespace: "team-1", Labels: map[string]string{"app": "train"}},
				Spec: PodGroupSpec{
					MinMember:              4,
					MinResources:           v1.ResourceList{v1.ResourceCPU: resource.MustParse("8"), v1.ResourceMemory: resource.MustParse("16Gi")},
					ScheduleTimeoutSeconds: int32Ptr(120),
				},
			},
		},
		{
			name: "full status with Muster fields",
			pg: PodGroup{
				TypeMeta:   metav1.TypeMeta{APIVersion: SchemeGroupVersion.String(), Kind: "PodGroup"},
				ObjectMeta: metav1.ObjectMeta{Name: "job-b", Namespace: "team-2", UID: "1234"},
				Spec:       PodGroupSpec{MinMember: 2},
				Status: PodGroupStatus{
					Phase:             PodGroupScheduling,
					OccupiedBy:        "team-2/job-b",
					Running:           1,
					Succeeded:         2,
					Failed:            3,
					ScheduleStartTime: start,
					Scheduled:         2,
					Conditions: []metav1.Condition{{
						Type:               "Scheduled",
						Status:             metav1.ConditionTrue,
						ObservedGeneration: 1,
						LastTransitionTime: start,
						Reason:             "QuorumPlaced",
						Message:            "2/2 members placed",
					}},
				},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, err := json.Marshal(&tc.pg)
			if err != nil {
				t.Fatalf("marshal: %v", err)
			}

			// Round trip through Muster's own type keeps every field.
			var got PodGroup
			if err := json.Unmarshal(data, &got); err != nil {
				t.Fatalf("unmarshal into muster type: %v", err)
			}
			want := tc.pg.DeepCopy()
			if !equality.Semantic.DeepEqual(&got, want) {
				t.Errorf("muster round trip mismatch:\n got %+v\nwant %+v\njson %s", got, *want, data)
			}

			// The same bytes decode into scheduler-plugins' type with equal shared fields.
			var up spv1alpha1.PodGroup
			if err := json.Unmarshal(data, &up); err != nil {
				t.Fatalf("unmarshal into scheduler-plugins type: %v", err)
			}
			if up.TypeMeta != tc.pg.TypeMeta {
				t.Errorf("TypeMeta: got %+v want %+v", up.TypeMeta, tc.pg.TypeMeta)
			}
			if !equality.Semantic.DeepEqual(up.ObjectMeta, tc.pg.ObjectMeta) {
				t.Errorf("ObjectMeta: got %+v want %+v", up.ObjectMeta, tc.pg.ObjectMeta)
			}
			if up.Spec.MinMember != tc.pg.Spec.MinMember {
				t.Errorf("minMember: got %d want %d", up.Spec.MinMember, tc.pg.Spec.MinMember)
			}
			if !reflect.DeepEqual(up.Spec.ScheduleTimeoutSeconds, tc.pg.Spec.ScheduleTimeoutSeconds) {
				t.Errorf("scheduleTimeoutSeconds: got %v want %v", up.Spec.ScheduleTimeoutSeconds, tc.pg.Spec.ScheduleTimeoutSeconds)
			}
			if len(up.Spec.MinResources) != len(tc.pg.Spec.MinResources) {
				t.Errorf("minResources: got %v want %v", up.Spec.MinResources, tc.pg.Spec.MinResources)
			}
			for name, q := range tc.pg.Spec.MinResources {
				if uq, ok := up.Spec.MinResources[name]; !ok || uq.Cmp(q) != 0 {
					t.Errorf("minResources[%s]: got %v want %v", name, up.Spec.MinResources[name], q)
				}
			}
			s, us := tc.pg.Status, up.Status
			if string(us.Phase) != string(s.Phase) || us.OccupiedBy != s.OccupiedBy ||
				us.Running != s.Running || us.Succeeded != s.Succeeded || us.Failed != s.Failed ||
				!us.ScheduleStartTime.Equal(&s.ScheduleStartTime) {
				t.Errorf("shared status: got %+v want %+v", us, s)
			}

			// And what scheduler-plugins writes back decodes into Muster's type
			// with the shared fields unchanged (Muster-only fields are absent).
			upData, err := json.Marshal(&up)
			if err != nil {
				t.Fatalf("marshal scheduler-plugins type: %v", err)
			}
			var back PodGroup
			if err := json.Unmarshal(upData, &back); err != nil {
				t.Fatalf("unmarshal scheduler-plugins json into muster type: %v", err)
			}
			want.Status.Scheduled, want.Status.Conditions = 0, nil
			if !equality.Semantic.DeepEqual(&back, want) {
				t.Errorf("scheduler-plugins -> muster mismatch:\n got %+v\nwant %+v", back, *want)
			}
		})
	}
}

// TestPhaseValuesMatchSchedulerPlugins keeps the phase constants identical.
func TestPhaseValuesMatchSchedulerPlugins(t *testing.T) {
	pairs := []struct {
		muster PodGroupPhase
		up     spv1alpha1.PodGroupPhase
	}{
		{PodGroupPending, spv1alpha1.PodGroupPending},
		{PodGroupRunning, spv1alpha1.PodGroupRunning},
		{PodGroupScheduling, spv1alpha1.PodGroupScheduling},
		{PodGroupUnknown, spv1alpha1.PodGroupUnknown},
		{PodGroupFinished, spv1alpha1.PodGroupFinished},
		{PodGroupFailed, spv1alpha1.PodGroupFailed},
	}
	for _, p := range pairs {
		if string(p.muster) != string(p.up) {
			t.Errorf("phase %q != scheduler-plugins %q", p.muster, p.up)
		}
	}
	if PodGroupLabel != spv1alpha1.PodGroupLabel {
		t.Errorf("PodGroupLabel %q != scheduler-plugins %q", PodGroupLabel, spv1alpha1.PodGroupLabel)
	}
	if SchemeGroupVersion != spv1alpha1.SchemeGroupVersion {
		t.Errorf("SchemeGroupVersion %v != scheduler-plugins %v", SchemeGroupVersion, spv1alpha1.SchemeGroupVersion)
	}
}

// TestAddToScheme checks the kinds register under the shared group version.
func TestAddToScheme(t *testing.T) {
	s := runtime.NewScheme()
	if err := AddToScheme(s); err != nil {
		t.Fatalf("AddToScheme: %v", err)
	}
	for _, kind := range []string{"PodGroup", "PodGroupList"} {
		if !s.Recognizes(SchemeGroupVersion.WithKind(kind)) {
			t.Errorf("scheme does not recognize %s", kind)
		}
	}
}
