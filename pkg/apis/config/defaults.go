// The defaults of GangArgs and TopologyArgs, the default topology levels, and the duration bound.

package config

import (
	"math"

	"k8s.io/utils/ptr"

	"github.com/muster-project/muster/pkg/contract"
)

// Defaults for GangArgs.
const (
	DefaultScheduleTimeoutSeconds int64 = 300
	DefaultBackoffSeconds         int64 = 10
	DefaultMaxGangMembers         int32 = 10000
	DefaultStatusSyncMillis       int64 = 500
	DefaultMaxWaitForNodesSeconds int64 = 600
	DefaultStarvationBoundSeconds int64 = 600
	DefaultPodWriteQPS            int32 = 20
	DefaultStrandedMembers              = "Evict"
)

// MaxSeconds bounds every duration in the args (one year): a larger value
// is a typo, and seconds past about 292 years overflow a time.Duration.
const MaxSeconds int64 = 365 * 24 * 3600

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
	if a.StarvationBoundSeconds == nil {
		a.StarvationBoundSeconds = ptr.To(DefaultStarvationBoundSeconds)
	}
	if a.SpotExtras == nil {
		a.SpotExtras = ptr.To(false)
	}
	if a.StrandedMembers == "" {
		a.StrandedMembers = DefaultStrandedMembers
	}
	if a.PodWriteQPS == nil {
		a.PodWriteQPS = ptr.To(DefaultPodWriteQPS)
	}
	if len(a.Preemption) == 0 {
		a.Preemption = []PreemptionRule{{MinPriority: math.MinInt32, Policy: PreemptLowerPriority}}
	}
	for i := range a.Preemption {
		if a.Preemption[i].MaxWaitForNodesSeconds == nil {
			a.Preemption[i].MaxWaitForNodesSeconds = ptr.To(DefaultMaxWaitForNodesSeconds)
		}
	}
}

// Defaults for TopologyArgs.
const (
	DefaultGPUResourceName       = "nvidia.com/gpu"
	DefaultShapeWindow     int32 = 64
	DefaultHintSyncMillis  int64 = 1000
)

// DefaultTopologyLevels are the levels used when TopologyArgs sets none,
// narrowest first.
func DefaultTopologyLevels() []TopologyLevel {
	return []TopologyLevel{
		{Name: "node", Label: contract.HostnameLabel},
		{Name: "accelerator", Label: "network.topology.nvidia.com/accelerator"},
		{Name: "clique", Label: contract.GPUCliqueLabel},
		{Name: "rack", Label: "network.topology.nvidia.com/leaf"},
		{Name: "block", Label: "network.topology.nvidia.com/spine"},
		{Name: "placement-group", Label: contract.PlacementGroupLabel},
		{Name: "zone", Label: contract.ZoneLabel},
	}
}

// SetDefaultsTopologyArgs fills unset fields.
func SetDefaultsTopologyArgs(a *TopologyArgs) {
	if len(a.Levels) == 0 {
		a.Levels = DefaultTopologyLevels()
	}
	if a.GPUResourceName == "" {
		a.GPUResourceName = DefaultGPUResourceName
	}
	if a.ShapeWindow == nil {
		a.ShapeWindow = ptr.To(DefaultShapeWindow)
	}
	if a.AutoscalerHints == nil {
		a.AutoscalerHints = ptr.To(true)
	}
	if a.ProvisionableLevels == nil {
		// Of the levels configured, those Muster's Azure provider labels new
		// nodes with.
		a.ProvisionableLevels = []string{}
		for _, l := range a.Levels {
			if l.Name == "placement-group" || l.Name == "zone" {
				a.ProvisionableLevels = append(a.ProvisionableLevels, l.Name)
			}
		}
	}
	if a.HintSyncMillis == nil {
		a.HintSyncMillis = ptr.To(DefaultHintSyncMillis)
	}
}
