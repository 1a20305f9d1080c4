// Recomputing one gang's status from its members and writing it when it changed.

package gang

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	schedv1beta1 "k8s.io/api/scheduling/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/muster-project/muster/pkg/gang"
)

// sync recomputes one gang's status and writes it when it changed.
func (w *statusWriter) sync(ctx context.Context, k gang.Key) {
	logger := klog.FromContext(ctx)
	members := w.pl.members(k)
	var (
		spec gang.Spec
		err  error
		pg   runtime.Object // the object events are about
		ref  *v1.ObjectReference
	)
	var upstream *schedv1beta1.PodGroup
	source := w.pl.sourceOf(k, members)
	if source == gang.SourceWorkload && w.pl.workloads != nil {
		if obj, getErr := w.pl.workloads.podGroups.PodGroups(k.Namespace).Get(k.Name); getErr == nil {
			upstream = obj
			spec, err = gang.SpecFromWorkload(obj, w.pl.workloadOf(obj), w.pl.defaults)
			ref = workloadPodGroupRef(obj)
			pg = ref
			if apimeta.IsStatusConditionTrue(obj.Status.Conditions, schedv1beta1.PodGroupInitiallyScheduled) {
				w.placed[k] = true // survives a scheduler restart through the object itself
			}
		}
	}
	if source == gang.SourcePodGroup && w.pl.podGroups != nil {
		if obj, getErr := w.pl.podGroups.PodGroups(k.Namespace).Get(k.Name); getErr == nil {
			spec, err = gang.SpecFromPodGroup(obj, w.pl.defaults)
			ref = &v1.ObjectReference{APIVersion: "scheduling.x-k8s.io/v1alpha1", Kind: "PodGroup", Namespace: obj.Namespace, Name: obj.Name, UID: obj.UID}
			pg = ref
			if obj.Status.Phase == gang.PhaseScheduling || obj.Status.Phase == gang.PhaseRunning {
				w.placed[k] = true // survives a scheduler restart through the object itself
			}
		}
	}
	if ref == nil {
		// A CRD-free gang, or members naming a PodGroup that is missing: the
		// oldest member speaks for the gang, and resolving it gives the spec
		// or the error the members themselves report.
		oldest := oldestLive(members)
		if oldest == nil {
			w.forget(k)
			return
		}
		pg = oldest
		spec, _, err = w.pl.resolve(oldest)
	}

	var sum gang.Summary
	obs := gang.Observed{Counts: w.pl.tracker.Count(k, members, "")}
	for _, m := range members {
		switch m.Status.Phase {
		case v1.PodRunning:
			obs.Running++
		case v1.PodSucceeded:
			obs.Succeeded++
		case v1.PodFailed:
			obs.Failed++
		}
	}
	if err != nil {
		sum = gang.Summary{Phase: gang.PhasePending, Reason: gang.ReasonInvalidSpec, Message: err.Error()}
	} else {
		failure := w.pl.tracker.LastFailure(k)
		sum = spec.Summarize(obs, w.placed[k], failure)
		if spec.QuorumPlaced(obs.Counts) {
			if !w.placed[k] {
				w.untimed[k] = true
			}
			w.placed[k] = true
		}
		if w.untimed[k] && w.timeQuorum(spec, members) {
			delete(w.untimed, k)
		}
	}
	w.mu.Lock()
	w.phase[k] = sum.Phase
	w.mu.Unlock()

	if err == nil {
		w.protect(members, spec.MinMember)
		w.checkStranded(ctx, spec, obs, members, pg)
		w.markHeld(spec, obs.Counts, members)
	}

	w.mu.Lock()
	extra := make([]metav1.Condition, 0, len(w.extra[k]))
	for _, c := range w.extra[k] {
		extra = append(extra, c)
	}
	w.mu.Unlock()
	sort.Slice(extra, func(i, j int) bool { return extra[i].Type < extra[j].Type })
	extraSig := conditionsSignature(extra)

	prev, had := w.last[k]
	if had && prev.sum == sum && prev.obs == obs && prev.extra == extraSig {
		return
	}
	since := prev.since
	if !had || prev.sum.Placed != sum.Placed || prev.sum.Reason != sum.Reason {
		since = metav1.Now()
	}
	w.last[k] = written{sum: sum, obs: obs, since: since, extra: extraSig}
	// Events mark changes of reason. The status keeps the latest message;
	// a gang waiting for room or nodes would otherwise record an event
	// each time its counts moved (the room it has, the members it is
	// short), on every attempt while the cluster churns.
	for _, c := range extra {
		if had && strings.Contains(prev.extra, "\x00"+c.Type+"\x01"+c.Reason+"\x01") {
			continue
		}
		if c.Type == gang.ConditionDisrupted || c.Type == gang.ConditionPreempting {
			continue // MusterGang records these events when it makes room
		}
		w.h.EventRecorder().Eventf(pg, nil, v1.EventTypeNormal, c.Reason, "Autoscaling", "%s", c.Message)
	}

	if !had || prev.sum.Reason != sum.Reason {
		kind := v1.EventTypeNormal
		switch sum.Reason {
		case gang.ReasonInvalidSpec, gang.ReasonUnschedulable, gang.ReasonMembersLost:
			kind = v1.EventTypeWarning
		}
		w.h.EventRecorder().Eventf(pg, nil, kind, sum.Reason, "Scheduling", "%s", sum.Message)
	}
	if ref == nil {
		return
	}
	status := v1.ConditionFalse
	if sum.Placed {
		status = v1.ConditionTrue
	}
	if upstream != nil {
		conds := append([]metav1.Condition{{Type: gang.ConditionScheduled, Status: metav1.ConditionStatus(status), Reason: sum.Reason, Message: sum.Message, LastTransitionTime: since}}, extra...)
		if c, ok := gang.InitiallyScheduled(sum); ok {
			conds = append(conds, c)
		}
		w.mu.Lock()
		owned := map[string]bool{gang.ConditionScheduled: true}
		for t := range w.reported {
			owned[t] = true
		}
		w.mu.Unlock()
		if err := w.writeWorkloadStatus(ctx, upstream, conds, owned); err != nil {
			logger.V(2).Info("Could not write PodGroup status", "podGroup", klog.KRef(k.Namespace, k.Name), "err", err)
			w.retry(k, err)
		}
		return
	}
	if w.pgs == nil {
		return
	}
	patch, _ := json.Marshal(map[string]any{"status": map[string]any{
		"phase":     sum.Phase,
		"scheduled": obs.Placed,
		"running":   obs.Running,
		"succeeded": obs.Succeeded,
		"failed":    obs.Failed,
		"conditions": append([]metav1.Condition{{
			Type: gang.ConditionScheduled, Status: metav1.ConditionStatus(status), Reason: sum.Reason, Message: sum.Message, LastTransitionTime: since,
		}}, extra...),
	}})
	if _, err := w.pgs.SchedulingV1alpha1().PodGroups(k.Namespace).Patch(ctx, k.Name, types.MergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil {
		logger.V(2).Info("Could not write PodGroup status", "podGroup", klog.KRef(k.Namespace, k.Name), "err", err)
		w.retry(k, err)
	}
}

// retry has a status write that failed with err tried again at the next
// flush: a gang that has settled brings no change that would sync it again,
// and its status would stay what it was (a condition cleared, say, still
// shown). A PodGroup that is gone, or that this scheduler may not write,
// is not retried: its next change syncs it again.
func (w *statusWriter) retry(k gang.Key, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.last, k)
	if !apierrors.IsNotFound(err) && !apierrors.IsForbidden(err) {
		w.dirty[k] = struct{}{}
	}
}

// timeQuorum records how long a gang waited for the quorum it now has,
// unless the quorum was bound before this writer started (a restart, or a
// standby taking over, finds quorums it did not see bind). It returns false
// while the informer does not show the quorum bound yet: the tracker counts
// members placed once Permit lets them through, before their binds land,
// and a gang timed only then was never timed (the binds' updates bring the
// gang back to the writer).
func (w *statusWriter) timeQuorum(spec gang.Spec, members []*v1.Pod) bool {
	at := quorumBoundAt(members, spec.MinMember)
	if at.IsZero() {
		return false
	}
	if at.Before(w.started.Truncate(time.Second)) {
		return true
	}
	source := "labels"
	switch spec.Source {
	case gang.SourcePodGroup:
		source = "podgroup"
	case gang.SourceWorkload:
		source = "workload"
	}
	quorumWait.WithLabelValues(source).Observe(max(0, at.Sub(firstCreated(members)).Seconds()))
	return true
}
