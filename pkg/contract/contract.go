// Package contract is what muster-scheduler and Muster's cluster-autoscaler
// both read and write: node labels, gang annotations, the GPU class they
// state, and the ProvisioningRequest detail keys of a scale-up. It is
// defined here once; the autoscaler module holds a generated copy
// (autoscaler/contract, made by hack/gen-contract.sh), and a test fails
// when the copy differs. It imports only the standard library and
// apimachinery's resource quantities, which both modules have.
package contract

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// GPUResource is the extended resource NVIDIA's device plugin publishes.
const GPUResource = "nvidia.com/gpu"

// Node labels. The scheduler reads them on nodes; the autoscaler's Azure
// provider writes them on the template nodes of the pools it may grow, so a
// node that does not exist yet is judged exactly like one that does.
const (
	// GPU Feature Discovery.
	GPUProductLabel = "nvidia.com/gpu.product" // e.g. NVIDIA-H100-80GB-HBM3
	GPUMemoryLabel  = "nvidia.com/gpu.memory"  // MiB per GPU, e.g. 81559
	GPUCountLabel   = "nvidia.com/gpu.count"   // GPUs on the node
	GPUCliqueLabel  = "nvidia.com/gpu.clique"  // multi-node NVLink partition

	// Azure agent pools. PlacementGroupLabel is the pool's proximity
	// placement group (or scale set when it has none); Azure publishes no
	// label for it, so Muster's autoscaler provider sets it on the nodes it
	// adds, and the scheduler treats it as a topology level.
	AgentPoolLabel       = "kubernetes.azure.com/agentpool"
	LegacyAgentPoolLabel = "agentpool"
	PlacementGroupLabel  = "muster.dev/placement-group"
	InstanceTypeLabel    = "node.kubernetes.io/instance-type"
	// SpotLabel is the label, and the key of the NoSchedule taint, AKS puts
	// on the nodes of spot pools (value SpotValue).
	SpotLabel = "kubernetes.azure.com/scalesetpriority"
	SpotValue = "spot"

	ZoneLabel     = "topology.kubernetes.io/zone"
	HostnameLabel = "kubernetes.io/hostname"
)

// Annotations stating a gang's GPU class, on a PodGroup or, CRD-free, on
// every member pod; the scheduler copies them onto the PodTemplate of the
// gang's ProvisioningRequest, where the autoscaler reads them.
const (
	// GPUProductAnnotation lists the GPU products a member accepts: product
	// names or shell patterns (path.Match), comma separated, e.g.
	// "NVIDIA-H100*,NVIDIA-H200*".
	GPUProductAnnotation = "muster.dev/gpu-product"
	// GPUMemoryAnnotation is the least memory per GPU, a quantity ("80Gi").
	GPUMemoryAnnotation = "muster.dev/gpu-memory-min"
)

// Keys of a ProvisioningRequest's status.provisioningClassDetails that
// Muster's autoscaler writes when it adds nodes for the request: the node
// group, how many instances it added, and those instances as provider IDs,
// each DetailProviderIDPrefix followed by one comma-separated suffix of
// DetailInstances (the prefix keeps a thousand Azure instances within one
// detail's 32768 characters). The scheduler keeps exactly the Nodes with
// those spec.providerIDs for the request's gang. A stock cluster-autoscaler
// writes none of them.
const (
	DetailNodeGroup        = "muster.dev/node-group"
	DetailNodesAdded       = "muster.dev/nodes-added"
	DetailProviderIDPrefix = "muster.dev/provider-id-prefix"
	DetailInstances        = "muster.dev/instances"
)

// Keys of status.provisioningClassDetails on a request Muster's autoscaler
// failed because no pool could ever hold its gang (Failed, reason
// NoNodeGroupCanHold). DetailPoolsAtFailure is a fingerprint of what that
// verdict read: the node groups, their max sizes and their template nodes.
// DetailPoolsChanged is "true" once a later loop found them different (an
// operator raised a pool's max, added a pool, changed a size): the
// scheduler then retries the gang at once, and otherwise waits long, since
// nothing else can make the gang fit. A request failed without the
// fingerprint (a stock or older autoscaler) is retried at the scheduler's
// backoff ceiling.
const (
	DetailPoolsAtFailure = "muster.dev/pools-at-failure"
	DetailPoolsChanged   = "muster.dev/pools-changed"
)

// InRoomSuffix ends the request name that a gang's unplaced GPU members
// consume (the ProvisioningRequest consume annotation) once the scheduler
// finds room that exists for a gang that was short: no request has such a
// name. Every autoscaler that honours the annotation therefore buys no node
// for those members one by one; if the room is taken before they bind, the
// gang's next verdict asks again, through a request, for all it lacks at
// once. Muster's autoscaler also counts them into the room they fit, so it
// does not scale that room down under them.
const InRoomSuffix = "-in-room"

// ConsumesRoom reports whether a consumed request name is a gang's in-room
// name (InRoomSuffix).
func ConsumesRoom(consumed string) bool { return strings.HasSuffix(consumed, InRoomSuffix) }

// GPUClass is the GPU a member accepts. The zero GPUClass accepts any GPU.
type GPUClass struct {
	// Products are product names or path.Match patterns; empty accepts any.
	Products []string
	// MinMemoryMiB is the least memory per GPU; 0 accepts any.
	MinMemoryMiB int64
}

// Matches reports whether a node's GPU product and memory (MiB, 0 when the
// node does not publish it) satisfy the class. A node without a product
// label matches only a class that names no product.
func (c GPUClass) Matches(product string, memoryMiB int64) bool {
	if c.MinMemoryMiB > 0 && memoryMiB < c.MinMemoryMiB {
		return false
	}
	if len(c.Products) == 0 {
		return true
	}
	for _, p := range c.Products {
		if ok, _ := path.Match(p, product); ok {
			return true
		}
	}
	return false
}

// MatchesLabels is Matches on a node's labels.
func (c GPUClass) MatchesLabels(labels map[string]string) bool {
	return c.Matches(labels[GPUProductLabel], ParseMemoryMiB(labels[GPUMemoryLabel]))
}

// IsZero reports whether the class accepts any GPU.
func (c GPUClass) IsZero() bool { return len(c.Products) == 0 && c.MinMemoryMiB == 0 }

// String describes the class in the words of a rejection reason.
func (c GPUClass) String() string {
	var parts []string
	if len(c.Products) > 0 {
		parts = append(parts, strings.Join(c.Products, "|"))
	}
	if c.MinMemoryMiB > 0 {
		parts = append(parts, fmt.Sprintf(">=%dMiB", c.MinMemoryMiB))
	}
	if len(parts) == 0 {
		return "any GPU"
	}
	return strings.Join(parts, " ")
}

// FieldError is bad input in one annotation: Field is its path
// ("metadata.annotations[...]"), Detail what is wrong with it. Callers
// name the object.
type FieldError struct {
	Field, Detail string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Detail }

// maxGPUMemory bounds a GPU memory floor: far above any GPU, and far below
// where bytes overflow an int64.
var maxGPUMemory = resource.MustParse("1Pi")

// ParseGPUClass reads the GPU class annotations.
func ParseGPUClass(annotations map[string]string) (GPUClass, *FieldError) {
	var c GPUClass
	field := func(a string) string { return "metadata.annotations[" + a + "]" }
	if v, ok := annotations[GPUProductAnnotation]; ok {
		for _, p := range strings.Split(v, ",") {
			p = strings.TrimSpace(p)
			if p == "" {
				continue
			}
			if _, err := path.Match(p, ""); err != nil {
				return GPUClass{}, &FieldError{Field: field(GPUProductAnnotation), Detail: fmt.Sprintf("%q is not a valid pattern: %v", p, err)}
			}
			c.Products = append(c.Products, p)
		}
		if len(c.Products) == 0 {
			return GPUClass{}, &FieldError{Field: field(GPUProductAnnotation), Detail: "must name at least one GPU product or pattern"}
		}
	}
	if v, ok := annotations[GPUMemoryAnnotation]; ok {
		q, err := resource.ParseQuantity(strings.TrimSpace(v))
		if err != nil || q.Sign() <= 0 {
			return GPUClass{}, &FieldError{Field: field(GPUMemoryAnnotation), Detail: fmt.Sprintf("must be a positive quantity such as 40Gi, got %q", v)}
		}
		if q.Cmp(maxGPUMemory) > 0 {
			return GPUClass{}, &FieldError{Field: field(GPUMemoryAnnotation), Detail: fmt.Sprintf("must be at most %s per GPU, got %q", maxGPUMemory.String(), v)}
		}
		c.MinMemoryMiB = (q.Value() + (1<<20 - 1)) >> 20
	}
	return c, nil
}

// ParseMemoryMiB reads the GPU Feature Discovery memory label (MiB); 0 when
// absent or malformed, which only a class without a memory floor accepts.
func ParseMemoryMiB(v string) int64 {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}
