// Constants: provider name, node labels, scale set tags, SKU capabilities, defaults, error codes.

package agentpool

import "time"

// ProviderName is the value of --cloud-provider this build answers to.
const ProviderName = "muster-azure"

// Node labels and the GPU resource the provider writes on template nodes.
// They MUST match the scheduler side (pkg/topology/names.go in the root
// module): Muster's GPU-topology plugin reads exactly these names, so a node
// that does not exist yet is judged exactly like one that does.
const (
	// GPUResourceName is the extended resource NVIDIA's device plugin publishes.
	GPUResourceName = "nvidia.com/gpu"

	// GPU Feature Discovery labels.
	GPUProductLabel = "nvidia.com/gpu.product" // e.g. NVIDIA-H100-80GB-HBM3
	GPUCountLabel   = "nvidia.com/gpu.count"   // GPUs on the node, integer string
	GPUMemoryLabel  = "nvidia.com/gpu.memory"  // MiB per GPU, integer string, when known

	// Azure agent pool labels.
	AgentPoolLabel       = "kubernetes.azure.com/agentpool"
	LegacyAgentPoolLabel = "agentpool"
	// PlacementGroupLabel is the pool's proximity placement group, or the
	// scale set (agent pool) name when it has none: nodes a pool adds
	// together share it, and the scheduler treats it as a topology level.
	PlacementGroupLabel = "muster.dev/placement-group"

	InstanceTypeLabel     = "node.kubernetes.io/instance-type"
	BetaInstanceTypeLabel = "beta.kubernetes.io/instance-type"
	ZoneLabel             = "topology.kubernetes.io/zone"
	RegionLabel           = "topology.kubernetes.io/region"
	OSLabel               = "kubernetes.io/os"
	ArchLabel             = "kubernetes.io/arch"
	HostnameLabel         = "kubernetes.io/hostname"
	AKSModeLabel          = "kubernetes.azure.com/mode"
	// SpotLabel is the label, and the key of the NoSchedule taint, AKS puts
	// on the nodes of spot pools (value SpotValue); template nodes of spot
	// pools carry both, so that only pods that tolerate spot are simulated
	// onto them, as on the real nodes.
	SpotLabel = "kubernetes.azure.com/scalesetpriority"
	SpotValue = "spot"
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
