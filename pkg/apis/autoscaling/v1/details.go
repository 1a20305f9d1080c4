// The provisioningClassDetails keys Muster's autoscaler writes, and AddedProviderIDs reading them.

package v1

import (
	"strings"

	"github.com/muster-project/muster/pkg/contract"
)

// Keys of status.provisioningClassDetails that Muster's autoscaler writes
// when it adds nodes for a request (see pkg/contract).
const (
	DetailNodeGroup        = contract.DetailNodeGroup
	DetailNodesAdded       = contract.DetailNodesAdded
	DetailProviderIDPrefix = contract.DetailProviderIDPrefix
	DetailInstances        = contract.DetailInstances
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
