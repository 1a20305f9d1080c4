// MusterGang's own reads of a member's cycle (gangstate.Cycle): its attempt token and spec.

package gang

import (
	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/gangstate"
)

// attemptOf is the token of the attempt this cycle's member took part in;
// a cycle whose PreFilter started none saw no change.
func (pl *Gang) attemptOf(state fwk.CycleState, key gang.Key) uint64 {
	if c := gangstate.CycleOf(state); c != nil {
		return c.Attempt
	}
	return pl.tracker.Attempt(key)
}

// specFor returns the spec PreFilter resolved in this cycle, resolving it
// only when PreFilter did not (an ordinary pod, or bad gang input).
func (pl *Gang) specFor(state fwk.CycleState, pod *v1.Pod) (gang.Spec, bool, error) {
	if c := gangstate.CycleOf(state); c != nil {
		return c.Spec, true, nil
	}
	return pl.resolve(pod)
}
