// What one scheduling cycle of a gang member carries between the extension points of the profile's Muster plugins.

package gangstate

import (
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/muster-project/muster/pkg/capacity"
	"github.com/muster-project/muster/pkg/gang"
)

// CycleKey carries what MusterGang's PreFilter resolved for a member's
// cycle to its PostFilter and Permit and to MusterTopology, so each
// member's spec is read once per attempt.
const CycleKey fwk.StateKey = "MusterGang/spec"

// HeldKey carries what MusterGang's PreFilter read of the capacity plan
// for a member's cycle: its Filter keeps the member off room held for
// others, and MusterTopology chooses the gang's domain in what is left.
const HeldKey fwk.StateKey = "MusterGang/held"

// Cycle is a gang member's scheduling cycle, as MusterGang's PreFilter
// records it.
type Cycle struct {
	Spec gang.Spec
	// MayNarrow: MusterTopology may confine this member to the nodes that
	// already hold its gang's quorum members (see MayNarrowToGang);
	// Narrowed: it did, so a failure to fit there is not the gang's failure.
	MayNarrow, Narrowed bool
	// Attempt is the gang tracker's token for this cycle's attempt;
	// Failed: PreFilter already failed the attempt.
	Attempt uint64
	Failed  bool
	// Sheddable lists the members above min of other gangs that this
	// gang may shed but that, shed alone, do not make room for its quorum
	// (MusterGang's PostFilter): MusterTopology counts their room as the
	// gang's when it works out what to ask new nodes for.
	Sheddable []capacity.Member
}

// Clone shares the state: the cycle's plugins see one another's marks.
func (c *Cycle) Clone() fwk.StateData { return c }

// CycleOf is what MusterGang's PreFilter recorded for this cycle, nil if it
// recorded nothing (not a gang member, or bad gang input).
func CycleOf(state fwk.CycleState) *Cycle {
	d, err := state.Read(CycleKey)
	if err != nil {
		return nil
	}
	return d.(*Cycle)
}

// SpecFromCycleState returns the gang spec MusterGang's PreFilter resolved
// for this cycle's pod, so plugins that run after it (MusterTopology) read
// the gang's asks without resolving them again. ok is false for a pod that
// is not a gang member or whose spec is bad input.
func SpecFromCycleState(state fwk.CycleState) (spec gang.Spec, ok bool) {
	if c := CycleOf(state); c != nil {
		return c.Spec, true
	}
	return gang.Spec{}, false
}

// StoreSpec records spec as the cycle's gang spec, as MusterGang's
// PreFilter does: tests of plugins that read it run without MusterGang.
func StoreSpec(state fwk.CycleState, spec gang.Spec) {
	state.Write(CycleKey, &Cycle{Spec: spec})
}

// MayNarrowToGang says whether MusterTopology may evaluate this member on
// its gang's own nodes only. A member of a gang placing its quorum would
// score those nodes highest anyway; with the framework filtering and
// scoring a handful of nodes instead of all of them, a big gang's members
// schedule almost as fast as plain pods. It may not when room is held for
// gangs ahead in the capacity plan (the gang's nodes may be held), or when
// this member already failed on its gang's nodes.
func MayNarrowToGang(state fwk.CycleState) bool {
	c := CycleOf(state)
	return c != nil && c.MayNarrow
}

// NarrowedToGang records that MusterTopology confined this cycle's member
// to its gang's nodes, so that not fitting there is not the gang's failure.
func NarrowedToGang(state fwk.CycleState) {
	if c := CycleOf(state); c != nil {
		c.Narrowed = true
	}
}

// NarrowedCycle reports whether MusterTopology narrowed this cycle: a
// member that fits none of its gang's nodes is then tried on every node
// before its gang's attempt fails.
func NarrowedCycle(state fwk.CycleState) bool {
	c := CycleOf(state)
	return c != nil && c.Narrowed
}

// Held is what MusterGang's PreFilter read of the capacity plan for one
// member: the room held for gangs served before the member's, the member's
// shape, and why it may not use spot nodes ("" when it may,
// capacity.SpotRule).
type Held struct {
	Held  capacity.Held
	Shape *capacity.Shape
	Spot  string
}

// Clone shares the state: it is not modified after PreFilter.
func (h *Held) Clone() fwk.StateData { return h }

// HeldOf is what MusterGang's PreFilter read of the plan for this cycle,
// nil when nothing is held and the member may use spot nodes.
func HeldOf(state fwk.CycleState) *Held {
	d, err := state.Read(HeldKey)
	if err != nil {
		return nil
	}
	return d.(*Held)
}

// HeldFromCycleState returns the room the capacity plan holds for gangs
// served before this cycle's member's gang, as MusterGang's PreFilter read
// it: MusterTopology chooses the gang's domain in what is left.
func HeldFromCycleState(state fwk.CycleState) capacity.Held {
	if h := HeldOf(state); h != nil {
		return h.Held
	}
	return capacity.Held{}
}

// StoreHeld records held as the room held for gangs ahead of this cycle's
// member's, as MusterGang's PreFilter does, for tests of plugins that read it.
func StoreHeld(state fwk.CycleState, held capacity.Held) {
	state.Write(HeldKey, &Held{Held: held})
}
