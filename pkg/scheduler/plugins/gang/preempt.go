// Preemption: the configured rules, making room for a failed quorum, evicting members, event objects.

package gang

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/muster-project/muster/pkg/apis/config"
	"github.com/muster-project/muster/pkg/capacity"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/gangstate"
)

// preemption holds the configured rules, highest minPriority first.
type preemption struct {
	rules []config.PreemptionRule
	// nodesCanHelp: the cluster serves ProvisioningRequests, so a gang short
	// of room may get new nodes instead (when its request is out: see
	// nodesMayCome).
	nodesCanHelp bool
}

func newPreemption(ctx context.Context, h fwk.Handle, rules []config.PreemptionRule) preemption {
	p := preemption{rules: append([]config.PreemptionRule(nil), rules...)}
	sort.Slice(p.rules, func(i, j int) bool { return p.rules[i].MinPriority > p.rules[j].MinPriority })
	if cfg := h.KubeConfig(); cfg != nil {
		if dc, err := discovery.NewDiscoveryClientForConfig(cfg); err == nil {
			if _, err := dc.ServerResourcesForGroupVersion("autoscaling.x-k8s.io/v1"); err == nil {
				p.nodesCanHelp = true
			}
		}
	}
	klog.FromContext(ctx).V(2).Info("Preemption rules", "rules", p.rules, "newNodesPossible", p.nodesCanHelp)
	return p
}

// policy returns the policy of the rule a priority falls under; Never when
// no rule covers it.
func (p preemption) policy(priority int32) capacity.Policy {
	for _, r := range p.rules {
		if priority >= r.MinPriority {
			return capacity.Policy{Preempt: r.Policy == config.PreemptLowerPriority, MaxWaitForNodes: time.Duration(*r.MaxWaitForNodesSeconds) * time.Second}
		}
	}
	return capacity.Policy{}
}

// makeRoom runs when a gang's quorum attempt fails: it asks capacity.MakeRoom
// what must leave for the quorum to fit, under the gang's preemption policy,
// and evicts it. It returns what it did in words, "" when it took nothing.
// Like the framework's DefaultPreemption it runs in the scheduling cycle.
//
// Whole gangs are preempted at once when no new nodes may come for the gang
// (nodesMayCome); while they may, the gang waits up to its policy's
// MaxWaitForNodes, and its Preempting condition says so when preempting
// would make room. When shedding alone does not make room, it records in
// cs the members the gang may shed, for the nodes it asks for
// (gangstate.Cycle.Sheddable).
func (pl *Gang) makeRoom(ctx context.Context, cs *gangstate.Cycle, spec gang.Spec, pod *v1.Pod, quorum capacity.Quorum, rooms []capacity.Node, held capacity.Held) string {
	logger := klog.FromContext(ctx)
	priority := corev1helpers.PodPriority(pod)
	policy := pl.preemption.policy(priority)
	waited := pl.clock.Since(pl.created(spec))
	nodesMay, noNodes := pl.nodesMayCome(spec.Key)
	rule := policy.Rule(waited, nodesMay)
	if !rule.Shed && !rule.Preempt {
		return ""
	}
	others, keys := pl.runningGangs(spec.Key)
	me := capacity.Gang{Key: spec.Key.String(), Priority: priority, Since: pl.created(spec), Min: int64(spec.MinMember), Starving: waited >= pl.starvationBound}
	room := capacity.MakeRoom(logger, quorum, me, rooms, held, others, nil, rule, pl.clock.Now())
	if policy.Preempt && !rule.Preempt && (!room.Fits || len(room.Victims) == 0) {
		// Shedding alone does not make room: say whether preempting
		// would, and that the gang waits for nodes first.
		whole := rule
		whole.Preempt = true
		if r := capacity.MakeRoom(logger, quorum, me, rooms, held, others, nil, whole, pl.clock.Now()); r.Fits && len(r.Victims) > 0 {
			msg := fmt.Sprintf("preempting lower-priority gangs would make room for its quorum; it waits up to %s more for new nodes first (its ProvisioningRequest is out)",
				max(0, policy.MaxWaitForNodes-waited).Round(time.Second))
			pl.state.ReportCondition(spec.Key, metav1.Condition{Type: gang.ConditionPreempting, Status: metav1.ConditionFalse, Reason: gang.ReasonWaitingForNodes, Message: msg})
			pl.status.touch(spec.Key)
		}
	}
	if !room.Fits && cs != nil {
		// Shedding alone does not make room; with new nodes it may: the
		// gang asks for what the members it may shed leave short.
		cs.Sheddable = capacity.Sheddable(logger, me, others, rule, rooms, held)
	}
	if !room.Fits || len(room.Victims) == 0 {
		return ""
	}
	var said []string
	for _, v := range room.Victims {
		msg := v.Message(spec.Key.String(), priority)
		reason := gang.ReasonShed
		if v.Whole {
			reason = gang.ReasonPreempted
		}
		for _, m := range v.Members {
			pl.evict(ctx, m.Shape.Example, reason, v1.PodReasonPreemptionByScheduler, msg)
		}
		victim := keys[v.Gang.Key]
		pl.state.ReportCondition(victim, metav1.Condition{Type: gang.ConditionDisrupted, Status: metav1.ConditionTrue, Reason: reason, Message: msg})
		if obj := pl.eventObject(victim, v.Members[0].Shape.Example); obj != nil {
			pl.handle.EventRecorder().Eventf(obj, nil, v1.EventTypeWarning, reason, "Preempting", "%s", msg)
		}
		pl.status.touch(victim)
		said = append(said, fmt.Sprintf("%s of %s", v.What(), v.Gang.Key))
		logger.V(2).Info("Made room for a gang", "gang", spec.Key, "victim", v.Gang.Key, "members", len(v.Members), "whole", v.Whole)
	}
	msg := strings.Join(said, "; ") + fmt.Sprintf(" to make room for its quorum (priority %d)", priority)
	if rule.Preempt && !nodesMay {
		msg += "; no new nodes can come for it: " + noNodes
	}
	pl.state.ReportCondition(spec.Key, metav1.Condition{Type: gang.ConditionPreempting, Status: metav1.ConditionTrue, Reason: gang.ReasonMadeRoom, Message: msg})
	if obj := pl.eventObject(spec.Key, pod); obj != nil {
		pl.handle.EventRecorder().Eventf(obj, nil, v1.EventTypeNormal, gang.ReasonMadeRoom, "Preempting", "%s", msg)
	}
	pl.status.touch(spec.Key)
	return msg
}

// nodesMayCome says whether new nodes may still come for gang k, and why
// not: the ProvisioningRequest writer's answer (provisioning.Writer.
// NodesMayCome), or, where the profile writes no requests, never.
func (pl *Gang) nodesMayCome(k gang.Key) (bool, string) {
	if may, why, known := pl.state.NodesMayCome(k); known {
		return may, why
	}
	if !pl.preemption.nodesCanHelp {
		return false, "the cluster serves no ProvisioningRequests"
	}
	return false, "no ProvisioningRequest is written for it (MusterTopology is not in the profile)"
}

// runningGangs lists every other gang with members bound, as MakeRoom reads
// them, and the gang keys by their string form.
func (pl *Gang) runningGangs(except gang.Key) ([]capacity.Gang, map[string]gang.Key) {
	byKey := map[gang.Key][]*v1.Pod{}
	for _, o := range pl.pods.List() {
		p, ok := o.(*v1.Pod)
		if !ok || p.Spec.NodeName == "" || !gang.Live(p) {
			continue
		}
		k, _, isGang, err := gang.GroupOf(p)
		if !isGang || err != nil || k == except {
			continue
		}
		byKey[k] = append(byKey[k], p)
	}
	out := make([]capacity.Gang, 0, len(byKey))
	keys := make(map[string]gang.Key, len(byKey))
	for k, pods := range byKey {
		spec, _, err := pl.resolve(pods[0])
		if err != nil {
			continue // bad input: reported on the gang, never a victim
		}
		g := capacity.Gang{Key: k.String(), Priority: corev1helpers.PodPriority(pods[0]), Since: pl.created(spec), Min: int64(spec.MinMember), WholeOnly: spec.WholeOnly}
		for _, p := range pods {
			started := p.CreationTimestamp.Time
			if p.Status.StartTime != nil {
				started = p.Status.StartTime.Time
			}
			g.Bound = append(g.Bound, capacity.Member{Name: p.Namespace + "/" + p.Name, Node: p.Spec.NodeName,
				Shape: pl.shapes.DemandOf(p), Started: started})
		}
		out = append(out, g)
		keys[g.Key] = k
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, keys
}

// evict evicts a member through the Eviction API, so that
// PodDisruptionBudgets hold, then sets its DisruptionTarget condition, with
// condReason, to say why: which gang it made room for, or that its own gang
// stranded it (the Eviction API writes its own condition first).
func (pl *Gang) evict(ctx context.Context, p *v1.Pod, reason, condReason, msg string) {
	logger := klog.FromContext(ctx)
	client := pl.handle.ClientSet()
	pl.evicting.Store(p.UID, p)
	err := client.PolicyV1().Evictions(p.Namespace).Evict(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace}})
	if err != nil {
		pl.evicting.Delete(p.UID)
	}
	switch {
	case apierrors.IsNotFound(err):
		return
	case err != nil:
		logger.Error(err, "Could not evict a member", "pod", klog.KObj(p))
		pl.handle.EventRecorder().Eventf(p, nil, v1.EventTypeWarning, "EvictionFailed", "Evicting", "could not evict (%v): %s", err, msg)
		return
	}
	evictions.WithLabelValues(reason).Inc()
	pl.handle.EventRecorder().Eventf(p, nil, v1.EventTypeNormal, reason, "Evicting", "%s", msg)
	patch, _ := json.Marshal(map[string]any{"status": map[string]any{"conditions": []v1.PodCondition{{
		Type: v1.DisruptionTarget, Status: v1.ConditionTrue, Reason: condReason,
		Message: "muster-scheduler: " + msg, LastTransitionTime: metav1.Now(),
	}}}})
	if _, err := client.CoreV1().Pods(p.Namespace).Patch(ctx, p.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil && !apierrors.IsNotFound(err) {
		logger.V(2).Info("Could not say why a member was evicted", "pod", klog.KObj(p), "err", err)
	}
}

// Evicting lists the members evicted to make room that the plugin has not
// yet seen deleted. A stepped scheduler takes its next pod only once they
// are gone from its cache (controlplane's beforePop): an evicted pod holds
// its node until then, and which of the freed nodes the preemptor's
// members took followed how many deletions had come in by each attempt
// (seed 3 of --random, minute 25).
func (pl *Gang) Evicting() []*v1.Pod {
	var pods []*v1.Pod
	pl.evicting.Range(func(_, v any) bool {
		pods = append(pods, v.(*v1.Pod))
		return true
	})
	return pods
}

// podDeleted forgets what the plugin kept of a pod now deleted.
func (pl *Gang) podDeleted(uid types.UID) {
	pl.loneSeen.Delete(uid)
	pl.wideOnce.Delete(uid)
	pl.gatedPods.Delete(uid)
	pl.heldPods.Delete(uid)
	pl.heldExtras.Delete(uid)
	pl.evicting.Delete(uid)
}

// eventObject is what a gang's events go on: its PodGroup, or for a
// CRD-free gang the member given.
func (pl *Gang) eventObject(k gang.Key, member *v1.Pod) runtime.Object {
	_, src, _, _ := gang.GroupOf(member)
	if src == gang.SourceWorkload && pl.workloads != nil {
		if pg, err := pl.workloads.podGroups.PodGroups(k.Namespace).Get(k.Name); err == nil {
			return workloadPodGroupRef(pg)
		}
	}
	if src == gang.SourcePodGroup && pl.podGroups != nil {
		if pg, err := pl.podGroups.PodGroups(k.Namespace).Get(k.Name); err == nil {
			// Listed objects carry no kind; the recorder needs a reference.
			return &v1.ObjectReference{APIVersion: "scheduling.x-k8s.io/v1alpha1", Kind: "PodGroup", Namespace: pg.Namespace, Name: pg.Name, UID: pg.UID}
		}
	}
	return member
}
