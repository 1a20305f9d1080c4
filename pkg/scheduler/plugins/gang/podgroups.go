package gang

import (
	"context"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	schedv1alpha1 "sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
	"sigs.k8s.io/scheduler-plugins/pkg/generated/clientset/versioned"
	"sigs.k8s.io/scheduler-plugins/pkg/generated/informers/externalversions"
	schedlisters "sigs.k8s.io/scheduler-plugins/pkg/generated/listers/scheduling/v1alpha1"

	"github.com/muster-project/muster/pkg/gang"
)

// podGroupResource is the PodGroup CRD as the scheduler's cluster events name it.
const podGroupResource = "podgroups.v1alpha1.scheduling.x-k8s.io"

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
	served, err := cs.Discovery().ServerResourcesForGroupVersion(schedv1alpha1.SchemeGroupVersion.String())
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("discovering %s: %w", schedv1alpha1.SchemeGroupVersion, err)
	}
	if !slices.ContainsFunc(served.APIResources, func(r metav1.APIResource) bool { return r.Name == "podgroups" }) {
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

// podGroupHandler releases a gang's reservations at once when its PodGroup
// goes, or its minMember changes: members holding nodes for a quorum that
// no longer exists (or is another size) would otherwise keep them until
// the gang's timeout.
func (pl *Gang) podGroupHandler(ctx context.Context) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(o, n any) {
			old, ok1 := o.(*schedv1alpha1.PodGroup)
			pg, ok2 := n.(*schedv1alpha1.PodGroup)
			if !ok1 || !ok2 || old.Spec.MinMember == pg.Spec.MinMember {
				return
			}
			pl.release(ctx, gang.Key{Namespace: pg.Namespace, Name: pg.Name},
				fmt.Sprintf("PodGroup %s/%s changed spec.minMember from %d to %d; members placed for the old quorum were released", pg.Namespace, pg.Name, old.Spec.MinMember, pg.Spec.MinMember), false)
		},
		DeleteFunc: func(o any) {
			if t, ok := o.(cache.DeletedFinalStateUnknown); ok {
				o = t.Obj
			}
			pg, ok := o.(*schedv1alpha1.PodGroup)
			if !ok {
				return
			}
			pl.release(ctx, gang.Key{Namespace: pg.Namespace, Name: pg.Name},
				fmt.Sprintf("PodGroup %s/%s was deleted; its members' reservations were released", pg.Namespace, pg.Name), true)
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
	uids := pl.tracker.Fail(key, msg, 0)
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
	pl.activate(klog.FromContext(ctx), key, "")
}
