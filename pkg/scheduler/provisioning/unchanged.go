// Gangs whose sync would change nothing: skipped until what they act on changes.

package provisioning

import (
	"hash/maphash"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/muster-project/muster/pkg/gang"
)

// unchangedResync bounds how long a gang's sync is skipped as unchanged
// (on the writer's clock): what the inputs do not cover (a gang status
// lost to a rewrite of its PodGroup) is put right within it.
const unchangedResync = 5 * time.Minute

// gangInputs is what one gang's sync acts on. A sync that met no error and
// left the writer's state of the gang as it found it would, on the same
// inputs, do the same again: the same request kept, the same marks and
// condition, each already written. A backlog of gangs no pool can serve,
// reconciled every sync, made each sync's cost grow with the backlog
// (muster simulate --trace-for 24h, a gang that never fits each hour).
type gangInputs struct {
	state gangState
	// request is the live request's resourceVersion as the Sync read it.
	request string
	// members hashes the members (membersSeed); count counts them.
	members uint64
	count   int
}

// unchangedGang is a gang's last sync that changed nothing: what it acted
// on, and when skipping it ends (the resync, or sooner the time a
// replacement is due).
type unchangedGang struct {
	in    gangInputs
	until time.Time
}

// gangState is the writer's state of one gang; wantAt is when (in sets)
// its verdict last changed.
type gangState struct {
	wantAt                  uint64
	live                    string
	wanted, adopted, placed bool
	adoptedMin              int64
	booked                  bool
	bookedGPUs              int64
	bookedNodes             int
	replaced                bool
	replacement             replacement
	notNow                  string
}

// stateLocked is the writer's state of gang k; w.mu is held.
func (w *Writer) stateLocked(k gang.Key) gangState {
	s := gangState{wantAt: w.wantAt[k], live: w.live[k], notNow: w.notNow[k]}
	_, s.wanted = w.want[k]
	s.adoptedMin, s.adopted = w.adoptedMin[k]
	_, s.placed = w.placed[k]
	if b, ok := w.booked[k]; ok {
		s.booked, s.bookedGPUs, s.bookedNodes = true, b.GPUs, len(b.Nodes)
	}
	if r, ok := w.replaced[k]; ok {
		s.replaced, s.replacement = true, *r
	}
	return s
}

// inputsOf is what gang k's sync acts on, and false when its outcome may
// hang on more than that: the live request was not read from the
// informer, or no autoscaler has answered it yet (that turns, in time,
// into "none serves ProvisioningRequests here").
func (w *Writer) inputsOf(k gang.Key, state gangState, members []*v1.Pod) (gangInputs, bool) {
	in := gangInputs{state: state, count: len(members)}
	if state.live != "" {
		f, ok := w.fetched[types.NamespacedName{Namespace: k.Namespace, Name: state.live}]
		switch {
		case !ok:
			return in, false
		case f.err != nil:
			in.request = "-"
		default:
			if conds, _, _ := unstructured.NestedSlice(f.u.Object, "status", "conditions"); len(conds) == 0 {
				return in, false
			}
			in.request = f.u.GetResourceVersion()
		}
	}
	for _, p := range members {
		// A change to a pod changes its resourceVersion; what the sync
		// reads of it is named too, for pods not from the API.
		var h maphash.Hash
		h.SetSeed(w.membersSeed)
		h.WriteString(string(p.UID))
		h.WriteString(p.ResourceVersion)
		h.WriteString(p.Spec.NodeName)
		if p.DeletionTimestamp != nil {
			h.WriteByte(1)
		}
		in.members += h.Sum64() // in any order
	}
	return in, true
}

// unchangedSince says whether gang k's last sync that changed nothing
// acted on in, and skipping it has not ended.
func (w *Writer) unchangedSince(k gang.Key, in gangInputs) bool {
	last, ok := w.unchanged[k]
	return ok && last.in == in && w.now().Before(last.until)
}

// changedNothing records that gang k's sync, acting on in, changed nothing.
func (w *Writer) changedNothing(k gang.Key, in gangInputs) {
	until := w.now().Add(unchangedResync)
	if due := in.state.replacement.due; !due.IsZero() && due.Before(until) {
		until = due
	}
	w.unchanged[k] = unchangedGang{in: in, until: until}
}
