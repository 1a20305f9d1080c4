// PreFilter: a gang's topology domain chosen once, the nodes narrowed to it, room held while it starves.

package gputopology

import (
	"context"
	"fmt"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/muster-project/muster/pkg/capacity"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/gangstate"
	"github.com/muster-project/muster/pkg/scheduler/nodefit"
	"github.com/muster-project/muster/pkg/topology"
)

// PreFilter reads what the member's gang asks for and, when the gang's
// attempt starts, chooses its domain.
func (pl *Topology) PreFilter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	pl.leading.Scheduling()
	gpus := pl.gpusOf(pod)
	if gpus <= 0 {
		return nil, fwk.NewStatus(fwk.Skip)
	}
	spec := gangOf(state, pod)
	key, min := spec.Key, int64(spec.MinMember)
	req, err := topology.GangRequest(spec, pl.levels, spec.Object(pod))
	if err != nil {
		return nil, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, err.Error())
	}
	s := &cycleState{gpus: gpus, class: req.Class, lone: strings.HasPrefix(key.Name, "pod:")}
	// Other pods keep off nodes added for a gang's booking: a pod taking one
	// leaves the booked gang short, the autoscaler adds nodes again for it,
	// and the nodes it was adding for that pod go unused. A lone pod may
	// still use what such a node has left over after a booked member, as the
	// autoscaler's own simulation of the booking does.
	s.booked = pl.bookingsAgainst(key)

	pl.mu.Lock()
	defer pl.mu.Unlock()
	p := pl.gangs[key]
	if p == nil {
		p = pl.loadPlacement(key)
	}
	s.placement = p
	placed := int64(len(p.members))
	if _, self := p.members[pod.UID]; self {
		placed--
	}
	// Members without GPUs (an MPIJob's launcher) count toward the quorum
	// too; this plugin does not place them, so it counts the bound ones, in
	// gangs that have such members only.
	placedAll := placed
	if p.mixed && placed < min {
		placedAll += pl.boundWithoutGPUs(pl.membersOf(key))
	}
	var result *fwk.PreFilterResult
	switch {
	case placedAll >= min && placed > 0:
		// Elastic member: anywhere the required level allows, preferably in
		// the gang's domain.
		if req.Required != topology.Anywhere {
			// Filter, not a node set, confines elastic members, so that
			// `kubectl describe` names the required domain as the reason.
			s.required = pl.domainOf(p, req.Required)
		}
		if p.decided {
			s.prefer = pl.choiceLabel(p.choice)
		}
		if spec, ok := gangstate.SpecFromCycleState(state); ok && spec.SpotExtras {
			s.preferSpot = capacity.TolerateSpot(pod)
		}
	case placed > 0 && p.decided:
		// The quorum is being placed: stay in the chosen domain, on the
		// gang's own nodes while they have room for the member.
		s.domain = pl.choiceLabel(p.choice)
		s.prefer = s.domain
		result = p.domainNodes()
		if gangstate.MayNarrowToGang(state) {
			if own := pl.gangNodesWithRoom(p, gpus); own != nil {
				gangstate.NarrowedToGang(state)
				result = &fwk.PreFilterResult{NodeNames: own}
			}
		}
	case min == 1 && req.Required == topology.Anywhere && placed == 0:
		// A lone GPU pod without a topology ask: nothing to choose.
		pl.shapes.add(gpus)
	default:
		pl.shapes.add(gpus)
		pl.sync(nodes)
		quorum := capacity.Uniform(min-placedAll, pod, pl.gpu)
		if members := pl.membersOf(key); members != nil {
			p.mixed = pl.withoutGPUs(members)
			placedAll = placed + pl.boundWithoutGPUs(members)
			quorum = capacity.QuorumOfShapes(min-placedAll, pl.unplaced(members, p), pod, pl.memberShapes.Of)
		}
		// Room other gangs' choices claimed for members not reserved yet,
		// and room the capacity plan holds for gangs ahead, is not this
		// gang's to choose.
		pl.dropClaims(p)
		taken := pl.takenFor(gangstate.HeldFromCycleState(state))
		pl.adjustIndex(taken, 1)
		choice, why, ok := pl.choose(klog.FromContext(ctx), p, req, quorum, nodes, taken)
		var claims map[string]int64
		if ok {
			p.inDomain = nodesIn(pl.choiceLabel(choice), nodes) // nil: anywhere
			claims = pl.claimsFor(p, req, quorum, nodes)
		}
		pl.adjustIndex(taken, -1)
		pl.setClaims(p, claims)
		pl.decisions++
		if !ok {
			domainDecisions.WithLabelValues("unschedulable", topology.LevelName(pl.levels, req.Required)).Inc()
			pl.holdDomain(klog.FromContext(ctx), key, req, quorum, nodes)
			return nil, fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("gang %s %s", displayKey(key), why))
		}
		delete(pl.beyond, key)
		domainDecisions.WithLabelValues("chosen", topology.LevelName(pl.levels, choice.Level)).Inc()
		p.choice, p.decided = choice, true
		s.domain = pl.choiceLabel(choice)
		s.prefer = s.domain
		result = p.domainNodes()
		klog.FromContext(ctx).V(3).Info("Chose gang domain", "gang", key, "level", topology.LevelName(pl.levels, choice.Level), "domain", choice.Value, "room", choice.Room, "quorum", quorum.String())
	}
	pl.gangs[key] = p
	s.claimed = pl.claimedBesides(p)
	state.Write(stateKey, s)
	return result, nil
}

// gangNodesWithRoom lists the nodes already holding the gang's members that
// have GPUs free for one more member; nil when none has. Score ranks such a
// node above every other in the domain (scoreGangMembers), so Filter and
// Score need not visit the rest: a big gang's members then cost a handful
// of nodes each, not the whole cluster. Called with pl.mu held.
func (pl *Topology) gangNodesWithRoom(p *placement, gpus int64) sets.Set[string] {
	if pl.handle == nil || pl.handle.SnapshotSharedLister() == nil {
		return nil
	}
	lister := pl.handle.SnapshotSharedLister()
	var own sets.Set[string]
	for name, n := range p.onNode {
		if n <= 0 {
			continue
		}
		ni, err := lister.NodeInfos().Get(name)
		if err != nil || ni.Node() == nil || freeGPUs(ni, pl.gpu) < gpus {
			continue
		}
		if own == nil {
			own = sets.New[string]()
		}
		own.Insert(name)
	}
	return own
}

// nodesIn lists the nodes in a domain; nil for no domain (all nodes).
func nodesIn(lv labelValue, nodes []fwk.NodeInfo) sets.Set[string] {
	if lv.label == "" {
		return nil
	}
	in := sets.New[string]()
	for _, ni := range nodes {
		if n := ni.Node(); n != nil && lv.holds(n) {
			in.Insert(n.Name)
		}
	}
	return in
}

func (p *placement) domainNodes() *fwk.PreFilterResult {
	if p.inDomain == nil {
		return nil
	}
	return &fwk.PreFilterResult{NodeNames: p.inDomain}
}

func displayKey(k gang.Key) string {
	return k.Namespace + "/" + strings.TrimPrefix(k.Name, "pod:")
}

func (pl *Topology) choiceLabel(c topology.Choice) labelValue {
	if c.Level == topology.Anywhere {
		return labelValue{}
	}
	return labelValue{label: pl.levels[c.Level].Label, value: c.Value}
}

// domainOf returns the level's domain holding the gang's placed members (an
// impossible label value when they span several, so nothing else passes).
func (pl *Topology) domainOf(p *placement, level int) labelValue {
	label := pl.levels[level].Label
	value := ""
	for n := range p.onNode {
		ni, err := pl.handle.SnapshotSharedLister().NodeInfos().Get(n)
		if err != nil || ni.Node() == nil {
			continue
		}
		v := ni.Node().Labels[label]
		if value == "" {
			value = v
		} else if v != value {
			value = ""
			break
		}
	}
	if value == "" {
		// Members already span domains of the required level (placed before a
		// relabel): let elastic members join any of them rather than none.
		return labelValue{}
	}
	return labelValue{label: label, value: value}
}

// choose asks the index for the gang's domain and confirms it by packing the
// whole quorum, since the index counts only GPUs of the right class: the GPU
// members inside the domain, the members without GPUs on any node that
// admits them. A domain that fails the check is ruled out and the next best
// is tried.
func (pl *Topology) choose(logger klog.Logger, p *placement, req topology.Request, quorum capacity.Quorum, nodes []fwk.NodeInfo, taken map[string]int64) (topology.Choice, string, bool) {
	excluded := map[labelValue]bool{}
	gpuMembers, fewestGPUs := quorum.GPUMembers()
	// The index counts room in members of one size; with GPU members of
	// several sizes it counts the smallest, and the packing below confirms.
	demand := topology.Demand{Members: gpuMembers, GPUs: fewestGPUs, Request: req, Anchor: p.anchor(),
		Exclude: func(level int, value string) bool {
			return excluded[labelValue{label: pl.levels[level].Label, value: value}]
		}}
	if quorum.OnePerNode() {
		demand.PerNode = 1
	}
	var rooms []capacity.Node
	for range MaxChoiceRetries {
		choice, short, ok := pl.index.Choose(demand)
		if !ok {
			return choice, short.Describe(pl.levels, demand), false
		}
		if choice.Level == topology.Anywhere {
			// MusterGang's room check covers the whole cluster.
			return choice, "", true
		}
		lv := pl.choiceLabel(choice)
		if rooms == nil {
			rooms = roomsLess(nodes, taken, pl.gpu)
		}
		packing := capacity.Pack(logger, quorum, rooms, func(n *v1.Node) bool {
			return lv.holds(n) && req.Class.MatchesLabels(n.Labels)
		})
		if packing.Fits() {
			return choice, "", true
		}
		logger.V(3).Info("Domain has GPUs but not room for the quorum", "level", topology.LevelName(pl.levels, choice.Level), "domain", choice.Value, "quorum", quorum.String(), "short", packing.Short.String())
		excluded[lv] = true
	}
	return topology.Choice{}, fmt.Sprintf("needs %s (%s) in one domain; no domain with the GPUs also passes the members' other requirements (CPU, memory, taints, node selection)", quorum, req.Class), false
}

// holdDomain records, for a gang no domain of its required level has room
// for, where the capacity plan may hold room for it once it has waited past
// the starvation bound: the roomiest domain of that level that holds the
// quorum's GPU members when empty, or, when it requires no domain, the
// cluster's nodes of its GPU class. Without it such a gang held nothing,
// and younger gangs could take every node that freed in its domain, for
// ever: its attempt failed here, not on room (MusterGang's PostFilter), so
// MusterGang left it out of the plan. A gang no domain could ever hold
// gets none: new nodes, not held room, serve it. pl.mu must be held.
func (pl *Topology) holdDomain(logger klog.Logger, key gang.Key, req topology.Request, quorum capacity.Quorum, nodes []fwk.NodeInfo) {
	delete(pl.starving, key)
	delete(pl.beyond, key)
	if req.Required >= len(pl.levels) || strings.HasPrefix(key.Name, "pod:") {
		return
	}
	// Only the GPU members must fit the domain: members without GPUs get a
	// node of their own from the autoscaler once the GPUs come.
	gpuPart, _ := quorum.Split()
	candidates := []labelValue{{}} // anywhere
	if req.Required != topology.Anywhere {
		_, fewestGPUs := quorum.GPUMembers()
		match := func(k *topology.Kind) bool { return req.Class.Matches(k.Product, k.MemoryMiB) }
		type domainRoom struct {
			lv   labelValue
			room int64
		}
		var domains []domainRoom
		for _, v := range pl.index.DomainsOf(req.Required) {
			if d, ok := pl.index.Domain(req.Required, v); ok {
				domains = append(domains, domainRoom{lv: labelValue{label: pl.levels[req.Required].Label, value: v}, room: d.Room(fewestGPUs, match)})
			}
		}
		sort.SliceStable(domains, func(a, b int) bool { return domains[a].room > domains[b].room })
		candidates = candidates[:0]
		for _, d := range domains {
			candidates = append(candidates, d.lv)
		}
	}
	var empty []capacity.Node
	for _, lv := range candidates {
		if empty == nil {
			empty = nodefit.Empty(nodes)
		}
		in := heldIn{domain: lv, class: req.Class}
		if capacity.Pack(logger, gpuPart, empty, in.holds).Fits() {
			if pl.hasMembers(key) {
				pl.starving[key] = in
			}
			return
		}
	}
	if pl.hasMembers(key) {
		pl.beyond[key] = true
	}
}

// beyondDomains is what ShareBeyondDomains hands MusterGang: whether the
// last look at gang k found no domain that holds it, its nodes empty.
func (pl *Topology) beyondDomains(k gang.Key) bool {
	pl.mu.RLock()
	defer pl.mu.RUnlock()
	return pl.beyond[k]
}

// starvingDomain is what ShareDomains hands MusterGang: the nodes room may
// be held on for the gang's GPU members, if any.
func (pl *Topology) starvingDomain(k gang.Key) (func(*v1.Node) bool, bool) {
	pl.mu.RLock()
	defer pl.mu.RUnlock()
	in, ok := pl.starving[k]
	if !ok {
		return nil, false
	}
	return in.holds, true
}
