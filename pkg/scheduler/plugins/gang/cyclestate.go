// What one scheduling cycle of a gang member carries: its spec, attempt token and narrowing marks.

package gang

import (
	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/muster-project/muster/pkg/gang"
)

// specStateKey carries the spec PreFilter resolved to PostFilter and Permit
// of the same cycle, so each member's spec is read once per attempt.
const specStateKey fwk.StateKey = Name + "/spec"

type cycleSpec struct {
	spec gang.Spec
	// mayNarrow: MusterTopology may confine this member to the nodes that
	// already hold its gang's quorum members (see MayNarrowToGang); narrowed:
	// it did, so a failure to fit there is not the gang's failure.
	mayNarrow, narrowed bool
	// attempt is the tracker's token for this cycle's attempt (Attempt);
	// failed: PreFilter already failed the attempt.
	attempt uint64
	failed  bool
}

// Clone shares the state: the cycle's plugins see one another's marks.
func (c *cycleSpec) Clone() fwk.StateData { return c }

// MayNarrowToGang says whether MusterTopology may evaluate this member on
// its gang's own nodes only. A member of a gang placing its quorum would
// score those nodes highest anyway; with the framework filtering and
// scoring a handful of nodes instead of all of them, a big gang's members
// schedule almost as fast as plain pods. It may not when room is held for
// gangs ahead in the capacity plan (the gang's nodes may be held), or when
// this member already failed on its gang's nodes.
func MayNarrowToGang(state fwk.CycleState) bool {
	d, err := state.Read(specStateKey)
	return err == nil && d.(*cycleSpec).mayNarrow
}

// NarrowedToGang records that MusterTopology confined this cycle's member
// to its gang's nodes, so that not fitting there is not the gang's failure.
func NarrowedToGang(state fwk.CycleState) {
	if d, err := state.Read(specStateKey); err == nil {
		d.(*cycleSpec).narrowed = true
	}
}

// NarrowedCycle reports whether MusterTopology narrowed this cycle: a
// member that fits none of its gang's nodes is then tried on every node
// before its gang's attempt fails.
func NarrowedCycle(state fwk.CycleState) bool {
	d, err := state.Read(specStateKey)
	return err == nil && d.(*cycleSpec).narrowed
}

// SpecFromCycleState returns the gang spec MusterGang's PreFilter resolved
// for this cycle's pod, so plugins that run after it (MusterTopology) read
// the gang's asks without resolving them again. ok is false for a pod that
// is not a gang member or whose spec is bad input.
func SpecFromCycleState(state fwk.CycleState) (spec gang.Spec, ok bool) {
	if cs := cycleOf(state); cs != nil {
		return cs.spec, true
	}
	return gang.Spec{}, false
}

// attemptOf is the token of the attempt this cycle's member took part in;
// a cycle whose PreFilter started none saw no change.
func (pl *Gang) attemptOf(state fwk.CycleState, key gang.Key) uint64 {
	if cs := cycleOf(state); cs != nil {
		return cs.attempt
	}
	return pl.tracker.Attempt(key)
}

// cycleOf is what MusterGang's PreFilter recorded for this cycle, nil if
// it recorded nothing.
func cycleOf(state fwk.CycleState) *cycleSpec {
	d, err := state.Read(specStateKey)
	if err != nil {
		return nil
	}
	return d.(*cycleSpec)
}

// StoreSpec records spec as the cycle's gang spec, as PreFilter does. Plugins
// that read SpecFromCycleState use it in tests that run without MusterGang.
func StoreSpec(state fwk.CycleState, spec gang.Spec) {
	state.Write(specStateKey, &cycleSpec{spec: spec})
}

// specFor returns the spec PreFilter resolved in this cycle, resolving it
// only when PreFilter did not (an ordinary pod, or bad gang input).
func (pl *Gang) specFor(state fwk.CycleState, pod *v1.Pod) (gang.Spec, bool, error) {
	if d, err := state.Read(specStateKey); err == nil {
		return d.(*cycleSpec).spec, true, nil
	}
	return pl.resolve(pod)
}
