// Pack: whether a quorum's members all find a place on nodes' free room; splits; shortfall by domain.

package capacity

import (
	"math"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
)

// Node is one node's room as Pack sees it. The scalar maps are read, never
// written, so an adapter may hand over the scheduler's own.
type Node struct {
	Node *v1.Node
	// Free CPU (millicores), memory (bytes) and pod slots.
	MilliCPU, Memory, Pods int64
	// AllocScalars and UsedScalars hold extended resources (GPUs among them).
	AllocScalars, UsedScalars map[v1.ResourceName]int64
	// Leaving holds the extended resources of terminating pods, which count
	// as free (nil: none); their CPU, memory and slots are in the free
	// amounts above already.
	Leaving map[v1.ResourceName]int64
}

// Packing is the outcome of Pack.
type Packing struct {
	// Placed counts the members placed, per want of the quorum.
	Placed []int64
	// Short lists, by shape, the members that found no place.
	Short Quorum
}

// Fits says every member of the quorum found a place.
func (p Packing) Fits() bool { return len(p.Short) == 0 }

// used is what Pack has put on one node so far.
type used struct {
	milliCPU, memory, pods int64
	scalars                map[v1.ResourceName]int64
	// onePerNode: a OnePerNode member is on the node.
	onePerNode bool
}

// Pack places a quorum's members on nodes at the same time: the largest
// shape first, each member on the first node that admits it and has room
// left (first-fit decreasing). GPU members go only on nodes inDomain accepts
// (nil: any node); members without GPUs go on any node that admits them.
//
// It is a feasibility check, run once per gang attempt: Filter still decides
// each member for real. First fit can miss a packing that exists when shapes
// of different sizes contend for the same nodes; it never reports room that
// is not there.
func Pack(logger klog.Logger, q Quorum, nodes []Node, inDomain func(*v1.Node) bool) Packing {
	return pack(logger, q, nodes, inDomain, nil)
}

// pack is Pack on nodes some of whose room is already spoken for: base[i]
// (nil: nothing) is what node i has less than its Node says, negative where
// evictions would free room.
func pack(logger klog.Logger, q Quorum, nodes []Node, inDomain func(*v1.Node) bool, base []used) Packing {
	var taken []used // per node, allocated only when a second shape must see the first's
	switch {
	case base != nil:
		taken = make([]used, len(nodes))
		for i := range base {
			taken[i] = base[i].clone()
		}
	case len(q) > 1:
		taken = make([]used, len(nodes))
	}
	return packInto(logger, q, nodes, inDomain, taken, nil)
}

// placed is count members of shape put on node (an index) by packInto.
type placed struct {
	node  int
	shape *Shape
	count int64
}

// packInto is pack adding what it places to taken (nil: keep no account,
// for a quorum of one shape on untouched nodes) and, with a journal, listing
// it there too.
func packInto(logger klog.Logger, q Quorum, nodes []Node, inDomain func(*v1.Node) bool, taken []used, journal *[]placed) Packing {
	p := Packing{Placed: make([]int64, len(q))}
	for i, w := range q {
		left := w.Count
		for j := range nodes {
			if left == 0 {
				break
			}
			n := &nodes[j]
			if w.Shape.GPUs > 0 && inDomain != nil && !inDomain(n.Node) {
				continue
			}
			if !w.Shape.Accepts(logger, n.Node) {
				continue
			}
			var u *used
			if taken != nil {
				u = &taken[j]
			}
			c := min(copiesOn(w.Shape, n, u), left)
			if w.Shape.OnePerNode {
				// The gang's members keep off one another's nodes.
				if u != nil && u.onePerNode {
					continue
				}
				c = min(c, 1)
			}
			if c <= 0 {
				continue
			}
			left -= c
			if u != nil {
				u.add(w.Shape, c)
			}
			if journal != nil {
				*journal = append(*journal, placed{node: j, shape: w.Shape, count: c})
			}
		}
		p.Placed[i] = w.Count - left
		if left > 0 {
			p.Short = append(p.Short, Want{Shape: w.Shape, Count: left})
		}
	}
	return p
}

// copiesOn counts the members of shape s that fit in what node n has free,
// less what Pack has put there already (u, may be nil).
func copiesOn(s *Shape, n *Node, u *used) int64 {
	var u0 used
	if u == nil {
		u = &u0
	}
	c := n.Pods - u.pods
	c = min(c, copies(n.MilliCPU-u.milliCPU, s.Demand.MilliCPU))
	c = min(c, copies(n.Memory-u.memory, s.Demand.Memory))
	for _, sc := range s.Demand.Scalars {
		c = min(c, copies(n.AllocScalars[sc.Name]-n.UsedScalars[sc.Name]+n.Leaving[sc.Name]-u.scalars[sc.Name], sc.Value))
	}
	return max(c, 0)
}

func (u used) clone() used {
	if u.scalars != nil {
		sc := make(map[v1.ResourceName]int64, len(u.scalars))
		for k, v := range u.scalars {
			sc[k] = v
		}
		u.scalars = sc
	}
	return u
}

func (u *used) add(s *Shape, c int64) {
	u.onePerNode = u.onePerNode || s.OnePerNode
	u.pods += c
	u.milliCPU += c * s.Demand.MilliCPU
	u.memory += c * s.Demand.Memory
	if len(s.Demand.Scalars) > 0 && u.scalars == nil {
		u.scalars = map[v1.ResourceName]int64{}
	}
	for _, sc := range s.Demand.Scalars {
		u.scalars[sc.Name] += c * sc.Value
	}
}

// sub takes o off u; a OnePerNode member stays counted, as what is left
// may still hold one.
func (u *used) sub(o used) {
	u.pods -= o.pods
	u.milliCPU -= o.milliCPU
	u.memory -= o.memory
	if len(o.scalars) > 0 && u.scalars == nil {
		u.scalars = map[v1.ResourceName]int64{}
	}
	for k, v := range o.scalars {
		u.scalars[k] -= v
	}
}

// addUsed adds o to u.
func (u *used) addUsed(o used) {
	u.onePerNode = u.onePerNode || o.onePerNode
	u.pods += o.pods
	u.milliCPU += o.milliCPU
	u.memory += o.memory
	if len(o.scalars) > 0 && u.scalars == nil {
		u.scalars = map[v1.ResourceName]int64{}
	}
	for k, v := range o.scalars {
		u.scalars[k] += v
	}
}

// beyond is what u takes beyond o, by resource (never below zero).
func (u used) beyond(o used) used {
	out := used{onePerNode: u.onePerNode, pods: max(0, u.pods-o.pods), milliCPU: max(0, u.milliCPU-o.milliCPU), memory: max(0, u.memory-o.memory)}
	for k, v := range u.scalars {
		if d := v - o.scalars[k]; d > 0 {
			if out.scalars == nil {
				out.scalars = map[v1.ResourceName]int64{}
			}
			out.scalars[k] = d
		}
	}
	return out
}

func copies(free, want int64) int64 {
	if want <= 0 {
		return math.MaxInt64
	}
	if free <= 0 {
		return 0
	}
	return free / want
}

// Split separates a quorum's members that ask for GPUs from those that do
// not.
func (q Quorum) Split() (gpu, other Quorum) {
	for _, w := range q {
		if w.Shape.GPUs > 0 {
			gpu = append(gpu, w)
		} else {
			other = append(other, w)
		}
	}
	return gpu, other
}

// ShortByDomain says, for each domain a gang's GPU members may be confined
// to, what of its quorum finds no place: the GPU members packed on the
// domain's nodes, the members without GPUs on any of all the nodes (the
// same for every domain, packed once, so the cost stays one pass over the
// nodes however many domains there are). Key "" with all nodes as its
// domain is the whole cluster.
func ShortByDomain(logger klog.Logger, q Quorum, domains map[string][]Node, all []Node) map[string]Quorum {
	gpuPart, other := q.Split()
	otherShort := Pack(logger, other, all, nil).Short
	out := make(map[string]Quorum, len(domains))
	for d, nodes := range domains {
		short := append(Quorum(nil), Pack(logger, gpuPart, nodes, nil).Short...)
		out[d] = append(short, otherShort...)
	}
	return out
}
