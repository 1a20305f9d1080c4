// Validation of defaulted GangArgs and TopologyArgs, naming the bad field.

package config

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateGangArgs checks defaulted GangArgs; errors name the field under path.
func ValidateGangArgs(path *field.Path, a *GangArgs) error {
	var errs field.ErrorList
	tooLong := func(p *field.Path, v *int64, max int64) {
		if v != nil && *v > max {
			errs = append(errs, field.Invalid(p, *v, fmt.Sprintf("must be at most %d (one year)", max)))
		}
	}
	if a.ScheduleTimeoutSeconds != nil && *a.ScheduleTimeoutSeconds <= 0 {
		errs = append(errs, field.Invalid(path.Child("scheduleTimeoutSeconds"), *a.ScheduleTimeoutSeconds, "must be greater than 0"))
	}
	tooLong(path.Child("scheduleTimeoutSeconds"), a.ScheduleTimeoutSeconds, MaxSeconds)
	if a.BackoffSeconds != nil && *a.BackoffSeconds < 1 {
		errs = append(errs, field.Invalid(path.Child("backoffSeconds"), *a.BackoffSeconds, "must be at least 1: a gang that does not fit would retry in a hot loop"))
	}
	tooLong(path.Child("backoffSeconds"), a.BackoffSeconds, MaxSeconds)
	tooLong(path.Child("statusSyncMillis"), a.StatusSyncMillis, MaxSeconds*1000)
	tooLong(path.Child("starvationBoundSeconds"), a.StarvationBoundSeconds, MaxSeconds)
	if a.StrandedMembers != "Evict" && a.StrandedMembers != "Keep" {
		errs = append(errs, field.NotSupported(path.Child("strandedMembers"), a.StrandedMembers, []string{"Evict", "Keep"}))
	}
	if a.PodWriteQPS != nil && (*a.PodWriteQPS < 1 || *a.PodWriteQPS > 10000) {
		errs = append(errs, field.Invalid(path.Child("podWriteQPS"), *a.PodWriteQPS, "must be from 1 to 10000"))
	}
	if a.MaxGangMembers != nil && *a.MaxGangMembers < 1 {
		errs = append(errs, field.Invalid(path.Child("maxGangMembers"), *a.MaxGangMembers, "must be at least 1"))
	}
	if a.StatusSyncMillis != nil && *a.StatusSyncMillis < 10 {
		errs = append(errs, field.Invalid(path.Child("statusSyncMillis"), *a.StatusSyncMillis, "must be at least 10"))
	}
	if a.StarvationBoundSeconds != nil && *a.StarvationBoundSeconds < 0 {
		errs = append(errs, field.Invalid(path.Child("starvationBoundSeconds"), *a.StarvationBoundSeconds, "must not be negative"))
	}
	seen := map[int32]bool{}
	for i, r := range a.Preemption {
		p := path.Child("preemption").Index(i)
		if r.Policy != PreemptNever && r.Policy != PreemptLowerPriority {
			errs = append(errs, field.NotSupported(p.Child("policy"), r.Policy, []string{string(PreemptNever), string(PreemptLowerPriority)}))
		}
		if seen[r.MinPriority] {
			errs = append(errs, field.Duplicate(p.Child("minPriority"), r.MinPriority))
		}
		seen[r.MinPriority] = true
		if r.MaxWaitForNodesSeconds != nil && *r.MaxWaitForNodesSeconds < 0 {
			errs = append(errs, field.Invalid(p.Child("maxWaitForNodesSeconds"), *r.MaxWaitForNodesSeconds, "must not be negative"))
		}
		tooLong(p.Child("maxWaitForNodesSeconds"), r.MaxWaitForNodesSeconds, MaxSeconds)
	}
	return errs.ToAggregate()
}

// ValidateTopologyArgs checks defaulted TopologyArgs; errors name the field
// under path.
func ValidateTopologyArgs(path *field.Path, a *TopologyArgs) error {
	var errs field.ErrorList
	names, labels := map[string]bool{}, map[string]bool{}
	for i, l := range a.Levels {
		p := path.Child("levels").Index(i)
		for _, msg := range validation.IsDNS1123Label(l.Name) {
			errs = append(errs, field.Invalid(p.Child("name"), l.Name, msg))
		}
		if names[l.Name] {
			errs = append(errs, field.Duplicate(p.Child("name"), l.Name))
		}
		names[l.Name] = true
		for _, msg := range validation.IsQualifiedName(l.Label) {
			errs = append(errs, field.Invalid(p.Child("label"), l.Label, msg))
		}
		if labels[l.Label] {
			errs = append(errs, field.Duplicate(p.Child("label"), l.Label))
		}
		labels[l.Label] = true
	}
	for _, msg := range validation.IsQualifiedName(a.GPUResourceName) {
		errs = append(errs, field.Invalid(path.Child("gpuResourceName"), a.GPUResourceName, msg))
	}
	for i, l := range a.ProvisionableLevels {
		if !names[l] {
			errs = append(errs, field.NotFound(path.Child("provisionableLevels").Index(i), l))
		}
	}
	if a.HintSyncMillis != nil && (*a.HintSyncMillis < 10 || *a.HintSyncMillis > MaxSeconds*1000) {
		errs = append(errs, field.Invalid(path.Child("hintSyncMillis"), *a.HintSyncMillis, fmt.Sprintf("must be from 10 to %d", MaxSeconds*1000)))
	}
	if a.ShapeWindow != nil && (*a.ShapeWindow < 1 || *a.ShapeWindow > 4096) {
		errs = append(errs, field.Invalid(path.Child("shapeWindow"), *a.ShapeWindow, "must be between 1 and 4096"))
	}
	return errs.ToAggregate()
}
