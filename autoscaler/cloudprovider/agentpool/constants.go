// Constants: provider name, node labels, scale set tags, SKU capabilities, defaults, error codes.

package agentpool

import (
	"time"

	"github.com/muster-project/muster/autoscaler/contract"
)

// ProviderName is the value of --cloud-provider this build answers to.
const ProviderName = "muster-azure"

// Node labels and the GPU resource the provider writes on template nodes.
// Those the scheduler reads are the contract's (one definition, in the root
// module's pkg/contract), so a node that does not exist yet is judged
// exactly like one that does.
const (
	GPUResourceName = contract.GPUResource

	// GPU Feature Discovery labels.
	GPUProductLabel = contract.GPUProductLabel
	GPUCountLabel   = contract.GPUCountLabel
	GPUMemoryLabel  = contract.GPUMemoryLabel

	// Azure agent pool labels; the placement group (or the scale set's name
	// when it has none) is a topology level to the scheduler.
	AgentPoolLabel       = contract.AgentPoolLabel
	LegacyAgentPoolLabel = contract.LegacyAgentPoolLabel
	PlacementGroupLabel  = contract.PlacementGroupLabel

	InstanceTypeLabel     = contract.InstanceTypeLabel
	BetaInstanceTypeLabel = "beta.kubernetes.io/instance-type"
	ZoneLabel             = contract.ZoneLabel
	RegionLabel           = "topology.kubernetes.io/region"
	OSLabel               = "kubernetes.io/os"
	ArchLabel             = "kubernetes.io/arch"
	HostnameLabel         = contract.HostnameLabel
	AKSModeLabel          = "kubernetes.azure.com/mode"
	// Template nodes of spot pools carry the spot label and taint, so that
	// only pods that tolerate spot are simulated onto them, as on the real
	// nodes.
	SpotLabel = contract.SpotLabel
	SpotValue = contract.SpotValue
)

// Scale set tags, following the upstream Azure provider's conventions.
const (
	// TagNodeTemplateLabelPrefix + key = value adds a label to template nodes.
	TagNodeTemplateLabelPrefix = "k8s.io_cluster-autoscaler_node-template_label_"
	// TagNodeTemplateTaintPrefix + key = "value:Effect" adds a taint.
	TagNodeTemplateTaintPrefix = "k8s.io_cluster-autoscaler_node-template_taint_"
	// DefaultMinTag and DefaultMaxTag hold a discovered pool's size bounds.
	DefaultMinTag = "min"
	DefaultMaxTag = "max"
)

// Resource SKU capability names.
const (
	capVCPUs    = "vCPUs"
	capMemoryGB = "MemoryGB"
	capGPUs     = "GPUs"
	capArch     = "CpuArchitectureType"
)

// Defaults of the cloud-config (see config.go).
const (
	DefaultMaxPods                  = 110
	DefaultRequestTimeout           = 60 * time.Second
	DefaultTryTimeout               = 20 * time.Second
	DefaultMaxRetries               = 3
	DefaultRetryDelay               = 2 * time.Second
	DefaultMaxRetryDelay            = 30 * time.Second
	DefaultThrottleBackoff          = 30 * time.Second
	DefaultMaxRetryAfter            = 5 * time.Minute
	DefaultWriteRetryBudget         = 20 * time.Second
	DefaultPollInterval             = 15 * time.Second
	DefaultCacheTTL                 = 60 * time.Second
	DefaultDiscoveryInterval        = 60 * time.Second
	DefaultSKUCacheTTL              = 12 * time.Hour
	DefaultFailedInstanceRetention  = 15 * time.Minute
	DefaultGPUScaleDownUnneededTime = 30 * time.Minute
	DefaultGPUMaxNodeProvisionTime  = 30 * time.Minute
	DefaultMaxNodeProvisionTime     = 15 * time.Minute
)

// Pool types.
const (
	PoolTypeVMSS = "vmss"
	PoolTypeAKS  = "aks"
)

// Error codes Azure uses when a scale-up cannot be served for lack of
// capacity or quota; instances failing with these are reported with
// cloudprovider.OutOfResourcesErrorClass.
var outOfResourcesCodes = map[string]bool{
	// Spot: the price is above the pool's max (no spot capacity at the
	// pool's price), classed like missing capacity.
	"spotpricegreaterthanprovidedmaxprice":  true,
	"allocationfailed":                      true,
	"zonalallocationfailed":                 true,
	"overconstrainedallocationrequest":      true,
	"overconstrainedzonalallocationrequest": true,
	"skunotavailable":                       true,
	"quotaexceeded":                         true,
	"allocationtimedout":                    true,
}
