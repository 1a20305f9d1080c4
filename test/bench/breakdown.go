// Breakdown: where a scenario's pods spent their time, from the in-process scheduler's own metrics.

package bench

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"k8s.io/component-base/metrics/legacyregistry"
)

// Breakdown is where a run's pods spent their time, from the scheduler's own
// metrics (their change over the run; only for a scheduler in this
// process): means per bound pod, and the p99s the histograms' buckets give
// (a bucket's upper bound). Under Muster, a gang member waits in
// PreEnqueue until its gang's quorum exists, runs the scheduling cycle
// (PreFilter, where the capacity plan is made, to Permit), then waits at
// Permit until the whole quorum is reserved, then binds.
type Breakdown struct {
	// Pods is the pods the scheduler bound (the SLI histogram's count).
	Pods int
	// ToFirstAttempt is the mean from a pod's creation to its first
	// scheduling attempt: the run's creation-to-bind mean minus SLI.
	ToFirstAttempt time.Duration
	// SLI is scheduler_pod_scheduling_sli_duration_seconds: from a pod's
	// first attempt to its bind.
	SLI, SLIP99 time.Duration
	// Attempts is the mean scheduling attempts per bound pod.
	Attempts float64
	// Cycle is the scheduling cycle's time per bound pod, every attempt
	// counted: its extension points from PreFilter to Permit (the binding
	// cycle runs apart, a goroutine per pod).
	Cycle time.Duration
	// Points is the time per bound pod in each extension point
	// (scheduler_framework_extension_point_duration_seconds).
	Points map[string]time.Duration
	// PermitWait is the wait at Permit per bound pod
	// (scheduler_permit_wait_duration_seconds), and its p99.
	PermitWait, PermitWaitP99 time.Duration
	// LoopBusy is the scheduling cycles' total time over the run's
	// scheduling wall time (Result.Scheduling): near 1, the one scheduling
	// loop was the bottleneck and pods queued behind it; well below, they
	// waited for something else (their creation, their gang, the binds).
	LoopBusy float64
}

// histogram is one histogram series: count, sum and cumulative buckets.
type histogram struct {
	count   uint64
	sum     float64
	bounds  []float64
	buckets []uint64
}

// schedulerHistograms reads the scheduler's histograms this process
// registered, by metric name and label values ("name{k=v,...}").
func schedulerHistograms() (map[string]histogram, error) {
	fams, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		return nil, err
	}
	out := map[string]histogram{}
	for _, f := range fams {
		if !strings.HasPrefix(f.GetName(), "scheduler_") || f.GetType() != dto.MetricType_HISTOGRAM {
			continue
		}
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			sort.Strings(labels)
			h := m.GetHistogram()
			hs := histogram{count: h.GetSampleCount(), sum: h.GetSampleSum()}
			for _, b := range h.GetBucket() {
				hs.bounds = append(hs.bounds, b.GetUpperBound())
				hs.buckets = append(hs.buckets, b.GetCumulativeCount())
			}
			out[f.GetName()+"{"+strings.Join(labels, ",")+"}"] = hs
		}
	}
	return out, nil
}

// minus is h's change since before (same bucket bounds).
func (h histogram) minus(before histogram) histogram {
	d := histogram{count: h.count - before.count, sum: h.sum - before.sum, bounds: h.bounds, buckets: append([]uint64(nil), h.buckets...)}
	for i := range d.buckets {
		if i < len(before.buckets) {
			d.buckets[i] -= before.buckets[i]
		}
	}
	return d
}

// add sums two changes of series with the same bucket bounds.
func (h histogram) add(o histogram) histogram {
	if h.bounds == nil {
		return o
	}
	s := histogram{count: h.count + o.count, sum: h.sum + o.sum, bounds: h.bounds, buckets: append([]uint64(nil), h.buckets...)}
	for i := range s.buckets {
		if i < len(o.buckets) {
			s.buckets[i] += o.buckets[i]
		}
	}
	return s
}

// quantile is the upper bound of the bucket holding the q-quantile (+Inf
// past the last bucket).
func (h histogram) quantile(q float64) time.Duration {
	if h.count == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(h.count)))
	for i, c := range h.buckets {
		if c >= rank {
			return seconds(h.bounds[i])
		}
	}
	return time.Duration(math.MaxInt64)
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// breakdownOf is the breakdown of a run from the histograms before and
// after it; profile picks the series of the scheduler's profile.
func breakdownOf(before, after map[string]histogram, profile string, res Result, memberMean time.Duration) Breakdown {
	// sum adds up the changes of metric's series whose labels hold every
	// one of want.
	sum := func(metric string, want ...string) histogram {
		var total histogram
		for k, h := range after {
			name, labels, _ := strings.Cut(k, "{")
			if name != metric {
				continue
			}
			ok := true
			for _, w := range want {
				if !strings.Contains(","+strings.TrimSuffix(labels, "}")+",", ","+w+",") {
					ok = false
				}
			}
			if ok {
				total = total.add(h.minus(before[k]))
			}
		}
		return total
	}
	b := Breakdown{Points: map[string]time.Duration{}}
	sli := sum("scheduler_pod_scheduling_sli_duration_seconds")
	b.Pods = int(sli.count)
	if b.Pods == 0 {
		return b
	}
	per := func(h histogram) time.Duration { return seconds(h.sum / float64(b.Pods)) }
	b.SLI, b.SLIP99 = per(sli), sli.quantile(0.99)
	b.ToFirstAttempt = memberMean - b.SLI
	b.Attempts = sum("scheduler_pod_scheduling_attempts").sum / float64(b.Pods)
	cycle := 0.0
	for _, p := range []string{"PreEnqueue", "PreFilter", "Filter", "PostFilter", "PreScore", "Score", "Reserve", "Permit", "PreBind", "Bind"} {
		h := sum("scheduler_framework_extension_point_duration_seconds", "extension_point="+p, "profile="+profile)
		b.Points[p] = per(h)
		switch p {
		case "PreEnqueue", "PreBind", "Bind":
		default:
			cycle += h.sum
		}
	}
	b.Cycle = seconds(cycle / float64(b.Pods))
	wait := sum("scheduler_permit_wait_duration_seconds")
	b.PermitWait, b.PermitWaitP99 = per(wait), wait.quantile(0.99)
	if res.Scheduling > 0 {
		b.LoopBusy = cycle / res.Scheduling.Seconds()
	}
	return b
}

// String is the breakdown on one line, in milliseconds per bound pod.
func (b Breakdown) String() string {
	if b.Pods == 0 {
		return "no scheduler metrics"
	}
	var pts []string
	for _, p := range []string{"PreEnqueue", "PreFilter", "Filter", "PostFilter", "Score", "Reserve", "Permit", "PreBind", "Bind"} {
		if d := b.Points[p]; d > 0 {
			pts = append(pts, fmt.Sprintf("%s %.2f", p, Ms(d)))
		}
	}
	return fmt.Sprintf("create->1st attempt %.0f, 1st attempt->bound (SLI) %.0f (p99 <=%.0f), attempts %.2f, cycle %.2f/pod [%s], Permit wait %.0f (p99 <=%.0f), loop busy %.0f%%",
		Ms(b.ToFirstAttempt), Ms(b.SLI), Ms(b.SLIP99), b.Attempts, Ms(b.Cycle), strings.Join(pts, ", "), Ms(b.PermitWait), Ms(b.PermitWaitP99), 100*b.LoopBusy)
}
