// Package plugins lists Muster's scheduler plugins, so the muster-scheduler
// command and the in-process test harness register the same set.
package plugins

import (
	"k8s.io/kubernetes/cmd/kube-scheduler/app"

	gangplugin "github.com/muster-project/muster/pkg/scheduler/plugins/gang"
	"github.com/muster-project/muster/pkg/scheduler/plugins/gputopology"
)

// Options registers every Muster plugin with the scheduler command.
func Options() []app.Option {
	return []app.Option{
		app.WithPlugin(gangplugin.Name, gangplugin.New),
		app.WithPlugin(gputopology.Name, gputopology.New),
	}
}
