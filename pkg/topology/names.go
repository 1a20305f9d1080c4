// The node labels and gang annotations the topology reads, and the Level type.

package topology

// Names of the node labels Muster reads and of the annotations a gang uses to
// ask for a GPU class and a topology. The autoscaler's Azure provider writes
// the same node labels on the nodes it adds (autoscaler/…/constants), so a
// node that does not exist yet is judged exactly like one that does.
const (
	// GPUResource is the extended resource NVIDIA's device plugin publishes.
	GPUResource = "nvidia.com/gpu"

	// GPU Feature Discovery labels.
	ProductLabel = "nvidia.com/gpu.product" // e.g. NVIDIA-H100-80GB-HBM3
	MemoryLabel  = "nvidia.com/gpu.memory"  // MiB per GPU, e.g. 81559
	CountLabel   = "nvidia.com/gpu.count"   // GPUs on the node
	CliqueLabel  = "nvidia.com/gpu.clique"  // multi-node NVLink partition

	// NVIDIA Topograph network tiers, narrowest first.
	AcceleratorLabel = "network.topology.nvidia.com/accelerator"
	LeafLabel        = "network.topology.nvidia.com/leaf"
	SpineLabel       = "network.topology.nvidia.com/spine"
	CoreLabel        = "network.topology.nvidia.com/core"

	// Azure agent pools. PlacementGroupLabel is the pool's proximity placement
	// group (or scale set when it has none); Azure publishes no label for it,
	// so Muster's autoscaler provider sets it on the nodes it adds.
	AgentPoolLabel       = "kubernetes.azure.com/agentpool"
	LegacyAgentPoolLabel = "agentpool"
	PlacementGroupLabel  = "muster.dev/placement-group"
	InstanceTypeLabel    = "node.kubernetes.io/instance-type"

	ZoneLabel     = "topology.kubernetes.io/zone"
	HostnameLabel = "kubernetes.io/hostname"
)

// Annotations on a PodGroup or, CRD-free, on every member pod.
const (
	// GPUProductAnnotation lists the GPU products a member accepts: product
	// names or shell patterns (path.Match), comma separated, e.g.
	// "NVIDIA-H100*,NVIDIA-H200*".
	GPUProductAnnotation = "muster.dev/gpu-product"
	// GPUMemoryAnnotation is the least memory per GPU, a quantity ("80Gi").
	GPUMemoryAnnotation = "muster.dev/gpu-memory-min"
	// RequiredLevelAnnotation names the topology level (e.g. "rack") one of
	// whose domains must hold all min members, or the gang does not fit.
	RequiredLevelAnnotation = "muster.dev/topology-required"
	// PreferredLevelAnnotation names the narrowest level to try first (e.g.
	// "clique"); placement widens level by level up to the required one.
	PreferredLevelAnnotation = "muster.dev/topology-preferred"
)

// Level is one tier of the topology: nodes sharing a value of Label form one
// domain. A node without the label belongs to no domain of that level.
type Level struct {
	Name  string `json:"name"`
	Label string `json:"label"`
}
