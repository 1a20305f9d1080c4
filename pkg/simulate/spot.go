// ReclaimAfter: how long a spot node lives before Azure reclaims it, drawn from the seed and node.

package simulate

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"time"
)

// ReclaimAfter is how long, in trace time, a spot node lives before Azure
// reclaims it, for a pool reclaimed perHour times per node-hour: drawn from
// an exponential distribution (reclaims come without memory of how long a
// node has run) by a hash of the seed and the node's name, so every run of
// the same seed reclaims the same pool's n-th node after the same time.
// perHour 0 (or less) means never: ok is false.
func ReclaimAfter(seed int64, node string, perHour float64) (after time.Duration, ok bool) {
	if perHour <= 0 {
		return 0, false
	}
	h := fnv.New64a()
	h.Write([]byte(node))
	// PCG mixes seed and name well even for names that differ in one digit.
	u := 1 - rand.New(rand.NewPCG(uint64(seed), h.Sum64())).Float64() // (0, 1]: never 0, whose log is infinite
	hours := -math.Log(u) / perHour
	return time.Duration(hours * float64(time.Hour)), true
}
