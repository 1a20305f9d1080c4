// Index: free GPUs per topology domain and GPU kind, node updates, and choosing a gang's domain.

package topology

import (
	"fmt"
	"sort"
)

// Index keeps, for every topology domain, how many nodes of each GPU kind have
// how many free GPUs. With it a gang's domain is chosen by walking domains,
// not nodes: a domain's room for members of g GPUs is the sum over its free
// counts f of nodes(f) * floor(f/g). Nodes are updated one at a time as they
// change, so keeping the index current costs nothing per scheduling cycle.
type Index struct {
	levels  []Level
	nodes   map[string]*indexedNode
	domains []map[string]*Domain
	cluster *Domain
	kinds   map[kindKey]*Kind
	stamp   uint64
}

// Kind is one GPU product and memory size, interned so domains count nodes per
// kind and a class is matched once per kind, not once per node.
type Kind struct {
	Product   string
	MemoryMiB int64
}

type kindKey struct {
	product string
	mem     int64
}

type indexedNode struct {
	name    string
	kind    *Kind
	alloc   int64
	used    int64
	domains []*Domain // per level; nil where the node lacks the level's label
	stamp   uint64
}

// Domain is one domain of one level (or the whole cluster).
type Domain struct {
	Level     int // index into the levels, or Anywhere for the cluster
	Value     string
	Nodes     int
	AllocGPUs int64
	FreeGPUs  int64
	// byKind[k][f] is the number of nodes of kind k with f free GPUs.
	byKind map[*Kind][]int32
}

// NodeState is what the index needs to know about one node.
type NodeState struct {
	Name      string
	Labels    map[string]string
	AllocGPUs int64
	UsedGPUs  int64
}

// NewIndex returns an empty index over levels, narrowest first.
func NewIndex(levels []Level) *Index {
	ix := &Index{
		levels:  levels,
		nodes:   map[string]*indexedNode{},
		domains: make([]map[string]*Domain, len(levels)),
		cluster: &Domain{Level: Anywhere, byKind: map[*Kind][]int32{}},
		kinds:   map[kindKey]*Kind{},
	}
	for i := range ix.domains {
		ix.domains[i] = map[string]*Domain{}
	}
	return ix
}

// Levels returns the index's levels.
func (ix *Index) Levels() []Level { return ix.levels }

// BeginSync starts a pass in which every live node is Set; EndSync then drops
// the nodes that were not.
func (ix *Index) BeginSync() { ix.stamp++ }

// EndSync removes nodes not Set since BeginSync.
func (ix *Index) EndSync() {
	for name, n := range ix.nodes {
		if n.stamp != ix.stamp {
			ix.detach(n)
			delete(ix.nodes, name)
		}
	}
}

// Touch marks a node as live in the current sync without re-reading it.
func (ix *Index) Touch(name string) bool {
	n, ok := ix.nodes[name]
	if ok {
		n.stamp = ix.stamp
	}
	return ok
}

// Set records a node's labels and GPU counts. Only what changed is moved.
func (ix *Index) Set(s NodeState) {
	n, ok := ix.nodes[s.Name]
	if !ok {
		n = &indexedNode{name: s.Name, domains: make([]*Domain, len(ix.levels))}
		ix.nodes[s.Name] = n
	} else {
		ix.account(n, -1)
	}
	n.stamp = ix.stamp
	n.alloc, n.used = s.AllocGPUs, s.UsedGPUs
	n.kind = nil
	if s.AllocGPUs > 0 {
		k := kindKey{s.Labels[ProductLabel], ParseMemoryMiB(s.Labels[MemoryLabel])}
		if n.kind = ix.kinds[k]; n.kind == nil {
			n.kind = &Kind{Product: k.product, MemoryMiB: k.mem}
			ix.kinds[k] = n.kind
		}
	}
	for i, l := range ix.levels {
		v := s.Labels[l.Label]
		old := n.domains[i]
		if old != nil && old.Value == v {
			continue
		}
		if old != nil && old.Nodes == 0 {
			delete(ix.domains[i], old.Value)
		}
		n.domains[i] = nil
		if v == "" {
			continue
		}
		d := ix.domains[i][v]
		if d == nil {
			d = &Domain{Level: i, Value: v, byKind: map[*Kind][]int32{}}
			ix.domains[i][v] = d
		}
		n.domains[i] = d
	}
	ix.attach(n)
}

// Remove forgets a node.
func (ix *Index) Remove(name string) {
	if n, ok := ix.nodes[name]; ok {
		ix.detach(n)
		delete(ix.nodes, name)
	}
}

// Adjust changes a node's used GPUs by delta (a reservation made or undone
// between syncs).
func (ix *Index) Adjust(name string, delta int64) {
	n, ok := ix.nodes[name]
	if !ok || delta == 0 {
		return
	}
	ix.account(n, -1)
	n.used += delta
	ix.account(n, 1)
}

func (n *indexedNode) free() int64 { return max(n.alloc-n.used, 0) }

func (ix *Index) attach(n *indexedNode) { ix.account(n, 1) }

// detach takes a node out of its domains, and drops domains left empty so the
// maps do not grow with every label value ever seen.
func (ix *Index) detach(n *indexedNode) {
	ix.account(n, -1)
	for i, d := range n.domains {
		if d != nil && d.Nodes == 0 {
			delete(ix.domains[i], d.Value)
			n.domains[i] = nil
		}
	}
}

func (ix *Index) account(n *indexedNode, sign int) {
	add := func(d *Domain) {
		d.Nodes += sign
		d.AllocGPUs += int64(sign) * n.alloc
		d.FreeGPUs += int64(sign) * n.free()
		if n.kind == nil {
			return
		}
		f := int(n.free())
		h := d.byKind[n.kind]
		if f >= len(h) {
			h = append(h, make([]int32, f+1-len(h))...)
		}
		h[f] += int32(sign)
		d.byKind[n.kind] = h
	}
	add(ix.cluster)
	for _, d := range n.domains {
		if d != nil {
			add(d)
		}
	}
}

// Room counts the members of gpus GPUs each that the domain can hold on GPUs
// of kinds accepted by match.
func (d *Domain) Room(gpus int64, match func(*Kind) bool) int64 {
	return d.RoomPerNode(gpus, 0, match)
}

// RoomPerNode is Room with at most perNode members on a node (0: no limit),
// for members that keep off one another's nodes.
func (d *Domain) RoomPerNode(gpus, perNode int64, match func(*Kind) bool) int64 {
	if gpus <= 0 {
		return 0
	}
	var room int64
	for k, h := range d.byKind {
		if !match(k) {
			continue
		}
		for f := gpus; f < int64(len(h)); f++ {
			n := f / gpus
			if perNode > 0 {
				n = min(n, perNode)
			}
			room += int64(h[f]) * n
		}
	}
	return room
}

// WhollyFree reports whether no GPU in the domain is in use.
func (d *Domain) WhollyFree() bool { return d.FreeGPUs == d.AllocGPUs }

// Demand is a gang's ask for one placement decision.
type Demand struct {
	Members int64 // members to place at once
	GPUs    int64 // GPUs per member
	Request Request
	// Anchor lists nodes that already hold placed members: the chosen domain
	// must contain all of them.
	Anchor []string
	// Exclude rules out domains found unusable for reasons the index does not
	// see (taints, selectors, CPU); may be nil.
	Exclude func(level int, value string) bool
	// PerNode caps the members a node holds (0: no cap): members whose pod
	// anti-affinity keeps them off one another's nodes take a node each.
	PerNode int64
}

// Choice is the domain a gang's members are confined to.
type Choice struct {
	Level int // Anywhere: the whole cluster
	Value string
	Room  int64 // members of the demanded shape the domain held when chosen
}

// Shortfall explains why no domain fits: the largest room found at the widest
// level allowed.
type Shortfall struct {
	Level    int
	BestRoom int64
	Best     string
}

// Choose picks the gang's domain: the narrowest level, from the preferred one
// up to the required one, with a domain that holds all members; among that
// level's domains the fullest that still fits (least room, then fewest free
// GPUs, then name), so larger free domains stay whole for larger gangs.
func (ix *Index) Choose(d Demand) (Choice, Shortfall, bool) {
	cache := map[*Kind]bool{}
	match := func(k *Kind) bool {
		m, ok := cache[k]
		if !ok {
			m = d.Request.Class.Matches(k.Product, k.MemoryMiB)
			cache[k] = m
		}
		return m
	}
	widest := d.Request.Required
	if widest == Anywhere {
		widest = len(ix.levels) - 1
	}
	var short Shortfall
	for l := d.Request.Preferred; l <= widest && l < len(ix.levels); l++ {
		candidates, ok := ix.candidates(l, d.Anchor)
		if !ok {
			continue
		}
		var best *Domain
		var bestRoom int64
		short = Shortfall{Level: l}
		for _, dom := range candidates {
			if d.Exclude != nil && d.Exclude(l, dom.Value) {
				continue
			}
			room := dom.RoomPerNode(d.GPUs, d.PerNode, match)
			if short.Best == "" || room > short.BestRoom || (room == short.BestRoom && dom.Value < short.Best) {
				short.BestRoom, short.Best = room, dom.Value
			}
			if room < d.Members {
				continue
			}
			if best == nil || fuller(room, dom, bestRoom, best) {
				best, bestRoom = dom, room
			}
		}
		if best != nil {
			return Choice{Level: l, Value: best.Value, Room: bestRoom}, Shortfall{}, true
		}
	}
	if d.Request.Required != Anywhere {
		return Choice{}, short, false
	}
	room := ix.cluster.RoomPerNode(d.GPUs, d.PerNode, match)
	if room >= d.Members {
		return Choice{Level: Anywhere, Room: room}, Shortfall{}, true
	}
	return Choice{}, Shortfall{Level: Anywhere, BestRoom: room}, false
}

func fuller(room int64, d *Domain, bestRoom int64, best *Domain) bool {
	if room != bestRoom {
		return room < bestRoom
	}
	if d.FreeGPUs != best.FreeGPUs {
		return d.FreeGPUs < best.FreeGPUs
	}
	return d.Value < best.Value
}

// candidates returns a level's domains, or with an anchor the one domain
// holding every anchor node (ok false when they share none at this level).
func (ix *Index) candidates(level int, anchor []string) (map[string]*Domain, bool) {
	if len(anchor) == 0 {
		return ix.domains[level], true
	}
	var common *Domain
	for _, name := range anchor {
		n, ok := ix.nodes[name]
		if !ok || n.domains[level] == nil {
			return nil, false
		}
		if common == nil {
			common = n.domains[level]
		} else if common != n.domains[level] {
			return nil, false
		}
	}
	return map[string]*Domain{common.Value: common}, true
}

// Domain returns a domain by level and value.
func (ix *Index) Domain(level int, value string) (*Domain, bool) {
	if level == Anywhere {
		return ix.cluster, true
	}
	if level < 0 || level >= len(ix.levels) {
		return nil, false
	}
	d, ok := ix.domains[level][value]
	return d, ok
}

// NodeView is what scoring needs of one node.
type NodeView struct {
	AllocGPUs, FreeGPUs int64
	// Group is the node's narrowest domain above the node itself (an NVLink
	// clique, a rack, ...), nil when it has none.
	Group *Domain
}

// Node returns a node's view.
func (ix *Index) Node(name string) (NodeView, bool) {
	n, ok := ix.nodes[name]
	if !ok {
		return NodeView{}, false
	}
	v := NodeView{AllocGPUs: n.alloc, FreeGPUs: n.free()}
	for i := 1; i < len(n.domains); i++ {
		if n.domains[i] != nil {
			v.Group = n.domains[i]
			break
		}
	}
	return v, true
}

// Len returns the number of nodes indexed.
func (ix *Index) Len() int { return len(ix.nodes) }

// Describe renders a shortfall for a rejection reason.
func (s Shortfall) Describe(levels []Level, d Demand) string {
	what := fmt.Sprintf("%d members x %d GPUs (%s)", d.Members, d.GPUs, d.Request.Class)
	if s.Level == Anywhere {
		return fmt.Sprintf("needs %s; the cluster has room for %d", what, s.BestRoom)
	}
	name := LevelName(levels, s.Level)
	if s.Best == "" {
		return fmt.Sprintf("needs %s in one %s; no node has the %s label (%s)", what, name, name, levels[s.Level].Label)
	}
	return fmt.Sprintf("needs %s in one %s; the roomiest %s (%s) has room for %d", what, name, name, s.Best, s.BestRoom)
}

// DomainsOf lists a level's domain values in order (for reports and tests).
func (ix *Index) DomainsOf(level int) []string {
	out := make([]string, 0, len(ix.domains[level]))
	for v := range ix.domains[level] {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}
