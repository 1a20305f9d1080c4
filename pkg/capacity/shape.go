// Package capacity decides, as plain code, whether a gang's quorum fits the
// room a cluster has and what it is short of. A gang is the multiset of its
// members' shapes (requests, node selection, tolerations), not min copies of
// whichever member is being scheduled: an MPIJob is one CPU launcher plus
// GPU workers, and its quorum fits when every member of it has a place at
// the same time.
//
// The rule for mixed gangs: GPU members are confined to the gang's topology
// domain; members that ask for no GPU (launchers, parameter servers) may sit
// on any node their own node selection, affinity and tolerations admit. A
// gang that wants its CPU members in the domain too says so on those
// members, with the domain's label in their node affinity.
//
// The scheduler plugins and the hint writer adapt this package; it has no
// scheduler framework imports.
package capacity

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	resourcehelper "k8s.io/component-helpers/resource"
	v1helper "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
)

// Shape is what one kind of member asks of a node.
type Shape struct {
	// Key identifies the shape: members with equal keys are interchangeable.
	Key    string
	Demand Demand
	// GPUs is the member's request of the cluster's GPU resource.
	GPUs int64
	// Example is a member of this shape; a ProvisioningRequest's PodTemplate
	// copies it.
	Example *v1.Pod

	// OnePerNode: the member's required pod anti-affinity keeps it off a
	// node running another pod with its labels (topology key
	// kubernetes.io/hostname), so its gang's members take a node each.
	OnePerNode bool

	affinity    nodeaffinity.RequiredNodeAffinity
	tolerations []v1.Toleration
}

// ShapeOf reads a member's shape; gpu names the GPU resource.
func ShapeOf(pod *v1.Pod, gpu v1.ResourceName) *Shape {
	d := DemandOf(pod)
	s := &Shape{Demand: d, GPUs: d.Scalar(gpu), Example: pod, OnePerNode: OnePerNode(pod), affinity: nodeaffinity.GetRequiredNodeAffinity(pod), tolerations: pod.Spec.Tolerations}
	s.Key = shapeKey(pod)
	return s
}

// DemandShape reads only what a member holds (requests, GPUs), for members
// that are bound already and only ever freed, never placed.
func DemandShape(pod *v1.Pod, gpu v1.ResourceName) *Shape {
	d := DemandOf(pod)
	return &Shape{Demand: d, GPUs: d.Scalar(gpu), Example: pod}
}

// OnePerNode says whether pod keeps off any node that runs a pod like it:
// it asks for a host port (a hostNetwork pod's container ports are host
// ports too), or its required pod anti-affinity rules out nodes running a
// pod with its own labels (topology key kubernetes.io/hostname, pod's
// namespace among the term's). Members of a gang alike in this take a node
// each, whatever room a node has for more.
func OnePerNode(pod *v1.Pod) bool {
	for _, c := range pod.Spec.Containers {
		for _, p := range c.Ports {
			if p.HostPort > 0 {
				return true
			}
		}
	}
	a := pod.Spec.Affinity
	if a == nil || a.PodAntiAffinity == nil {
		return false
	}
	for _, term := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		if term.TopologyKey != v1.LabelHostname || term.NamespaceSelector != nil ||
			(len(term.Namespaces) > 0 && !slices.Contains(term.Namespaces, pod.Namespace)) {
			continue
		}
		if sel, err := metav1.LabelSelectorAsSelector(term.LabelSelector); err == nil && sel.Matches(labels.Set(pod.Labels)) {
			return true
		}
	}
	return false
}

// PlacedByShape says whether the nodes pod may take are decided by its
// shape (Key) and the nodes alone, so that a member of its gang alike in
// shape and priority finds room exactly where it would: no volume claims
// or resource claims (bound to a zone, or to devices, claim by claim), no
// pod affinity, anti-affinity or topology spread (decided by the labels and
// places of other pods, this one's siblings included), and no host ports.
func PlacedByShape(pod *v1.Pod) bool {
	s := &pod.Spec
	if len(s.ResourceClaims) > 0 || len(s.TopologySpreadConstraints) > 0 {
		return false
	}
	if a := s.Affinity; a != nil && (a.PodAffinity != nil || a.PodAntiAffinity != nil) {
		return false
	}
	for _, v := range s.Volumes {
		if v.PersistentVolumeClaim != nil || v.Ephemeral != nil {
			return false
		}
	}
	for _, c := range s.Containers {
		for _, p := range c.Ports {
			if p.HostPort > 0 {
				return false
			}
		}
	}
	return true
}

// shapeKey renders what makes two members interchangeable for placement.
func shapeKey(pod *v1.Pod) string {
	k := struct {
		Requests     v1.ResourceList   `json:"r,omitempty"`
		NodeSelector map[string]string `json:"s,omitempty"`
		Affinity     *v1.NodeSelector  `json:"a,omitempty"`
		Tolerations  []v1.Toleration   `json:"t,omitempty"`
		OnePerNode   bool              `json:"o,omitempty"`
	}{
		Requests:     resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{}),
		NodeSelector: pod.Spec.NodeSelector,
		Tolerations:  pod.Spec.Tolerations,
		OnePerNode:   OnePerNode(pod),
	}
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		k.Affinity = a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	b, _ := json.Marshal(k)
	return string(b)
}

// Accepts says whether the node's labels and NoSchedule/NoExecute taints
// admit a member of this shape. Unschedulable nodes admit none.
func (s *Shape) Accepts(logger klog.Logger, node *v1.Node) bool {
	if node == nil || node.Spec.Unschedulable {
		return false
	}
	if ok, _ := s.affinity.Match(node); !ok {
		return false
	}
	_, untolerated := v1helper.FindMatchingUntoleratedTaint(logger, node.Spec.Taints, s.tolerations, noScheduleTaints, false)
	return !untolerated
}

func noScheduleTaints(t *v1.Taint) bool {
	return t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute
}

// OnePerNode says whether every GPU member of the quorum keeps off the
// nodes of the others (Shape.OnePerNode), so that a node holds one of them.
func (q Quorum) OnePerNode() bool {
	found := false
	for _, w := range q {
		if w.Shape.GPUs > 0 {
			if !w.Shape.OnePerNode {
				return false
			}
			found = true
		}
	}
	return found
}

// String describes the shape for messages: "8 GPUs", or "2 CPU" for a member without GPUs.
func (s *Shape) String() string {
	if s.GPUs > 0 {
		return fmt.Sprintf("%d GPUs", s.GPUs)
	}
	for _, sc := range s.Demand.Scalars {
		return fmt.Sprintf("%d %s", sc.Value, sc.Name)
	}
	return fmt.Sprintf("%g CPU", float64(s.Demand.MilliCPU)/1000)
}

// larger orders shapes for packing: the hardest to place first.
func larger(a, b *Shape) bool {
	if a.GPUs != b.GPUs {
		return a.GPUs > b.GPUs
	}
	if a.Demand.MilliCPU != b.Demand.MilliCPU {
		return a.Demand.MilliCPU > b.Demand.MilliCPU
	}
	if a.Demand.Memory != b.Demand.Memory {
		return a.Demand.Memory > b.Demand.Memory
	}
	return a.Key < b.Key
}

// Want is a number of members of one shape.
type Want struct {
	Shape *Shape
	Count int64
}

// Quorum is what a gang must place at once, by shape, largest shape first.
type Quorum []Want

// Members counts the quorum's members.
func (q Quorum) Members() int64 {
	var n int64
	for _, w := range q {
		n += w.Count
	}
	return n
}

// GPUMembers counts the members that ask for GPUs, and the fewest GPUs any
// of them asks for (0 when none does).
func (q Quorum) GPUMembers() (members, fewestGPUs int64) {
	for _, w := range q {
		if w.Shape.GPUs <= 0 || w.Count == 0 {
			continue
		}
		members += w.Count
		if fewestGPUs == 0 || w.Shape.GPUs < fewestGPUs {
			fewestGPUs = w.Shape.GPUs
		}
	}
	return members, fewestGPUs
}

// FewestGPUs is the fewest GPUs any need of these members ask for in all:
// the sum of the need smallest requests (all of them, if fewer). Nodes
// with fewer GPUs than that in all hold no quorum of need of them, however
// packed and however empty.
func FewestGPUs(need int64, members []*Shape) int64 {
	gpus := make([]int64, 0, len(members))
	for _, m := range members {
		gpus = append(gpus, max(m.GPUs, 0))
	}
	slices.Sort(gpus)
	var sum int64
	for i, g := range gpus {
		if int64(i) >= need {
			break
		}
		sum += g
	}
	return sum
}

// String describes the quorum: "8 x 8 GPUs + 1 x 2 CPU".
func (q Quorum) String() string {
	parts := make([]string, 0, len(q))
	for _, w := range q {
		if w.Count > 0 {
			parts = append(parts, fmt.Sprintf("%d x %s", w.Count, w.Shape))
		}
	}
	if len(parts) == 0 {
		return "no members"
	}
	return strings.Join(parts, " + ")
}

// QuorumOf picks the members that would complete a gang's quorum: need of
// its unplaced members, first (the member being scheduled, may be nil)
// always among them, the rest smallest shape first. Any need members make a
// quorum; the smallest of them are the set most likely to fit, so a room
// check built on it never turns away a gang that could be placed. A gang
// with fewer unplaced members than need gets all of them.
func QuorumOf(need int64, unplaced []*v1.Pod, first *v1.Pod, gpu v1.ResourceName) Quorum {
	return QuorumOfShapes(need, unplaced, first, func(p *v1.Pod) *Shape { return ShapeOf(p, gpu) })
}

// QuorumOfShapes is QuorumOf reading members' shapes with shapeOf (a
// Shapes cache's Of).
func QuorumOfShapes(need int64, unplaced []*v1.Pod, first *v1.Pod, shapeOf func(*v1.Pod) *Shape) Quorum {
	if need <= 0 {
		return nil
	}
	byKey := map[string]*Want{}
	var order []string
	add := func(s *Shape) {
		w, ok := byKey[s.Key]
		if !ok {
			w = &Want{Shape: s}
			byKey[s.Key] = w
			order = append(order, s.Key)
		}
		w.Count++
	}
	taken := int64(0)
	if first != nil {
		add(shapeOf(first))
		taken++
	}
	rest := make([]*Shape, 0, len(unplaced))
	for _, p := range unplaced {
		if first != nil && p.UID == first.UID {
			continue
		}
		rest = append(rest, shapeOf(p))
	}
	if int64(len(rest)) > need-taken {
		sort.SliceStable(rest, func(i, j int) bool { return larger(rest[j], rest[i]) })
		rest = rest[:max(need-taken, 0)]
	}
	for _, s := range rest {
		add(s)
	}
	q := make(Quorum, 0, len(order))
	for _, k := range order {
		q = append(q, *byKey[k])
	}
	sort.SliceStable(q, func(i, j int) bool { return larger(q[i].Shape, q[j].Shape) })
	return q
}

// Uniform is a quorum of count members shaped like pod: a gang's quorum
// when its members cannot be listed (a lone pod, a test without them).
func Uniform(count int64, pod *v1.Pod, gpu v1.ResourceName) Quorum {
	if count <= 0 {
		return nil
	}
	return Quorum{{Shape: ShapeOf(pod, gpu), Count: count}}
}
