// The nodeagent Cloud of an armlocal server's scale sets, and the agent-pool provider against it.

package nodeagent

import (
	"fmt"

	"github.com/muster-project/muster/autoscaler/armlocal"
	"github.com/muster-project/muster/autoscaler/cloudprovider/agentpool"
)

// ScaleSet names one scale set of an armlocal server.
type ScaleSet struct {
	ResourceGroup string
	Name          string
}

// ArmlocalScaleSets is the Cloud of an armlocal server's scale sets, read
// from its in-memory state (same process, no HTTP).
type ArmlocalScaleSets struct {
	Server    *armlocal.Server
	ScaleSets []ScaleSet
}

// Instances lists the live instances of every scale set: Running once
// Succeeded, Gone while Deleting.
func (c ArmlocalScaleSets) Instances() ([]Instance, error) {
	var out []Instance
	for _, ss := range c.ScaleSets {
		_, insts, ok := c.Server.ScaleSet(ss.ResourceGroup, ss.Name)
		if !ok {
			return nil, fmt.Errorf("scale set %s/%s does not exist", ss.ResourceGroup, ss.Name)
		}
		for _, i := range insts {
			out = append(out, Instance{
				ProviderID: i.ProviderID, ComputerName: i.ComputerName, Zone: i.Zone,
				Running: i.State == armlocal.StateSucceeded, Gone: i.State == armlocal.StateDeleting,
			})
		}
	}
	return out, nil
}

// ArmlocalProviderIDPrefix is the provider ID prefix of the instances of an
// armlocal server's subscription.
func ArmlocalProviderIDPrefix(s *armlocal.Server) string {
	return "azure:///subscriptions/" + s.SubscriptionID() + "/"
}

// NewArmlocalProvider builds the agent-pool provider for cfg against the
// in-process server s (its static token and its certificate), for the
// agent's templates.
func NewArmlocalProvider(s *armlocal.Server, cfg *agentpool.Config) (*agentpool.Provider, error) {
	return agentpool.New(cfg, agentpool.Options{Credential: s.Credential(), Transport: s.HTTPClient()}, nil)
}
