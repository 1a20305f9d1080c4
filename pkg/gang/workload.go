// Gangs from upstream's Workload API (scheduling.k8s.io/v1beta1): spec and Scheduled condition.

package gang

import (
	"fmt"

	schedv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// WorkloadGroupVersion is the API upstream's Workload and PodGroup live in.
const WorkloadGroupVersion = "scheduling.k8s.io/v1beta1"

// WorkloadObject names an upstream PodGroup or Workload for messages, e.g.
// "PodGroup ns/train (scheduling.k8s.io/v1beta1)".
func WorkloadObject(kind string, k Key) string {
	return kind + " " + k.String() + " (" + WorkloadGroupVersion + ")"
}

// SpecFromWorkload reads an upstream PodGroup (scheduling.k8s.io/v1beta1),
// with the Workload it was made from when there is one (wl may be nil).
//
// The API's own fields win: spec.schedulingPolicy.gang.minCount is min (a
// basic policy is a group of independent pods: min 1),
// schedulingConstraints.topology[0].key is the node label all members share,
// disruptionMode.all makes the gang disruptable only as a whole. What the
// API has no field for (max members, timeout, GPU class, preferred
// topology, spot extras) comes from Muster's annotations, the PodGroup's
// over the Workload's, so a Workload sets them for every group it makes.
func SpecFromWorkload(pg *schedv1beta1.PodGroup, wl *schedv1beta1.Workload, d Defaults) (Spec, error) {
	obj := WorkloadObject("PodGroup", Key{Namespace: pg.Namespace, Name: pg.Name})
	annotations := pg.Annotations
	if wl != nil && len(wl.Annotations) > 0 {
		annotations = make(map[string]string, len(wl.Annotations)+len(pg.Annotations))
		for k, v := range wl.Annotations {
			annotations[k] = v
		}
		for k, v := range pg.Annotations {
			annotations[k] = v
		}
	}
	// Which object an annotation came from, for errors.
	from := func(name string) string {
		if _, own := pg.Annotations[name]; own || wl == nil {
			return obj
		}
		return WorkloadObject("Workload", Key{Namespace: wl.Namespace, Name: wl.Name})
	}
	s := Spec{
		Key:         Key{Namespace: pg.Namespace, Name: pg.Name},
		Source:      SourceWorkload,
		Created:     pg.CreationTimestamp.Time,
		Annotations: annotations,
	}
	policy := pg.Spec.SchedulingPolicy
	switch {
	case policy.Gang != nil && policy.Basic != nil:
		return Spec{}, &FieldError{Object: obj, Field: "spec.schedulingPolicy", Detail: "sets both basic and gang; set one"}
	case policy.Gang != nil:
		s.MinMember = policy.Gang.MinCount
		s.MaxMember = s.MinMember
	case policy.Basic != nil:
		// Independent pods: each may run alone, and as many as exist.
		s.MinMember, s.MaxMember = 1, d.MaxGangMembers
		if s.MaxMember <= 0 {
			s.MaxMember = 1 << 30
		}
	default:
		return Spec{}, &FieldError{Object: obj, Field: "spec.schedulingPolicy", Detail: "sets neither basic nor gang; set one"}
	}
	if v, ok := annotations[MaxMemberAnnotation]; ok {
		n, err := parseCount(v)
		if err != nil {
			return Spec{}, &FieldError{Object: from(MaxMemberAnnotation), Field: annotationField(MaxMemberAnnotation), Detail: err.Error()}
		}
		s.MaxMember = n
	}
	var err error
	if s.Timeout, err = readTimeout(from(ScheduleTimeoutAnnotation), annotations, d); err != nil {
		return Spec{}, err
	}
	if err := s.readSpotExtras(from(SpotExtrasAnnotation), annotations, d); err != nil {
		return Spec{}, err
	}
	if c := pg.Spec.SchedulingConstraints; c != nil {
		switch len(c.Topology) {
		case 0:
		case 1:
			if c.Topology[0].Key == "" {
				return Spec{}, &FieldError{Object: obj, Field: "spec.schedulingConstraints.topology[0].key", Detail: "must name a node label"}
			}
			s.TopologyKey = c.Topology[0].Key
		default:
			return Spec{}, &FieldError{Object: obj, Field: "spec.schedulingConstraints.topology", Detail: fmt.Sprintf("has %d constraints; one is supported", len(c.Topology))}
		}
	}
	if m := pg.Spec.DisruptionMode; m != nil {
		if m.All != nil && m.Single != nil {
			return Spec{}, &FieldError{Object: obj, Field: "spec.disruptionMode", Detail: "sets both single and all; set one"}
		}
		s.WholeOnly = m.All != nil
	}
	if s.WholeOnly && s.SpotExtras {
		// A reclaimed spot node would take members singly.
		if _, asked := annotations[SpotExtrasAnnotation]; asked {
			return Spec{}, &FieldError{Object: from(SpotExtrasAnnotation), Field: annotationField(SpotExtrasAnnotation),
				Detail: "must not be true for a PodGroup with spec.disruptionMode.all: a spot reclaim takes members singly"}
		}
		s.SpotExtras = false
	}
	return s, s.validate(obj, "spec.schedulingPolicy.gang.minCount", annotationField(MaxMemberAnnotation), d)
}

// InitiallyScheduled is upstream's PodGroupInitiallyScheduled condition for
// a gang's summary, with upstream's reasons: True ("Scheduled") once the
// quorum was placed, and never false again (the caller keeps a true one);
// False "Unschedulable" while a complete quorum does not fit or waits for
// room; False "SchedulerError" when the gang's spec is bad input. A gang
// still waiting for members to exist has no condition yet (ok false), as
// upstream tries no group before its pods are there.
func InitiallyScheduled(sum Summary) (c metav1.Condition, ok bool) {
	c = metav1.Condition{Type: schedv1beta1.PodGroupInitiallyScheduled, Status: metav1.ConditionFalse, Message: sum.Reason + ": " + sum.Message}
	switch {
	case sum.Placed:
		c.Status, c.Reason = metav1.ConditionTrue, "Scheduled"
	case sum.Reason == ReasonInvalidSpec:
		c.Reason = schedv1beta1.PodGroupReasonSchedulerError
	case sum.Reason == ReasonUnschedulable, sum.Reason == ReasonWaitingForRoom, sum.Reason == ReasonBackingOff:
		c.Reason = schedv1beta1.PodGroupReasonUnschedulable
	default:
		return metav1.Condition{}, false
	}
	return c, true
}
