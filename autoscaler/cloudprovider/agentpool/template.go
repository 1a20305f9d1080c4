// Template nodes for scale from zero: SKU capacity, zone labels, node-template tags and taints.

package agentpool

import (
	"fmt"
	"math/rand"
	"sort"
	"strconv"
	"strings"

	apiv1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/autoscaler/cluster-autoscaler/cloudprovider"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/framework"
)

// templateSpec is everything a pool's template node is built from.
type templateSpec struct {
	Pool     string
	SKU      skuInfo
	Location string
	Zones    []string
	// PlacementGroup is the proximity placement group's name or, without
	// one, the scale set (agent pool) name.
	PlacementGroup string
	Labels         map[string]string
	Taints         []apiv1.Taint
	MaxPods        int
	KubeReserved   apiv1.ResourceList
	AKSMode        string // System or User for AKS pools
	Spot           bool   // a spot pool: SpotLabel and its NoSchedule taint
}

// buildTemplateNode returns the node a pool would add: capacity from the SKU
// data, the labels the scheduler reads, and the pool's taints.
func buildTemplateNode(t templateSpec) (*apiv1.Node, error) {
	name := fmt.Sprintf("%s-template-%d", t.Pool, rand.Int63())
	maxPods := t.MaxPods
	if maxPods <= 0 {
		maxPods = DefaultMaxPods
	}
	capacity := apiv1.ResourceList{
		apiv1.ResourceCPU:    *resource.NewQuantity(int64(t.SKU.VCPUs), resource.DecimalSI),
		apiv1.ResourceMemory: *resource.NewQuantity(int64(t.SKU.MemoryGB*1024*1024*1024), resource.BinarySI),
		apiv1.ResourcePods:   *resource.NewQuantity(int64(maxPods), resource.DecimalSI),
	}
	if t.SKU.GPUs > 0 {
		capacity[GPUResourceName] = *resource.NewQuantity(int64(t.SKU.GPUs), resource.DecimalSI)
	}
	allocatable := apiv1.ResourceList{}
	for k, v := range capacity {
		q := v.DeepCopy()
		if r, ok := t.KubeReserved[k]; ok {
			q.Sub(r)
			if q.Sign() < 0 {
				return nil, fmt.Errorf("pool %s: kubeReserved %s %s exceeds the capacity %s of %s", t.Pool, k, r.String(), v.String(), t.SKU.Name)
			}
		}
		allocatable[k] = q
	}

	labels := map[string]string{}
	for k, v := range t.Labels {
		labels[k] = v
	}
	region := strings.ToLower(t.Location)
	labels[OSLabel] = "linux"
	labels[ArchLabel] = t.SKU.Arch
	labels[InstanceTypeLabel] = t.SKU.Name
	labels[BetaInstanceTypeLabel] = t.SKU.Name
	labels[RegionLabel] = region
	labels[ZoneLabel] = zoneLabel(region, t.Zones)
	labels[AgentPoolLabel] = t.Pool
	labels[LegacyAgentPoolLabel] = t.Pool
	labels[HostnameLabel] = name
	labels[PlacementGroupLabel] = t.PlacementGroup
	if t.AKSMode != "" {
		labels[AKSModeLabel] = strings.ToLower(t.AKSMode)
	}
	taints := append([]apiv1.Taint(nil), t.Taints...)
	if t.Spot {
		labels[SpotLabel] = SpotValue
		taints = mergeTaints(taints, []apiv1.Taint{{Key: SpotLabel, Value: SpotValue, Effect: apiv1.TaintEffectNoSchedule}})
	}
	if t.SKU.GPUs > 0 {
		m := gpuModelFor(t.SKU.Name)
		labels[GPUProductLabel] = m.product
		labels[GPUCountLabel] = strconv.Itoa(t.SKU.GPUs)
		if m.memoryMiB > 0 {
			labels[GPUMemoryLabel] = strconv.Itoa(m.memoryMiB)
		}
	}

	node := &apiv1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec:       apiv1.NodeSpec{Taints: taints},
		Status: apiv1.NodeStatus{
			Capacity:    capacity,
			Allocatable: allocatable,
			Conditions:  cloudprovider.BuildReadyConditions(),
		},
	}
	return node, nil
}

// zoneLabel follows the upstream Azure provider: location-zone for each
// zone, joined with "__" when the pool spans several, "0" when not zonal.
func zoneLabel(region string, zones []string) string {
	if len(zones) == 0 {
		return "0"
	}
	zs := append([]string(nil), zones...)
	sort.Strings(zs)
	for i, z := range zs {
		zs[i] = region + "-" + z
	}
	return strings.Join(zs, "__")
}

// templateNodeInfo wraps a template node with the kube-proxy pod every node
// starts with.
func templateNodeInfo(node *apiv1.Node) *framework.NodeInfo {
	return framework.NewNodeInfo(node, nil, framework.NewPodInfo(cloudprovider.BuildKubeProxy(node.Labels[AgentPoolLabel]), nil))
}

// tagLabelsAndTaints reads the upstream node-template tags of a scale set.
func tagLabelsAndTaints(tags map[string]string) (map[string]string, []apiv1.Taint, error) {
	labels := map[string]string{}
	var taints []apiv1.Taint
	for k, v := range tags {
		if key, ok := strings.CutPrefix(k, TagNodeTemplateLabelPrefix); ok {
			labels[tagKey(key)] = v
		}
		if key, ok := strings.CutPrefix(k, TagNodeTemplateTaintPrefix); ok {
			t, err := parseTaint(tagKey(key) + "=" + v)
			if err != nil {
				return nil, nil, fmt.Errorf("tag %s: %w", k, err)
			}
			taints = append(taints, t)
		}
	}
	sort.Slice(taints, func(i, j int) bool { return taints[i].Key < taints[j].Key })
	return labels, taints, nil
}

// tagKey undoes the tag-name encoding: Azure tag names cannot hold "/", so
// the upstream convention writes it as "_".
func tagKey(k string) string { return strings.ReplaceAll(k, "_", "/") }

func parseQuantity(s string) (resource.Quantity, error) { return resource.ParseQuantity(s) }

// mergeTaints adds extra to base, later keys replacing earlier ones.
func mergeTaints(base, extra []apiv1.Taint) []apiv1.Taint {
	out := append([]apiv1.Taint(nil), base...)
	for _, e := range extra {
		replaced := false
		for i := range out {
			if out[i].Key == e.Key && out[i].Effect == e.Effect {
				out[i], replaced = e, true
			}
		}
		if !replaced {
			out = append(out, e)
		}
	}
	return out
}
