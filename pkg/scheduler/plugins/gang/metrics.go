// The gang metrics: quorum wait times, evictions, and the collector of gangs by phase.

package gang

import (
	"sort"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"

	"github.com/muster-project/muster/pkg/gang"
)

// Gang metrics. Labels are closed sets (phases, reasons, sources), never gang
// or pod names, so a cluster with many gangs keeps few series.
var (
	quorumWait = metrics.NewHistogramVec(&metrics.HistogramOpts{
		Namespace: "muster",
		Subsystem: "gang",
		Name:      "quorum_wait_seconds",
		Help: "How long gangs waited for their quorum: from their first member's creation to their min-th member's bind, " +
			"by gang source (podgroup, labels). Counted once per gang by the leader that saw the quorum bind.",
		Buckets:        metrics.ExponentialBuckets(0.25, 2, 17), // 0.25 s .. 4.5 h
		StabilityLevel: metrics.ALPHA,
	}, []string{"source"})
	evictions = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace: "muster",
		Subsystem: "gang",
		Name:      "evictions_total",
		Help: "Gang members Muster evicted, by reason: MembersShed (elastic members above min, for a waiting quorum), " +
			"Preempted (whole lower-priority gangs), StrandedMembersEvicted (members left below min past the gang's timeout), SpotReclaimed (members on a reclaimed spot node).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"reason"})
	gangsDesc = metrics.NewDesc("muster_gangs",
		"Gangs the leading scheduler tracks, by phase (Pending, Scheduling, Running, Finished, Failed, Unknown), read at scrape time.",
		[]string{"phase"}, nil, metrics.ALPHA, "")

	registerOnce sync.Once
	// phaseSources are the live status writers the muster_gangs gauge
	// reads at scrape time: a collector registered once per process reads
	// every scheduler's, as statemetrics' does.
	phaseSources sync.Map // *statusWriter -> struct{}
)

func registerMetrics() {
	registerOnce.Do(func() {
		legacyregistry.MustRegister(quorumWait, evictions)
		legacyregistry.CustomMustRegister(&gangsCollector{})
	})
}

// gangsCollector counts the gangs of every profile's status writer by the
// phase it last wrote.
type gangsCollector struct{ metrics.BaseStableCollector }

func (*gangsCollector) DescribeWithStability(ch chan<- *metrics.Desc) { ch <- gangsDesc }

func (*gangsCollector) CollectWithStability(ch chan<- metrics.Metric) {
	counts := map[string]int{}
	phaseSources.Range(func(k, _ any) bool {
		for phase, n := range k.(*statusWriter).phaseCounts() {
			counts[phase] += n
		}
		return true
	})
	phases := make([]string, 0, len(counts))
	for p := range counts {
		phases = append(phases, p)
	}
	sort.Strings(phases)
	for _, p := range phases {
		ch <- metrics.NewLazyConstMetric(gangsDesc, metrics.GaugeValue, float64(counts[p]), p)
	}
}

// quorumBoundAt is when the min-th of a gang's bound members was bound (its
// PodScheduled condition turned true), zero if fewer than min are bound or
// a bound member does not say when.
func quorumBoundAt(members []*v1.Pod, min int32) time.Time {
	var at []time.Time
	for _, m := range members {
		if m.Spec.NodeName == "" || !gang.Live(m) {
			continue
		}
		for _, c := range m.Status.Conditions {
			if c.Type == v1.PodScheduled && c.Status == v1.ConditionTrue && !c.LastTransitionTime.IsZero() {
				at = append(at, c.LastTransitionTime.Time)
			}
		}
	}
	if min <= 0 || len(at) < int(min) {
		return time.Time{}
	}
	sort.Slice(at, func(i, j int) bool { return at[i].Before(at[j]) })
	return at[min-1]
}

// firstCreated is when the gang's first member still present was created.
func firstCreated(members []*v1.Pod) time.Time {
	var first time.Time
	for _, m := range members {
		if t := m.CreationTimestamp.Time; first.IsZero() || t.Before(first) {
			first = t
		}
	}
	return first
}
