// The GPU class a request's pods accept, read from annotations and turned into node requirements.

package provreq

import (
	"fmt"
	"path"
	"sort"
	"strconv"

	apiv1 "k8s.io/api/core/v1"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/framework"

	"github.com/muster-project/muster/autoscaler/contract"
)

// parseGPUClass reads the class annotations (contract.ParseGPUClass) of a
// pod built from a request's PodTemplate, where muster-scheduler puts them
// when node affinity cannot state the class (product patterns, least
// memory).
func parseGPUClass(p *apiv1.Pod) (contract.GPUClass, error) {
	c, err := contract.ParseGPUClass(p.Annotations)
	if err != nil {
		return contract.GPUClass{}, fmt.Errorf("pod %s/%s: %w", p.Namespace, p.Name, err)
	}
	return c, nil
}

// requirements turns the class into node requirements the scheduling
// simulation understands: product patterns become the known product names
// they match (the patterns themselves when none does, which only an exact
// name satisfies), the least memory a Gt on the memory label (a node that
// does not publish its memory does not match, as in the scheduler).
func requirements(c contract.GPUClass, known []string) []apiv1.NodeSelectorRequirement {
	var reqs []apiv1.NodeSelectorRequirement
	if len(c.Products) > 0 {
		var values []string
		for _, k := range known {
			for _, pat := range c.Products {
				if ok, _ := path.Match(pat, k); ok {
					values = append(values, k)
					break
				}
			}
		}
		if len(values) == 0 {
			values = append(values, c.Products...)
		}
		reqs = append(reqs, apiv1.NodeSelectorRequirement{Key: contract.GPUProductLabel, Operator: apiv1.NodeSelectorOpIn, Values: values})
	}
	if c.MinMemoryMiB > 0 {
		reqs = append(reqs, apiv1.NodeSelectorRequirement{Key: contract.GPUMemoryLabel, Operator: apiv1.NodeSelectorOpGt, Values: []string{strconv.FormatInt(c.MinMemoryMiB-1, 10)}})
	}
	return reqs
}

// applyGPUClass adds each pod's GPU class, as node requirements, to its
// required node affinity (every term). known are the GPU products of the
// nodes and node templates the simulation may use.
func applyGPUClass(pods []*apiv1.Pod, known []string) error {
	for _, p := range pods {
		c, err := parseGPUClass(p)
		if err != nil {
			return err
		}
		reqs := requirements(c, known)
		if len(reqs) == 0 {
			continue
		}
		if p.Spec.Affinity == nil {
			p.Spec.Affinity = &apiv1.Affinity{}
		}
		if p.Spec.Affinity.NodeAffinity == nil {
			p.Spec.Affinity.NodeAffinity = &apiv1.NodeAffinity{}
		}
		na := p.Spec.Affinity.NodeAffinity
		if na.RequiredDuringSchedulingIgnoredDuringExecution == nil || len(na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms) == 0 {
			na.RequiredDuringSchedulingIgnoredDuringExecution = &apiv1.NodeSelector{NodeSelectorTerms: []apiv1.NodeSelectorTerm{{}}}
		}
		terms := na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
		for i := range terms {
			terms[i].MatchExpressions = append(terms[i].MatchExpressions, reqs...)
		}
	}
	return nil
}

// knownProducts lists the GPU products of the given node infos, sorted.
func knownProducts(infos ...[]*framework.NodeInfo) []string {
	set := map[string]bool{}
	for _, list := range infos {
		for _, ni := range list {
			if ni == nil || ni.Node() == nil {
				continue
			}
			if v := ni.Node().Labels[contract.GPUProductLabel]; v != "" {
				set[v] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
