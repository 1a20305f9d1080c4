// The args types: GangArgs with its preemption rules, TopologyArgs with its levels.

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
	// a hot loop. At least 1. Default 10.
	BackoffSeconds *int64 `json:"backoffSeconds,omitempty"`

	// MaxGangMembers bounds the min and max a gang may ask for; a larger value is
	// reported as bad input on the gang instead of being waited on. Default 10000.
	MaxGangMembers *int32 `json:"maxGangMembers,omitempty"`

	// StatusSyncMillis is how often, at most, PodGroup status is written per
	// gang. Default 500.
	StatusSyncMillis *int64 `json:"statusSyncMillis,omitempty"`

	// Preemption says what a gang whose quorum does not fit may take from
	// other gangs, by the gang's priority: the rule with the highest
	// minPriority the gang's priority reaches applies. Default: one rule for
	// every priority, policy LowerPriority, maxWaitForNodesSeconds 600.
	Preemption []PreemptionRule `json:"preemption,omitempty"`

	// StrandedMembers says what becomes of a gang's members bound below min
	// (a bind failed, a node went between Permit and Bind, a member of a
	// running gang was lost) once they have stood so for the gang's timeout
	// and none of them finished: Evict (through the Eviction API, with a
	// DisruptionTarget condition saying why) or Keep. Default Evict.
	StrandedMembers string `json:"strandedMembers,omitempty"`

	// PodWriteQPS is the rate limit of the client that marks gang members
	// (annotations for the autoscaler, PodScheduled conditions of gated
	// members), apart from the scheduler's own client that binds: burst is
	// twice as much. Marks for one pod are coalesced. Default 20.
	PodWriteQPS *int32 `json:"podWriteQPS,omitempty"`

	// StarvationBoundSeconds is how long a gang's quorum that does not fit
	// waits before the room it could use is held for it against younger
	// gangs and elastic growth, so that freed capacity accumulates for it.
	// Quorums that fit are always served in order. Default 600.
	StarvationBoundSeconds *int64 `json:"starvationBoundSeconds,omitempty"`

	// SpotExtras is whether gangs that say nothing (no
	// muster.dev/spot-extras annotation) put members above min on spot nodes
	// (label kubernetes.azure.com/scalesetpriority=spot). A gang's quorum
	// never goes on spot nodes. Default false.
	SpotExtras *bool `json:"spotExtras,omitempty"`
}

// PreemptionPolicy names what a gang may take to make room for its quorum.
type PreemptionPolicy string

const (
	// PreemptNever takes nothing: the gang waits for free room or new nodes.
	PreemptNever PreemptionPolicy = "Never"
	// PreemptLowerPriority sheds members above min of elastic gangs of lower
	// priority (or of equal priority and younger), and preempts whole gangs
	// of lower priority.
	PreemptLowerPriority PreemptionPolicy = "LowerPriority"
)

// PreemptionRule is the preemption policy of gangs from one priority up.
type PreemptionRule struct {
	// MinPriority is the lowest gang priority the rule applies to.
	MinPriority int32 `json:"minPriority"`
	// Policy is Never or LowerPriority.
	Policy PreemptionPolicy `json:"policy"`
	// MaxWaitForNodesSeconds is how long a gang that new nodes could serve
	// waits for them before it preempts whole gangs instead: set it from the
	// pools' expected provisioning time. 0 preempts at once. Shedding
	// members above min never waits. Default 600.
	MaxWaitForNodesSeconds *int64 `json:"maxWaitForNodesSeconds,omitempty"`
}

// TopologyArgs configures the MusterTopology plugin.
type TopologyArgs struct {
	metav1.TypeMeta `json:",inline"`

	// Levels are the topology tiers, narrowest first: nodes sharing a value of
	// a level's label form one domain of it. Gangs name levels in their
	// muster.dev/topology-preferred and -required annotations. Default: node
	// (kubernetes.io/hostname), accelerator (network.topology.nvidia.com/accelerator),
	// clique (nvidia.com/gpu.clique), rack (network.topology.nvidia.com/leaf),
	// block (network.topology.nvidia.com/spine), placement-group
	// (muster.dev/placement-group), zone (topology.kubernetes.io/zone).
	Levels []TopologyLevel `json:"levels,omitempty"`

	// GPUResourceName is the extended resource counted as GPUs. Default
	// nvidia.com/gpu.
	GPUResourceName string `json:"gpuResourceName,omitempty"`

	// ShapeWindow is how many recently seen gangs define the common shapes
	// (GPUs per member) that scoring keeps leftover GPUs usable for. Default 64.
	ShapeWindow *int32 `json:"shapeWindow,omitempty"`

	// AutoscalerHints turns on ProvisioningRequests for gangs short of
	// capacity (when the cluster serves autoscaling.x-k8s.io/v1). Default true.
	AutoscalerHints *bool `json:"autoscalerHints,omitempty"`

	// ProvisionableLevels are the levels whose domains nodes added by the
	// autoscaler join (their templates carry the level's label). A gang that
	// requires any other level gets no hint. Default: placement-group, zone.
	ProvisionableLevels []string `json:"provisionableLevels,omitempty"`

	// HintSyncMillis is how often hints are reconciled with the API, 10 or
	// more (muster simulate keeps it inside a step). Default 1000.
	HintSyncMillis *int64 `json:"hintSyncMillis,omitempty"`
}

// TopologyLevel is one tier of TopologyArgs.Levels.
type TopologyLevel struct {
	// Name is what gangs call the level, e.g. "clique".
	Name string `json:"name"`
	// Label is the node label whose value names the node's domain.
	Label string `json:"label"`
}
