package capacity

import (
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
)

// Waiting is a gang whose quorum is not placed yet, all of whose quorum
// members exist.
type Waiting struct {
	Key      string
	Priority int32
	// Since is the gang's age; Waited how long its quorum has waited.
	Since  time.Time
	Waited time.Duration
	Quorum Quorum
	// CouldFit says the quorum fits the cluster's nodes were they empty:
	// only then is room held for it before it fits (new nodes, not held
	// room, serve a gang larger than the cluster).
	CouldFit bool
	// InDomain, when set, is the one topology domain the quorum's GPU
	// members must share (a required level): room is promised and held for
	// it there only.
	InDomain func(*v1.Node) bool
}

// Plan is the free room promised to waiting quorums, in the order they are
// served: by priority, then age. A quorum that fits in the room the gangs
// before it left is promised the room it packs into; so is, once it has
// waited longer than the starvation bound, the part of a quorum that does
// not fit yet, so that room freed up accumulates for it instead of going to
// younger gangs. Elastic members beyond min use only room promised to
// nobody, and a quorum only room not promised to gangs before it.
type Plan struct {
	order []string
	rank  map[string]int
	// held[i] is what gangs ranked before i (exclusive) hold, per node;
	// cumulative, so "ahead of gang i" is one lookup.
	held []map[string]used
	// all is what every waiting gang holds, per node.
	all map[string]used
	// booked names, by node, the gang whose booking holds the node.
	booked map[string]string
}

// Served orders waiting gangs: higher priority first, then older, then by key.
func Served(w []Waiting) {
	sort.SliceStable(w, func(i, j int) bool {
		if w[i].Priority != w[j].Priority {
			return w[i].Priority > w[j].Priority
		}
		if !w[i].Since.Equal(w[j].Since) {
			return w[i].Since.Before(w[j].Since)
		}
		return w[i].Key < w[j].Key
	})
}

// MakePlan promises free room to waiting quorums in order (see Plan).
// booked names, by node, the gang whose booking holds it (nodes the
// autoscaler added for that gang's request): those nodes are room for that
// gang's GPU members only. starvationBound is how long a quorum that does
// not fit waits before the room it can use is held for it.
func MakePlan(logger klog.Logger, waiting []Waiting, nodes []Node, booked map[string]string, starvationBound time.Duration) *Plan {
	w := append([]Waiting(nil), waiting...)
	Served(w)
	p := &Plan{rank: make(map[string]int, len(w)), all: map[string]used{}, booked: booked}
	base := make([]used, len(nodes))
	for i, g := range w {
		p.order = append(p.order, g.Key)
		p.rank[g.Key] = i
		p.held = append(p.held, snapshot(base, nodes))
		taken, fits := packTaken(logger, g.Quorum, nodes, base, p.admitFor(g.Key, g.InDomain))
		if !fits && (g.Waited < starvationBound || !g.CouldFit) {
			continue
		}
		for j := range base {
			base[j] = base[j].plus(taken[j])
		}
	}
	p.all = snapshot(base, nodes)
	return p
}

// admitFor is the node test for gang key's GPU members: nodes booked for
// another gang are not theirs; then inDomain (nil: any node).
func (p *Plan) admitFor(key string, inDomain func(*v1.Node) bool) func(*v1.Node) bool {
	if p == nil || len(p.booked) == 0 {
		return inDomain
	}
	return func(n *v1.Node) bool {
		if owner := p.booked[n.Name]; owner != "" && owner != key {
			return false
		}
		return inDomain == nil || inDomain(n)
	}
}

// Held is room set aside on nodes, by node name, for gangs other than the
// one it was asked for: room the plan holds for them, and nodes booked for
// them.
type Held struct {
	m    map[string]used
	plan *Plan
	key  string
}

// Ahead returns the room held for gangs served before key, and the nodes
// booked for other gangs; for a key not waiting (an elastic member's gang)
// all the room held.
func (p *Plan) Ahead(key string) Held {
	if p == nil {
		return Held{}
	}
	if i, ok := p.rank[key]; ok {
		return Held{m: p.held[i], plan: p, key: key}
	}
	return Held{m: p.all, plan: p, key: key}
}

// bookedElsewhere says the node is booked for another gang.
func (h Held) bookedElsewhere(node string) bool {
	if h.plan == nil {
		return false
	}
	owner := h.plan.booked[node]
	return owner != "" && owner != h.key
}

// On says whether room is held on the node.
func (h Held) On(node string) bool {
	_, ok := h.m[node]
	return ok || h.bookedElsewhere(node)
}

// Empty says nothing is held.
func (h Held) Empty() bool { return len(h.m) == 0 && (h.plan == nil || len(h.plan.booked) == 0) }

// Waiting lists the waiting gangs in the order they are served.
func (p *Plan) Waiting() []string {
	if p == nil {
		return nil
	}
	return p.order
}

// Admits says whether a member of shape s fits on node n once the room held
// on it is set aside.
func (h Held) Admits(s *Shape, n *Node) bool {
	if s.GPUs > 0 && h.bookedElsewhere(n.Node.Name) {
		return false
	}
	u, ok := h.m[n.Node.Name]
	if !ok {
		return copiesOn(s, n, nil) > 0
	}
	return copiesOn(s, n, &u) > 0
}

// PackAround is Pack on the room left once what held sets aside is taken.
func PackAround(logger klog.Logger, q Quorum, nodes []Node, inDomain func(*v1.Node) bool, held Held) Packing {
	if held.Empty() {
		return Pack(logger, q, nodes, inDomain)
	}
	base := make([]used, len(nodes))
	for i := range nodes {
		if u, ok := held.m[nodes[i].Node.Name]; ok {
			base[i] = u
		}
	}
	return pack(logger, q, nodes, held.plan.admitFor(held.key, inDomain), base)
}

// packTaken packs q on the room base leaves and returns what it took per
// node, and whether all of q found a place.
func packTaken(logger klog.Logger, q Quorum, nodes []Node, base []used, inDomain func(*v1.Node) bool) ([]used, bool) {
	taken := make([]used, len(nodes))
	for i := range base {
		taken[i] = base[i].clone()
	}
	p := packInto(logger, q, nodes, inDomain, taken)
	for i := range taken {
		taken[i] = taken[i].minus(base[i])
	}
	return taken, p.Fits()
}

// snapshot keeps the nodes with something held, by name.
func snapshot(base []used, nodes []Node) map[string]used {
	out := map[string]used{}
	for i, u := range base {
		if !u.zero() {
			out[nodes[i].Node.Name] = u.clone()
		}
	}
	return out
}

func (u used) zero() bool {
	if u.milliCPU != 0 || u.memory != 0 || u.pods != 0 {
		return false
	}
	for _, v := range u.scalars {
		if v != 0 {
			return false
		}
	}
	return true
}

func (u used) plus(o used) used {
	out := u.clone()
	out.milliCPU += o.milliCPU
	out.memory += o.memory
	out.pods += o.pods
	for k, v := range o.scalars {
		if out.scalars == nil {
			out.scalars = map[v1.ResourceName]int64{}
		}
		out.scalars[k] += v
	}
	return out
}

func (u used) minus(o used) used {
	neg := used{milliCPU: -o.milliCPU, memory: -o.memory, pods: -o.pods}
	if o.scalars != nil {
		neg.scalars = map[v1.ResourceName]int64{}
		for k, v := range o.scalars {
			neg.scalars[k] = -v
		}
	}
	return u.plus(neg)
}
