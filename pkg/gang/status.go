// A gang's status: PodGroup phases, Scheduled and Disrupted conditions and reasons, Summarize.

package gang

import (
	"fmt"
	"sort"
	"strings"
)

// Observed is a gang's members as the API server shows them.
type Observed struct {
	Counts
	Running   int
	Succeeded int
	Failed    int
}

// Phases, the scheduler-plugins PodGroup phase names.
const (
	PhasePending    = "Pending"
	PhaseScheduling = "Scheduling"
	PhaseRunning    = "Running"
	PhaseUnknown    = "Unknown"
	PhaseFinished   = "Finished"
	PhaseFailed     = "Failed"
)

// ConditionScheduled is the PodGroup condition type Muster maintains: True once
// min members are placed, False with a reason a user can act on otherwise.
const ConditionScheduled = "Scheduled"

// Reasons for ConditionScheduled, shown in kubectl output.
const (
	ReasonInvalidSpec     = "InvalidSpec"
	ReasonAwaitingQuorum  = "AwaitingQuorum"
	ReasonUnschedulable   = "Unschedulable"
	ReasonBackingOff      = "BackingOff"
	ReasonWaitingForRoom  = "WaitingForRoom"
	ReasonQuorumPlaced    = "QuorumPlaced"
	ReasonAtMax           = "AtMax"
	ReasonMembersLost     = "MembersLost"
	ReasonMissingPodGroup = "PodGroupNotFound"
	// ReasonStranded: members bound below min past the gang's timeout were
	// evicted (see Spec.Stranded).
	ReasonStranded = "StrandedMembersEvicted"
	// ReasonSpotReclaimed: members on a spot node Azure reclaimed were shed;
	// on ConditionDisrupted and the members' DisruptionTarget.
	ReasonSpotReclaimed = "SpotReclaimed"
)

// ConditionDisrupted is set on a gang that gave up members to make room for
// another; ConditionPreempting on the gang room was made for.
const (
	ConditionDisrupted  = "Disrupted"
	ConditionPreempting = "Preempting"
)

// Reasons for ConditionDisrupted and ConditionPreempting.
const (
	ReasonShed      = "MembersShed"
	ReasonPreempted = "Preempted"
	ReasonMadeRoom  = "MadeRoom"
	// ReasonWaitingForNodes: preempting whole gangs would make room, but
	// the gang waits for new nodes first, as its policy says, while they
	// may still come.
	ReasonWaitingForNodes = "WaitingForNodes"
)

// Summary is a gang's status in one line of state and one of words.
type Summary struct {
	Phase   string
	Placed  bool // the Scheduled condition's status
	Reason  string
	Message string
}

// Summarize derives the gang's phase and Scheduled condition. everPlaced says
// whether the quorum was placed before (so that losing members is reported as
// such); lastFailure is the scheduler's latest reason the quorum could not be
// placed, empty if none.
func (s Spec) Summarize(o Observed, everPlaced bool, lastFailure string) Summary {
	min := int(s.MinMember)
	sum := Summary{}
	switch {
	case o.Succeeded >= min:
		sum.Phase = PhaseFinished
	case o.Failed > 0 && o.Members+o.Succeeded < min:
		sum.Phase = PhaseFailed
	case o.Running >= min:
		sum.Phase = PhaseRunning
	case o.Placed >= min:
		sum.Phase = PhaseScheduling
	case everPlaced:
		sum.Phase = PhaseUnknown
	default:
		sum.Phase = PhasePending
	}

	switch {
	case o.Placed >= int(s.MaxMember):
		sum.Placed, sum.Reason = true, ReasonAtMax
		sum.Message = fmt.Sprintf("%d of max %d members placed", o.Placed, s.MaxMember)
	case o.Placed >= min || o.Succeeded >= min:
		sum.Placed, sum.Reason = true, ReasonQuorumPlaced
		sum.Message = fmt.Sprintf("%d members placed (min %d, max %d)", o.Placed, s.MinMember, s.MaxMember)
		if o.Members > o.Placed && o.Placed < int(s.MaxMember) {
			sum.Message += fmt.Sprintf("; %d more wait for room", o.Members-o.Placed)
		}
	case everPlaced:
		sum.Reason = ReasonMembersLost
		sum.Message = fmt.Sprintf("only %d of min %d members remain placed; the gang lost members", o.Placed, s.MinMember)
	case o.Members < min:
		sum.Reason = ReasonAwaitingQuorum
		sum.Message = fmt.Sprintf("waiting for quorum: %d of %d members exist", o.Members, s.MinMember)
	case lastFailure != "":
		sum.Reason = ReasonUnschedulable
		sum.Message = lastFailure
	default:
		sum.Reason = ReasonWaitingForRoom
		sum.Message = fmt.Sprintf("%d of %d members placed, %d holding reservations", o.Placed, s.MinMember, o.Waiting)
	}
	return sum
}

// SummarizeReasons renders node rejection reasons, counted by reason, the way
// the scheduler's FitError does: "0/64 nodes are available: 32 node(s) had
// <reason>, ...", most common first, then alphabetically.
func SummarizeReasons(count map[string]int, nodes int) string {
	reasons := make([]string, 0, len(count))
	for r := range count {
		reasons = append(reasons, r)
	}
	sort.Slice(reasons, func(i, j int) bool {
		if count[reasons[i]] != count[reasons[j]] {
			return count[reasons[i]] > count[reasons[j]]
		}
		return reasons[i] < reasons[j]
	})
	if len(reasons) == 1 && count[reasons[0]] == nodes && !strings.HasPrefix(reasons[0], "node(s)") && !strings.HasPrefix(reasons[0], "Insufficient") {
		// One verdict for every node: a PreFilter rejection, already a sentence.
		return reasons[0]
	}
	parts := make([]string, len(reasons))
	for i, r := range reasons {
		parts[i] = fmt.Sprintf("%d %s", count[r], r)
	}
	if len(parts) == 0 {
		return fmt.Sprintf("0/%d nodes are available", nodes)
	}
	return fmt.Sprintf("0/%d nodes are available: %s", nodes, strings.Join(parts, ", "))
}
