package gputopology

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
	"k8s.io/utils/clock"

	"github.com/muster-project/muster/pkg/apis/config"
	"github.com/muster-project/muster/pkg/capacity"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/gangstate"
	"github.com/muster-project/muster/pkg/scheduler/nodefit"
	"github.com/muster-project/muster/pkg/scheduler/provisioning"
	"github.com/muster-project/muster/pkg/topology"
)

// cluster is a synthetic GPU cluster: nodes of 8 H100s in NVLink cliques of
// cliqueSize nodes, racks of rackSize nodes and zones of zoneSize nodes.
type cluster struct {
	infos  []*framework.NodeInfo
	views  []fwk.NodeInfo
	byName map[string]int
}

func newCluster(nodes, cliqueSize, rackSize, zoneSize int) *cluster {
	c := &cluster{byName: map[string]int{}}
	for i := range nodes {
		name := fmt.Sprintf("gpu-%05d", i)
		n := st.MakeNode().Name(name).Capacity(map[v1.ResourceName]string{
			v1.ResourceCPU: "96", v1.ResourceMemory: "1Ti", v1.ResourcePods: "110", "nvidia.com/gpu": "8"}).
			Label(topology.HostnameLabel, name).
			Label(topology.ProductLabel, "NVIDIA-H100-80GB-HBM3").Label(topology.MemoryLabel, "81559").
			Label(topology.CliqueLabel, fmt.Sprintf("clique-%04d", i/cliqueSize)).
			Label(topology.LeafLabel, fmt.Sprintf("rack-%04d", i/rackSize)).
			Label(topology.ZoneLabel, fmt.Sprintf("zone-%d", i/zoneSize)).Obj()
		ni := framework.NewNodeInfo()
		ni.SetNode(n)
		c.infos = append(c.infos, ni)
		c.views = append(c.views, ni)
		c.byName[name] = i
	}
	return c
}

func newTestPlugin() *Topology {
	args := &config.TopologyArgs{}
	config.SetDefaultsTopologyArgs(args)
	levels := make([]topology.Level, len(args.Levels))
	for i, l := range args.Levels {
		levels[i] = topology.Level{Name: l.Name, Label: l.Label}
	}
	return &Topology{
		clock:    clock.RealClock{},
		levels:   levels,
		gpu:      "nvidia.com/gpu",
		pods:     cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{}),
		index:    topology.NewIndex(levels),
		synced:   map[string]int64{},
		gangs:    map[gang.Key]*placement{},
		claimed:  map[string]int64{},
		shapes:   newShapeWindow(64),
		starving: map[gang.Key]heldIn{},
	}
}

func members(gangName string, n int, gpus string) []*v1.Pod {
	pods := make([]*v1.Pod, n)
	for i := range pods {
		pods[i] = st.MakePod().Namespace("ml").Name(fmt.Sprintf("%s-%d", gangName, i)).UID(fmt.Sprintf("%s-%d", gangName, i)).
			Label(gang.GroupLabel, gangName).Req(map[v1.ResourceName]string{v1.ResourceCPU: "1", "nvidia.com/gpu": gpus}).Obj()
	}
	return pods
}

// schedule runs each member through PreFilter, Filter on the nodes PreFilter
// allows, Score and Reserve, as the framework does, binding to the best node.
// Like the framework, it stops filtering a node at the first plugin that
// rejects it, and NodeResourcesFit (here: the GPU count) comes first in every
// profile. It returns the node of each member.
func schedule(ctx context.Context, tb testing.TB, pl *Topology, c *cluster, spec gang.Spec, pods []*v1.Pod) []string {
	placed := make([]string, 0, len(pods))
	candidates := make([]int, 0, len(c.infos))
	for _, pod := range pods {
		placed = append(placed, scheduleOne(ctx, tb, pl, c, spec, pod, &candidates))
	}
	return placed
}

// scheduleOne is schedule for one member; scratch holds candidate nodes.
func scheduleOne(ctx context.Context, tb testing.TB, pl *Topology, c *cluster, spec gang.Spec, pod *v1.Pod, scratch *[]int) string {
	state := framework.NewCycleState()
	gangstate.StoreSpec(state, spec)
	res, status := pl.PreFilter(ctx, state, pod, c.views)
	if !status.IsSuccess() {
		tb.Fatalf("PreFilter %s: %v", pod.Name, status.AsError())
	}
	candidates := (*scratch)[:0]
	defer func() { *scratch = candidates }()
	if res.AllNodes() {
		for i := range c.infos {
			candidates = append(candidates, i)
		}
	} else {
		for name := range res.NodeNames {
			candidates = append(candidates, c.byName[name])
		}
	}
	best, bestScore := -1, int64(-1)
	want := pl.gpusOf(pod)
	for _, i := range candidates {
		if freeGPUs(c.views[i], pl.gpu) < want {
			continue
		}
		if st := pl.Filter(ctx, state, pod, c.views[i]); !st.IsSuccess() {
			continue
		}
		s, _ := pl.Score(ctx, state, pod, c.views[i])
		if s > bestScore || (s == bestScore && i < best) {
			best, bestScore = i, s
		}
	}
	if best < 0 {
		tb.Fatalf("member %s fits no node", pod.Name)
	}
	name := c.infos[best].Node().Name
	if st := pl.Reserve(ctx, state, pod, name); !st.IsSuccess() {
		tb.Fatal(st.AsError())
	}
	c.infos[best].AddPod(pod)
	return name
}

func labelsOf(c *cluster, nodes []string, label string) []string {
	seen := map[string]bool{}
	for _, n := range nodes {
		seen[c.infos[c.byName[n]].Node().Labels[label]] = true
	}
	out := make([]string, 0, len(seen))
	for v := range seen {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// A gang's domain is chosen once per attempt, not per member, and all its
// members land in it: the narrowest level that holds the gang.
func TestDomainChosenOncePerGang(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name     string
		members  int
		gpus     string
		ann      map[string]string
		level    string
		wantDoms int
	}{
		{name: "8 x 8 GPUs fill one clique", members: 8, gpus: "8", ann: map[string]string{topology.PreferredLevelAnnotation: "clique"}, level: topology.CliqueLabel, wantDoms: 1},
		{name: "64 x 4 GPUs in one rack", members: 64, gpus: "4", ann: map[string]string{topology.PreferredLevelAnnotation: "rack", topology.RequiredLevelAnnotation: "zone"}, level: topology.LeafLabel, wantDoms: 1},
		{name: "2 x 4 GPUs on one node", members: 2, gpus: "4", level: topology.HostnameLabel, wantDoms: 1},
		{name: "512 x 8 GPUs in one zone", members: 512, gpus: "8", ann: map[string]string{topology.PreferredLevelAnnotation: "clique"}, level: topology.ZoneLabel, wantDoms: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(2000, 8, 32, 1000)
			pl := newTestPlugin()
			spec := gang.Spec{Key: gang.Key{Namespace: "ml", Name: "g"}, Source: gang.SourceLabels, MinMember: int32(tc.members), MaxMember: int32(tc.members), Annotations: tc.ann}
			nodes := schedule(ctx, t, pl, c, spec, members("g", tc.members, tc.gpus))
			if pl.decisions != 1 {
				t.Errorf("%d domain decisions for one gang attempt, want 1", pl.decisions)
			}
			if doms := labelsOf(c, nodes, tc.level); len(doms) != tc.wantDoms {
				t.Errorf("members span %d %s domains %v, want %d", len(doms), tc.level, doms, tc.wantDoms)
			}
			if len(pl.gangs) != 1 || len(pl.gangs[spec.Key].members) != tc.members {
				t.Errorf("plugin tracks %d gangs, want 1 with %d members", len(pl.gangs), tc.members)
			}
		})
	}
}

// Unreserving every member forgets the gang's domain, so the next attempt
// chooses afresh; the index gives the GPUs back.
func TestUnreserveForgetsDomain(t *testing.T) {
	ctx := context.Background()
	c := newCluster(64, 8, 16, 32)
	pl := newTestPlugin()
	spec := gang.Spec{Key: gang.Key{Namespace: "ml", Name: "g"}, Source: gang.SourceLabels, MinMember: 4, MaxMember: 4,
		Annotations: map[string]string{topology.PreferredLevelAnnotation: "clique"}}
	pods := members("g", 4, "8")
	state := framework.NewCycleState()
	gangstate.StoreSpec(state, spec)
	if _, st := pl.PreFilter(ctx, state, pods[0], c.views); !st.IsSuccess() {
		t.Fatal(st.AsError())
	}
	if st := pl.Reserve(ctx, state, pods[0], "gpu-00000"); !st.IsSuccess() {
		t.Fatal(st.AsError())
	}
	if v, _ := pl.index.Node("gpu-00000"); v.FreeGPUs != 0 {
		t.Errorf("after Reserve gpu-00000 has %d free GPUs in the index, want 0", v.FreeGPUs)
	}
	pl.Unreserve(ctx, state, pods[0], "gpu-00000")
	if len(pl.gangs) != 0 {
		t.Errorf("gang still tracked after its last member was unreserved")
	}
	if v, _ := pl.index.Node("gpu-00000"); v.FreeGPUs != 8 {
		t.Errorf("after Unreserve gpu-00000 has %d free GPUs in the index, want 8", v.FreeGPUs)
	}
}

// BenchmarkGang512On5000 places one 512-member gang of 8-GPU members on 5000
// nodes (cliques of 8, racks of 32, zones of 1000) per iteration through
// PreFilter, Filter, Score and Reserve.
func BenchmarkGang512On5000(b *testing.B) {
	benchmarkGang(b, 5000, 512, map[string]string{topology.PreferredLevelAnnotation: "clique", topology.RequiredLevelAnnotation: "zone"})
}

// BenchmarkGang512On5000Anywhere is the same gang with no topology ask that
// is still placed in the narrowest level that holds it.
func BenchmarkGang512On5000Anywhere(b *testing.B) {
	benchmarkGang(b, 5000, 512, nil)
}

func benchmarkGang(b *testing.B, nodes, size int, ann map[string]string) {
	ctx := context.Background()
	pods := members("g", size, "8")
	b.ReportAllocs()
	var decisions int64
	for b.Loop() {
		b.StopTimer()
		c := newCluster(nodes, 8, 32, 1000)
		pl := newTestPlugin()
		spec := gang.Spec{Key: gang.Key{Namespace: "ml", Name: "g"}, Source: gang.SourceLabels, MinMember: int32(size), MaxMember: int32(size), Annotations: ann}
		b.StartTimer()
		schedule(ctx, b, pl, c, spec, pods)
		decisions += pl.decisions
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*size), "ns/member")
	b.ReportMetric(float64(decisions)/float64(b.N), "decisions/gang")
}

// TestHintTimeForgottenWhenGangGone: a gang whose members never bound leaves
// no hint time behind once its last member is deleted.
func TestHintTimeForgottenWhenGangGone(t *testing.T) {
	informer := cache.NewSharedIndexInformer(&cache.ListWatch{}, &v1.Pod{}, 0, cache.Indexers{})
	if err := gangstate.EnsureGangIndex(informer); err != nil {
		t.Fatal(err)
	}
	pl := newTestPlugin()
	pl.pods = informer.GetIndexer()
	pl.hinted = map[gang.Key]time.Time{}
	k := gang.Key{Namespace: "ml", Name: "g"}
	pods := members("g", 2, "8")
	for _, p := range pods {
		if err := pl.pods.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	pl.hinted[k] = time.Now()

	// As the informer does: the store first, then the handler.
	remove := func(p *v1.Pod) {
		if err := pl.pods.Delete(p); err != nil {
			t.Fatal(err)
		}
		pl.podGone(p)
	}
	remove(pods[0])
	if _, ok := pl.hinted[k]; !ok {
		t.Fatal("hint time forgotten while a member is left")
	}
	remove(pods[1])
	if _, ok := pl.hinted[k]; ok {
		t.Error("hint time kept after the gang's last unbound member was deleted")
	}

	// A cycle that began before the last member went fails after podGone
	// ran: its PostFilter records nothing that nothing would ever forget.
	pl.requests = provisioning.NewWriter(nil, nil, nil, func(gang.Key) []*v1.Pod { return nil }, func() bool { return true }, nil, time.Second)
	state := framework.NewCycleState()
	gangstate.StoreSpec(state, gang.Spec{Key: k, MinMember: 2})
	if _, st := pl.PostFilter(context.Background(), state, pods[1], nil); st.IsSuccess() {
		t.Fatalf("PostFilter of a gone gang's member succeeded: %v", st)
	}
	if _, ok := pl.hinted[k]; ok {
		t.Error("PostFilter of a gang whose last member is gone left a hint time")
	}
}

// Two gangs placing their quorums at once, members interleaved as the queue
// hands them out: the second does not choose the node the first chose and
// has begun to fill, though its free GPUs would hold the second's quorum
// were the first's unplaced members not counted. Without the claim both
// chose the fuller node, and one member of four found no room there.
func TestChoiceLeavesOutOtherGangsClaims(t *testing.T) {
	ctx := context.Background()
	c := newCluster(2, 1, 2, 2)
	busy := st.MakePod().Namespace("ml").Name("busy").UID("busy").Node("gpu-00000").
		Req(map[v1.ResourceName]string{"nvidia.com/gpu": "1"}).Obj()
	c.infos[0].AddPod(busy)
	pl := newTestPlugin()
	specOf := func(name string) gang.Spec {
		return gang.Spec{Key: gang.Key{Namespace: "ml", Name: name}, Source: gang.SourceLabels, MinMember: 4, MaxMember: 4}
	}
	a, b := members("a", 4, "1"), members("b", 4, "1")
	var scratch []int
	nodes := map[string][]string{}
	for i := range 4 {
		nodes["a"] = append(nodes["a"], scheduleOne(ctx, t, pl, c, specOf("a"), a[i], &scratch))
		if i == 0 {
			if got := pl.claimed["gpu-00000"]; got != 3 {
				t.Errorf("after a's first member: %d GPUs of gpu-00000 claimed for a, want 3", got)
			}
		}
		if i == 0 {
			// Nor does a lone pod take the claimed GPUs.
			lone := st.MakePod().Namespace("ml").Name("lone").UID("lone").Req(map[v1.ResourceName]string{"nvidia.com/gpu": "4"}).Obj()
			state := framework.NewCycleState()
			if _, st := pl.PreFilter(ctx, state, lone, c.views); !st.IsSuccess() {
				t.Fatal(st.AsError())
			}
			if st := pl.Filter(ctx, state, lone, c.views[0]); st.IsSuccess() || st.Message() != ReasonClaimed {
				t.Errorf("a lone 4-GPU pod on gpu-00000 (6 free, 3 claimed by a): %v, want %q", st, ReasonClaimed)
			}
		}
		nodes["b"] = append(nodes["b"], scheduleOne(ctx, t, pl, c, specOf("b"), b[i], &scratch))
	}
	for g, want := range map[string]string{"a": "gpu-00000", "b": "gpu-00001"} {
		for _, n := range nodes[g] {
			if n != want {
				t.Errorf("gang %s placed on %v, want every member on %s", g, nodes[g], want)
				break
			}
		}
	}
	if len(pl.claimed) != 0 {
		t.Errorf("claims left after both quorums were reserved: %v", pl.claimed)
	}

	// A gang whose member fits no node in its domain ends its attempt in
	// PostFilter: its claim goes with it.
	cg := members("c", 2, "1")
	state := framework.NewCycleState()
	gangstate.StoreSpec(state, gang.Spec{Key: gang.Key{Namespace: "ml", Name: "c"}, Source: gang.SourceLabels, MinMember: 2, MaxMember: 2})
	if _, st := pl.PreFilter(ctx, state, cg[0], c.views); !st.IsSuccess() {
		t.Fatal(st.AsError())
	}
	if len(pl.claimed) == 0 {
		t.Fatal("gang c chose a domain but claimed nothing")
	}
	pl.PostFilter(ctx, state, cg[0], nil)
	if len(pl.claimed) != 0 {
		t.Errorf("claims left after gang c's attempt failed: %v", pl.claimed)
	}
}

// A gang chooses its domain in the room the capacity plan leaves it, not
// on nodes held for gangs served before it.
func TestChoiceLeavesOutHeldRoom(t *testing.T) {
	ctx := context.Background()
	logger := klog.FromContext(ctx)
	c := newCluster(3, 1, 3, 3)
	pl := newTestPlugin()
	old := members("old", 2, "8")
	plan := capacity.MakePlan(logger, []capacity.Waiting{{Key: "ml/old", Since: time.Now().Add(-time.Minute),
		Quorum: capacity.Quorum{{Shape: capacity.ShapeOf(old[0], "nvidia.com/gpu"), Count: 2}}}}, nodefit.Rooms(c.views), nil, time.Hour)
	held := plan.Ahead("ml/young")
	heldNodes := 0
	for _, ni := range c.views {
		if held.On(ni.Node().Name) {
			heldNodes++
		}
	}
	if heldNodes != 2 {
		t.Fatalf("the plan holds %d nodes for the older gang, want 2", heldNodes)
	}
	state := framework.NewCycleState()
	gangstate.StoreSpec(state, gang.Spec{Key: gang.Key{Namespace: "ml", Name: "young"}, Source: gang.SourceLabels, MinMember: 4, MaxMember: 4})
	gangstate.StoreHeld(state, held)
	res, st := pl.PreFilter(ctx, state, members("young", 4, "2")[0], c.views)
	if !st.IsSuccess() {
		t.Fatal(st.AsError())
	}
	if res.AllNodes() || res.NodeNames.Len() != 1 {
		t.Fatalf("young gang's domain: %v, want one node", res)
	}
	if n := res.NodeNames.UnsortedList()[0]; held.On(n) {
		t.Errorf("young gang chose %s, held for the older gang", n)
	}
}

// A gang bound to a rack that no rack had room for is starving: the
// capacity plan may hold room for it in the rack MusterTopology names.
// When room frees and its attempt chooses a rack, that attempt may still
// fail (a member fits no node); the rack stays named, so the plan keeps
// holding room for the gang, until it is gone. Dropping the name on the
// choice left the gang out of the plan after such a failure, and younger
// gangs could take its rack's room for ever.
func TestStarvingGangKeepsItsDomainThroughAFailedAttempt(t *testing.T) {
	ctx := context.Background()
	c := newCluster(4, 1, 2, 4) // racks rack-0000 (gpu-00000, gpu-00001) and rack-0001
	var busy []*v1.Pod
	for _, i := range []int{0, 2} {
		p := st.MakePod().Namespace("ml").Name(fmt.Sprintf("busy-%d", i)).UID(fmt.Sprintf("busy-%d", i)).Node(c.infos[i].Node().Name).
			Req(map[v1.ResourceName]string{"nvidia.com/gpu": "8"}).Obj()
		c.infos[i].AddPod(p)
		busy = append(busy, p)
	}
	informer := cache.NewSharedIndexInformer(&cache.ListWatch{}, &v1.Pod{}, 0, cache.Indexers{})
	if err := gangstate.EnsureGangIndex(informer); err != nil {
		t.Fatal(err)
	}
	pl := newTestPlugin()
	pl.pods = informer.GetIndexer()
	k := gang.Key{Namespace: "ml", Name: "s"}
	pods := members("s", 2, "8")
	for _, p := range pods {
		if err := pl.pods.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	spec := gang.Spec{Key: k, Source: gang.SourceLabels, MinMember: 2, MaxMember: 2,
		Annotations: map[string]string{topology.RequiredLevelAnnotation: "rack"}}
	attempt := func() (*fwk.PreFilterResult, *fwk.Status, fwk.CycleState) {
		state := framework.NewCycleState()
		gangstate.StoreSpec(state, spec)
		res, st := pl.PreFilter(ctx, state, pods[0], c.views)
		return res, st, state
	}

	if _, st, _ := attempt(); st.IsSuccess() {
		t.Fatal("a 2 x 8-GPU gang bound to a rack fits with one free node per rack")
	}
	heldRack := func() (string, bool) {
		in, ok := pl.starving[k]
		if ok && in.domain.label != topology.LeafLabel {
			t.Fatalf("room held for the starving gang in %q, want a rack", in.domain.label)
		}
		return in.domain.value, ok
	}
	rack, ok := heldRack()
	if !ok {
		t.Fatal("no rack named for the starving gang")
	}

	// Room frees in its rack: the next attempt chooses it.
	freed := map[string]int{"rack-0000": 0, "rack-0001": 1}[rack]
	c.infos[2*freed].RemovePod(klog.Background(), busy[freed])
	res, st, state := attempt()
	if !st.IsSuccess() || res.AllNodes() {
		t.Fatalf("the gang's attempt chose no rack after room freed in %s: %v %v", rack, res, st)
	}
	if got, ok := heldRack(); !ok || got != rack {
		t.Fatalf("after choosing a domain the gang's held rack is %q (%t), want %s", got, ok, rack)
	}
	// The attempt fails: a member fits no node.
	pl.PostFilter(ctx, state, pods[0], nil)
	if got, ok := heldRack(); !ok || got != rack {
		t.Fatalf("after a failed attempt the gang's held rack is %q (%t), want %s: the plan drops the gang and younger ones take its room", got, ok, rack)
	}

	// Gone, it holds nothing.
	for _, p := range pods {
		if err := pl.pods.Delete(p); err != nil {
			t.Fatal(err)
		}
		pl.podGone(p)
	}
	if _, ok := heldRack(); ok {
		t.Error("a gone gang still names a rack to hold room in")
	}
}

// A gang that requires no domain and finds too few free GPUs of its class
// in the cluster is starving too: its attempt fails here, not on room in
// MusterGang, and without a name MusterGang left it out of the capacity
// plan, so elastic members of an older gang took every node that freed
// (TestWaitingQuorumBeforeElasticGrowth in stress: MusterGang counted a
// terminating pod's GPUs as free, this index did not, and the rigid gang
// failed here). Room is held for it on nodes of its GPU class only; a
// class the cluster could never hold the quorum of names none.
func TestStarvingGangWithoutADomainIsHeldRoomOfItsClass(t *testing.T) {
	ctx := context.Background()
	c := newCluster(4, 1, 2, 4)
	a100 := c.infos[3].Node()
	a100.Labels[topology.ProductLabel], a100.Labels[topology.MemoryLabel] = "NVIDIA-A100-SXM4-80GB", "81920"
	for _, i := range []int{0, 1} {
		c.infos[i].AddPod(st.MakePod().Namespace("ml").Name(fmt.Sprintf("busy-%d", i)).UID(fmt.Sprintf("busy-%d", i)).Node(c.infos[i].Node().Name).
			Req(map[v1.ResourceName]string{"nvidia.com/gpu": "8"}).Obj())
	}
	informer := cache.NewSharedIndexInformer(&cache.ListWatch{}, &v1.Pod{}, 0, cache.Indexers{})
	if err := gangstate.EnsureGangIndex(informer); err != nil {
		t.Fatal(err)
	}
	pl := newTestPlugin()
	pl.pods = informer.GetIndexer()
	attempt := func(name string, n int, ann map[string]string) (*fwk.Status, func(*v1.Node) bool, bool) {
		t.Helper()
		pods := members(name, n, "8")
		for _, p := range pods {
			if err := pl.pods.Add(p); err != nil {
				t.Fatal(err)
			}
		}
		spec := gang.Spec{Key: gang.Key{Namespace: "ml", Name: name}, Source: gang.SourceLabels, MinMember: int32(n), MaxMember: int32(n), Annotations: ann}
		state := framework.NewCycleState()
		gangstate.StoreSpec(state, spec)
		_, st := pl.PreFilter(ctx, state, pods[0], c.views)
		in, ok := pl.starvingDomain(spec.Key)
		return st, in, ok
	}
	heldOn := func(in func(*v1.Node) bool) (out []string) {
		for _, ni := range c.infos {
			if in(ni.Node()) {
				out = append(out, ni.Node().Name)
			}
		}
		return out
	}

	// Any GPU: three members, one free node of each class.
	st, in, ok := attempt("any", 3, nil)
	if st.IsSuccess() || !ok {
		t.Fatalf("3 x 8 GPUs anywhere with 8 + 8 free on two nodes: %v, starving %t, want rejected and starving", st, ok)
	}
	if got := heldOn(in); len(got) != 4 {
		t.Errorf("room may be held for a gang of any GPU on %v, want every node", got)
	}
	// H100s only: two members and one free H100; three H100s when empty.
	st, in, ok = attempt("hopper", 2, map[string]string{topology.GPUProductAnnotation: "NVIDIA-H100*"})
	if st.IsSuccess() || !ok {
		t.Fatalf("2 x 8 H100s anywhere with one H100 free: %v, starving %t, want rejected and starving", st, ok)
	}
	if got := heldOn(in); fmt.Sprint(got) != "[gpu-00000 gpu-00001 gpu-00002]" {
		t.Errorf("room may be held for the H100 gang on %v, want the three H100 nodes", got)
	}
	// Four H100s never fit three: new nodes, not held room, serve it.
	if st, _, ok := attempt("wide", 4, map[string]string{topology.GPUProductAnnotation: "NVIDIA-H100*"}); st.IsSuccess() || ok {
		t.Fatalf("4 x 8 H100s on a cluster of three H100 nodes: %v, starving %t, want rejected and not starving", st, ok)
	}
}
