// GPU claims: room a gang's domain choice set aside, counted out of every other gang's choice.

package gputopology

import (
	"maps"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/muster-project/muster/pkg/capacity"
	"github.com/muster-project/muster/pkg/scheduler/nodefit"
	"github.com/muster-project/muster/pkg/topology"
)

// claimsFor works out the GPUs the gang's quorum members will take in its
// chosen domain (p.inDomain, of the gang's GPU class), as
// capacity.ClaimGPUs spreads them over the nodes' free GPUs, other claims
// left out (the caller applied them to the index). pl.mu must be held.
func (pl *Topology) claimsFor(p *placement, req topology.Request, quorum capacity.Quorum, nodes []fwk.NodeInfo) map[string]int64 {
	gpuPart, _ := quorum.Split()
	if len(gpuPart) == 0 || p.inDomain == nil {
		return nil
	}
	free := make(map[string]int64, len(p.inDomain))
	for _, ni := range nodes {
		n := ni.Node()
		if n == nil || !p.inDomain.Has(n.Name) || !req.Class.MatchesLabels(n.Labels) {
			continue
		}
		if v, ok := pl.index.Node(n.Name); ok {
			free[n.Name] = v.FreeGPUs
		}
	}
	return capacity.ClaimGPUs(gpuPart, free)
}

// setClaims records a gang's claims, its earlier ones dropped already.
// pl.mu must be held.
func (pl *Topology) setClaims(p *placement, claims map[string]int64) {
	p.claims = claims
	for n, c := range claims {
		pl.claimed[n] += c
	}
}

// reserveClaim turns a reserved member's GPUs from claimed into used: from
// its node's claim, or, had scoring put it elsewhere, from the largest
// claim left. pl.mu must be held.
func (pl *Topology) reserveClaim(p *placement, node string, gpus int64) {
	for gpus > 0 && len(p.claims) > 0 {
		from := node
		if p.claims[from] == 0 {
			for n, c := range p.claims {
				if c > p.claims[from] || (c == p.claims[from] && n < from) {
					from = n
				}
			}
		}
		take := min(gpus, p.claims[from])
		pl.unclaim(p, from, take)
		gpus -= take
	}
}

// dropClaims ends a gang's claims: its attempt ended, or it chooses again.
// pl.mu must be held.
func (pl *Topology) dropClaims(p *placement) {
	for n, c := range p.claims {
		pl.unclaim(p, n, c)
	}
}

func (pl *Topology) unclaim(p *placement, node string, gpus int64) {
	if p.claims[node] -= gpus; p.claims[node] <= 0 {
		delete(p.claims, node)
	}
	if pl.claimed[node] -= gpus; pl.claimed[node] <= 0 {
		delete(pl.claimed, node)
	}
}

// takenFor sums, per node, the GPUs a gang choosing its domain must leave
// out: other gangs' claims, and the room the capacity plan holds for gangs
// ahead of it. pl.mu must be held.
func (pl *Topology) takenFor(held capacity.Held) map[string]int64 {
	taken := maps.Clone(pl.claimed)
	held.GPUs(pl.gpu, func(node string, gpus int64) {
		if taken == nil {
			taken = map[string]int64{}
		}
		taken[node] += gpus
	})
	return taken
}

// claimedBesides copies the claims of gangs other than p's, for Filter.
// pl.mu must be held.
func (pl *Topology) claimedBesides(p *placement) map[string]int64 {
	if len(pl.claimed) == 0 {
		return nil
	}
	out := make(map[string]int64, len(pl.claimed))
	for n, c := range pl.claimed {
		if c -= p.claims[n]; c > 0 {
			out[n] = c
		}
	}
	return out
}

// adjustIndex counts taken GPUs as used in the index (sign 1), or stops
// counting them (-1), around a domain choice. pl.mu must be held.
func (pl *Topology) adjustIndex(taken map[string]int64, sign int64) {
	for n, c := range taken {
		pl.index.Adjust(n, sign*c)
	}
}

// roomsLess is every regular node's room with the taken GPUs used.
func roomsLess(nodes []fwk.NodeInfo, taken map[string]int64, gpu v1.ResourceName) []capacity.Node {
	rooms := nodefit.Rooms(nodes)
	if len(taken) == 0 {
		return rooms
	}
	for i := range rooms {
		if c := taken[rooms[i].Node.Name]; c > 0 {
			used := maps.Clone(rooms[i].UsedScalars) // the snapshot's own map
			if used == nil {
				used = map[v1.ResourceName]int64{}
			}
			used[gpu] += c
			rooms[i].UsedScalars = used
		}
	}
	return rooms
}

// shapeWindow remembers the GPUs per member of the last gangs seen, so Score
// knows the smallest shape leftover GPUs should stay usable for.
type shapeWindow struct {
	ring     []int64
	next     int
	smallest int64
}

func newShapeWindow(n int) shapeWindow { return shapeWindow{ring: make([]int64, 0, n)} }

func (w *shapeWindow) add(gpus int64) {
	if len(w.ring) < cap(w.ring) {
		w.ring = append(w.ring, gpus)
	} else {
		w.ring[w.next] = gpus
		w.next = (w.next + 1) % len(w.ring)
	}
	w.smallest = w.ring[0]
	for _, g := range w.ring[1:] {
		w.smallest = min(w.smallest, g)
	}
}
