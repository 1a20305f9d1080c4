// Package agentpool is Muster's cluster-autoscaler cloud provider for Azure
// agent pools: VM scale sets (acs-engine, aks-engine, Cluster API style) and
// AKS managed cluster agent pools, driven through the real Azure SDK clients
// (armcompute, armcontainerservice) with azidentity credentials.
//
// Pools are listed explicitly (--nodes=min:max:name, or pools in the
// cloud-config) or discovered by tags (autoDiscovery.tags, or
// --node-group-auto-discovery=label:k=v,...), with min and max from the
// min/max tags.
//
// CloudProvider methods:
//
//	Name                      implemented ("muster-azure")
//	NodeGroups                implemented (pools with max > 0)
//	NodeGroupForNode          implemented (provider ID -> scale set, or AKS machine)
//	HasInstance               implemented; ErrNotImplemented for nodes of no managed pool
//	Pricing                   implemented (per-SKU hourly table, unit prices for pods)
//	GetAvailableMachineTypes  implemented (Resource SKUs of the location)
//	NewNodeGroup              ErrNotImplemented: no node auto-provisioning; pools belong to the cluster's owner
//	GetResourceLimiter        implemented (limits from the upstream flags)
//	GPULabel                  implemented (nvidia.com/gpu.product)
//	GetAvailableGPUTypes      implemented (GPU products of the pools' sizes)
//	GetNodeGpuConfig          implemented (upstream helper over GPULabel)
//	Cleanup                   implemented (stops operation watchers)
//	Refresh                   implemented (rediscovery, cache refresh)
//
// NodeGroup methods:
//
//	MaxSize, MinSize, Id, Debug  implemented
//	TargetSize                   implemented (capacity / count, cached)
//	IncreaseSize                 implemented; all-or-nothing for GPU pools
//	AtomicIncreaseSize           implemented: all-or-nothing
//	DeleteNodes                  implemented: the named instances only, never below min
//	ForceDeleteNodes             implemented: the named instances only, min not checked
//	DecreaseTargetSize           implemented: never deletes an existing instance
//	Nodes                        implemented, with failed instances' error class
//	WithdrawCreating             Muster's: deletes instances still being created
//	                             that no pending pod needs (package upcoming)
//	TemplateNodeInfo             implemented from Resource SKUs data (scale from zero)
//	Exist                        implemented (true: pools are never theoretical)
//	Create, Delete               ErrNotImplemented: no node auto-provisioning
//	Autoprovisioned              implemented (false)
//	GetOptions                   implemented (GPU pool defaults, per-pool overrides)
//
// Scale-up: the pool is read fresh, max is checked, then the family and
// regional vCPU quota (Usage API; an OutOfResourcesError naming the quota
// fails the scale-up before any write), then one capacity change is issued.
// IncreaseSize returns once Azure has accepted the new target; a watcher
// follows the operation to its end. When it fails (or outlives the pool's
// provisioning timeout) and the scale-up was atomic, every instance it added
// is deleted by name, except those whose node already runs pods
// (Options.NodeInUse); without atomicity only the failed ones are. Either way
// the failed instances stay in Nodes() as InstanceCreating with an
// InstanceErrorInfo (OutOfResourcesErrorClass for allocation and quota
// failures, OtherErrorClass otherwise) until the core deletes them or the
// retention passes, so that the core backs off the pool at once.
//
// Faults: 408 and 5xx are retried by the SDK with bounded retries, and every
// call is bounded by requestTimeout. A 429 is not retried in the SDK: a
// shared gate records its Retry-After and fails every call fast until then;
// reads meanwhile serve the cache, writes return a ThrottledError.
package agentpool
