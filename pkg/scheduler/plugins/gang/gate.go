// MusterGangGate: MusterGang's queue gate for the verdicts only pods can change.

package gang

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"

	"github.com/muster-project/muster/pkg/scheduler/gangstate"
)

// GateName is the name of the plugin that holds gang members at the
// queue's gate for what only pods can change.
const GateName = "MusterGangGate"

// Gate serves MusterGang's queue gate for every verdict only a pod can
// change (a gang short of its min members, at its max, with bad input, or
// waiting behind its lead's attempt), and registers pod events alone. The
// queue asks about a gated pod on every event its gating plugin registers:
// gated by MusterGang, whose events include nodes, every held member was
// asked about on every node added, and a muster-scheduler that listed
// 3000 waiting members before 5000 nodes spent most of its first 20-50 s
// there (make bench-scale). A parked lead, which a node can let through,
// is left to MusterGang's own PreEnqueue. Without this plugin MusterGang's
// PreEnqueue gates every member itself.
type Gate struct {
	state *gangstate.State
}

var (
	_ fwk.PreEnqueuePlugin  = &Gate{}
	_ fwk.EnqueueExtensions = &Gate{}
)

// NewGate is the plugin's factory: it serves the gate of the MusterGang of
// its profile (in set), and takes no args.
func NewGate(set *gangstate.Set) frameworkruntime.PluginFactory {
	return func(_ context.Context, _ runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		state := set.For(h)
		state.ServeGate()
		return &Gate{state: state}, nil
	}
}

// Name returns the plugin name.
func (g *Gate) Name() string { return GateName }

// PreEnqueue returns MusterGang's verdict on pod where only a pod can
// change it, and lets the rest through to MusterGang's PreEnqueue.
func (g *Gate) PreEnqueue(ctx context.Context, pod *v1.Pod) *fwk.Status {
	gate, ok := g.state.Gate()
	if !ok {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, noGang().Error())
	}
	return gate.Judge(ctx, pod)
}

// EventsToRegister are MusterGang's pod events. The scheduler asks once its
// profiles' plugins are built: a profile without MusterGang fails to start.
func (g *Gate) EventsToRegister(context.Context) ([]fwk.ClusterEventWithHint, error) {
	gate, ok := g.state.Gate()
	if !ok {
		return nil, noGang()
	}
	return gate.Events, nil
}

// noGang says a profile runs MusterGangGate without MusterGang.
func noGang() error {
	return fmt.Errorf("%s serves %s's gate, which its profile does not run: enable %s too, at preEnqueue and the other points the shipped configuration names", GateName, Name, Name)
}
