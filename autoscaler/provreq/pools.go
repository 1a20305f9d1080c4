// Never-fits failures and the pools they read: a fingerprint of the pools, and the loop's recheck that flags a failure once they changed.

package provreq

import (
	"fmt"
	"hash/fnv"
	"io"
	"sort"
	"strings"

	apiv1 "k8s.io/api/core/v1"
	"k8s.io/autoscaler/cluster-autoscaler/cloudprovider"
	ca_context "k8s.io/autoscaler/cluster-autoscaler/context"
	"k8s.io/klog/v2"

	"github.com/muster-project/muster/autoscaler/contract"
	v1 "github.com/muster-project/muster/autoscaler/provreq/apis/v1"
)

// poolsFingerprint digests what a never-fits verdict (neverFits,
// gangNeverFits) reads of the pools: each node group's id, its max size
// and its template node from the cloud provider (allocatable, labels but
// the hostname, which names the template, and taints). Only a change to
// one of these can make a gang fit that none could hold: an operator
// raising a max, adding a pool, changing a size. A group whose template
// the provider cannot build counts by id and max alone. ok is false when
// there is no cloud provider.
func poolsFingerprint(cp cloudprovider.CloudProvider) (string, bool) {
	if cp == nil {
		return "", false
	}
	groups := cp.NodeGroups()
	sort.Slice(groups, func(i, j int) bool { return groups[i].Id() < groups[j].Id() })
	h := fnv.New64a()
	for _, ng := range groups {
		fmt.Fprintf(h, "group %s max %d\n", ng.Id(), ng.MaxSize())
		ni, err := ng.TemplateNodeInfo()
		if err != nil || ni == nil || ni.Node() == nil {
			continue
		}
		writeTemplate(h, ni.Node())
	}
	return fmt.Sprintf("%016x", h.Sum64()), true
}

// writeTemplate writes the parts of a template node a verdict reads, in a
// fixed order.
func writeTemplate(w io.Writer, n *apiv1.Node) {
	names := make([]string, 0, len(n.Status.Allocatable))
	for r := range n.Status.Allocatable {
		names = append(names, string(r))
	}
	sort.Strings(names)
	for _, r := range names {
		q := n.Status.Allocatable[apiv1.ResourceName(r)]
		fmt.Fprintf(w, "allocatable %s=%s\n", r, q.String())
	}
	keys := make([]string, 0, len(n.Labels))
	for k := range n.Labels {
		if k != contract.HostnameLabel {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "label %s=%s\n", k, n.Labels[k])
	}
	taints := make([]string, 0, len(n.Spec.Taints))
	for _, t := range n.Spec.Taints {
		taints = append(taints, t.Key+"="+t.Value+":"+string(t.Effect))
	}
	sort.Strings(taints)
	fmt.Fprintf(w, "taints %s\n", strings.Join(taints, ","))
}

// NeverFitsRecheck is a PodListProcessor that flags, each loop, the
// requests failed because no pool could ever hold them whose pools have
// changed since (v1.DetailPoolsChanged): Muster's scheduler retries those
// gangs at once and, while nothing flags them, seldom. It fingerprints the
// pools only in a loop that has such a request to check; the pending pods
// pass through unchanged.
type NeverFitsRecheck struct {
	client *Client
}

// NewNeverFitsRecheck returns a NeverFitsRecheck reading c's requests.
func NewNeverFitsRecheck(c *Client) *NeverFitsRecheck { return &NeverFitsRecheck{client: c} }

// Process implements pods.PodListProcessor.
func (r *NeverFitsRecheck) Process(ctx *ca_context.AutoscalingContext, pending []*apiv1.Pod) ([]*apiv1.Pod, error) {
	current, known := "", false
	for _, pr := range r.client.Requests() {
		if !isTrue(pr, v1.Failed) || findCondition(pr, v1.Failed).Reason != ReasonNoNodeGroupCanHold {
			continue
		}
		fp, changed, ok := v1.PoolsAtFailure(pr)
		if !ok || changed {
			continue
		}
		if !known {
			if current, known = poolsFingerprint(ctx.CloudProvider); !known {
				return pending, nil
			}
		}
		if fp == current {
			continue
		}
		v1.SetPoolsChanged(pr)
		if err := r.client.UpdateStatus(pr); err != nil {
			klog.ErrorS(err, "Could not flag a never-fits ProvisioningRequest whose pools changed; will retry", "provisioningRequest", klog.KObj(pr))
			continue
		}
		klog.V(1).InfoS("The pools a ProvisioningRequest failed as never fitting have changed; its gang may be retried", "provisioningRequest", klog.KObj(pr))
	}
	return pending, nil
}

// CleanUp implements pods.PodListProcessor.
func (r *NeverFitsRecheck) CleanUp() {}
