// Tests of a gang's key and spec from its labels, PodGroup or pod annotations: defaults, bad values refused naming the object and field, spot extras, error references.

package gang

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	schedv1alpha1 "sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
)

var defaults = Defaults{ScheduleTimeout: 5 * time.Minute, MaxGangMembers: 1000}

func pod(labels, annotations map[string]string) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", Labels: labels, Annotations: annotations}}
}

func TestGroupOf(t *testing.T) {
	tests := []struct {
		name    string
		labels  map[string]string
		want    Key
		source  Source
		isGang  bool
		wantErr string
	}{
		{name: "ordinary pod", labels: map[string]string{"app": "x"}},
		{name: "PodGroup label", labels: map[string]string{PodGroupLabel: "train"}, want: Key{"ns", "train"}, source: SourcePodGroup, isGang: true},
		{name: "CRD-free label", labels: map[string]string{GroupLabel: "train"}, want: Key{"ns", "train"}, source: SourceLabels, isGang: true},
		{name: "both labels agreeing", labels: map[string]string{GroupLabel: "t", PodGroupLabel: "t"}, want: Key{"ns", "t"}, source: SourcePodGroup, isGang: true},
		{name: "both labels disagreeing", labels: map[string]string{GroupLabel: "a", PodGroupLabel: "b"}, wantErr: "Pod ns/p: metadata.labels: "},
		{name: "empty PodGroup name", labels: map[string]string{PodGroupLabel: ""}, wantErr: "metadata.labels[scheduling.x-k8s.io/pod-group]: must name a PodGroup"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key, src, isGang, err := GroupOf(pod(tt.labels, nil))
			if !checkErr(t, err, tt.wantErr) {
				return
			}
			if err != nil || key != tt.want || src != tt.source || isGang != tt.isGang {
				t.Errorf("GroupOf = %v %v %v %v, want %v %v %v", key, src, isGang, err, tt.want, tt.source, tt.isGang)
			}
		})
	}
}

func TestSpecFromPodGroup(t *testing.T) {
	pg := func(min int32, timeout *int32, max string) *schedv1alpha1.PodGroup {
		p := &schedv1alpha1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "g"}, Spec: schedv1alpha1.PodGroupSpec{MinMember: min, ScheduleTimeoutSeconds: timeout}}
		if max != "" {
			p.Annotations = map[string]string{MaxMemberAnnotation: max}
		}
		return p
	}
	tests := []struct {
		name     string
		pg       *schedv1alpha1.PodGroup
		min, max int32
		timeout  time.Duration
		wantErr  string
	}{
		{name: "rigid gang, default timeout", pg: pg(4, nil, ""), min: 4, max: 4, timeout: 5 * time.Minute},
		{name: "elastic gang with own timeout", pg: pg(2, ptr.To[int32](30), "8"), min: 2, max: 8, timeout: 30 * time.Second},
		{name: "zero timeout means default", pg: pg(2, ptr.To[int32](0), ""), min: 2, max: 2, timeout: 5 * time.Minute},
		{name: "min below 1", pg: pg(0, nil, ""), wantErr: "PodGroup ns/g: spec.minMember: must be at least 1, got 0"},
		{name: "max below min", pg: pg(4, nil, "2"), wantErr: "PodGroup ns/g: metadata.annotations[muster.dev/max-member]: max 2 is less than min 4"},
		{name: "max not a number", pg: pg(4, nil, "lots"), wantErr: `metadata.annotations[muster.dev/max-member]: must be a whole number, got "lots"`},
		{name: "negative timeout", pg: pg(4, ptr.To[int32](-1), ""), wantErr: "PodGroup ns/g: spec.scheduleTimeoutSeconds: must not be negative, got -1"},
		{name: "timeout past a year", pg: pg(4, ptr.To[int32](2147483647), ""), wantErr: "PodGroup ns/g: spec.scheduleTimeoutSeconds: must be at most 31536000 (one year), got 2147483647"},
		{name: "huge min", pg: pg(100000, nil, ""), wantErr: "spec.minMember: 100000 exceeds the scheduler's maxGangMembers (1000)"},
		{name: "huge max", pg: pg(1, nil, "5000"), wantErr: "metadata.annotations[muster.dev/max-member]: 5000 exceeds the scheduler's maxGangMembers (1000)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := SpecFromPodGroup(tt.pg, defaults)
			if !checkErr(t, err, tt.wantErr) {
				return
			}
			if s.MinMember != tt.min || s.MaxMember != tt.max || s.Timeout != tt.timeout || s.Source != SourcePodGroup {
				t.Errorf("spec = %+v, want min %d max %d timeout %s", s, tt.min, tt.max, tt.timeout)
			}
		})
	}
}

func TestSpecFromPod(t *testing.T) {
	key := Key{"ns", "g"}
	ann := func(kv ...string) map[string]string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name     string
		ann      map[string]string
		min, max int32
		timeout  time.Duration
		wantErr  string
	}{
		{name: "min only", ann: ann(MinMemberAnnotation, "3"), min: 3, max: 3, timeout: 5 * time.Minute},
		{name: "min, max, timeout", ann: ann(MinMemberAnnotation, "2", MaxMemberAnnotation, "6", ScheduleTimeoutAnnotation, "90"), min: 2, max: 6, timeout: 90 * time.Second},
		{name: "min missing", ann: ann(), wantErr: "Pod ns/p: metadata.annotations[muster.dev/min-member]: is required"},
		{name: "min zero", ann: ann(MinMemberAnnotation, "0"), wantErr: "must be at least 1, got 0"},
		{name: "max below min", ann: ann(MinMemberAnnotation, "4", MaxMemberAnnotation, "3"), wantErr: "max 3 is less than min 4"},
		{name: "negative timeout", ann: ann(MinMemberAnnotation, "1", ScheduleTimeoutAnnotation, "-3"), wantErr: "metadata.annotations[muster.dev/schedule-timeout-seconds]: must not be negative, got -3"},
		{name: "timeout that overflows", ann: ann(MinMemberAnnotation, "1", ScheduleTimeoutAnnotation, "9223372036854775807"),
			wantErr: "metadata.annotations[muster.dev/schedule-timeout-seconds]: must be at most 31536000 (one year), got 9223372036854775807"},
		{name: "timeout not a number", ann: ann(MinMemberAnnotation, "1", ScheduleTimeoutAnnotation, "soon"), wantErr: `must be a whole number of seconds, got "soon"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := SpecFromPod(pod(map[string]string{GroupLabel: "g"}, tt.ann), key, defaults)
			if !checkErr(t, err, tt.wantErr) {
				return
			}
			if s.MinMember != tt.min || s.MaxMember != tt.max || s.Timeout != tt.timeout {
				t.Errorf("spec = %+v, want min %d max %d timeout %s", s, tt.min, tt.max, tt.timeout)
			}
		})
	}
}

// checkErr fails the test unless err matches want (an error containing want,
// or no error when want is empty); it reports whether the case goes on to
// check a result.
func checkErr(t *testing.T, err error, want string) bool {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Fatal(err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Fatalf("err = %v, want %q", err, want)
	}
	return want == ""
}

// TestSpotExtras: the annotation on a PodGroup or a CRD-free member opts a
// gang in or out of spot for members above min, the scheduler's default
// applies without it, a bad value names the object and the field, and
// members that disagree are told so.
func TestSpotExtras(t *testing.T) {
	on := defaults
	on.SpotExtras = true
	for _, tc := range []struct {
		name    string
		value   string // "" for no annotation
		d       Defaults
		want    bool
		wantErr string
	}{
		{name: "default off", d: defaults},
		{name: "default on", d: on, want: true},
		{name: "opted in", value: "true", d: defaults, want: true},
		{name: "opted out of the default", value: "false", d: on},
		{name: "bad value", value: "please", d: defaults, wantErr: `metadata.annotations[muster.dev/spot-extras]: must be true or false, got "please"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := map[string]string{MinMemberAnnotation: "2", MaxMemberAnnotation: "4"}
			pg := &schedv1alpha1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "g", Annotations: map[string]string{MaxMemberAnnotation: "4"}},
				Spec: schedv1alpha1.PodGroupSpec{MinMember: 2}}
			if tc.value != "" {
				a[SpotExtrasAnnotation] = tc.value
				pg.Annotations[SpotExtrasAnnotation] = tc.value
			}
			fromPod, err := SpecFromPod(pod(map[string]string{GroupLabel: "g"}, a), Key{"ns", "g"}, tc.d)
			if checkErr(t, err, tc.wantErr) && fromPod.SpotExtras != tc.want {
				t.Errorf("CRD-free: SpotExtras %v, want %v", fromPod.SpotExtras, tc.want)
			}
			fromPG, err := SpecFromPodGroup(pg, tc.d)
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), "PodGroup ns/g: "+tc.wantErr)) {
				t.Fatalf("PodGroup: err = %v, want %q", err, tc.wantErr)
			}
			if tc.wantErr == "" && (err != nil || fromPG.SpotExtras != tc.want) {
				t.Errorf("PodGroup: SpotExtras %v (err %v), want %v", fromPG.SpotExtras, err, tc.want)
			}
		})
	}
	in, _ := SpecFromPod(pod(map[string]string{GroupLabel: "g"}, map[string]string{MinMemberAnnotation: "2", SpotExtrasAnnotation: "true"}), Key{"ns", "g"}, defaults)
	out, _ := SpecFromPod(pod(map[string]string{GroupLabel: "g"}, map[string]string{MinMemberAnnotation: "2"}), Key{"ns", "g"}, defaults)
	if in.Agrees(out) {
		t.Fatal("members that disagree on spot-extras agree")
	}
	if err := Disagreement(pod(nil, nil), out, in, "Pod ns/g-0"); !strings.Contains(err.Error(), "metadata.annotations[muster.dev/spot-extras]: false disagrees with true") {
		t.Fatalf("disagreement: %v", err)
	}
}

func TestFieldErrorReference(t *testing.T) {
	for _, c := range []struct {
		err  FieldError
		want *v1.ObjectReference
	}{
		{FieldError{Object: "PodGroup team-a/huge", Field: "spec.minMember"},
			&v1.ObjectReference{Kind: "PodGroup", Namespace: "team-a", Name: "huge", FieldPath: "spec.minMember"}},
		{FieldError{Object: "Pod team-a/huge-0", Field: "metadata.labels[scheduling.x-k8s.io/pod-group]"},
			&v1.ObjectReference{Kind: "Pod", Namespace: "team-a", Name: "huge-0", FieldPath: "metadata.labels[scheduling.x-k8s.io/pod-group]"}},
		{FieldError{Object: WorkloadObject("PodGroup", Key{Namespace: "ns", Name: "g"}), Field: "spec.minCount"},
			&v1.ObjectReference{Kind: "PodGroup", Namespace: "ns", Name: "g", APIVersion: WorkloadGroupVersion, FieldPath: "spec.minCount"}},
		{FieldError{Object: "a pod", Field: "x"}, nil},
		{FieldError{Object: "", Field: "x"}, nil},
	} {
		got := c.err.Reference()
		if (got == nil) != (c.want == nil) || (got != nil && *got != *c.want) {
			t.Errorf("%q: Reference() = %+v, want %+v", c.err.Object, got, c.want)
		}
	}
}
