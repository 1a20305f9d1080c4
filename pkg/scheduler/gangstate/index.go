// The pod informer's indexes of members by gang and of pending members by gang.

package gangstate

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/muster-project/muster/pkg/gang"
)

// GangIndex indexes the scheduler's pod informer by the gang a pod belongs to
// (key "namespace/name"), so a gang's members are found without scanning
// every pod. Muster's plugins share it.
const GangIndex = "muster.dev/gang"

// PendingGangIndex indexes the live gang members without a node by their
// gang, so the capacity plan finds the waiting gangs without reading every
// pod (the bound ones outnumber them).
const PendingGangIndex = "muster.dev/pending-gang"

// EnsureGangIndex adds GangIndex and PendingGangIndex to the pod informer
// unless a plugin built earlier already did.
func EnsureGangIndex(informer cache.SharedIndexInformer) error {
	add := cache.Indexers{}
	for name, f := range Indexers() {
		if _, ok := informer.GetIndexer().GetIndexers()[name]; !ok {
			add[name] = f
		}
	}
	if len(add) == 0 {
		return nil
	}
	if err := informer.AddIndexers(add); err != nil {
		return fmt.Errorf("indexing pods by gang: %w", err)
	}
	return nil
}

// Indexers are GangIndex and PendingGangIndex, for an indexer built by
// hand (tests).
func Indexers() cache.Indexers {
	return cache.Indexers{GangIndex: indexByGang, PendingGangIndex: indexPendingByGang}
}

func indexPendingByGang(obj any) ([]string, error) {
	pod, ok := obj.(*v1.Pod)
	if !ok || pod.Spec.NodeName != "" || !gang.Live(pod) {
		return nil, nil
	}
	return indexByGang(obj)
}

func indexByGang(obj any) ([]string, error) {
	pod, ok := obj.(*v1.Pod)
	if !ok {
		return nil, nil
	}
	key, _, isGang, err := gang.GroupOf(pod)
	if err != nil || !isGang {
		return nil, nil
	}
	return []string{key.String()}, nil
}
