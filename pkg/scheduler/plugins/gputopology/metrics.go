// The MusterTopology metric counting gang domain choices by outcome and level.

package gputopology

import (
	"sync"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
)

// domainDecisions counts gang domain choices by outcome and level, so an
// operator sees how tightly gangs land and how often one does not fit. One
// count per gang attempt, never per member: a count that tracks pods rather
// than gangs means the choice is being redone.
var domainDecisions = metrics.NewCounterVec(&metrics.CounterOpts{
	Namespace:      "muster",
	Subsystem:      "topology",
	Name:           "domain_decisions_total",
	Help:           "Gang topology domain decisions, by result (chosen, unschedulable) and the level chosen.",
	StabilityLevel: metrics.ALPHA,
}, []string{"result", "level"})

var registerOnce sync.Once

func registerMetrics() {
	registerOnce.Do(func() { legacyregistry.MustRegister(domainDecisions) })
}
