// Unit tests of SteppedPrioritySort's order and of the stepped baseline profile that runs it.

package controlplane

import (
	"context"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/queuesort"
	"k8s.io/utils/clock"

	"github.com/muster-project/muster/pkg/simulate"
)

// Pods the queue stamped between the same two releases of the held queue
// go by name, whatever the order of their wall-time stamps; a pod stamped
// before an earlier release goes first, and a higher priority before all.
// Upstream's PrioritySort orders such pods by their stamps, which on the
// stepped clock follow the order the informers and the simulator's
// goroutines happened to take.
func TestSteppedPrioritySortOrdersAHalfStepByName(t *testing.T) {
	t0 := time.Unix(5000, 0)
	r := &releases{}
	r.mark(t0)
	r.mark(t0.Add(time.Second))
	queued := func(name string, priority int32, at time.Duration) *framework.QueuedPodInfo {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "training", Name: name, UID: types.UID("u-" + name)}, Spec: v1.PodSpec{Priority: &priority}}
		return &framework.QueuedPodInfo{PodInfo: &framework.PodInfo{Pod: p}, QueueingParams: framework.QueueingParams{Timestamp: t0.Add(at)}}
	}
	early := queued("gang-9-0", 0, -time.Millisecond)       // before the first release
	b := queued("gang-1-1-r2", 0, 2*time.Millisecond)       // after it, stamped first
	a := queued("gang-1-0-r1", 0, 5*time.Millisecond)       // after it, stamped later
	late := queued("gang-1-2-r3", 0, 1500*time.Millisecond) // after the second
	urgent := queued("gang-6-0", 1000, 1600*time.Millisecond)
	pl := &steppedPrioritySort{releases: r}
	for _, tc := range []struct {
		name string
		a, b *framework.QueuedPodInfo
		want bool
	}{
		{"one half step: by name, not by stamp", a, b, true},
		{"the other way round", b, a, false},
		{"stamped before an earlier release: first", early, a, true},
		{"stamped after a later release: after", late, b, false},
		{"a later release before an earlier one", late, early, false},
		{"higher priority first, however late", urgent, early, true},
		{"lower priority after", early, urgent, false},
		{"not before itself", a, a, false},
	} {
		if got := pl.Less(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: Less(%s, %s) = %t, want %t", tc.name, tc.a.Pod.Name, tc.b.Pod.Name, got, tc.want)
		}
	}
	// Upstream's order for the first pair is the stamps'.
	if !(&queuesort.PrioritySort{}).Less(b, a) {
		t.Fatal("PrioritySort no longer orders by stamp: revisit SteppedPrioritySort")
	}
	// Before any release every stamp is alike.
	none := &steppedPrioritySort{releases: &releases{}}
	if !none.Less(a, b) || none.Less(b, a) {
		t.Error("with no release yet: want the order by name")
	}
}

// A stepped scheduler with upstream's default profile (the baseline) sorts
// its queue with SteppedPrioritySort and preempts with SteppedPreemption,
// and Muster's profile keeps its own queue sort and preemption.
func TestSteppedProfilesSortWithSteppedPrioritySort(t *testing.T) {
	ctx := context.Background()
	env, kubeconfig := startEnv(t)
	var c clock.WithDelayedExecution = simulate.NewStepClock(time.Now())
	for _, tc := range []struct {
		config, profile, sort, preempt string
	}{
		{DefaultConfig(kubeconfig), "default-scheduler", SteppedPrioritySortName, SteppedPreemptionName},
		{MusterConfig(kubeconfig, GangArgs{}), MusterProfile, "MusterGang", "MusterGang"},
	} {
		s, err := env.StartSteppedScheduler(ctx, tc.config, c)
		if err != nil {
			t.Fatalf("%s: %v", tc.profile, err)
		}
		plugins := s.sched.Profiles[tc.profile].ListPlugins()
		s.Stop()
		var sorts, postFilters []string
		for _, p := range plugins.QueueSort.Enabled {
			sorts = append(sorts, p.Name)
		}
		for _, p := range plugins.PostFilter.Enabled {
			postFilters = append(postFilters, p.Name)
		}
		if !slices.Equal(sorts, []string{tc.sort}) {
			t.Errorf("%s: queue sort %v, want [%s]", tc.profile, sorts, tc.sort)
		}
		if !slices.Contains(postFilters, tc.preempt) || slices.Contains(postFilters, "DefaultPreemption") {
			t.Errorf("%s: post-filters %v, want %s and not DefaultPreemption", tc.profile, postFilters, tc.preempt)
		}
	}
}
