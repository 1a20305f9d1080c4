// ClaimGPUs: the free GPUs of a chosen domain that a quorum's GPU members claim until reserved.

package capacity

import (
	"cmp"
	"slices"
)

// ClaimGPUs spreads the GPU members of a quorum over the free GPUs of the
// nodes of the domain chosen for it, largest members first, filling the
// fullest node that takes one before the next, as scoring (most allocated
// first, the gang's own nodes first) places them. Until the members are
// reserved that room is the gang's: another gang choosing its domain at the
// same time must not count it. It did: two gangs chose the same half-used
// node, one of them could not place its last member there, and its whole
// attempt failed and backed off. Members no node takes claim nothing.
func ClaimGPUs(q Quorum, free map[string]int64) map[string]int64 {
	type room struct {
		node string
		free int64
	}
	rooms := make([]room, 0, len(free))
	for n, f := range free {
		if f > 0 {
			rooms = append(rooms, room{n, f})
		}
	}
	slices.SortFunc(rooms, func(a, b room) int {
		return cmp.Or(cmp.Compare(a.free, b.free), cmp.Compare(a.node, b.node))
	})
	var claims map[string]int64
	for _, w := range q { // largest shape first
		gpus, left := w.Shape.GPUs, w.Count
		if gpus <= 0 {
			continue
		}
		for i := 0; i < len(rooms) && left > 0; i++ {
			k := min(left, rooms[i].free/gpus)
			if k == 0 {
				continue
			}
			if claims == nil {
				claims = map[string]int64{}
			}
			rooms[i].free -= k * gpus
			claims[rooms[i].node] += k * gpus
			left -= k
		}
	}
	return claims
}
