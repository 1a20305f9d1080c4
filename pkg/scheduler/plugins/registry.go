// Package plugins lists Muster's scheduler plugins, so the muster-scheduler
// command and the in-process control plane register the same set, and run
// the controllers they build beside the scheduler.
package plugins

import (
	"context"
	"sort"

	v1 "k8s.io/api/core/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
	"k8s.io/kubernetes/pkg/features"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/utils/clock"

	"github.com/muster-project/muster/pkg/scheduler/gangstate"
	gangplugin "github.com/muster-project/muster/pkg/scheduler/plugins/gang"
	"github.com/muster-project/muster/pkg/scheduler/plugins/gputopology"
)

// Muster is Muster's plugins for one scheduler: their registry, and what
// the scheduler's driver (muster simulate, the test harness) asks of them.
// The plugins of each profile share one gangstate.State, and nothing with
// another scheduler's.
type Muster struct {
	set      *gangstate.Set
	registry frameworkruntime.Registry
}

// New is Muster's plugins on wall time.
func New() *Muster {
	set := gangstate.NewSet()
	return &Muster{set: set, registry: frameworkruntime.Registry{
		gangplugin.Name:     gangplugin.New(set),
		gangplugin.GateName: gangplugin.NewGate(set),
		gputopology.Name:    gputopology.New(set),
	}}
}

// NewOn is Muster's plugins with their timers and ages on c instead of wall
// time: muster simulate's trace clock.
func NewOn(c clock.WithDelayedExecution) *Muster {
	set := gangstate.NewSet()
	return &Muster{set: set, registry: frameworkruntime.Registry{
		gangplugin.Name:     gangplugin.NewOn(set, c),
		gangplugin.GateName: gangplugin.NewGate(set),
		gputopology.Name:    gputopology.NewOn(set, c),
	}}
}

// Registry is m's plugins by name, as an out-of-tree registry (upstream's
// scheduler_perf takes one). Whoever runs the scheduler runs m's
// controllers beside it (RunControllers).
func (m *Muster) Registry() frameworkruntime.Registry { return m.registry }

// RunControllers runs, beside the scheduler, the writers m's plugins build:
// gang status, pod marks and ProvisioningRequests, for every profile and
// every scheduler built from m's registry, until ctx or the scheduler's
// context ends (gangstate.Set.RunControllers). Without it the plugins
// schedule, but write nothing to the API.
func (m *Muster) RunControllers(ctx context.Context) { m.set.RunControllers(ctx) }

// Options registers m's plugins with the scheduler command; run
// RunControllers beside it.
func (m *Muster) Options() []app.Option {
	names := make([]string, 0, len(m.registry))
	for name := range m.registry {
		names = append(names, name)
	}
	sort.Strings(names)
	opts := make([]app.Option, 0, len(names))
	for _, name := range names {
		opts = append(opts, app.WithPlugin(name, m.registry[name]))
	}
	return opts
}

// WritesPending names what the Muster plugins of the profile with handle h
// still owe the API ("" when nothing): gang status and pod marks, or, with
// hints, ProvisioningRequests. muster simulate's test of a quiet step.
func (m *Muster) WritesPending(h fwk.Handle, hints bool) string {
	st, ok := m.set.Lookup(h)
	if !ok {
		return ""
	}
	return st.WritesPending(hints)
}

// HintsOwed says whether the ProvisioningRequest writer of the profile
// with handle h owes a sync for a new verdict: muster simulate, whose
// writer syncs when kicked, kicks it then.
func (m *Muster) HintsOwed(h fwk.Handle) bool {
	st, ok := m.set.Lookup(h)
	return ok && st.HintsOwed()
}

// Evicting lists the pods the profile's MusterGang evicted to make room and
// has not yet seen deleted (nil: none, or no MusterGang).
func (m *Muster) Evicting(h fwk.Handle) []*v1.Pod {
	st, ok := m.set.Lookup(h)
	if !ok {
		return nil
	}
	return st.Evicting()
}

// HintSyncs counts the ProvisioningRequest syncs of the profile's Muster
// plugins begun, and the last one ended, and the gangs holding a booking
// (provisioning.Writer.Syncs); ok is false when they write none.
func (m *Muster) HintSyncs(h fwk.Handle) (begun, done uint64, booked int, ok bool) {
	st, ok := m.set.Lookup(h)
	if !ok {
		return 0, 0, 0, false
	}
	w, ok := st.Requests()
	if !ok {
		return 0, 0, 0, false
	}
	begun, done, booked = w.Syncs()
	return begun, done, booked, true
}

// HintRequestsSeen is the resource version of the last ProvisioningRequest
// change the informer of the profile's hint writer has seen; informed is
// false when it reads requests from the API (or writes none).
func (m *Muster) HintRequestsSeen(h fwk.Handle) (resourceVersion string, informed bool) {
	if st, ok := m.set.Lookup(h); ok {
		if w, ok := st.Requests(); ok {
			return w.RequestsSeen()
		}
	}
	return "", false
}

// KickHints has the profile's ProvisioningRequest writer sync now rather
// than when its period is up (provisioning.Writer.Kick): muster simulate does when
// it sees a request change, as a step waits for a sync after each.
func (m *Muster) KickHints(h fwk.Handle) {
	if st, ok := m.set.Lookup(h); ok {
		if w, ok := st.Requests(); ok {
			w.Kick()
		}
	}
}

// SetFeatureDefaults turns off, as the binary's default, the kube-scheduler
// features that cost Muster's gangs without serving them; a
// --feature-gates flag parsed afterwards still decides.
//
// NominatedNodeNameForExpectation writes status.nominatedNodeName of every
// member before it waits at Permit, to tell a cluster-autoscaler that the
// pod is about to bind there. Muster's members wait at Permit until their
// quorum is placed, and Muster tells its autoscaler of them itself (gang
// room, ProvisioningRequest bookings); the write is one more API call and
// pod update per member, which slowed big gangs by about a fifth in
// `make bench` (gang64: 1953 status patches for 1984 pods).
//
// GenericWorkload (and TopologyAwareWorkloadScheduling, which needs it) stay
// off in muster-scheduler even where the API server and kube-scheduler turn
// them on: MusterGang reads upstream's PodGroups itself, and with the
// feature on the framework would run its own pod-group cycle and
// GangScheduling on the same pods (MusterGang refuses to start then).
func SetFeatureDefaults() error {
	return utilfeature.DefaultMutableFeatureGate.SetFromMap(map[string]bool{
		string(features.NominatedNodeNameForExpectation): false,
		string(features.TopologyAwareWorkloadScheduling): false,
		string(features.GenericWorkload):                 false,
	})
}
