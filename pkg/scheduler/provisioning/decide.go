// The pure decision of one gang's sync: from its verdict, members, live request and backoff, what the writer does.

package provisioning

import (
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	autoscalingv1 "github.com/muster-project/muster/pkg/apis/autoscaling/v1"
	"github.com/muster-project/muster/pkg/shortfall"
)

// gangFacts is what a sync knows of one gang before it acts.
type gangFacts struct {
	// Members counts the gang's pods that have not finished; Bound those
	// of them bound and not leaving.
	Members, Bound int64
	// Want is the latest verdict; nil when none came since this scheduler
	// started.
	Want *Want
	// AdoptedMin is the min recorded on the live request when it was
	// adopted after a restart (Adopted).
	Adopted    bool
	AdoptedMin int64
	// Live names the gang's live request, "" when it has none.
	Live string
	// Booked says the autoscaler's capacity for the live request is booked
	// for the gang.
	Booked bool
	// Extras says Want is the verdict that found the gang's quorum placed,
	// kept while members waited beyond it; no newer verdict came.
	Extras bool
}

// step is what a sync does for one gang.
type step int

const (
	// stepKeep: a request adopted after a restart, and no verdict yet:
	// keep it until one comes.
	stepKeep step = iota
	// stepGone: the gang has no members: withdraw its request, forget it.
	stepGone
	// stepPlaced: its quorum is placed: withdraw the request, hold the
	// unplaced extras (or leave those that ride spot to the autoscaler),
	// clear the condition, forget the gang but for the verdict while
	// members wait beyond the quorum (a member listed later is held on the
	// next sync).
	stepPlaced
	// stepQuorumLost: the gang kept for its extras lost its quorum: forget
	// it; its members' next attempts bring a verdict.
	stepQuorumLost
	// stepPlacedAway: an adopted request whose quorum was placed while the
	// scheduler was away: withdraw it, hold the members, forget the gang.
	stepPlacedAway
	// stepAwaitBooked: the request was provisioned and the members fit the
	// nodes it brought: keep request and booking while the booking holds
	// (read afresh), so the nodes stay the gang's until it binds; once it
	// does not, as stepNoRequest.
	stepAwaitBooked
	// stepNoRequest: the verdict asks for no nodes: withdraw the request,
	// mark the members as noRequestMarks says, report why.
	stepNoRequest
	// stepRequest: the gang is short: have a request for what it lacks
	// (planRequest).
	stepRequest
)

// decide is the step a sync takes for a gang.
func decide(f gangFacts) step {
	switch {
	case f.Members == 0:
		return stepGone
	case f.Want != nil && f.Bound >= f.Want.Min:
		return stepPlaced
	case f.Extras:
		return stepQuorumLost
	case f.Want == nil && f.Adopted && f.Bound >= f.AdoptedMin:
		return stepPlacedAway
	case f.Want == nil:
		return stepKeep
	case !f.Want.Verdict.Ask && f.Want.Verdict.NoReason == shortfall.ReasonFits && f.Booked && f.Live != "":
		return stepAwaitBooked
	case !f.Want.Verdict.Ask:
		return stepNoRequest
	}
	return stepRequest
}

// marking is how a sync marks a gang's unplaced members when it asks for no
// nodes for them.
type marking int

const (
	// markInRoom: the gang fits in room that exists; its marked GPU
	// members consume its in-room name, the others are ordinary pending
	// pods again.
	markInRoom marking = iota
	// markHoldExtras: the quorum is placed; extras are held, or left to
	// spot scale-up where the gang puts them there.
	markHoldExtras
	// markHold: held out of the autoscaler's one-by-one scale-up.
	markHold
)

// noRequestMarks is how members are marked when the verdict's reason for
// asking no nodes is reason.
func noRequestMarks(reason string) marking {
	switch reason {
	case shortfall.ReasonFits:
		// Its GPU members fit in room that exists, and no request is left
		// for them to consume. Those the gang's request (or a hold) marked
		// consume its in-room name (InRoomName): Muster's autoscaler counts
		// them into that room, so it does not remove those nodes as empty
		// while the gang is still placing, and no autoscaler buys nodes
		// for them one by one. Left unmarked, they were ordinary pending
		// pods: when another gang took the room first, the autoscaler
		// bought nodes for them one by one, as many as the pool had left,
		// and so a part of the gang's nodes (make simulate --random 1
		// --seed 9: two of three 8-GPU nodes). Left consuming a name no
		// request has, they counted for nothing, and the room they fit in
		// was scaled down under them. A launcher without a node is the
		// ordinary scale-up's to serve, as once a request is provisioned.
		return markInRoom
	case shortfall.ReasonPlaced:
		return markHoldExtras
	}
	// Members fit now is a passing state; every other reason means no
	// nodes should be added for these members, by Muster's request or one
	// by one.
	return markHold
}

// holdLauncher says whether the members of a short gang that ask for no
// GPUs (a launcher) are held out of the autoscaler's one-by-one scale-up,
// from the conditions of the gang's live request: until the autoscaler
// answers it (Provisioned or Failed set; Accepted alone is no answer), and
// after it failed it because no pool could ever hold the gang (nothing is
// bought for a gang that could never run). Once answered otherwise
// (provisioned, or no pool can add the nodes now) the launcher is the
// ordinary scale-up's: its node comes while the workers' nodes do, or
// before room frees for them, so the workers' GPUs do not sit idle waiting
// for a CPU node bought after them.
func holdLauncher(conds map[string]metav1.Condition) bool {
	if isTrue(conds, autoscalingv1.Failed) {
		return hasReason(conds, autoscalingv1.Failed, ReasonNeverFits)
	}
	_, answered := conds[autoscalingv1.Provisioned]
	return !answered
}

// extrasGoEarly says whether a short gang that puts its members above min
// on spot leaves those to the autoscaler's ordinary scale-up before its
// quorum binds, from the conditions of its live request: once the
// autoscaler provisioned the quorum's nodes and the request has not ended.
// Bought then, the spot nodes boot while the quorum's do, and the gang runs
// at max from its start; bought once the quorum bound (as before), they came
// a boot time later (make simulate-spot: ft-a reached max 10 minutes after
// min), and the quorum's regular nodes paid for those minutes at a slower
// run. Before the answer nothing is bought for extras of a gang that may
// never start.
func extrasGoEarly(conds map[string]metav1.Condition) bool {
	for _, t := range []string{autoscalingv1.BookingExpired, autoscalingv1.Failed, autoscalingv1.CapacityRevoked} {
		if isTrue(conds, t) {
			return false
		}
	}
	return isTrue(conds, autoscalingv1.Provisioned)
}

// requestView is a gang's live request as a sync read it.
type requestView struct {
	// Err is the error reading it gave (not found, for one deleted).
	Err   error
	Conds map[string]metav1.Condition
	// Pods counts the pods over its PodSets.
	Pods int64
	// PoolsWatched: it failed because no pool could ever hold its gang,
	// and the autoscaler recorded the pools it judged that on
	// (contract.DetailPoolsAtFailure), so it flags the request once they
	// change; PoolsChanged: it did.
	PoolsWatched, PoolsChanged bool
}

// end says why the request can no longer bring its gang capacity
// (deleted, Failed, BookingExpired or CapacityRevoked; "" while it can or
// could not be read), that outcome's metric label, and whether it failed
// because no pool could ever hold the gang (ReasonNeverFits).
func (v requestView) end() (why, outcome string, never bool) {
	switch {
	case apierrors.IsNotFound(v.Err):
		return "was deleted", OutcomeDeleted, false
	case v.Err != nil:
		return "", "", false
	case isTrue(v.Conds, autoscalingv1.Failed):
		return "failed: " + v.Conds[autoscalingv1.Failed].Message, OutcomeFailed, v.Conds[autoscalingv1.Failed].Reason == ReasonNeverFits
	case isTrue(v.Conds, autoscalingv1.BookingExpired):
		return "ended its booking: " + v.Conds[autoscalingv1.BookingExpired].Message, OutcomeExpired, false
	case isTrue(v.Conds, autoscalingv1.CapacityRevoked):
		return "had its capacity revoked: " + v.Conds[autoscalingv1.CapacityRevoked].Message, OutcomeRevoked, false
	}
	return "", "", false
}

// covers says the request was provisioned for at least members pods and
// has not ended: the autoscaler is already adding capacity for the gang.
func (v requestView) covers(members int64) bool {
	if v.Err != nil || v.Pods == 0 {
		return false
	}
	for _, t := range []string{autoscalingv1.BookingExpired, autoscalingv1.Failed, autoscalingv1.CapacityRevoked} {
		if isTrue(v.Conds, t) {
			return false
		}
	}
	return isTrue(v.Conds, autoscalingv1.Provisioned) && v.Pods >= members
}

// Backoff is how long a gang whose request ended while it was short waits
// before the request is replaced: First, doubling up to Ceiling; after a
// failure because no pool could ever hold the gang, Ceiling, doubling up to
// NeverFitsCeiling, or, when the autoscaler watches the pools for that
// failure (requestView.PoolsWatched), NeverFitsBackstop, or until it finds
// them changed.
type Backoff struct {
	First, Ceiling, NeverFitsCeiling, NeverFitsBackstop time.Duration
}

// ended is r after the gang's request ended as v says, for why at now
// (never: it failed because no pool could ever hold the gang). noticed says
// this end is the first seen since the last replacement (it starts the
// backoff); due says the replacement is due now, and then next has the
// generation the replacement is named by.
func (r replacement) ended(now time.Time, why string, failed, never bool, v requestView, b Backoff) (next replacement, noticed, due bool) {
	if r.due.IsZero() {
		noticed = true
		r.failed = failed
		if r.wait == 0 {
			r.wait = b.First
		}
		switch {
		case never && v.PoolsWatched && b.NeverFitsBackstop > 0:
			// Only a change to the pools (an operator raising a max,
			// adding a pool) can make the gang fit, and the autoscaler
			// flags the request when it sees one: retry then, and
			// otherwise at the backstop. A backlog of such gangs
			// retried every hour was written again (request, templates,
			// every member's mark) and failed again each time: a week
			// of the simulator's trace ends with 168 of them.
			r.wait = max(r.wait, b.NeverFitsBackstop)
		case never:
			// No pool could hold the gang even at its max size, and no
			// one says when the pools change. Retry at the ceiling and,
			// as long as each retry fails so, at twice the wait up to
			// the never-fits ceiling.
			r.wait = max(r.wait, b.Ceiling)
		default:
			r.wait = min(r.wait, b.Ceiling)
		}
		r.due, r.why, r.never = now.Add(r.wait), why, never
	}
	if r.never && v.PoolsChanged && now.Before(r.due) {
		r.due = now
	}
	if now.Before(r.due) {
		return r, noticed, false
	}
	r.gen++
	r.due = time.Time{}
	if r.never {
		r.wait = min(2*r.wait, max(b.Ceiling, b.NeverFitsCeiling))
	} else {
		r.wait = min(2*r.wait, b.Ceiling)
	}
	return r, noticed, true
}

// nodesMayCome says whether new nodes may still come for a gang whose
// latest verdict is want (nil: none yet), whose request's replacement state
// is r (nil: none of its requests ended) and whose live request cannot be
// served now for the reason notNow ("" when nothing says so: see notNowFor):
// its verdict asks for nodes, the autoscaler has not failed its request (it
// is not waiting out the backoff after that), and its live request may
// still be served. why says why not. A gang with no verdict yet may: its
// first attempt fails before its shortfall is worked out.
func nodesMayCome(want *Want, r *replacement, notNow string) (may bool, why string) {
	switch {
	case want == nil:
		return true, ""
	case !want.Verdict.Ask:
		return false, "no nodes were asked for it: " + want.Verdict.Message
	case r != nil && !r.due.IsZero() && r.failed:
		return false, "its ProvisioningRequest " + r.why
	case notNow != "":
		return false, notNow
	}
	return true, ""
}

// unansweredAfter is how long a ProvisioningRequest may go without a
// condition before the writer takes it that no cluster-autoscaler serves
// ProvisioningRequests in the cluster: one that does sets a condition in
// its first loop after the request appears (every 10 s by default).
const unansweredAfter = 2 * time.Minute

// notNowFor says why a live request cannot be served now ("" when it may
// be): the autoscaler said that no pool can add its nodes now
// (Provisioned=False, CapacityIsNotFound: every pool that could serve it at
// its max, out of quota or backed off), or no autoscaler has answered it
// in unansweredAfter since created (the writer's clock; zero: unknown).
func notNowFor(name string, conds map[string]metav1.Condition, created, now time.Time) string {
	if hasReason(conds, autoscalingv1.Provisioned, autoscalingv1.CapacityIsNotFound) {
		return "the cluster-autoscaler cannot add them now: " + conds[autoscalingv1.Provisioned].Message
	}
	if len(conds) > 0 || created.IsZero() {
		return ""
	}
	if waited := now.Sub(created); waited >= unansweredAfter {
		return fmt.Sprintf("no cluster-autoscaler has answered its ProvisioningRequest %s in %s: none serves ProvisioningRequests here", name, waited.Round(time.Second))
	}
	return ""
}

// requestPlan is what a sync does with a short gang's request.
type requestPlan struct {
	// Name is the request the gang has once the sync is done.
	Name string
	// Wait: the live request ended (Why) and its replacement is not due
	// yet (Replacement.due); members are held until then.
	Wait bool
	// KeepMarks: while it waits, the members keep consuming the ended
	// request, which holds them as HoldName would: it failed or is gone,
	// and no autoscaler provisions for such a request or counts room for
	// its consumers. A gang retried with backoff (one no pool can ever
	// hold, every hour) then costs one mark per member and retry, not two.
	// A request whose booking expired or whose capacity was revoked is
	// live to Muster's autoscaler, which counts room for its consumers:
	// its members are marked held.
	KeepMarks bool
	// Replacing: the live request ended (Why) and Name replaces it now.
	Replacing bool
	Why       string
	// Noticed: the end was first seen in this sync; Outcome is its metric
	// label.
	Noticed bool
	Outcome string
}

// planRequest plans the request of a gang short of shortMembers members
// whose request for today's shortfall is named base: live is its live
// request ("" for none), read as v, and r its replacement state (zero for
// a gang none of whose requests ended). It returns the plan and r as it
// is after the sync.
//
// A request the autoscaler is already serving for at least the members
// short is kept although the shortfall changed: as its nodes arrive the
// shortfall shrinks, and replacing it then would add nodes twice. A request
// that ended is replaced after the backoff, whether or not the shortfall
// changed since: a failure is not retried at once under another name.
func planRequest(base, live string, v requestView, shortMembers int64, r replacement, now time.Time, b Backoff) (requestPlan, replacement) {
	plan := requestPlan{Name: generationName(base, r.gen)}
	if live == "" {
		return plan, r
	}
	if live != plan.Name && v.covers(shortMembers) {
		plan.Name = live
	}
	why, outcome, never := v.end()
	if why == "" {
		if v.Err == nil && isTrue(v.Conds, autoscalingv1.Provisioned) {
			r.wait = 0 // served: the next end starts the backoff afresh
		}
		return plan, r
	}
	r, noticed, due := r.ended(now, why, outcome == OutcomeFailed, never, v, b)
	plan.Why, plan.Outcome, plan.Noticed = why, outcome, noticed
	if !due {
		plan.Name, plan.Wait = live, true
		plan.KeepMarks = outcome == OutcomeFailed || outcome == OutcomeDeleted
		return plan, r
	}
	plan.Name, plan.Replacing = generationName(base, r.gen), true
	return plan, r
}
