// The node labels and gang annotations the topology reads, and the Level type.

package topology

import "github.com/muster-project/muster/pkg/contract"

// Names of the node labels Muster reads and of the annotations a gang uses to
// ask for a GPU class and a topology. Those the autoscaler reads or writes
// too are defined once, in pkg/contract.
const (
	// GPUResource is the extended resource NVIDIA's device plugin publishes.
	GPUResource = contract.GPUResource

	// GPU Feature Discovery labels.
	ProductLabel = contract.GPUProductLabel
	MemoryLabel  = contract.GPUMemoryLabel
	CountLabel   = contract.GPUCountLabel
	CliqueLabel  = contract.GPUCliqueLabel

	// NVIDIA Topograph network tiers, narrowest first.
	AcceleratorLabel = "network.topology.nvidia.com/accelerator"
	LeafLabel        = "network.topology.nvidia.com/leaf"
	SpineLabel       = "network.topology.nvidia.com/spine"
	CoreLabel        = "network.topology.nvidia.com/core"

	// Azure agent pools (contract.PlacementGroupLabel says why Muster's
	// autoscaler sets that one).
	AgentPoolLabel       = contract.AgentPoolLabel
	LegacyAgentPoolLabel = contract.LegacyAgentPoolLabel
	PlacementGroupLabel  = contract.PlacementGroupLabel
	InstanceTypeLabel    = contract.InstanceTypeLabel

	ZoneLabel     = contract.ZoneLabel
	HostnameLabel = contract.HostnameLabel
)

// Annotations on a PodGroup or, CRD-free, on every member pod.
const (
	// GPUProductAnnotation and GPUMemoryAnnotation state the GPU class
	// (contract.ParseGPUClass).
	GPUProductAnnotation = contract.GPUProductAnnotation
	GPUMemoryAnnotation  = contract.GPUMemoryAnnotation
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
