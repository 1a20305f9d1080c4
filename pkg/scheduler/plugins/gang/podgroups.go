// The scheduler-plugins PodGroup informer and client; releasing reservations when a PodGroup changes.

package gang

import (
	"context"
	"fmt"
	"maps"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	schedv1alpha1 "sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
	"sigs.k8s.io/scheduler-plugins/pkg/generated/clientset/versioned"
	"sigs.k8s.io/scheduler-plugins/pkg/generated/informers/externalversions"
	schedlisters "sigs.k8s.io/scheduler-plugins/pkg/generated/listers/scheduling/v1alpha1"

	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/served"
)

// startPodGroupInformer watches scheduler-plugins PodGroups when the API server
// serves them and returns their lister; nil (and no error) when it does not,
// so that clusters without the CRD still run CRD-free gangs.
func startPodGroupInformer(ctx context.Context, cfg *rest.Config, handler cache.ResourceEventHandler) (schedlisters.PodGroupLister, error) {
	if cfg == nil {
		return nil, nil
	}
	cs, err := podGroupClient(cfg)
	if err != nil {
		return nil, err
	}
	resources, err := served.Resources(ctx, cs.Discovery(), schedv1alpha1.SchemeGroupVersion.String())
	if err != nil {
		return nil, err
	}
	if !resources.Has("podgroups") {
		return nil, nil
	}
	factory := externalversions.NewSharedInformerFactory(cs, 0)
	informer := factory.Scheduling().V1alpha1().PodGroups()
	lister := informer.Lister()
	if _, err := informer.Informer().AddEventHandler(handler); err != nil {
		return nil, fmt.Errorf("watching PodGroups: %w", err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	return lister, nil
}

// podGroupClient builds a PodGroup client. Custom resources speak JSON only,
// while the scheduler's own kubeconfig asks for protobuf.
func podGroupClient(cfg *rest.Config) (versioned.Interface, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.ContentType = runtime.ContentTypeJSON
	cs, err := versioned.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("building PodGroup client: %w", err)
	}
	return cs, nil
}

// podGroupState is what releaseOnPodGroupChange reads of a PodGroup of
// either kind (scheduler-plugins' or upstream's).
type podGroupState struct {
	key      gang.Key
	min      int32
	minField string // the field min comes from, for the message
	deleting bool   // marked for deletion (a finalizer may keep it a while)
	// generation and annotations are what the gate reads of it besides:
	// its spec (a status write leaves the generation as it was) and the
	// annotations a gang's spec takes (max, spot extras).
	generation  int64
	annotations map[string]string
}

// specChanged says whether the gate could judge the gang's members
// differently after the PodGroup went from old to pg.
func (pg podGroupState) specChanged(old podGroupState) bool {
	return old.generation != pg.generation || old.deleting != pg.deleting || !maps.Equal(old.annotations, pg.annotations)
}

// podGroupHandler releases a gang's reservations when its scheduler-plugins
// PodGroup goes or its minMember changes, and wakes its members when it
// comes or its spec changes.
func (pl *Gang) podGroupHandler(ctx context.Context) cache.ResourceEventHandler {
	return pl.onPodGroupChange(ctx, func(o any) (podGroupState, bool) {
		pg, ok := o.(*schedv1alpha1.PodGroup)
		if !ok {
			return podGroupState{}, false
		}
		return podGroupState{key: gang.Key{Namespace: pg.Namespace, Name: pg.Name}, min: pg.Spec.MinMember,
			minField: "spec.minMember", deleting: pg.DeletionTimestamp != nil, generation: pg.Generation, annotations: pg.Annotations}, true
	})
}

// onPodGroupChange releases a gang's reservations at once when its
// PodGroup goes (or is marked for deletion), or its min changes: members
// holding nodes for a quorum that no longer exists (or is another size)
// would otherwise keep them until the gang's timeout. It wakes the gang's
// members when their PodGroup appears or what the gate reads of it
// changes (wakeForPodGroup).
//
// PodGroups are no queue event of the plugin's: the queue asks a plugin's
// hint about every pod parked at its gate or rejected by it, of every
// gang, on each event the plugin registers. A scheduler starting beside
// many PodGroups (say, 1100 left by finished jobs) and 3000 pending
// members asked 3.3 million hints before its first bind (make bench-scale:
// 12 s at 1000 nodes instead of under 1); and each status write on a
// PodGroup woke its gang.
func (pl *Gang) onPodGroupChange(ctx context.Context, read func(any) (podGroupState, bool)) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(o any) {
			if pg, ok := read(o); ok {
				pl.wakeForPodGroup(ctx, pg.key)
			}
		},
		UpdateFunc: func(o, n any) {
			old, ok1 := read(o)
			pg, ok2 := read(n)
			switch {
			case !ok1 || !ok2:
				return
			case !old.deleting && pg.deleting:
				pl.release(ctx, pg.key, fmt.Sprintf("PodGroup %s is being deleted; its members' reservations were released", pg.key), false)
			case old.min != pg.min:
				pl.state.RetryNeverFits(pg.key)
				pl.release(ctx, pg.key, fmt.Sprintf("PodGroup %s changed %s from %d to %d; members placed for the old quorum were released",
					pg.key, pg.minField, old.min, pg.min), false)
			case pg.specChanged(old):
				pl.state.RetryNeverFits(pg.key)
				pl.wakeForPodGroup(ctx, pg.key)
			}
		},
		DeleteFunc: func(o any) {
			if t, ok := o.(cache.DeletedFinalStateUnknown); ok {
				o = t.Obj
			}
			if pg, ok := read(o); ok {
				pl.release(ctx, pg.key, fmt.Sprintf("PodGroup %s was deleted; its members' reservations were released", pg.key), true)
			}
		},
	}
}

// release rejects a gang's members waiting at Permit, so their nodes are
// free at once, and wakes its members to be decided afresh. A gone gang is
// forgotten.
func (pl *Gang) release(ctx context.Context, key gang.Key, msg string, gone bool) {
	if !pl.started.Load() {
		return
	}
	uids := pl.tracker.RejectWaiting(key, msg)
	for _, uid := range uids {
		if wp := pl.handle.GetWaitingPod(uid); wp != nil {
			wp.Reject(Name, msg)
		}
	}
	klog.FromContext(ctx).V(2).Info("Released a gang's reservations", "gang", key, "released", len(uids), "why", msg)
	if gone {
		pl.forgetGang(key)
	}
	pl.status.touch(key)
	pl.wakeForPodGroup(ctx, key)
}

// wakeForPodGroup moves the unplaced members of the gang a PodGroup defines
// to the active queue, to be judged on it afresh. Nothing is woken before
// the queue first asked the gate about a pod (queueing): no member is
// parked then, and the framework has no queue to activate on yet. A
// member the queue parks later reads the PodGroup already stored: this
// handler runs after the informer's store has it, and the queue runs the
// gate and parks a pod under one hold of its lock, which Activate takes.
func (pl *Gang) wakeForPodGroup(ctx context.Context, key gang.Key) {
	if !pl.queueing.Load() {
		return
	}
	pl.activate(klog.FromContext(ctx), key, "")
}
