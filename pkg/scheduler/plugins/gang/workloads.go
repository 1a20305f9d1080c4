// Gangs from upstream's Workload API in the plugin: informers, specs, status, releases.

package gang

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	schedv1beta1 "k8s.io/api/scheduling/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	schedlistersv1beta1 "k8s.io/client-go/listers/scheduling/v1beta1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"

	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/served"
)

// Upstream's Workload API (scheduling.k8s.io/v1beta1) is the third gang
// source: pods whose spec.schedulingGroup names a PodGroup there. Muster
// replaces upstream's GangScheduling for them rather than running beside it:
// muster-scheduler runs with the GenericWorkload feature off in its own
// process (New refuses otherwise), so the framework's pod-group cycle never
// takes these pods and MusterGang decides them one by one like its other
// gangs; the API server and the default scheduler keep the feature on for
// the pods that name default-scheduler. A pod is handled by the scheduler
// its spec.schedulerName names, so no pod is handled by both.

// workloadAPI holds the listers of upstream's PodGroups and Workloads, nil
// when the API server does not serve them.
type workloadAPI struct {
	podGroups schedlistersv1beta1.PodGroupLister
	workloads schedlistersv1beta1.WorkloadLister // nil when Workloads are not served
}

// checkGenericWorkloadOff refuses a process where the framework itself would
// gang-schedule upstream PodGroups beside MusterGang.
func checkGenericWorkloadOff() error {
	if utilfeature.DefaultFeatureGate.Enabled(features.GenericWorkload) {
		return fmt.Errorf("feature gate GenericWorkload is on in this scheduler: its pod-group cycle and GangScheduling would gang-schedule upstream PodGroups beside %s, which reads them itself; run muster-scheduler without --feature-gates=GenericWorkload=true (leave it on in kube-apiserver and kube-scheduler)", Name)
	}
	return nil
}

// startWorkloadInformers watches upstream's PodGroups (and Workloads) through
// the scheduler's informer factory when the API server serves them; the
// scheduler starts and syncs the factory before it schedules.
func startWorkloadInformers(ctx context.Context, h fwk.Handle, handler cache.ResourceEventHandler) (*workloadAPI, error) {
	cs := h.ClientSet()
	if cs == nil || h.SharedInformerFactory() == nil {
		return nil, nil
	}
	resources, err := served.Resources(ctx, cs.Discovery(), gang.WorkloadGroupVersion)
	if err != nil {
		return nil, err
	}
	if !resources.Has("podgroups") {
		return nil, nil
	}
	api := &workloadAPI{}
	informers := h.SharedInformerFactory().Scheduling().V1beta1()
	api.podGroups = informers.PodGroups().Lister()
	if _, err := informers.PodGroups().Informer().AddEventHandler(handler); err != nil {
		return nil, fmt.Errorf("watching %s PodGroups: %w", gang.WorkloadGroupVersion, err)
	}
	if resources.Has("workloads") {
		api.workloads = informers.Workloads().Lister()
	}
	return api, nil
}

// workloadSpec resolves the spec of a gang whose members name an upstream
// PodGroup.
func (pl *Gang) workloadSpec(pod *v1.Pod, key gang.Key) (gang.Spec, error) {
	const field = "spec.schedulingGroup.podGroupName"
	if pl.workloads == nil {
		return gang.Spec{}, &gang.FieldError{Object: "Pod " + pod.Namespace + "/" + pod.Name, Field: field,
			Detail: "names PodGroup " + key.Name + " but " + gang.WorkloadGroupVersion + " PodGroups were not served when muster-scheduler started; enable them in kube-apiserver (--runtime-config=" + gang.WorkloadGroupVersion + "=true, --feature-gates=GenericWorkload=true) and restart muster-scheduler"}
	}
	pg, err := pl.workloads.podGroups.PodGroups(key.Namespace).Get(key.Name)
	if apierrors.IsNotFound(err) {
		return gang.Spec{}, &gang.FieldError{Object: "Pod " + pod.Namespace + "/" + pod.Name, Field: field,
			Detail: gang.WorkloadObject("PodGroup", key) + " does not exist"}
	}
	if err != nil {
		return gang.Spec{}, err
	}
	if pg.DeletionTimestamp != nil {
		return gang.Spec{}, &gang.FieldError{Object: gang.WorkloadObject("PodGroup", key), Field: "metadata.deletionTimestamp",
			Detail: "the PodGroup is being deleted; its members are not placed"}
	}
	return gang.SpecFromWorkload(pg, pl.workloadOf(pg), pl.defaults)
}

// workloadOf returns the Workload a PodGroup was made from, nil if none (or
// gone: its annotations then no longer apply).
func (pl *Gang) workloadOf(pg *schedv1beta1.PodGroup) *schedv1beta1.Workload {
	if pg.Spec.WorkloadRef == nil || pl.workloads.workloads == nil {
		return nil
	}
	wl, err := pl.workloads.workloads.Workloads(pg.Namespace).Get(pg.Spec.WorkloadRef.WorkloadName)
	if err != nil {
		return nil
	}
	return wl
}

// workloadPodGroupHandler releases a gang's reservations when its upstream
// PodGroup goes or its minCount changes, and wakes its members when it
// comes or its spec changes. Deleting one whose pods exist
// only marks it: the API server's PodGroupProtection finalizer keeps it
// until they go.
func (pl *Gang) workloadPodGroupHandler(ctx context.Context) cache.ResourceEventHandler {
	return pl.onPodGroupChange(ctx, func(o any) (podGroupState, bool) {
		pg, ok := o.(*schedv1beta1.PodGroup)
		if !ok {
			return podGroupState{}, false
		}
		min := int32(1)
		if g := pg.Spec.SchedulingPolicy.Gang; g != nil {
			min = g.MinCount
		}
		return podGroupState{key: gang.Key{Namespace: pg.Namespace, Name: pg.Name}, min: min,
			minField: "spec.schedulingPolicy.gang.minCount", deleting: pg.DeletionTimestamp != nil,
			generation: pg.Generation, annotations: pg.Annotations}, true
	})
}

// workloadPodGroupRef is what events about an upstream PodGroup go on.
func workloadPodGroupRef(pg *schedv1beta1.PodGroup) *v1.ObjectReference {
	return &v1.ObjectReference{APIVersion: gang.WorkloadGroupVersion, Kind: "PodGroup", Namespace: pg.Namespace, Name: pg.Name, UID: pg.UID}
}

// writeWorkloadStatus writes upstream's PodGroupInitiallyScheduled condition
// (with upstream's reasons) and Muster's own conditions on an upstream
// PodGroup. A strategic merge patch keys conditions by type, so conditions
// others write (DisruptionTarget) stay; those of Muster's own types (owned)
// no longer reported are deleted.
func (w *statusWriter) writeWorkloadStatus(ctx context.Context, pg *schedv1beta1.PodGroup, conds []metav1.Condition, owned map[string]bool) error {
	var patchConds []any
	for _, old := range pg.Status.Conditions {
		if owned[old.Type] && !slices.ContainsFunc(conds, func(c metav1.Condition) bool { return c.Type == old.Type }) {
			patchConds = append(patchConds, map[string]string{"type": old.Type, "$patch": "delete"})
		}
	}
	for _, c := range conds {
		old := apimeta.FindStatusCondition(pg.Status.Conditions, c.Type)
		if c.Type == schedv1beta1.PodGroupInitiallyScheduled && old != nil && old.Status == metav1.ConditionTrue {
			continue // terminal once true, as upstream keeps it
		}
		if old != nil && old.Status == c.Status && old.Reason == c.Reason && old.Message == c.Message {
			continue
		}
		c.ObservedGeneration = pg.Generation
		if old != nil && old.Status == c.Status {
			c.LastTransitionTime = old.LastTransitionTime
		}
		if c.LastTransitionTime.IsZero() {
			c.LastTransitionTime = metav1.Now()
		}
		patchConds = append(patchConds, c)
	}
	if len(patchConds) == 0 {
		return nil
	}
	patch, err := json.Marshal(map[string]any{"status": map[string]any{"conditions": patchConds}})
	if err != nil {
		return err
	}
	_, err = w.h.ClientSet().SchedulingV1beta1().PodGroups(pg.Namespace).Patch(ctx, pg.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
	if err != nil {
		klog.FromContext(ctx).V(2).Info("Could not write PodGroup status", "podGroup", klog.KObj(pg), "err", err)
	}
	return err
}

// sourceOf says which kind of object a gang's spec lives on: what its oldest
// live member names or, with no member left, the PodGroup that exists (a
// scheduler-plugins one first, as before upstream's).
func (pl *Gang) sourceOf(k gang.Key, members []*v1.Pod) gang.Source {
	if oldest := oldestLive(members); oldest != nil {
		if _, src, ok, _ := gang.GroupOf(oldest); ok {
			return src
		}
	}
	if pl.podGroups != nil {
		if _, err := pl.podGroups.PodGroups(k.Namespace).Get(k.Name); err == nil {
			return gang.SourcePodGroup
		}
	}
	if pl.workloads != nil {
		if _, err := pl.workloads.podGroups.PodGroups(k.Namespace).Get(k.Name); err == nil {
			return gang.SourceWorkload
		}
	}
	return gang.SourceLabels
}
