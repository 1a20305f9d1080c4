// The provisioningClassDetails keys Muster's autoscaler writes, and AddedProviderIDs reading them.

package v1

import "strings"

// Keys of status.provisioningClassDetails that Muster's autoscaler writes
// when it adds nodes for a request (the autoscaler module's
// provreq/apis/v1 writes them): the node group, how many instances it
// added, and those instances as provider IDs, each DetailProviderIDPrefix
// followed by one comma-separated suffix of DetailInstances. The scheduler
// keeps exactly the Nodes with those spec.providerIDs for the request's
// gang. A stock cluster-autoscaler writes none of them.
const (
	DetailNodeGroup        = "muster.dev/node-group"
	DetailNodesAdded       = "muster.dev/nodes-added"
	DetailProviderIDPrefix = "muster.dev/provider-id-prefix"
	DetailInstances        = "muster.dev/instances"
)

// AddedProviderIDs returns the provider IDs (lower-cased) of the instances
// the autoscaler recorded adding for the request; none when it recorded
// none.
func AddedProviderIDs(status ProvisioningRequestStatus) []string {
	d := status.ProvisioningClassDetails
	s := string(d[DetailInstances])
	if s == "" {
		return nil
	}
	prefix := strings.ToLower(string(d[DetailProviderIDPrefix]))
	parts := strings.Split(s, ",")
	out := make([]string, 0, len(parts))
	for _, suffix := range parts {
		if suffix != "" {
			out = append(out, prefix+strings.ToLower(suffix))
		}
	}
	return out
}
