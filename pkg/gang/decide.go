// The per-member decisions: PreEnqueue admission, Permit verdicts, Permit wait, queue order.

package gang

import (
	"fmt"
	"time"
)

// Counts is what the scheduler knows of a gang's members at one moment.
type Counts struct {
	// Members are the gang's pods that exist and have not terminated.
	Members int
	// Placed members are bound, or permitted and binding.
	Placed int
	// Waiting members hold a reservation at Permit for the rest of the quorum.
	Waiting int
}

// Admission is the PreEnqueue verdict for one member.
type Admission int

const (
	// Admit lets the member into the scheduling queue.
	Admit Admission = iota
	// AwaitQuorum holds the member gated: fewer than min members exist, so
	// placing any of them (or scaling the cluster for them) would be wasted.
	AwaitQuorum
	// AwaitRoomUnderMax holds the member gated: the gang already has max members placed.
	AwaitRoomUnderMax
)

// Admit decides whether a member may enter the scheduling queue and, when it
// may not, says why in words.
func (s Spec) Admit(c Counts) (Admission, string) {
	if c.Members < int(s.MinMember) {
		// No live count here: this message lands on every member's condition,
		// and rewriting all of them per arriving member would cost O(n^2) writes.
		// The gang's status and events carry the count.
		return AwaitQuorum, fmt.Sprintf("gang %s waits for quorum: fewer than %d members exist", s.Key, s.MinMember)
	}
	if c.Placed >= int(s.MaxMember) {
		return AwaitRoomUnderMax, fmt.Sprintf("gang %s is at its max: %d of %d members placed; this member waits until one leaves", s.Key, c.Placed, s.MaxMember)
	}
	return Admit, ""
}

// PermitVerdict is the Permit decision for a member that has a node.
type PermitVerdict int

const (
	// PermitBind lets this member bind now: the quorum is already placed and it is an elastic extra.
	PermitBind PermitVerdict = iota
	// PermitBindAll completes the quorum: this member and every waiting one bind.
	PermitBindAll
	// PermitWait holds the member's reservation until the quorum is reached or the timeout ends.
	PermitWait
	// PermitRejectOverMax refuses a member that would take the gang past max.
	PermitRejectOverMax
)

// Permit decides for one member that Filter found a node for. c counts the
// other members (not this one).
func (s Spec) Permit(c Counts) PermitVerdict {
	switch {
	case c.Placed >= int(s.MaxMember):
		return PermitRejectOverMax
	case c.Placed >= int(s.MinMember):
		return PermitBind
	case c.Placed+c.Waiting+1 >= int(s.MinMember):
		return PermitBindAll
	}
	return PermitWait
}

// QuorumPlaced reports whether min members are placed.
func (s Spec) QuorumPlaced(c Counts) bool { return c.Placed >= int(s.MinMember) }

// Remaining returns how long a member may still wait at Permit, given when the
// gang's first member started waiting. It is never below a millisecond so the
// framework always times the wait out itself.
func (s Spec) Remaining(firstWait, now time.Time) time.Duration {
	left := s.Timeout - now.Sub(firstWait)
	if left < time.Millisecond {
		return time.Millisecond
	}
	return left
}

// QueueKey is what orders one entity in the scheduling queue.
type QueueKey struct {
	Priority int32
	// Since is the gang's creation time for gang members, the enqueue time for other pods.
	Since time.Time
	// Gang is the gang key for members, empty for other pods; it keeps one
	// gang's members next to each other when gangs were created at the same time.
	Gang string
	// Enqueued is when the pod entered the queue; zero on a trace clock,
	// where the queue's own wall-time stamps say nothing about the trace.
	Enqueued time.Time
	// Namespace and Name are the pod's: the last tie-break, so that pods
	// no other key orders (members a trace step let in together) are
	// taken in one order.
	Namespace, Name string
}

// Less orders the queue: priority first, then the older gang (or pod), then
// members of one gang together, then arrival, then name.
func Less(a, b QueueKey) bool {
	if a.Priority != b.Priority {
		return a.Priority > b.Priority
	}
	if !a.Since.Equal(b.Since) {
		return a.Since.Before(b.Since)
	}
	if a.Gang != b.Gang {
		return a.Gang < b.Gang
	}
	if !a.Enqueued.Equal(b.Enqueued) {
		return a.Enqueued.Before(b.Enqueued)
	}
	if a.Namespace != b.Namespace {
		return a.Namespace < b.Namespace
	}
	return a.Name < b.Name
}
