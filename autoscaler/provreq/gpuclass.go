// The GPU class a request's pods accept, read from annotations and turned into node requirements.

package provreq

import (
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	apiv1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/framework"
)

// The GPU class muster-scheduler puts on a request's PodTemplate as
// annotations when node affinity cannot state it (product patterns, least
// memory), and the node labels it is matched against. The names and their
// meaning are the root module's pkg/topology (names.go, request.go).
const (
	GPUProductAnnotation = "muster.dev/gpu-product"    // comma-separated path.Match patterns
	GPUMemoryAnnotation  = "muster.dev/gpu-memory-min" // quantity per GPU, e.g. 40Gi
	GPUProductLabel      = "nvidia.com/gpu.product"
	GPUMemoryLabel       = "nvidia.com/gpu.memory" // MiB per GPU
)

// gpuClass is the GPU a request's pods accept.
type gpuClass struct {
	products []string
	minMiB   int64
}

// parseGPUClass reads the class annotations of a pod built from a request's
// PodTemplate.
func parseGPUClass(p *apiv1.Pod) (gpuClass, error) {
	var c gpuClass
	field := func(a string) string { return "metadata.annotations[" + a + "]" }
	if v, ok := p.Annotations[GPUProductAnnotation]; ok {
		for _, pat := range strings.Split(v, ",") {
			pat = strings.TrimSpace(pat)
			if pat == "" {
				continue
			}
			if _, err := path.Match(pat, ""); err != nil {
				return gpuClass{}, fmt.Errorf("pod %s/%s: %s: %q is not a valid pattern: %v", p.Namespace, p.Name, field(GPUProductAnnotation), pat, err)
			}
			c.products = append(c.products, pat)
		}
		if len(c.products) == 0 {
			return gpuClass{}, fmt.Errorf("pod %s/%s: %s: must name at least one GPU product or pattern", p.Namespace, p.Name, field(GPUProductAnnotation))
		}
	}
	if v, ok := p.Annotations[GPUMemoryAnnotation]; ok {
		q, err := resource.ParseQuantity(strings.TrimSpace(v))
		if err != nil || q.Sign() <= 0 {
			return gpuClass{}, fmt.Errorf("pod %s/%s: %s: must be a positive quantity such as 40Gi, got %q", p.Namespace, p.Name, field(GPUMemoryAnnotation), v)
		}
		c.minMiB = (q.Value() + (1<<20 - 1)) >> 20
	}
	return c, nil
}

// requirements turns the class into node requirements the scheduling
// simulation understands: product patterns become the known product names
// they match (the patterns themselves when none does, which only an exact
// name satisfies), the least memory a Gt on the memory label (a node that
// does not publish its memory does not match, as in the scheduler).
func (c gpuClass) requirements(known []string) []apiv1.NodeSelectorRequirement {
	var reqs []apiv1.NodeSelectorRequirement
	if len(c.products) > 0 {
		var values []string
		for _, k := range known {
			for _, pat := range c.products {
				if ok, _ := path.Match(pat, k); ok {
					values = append(values, k)
					break
				}
			}
		}
		if len(values) == 0 {
			values = append(values, c.products...)
		}
		reqs = append(reqs, apiv1.NodeSelectorRequirement{Key: GPUProductLabel, Operator: apiv1.NodeSelectorOpIn, Values: values})
	}
	if c.minMiB > 0 {
		reqs = append(reqs, apiv1.NodeSelectorRequirement{Key: GPUMemoryLabel, Operator: apiv1.NodeSelectorOpGt, Values: []string{strconv.FormatInt(c.minMiB-1, 10)}})
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
		reqs := c.requirements(known)
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
			if v := ni.Node().Labels[GPUProductLabel]; v != "" {
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
