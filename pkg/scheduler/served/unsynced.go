// Naming and logging the started informers that have not synced yet.

package served

import (
	"context"
	"fmt"
	"slices"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/klog/v2"
)

// ReportUnsynced logs, each period until all have synced, the informers of
// factory that have not: the scheduler waits for every one of them before it
// takes its lease, and its readiness check says only that handlers are not
// synchronized. A resource the server does not serve or the scheduler may
// not list is named here.
func ReportUnsynced(ctx context.Context, factory informers.SharedInformerFactory, period time.Duration) {
	logger := klog.FromContext(ctx)
	go func() {
		t := time.NewTicker(period)
		defer t.Stop()
		waited := time.Duration(0)
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			waited += period
			pending, started := Unsynced(factory)
			if !started {
				continue
			}
			if len(pending) == 0 {
				return
			}
			logger.Error(nil, "Informers have not synced; the scheduler does not take its lease or schedule until they do. Check that the API server serves these resources and that muster-scheduler's role may list and watch them",
				"resources", pending, "waited", waited)
		}
	}()
}

// Unsynced names the started informers of factory that have not synced
// (their object types, sorted); started is false while none has started.
func Unsynced(factory informers.SharedInformerFactory) (pending []string, started bool) {
	done := make(chan struct{})
	close(done)
	synced := factory.WaitForCacheSync(done)
	for typ, ok := range synced {
		if !ok {
			pending = append(pending, fmt.Sprint(typ))
		}
	}
	slices.Sort(pending)
	return pending, len(synced) > 0
}
