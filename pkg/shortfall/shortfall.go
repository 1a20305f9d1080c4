// Package shortfall decides, as plain code, what a gang that cannot be placed is
// short of, so that the cluster-autoscaler adds exactly those nodes: the
// members that do not fit in the best placement the topology rules allow,
// never the members that do, never members beyond max, and nothing at all for
// a gang that new nodes would not help.
package shortfall

import (
	"fmt"
	"sort"
)

// Facts is what the scheduler knows of a gang when it decides what to ask
// the autoscaler for.
type Facts struct {
	Min, Max int64
	// Exists counts the members that exist, Placed those bound or holding a
	// reservation.
	Exists, Placed int64
	// Invalid is the gang's bad input, if any.
	Invalid error
	// Level is the required topology level's name ("" for none); Provisionable
	// says whether nodes the autoscaler adds join a domain of that level
	// (they carry its label, e.g. zone or placement group).
	Level         string
	Provisionable bool
	// Room is how many more members fit now: per domain of the required level,
	// or under "" for the whole cluster when no level is required.
	Room map[string]int64
	// Anywhere is how many of the members counted in every domain's Room
	// need no room in the domain (members without GPUs, which may sit
	// outside it): a domain whose Room is no more than that has nothing to
	// build on.
	Anywhere int64
	// Shed counts the members above min of other gangs whose room Room
	// counts as the gang's: once the nodes come, they are shed for it.
	Shed int
	// Unfixable, when set, is why members fit no node for a reason new nodes
	// cannot change (e.g. pinned to a node that does not exist).
	Unfixable string
}

// Need is what a gang asks the autoscaler for: Members more members, in
// Domain of Level when a level is required.
type Need struct {
	Members int64
	Level   string
	Domain  string
}

// Reasons a gang asks for nothing.
const (
	ReasonInvalid   = "InvalidSpec"
	ReasonQuorum    = "AwaitingQuorum"
	ReasonPlaced    = "QuorumPlaced"
	ReasonFits      = "Fits"
	ReasonLevel     = "LevelNotProvisionable"
	ReasonUnfixable = "NotFixableByNodes"
)

// Verdict is the decision: Ask for a Need, or the reason to ask for nothing.
type Verdict struct {
	Ask      bool
	Short    Need
	NoReason string
	Message  string
}

// Decide returns what g lacks.
func Decide(g Facts) Verdict {
	switch {
	case g.Invalid != nil:
		return none(ReasonInvalid, "the gang's spec is invalid (%v); new nodes would not help", g.Invalid)
	case g.Exists < g.Min:
		return none(ReasonQuorum, "%d of min %d members exist; no nodes are asked for until the quorum exists", g.Exists, g.Min)
	case g.Placed >= g.Min:
		return none(ReasonPlaced, "the quorum is placed; members beyond min (max %d) wait for room, no nodes are asked for them", g.Max)
	case g.Unfixable != "":
		return none(ReasonUnfixable, "members fit no node for a reason new nodes cannot fix: %s", g.Unfixable)
	case g.Level != "" && !g.Provisionable:
		return none(ReasonLevel, "the gang requires one %s, and nodes the autoscaler adds cannot join an existing %s", g.Level, g.Level)
	}
	need := g.Min - g.Placed
	domain, room, _ := best(g.Room)
	if room <= g.Anywhere {
		// No domain has room to build on: new nodes form one (an
		// all-or-nothing scale-up adds them to one pool), wherever the
		// autoscaler can put them.
		domain = ""
	}
	if room >= need {
		return none(ReasonFits, "%d more members fit now", room)
	}
	s := Need{Members: need - room, Level: g.Level, Domain: domain}
	where := ""
	if g.Level != "" && domain != "" {
		where = fmt.Sprintf(" in %s %s", g.Level, domain)
	}
	counting := ""
	if g.Shed > 0 {
		counting = fmt.Sprintf(", counting the room of %d members above min of other gangs, shed once the nodes come", g.Shed)
	}
	return Verdict{Ask: true, Short: s, Message: fmt.Sprintf("short %d of %d members%s (room for %d%s)", s.Members, need, where, room, counting)}
}

// best returns the domain with the most room, ties broken by name.
func best(room map[string]int64) (string, int64, bool) {
	names := make([]string, 0, len(room))
	for n := range room {
		names = append(names, n)
	}
	sort.Strings(names)
	var bestName string
	var bestRoom int64 = -1
	for _, n := range names {
		if room[n] > bestRoom {
			bestName, bestRoom = n, room[n]
		}
	}
	if bestRoom < 0 {
		return "", 0, false
	}
	return bestName, bestRoom, true
}

func none(reason, format string, args ...any) Verdict {
	return Verdict{NoReason: reason, Message: fmt.Sprintf(format, args...)}
}
