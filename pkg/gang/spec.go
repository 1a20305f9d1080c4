// A gang's Key and Spec: reading and validating it from a PodGroup or pod annotations, defaults.

package gang

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	schedv1alpha1 "sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
)

// Source says where a gang's spec was read from.
type Source string

const (
	// SourcePodGroup is a scheduler-plugins PodGroup object.
	SourcePodGroup Source = "PodGroup"
	// SourceLabels is the member pods' own labels and annotations (no CRD).
	SourceLabels Source = "Labels"
	// SourceWorkload is upstream's PodGroup (scheduling.k8s.io/v1beta1, part
	// of the Workload API), named by the pods' spec.schedulingGroup.
	SourceWorkload Source = "Workload"
)

// Key identifies a gang: gangs are namespaced.
type Key struct {
	Namespace string
	Name      string
}

func (k Key) String() string { return k.Namespace + "/" + k.Name }

// Spec is a gang's effective, validated spec.
type Spec struct {
	Key    Key
	Source Source
	// MinMember members must be placed together before any of them binds.
	MinMember int32
	// MaxMember is the most members that may be placed; members beyond it wait.
	MaxMember int32
	// Timeout bounds how long placed members wait for the rest of the quorum.
	Timeout time.Duration
	// Created orders gangs of equal priority: older gangs first.
	Created time.Time
	// Annotations of the object the spec was read from (the PodGroup, or the
	// member that sets a CRD-free gang's spec), for the other asks a gang makes
	// there, such as its GPU class and topology.
	Annotations map[string]string
	// SpotExtras: members above min may run on spot nodes (they must also
	// tolerate the spot taint). The quorum never does.
	SpotExtras bool
	// TopologyKey is the node label all members must share, from an upstream
	// PodGroup's spec.schedulingConstraints.topology (the topology package
	// maps it to one of the scheduler's levels); empty when none.
	TopologyKey string
	// WholeOnly: the gang is disrupted only as a whole (an upstream PodGroup's
	// disruptionMode.all): no member above min is shed on its own.
	WholeOnly bool
}

// Object names the object a gang's spec and status live on, for messages:
// its PodGroup, or for a CRD-free gang the member given.
func (s Spec) Object(member *v1.Pod) string {
	switch s.Source {
	case SourcePodGroup:
		return "PodGroup " + s.Key.String()
	case SourceWorkload:
		return WorkloadObject("PodGroup", s.Key)
	}
	return podObject(member)
}

// Defaults fill what a gang's source leaves unset, and bound what it may ask.
type Defaults struct {
	// ScheduleTimeout applies when the source sets no timeout.
	ScheduleTimeout time.Duration
	// MaxGangMembers is the largest min or max a gang may ask for; larger values
	// are rejected as bad input rather than waited on forever.
	MaxGangMembers int32
	// SpotExtras applies when the source does not say (SpotExtrasAnnotation).
	SpotExtras bool
}

// FieldError is bad gang input. It names the object and the field so that the
// event or condition it becomes tells the user exactly what to fix.
type FieldError struct {
	Object string // e.g. "PodGroup team-a/train" or "Pod team-a/train-0"
	Field  string // e.g. "spec.minMember" or "metadata.annotations[muster.dev/min-member]"
	Detail string
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("%s: %s: %s", e.Object, e.Field, e.Detail)
}

// Reference names the object and field the error is about ("Kind ns/name",
// with " (group/version)" after it for an API other than the kind's usual
// one), nil if Object is not of that form.
func (e *FieldError) Reference() *v1.ObjectReference {
	kind, rest, ok := strings.Cut(e.Object, " ")
	if !ok {
		return nil
	}
	rest, gv, _ := strings.Cut(rest, " (")
	ns, name, ok := strings.Cut(rest, "/")
	if !ok || kind == "" || ns == "" || name == "" {
		return nil
	}
	return &v1.ObjectReference{Kind: kind, Namespace: ns, Name: name, APIVersion: strings.TrimSuffix(gv, ")"), FieldPath: e.Field}
}

// GroupOf returns the gang a pod belongs to, if any. A pod that names two
// different gangs (two labels, or a label and spec.schedulingGroup) is bad
// input.
func GroupOf(pod *v1.Pod) (Key, Source, bool, error) {
	pg, hasPG := pod.Labels[PodGroupLabel]
	lg, hasLG := pod.Labels[GroupLabel]
	if sg := pod.Spec.SchedulingGroup; sg != nil && sg.PodGroupName != nil {
		name := *sg.PodGroupName
		switch {
		case name == "":
			return Key{}, "", false, &FieldError{Object: podObject(pod), Field: "spec.schedulingGroup.podGroupName", Detail: "must name a PodGroup"}
		case hasPG || hasLG:
			label := PodGroupLabel
			if hasLG {
				label = GroupLabel
			}
			return Key{}, "", false, &FieldError{
				Object: podObject(pod),
				Field:  "metadata.labels[" + label + "]",
				Detail: fmt.Sprintf("spec.schedulingGroup already names PodGroup %q (scheduling.k8s.io/v1beta1); a pod belongs to one gang, so drop the label", name),
			}
		}
		return Key{Namespace: pod.Namespace, Name: name}, SourceWorkload, true, nil
	}
	switch {
	case hasPG && hasLG && pg != lg:
		return Key{}, "", false, &FieldError{
			Object: podObject(pod),
			Field:  "metadata.labels",
			Detail: fmt.Sprintf("%s=%q and %s=%q name different gangs; use one", PodGroupLabel, pg, GroupLabel, lg),
		}
	case hasPG:
		if pg == "" {
			return Key{}, "", false, &FieldError{Object: podObject(pod), Field: "metadata.labels[" + PodGroupLabel + "]", Detail: "must name a PodGroup"}
		}
		return Key{Namespace: pod.Namespace, Name: pg}, SourcePodGroup, true, nil
	case hasLG:
		if lg == "" {
			return Key{}, "", false, &FieldError{Object: podObject(pod), Field: "metadata.labels[" + GroupLabel + "]", Detail: "must name the gang"}
		}
		return Key{Namespace: pod.Namespace, Name: lg}, SourceLabels, true, nil
	}
	return Key{}, "", false, nil
}

// MaxTimeoutSeconds bounds a gang's own timeout (one year): a larger value
// is a typo, and seconds past about 292 years overflow a time.Duration.
const MaxTimeoutSeconds int64 = 365 * 24 * 3600

// SpecFromPodGroup reads a scheduler-plugins PodGroup. max comes from the
// MaxMemberAnnotation and defaults to min (a rigid gang).
func SpecFromPodGroup(pg *schedv1alpha1.PodGroup, d Defaults) (Spec, error) {
	obj := "PodGroup " + pg.Namespace + "/" + pg.Name
	s := Spec{
		Key:       Key{Namespace: pg.Namespace, Name: pg.Name},
		Source:    SourcePodGroup,
		MinMember: pg.Spec.MinMember,
		Timeout:   d.ScheduleTimeout,
		Created:   pg.CreationTimestamp.Time,

		Annotations: pg.Annotations,
	}
	if pg.Spec.ScheduleTimeoutSeconds != nil {
		if *pg.Spec.ScheduleTimeoutSeconds < 0 {
			return Spec{}, &FieldError{Object: obj, Field: "spec.scheduleTimeoutSeconds", Detail: fmt.Sprintf("must not be negative, got %d", *pg.Spec.ScheduleTimeoutSeconds)}
		}
		if int64(*pg.Spec.ScheduleTimeoutSeconds) > MaxTimeoutSeconds {
			return Spec{}, &FieldError{Object: obj, Field: "spec.scheduleTimeoutSeconds", Detail: fmt.Sprintf("must be at most %d (one year), got %d", MaxTimeoutSeconds, *pg.Spec.ScheduleTimeoutSeconds)}
		}
		if *pg.Spec.ScheduleTimeoutSeconds > 0 {
			s.Timeout = time.Duration(*pg.Spec.ScheduleTimeoutSeconds) * time.Second
		}
	}
	s.MaxMember = s.MinMember
	if v, ok := pg.Annotations[MaxMemberAnnotation]; ok {
		n, err := parseCount(v)
		if err != nil {
			return Spec{}, &FieldError{Object: obj, Field: annotationField(MaxMemberAnnotation), Detail: err.Error()}
		}
		s.MaxMember = n
	}
	if err := s.readSpotExtras(obj, pg.Annotations, d); err != nil {
		return Spec{}, err
	}
	return s, s.validate(obj, "spec.minMember", annotationField(MaxMemberAnnotation), d)
}

// SpecFromPod reads a CRD-free gang's spec from one member's annotations.
// max defaults to min; the timeout to the scheduler's default.
func SpecFromPod(pod *v1.Pod, key Key, d Defaults) (Spec, error) {
	obj := podObject(pod)
	s := Spec{Key: key, Source: SourceLabels, Timeout: d.ScheduleTimeout, Created: pod.CreationTimestamp.Time, Annotations: pod.Annotations}
	v, ok := pod.Annotations[MinMemberAnnotation]
	if !ok {
		return Spec{}, &FieldError{Object: obj, Field: annotationField(MinMemberAnnotation), Detail: "is required on members of a gang labelled " + GroupLabel}
	}
	n, err := parseCount(v)
	if err != nil {
		return Spec{}, &FieldError{Object: obj, Field: annotationField(MinMemberAnnotation), Detail: err.Error()}
	}
	s.MinMember, s.MaxMember = n, n
	if v, ok := pod.Annotations[MaxMemberAnnotation]; ok {
		if s.MaxMember, err = parseCount(v); err != nil {
			return Spec{}, &FieldError{Object: obj, Field: annotationField(MaxMemberAnnotation), Detail: err.Error()}
		}
	}
	if s.Timeout, err = readTimeout(obj, pod.Annotations, d); err != nil {
		return Spec{}, err
	}
	if err := s.readSpotExtras(obj, pod.Annotations, d); err != nil {
		return Spec{}, err
	}
	return s, s.validate(obj, annotationField(MinMemberAnnotation), annotationField(MaxMemberAnnotation), d)
}

// Agrees reports whether two members' specs describe the same gang. Creation
// times differ between members and do not count.
func (s Spec) Agrees(o Spec) bool {
	return s.Key == o.Key && s.Source == o.Source && s.MinMember == o.MinMember &&
		s.MaxMember == o.MaxMember && s.Timeout == o.Timeout && s.SpotExtras == o.SpotExtras &&
		s.TopologyKey == o.TopologyKey && s.WholeOnly == o.WholeOnly
}

// readTimeout reads ScheduleTimeoutAnnotation, or gives the default.
func readTimeout(obj string, annotations map[string]string, d Defaults) (time.Duration, error) {
	v, ok := annotations[ScheduleTimeoutAnnotation]
	if !ok {
		return d.ScheduleTimeout, nil
	}
	secs, err := strconv.ParseInt(v, 10, 64)
	switch {
	case err != nil:
		return 0, &FieldError{Object: obj, Field: annotationField(ScheduleTimeoutAnnotation), Detail: fmt.Sprintf("must be a whole number of seconds, got %q", v)}
	case secs < 0:
		return 0, &FieldError{Object: obj, Field: annotationField(ScheduleTimeoutAnnotation), Detail: fmt.Sprintf("must not be negative, got %d", secs)}
	case secs > MaxTimeoutSeconds:
		return 0, &FieldError{Object: obj, Field: annotationField(ScheduleTimeoutAnnotation), Detail: fmt.Sprintf("must be at most %d (one year), got %d", MaxTimeoutSeconds, secs)}
	case secs > 0:
		return time.Duration(secs) * time.Second, nil
	}
	return d.ScheduleTimeout, nil
}

// readSpotExtras sets SpotExtras from the annotation, or the default.
func (s *Spec) readSpotExtras(obj string, annotations map[string]string, d Defaults) error {
	s.SpotExtras = d.SpotExtras
	v, ok := annotations[SpotExtrasAnnotation]
	if !ok {
		return nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return &FieldError{Object: obj, Field: annotationField(SpotExtrasAnnotation), Detail: fmt.Sprintf("must be true or false, got %q", v)}
	}
	s.SpotExtras = b
	return nil
}

// Disagreement describes how member pod's spec differs from the gang's spec,
// naming the pod and the field.
func Disagreement(pod *v1.Pod, own, gang Spec, gangFrom string) error {
	field, mine, theirs := "", "", ""
	switch {
	case own.MinMember != gang.MinMember:
		field, mine, theirs = annotationField(MinMemberAnnotation), fmt.Sprint(own.MinMember), fmt.Sprint(gang.MinMember)
	case own.MaxMember != gang.MaxMember:
		field, mine, theirs = annotationField(MaxMemberAnnotation), fmt.Sprint(own.MaxMember), fmt.Sprint(gang.MaxMember)
	case own.SpotExtras != gang.SpotExtras:
		field, mine, theirs = annotationField(SpotExtrasAnnotation), fmt.Sprint(own.SpotExtras), fmt.Sprint(gang.SpotExtras)
	default:
		field, mine, theirs = annotationField(ScheduleTimeoutAnnotation), own.Timeout.String(), gang.Timeout.String()
	}
	return &FieldError{Object: podObject(pod), Field: field,
		Detail: fmt.Sprintf("%s disagrees with %s of gang %s (set by %s); members of a gang must agree", mine, theirs, gang.Key, gangFrom)}
}

func (s Spec) validate(obj, minField, maxField string, d Defaults) error {
	switch {
	case s.MinMember < 1:
		return &FieldError{Object: obj, Field: minField, Detail: fmt.Sprintf("must be at least 1, got %d", s.MinMember)}
	case d.MaxGangMembers > 0 && s.MinMember > d.MaxGangMembers:
		return &FieldError{Object: obj, Field: minField, Detail: fmt.Sprintf("%d exceeds the scheduler's maxGangMembers (%d)", s.MinMember, d.MaxGangMembers)}
	case s.MaxMember < s.MinMember:
		return &FieldError{Object: obj, Field: maxField, Detail: fmt.Sprintf("max %d is less than min %d", s.MaxMember, s.MinMember)}
	case d.MaxGangMembers > 0 && s.MaxMember > d.MaxGangMembers:
		return &FieldError{Object: obj, Field: maxField, Detail: fmt.Sprintf("%d exceeds the scheduler's maxGangMembers (%d)", s.MaxMember, d.MaxGangMembers)}
	}
	return nil
}

func parseCount(v string) (int32, error) {
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("must be a whole number, got %q", v)
	}
	return int32(n), nil
}

func annotationField(name string) string { return "metadata.annotations[" + name + "]" }

func podObject(pod *v1.Pod) string { return "Pod " + pod.Namespace + "/" + pod.Name }
