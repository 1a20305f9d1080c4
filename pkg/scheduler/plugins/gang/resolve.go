// A gang's members and spec, from its PodGroup, upstream PodGroup or labels, and its age.

package gang

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/gangstate"
)

// members lists a gang's pods as the informer sees them.
func (pl *Gang) members(key gang.Key) []*v1.Pod {
	objs, err := pl.pods.ByIndex(gangstate.GangIndex, key.String())
	if err != nil {
		return nil
	}
	pods := make([]*v1.Pod, 0, len(objs))
	for _, o := range objs {
		if p, ok := o.(*v1.Pod); ok {
			pods = append(pods, p)
		}
	}
	return pods
}

// resolve finds the gang a pod belongs to and its effective spec. isGang is
// false for ordinary pods. A non-nil error is bad input, already naming the
// object and field.
func (pl *Gang) resolve(pod *v1.Pod) (spec gang.Spec, isGang bool, err error) {
	spec, _, isGang, err = pl.resolveMembers(pod, false)
	return spec, isGang, err
}

// resolveMembers is resolve that also returns the gang's members (with
// listMembers, or when a CRD-free gang's spec needed them), so a caller
// that counts them next lists a big gang once, not twice, per member.
func (pl *Gang) resolveMembers(pod *v1.Pod, listMembers bool) (spec gang.Spec, members []*v1.Pod, isGang bool, err error) {
	key, source, isGang, err := gang.GroupOf(pod)
	if !isGang || err != nil {
		return gang.Spec{Key: key}, nil, err != nil, err
	}
	if listMembers || source == gang.SourceLabels {
		members = pl.members(key)
	}
	switch source {
	case gang.SourcePodGroup:
		spec, err = pl.podGroupSpec(pod, key)
	case gang.SourceWorkload:
		spec, err = pl.workloadSpec(pod, key)
	default:
		spec, err = pl.labelSpec(pod, key, members)
	}
	if err != nil {
		return gang.Spec{Key: key, Source: source}, members, true, err
	}
	pl.gangSince.Store(key, pl.created(spec))
	return spec, members, true, nil
}

func (pl *Gang) podGroupSpec(pod *v1.Pod, key gang.Key) (gang.Spec, error) {
	field := "metadata.labels[" + gang.PodGroupLabel + "]"
	if pl.podGroups == nil {
		return gang.Spec{}, &gang.FieldError{Object: "Pod " + pod.Namespace + "/" + pod.Name, Field: field,
			Detail: "names PodGroup " + key.Name + " but the PodGroup CRD (scheduling.x-k8s.io/v1alpha1) was not served when muster-scheduler started; install manifests/crds and restart it, or use the " + gang.GroupLabel + " label"}
	}
	pg, err := pl.podGroups.PodGroups(key.Namespace).Get(key.Name)
	if apierrors.IsNotFound(err) {
		return gang.Spec{}, &gang.FieldError{Object: "Pod " + pod.Namespace + "/" + pod.Name, Field: field,
			Detail: "PodGroup " + key.String() + " does not exist"}
	}
	if err != nil {
		return gang.Spec{}, err
	}
	return gang.SpecFromPodGroup(pg, pl.defaults)
}

// labelSpec reads a CRD-free gang's spec. The oldest member sets the gang's
// spec; any member whose annotations disagree with it is bad input.
func (pl *Gang) labelSpec(pod *v1.Pod, key gang.Key, members []*v1.Pod) (gang.Spec, error) {
	own, err := gang.SpecFromPod(pod, key, pl.defaults)
	if err != nil {
		return gang.Spec{}, err
	}
	ref := pod
	if oldest := oldestLive(members); oldest != nil && olderPod(oldest, ref) {
		ref = oldest
	}
	if ref == pod {
		return own, nil
	}
	refSpec, err := gang.SpecFromPod(ref, key, pl.defaults)
	if err != nil {
		return gang.Spec{}, fmt.Errorf("gang %s takes its spec from its oldest member: %w", key, err)
	}
	if !own.Agrees(refSpec) {
		return gang.Spec{}, gang.Disagreement(pod, own, refSpec, "Pod "+ref.Namespace+"/"+ref.Name)
	}
	return refSpec, nil
}

// oldestLive returns a gang's oldest live member, nil if none.
func oldestLive(members []*v1.Pod) *v1.Pod {
	var oldest *v1.Pod
	for _, m := range members {
		if gang.Live(m) && (oldest == nil || olderPod(m, oldest)) {
			oldest = m
		}
	}
	return oldest
}

func olderPod(a, b *v1.Pod) bool {
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	}
	return a.Name < b.Name
}

// created is when the gang's age starts: its creation, or on a trace clock
// when the plugin first saw it (creation stamps are wall time).
func (pl *Gang) created(spec gang.Spec) time.Time {
	if !pl.ageFromFirstSeen {
		return spec.Created
	}
	at, _ := pl.firstSeen.LoadOrStore(spec.Key, pl.clock.Now())
	return at.(time.Time)
}

// seen starts a gang's age on a trace clock when its first member appears.
func (pl *Gang) seen(o any) {
	if !pl.ageFromFirstSeen {
		return
	}
	if p, ok := o.(*v1.Pod); ok {
		if key, _, isGang, err := gang.GroupOf(p); isGang && err == nil {
			pl.firstSeen.LoadOrStore(key, pl.clock.Now())
		} else if !isGang && p.Spec.NodeName == "" {
			pl.loneSeen.LoadOrStore(p.UID, pl.clock.Now())
		}
	}
}
