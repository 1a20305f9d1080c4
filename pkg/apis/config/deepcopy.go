// Hand-written DeepCopyInto and DeepCopyObject for GangArgs and TopologyArgs.

package config

import "k8s.io/apimachinery/pkg/runtime"

// DeepCopyInto copies a into out.
func (a *GangArgs) DeepCopyInto(out *GangArgs) {
	*out = *a
	out.TypeMeta = a.TypeMeta
	if a.ScheduleTimeoutSeconds != nil {
		v := *a.ScheduleTimeoutSeconds
		out.ScheduleTimeoutSeconds = &v
	}
	if a.BackoffSeconds != nil {
		v := *a.BackoffSeconds
		out.BackoffSeconds = &v
	}
	if a.MaxGangMembers != nil {
		v := *a.MaxGangMembers
		out.MaxGangMembers = &v
	}
	if a.StatusSyncMillis != nil {
		v := *a.StatusSyncMillis
		out.StatusSyncMillis = &v
	}
	if a.PodWriteQPS != nil {
		v := *a.PodWriteQPS
		out.PodWriteQPS = &v
	}
	if a.StarvationBoundSeconds != nil {
		v := *a.StarvationBoundSeconds
		out.StarvationBoundSeconds = &v
	}
	if a.SpotExtras != nil {
		v := *a.SpotExtras
		out.SpotExtras = &v
	}
	if a.Preemption != nil {
		out.Preemption = make([]PreemptionRule, len(a.Preemption))
		for i, r := range a.Preemption {
			out.Preemption[i] = r
			if r.MaxWaitForNodesSeconds != nil {
				v := *r.MaxWaitForNodesSeconds
				out.Preemption[i].MaxWaitForNodesSeconds = &v
			}
		}
	}
}

// DeepCopyObject implements runtime.Object, as plugin args must.
func (a *GangArgs) DeepCopyObject() runtime.Object {
	if a == nil {
		return nil
	}
	out := new(GangArgs)
	a.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies a into out.
func (a *TopologyArgs) DeepCopyInto(out *TopologyArgs) {
	*out = *a
	out.Levels = append([]TopologyLevel(nil), a.Levels...)
	out.ProvisionableLevels = append([]string(nil), a.ProvisionableLevels...)
	if a.ShapeWindow != nil {
		v := *a.ShapeWindow
		out.ShapeWindow = &v
	}
	if a.AutoscalerHints != nil {
		v := *a.AutoscalerHints
		out.AutoscalerHints = &v
	}
	if a.HintSyncMillis != nil {
		v := *a.HintSyncMillis
		out.HintSyncMillis = &v
	}
}

// DeepCopyObject implements runtime.Object, as plugin args must.
func (a *TopologyArgs) DeepCopyObject() runtime.Object {
	if a == nil {
		return nil
	}
	out := new(TopologyArgs)
	a.DeepCopyInto(out)
	return out
}
