// Test helpers of the plugin: a synthetic GPU cluster, its gangs and members; the queueing hints.

package gputopology

import (
	"context"
	"fmt"
	"sort"
	"testing"

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
		clock:        clock.RealClock{},
		levels:       levels,
		gpu:          "nvidia.com/gpu",
		memberShapes: capacity.NewShapes("nvidia.com/gpu"),
		pods:         cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{}),
		index:        topology.NewIndex(levels),
		synced:       map[string]int64{},
		gangs:        map[gang.Key]*placement{},
		claimed:      map[string]int64{},
		shapes:       newShapeWindow(64),
		starving:     map[gang.Key]heldIn{},
		beyond:       map[gang.Key]bool{},
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

// MusterTopology requeues a rejected pod on a node added, grown, relabelled
// or untainted and on an assigned pod leaving, and only GPU pods (it never
// rejects others). A gang member is requeued as MusterGang's room-freed
// hint says, when the profile runs MusterGang, so one plugin's Queue does
// not requeue every member of every waiting gang; without MusterGang a GPU
// member is requeued.
func TestEventsToRegisterRequeuesGPUPodsOnly(t *testing.T) {
	ctx := t.Context()
	logger := klog.FromContext(ctx)
	pl := newTestPlugin()
	evs, err := pl.EventsToRegister(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[fwk.EventResource]fwk.ActionType{
		fwk.Node:        fwk.Add | fwk.UpdateNodeAllocatable | fwk.UpdateNodeLabel | fwk.UpdateNodeTaint,
		fwk.AssignedPod: fwk.Delete,
	}
	if len(evs) != len(want) {
		t.Fatalf("%d events registered, want %d: %+v", len(evs), len(want), evs)
	}
	for _, ev := range evs {
		if want[ev.Event.Resource] != ev.Event.ActionType || ev.QueueingHintFn == nil {
			t.Errorf("event %s %v (hint set %v), want actions %v with a hint", ev.Event.Resource, ev.Event.ActionType, ev.QueueingHintFn != nil, want[ev.Event.Resource])
		}
	}
	hint := evs[0].QueueingHintFn
	cpuPod := st.MakePod().Namespace("ml").Name("cpu").Req(map[v1.ResourceName]string{v1.ResourceCPU: "1"}).Obj()
	lone := st.MakePod().Namespace("ml").Name("lone").Req(map[v1.ResourceName]string{"nvidia.com/gpu": "1"}).Obj()
	member := members("llm", 1, "8")[0]
	node := st.MakeNode().Name("gpu-new").Obj()
	for _, tc := range []struct {
		name string
		pod  *v1.Pod
		want fwk.QueueingHint
	}{
		{"a CPU pod", cpuPod, fwk.QueueSkip},
		{"a lone GPU pod", lone, fwk.Queue},
		{"a gang member without MusterGang", member, fwk.Queue},
	} {
		if got, err := hint(logger, tc.pod, nil, node); err != nil || got != tc.want {
			t.Errorf("%s on a node added: %v (%v), want %v", tc.name, got, err, tc.want)
		}
	}

	// With MusterGang in the profile, its hint decides for members.
	pl.state = &gangstate.State{}
	var asked []string
	pl.state.ShareRoomFreed(func(_ klog.Logger, p *v1.Pod, _, _ any) (fwk.QueueingHint, error) {
		asked = append(asked, p.Name)
		return fwk.QueueSkip, nil
	})
	if got, _ := hint(logger, member, nil, node); got != fwk.QueueSkip || len(asked) != 1 || asked[0] != member.Name {
		t.Errorf("a gang member with MusterGang: %v, MusterGang asked about %v; want its answer (QueueSkip) for %s", got, asked, member.Name)
	}
	if got, _ := hint(logger, lone, nil, node); got != fwk.Queue || len(asked) != 1 {
		t.Errorf("a lone GPU pod with MusterGang: %v (MusterGang asked about %v), want Queue without asking", got, asked)
	}
}
