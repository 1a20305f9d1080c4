// The record of instances each request's scale-up added, from pool listings before and after.

package provreq

import (
	"fmt"
	"sort"
	"strings"

	apiv1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/autoscaler/cluster-autoscaler/cloudprovider"
	"k8s.io/klog/v2"

	v1 "github.com/muster-project/muster/autoscaler/provreq/apis/v1"
)

// scaleUp is a scale-up made for a request: the instances its pool had
// before it, so that the ones it added can be told from them.
type scaleUp struct {
	pool   string
	before map[string]bool
}

// poolInstances lists a node group's live instances (lower-cased provider
// IDs); instances the provider reports failed are left out.
func poolInstances(ng cloudprovider.NodeGroup) (map[string]bool, error) {
	insts, err := ng.Nodes()
	if err != nil {
		return nil, fmt.Errorf("listing the instances of node group %s: %w", ng.Id(), err)
	}
	out := make(map[string]bool, len(insts))
	for _, in := range insts {
		if in.Status != nil && in.Status.ErrorInfo != nil {
			continue
		}
		out[strings.ToLower(in.Id)] = true
	}
	return out, nil
}

// instancesBefore lists every node group's instances before a scale-up.
func instancesBefore(groups []cloudprovider.NodeGroup) map[string]map[string]bool {
	out := make(map[string]map[string]bool, len(groups))
	for _, ng := range groups {
		insts, err := poolInstances(ng)
		if err != nil {
			klog.ErrorS(err, "Could not list a node group's instances before a scale-up; its new instances will be told from registered nodes")
			continue
		}
		out[ng.Id()] = insts
	}
	return out
}

// startRecord records on pr that pool is adding added instances for it,
// none known yet, and remembers what the pool had before.
func (c *Client) startRecord(pr *v1.ProvisioningRequest, pool string, added int, before map[string]bool) {
	v1.SetAddedInstances(pr, pool, added, nil)
	c.mu.Lock()
	defer c.mu.Unlock()
	if before == nil {
		delete(c.scaleUps, pr.UID)
		return
	}
	c.scaleUps[pr.UID] = scaleUp{pool: pool, before: before}
}

// recordInstances adds to pr's record the instances its scale-up added
// that the pool lists now, and says whether the record changed. An
// instance added is one the pool did not have before the scale-up, that no
// other request records. After a restart, with the earlier list lost, it
// is one whose Node has not registered yet. Of several candidates (two
// scale-ups of one pool in flight), the request takes the lowest IDs.
func (c *Client) recordInstances(pr *v1.ProvisioningRequest, groups []cloudprovider.NodeGroup, registered map[string]bool) (bool, error) {
	pool, added, ids, ok := v1.AddedInstances(pr)
	if !ok || len(ids) >= added {
		c.forget(pr.UID)
		return false, nil
	}
	var group cloudprovider.NodeGroup
	for _, ng := range groups {
		if ng.Id() == pool {
			group = ng
		}
	}
	if group == nil {
		return false, fmt.Errorf("ProvisioningRequest %s/%s: status.provisioningClassDetails[%s] names node group %q, which the cloud provider does not have", pr.Namespace, pr.Name, v1.DetailNodeGroup, pool)
	}
	now, err := poolInstances(group)
	if err != nil {
		return false, err
	}
	taken := c.recordedByOthers(pr.UID)
	for _, id := range ids {
		taken[id] = true
	}
	c.mu.Lock()
	su, known := c.scaleUps[pr.UID]
	c.mu.Unlock()
	var fresh []string
	for id := range now {
		switch {
		case taken[id]:
		case known && su.pool == pool && su.before[id]:
		case (!known || su.pool != pool) && registered[id]:
		default:
			fresh = append(fresh, id)
		}
	}
	if len(fresh) == 0 {
		return false, nil
	}
	sort.Strings(fresh)
	fresh = fresh[:min(len(fresh), added-len(ids))]
	ids = append(ids, fresh...)
	v1.SetAddedInstances(pr, pool, added, ids)
	if len(ids) >= added {
		c.forget(pr.UID)
	}
	return true, nil
}

// recordedByOthers is the set of instances every request but uid records.
func (c *Client) recordedByOthers(uid types.UID) map[string]bool {
	out := map[string]bool{}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, pr := range c.requests {
		if pr.UID == uid {
			continue
		}
		if _, _, ids, ok := v1.AddedInstances(pr); ok {
			for _, id := range ids {
				out[id] = true
			}
		}
	}
	return out
}

func (c *Client) forget(uid types.UID) {
	c.mu.Lock()
	delete(c.scaleUps, uid)
	c.mu.Unlock()
}

// registeredProviderIDs is the set of the nodes' provider IDs, lower-cased.
func registeredProviderIDs(nodes []*apiv1.Node) map[string]bool {
	out := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		if n.Spec.ProviderID != "" {
			out[strings.ToLower(n.Spec.ProviderID)] = true
		}
	}
	return out
}
