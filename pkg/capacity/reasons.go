// The Filter reasons that mean a node lacks room for a member, and IsRoomReason.

package capacity

import "strings"

// Filter reasons that say a node lacks room for a member, as Muster's
// plugins report them; the plugins' reasons are these constants.
const (
	// ReasonHeld: the capacity plan holds the node's free room for gangs
	// served before the member's.
	ReasonHeld = "node(s) had room held for gangs ahead in the capacity plan (higher priority, or older)"
	// ReasonGPUCount: the node has too few free GPUs.
	ReasonGPUCount = "node(s) had too few free GPUs for the member"
	// ReasonBooked: the node was added for another gang that has not bound.
	ReasonBooked = "node(s) were added by the cluster-autoscaler for a gang that has not bound yet"
	// ReasonClaimed: another gang placing its quorum claimed the free GPUs.
	ReasonClaimed = "node(s) had free GPUs claimed by a gang placing its quorum"
)

// IsRoomReason says whether a node rejected a member for want of room: the
// member would fit it with more of it free (kube-scheduler's NodeResourcesFit
// "Insufficient <resource>" and "Too many pods", or one of the reasons
// above), as opposed to a node the member may never use (selectors,
// affinity, taints, GPU class, a topology domain).
func IsRoomReason(r string) bool {
	switch r {
	case ReasonHeld, ReasonGPUCount, ReasonBooked, ReasonClaimed, "Too many pods":
		return true
	}
	return strings.HasPrefix(r, "Insufficient ")
}
