package gang

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

// EnsureGangIndex adds GangIndex to the pod informer unless a plugin built
// earlier already did.
func EnsureGangIndex(informer cache.SharedIndexInformer) error {
	if _, ok := informer.GetIndexer().GetIndexers()[GangIndex]; ok {
		return nil
	}
	if err := informer.AddIndexers(cache.Indexers{GangIndex: indexByGang}); err != nil {
		return fmt.Errorf("indexing pods by gang: %w", err)
	}
	return nil
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
