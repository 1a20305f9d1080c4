package config

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateGangArgs checks defaulted GangArgs; errors name the field under path.
func ValidateGangArgs(path *field.Path, a *GangArgs) error {
	var errs field.ErrorList
	if a.ScheduleTimeoutSeconds != nil && *a.ScheduleTimeoutSeconds <= 0 {
		errs = append(errs, field.Invalid(path.Child("scheduleTimeoutSeconds"), *a.ScheduleTimeoutSeconds, "must be greater than 0"))
	}
	if a.BackoffSeconds != nil && *a.BackoffSeconds < 0 {
		errs = append(errs, field.Invalid(path.Child("backoffSeconds"), *a.BackoffSeconds, "must not be negative"))
	}
	if a.MaxGangMembers != nil && *a.MaxGangMembers < 1 {
		errs = append(errs, field.Invalid(path.Child("maxGangMembers"), *a.MaxGangMembers, "must be at least 1"))
	}
	if a.StatusSyncMillis != nil && *a.StatusSyncMillis < 10 {
		errs = append(errs, field.Invalid(path.Child("statusSyncMillis"), *a.StatusSyncMillis, "must be at least 10"))
	}
	return errs.ToAggregate()
}
