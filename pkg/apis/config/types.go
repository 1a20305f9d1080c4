package config

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// GangArgs configures the MusterGang plugin.
type GangArgs struct {
	metav1.TypeMeta `json:",inline"`

	// ScheduleTimeoutSeconds is how long placed members of a gang may hold their
	// reservations while the rest of the quorum is placed, when the gang does
	// not set its own timeout. Default 300.
	ScheduleTimeoutSeconds *int64 `json:"scheduleTimeoutSeconds,omitempty"`

	// BackoffSeconds is how long a gang whose quorum could not be placed waits
	// before its next attempt, so that it neither holds resources nor retries in
	// a hot loop. Default 10.
	BackoffSeconds *int64 `json:"backoffSeconds,omitempty"`

	// MaxGangMembers bounds the min and max a gang may ask for; a larger value is
	// reported as bad input on the gang instead of being waited on. Default 10000.
	MaxGangMembers *int32 `json:"maxGangMembers,omitempty"`

	// StatusSyncMillis is how often, at most, PodGroup status is written per
	// gang. Default 500.
	StatusSyncMillis *int64 `json:"statusSyncMillis,omitempty"`
}
