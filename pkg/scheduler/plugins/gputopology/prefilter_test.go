// Unit tests of PreFilter: the gang's domain chosen once, held room and other gangs' domains left out, starving gangs keeping theirs.

package gputopology

import (
	"context"
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"

	"github.com/muster-project/muster/pkg/capacity"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/gangstate"
	"github.com/muster-project/muster/pkg/scheduler/nodefit"
	"github.com/muster-project/muster/pkg/topology"
)

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

// A gang chooses its domain in the room the capacity plan leaves it, not
// on nodes held for gangs served before it.
func TestChoiceLeavesOutHeldRoom(t *testing.T) {
	ctx := context.Background()
	logger := klog.FromContext(ctx)
	c := newCluster(3, 1, 3, 3)
	pl := newTestPlugin()
	old := members("old", 2, "8")
	plan := capacity.MakePlan(logger, []capacity.Waiting{{Key: "ml/old", Since: time.Now().Add(-time.Minute),
		Quorum: capacity.Quorum{{Shape: capacity.ShapeOf(old[0], "nvidia.com/gpu"), Count: 2}}}}, nodefit.Rooms(c.views), nil, nil, time.Hour)
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
	if pl.beyondDomains(gang.Key{Namespace: "ml", Name: "any"}) || pl.beyondDomains(gang.Key{Namespace: "ml", Name: "hopper"}) {
		t.Error("a gang the cluster's nodes hold when empty is taken as beyond every domain")
	}
	// Four H100s never fit three: new nodes, not held room, serve it, and
	// MusterGang may park it (beyondDomains).
	if st, _, ok := attempt("wide", 4, map[string]string{topology.GPUProductAnnotation: "NVIDIA-H100*"}); st.IsSuccess() || ok {
		t.Fatalf("4 x 8 H100s on a cluster of three H100 nodes: %v, starving %t, want rejected and not starving", st, ok)
	}
	if !pl.beyondDomains(gang.Key{Namespace: "ml", Name: "wide"}) {
		t.Error("4 x 8 H100s on a cluster of three H100 nodes: not taken as beyond every domain")
	}
}
