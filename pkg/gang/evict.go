// SafeToEvict: which bound members the cluster-autoscaler may evict without breaking a gang.

package gang

import (
	"sort"
	"time"
)

// SafeToEvictAnnotation is the cluster-autoscaler's per-pod veto: a node
// running a pod annotated "false" is not scaled down.
const SafeToEvictAnnotation = "cluster-autoscaler.kubernetes.io/safe-to-evict"

// Placed is a bound member as scale-down protection sees it.
type Placed struct {
	Name    string
	Created time.Time
}

// SafeToEvict decides which bound members the autoscaler may evict when it
// empties a node: none while the gang has min or fewer bound, since losing
// one breaks the job; above min, the newest members beyond min, since an
// elastic job shrinks back to min without breaking. It returns the verdict
// per member name.
func SafeToEvict(bound []Placed, min int32) map[string]bool {
	out := make(map[string]bool, len(bound))
	sorted := append([]Placed(nil), bound...)
	sort.Slice(sorted, func(i, j int) bool {
		if !sorted[i].Created.Equal(sorted[j].Created) {
			return sorted[i].Created.Before(sorted[j].Created)
		}
		return sorted[i].Name < sorted[j].Name
	})
	for i, p := range sorted {
		out[p.Name] = int32(i) >= min
	}
	return out
}

// ProtectedOnceBound names the members whose SafeToEvict verdict is false
// whichever of them are bound: the first min of the gang's live members by
// creation (then name), as SafeToEvict orders them. The bound are some of
// these members, or newer ones, so a member's place among the bound is never
// further back than its place among all of them. Marking such a member
// before it binds (with its other marks, in one write) spares the write
// after it binds.
func ProtectedOnceBound(members []Placed, min int32) map[string]bool {
	if min <= 0 {
		return nil
	}
	sorted := append([]Placed(nil), members...)
	sort.Slice(sorted, func(i, j int) bool {
		if !sorted[i].Created.Equal(sorted[j].Created) {
			return sorted[i].Created.Before(sorted[j].Created)
		}
		return sorted[i].Name < sorted[j].Name
	})
	out := make(map[string]bool, min)
	for i, p := range sorted {
		if int32(i) >= min {
			break
		}
		out[p.Name] = true
	}
	return out
}
