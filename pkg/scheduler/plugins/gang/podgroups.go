package gang

import (
	"context"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	schedv1alpha1 "sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"
	"sigs.k8s.io/scheduler-plugins/pkg/generated/clientset/versioned"
	"sigs.k8s.io/scheduler-plugins/pkg/generated/informers/externalversions"
	schedlisters "sigs.k8s.io/scheduler-plugins/pkg/generated/listers/scheduling/v1alpha1"
)

// podGroupResource is the PodGroup CRD as the scheduler's cluster events name it.
const podGroupResource = "podgroups.v1alpha1.scheduling.x-k8s.io"

// startPodGroupInformer watches scheduler-plugins PodGroups when the API server
// serves them and returns their lister; nil (and no error) when it does not,
// so that clusters without the CRD still run CRD-free gangs.
func startPodGroupInformer(ctx context.Context, cfg *rest.Config) (schedlisters.PodGroupLister, error) {
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
	informer.Informer()
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
