// The hint writer in the plugin: its start, PostFilter handing it a gang's shortfall, GPU class terms.

package gputopology

import (
	"context"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	autoscalingv1 "github.com/muster-project/muster/pkg/apis/autoscaling/v1"
	"github.com/muster-project/muster/pkg/capacity"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/gangstate"
	"github.com/muster-project/muster/pkg/scheduler/nodefit"
	"github.com/muster-project/muster/pkg/scheduler/provisioning"
	"github.com/muster-project/muster/pkg/scheduler/served"
	"github.com/muster-project/muster/pkg/shortfall"
	"github.com/muster-project/muster/pkg/topology"
)

// hintInterval bounds how often one gang's shortfall is recomputed: members
// of a failed gang reach PostFilter one after another, and retry while the
// gang backs off.
const hintInterval = time.Second

// buildRequestWriter builds the ProvisioningRequest writer when the cluster serves
// the API, and hands it to the scheduler's controller runner; without the
// API gangs are scheduled the same, only no requests are written.
func (pl *Topology) buildRequestWriter(ctx context.Context, h fwk.Handle, period time.Duration) error {
	logger := klog.FromContext(ctx)
	cfg := h.KubeConfig()
	if cfg == nil {
		return nil
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return err
	}
	ok, err := served.Serves(ctx, dc, autoscalingv1.Resource)
	if err != nil {
		return err
	}
	if !ok {
		logger.Info("ProvisioningRequests are not served; gangs short of capacity get no autoscaler hints until muster-scheduler restarts", "groupVersion", autoscalingv1.GroupVersion.String())
		return nil
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	report := func(k gang.Key, c metav1.Condition) { pl.state.ReportCondition(k, c) }
	synced := h.SharedInformerFactory().Core().V1().Pods().Informer().HasSynced
	// Members' marks go through the profile's one pod writer, which
	// MusterGang's podWriteQPS limits.
	marks, err := pl.state.Marks(ctx, cfg, h.ClientSet())
	if err != nil {
		return err
	}
	pl.requests, err = provisioning.NewWriter(h.ClientSet(), dyn, marks, provisioning.Options{
		Members:      provisioning.Members(pl.pods, gangstate.GangIndex),
		Synced:       synced,
		Report:       report,
		Period:       period,
		Now:          pl.clock.Now,
		GPUResource:  pl.gpu,
		Leading:      pl.leading.Leading,
		OnBookingEnd: func() { pl.activateWaitingGPUPods(logger, h) },
	})
	if err != nil {
		return err
	}
	pl.state.ShareBookings(pl.requests.BookedNodes)
	pl.state.ShareNodesMayCome(pl.requests.NodesMayCome)
	pl.state.ShareNeverFits(pl.requests.NeverFits)
	pl.state.ShareRequests(pl.requests)
	pl.state.AddController(ctx, "ProvisioningRequests", pl.requests.Run)
	return nil
}

// activateWaitingGPUPods moves pending GPU pods back to the active queue
// when a booking ends: Filter kept them off the booked nodes, and no
// cluster event tells the queue those nodes are open now. The queue ignores
// pods it does not hold.
func (pl *Topology) activateWaitingGPUPods(logger klog.Logger, h fwk.Handle) {
	pods := map[string]*v1.Pod{}
	for _, o := range pl.pods.List() {
		if p, ok := o.(*v1.Pod); ok && p.Spec.NodeName == "" && p.DeletionTimestamp == nil && pl.gpusOf(p) > 0 {
			pods[p.Namespace+"/"+p.Name] = p
		}
	}
	if len(pods) > 0 {
		logger.V(3).Info("A booking ended; retrying pending GPU pods", "pods", len(pods))
		h.Activate(logger, pods)
	}
}

// PostFilter runs when a member fits no node, after MusterGang has failed the
// gang's attempt: it works out what the gang lacks and hands the verdict to
// the hints writer. It never makes a member schedulable itself.
func (pl *Topology) PostFilter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, _ fwk.NodeToStatusReader) (*fwk.PostFilterResult, *fwk.Status) {
	unschedulable := fwk.NewStatus(fwk.Unschedulable)
	spec, ok := gangstate.SpecFromCycleState(state)
	if !ok {
		return nil, unschedulable // a lone pod: any autoscaler handles it
	}
	if s, ok := readState(state); ok && !gangstate.NarrowedCycle(state) {
		// The member fits no node: unless only its gang's own nodes were
		// tried, the gang's attempt ends, and with it what it claimed.
		pl.mu.Lock()
		pl.dropClaims(s.placement)
		pl.mu.Unlock()
	}
	if pl.requests == nil {
		return nil, unschedulable
	}
	now := pl.clock.Now()
	pl.mu.Lock()
	if last, ok := pl.hinted[spec.Key]; (ok && now.Sub(last) < hintInterval) || !pl.hasMembers(spec.Key) {
		// A gang whose last member went while this cycle ran gets no hint:
		// podGone has already forgotten it, and an entry made now would stay.
		pl.mu.Unlock()
		return nil, unschedulable
	}
	pl.hinted[spec.Key] = now
	pl.mu.Unlock()

	nodes, err := pl.handle.SnapshotSharedLister().NodeInfos().List()
	if err != nil {
		return nil, unschedulable
	}
	var sheddable []capacity.Member
	if c := gangstate.CycleOf(state); c != nil {
		sheddable = c.Sheddable
	}
	want := pl.shortfall(klog.FromContext(ctx), spec, pod, nodes, sheddable)
	pl.requests.Set(want)
	klog.FromContext(ctx).V(3).Info("Gang shortfall", "gang", spec.Key, "ask", want.Verdict.Ask, "short", want.Verdict.Short, "reason", want.Verdict.NoReason, "message", want.Verdict.Message)
	return nil, unschedulable
}

// shortfall gathers what shortfall.Decide needs: the gang's members, and how much
// of its quorum (every member shape of it) has room per domain of its
// required level, leaving out nodes booked for other gangs. The request then
// lists, per shape, what the best domain is short of. The room of
// sheddable members (those above min of other gangs that the gang may shed,
// gangstate.Cycle.Sheddable) counts as the gang's: once the nodes asked for
// come, MusterGang sheds them to complete the quorum. One pass over the
// nodes, once per gang per hintInterval.
func (pl *Topology) shortfall(logger klog.Logger, spec gang.Spec, pod *v1.Pod, nodes []fwk.NodeInfo, sheddable []capacity.Member) provisioning.Want {
	g := shortfall.Facts{Min: int64(spec.MinMember), Max: int64(spec.MaxMember), Room: map[string]int64{}}
	members := provisioning.Members(pl.pods, gangstate.GangIndex)(spec.Key)
	var unplaced []*v1.Pod
	for _, m := range members {
		if m.DeletionTimestamp != nil {
			continue
		}
		g.Exists++
		if m.Spec.NodeName != "" {
			g.Placed++
		} else if gang.Live(m) {
			unplaced = append(unplaced, m)
		}
	}
	want := provisioning.Want{Key: spec.Key, Min: g.Min, Source: spec.Source, SpotExtras: spec.SpotExtras}
	req, err := topology.GangRequest(spec, pl.levels, spec.Object(pod))
	if err != nil {
		g.Invalid = err
		want.Verdict = shortfall.Decide(g)
		return want
	}
	// Members above min of a gang confined to a domain get no spot nodes
	// bought: the autoscaler's one-by-one scale-up knows nothing of the
	// domain, and for a placement group its spot nodes always lie outside
	// (a scale set is spot or regular; ReasonSpotRequired).
	want.SpotExtras = spec.SpotExtras && req.Required == topology.Anywhere
	g.Unfixable = pinned(pod)
	label := ""
	if req.Required != topology.Anywhere {
		g.Level = pl.levels[req.Required].Name
		label = pl.levels[req.Required].Label
		g.Provisionable = pl.provisionable[g.Level]
	}
	// Nodes added for another gang's booking are not room: Filter keeps
	// members off them, and counting them would drop this gang's request
	// until that gang binds, then ask for the same nodes again.
	booked := pl.bookingsAgainst(spec.Key)
	g.Shed = len(sheddable)
	shedOn := make(map[string][]capacity.Member, len(sheddable))
	for _, m := range sheddable {
		shedOn[m.Node] = append(shedOn[m.Node], m)
	}
	all := make([]capacity.Node, 0, len(nodes))
	domains := map[string][]capacity.Node{}
	if label == "" {
		domains[""] = nil // the whole cluster is the one domain, even without nodes
	}
nodes:
	for _, ni := range nodes {
		node := ni.Node()
		if node == nil || capacity.IsSpot(node) {
			continue // a quorum's shortfall is counted in regular room only
		}
		if len(booked) > 0 {
			pid := strings.ToLower(node.Spec.ProviderID)
			for _, b := range booked {
				if b.Holds(pid) {
					continue nodes
				}
			}
		}
		room := nodefit.Room(ni)
		if shed := shedOn[node.Name]; len(shed) > 0 {
			room = room.Freed(shed)
		}
		all = append(all, room)
		if !req.Class.MatchesLabels(node.Labels) {
			continue
		}
		domain := ""
		if label != "" {
			var ok bool
			if domain, ok = node.Labels[label]; !ok || domain == "" {
				continue
			}
		}
		domains[domain] = append(domains[domain], room)
	}
	need := max(g.Min-g.Placed, 0)
	quorum := capacity.QuorumOfShapes(need, unplaced, pod, pl.memberShapes.Of)
	// Only GPU members are asked for: members without GPUs that find no
	// room are left to the autoscaler's ordinary scale-up (see
	// provisioning.Options.GPUResource), so they count as room here.
	shortIn := capacity.ShortByDomain(logger, quorum, domains, all)
	gpuNeed, _ := quorum.GPUMembers()
	g.Anywhere = need - gpuNeed
	for d, short := range shortIn {
		gpuShort, _ := short.GPUMembers()
		g.Room[d] = max(need-gpuShort, 0)
	}
	want.Verdict = shortfall.Decide(g)
	if want.Verdict.Ask {
		short, ok := shortIn[want.Verdict.Short.Domain]
		if !ok {
			// No domain has room to build on: new nodes form one, so every
			// GPU member is short.
			short = quorum
		}
		for _, w := range short {
			if w.Shape.GPUs > 0 {
				want.Sets = append(want.Sets, provisioning.Set{Member: w.Shape.Example, Count: w.Count, GPUs: w.Shape.GPUs, Shape: w.Shape.String()})
			}
		}
	}
	if want.Verdict.Ask && want.Verdict.Short.Domain != "" {
		want.AffinityLabel, want.AffinityValue = label, want.Verdict.Short.Domain
	}
	want.Require, want.TemplateAnnotations = classTerms(req.Class, spec.Annotations)
	return want
}

// classTerms states a gang's GPU class for the autoscaler: exact product
// names as a node requirement every autoscaler understands, and the gang's
// class and topology annotations on the template, which Muster's autoscaler
// also reads (product patterns, a memory floor).
func classTerms(c topology.Class, annotations map[string]string) ([]v1.NodeSelectorRequirement, map[string]string) {
	var reqs []v1.NodeSelectorRequirement
	exact := len(c.Products) > 0
	for _, p := range c.Products {
		if strings.ContainsAny(p, "*?[\\") {
			exact = false
		}
	}
	if exact {
		reqs = append(reqs, v1.NodeSelectorRequirement{Key: topology.ProductLabel, Operator: v1.NodeSelectorOpIn, Values: append([]string(nil), c.Products...)})
	}
	var ann map[string]string
	for _, k := range []string{topology.GPUProductAnnotation, topology.GPUMemoryAnnotation, topology.RequiredLevelAnnotation, topology.PreferredLevelAnnotation} {
		if v, ok := annotations[k]; ok {
			if ann == nil {
				ann = map[string]string{}
			}
			ann[k] = v
		}
	}
	return reqs, ann
}

// pinned says why a member can only ever run on nodes that exist now: a
// node name, or a hostname selector. New nodes would not help.
func pinned(pod *v1.Pod) string {
	if _, ok := pod.Spec.NodeSelector[topology.HostnameLabel]; ok {
		return "nodeSelector pins the member to a node by " + topology.HostnameLabel
	}
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			pins := false
			for _, e := range t.MatchExpressions {
				if e.Key == topology.HostnameLabel && e.Operator == v1.NodeSelectorOpIn {
					pins = true
				}
			}
			for _, f := range t.MatchFields {
				if f.Key == "metadata.name" && f.Operator == v1.NodeSelectorOpIn {
					pins = true
				}
			}
			if !pins {
				return ""
			}
		}
		return "required node affinity pins the member to named nodes"
	}
	return ""
}
