package config

import "k8s.io/utils/ptr"

// Defaults for GangArgs.
const (
	DefaultScheduleTimeoutSeconds int64 = 300
	DefaultBackoffSeconds         int64 = 10
	DefaultMaxGangMembers         int32 = 10000
	DefaultStatusSyncMillis       int64 = 500
)

// SetDefaultsGangArgs fills unset fields.
func SetDefaultsGangArgs(a *GangArgs) {
	if a.ScheduleTimeoutSeconds == nil {
		a.ScheduleTimeoutSeconds = ptr.To(DefaultScheduleTimeoutSeconds)
	}
	if a.BackoffSeconds == nil {
		a.BackoffSeconds = ptr.To(DefaultBackoffSeconds)
	}
	if a.MaxGangMembers == nil {
		a.MaxGangMembers = ptr.To(DefaultMaxGangMembers)
	}
	if a.StatusSyncMillis == nil {
		a.StatusSyncMillis = ptr.To(DefaultStatusSyncMillis)
	}
}
