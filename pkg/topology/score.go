// Fit and Score: ranking a node for a member by tiers (spot, gang domain, gang members, packing).

package topology

// Fit is where one member would sit on one node, as scoring sees it.
type Fit struct {
	// InGangDomain: the node lies in the domain chosen for the member's gang.
	InGangDomain bool
	// GangMembers already placed on the node.
	GangMembers int
	// The node's GPUs before placing the member, and the member's GPUs.
	AllocGPUs, FreeGPUs, Want int64
	// Smallest is the fewest GPUs per member among the gang shapes the
	// scheduler sees; GPUs left over below it are stranded. 0: unknown.
	Smallest int64
	// GroupWhollyFree: the node's clique (or narrowest group above the node)
	// has no GPU in use, so placing here breaks into a whole free group.
	GroupWhollyFree bool
	// CameUpWhileWaiting: the node registered after the member was created,
	// likely added by the autoscaler for it; an older free node is left to
	// scale down instead of the new one going unused.
	CameUpWhileWaiting bool
	// SpotForExtra: the node is a spot node and the member, one above its
	// gang's min, opted in to spot; such members go there first, so that a
	// reclaim shrinks the gang and regular room stays for quorums.
	SpotForExtra bool
}

// Score weights, highest first: each tier outweighs everything below it.
const (
	scoreSpotExtra   = 20000
	scoreGangDomain  = 10000
	scoreGangMembers = 5000
	scoreExactFit    = 2000 // nothing left over
	scoreUsableLeft  = 1000 // left over GPUs still fit the smallest shape
	scoreNodeInUse   = 600  // does not break into a wholly free node
	scoreGroupInUse  = 300  // does not break into a wholly free clique
	scorePacking     = 100  // scaled by the node's GPU use after placement
	scoreCameUp      = 1    // ties only: below one GPU's worth of packing

	// MaxRawScore is the highest raw score; plugins normalize against it.
	MaxRawScore = scoreSpotExtra + scoreGangDomain + scoreGangMembers + scoreExactFit + scoreNodeInUse + scoreGroupInUse + scorePacking + scoreCameUp
)

// Score ranks a node for a member: a spot node first for a member above min
// that opted in to spot, then the gang's own domain, then nodes
// that already hold gang members, then packing that keeps GPUs usable: no
// GPUs left over, or enough left for the smallest shape; a partly used node
// before a whole free one, a partly used clique before a whole free one; and
// then the fuller node; and among equals, a node that came up while the
// member waited.
func Score(f Fit) int64 {
	var s int64
	if f.SpotForExtra {
		s += scoreSpotExtra
	}
	if f.CameUpWhileWaiting {
		s += scoreCameUp
	}
	if f.InGangDomain {
		s += scoreGangDomain
	}
	if f.GangMembers > 0 {
		s += scoreGangMembers
	}
	if f.AllocGPUs <= 0 || f.Want <= 0 {
		return s
	}
	left := f.FreeGPUs - f.Want
	switch {
	case left == 0:
		s += scoreExactFit
	case left > 0 && left >= max(f.Smallest, 1):
		s += scoreUsableLeft
	}
	if f.FreeGPUs < f.AllocGPUs {
		s += scoreNodeInUse
	}
	if !f.GroupWhollyFree {
		s += scoreGroupInUse
	}
	used := f.AllocGPUs - max(left, 0)
	s += scorePacking * used / f.AllocGPUs
	return s
}
