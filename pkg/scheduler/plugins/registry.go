// Package plugins lists Muster's scheduler plugins, so the muster-scheduler
// command and the in-process test harness register the same set.
package plugins

import (
	"sort"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
	"k8s.io/kubernetes/pkg/features"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/utils/clock"

	gangplugin "github.com/muster-project/muster/pkg/scheduler/plugins/gang"
	"github.com/muster-project/muster/pkg/scheduler/plugins/gputopology"
)

// Registry is every Muster plugin by name, as an out-of-tree registry
// (upstream's scheduler_perf takes one).
func Registry() frameworkruntime.Registry {
	return frameworkruntime.Registry{
		gangplugin.Name:  gangplugin.New,
		gputopology.Name: gputopology.New,
	}
}

// RegistryOn is Registry with the plugins' timers and ages on c instead of
// wall time: muster simulate's trace clock.
func RegistryOn(c clock.WithDelayedExecution) frameworkruntime.Registry {
	return frameworkruntime.Registry{
		gangplugin.Name:  gangplugin.NewOn(c),
		gputopology.Name: gputopology.NewOn(c),
	}
}

// WritesPending names what the profile's Muster plugins still owe the API
// ("" when nothing): gang status and pod marks, or ProvisioningRequests.
// muster simulate's test of a quiet step.
func WritesPending(h fwk.Handle) string {
	switch {
	case !gangplugin.WritesSettled(h):
		return gangplugin.Name + "'s gang status and pod marks"
	case !gputopology.HintsSettled(h):
		return gputopology.Name + "'s ProvisioningRequests"
	}
	return ""
}

// HintSyncs counts the ProvisioningRequest syncs of the profile's Muster
// plugins begun, and the last one ended, and the gangs holding a booking
// (hints.Writer.Syncs); ok is false when they write none.
func HintSyncs(h fwk.Handle) (begun, done uint64, booked int, ok bool) {
	return gputopology.HintSyncs(h)
}

// KickHints has the profile's ProvisioningRequest writer sync now rather
// than when its period is up (hints.Writer.Kick): muster simulate does when
// it sees a request change, as a step waits for a sync after each.
func KickHints(h fwk.Handle) { gputopology.KickHints(h) }

// Options registers every Muster plugin with the scheduler command.
func Options() []app.Option { return optionsOf(Registry()) }

// OptionsOn registers every Muster plugin on clock c (RegistryOn).
func OptionsOn(c clock.WithDelayedExecution) []app.Option { return optionsOf(RegistryOn(c)) }

func optionsOf(r frameworkruntime.Registry) []app.Option {
	names := make([]string, 0, len(r))
	for name := range r {
		names = append(names, name)
	}
	sort.Strings(names)
	opts := make([]app.Option, 0, len(names))
	for _, name := range names {
		opts = append(opts, app.WithPlugin(name, r[name]))
	}
	return opts
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
