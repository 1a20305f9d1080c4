package gang

import (
	"sync"
	"sync/atomic"

	fwk "k8s.io/kube-scheduler/framework"
)

// Only the leader writes. kube-scheduler runs scheduling cycles on the
// elected leader only, while a standby's informers, scheduling queue and
// PreEnqueue plugins run as well: a standby would otherwise write status,
// events, annotations and requests from its own view of gangs it does not
// schedule. So a replica writes nothing until it has run a scheduling cycle
// (PreFilter of either Muster plugin), which only the leader does. A leader
// with no pod to schedule has nothing to write about its gangs either until
// one arrives; a standby taking over writes once it schedules.
var leaders sync.Map // fwk.Handle -> *atomic.Bool

// Leading is the profile's flag, shared by its plugins whichever is built
// first: set once the profile runs a scheduling cycle.
func Leading(h fwk.Handle) *atomic.Bool {
	v, _ := leaders.LoadOrStore(h, new(atomic.Bool))
	return v.(*atomic.Bool)
}

// MarkLeading records that this replica schedules. It is called on every
// cycle, so it writes the flag only the first time; plugins built without a
// handle (unit tests) have none.
func MarkLeading(flag *atomic.Bool) {
	if flag != nil && !flag.Load() {
		flag.Store(true)
	}
}
