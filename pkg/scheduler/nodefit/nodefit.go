// Package nodefit reads the scheduler's NodeInfos into the room that
// capacity.Pack places a gang's quorum in: free CPU, memory, pod slots and
// extended resources, with the node's labels and taints. Gang plugins use it
// once per gang attempt to see whether a quorum can fit at all before any
// member reserves anything; Filter still decides each member for real.
package nodefit

import (
	"sync"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/muster-project/muster/pkg/capacity"
)

// Room reads one node's free room. The scalar maps are the NodeInfo's own.
// Terminating pods are leaving: what they hold counts as free, so a gang
// that room was made for is not made room for again while its victims go.
func Room(ni fwk.NodeInfo) capacity.Node {
	alloc, req := ni.GetAllocatable(), ni.GetRequested()
	n := capacity.Node{
		Node:         ni.Node(),
		MilliCPU:     alloc.GetMilliCPU() - req.GetMilliCPU(),
		Memory:       alloc.GetMemory() - req.GetMemory(),
		Pods:         int64(alloc.GetAllowedPodNumber() - len(ni.GetPods())),
		AllocScalars: alloc.GetScalarResources(),
		UsedScalars:  req.GetScalarResources(),
	}
	for _, pi := range ni.GetPods() {
		p := pi.GetPod()
		if p.DeletionTimestamp == nil {
			continue
		}
		d := capacity.DemandOf(p)
		n.MilliCPU += d.MilliCPU
		n.Memory += d.Memory
		n.Pods++
		for _, sc := range d.Scalars {
			if n.Leaving == nil {
				n.Leaving = map[v1.ResourceName]int64{}
			}
			n.Leaving[sc.Name] += sc.Value
		}
	}
	return n
}

// Empty reads every regular node's room as if no pod ran on it: what the
// cluster could hold at all for quorums (spot nodes never hold one,
// capacity.SpotRule).
func Empty(nodes []fwk.NodeInfo) []capacity.Node {
	out := make([]capacity.Node, 0, len(nodes))
	for _, ni := range nodes {
		if ni.Node() == nil || capacity.IsSpot(ni.Node()) {
			continue
		}
		alloc := ni.GetAllocatable()
		out = append(out, capacity.Node{Node: ni.Node(), MilliCPU: alloc.GetMilliCPU(), Memory: alloc.GetMemory(),
			Pods: int64(alloc.GetAllowedPodNumber()), AllocScalars: alloc.GetScalarResources()})
	}
	return out
}

// Rooms reads the room of every regular node: the room quorums are counted
// and planned in (spot nodes never hold one, capacity.SpotRule).
func Rooms(nodes []fwk.NodeInfo) []capacity.Node {
	out := make([]capacity.Node, 0, len(nodes))
	for _, ni := range nodes {
		if ni.Node() != nil && !capacity.IsSpot(ni.Node()) {
			out = append(out, Room(ni))
		}
	}
	return out
}

// RoomCache remembers each node's room by the NodeInfo generation it was
// read at: a plan made again after one gang's change reads every node, and
// almost all of them are unchanged.
type RoomCache struct {
	mu   sync.Mutex
	pass uint64
	m    map[string]*cachedRoom
}

type cachedRoom struct {
	node       *v1.Node
	generation int64
	pass       uint64
	spot       bool
	room       capacity.Node
}

// Rooms is Rooms(nodes), reading again only nodes whose NodeInfo changed.
func (c *RoomCache) Rooms(nodes []fwk.NodeInfo) []capacity.Node {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]*cachedRoom, len(nodes))
	}
	c.pass++
	out := make([]capacity.Node, 0, len(nodes))
	for _, ni := range nodes {
		n := ni.Node()
		if n == nil {
			continue
		}
		e := c.m[n.Name]
		if e == nil {
			e = &cachedRoom{}
			c.m[n.Name] = e
		}
		if e.node != n || e.generation != ni.GetGeneration() {
			*e = cachedRoom{node: n, generation: ni.GetGeneration(), spot: capacity.IsSpot(n)}
			if !e.spot {
				e.room = Room(ni)
			}
		}
		e.pass = c.pass
		if !e.spot {
			out = append(out, e.room)
		}
	}
	// Forget nodes that are gone.
	if len(c.m) > len(nodes) {
		for name, e := range c.m {
			if e.pass != c.pass {
				delete(c.m, name)
			}
		}
	}
	return out
}
