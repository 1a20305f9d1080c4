// Package gputopology is the MusterTopology scheduler plugin: it places each
// gang on GPUs of the class it asks for, inside the tightest topology domain
// (node, NVLink clique, rack, placement group, zone) that holds its quorum,
// and scores nodes so the cluster's GPUs stay usable for the gangs to come.
//
// The domain is chosen once per gang attempt, in the PreFilter of the first
// member, from a per-domain index of free GPUs (pkg/topology) that is brought
// up to date from the scheduler's snapshot only then, node by node where the
// node changed. The other members of the attempt, and elastic members beyond
// min, reuse the choice; their Filter and Score are O(1) per node.
//
// The plugin reads a gang's spec from MusterGang's cycle state, so MusterGang
// must run before it at PreFilter; a GPU pod outside any gang is a gang of one.
package gputopology

import (
	"context"
	"fmt"
	"maps"
	"sort"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/cache"
	resourcehelper "k8s.io/component-helpers/resource"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/utils/clock"

	"github.com/muster-project/muster/pkg/apis/config"
	"github.com/muster-project/muster/pkg/capacity"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/hints"
	"github.com/muster-project/muster/pkg/scheduler/nodefit"
	gangplugin "github.com/muster-project/muster/pkg/scheduler/plugins/gang"
	"github.com/muster-project/muster/pkg/scheduler/statemetrics"
	"github.com/muster-project/muster/pkg/topology"
)

// Name is the plugin's name in KubeSchedulerConfiguration.
const Name = "MusterTopology"

// Filter reasons, as `kubectl describe pod` shows them.
const (
	ReasonGPUClass = "node(s) had GPUs not of the gang's class (muster.dev/gpu-product, muster.dev/gpu-memory-min)"
	ReasonGPUCount = capacity.ReasonGPUCount
	ReasonDomain   = "node(s) were outside the topology domain chosen for the gang's quorum"
	ReasonRequired = "node(s) were outside the gang's required topology domain (muster.dev/topology-required)"
	ReasonBooked   = capacity.ReasonBooked
	ReasonClaimed  = capacity.ReasonClaimed
	// ReasonSpotRequired: on Azure a scale set is either spot or regular, and
	// InfiniBand-connected VMs share one scale set's placement group, so a
	// gang confined to a domain its quorum holds on regular nodes cannot add
	// spot nodes to it.
	ReasonSpotRequired = "spot node(s) were outside the gang's required topology domain: its quorum's domain is regular VMs, so the required domain rules spot out for its members above min"
)

// MaxChoiceRetries bounds how many domains a decision tries when the index
// says a domain fits but the nodes in it turn out not to (taints, selectors,
// CPU or memory, which the index does not see).
const MaxChoiceRetries = 8

var (
	_ fwk.PreFilterPlugin   = &Topology{}
	_ fwk.FilterPlugin      = &Topology{}
	_ fwk.PreScorePlugin    = &Topology{}
	_ fwk.ScorePlugin       = &Topology{}
	_ fwk.ReservePlugin     = &Topology{}
	_ fwk.EnqueueExtensions = &Topology{}
	_ fwk.SignPlugin        = &Topology{}
	_ fwk.ScoreExtensions   = &Topology{}
)

// Topology is the MusterTopology plugin.
type Topology struct {
	clock  clock.PassiveClock
	handle fwk.Handle
	levels []topology.Level
	gpu    v1.ResourceName
	pods   cache.Indexer

	mu sync.RWMutex
	// index holds free GPUs per domain; synced records the NodeInfo
	// generation each node was last read at, so a sync re-reads only nodes
	// that changed.
	index  *topology.Index
	synced map[string]int64
	gangs  map[gang.Key]*placement
	// claimed sums, per node, the GPUs gangs' chosen domains hold for
	// quorum members not reserved yet (placement.claims): a gang choosing
	// its domain leaves them out.
	claimed map[string]int64
	shapes  shapeWindow
	// decisions counts domain choices (tests check there is one per attempt).
	decisions int64

	// hints writes ProvisioningRequests for short gangs (nil: off);
	// hinted is when each gang's shortfall was last computed.
	hints         *hints.Writer
	leading       *gangplugin.Leadership // whether this replica may write
	hinted        map[gang.Key]time.Time
	provisionable map[string]bool
	// starving names, for a gang whose required level had no domain with
	// room for its quorum, the domain the capacity plan may hold room in
	// for it (holdDomain); MusterGang reads it (ShareDomains). The name
	// stays when a later attempt chooses a domain, for that attempt may
	// still fail; only the next attempt that finds no room (holdDomain
	// names afresh) or the gang's end (forgetHinted) drops it. The plan
	// asks only for gangs whose quorum is not placed.
	starving map[gang.Key]labelValue
}

// placement is one gang's domain and the members it has placed (reserved or
// bound). The choice stands while any member is placed; when none is, the
// next attempt chooses afresh.
type placement struct {
	key     gang.Key
	decided bool
	choice  topology.Choice
	members map[types.UID]member
	onNode  map[string]int
	// mixed: the gang has members without GPUs, which count toward its
	// quorum though this plugin does not place them.
	mixed bool
	// inDomain lists the chosen domain's nodes, built once per choice.
	// PreFilter hands it to the framework so that the quorum's members are
	// filtered and scored on those nodes only.
	inDomain sets.Set[string]
	// claims holds, per node of the domain, the GPUs of quorum members not
	// reserved yet (capacity.ClaimGPUs): other gangs' choices leave them
	// out until the members reserve, or the attempt ends.
	claims map[string]int64
}

type member struct {
	node string
	gpus int64
}

// New builds the plugin from its args.
func New(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	return newTopology(ctx, obj, h, clock.RealClock{})
}

// NewOn is New on another clock (muster simulate's trace clock): how often a
// gang's shortfall is handed to the hint writer follows it.
func NewOn(c clock.PassiveClock) frameworkruntime.PluginFactory {
	return func(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		return newTopology(ctx, obj, h, c)
	}
}

func newTopology(ctx context.Context, obj runtime.Object, h fwk.Handle, c clock.PassiveClock) (fwk.Plugin, error) {
	args, err := config.DecodeTopologyArgs(obj, Name)
	if err != nil {
		return nil, err
	}
	levels := make([]topology.Level, len(args.Levels))
	for i, l := range args.Levels {
		levels[i] = topology.Level{Name: l.Name, Label: l.Label}
	}
	pl := &Topology{
		clock:    c,
		handle:   h,
		levels:   levels,
		gpu:      v1.ResourceName(args.GPUResourceName),
		index:    topology.NewIndex(levels),
		synced:   map[string]int64{},
		gangs:    map[gang.Key]*placement{},
		claimed:  map[string]int64{},
		shapes:   newShapeWindow(int(*args.ShapeWindow)),
		leading:  gangplugin.LeadershipOf(h),
		starving: map[gang.Key]labelValue{},
	}
	gangplugin.ShareDomains(h, pl.starvingDomain)
	registerMetrics()
	podInformer := h.SharedInformerFactory().Core().V1().Pods().Informer()
	if err := gangplugin.EnsureGangIndex(podInformer); err != nil {
		return nil, err
	}
	pl.pods = podInformer.GetIndexer()
	if _, err := podInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{DeleteFunc: pl.podGone}); err != nil {
		return nil, fmt.Errorf("watching pods: %w", err)
	}
	klog.FromContext(ctx).V(2).Info("MusterTopology levels", "levels", levels)
	pl.hinted = map[gang.Key]time.Time{}
	pl.provisionable = map[string]bool{}
	for _, l := range args.ProvisionableLevels {
		pl.provisionable[l] = true
	}
	if *args.AutoscalerHints {
		if err := pl.startHints(ctx, h, time.Duration(*args.HintSyncMillis)*time.Millisecond); err != nil {
			return nil, fmt.Errorf("starting autoscaler hints: %w", err)
		}
	}
	statemetrics.Register(pl, Name, pl.stateEntries)
	go func() { <-ctx.Done(); statemetrics.Unregister(pl) }()
	return pl, nil
}

// Name returns the plugin name.
func (pl *Topology) Name() string { return Name }

const stateKey fwk.StateKey = Name

// cycleState is what PreFilter decided for this cycle's pod.
type cycleState struct {
	gpus  int64
	class topology.Class
	// domain confines the member (quorum phase); required confines an elastic
	// member; prefer is the gang's domain Score favours. Empty label: none.
	domain, required, prefer labelValue
	placement                *placement
	// booked lists other gangs' bookings: new nodes kept for them.
	booked []hints.Booking
	// lone: the pod is no gang's member; it may use what a booked node has
	// left over after one booked member.
	lone bool
	// preferSpot: a member above min of a gang that opted in to spot.
	preferSpot bool
	// claimed: GPUs other gangs' chosen domains claimed per node for
	// quorum members not reserved yet (nil: none).
	claimed map[string]int64
}

type labelValue struct{ label, value string }

func (lv labelValue) holds(n *v1.Node) bool {
	if lv.label == "" {
		return true
	}
	v, ok := n.Labels[lv.label]
	return ok && v == lv.value
}

// Clone shares the state: it is not modified after PreFilter.
func (s *cycleState) Clone() fwk.StateData { return s }

func readState(state fwk.CycleState) (*cycleState, bool) {
	d, err := state.Read(stateKey)
	if err != nil {
		return nil, false
	}
	s, ok := d.(*cycleState)
	return s, ok
}

// gpusOf returns the GPUs a pod requests.
func (pl *Topology) gpusOf(pod *v1.Pod) int64 {
	reqs := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
	q, ok := reqs[pl.gpu]
	if !ok {
		return 0
	}
	return q.Value()
}

// gangOf returns the gang a pod belongs to as MusterGang resolved it, or the
// pod alone as a gang of one.
func gangOf(state fwk.CycleState, pod *v1.Pod) gang.Spec {
	if spec, ok := gangplugin.SpecFromCycleState(state); ok {
		return spec
	}
	return gang.Spec{Key: gang.Key{Namespace: pod.Namespace, Name: "pod:" + pod.Name}, Source: gang.SourceLabels, MinMember: 1, MaxMember: 1, Annotations: pod.Annotations}
}

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
		if spec, ok := gangplugin.SpecFromCycleState(state); ok && spec.SpotExtras {
			s.preferSpot = capacity.TolerateSpot(pod)
		}
	case placed > 0 && p.decided:
		// The quorum is being placed: stay in the chosen domain, on the
		// gang's own nodes while they have room for the member.
		s.domain = pl.choiceLabel(p.choice)
		s.prefer = s.domain
		result = p.domainNodes()
		if gangplugin.MayNarrowToGang(state) {
			if own := pl.gangNodesWithRoom(p, gpus); own != nil {
				gangplugin.NarrowedToGang(state)
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
			quorum = capacity.QuorumOf(min-placedAll, pl.unplaced(members, p), pod, pl.gpu)
		}
		// Room other gangs' choices claimed for members not reserved yet,
		// and room the capacity plan holds for gangs ahead, is not this
		// gang's to choose.
		pl.dropClaims(p)
		taken := pl.takenFor(gangplugin.HeldFromCycleState(state))
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

// loadPlacement starts tracking a gang, counting members already bound (after
// a scheduler restart, or a gang whose attempt was reset).
func (pl *Topology) loadPlacement(key gang.Key) *placement {
	p := &placement{key: key, members: map[types.UID]member{}, onNode: map[string]int{}}
	if strings.HasPrefix(key.Name, "pod:") {
		return p
	}
	objs, _ := pl.pods.ByIndex(gangplugin.GangIndex, key.String())
	for _, o := range objs {
		pod, ok := o.(*v1.Pod)
		if !ok || pod.Spec.NodeName == "" || pod.DeletionTimestamp != nil || podFinished(pod) {
			continue
		}
		if g := pl.gpusOf(pod); g > 0 {
			p.add(pod.UID, pod.Spec.NodeName, g)
		} else {
			p.mixed = true
		}
	}
	return p
}

func podFinished(p *v1.Pod) bool {
	return p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed
}

func (p *placement) add(uid types.UID, node string, gpus int64) bool {
	if _, ok := p.members[uid]; ok {
		return false
	}
	p.members[uid] = member{node: node, gpus: gpus}
	p.onNode[node]++
	return true
}

func (p *placement) remove(uid types.UID) (member, bool) {
	m, ok := p.members[uid]
	if !ok {
		return m, false
	}
	delete(p.members, uid)
	if p.onNode[m.node]--; p.onNode[m.node] <= 0 {
		delete(p.onNode, m.node)
	}
	return m, true
}

func (p *placement) anchor() []string {
	out := make([]string, 0, len(p.onNode))
	for n := range p.onNode {
		out = append(out, n)
	}
	return out
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

// sync brings the index up to date with the snapshot, re-reading only nodes
// whose NodeInfo changed since the last sync.
func (pl *Topology) sync(nodes []fwk.NodeInfo) {
	pl.index.BeginSync()
	for _, ni := range nodes {
		node := ni.Node()
		if node == nil || capacity.IsSpot(node) {
			continue // spot nodes hold no quorum (capacity.SpotRule)
		}
		gen := ni.GetGeneration()
		if g, ok := pl.synced[node.Name]; ok && g == gen && pl.index.Touch(node.Name) {
			continue
		}
		alloc, used := ni.GetAllocatable().GetScalarResources()[pl.gpu], ni.GetRequested().GetScalarResources()[pl.gpu]
		pl.index.Set(topology.NodeState{Name: node.Name, Labels: node.Labels, AllocGPUs: alloc, UsedGPUs: used})
		pl.synced[node.Name] = gen
	}
	pl.index.EndSync()
	if len(pl.synced) > pl.index.Len() {
		for name := range pl.synced {
			if _, ok := pl.index.Node(name); !ok {
				delete(pl.synced, name)
			}
		}
	}
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
			return lv.holds(n) && req.Class.Matches(n.Labels[topology.ProductLabel], topology.ParseMemoryMiB(n.Labels[topology.MemoryLabel]))
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
// quorum's GPU members when empty. Without it such a gang held nothing, and younger
// gangs could take every node that freed in its domain, for ever. A gang no
// domain could ever hold gets none: new nodes, not held room, serve it.
// pl.mu must be held.
func (pl *Topology) holdDomain(logger klog.Logger, key gang.Key, req topology.Request, quorum capacity.Quorum, nodes []fwk.NodeInfo) {
	delete(pl.starving, key)
	if req.Required == topology.Anywhere || req.Required >= len(pl.levels) || strings.HasPrefix(key.Name, "pod:") {
		return
	}
	_, fewestGPUs := quorum.GPUMembers()
	// Only the GPU members must fit the domain: members without GPUs get a
	// node of their own from the autoscaler once the GPUs come.
	gpuPart, _ := quorum.Split()
	match := func(k *topology.Kind) bool { return req.Class.Matches(k.Product, k.MemoryMiB) }
	type candidate struct {
		value string
		room  int64
	}
	var candidates []candidate
	for _, v := range pl.index.DomainsOf(req.Required) {
		if d, ok := pl.index.Domain(req.Required, v); ok {
			candidates = append(candidates, candidate{value: v, room: d.Room(fewestGPUs, match)})
		}
	}
	sort.SliceStable(candidates, func(a, b int) bool { return candidates[a].room > candidates[b].room })
	var empty []capacity.Node
	for _, c := range candidates {
		lv := labelValue{label: pl.levels[req.Required].Label, value: c.value}
		if empty == nil {
			empty = nodefit.Empty(nodes)
		}
		if capacity.Pack(logger, gpuPart, empty, func(n *v1.Node) bool {
			return lv.holds(n) && req.Class.Matches(n.Labels[topology.ProductLabel], topology.ParseMemoryMiB(n.Labels[topology.MemoryLabel]))
		}).Fits() {
			if pl.hasMembers(key) {
				pl.starving[key] = lv
			}
			return
		}
	}
}

// starvingDomain is what ShareDomains hands MusterGang: the node label and
// value of the domain room may be held in for the gang, if any.
func (pl *Topology) starvingDomain(k gang.Key) (string, string, bool) {
	pl.mu.RLock()
	defer pl.mu.RUnlock()
	lv, ok := pl.starving[k]
	return lv.label, lv.value, ok
}

// membersOf lists a gang's pods; nil for a lone pod, or a gang whose members
// the informer has not seen.
func (pl *Topology) membersOf(key gang.Key) []*v1.Pod {
	if strings.HasPrefix(key.Name, "pod:") {
		return nil
	}
	objs, _ := pl.pods.ByIndex(gangplugin.GangIndex, key.String())
	if len(objs) == 0 {
		return nil
	}
	out := make([]*v1.Pod, 0, len(objs))
	for _, o := range objs {
		if pod, ok := o.(*v1.Pod); ok {
			out = append(out, pod)
		}
	}
	return out
}

// unplaced lists the live members with neither a node nor a reservation.
func (pl *Topology) unplaced(members []*v1.Pod, p *placement) []*v1.Pod {
	out := make([]*v1.Pod, 0, len(members))
	for _, m := range members {
		if _, reserved := p.members[m.UID]; !reserved && m.Spec.NodeName == "" && gang.Live(m) {
			out = append(out, m)
		}
	}
	return out
}

// withoutGPUs says some live member asks for no GPU.
func (pl *Topology) withoutGPUs(members []*v1.Pod) bool {
	for _, m := range members {
		if gang.Live(m) && pl.gpusOf(m) == 0 {
			return true
		}
	}
	return false
}

// boundWithoutGPUs counts the bound live members that ask for no GPU.
func (pl *Topology) boundWithoutGPUs(members []*v1.Pod) int64 {
	var n int64
	for _, m := range members {
		if m.Spec.NodeName != "" && gang.Live(m) && pl.gpusOf(m) == 0 {
			n++
		}
	}
	return n
}

// PreFilterExtensions is nil: Filter does not depend on other pods.
func (pl *Topology) PreFilterExtensions() fwk.PreFilterExtensions { return nil }

// Filter passes a node that has GPUs of the gang's class, free GPUs for the
// member and lies in the gang's domain.
func (pl *Topology) Filter(_ context.Context, state fwk.CycleState, _ *v1.Pod, ni fwk.NodeInfo) *fwk.Status {
	s, ok := readState(state)
	if !ok {
		return nil
	}
	node := ni.Node()
	if !s.class.IsZero() && !s.class.Matches(node.Labels[topology.ProductLabel], topology.ParseMemoryMiB(node.Labels[topology.MemoryLabel])) {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ReasonGPUClass)
	}
	if freeGPUs(ni, pl.gpu) < s.gpus {
		return fwk.NewStatus(fwk.Unschedulable, ReasonGPUCount)
	}
	if c := s.claimed[node.Name]; c > 0 && freeGPUs(ni, pl.gpu)-c < s.gpus {
		return fwk.NewStatus(fwk.Unschedulable, ReasonClaimed)
	}
	if !s.domain.holds(node) {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ReasonDomain)
	}
	if !s.required.holds(node) {
		if s.preferSpot && capacity.IsSpot(node) {
			return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ReasonSpotRequired)
		}
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, ReasonRequired)
	}
	if len(s.booked) == 0 {
		return nil
	}
	pid := strings.ToLower(node.Spec.ProviderID)
	for _, b := range s.booked {
		if !b.Holds(pid) {
			continue
		}
		if !s.lone || freeGPUs(ni, pl.gpu)-s.gpus < b.GPUs {
			return fwk.NewStatus(fwk.Unschedulable, ReasonBooked)
		}
	}
	return nil
}

// bookingsAgainst returns the bookings whose nodes gang key must keep off:
// every other gang's. Each booking holds exactly the nodes the autoscaler
// recorded adding for it, so no node is booked twice.
func (pl *Topology) bookingsAgainst(key gang.Key) []hints.Booking {
	var out []hints.Booking
	for _, b := range pl.hints.Bookings() {
		if b.Key != key {
			out = append(out, b)
		}
	}
	return out
}

func freeGPUs(ni fwk.NodeInfo, gpu v1.ResourceName) int64 {
	return ni.GetAllocatable().GetScalarResources()[gpu] - ni.GetRequested().GetScalarResources()[gpu]
}

// PreScore skips pods PreFilter skipped.
func (pl *Topology) PreScore(_ context.Context, state fwk.CycleState, _ *v1.Pod, _ []fwk.NodeInfo) *fwk.Status {
	if _, ok := readState(state); !ok {
		return fwk.NewStatus(fwk.Skip)
	}
	return nil
}

// Score ranks a node by topology.Score: the gang's domain, its members'
// nodes, then packing that keeps leftover GPUs usable.
func (pl *Topology) Score(_ context.Context, state fwk.CycleState, pod *v1.Pod, ni fwk.NodeInfo) (int64, *fwk.Status) {
	s, ok := readState(state)
	if !ok {
		return 0, nil
	}
	node := ni.Node()
	alloc := ni.GetAllocatable().GetScalarResources()[pl.gpu]
	f := topology.Fit{
		InGangDomain:       s.prefer.label != "" && s.prefer.holds(node),
		AllocGPUs:          alloc,
		FreeGPUs:           alloc - ni.GetRequested().GetScalarResources()[pl.gpu],
		Want:               s.gpus,
		CameUpWhileWaiting: pod.CreationTimestamp.Before(&node.CreationTimestamp),
		SpotForExtra:       s.preferSpot && capacity.IsSpot(node),
	}
	pl.mu.RLock()
	f.GangMembers = s.placement.onNode[node.Name]
	f.Smallest = pl.shapes.smallest
	if v, ok := pl.index.Node(node.Name); ok && v.Group != nil {
		f.GroupWhollyFree = v.Group.WhollyFree()
	}
	pl.mu.RUnlock()
	return topology.Score(f), nil
}

// ScoreExtensions normalizes scores.
func (pl *Topology) ScoreExtensions() fwk.ScoreExtensions { return pl }

// NormalizeScore maps the lowest raw score to 0 and the highest to
// MaxNodeScore. Raw scores are tiers on a common base (every node of the
// gang's domain scores at least 10000), so scaling by the maximum alone would
// squeeze the tiers into a few points that other plugins could outvote.
func (pl *Topology) NormalizeScore(_ context.Context, _ fwk.CycleState, _ *v1.Pod, scores fwk.NodeScoreList) *fwk.Status {
	if len(scores) == 0 {
		return nil
	}
	lo, hi := scores[0].Score, scores[0].Score
	for _, s := range scores[1:] {
		lo, hi = min(lo, s.Score), max(hi, s.Score)
	}
	for i := range scores {
		if hi == lo {
			scores[i].Score = fwk.MaxNodeScore
			continue
		}
		scores[i].Score = (scores[i].Score - lo) * fwk.MaxNodeScore / (hi - lo)
	}
	return nil
}

// Reserve records the member on its node, in the gang and in the index.
func (pl *Topology) Reserve(_ context.Context, state fwk.CycleState, pod *v1.Pod, nodeName string) *fwk.Status {
	s, ok := readState(state)
	if !ok {
		return nil
	}
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if s.placement.add(pod.UID, nodeName, s.gpus) {
		pl.index.Adjust(nodeName, s.gpus)
		pl.reserveClaim(s.placement, nodeName, s.gpus)
	}
	pl.gangs[s.placement.key] = s.placement
	return nil
}

// Unreserve undoes Reserve. A gang left with no placed member forgets its
// domain, so its next attempt chooses afresh.
func (pl *Topology) Unreserve(_ context.Context, state fwk.CycleState, pod *v1.Pod, _ string) {
	s, ok := readState(state)
	if !ok {
		return
	}
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if m, ok := s.placement.remove(pod.UID); ok {
		pl.index.Adjust(m.node, -m.gpus)
	}
	pl.forgetIfEmpty(s.placement)
}

// stateEntries counts the plugin's state by kind, for the
// muster_scheduler_state_entries gauge.
func (pl *Topology) stateEntries() map[string]int {
	pl.mu.RLock()
	out := map[string]int{"placed-gangs": len(pl.gangs), "hinted-gangs": len(pl.hinted), "synced-nodes": len(pl.synced), "starving-gangs": len(pl.starving), "claimed-nodes": len(pl.claimed)}
	pl.mu.RUnlock()
	if pl.hints != nil {
		for k, v := range pl.hints.StateEntries() {
			out[k] = v
		}
	}
	return out
}

func (pl *Topology) forgetIfEmpty(p *placement) {
	if len(p.members) == 0 && pl.gangs[p.key] == p {
		pl.dropClaims(p)
		delete(pl.gangs, p.key)
	}
}

// claimsFor works out the GPUs the gang's quorum members will take in its
// chosen domain (p.inDomain, of the gang's GPU class), as
// capacity.ClaimGPUs spreads them over the nodes' free GPUs, other claims
// left out (the caller applied them to the index). pl.mu must be held.
func (pl *Topology) claimsFor(p *placement, req topology.Request, quorum capacity.Quorum, nodes []fwk.NodeInfo) map[string]int64 {
	gpuPart, _ := quorum.Split()
	if len(gpuPart) == 0 || p.inDomain == nil {
		return nil
	}
	free := make(map[string]int64, len(p.inDomain))
	for _, ni := range nodes {
		n := ni.Node()
		if n == nil || !p.inDomain.Has(n.Name) || !req.Class.Matches(n.Labels[topology.ProductLabel], topology.ParseMemoryMiB(n.Labels[topology.MemoryLabel])) {
			continue
		}
		if v, ok := pl.index.Node(n.Name); ok {
			free[n.Name] = v.FreeGPUs
		}
	}
	return capacity.ClaimGPUs(gpuPart, free)
}

// setClaims records a gang's claims, its earlier ones dropped already.
// pl.mu must be held.
func (pl *Topology) setClaims(p *placement, claims map[string]int64) {
	p.claims = claims
	for n, c := range claims {
		pl.claimed[n] += c
	}
}

// reserveClaim turns a reserved member's GPUs from claimed into used: from
// its node's claim, or, had scoring put it elsewhere, from the largest
// claim left. pl.mu must be held.
func (pl *Topology) reserveClaim(p *placement, node string, gpus int64) {
	for gpus > 0 && len(p.claims) > 0 {
		from := node
		if p.claims[from] == 0 {
			for n, c := range p.claims {
				if c > p.claims[from] || (c == p.claims[from] && n < from) {
					from = n
				}
			}
		}
		take := min(gpus, p.claims[from])
		pl.unclaim(p, from, take)
		gpus -= take
	}
}

// dropClaims ends a gang's claims: its attempt ended, or it chooses again.
// pl.mu must be held.
func (pl *Topology) dropClaims(p *placement) {
	for n, c := range p.claims {
		pl.unclaim(p, n, c)
	}
}

func (pl *Topology) unclaim(p *placement, node string, gpus int64) {
	if p.claims[node] -= gpus; p.claims[node] <= 0 {
		delete(p.claims, node)
	}
	if pl.claimed[node] -= gpus; pl.claimed[node] <= 0 {
		delete(pl.claimed, node)
	}
}

// takenFor sums, per node, the GPUs a gang choosing its domain must leave
// out: other gangs' claims, and the room the capacity plan holds for gangs
// ahead of it. pl.mu must be held.
func (pl *Topology) takenFor(held capacity.Held) map[string]int64 {
	taken := maps.Clone(pl.claimed)
	held.GPUs(pl.gpu, func(node string, gpus int64) {
		if taken == nil {
			taken = map[string]int64{}
		}
		taken[node] += gpus
	})
	return taken
}

// claimedBesides copies the claims of gangs other than p's, for Filter.
// pl.mu must be held.
func (pl *Topology) claimedBesides(p *placement) map[string]int64 {
	if len(pl.claimed) == 0 {
		return nil
	}
	out := make(map[string]int64, len(pl.claimed))
	for n, c := range pl.claimed {
		if c -= p.claims[n]; c > 0 {
			out[n] = c
		}
	}
	return out
}

// adjustIndex counts taken GPUs as used in the index (sign 1), or stops
// counting them (-1), around a domain choice. pl.mu must be held.
func (pl *Topology) adjustIndex(taken map[string]int64, sign int64) {
	for n, c := range taken {
		pl.index.Adjust(n, sign*c)
	}
}

// roomsLess is every regular node's room with the taken GPUs used.
func roomsLess(nodes []fwk.NodeInfo, taken map[string]int64, gpu v1.ResourceName) []capacity.Node {
	rooms := nodefit.Rooms(nodes)
	if len(taken) == 0 {
		return rooms
	}
	for i := range rooms {
		if c := taken[rooms[i].Node.Name]; c > 0 {
			used := maps.Clone(rooms[i].UsedScalars) // the snapshot's own map
			if used == nil {
				used = map[v1.ResourceName]int64{}
			}
			used[gpu] += c
			rooms[i].UsedScalars = used
		}
	}
	return rooms
}

// forgetHinted drops a gang's hint timestamp when its last member is gone.
func (pl *Topology) forgetHinted(k gang.Key) {
	if !pl.hasMembers(k) {
		delete(pl.hinted, k)
		delete(pl.starving, k)
	}
}

// hasMembers tells whether the informer still holds a pod of gang k. The
// index drops a pod before podGone runs, so a cycle that checks this under
// pl.mu before recording per-gang state either sees the gang gone or leaves
// podGone to forget what it records.
func (pl *Topology) hasMembers(k gang.Key) bool {
	objs, _ := pl.pods.ByIndex(gangplugin.GangIndex, k.String())
	return len(objs) > 0
}

// podGone drops a deleted member from its gang. The index learns of the freed
// GPUs at its next sync from the snapshot.
func (pl *Topology) podGone(obj any) {
	pod, ok := obj.(*v1.Pod)
	if !ok {
		if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			pod, _ = t.Obj.(*v1.Pod)
		}
	}
	if pod == nil {
		return
	}
	key, _, isGang, err := gang.GroupOf(pod)
	if err != nil {
		return
	}
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if pod.Spec.NodeName == "" {
		// A gang that never placed a member may still have a hint time.
		if isGang {
			pl.forgetHinted(key)
		}
		return
	}
	if !isGang {
		key = gang.Key{Namespace: pod.Namespace, Name: "pod:" + pod.Name}
	}
	if p := pl.gangs[key]; p != nil {
		p.remove(pod.UID)
		pl.forgetIfEmpty(p)
	}
	pl.forgetHinted(key)
}

// SignPod refuses batching for GPU pods: where a member may go depends on its
// gang's domain and members, which two pods with equal specs do not share.
func (pl *Topology) SignPod(_ context.Context, pod *v1.Pod) ([]fwk.SignFragment, *fwk.Status) {
	if pl.gpusOf(pod) > 0 {
		return nil, fwk.NewStatus(fwk.Unschedulable, "a GPU member's nodes depend on its gang's placement")
	}
	return nil, nil
}

// EventsToRegister names the changes that can let a rejected member through:
// nodes added or relabelled or grown, and pods leaving.
func (pl *Topology) EventsToRegister(_ context.Context) ([]fwk.ClusterEventWithHint, error) {
	return []fwk.ClusterEventWithHint{
		{Event: fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.Add | fwk.UpdateNodeAllocatable | fwk.UpdateNodeLabel | fwk.UpdateNodeTaint}, QueueingHintFn: pl.gpuPod},
		{Event: fwk.ClusterEvent{Resource: fwk.AssignedPod, ActionType: fwk.Delete}, QueueingHintFn: pl.gpuPod},
	}, nil
}

func (pl *Topology) gpuPod(logger klog.Logger, pod *v1.Pod, oldObj, newObj any) (fwk.QueueingHint, error) {
	if pl.gpusOf(pod) == 0 {
		return fwk.QueueSkip, nil
	}
	// A gang member is requeued as MusterGang would requeue it: the queue
	// requeues a member if any plugin that rejected it says Queue, and
	// every member of every waiting gang tried on every pod that left cost
	// a scheduling cycle and a FailedScheduling event each.
	if _, _, isGang, _ := gang.GroupOf(pod); isGang {
		if roomFreed, ok := gangplugin.RoomFreedHint(pl.handle); ok {
			return roomFreed(logger, pod, oldObj, newObj)
		}
	}
	return fwk.Queue, nil
}

// shapeWindow remembers the GPUs per member of the last gangs seen, so Score
// knows the smallest shape leftover GPUs should stay usable for.
type shapeWindow struct {
	ring     []int64
	next     int
	smallest int64
}

func newShapeWindow(n int) shapeWindow { return shapeWindow{ring: make([]int64, 0, n)} }

func (w *shapeWindow) add(gpus int64) {
	if len(w.ring) < cap(w.ring) {
		w.ring = append(w.ring, gpus)
	} else {
		w.ring[w.next] = gpus
		w.next = (w.next + 1) % len(w.ring)
	}
	w.smallest = w.ring[0]
	for _, g := range w.ring[1:] {
		w.smallest = min(w.smallest, g)
	}
}
