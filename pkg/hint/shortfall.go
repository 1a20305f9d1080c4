// Package hint decides, as plain code, what a gang that cannot be placed is
// short of, so that the cluster-autoscaler adds exactly those nodes: the
// members that do not fit in the best placement the topology rules allow,
// never the members that do, never members beyond max, and nothing at all for
// a gang that new nodes would not help.
package hint

import (
	"fmt"
	"sort"
)

// Gang is what the scheduler knows of a gang when it decides on a hint.
type Gang struct {
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
	// Unfixable, when set, is why members fit no node for a reason new nodes
	// cannot change (e.g. pinned to a node that does not exist).
	Unfixable string
}

// Shortfall is a hint's content: Members more members, in Domain of Level
// when a level is required.
type Shortfall struct {
	Members int64
	Level   string
	Domain  string
}

// Reasons a gang gets no hint.
const (
	NoHintInvalid   = "InvalidSpec"
	NoHintQuorum    = "AwaitingQuorum"
	NoHintPlaced    = "QuorumPlaced"
	NoHintFits      = "Fits"
	NoHintLevel     = "LevelNotProvisionable"
	NoHintUnfixable = "NotFixableByNodes"
)

// Verdict is a hint decision: a Shortfall, or the reason there is none.
type Verdict struct {
	Hint     bool
	Short    Shortfall
	NoReason string
	Message  string
}

// Decide returns what g lacks.
func Decide(g Gang) Verdict {
	switch {
	case g.Invalid != nil:
		return none(NoHintInvalid, "the gang's spec is invalid (%v); new nodes would not help", g.Invalid)
	case g.Exists < g.Min:
		return none(NoHintQuorum, "%d of min %d members exist; no nodes are asked for until the quorum exists", g.Exists, g.Min)
	case g.Placed >= g.Min:
		return none(NoHintPlaced, "the quorum is placed; members beyond min (max %d) wait for room, no nodes are asked for them", g.Max)
	case g.Unfixable != "":
		return none(NoHintUnfixable, "members fit no node for a reason new nodes cannot fix: %s", g.Unfixable)
	case g.Level != "" && !g.Provisionable:
		return none(NoHintLevel, "the gang requires one %s, and nodes the autoscaler adds cannot join an existing %s", g.Level, g.Level)
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
		return none(NoHintFits, "%d more members fit now", room)
	}
	s := Shortfall{Members: need - room, Level: g.Level, Domain: domain}
	where := ""
	if g.Level != "" && domain != "" {
		where = fmt.Sprintf(" in %s %s", g.Level, domain)
	}
	return Verdict{Hint: true, Short: s, Message: fmt.Sprintf("short %d of %d members%s (room for %d)", s.Members, need, where, room)}
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
