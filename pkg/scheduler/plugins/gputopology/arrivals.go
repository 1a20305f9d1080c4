// Arrivals on a trace clock: when the plugin first saw each pod and node, for Score's came-up-while-waiting tier.

package gputopology

import (
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"
)

// arrivals records, on a trace clock (NewOn), when the plugin first saw
// each pod and node, so that Score's "the node came up while the member
// waited" compares trace times. The API server's creation stamps are wall
// time in whole seconds: a replay's steps pass in milliseconds, so whether
// a node registered three trace minutes after a gang's members were
// created fell in the same wall second as their creation (no tier) or in
// the next (the tier) changed from replay to replay, and with it which
// of a booking's new nodes the gang's members took (seed 3 of --random,
// minute 8).
type arrivals struct {
	clock clock.PassiveClock
	mu    sync.Mutex
	pods  map[types.UID]time.Time
	nodes map[string]time.Time
}

func newArrivals(c clock.PassiveClock) *arrivals {
	return &arrivals{clock: c, pods: map[types.UID]time.Time{}, nodes: map[string]time.Time{}}
}

// seen records a pod's or node's first sight at the clock's time.
func (a *arrivals) seen(obj any) {
	now := a.clock.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	switch o := obj.(type) {
	case *v1.Pod:
		if _, ok := a.pods[o.UID]; !ok {
			a.pods[o.UID] = now
		}
	case *v1.Node:
		if _, ok := a.nodes[o.Name]; !ok {
			a.nodes[o.Name] = now
		}
	}
}

// gone forgets a pod or node deleted (a node's name may come back).
func (a *arrivals) gone(obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	switch o := obj.(type) {
	case *v1.Pod:
		delete(a.pods, o.UID)
	case *v1.Node:
		delete(a.nodes, o.Name)
	}
}

// cameUpWhileWaiting says the node was first seen after the pod. One not
// seen yet (its notice still on its way) counts as seen now: the trace
// clock does not move while a step's changes are scheduled, so that is
// the time its notice records.
func (a *arrivals) cameUpWhileWaiting(pod *v1.Pod, node *v1.Node) bool {
	now := a.clock.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	podAt, ok := a.pods[pod.UID]
	if !ok {
		podAt = now
	}
	nodeAt, ok := a.nodes[node.Name]
	if !ok {
		nodeAt = now
	}
	return podAt.Before(nodeAt)
}

// handler keeps a up to date from an informer.
func (a *arrivals) handler() cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{AddFunc: a.seen, DeleteFunc: a.gone}
}
