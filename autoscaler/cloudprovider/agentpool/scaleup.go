package agentpool

import (
	"sort"
	"strings"
)

// scaleUp is one capacity increase of a pool, from the write until its
// instances are settled (or, after a failure, removed). A pool may have
// several under way: GPU VMs take 10-30 minutes to boot, and the core does
// not wait for one scale-up of a pool before it asks for the next.
type scaleUp struct {
	seq    uint64          // issue order within the pool
	before map[string]bool // instance keys the pool had when it was issued
	delta  int
	// owned is frozen when the scale-up ends: the keys it created. Until
	// then its instances are worked out by claimInstances.
	owned map[string]bool
	ended bool
}

// claimInstances works out which instances each scale-up created, in issue
// order. Azure numbers a pool's instances in creation order (scale set
// instance IDs, AKS machine names) and assigns them when it accepts a
// capacity write, so a scale-up's instances are numbered above everything
// its snapshot held and below what the next scale-up's snapshot held: it
// owns the first delta such instances no earlier scale-up claims. An ended
// scale-up keeps what it had when it ended, so instances it has deleted
// since do not shift the claims of later ones. Where lists disagree (a
// stale snapshot, an instance not listed yet) a scale-up claims less, never
// another's and never more than it asked for: an instance a failed
// scale-up leaves behind becomes a node the autoscaler removes once it is
// unneeded, while deleting another scale-up's VM would break that one.
func claimInstances(ups []*scaleUp, instances []vm) map[*scaleUp][]vm {
	sorted := append([]vm(nil), instances...)
	sort.Slice(sorted, func(a, b int) bool { return keyBefore(sorted[a].key, sorted[b].key) })
	claimed := map[string]bool{}
	out := make(map[*scaleUp][]vm, len(ups))
	for i, u := range ups {
		if u.owned != nil {
			for k := range u.owned {
				claimed[k] = true
			}
			for _, v := range sorted {
				if u.owned[v.key] {
					out[u] = append(out[u], v)
				}
			}
			continue
		}
		from := highestKey(u.before)
		to, bounded := "", false
		if i+1 < len(ups) {
			to, bounded = highestKey(ups[i+1].before), true
		}
		for _, v := range sorted {
			if len(out[u]) == u.delta || (bounded && keyBefore(to, v.key)) {
				break
			}
			if u.before[v.key] || claimed[v.key] || (from != "" && !keyBefore(from, v.key)) {
				continue
			}
			claimed[v.key] = true
			out[u] = append(out[u], v)
		}
	}
	return out
}

// highestKey is the newest instance key of a snapshot, "" when it is empty.
func highestKey(keys map[string]bool) string {
	top := ""
	for k := range keys {
		if top == "" || keyBefore(top, k) {
			top = k
		}
	}
	return top
}

// keyBefore orders instance keys by creation: scale set instance IDs and
// AKS machine names (a fixed prefix and a zero-padded base-36 number) grow
// with each instance, so the shorter, then the smaller, is the older.
func keyBefore(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return strings.Compare(a, b) < 0
}

// beginScaleUp records a capacity write that was just accepted. writeMu
// must be held, so that issue order is the order of the writes.
func (g *nodeGroup) beginScaleUp(before map[string]bool, delta int) *scaleUp {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.scaleUpSeq++
	u := &scaleUp{seq: g.scaleUpSeq, before: before, delta: delta}
	g.scaleUps = append(g.scaleUps, u)
	return u
}

// ownedBy returns the instances u created, as far as instances shows them.
func (g *nodeGroup) ownedBy(u *scaleUp, instances []vm) []vm {
	g.mu.Lock()
	defer g.mu.Unlock()
	return claimInstances(g.scaleUps, instances)[u]
}

// endScaleUp freezes what u created and reports whether another scale-up
// of the pool is still under way. Once none is, the ledger is emptied: the
// next scale-up's snapshot holds every instance there is.
func (g *nodeGroup) endScaleUp(u *scaleUp, owned []vm) (othersRunning bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	u.ended = true
	u.owned = make(map[string]bool, len(owned))
	for _, v := range owned {
		u.owned[v.key] = true
	}
	for _, o := range g.scaleUps {
		if !o.ended {
			othersRunning = true
		}
	}
	if !othersRunning {
		g.scaleUps = nil
	}
	return othersRunning
}
