// Package armlocal is a local Azure Resource Manager endpoint for tests and
// for the simulator: an HTTPS server holding scale sets, AKS agent pools,
// their instances (with a provisioning delay), vCPU quotas, the Resource SKUs
// catalogue and hourly prices in memory, reached by the real Azure SDK
// clients through a custom Resource Manager endpoint (a cloud.Configuration
// whose ResourceManager endpoint is Server.URL()). It also serves the
// Microsoft Entra token endpoints a client-secret credential uses, so that
// azidentity runs its production path against it.
//
// Design:
//
//   - Reads (scale set get/list, scale set VMs, Resource SKUs, usages, agent
//     pool get/list, machines) are answered by the SDK's own fake server
//     types (armcompute/fake, armcontainerservice/fake) implemented over the
//     in-memory state: the server routes each request to the operation the
//     SDK client would have named, so the fakes parse the request and encode
//     the response exactly as the SDK's serde expects.
//   - Long-running writes (scale set capacity PATCH, deleteInstances, agent
//     pool PUT, deleteMachines) are plain handlers speaking ARM's
//     asynchronous-operation protocol (201/202 with an Azure-AsyncOperation
//     URL, then InProgress/Succeeded/Failed). The fakes' pollers only work
//     in-process (they never leave the client's transport), whereas real
//     pollers over HTTP must see the real protocol; this is also what makes
//     a provisioning delay and a partial provisioning observable the way
//     they are on Azure.
//   - Faults are switches on the server (InjectThrottle, InjectServerError,
//     InjectDelay, InjectPartialProvisioning, SetQuota): they apply before an
//     operation reaches the state, and every request is counted per
//     operation so tests can assert that a client did not hammer the API.
package armlocal
