// Package gangview turns what the API server holds about gangs (member pods,
// scheduler-plugins PodGroups, Muster's ProvisioningRequests, nodes) into
// one row per gang: what kubectl muster prints. It reads only what Muster
// writes (PodGroup status, pod conditions, request conditions), so it shows
// the scheduler's own words, and decides nothing.
package gangview

import (
	"fmt"
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	schedv1beta1 "k8s.io/api/scheduling/v1beta1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	schedv1alpha1 "sigs.k8s.io/scheduler-plugins/apis/scheduling/v1alpha1"

	autoscalingv1 "github.com/muster-project/muster/pkg/apis/autoscaling/v1"
	"github.com/muster-project/muster/pkg/apis/config"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/provisioning"
	"github.com/muster-project/muster/pkg/topology"
)

// Row is one gang.
type Row struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Source is where the gang's spec comes from: podgroup (a
	// scheduler-plugins PodGroup), workload (upstream's PodGroup,
	// scheduling.k8s.io/v1beta1) or labels (Muster's CRD-free label).
	Source  string `json:"source"`
	Members int    `json:"members"`
	Bound   int    `json:"bound"`
	Min     int32  `json:"min"`
	Max     int32  `json:"max"`
	Phase   string `json:"phase"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
	// Waited is from the first member's creation to the min-th bind, or to
	// now while the quorum is not bound.
	Waited time.Duration `json:"waited"`
	// Domain is the narrowest topology domain all bound members share
	// ("placement-group=ppg-ib"), or the level the gang requires while none
	// is bound ("requires placement-group").
	Domain string `json:"domain,omitempty"`
	// Request is the gang's ProvisioningRequest and its state.
	Request string `json:"request,omitempty"`
	// Pods are the members, oldest first.
	Pods []*v1.Pod `json:"-"`
}

// PodGroup is a scheduler-plugins PodGroup with the status conditions
// Muster writes beside the fields the typed API knows.
type PodGroup struct {
	schedv1alpha1.PodGroup
	Conditions []metav1.Condition
}

// PodGroupFrom reads a PodGroup as the API server returns it.
func PodGroupFrom(u *unstructured.Unstructured) (PodGroup, error) {
	var pg PodGroup
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &pg.PodGroup); err != nil {
		return pg, fmt.Errorf("PodGroup %s/%s: %w", u.GetNamespace(), u.GetName(), err)
	}
	conds, _, err := unstructured.NestedSlice(u.Object, "status", "conditions")
	if err != nil {
		return pg, fmt.Errorf("PodGroup %s/%s: status.conditions: %w", u.GetNamespace(), u.GetName(), err)
	}
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if !ok {
			continue
		}
		var cond metav1.Condition
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &cond); err != nil {
			return pg, fmt.Errorf("PodGroup %s/%s: status.conditions: %w", u.GetNamespace(), u.GetName(), err)
		}
		pg.Conditions = append(pg.Conditions, cond)
	}
	return pg, nil
}

// Objects is what Build reads.
type Objects struct {
	Pods      []v1.Pod
	PodGroups []PodGroup
	// WorkloadPodGroups and Workloads are upstream's (scheduling.k8s.io/v1beta1).
	WorkloadPodGroups []schedv1beta1.PodGroup
	Workloads         []schedv1beta1.Workload
	Requests          []autoscalingv1.ProvisioningRequest
	Nodes             []v1.Node
	// Levels are the topology levels, narrowest first (nil: Muster's
	// defaults).
	Levels []config.TopologyLevel
}

// Build returns a row per gang, by namespace and name. Members whose gang
// labels are invalid are skipped; a gang whose spec is invalid shows
// InvalidSpec with the error.
func Build(o Objects, now time.Time) []Row {
	levels := o.Levels
	if levels == nil {
		levels = config.DefaultTopologyLevels()
	}
	nodes := make(map[string]*v1.Node, len(o.Nodes))
	for i := range o.Nodes {
		nodes[o.Nodes[i].Name] = &o.Nodes[i]
	}
	pgs := map[gang.Key]*PodGroup{}
	for i := range o.PodGroups {
		pg := &o.PodGroups[i]
		pgs[gang.Key{Namespace: pg.Namespace, Name: pg.Name}] = pg
	}
	wpgs := map[gang.Key]*schedv1beta1.PodGroup{}
	for i := range o.WorkloadPodGroups {
		pg := &o.WorkloadPodGroups[i]
		wpgs[gang.Key{Namespace: pg.Namespace, Name: pg.Name}] = pg
	}
	workloads := map[gang.Key]*schedv1beta1.Workload{}
	for i := range o.Workloads {
		wl := &o.Workloads[i]
		workloads[gang.Key{Namespace: wl.Namespace, Name: wl.Name}] = wl
	}
	type group struct {
		source gang.Source
		pods   []*v1.Pod
	}
	groups := map[gang.Key]*group{}
	for i := range o.Pods {
		p := &o.Pods[i]
		k, src, ok, err := gang.GroupOf(p)
		if !ok || err != nil {
			continue
		}
		g := groups[k]
		if g == nil {
			g = &group{source: src}
			groups[k] = g
		}
		g.pods = append(g.pods, p)
	}
	// A PodGroup without members yet is a gang too.
	for k := range pgs {
		if groups[k] == nil {
			groups[k] = &group{source: gang.SourcePodGroup}
		}
	}
	for k := range wpgs {
		if groups[k] == nil {
			groups[k] = &group{source: gang.SourceWorkload}
		}
	}
	requests := map[gang.Key][]*autoscalingv1.ProvisioningRequest{}
	for i := range o.Requests {
		pr := &o.Requests[i]
		if name := pr.Labels[provisioning.GangLabel]; name != "" {
			k := gang.Key{Namespace: pr.Namespace, Name: name}
			requests[k] = append(requests[k], pr)
		}
	}

	rows := make([]Row, 0, len(groups))
	for k, g := range groups {
		sort.Slice(g.pods, func(i, j int) bool { return older(g.pods[i], g.pods[j]) })
		r := Row{Namespace: k.Namespace, Name: k.Name, Source: sourceName(g.source), Pods: g.pods}
		var spec gang.Spec
		var err error
		pg := pgs[k]
		wpg := wpgs[k]
		if g.source != gang.SourcePodGroup {
			pg = nil
		}
		if g.source != gang.SourceWorkload {
			wpg = nil
		}
		switch {
		case g.source == gang.SourcePodGroup && pg == nil:
			err = fmt.Errorf("PodGroup %s does not exist", k)
		case g.source == gang.SourcePodGroup:
			spec, err = gang.SpecFromPodGroup(&pg.PodGroup, gang.Defaults{})
		case g.source == gang.SourceWorkload && wpg == nil:
			err = fmt.Errorf("%s does not exist", gang.WorkloadObject("PodGroup", k))
		case g.source == gang.SourceWorkload:
			var wl *schedv1beta1.Workload
			if ref := wpg.Spec.WorkloadRef; ref != nil {
				wl = workloads[gang.Key{Namespace: k.Namespace, Name: ref.WorkloadName}]
			}
			spec, err = gang.SpecFromWorkload(wpg, wl, gang.Defaults{})
		case len(g.pods) > 0:
			spec, err = gang.SpecFromPod(g.pods[0], k, gang.Defaults{})
		}
		obs := observe(g.pods)
		r.Members, r.Bound, r.Min, r.Max = obs.Members, obs.Placed, spec.MinMember, spec.MaxMember
		switch {
		case err != nil:
			r.Phase, r.Reason, r.Message = gang.PhasePending, gang.ReasonInvalidSpec, err.Error()
		case wpg != nil:
			r.Phase, r.Reason, r.Message = workloadStatus(spec, obs, wpg, g.pods)
		default:
			r.Phase, r.Reason, r.Message = status(spec, obs, pg, g.pods)
		}
		r.Waited = waited(g.pods, spec.MinMember, now)
		if len(g.pods) == 0 {
			if pg != nil {
				r.Waited = now.Sub(pg.CreationTimestamp.Time)
			}
			if wpg != nil {
				r.Waited = now.Sub(wpg.CreationTimestamp.Time)
			}
		}
		r.Domain = domain(g.pods, nodes, levels, spec.Annotations)
		r.Request = requestState(requests[k])
		rows = append(rows, r)
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].Namespace != rows[j].Namespace {
			return rows[i].Namespace < rows[j].Namespace
		}
		return rows[i].Name < rows[j].Name
	})
	return rows
}

func sourceName(s gang.Source) string {
	switch s {
	case gang.SourcePodGroup:
		return "podgroup"
	case gang.SourceWorkload:
		return "workload"
	}
	return "labels"
}

func older(a, b *v1.Pod) bool {
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	}
	return a.Name < b.Name
}

// observe counts members as the status writer does, from the API alone:
// placed means bound.
func observe(pods []*v1.Pod) gang.Observed {
	var o gang.Observed
	for _, p := range pods {
		switch p.Status.Phase {
		case v1.PodSucceeded:
			o.Succeeded++
			continue
		case v1.PodFailed:
			o.Failed++
			continue
		case v1.PodRunning:
			o.Running++
		}
		if p.DeletionTimestamp != nil {
			continue
		}
		o.Members++
		if p.Spec.NodeName != "" {
			o.Placed++
		}
	}
	return o
}

// status is the PodGroup's phase and Scheduled condition as Muster wrote
// them; for a CRD-free gang (which has no object to hold them) the same
// summary from its members, with the scheduler's last word on an unplaced
// member as the reason it waits.
func status(spec gang.Spec, obs gang.Observed, pg *PodGroup, pods []*v1.Pod) (phase, reason, message string) {
	if pg != nil {
		for _, c := range pg.Conditions {
			if c.Type == gang.ConditionScheduled && pg.Status.Phase != "" {
				return string(pg.Status.Phase), c.Reason, c.Message
			}
		}
	}
	var why string
	for _, p := range pods {
		if p.Spec.NodeName != "" {
			continue
		}
		for _, c := range p.Status.Conditions {
			if c.Type == v1.PodScheduled && c.Status == v1.ConditionFalse && c.Message != "" {
				why = c.Message
			}
		}
		if why != "" {
			break
		}
	}
	s := spec.Summarize(obs, false, why)
	return s.Phase, s.Reason, s.Message
}

// workloadStatus reads an upstream PodGroup's status as Muster writes it:
// its Scheduled condition in words; the phase (upstream's API has none) as
// the status writer derives it, the quorum counting as placed once
// upstream's PodGroupInitiallyScheduled is true.
func workloadStatus(spec gang.Spec, obs gang.Observed, pg *schedv1beta1.PodGroup, pods []*v1.Pod) (phase, reason, message string) {
	everPlaced := apimeta.IsStatusConditionTrue(pg.Status.Conditions, schedv1beta1.PodGroupInitiallyScheduled)
	phase = spec.Summarize(obs, everPlaced, "").Phase
	if c := apimeta.FindStatusCondition(pg.Status.Conditions, gang.ConditionScheduled); c != nil {
		return phase, c.Reason, c.Message
	}
	return status(spec, obs, nil, pods)
}

// waited is from the first member's creation to the min-th bind (the
// PodScheduled condition turning true), or to now while fewer are bound.
func waited(pods []*v1.Pod, min int32, now time.Time) time.Duration {
	if len(pods) == 0 {
		return 0
	}
	first := pods[0].CreationTimestamp.Time
	var binds []time.Time
	for _, p := range pods {
		for _, c := range p.Status.Conditions {
			if p.Spec.NodeName != "" && c.Type == v1.PodScheduled && c.Status == v1.ConditionTrue {
				binds = append(binds, c.LastTransitionTime.Time)
			}
		}
	}
	if min > 0 && len(binds) >= int(min) {
		sort.Slice(binds, func(i, j int) bool { return binds[i].Before(binds[j]) })
		return max(0, binds[min-1].Sub(first))
	}
	return max(0, now.Sub(first))
}

// domain names the narrowest level all bound members' nodes share a value
// of, or the level the gang requires while none is bound.
func domain(pods []*v1.Pod, nodes map[string]*v1.Node, levels []config.TopologyLevel, annotations map[string]string) string {
	var bound []*v1.Node
	for _, p := range pods {
		if p.Spec.NodeName == "" {
			continue
		}
		n := nodes[p.Spec.NodeName]
		if n == nil {
			return "" // a node we cannot read: say nothing rather than guess
		}
		bound = append(bound, n)
	}
	if len(bound) == 0 {
		if l := annotations[topology.RequiredLevelAnnotation]; l != "" {
			return "requires " + l
		}
		return ""
	}
	for _, l := range levels {
		v, ok := bound[0].Labels[l.Label]
		if !ok {
			continue
		}
		same := true
		for _, n := range bound[1:] {
			if n.Labels[l.Label] != v {
				same = false
				break
			}
		}
		if same {
			return l.Name + "=" + v
		}
	}
	return "spread"
}

// requestState names the gang's newest request and what the autoscaler
// said of it.
func requestState(prs []*autoscalingv1.ProvisioningRequest) string {
	if len(prs) == 0 {
		return ""
	}
	sort.Slice(prs, func(i, j int) bool { return prs[j].CreationTimestamp.Before(&prs[i].CreationTimestamp) })
	pr := prs[0]
	var count int32
	for _, ps := range pr.Spec.PodSets {
		count += ps.Count
	}
	state := "Pending"
	for _, t := range []string{autoscalingv1.Failed, autoscalingv1.BookingExpired, autoscalingv1.CapacityRevoked, autoscalingv1.Provisioned} {
		for _, c := range pr.Status.Conditions {
			if c.Type == t && c.Status == metav1.ConditionTrue {
				state = t
			}
		}
		if state != "Pending" {
			break
		}
	}
	if state == "Pending" {
		for _, c := range pr.Status.Conditions {
			if c.Type == autoscalingv1.Provisioned && c.Reason != "" {
				state = c.Reason // e.g. CapacityIsNotFound
			}
		}
	}
	return fmt.Sprintf("%s (%d pods, %s)", pr.Name, count, state)
}

// Age renders a duration as kubectl does for ages: 45s, 12m, 3h20m, 2d4h.
func Age(d time.Duration) string {
	switch d = d.Round(time.Second); {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	default:
		return fmt.Sprintf("%dd%dh", int(d.Hours())/24, int(d.Hours())%24)
	}
}

// Short cuts a message to n runes for a table cell.
func Short(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
