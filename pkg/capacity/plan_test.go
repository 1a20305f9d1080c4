// Tests of the Plan: room held for waiting quorums in serving order, its invariants, gangs served after all, the shape cache, held GPUs, and a benchmark on 5000 nodes.

package capacity

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
)

func TestPlan(t *testing.T) {
	logger, _ := ktesting.NewTestContext(t)
	w8 := ShapeOf(pod("w8", 1000, 8), gpu)
	q := func(n int64) Quorum { return Quorum{{Shape: w8, Count: n}} }
	nodes := cluster(4)
	bound := 10 * time.Minute

	// The older gang is served first: the younger one packs around it.
	plan := MakePlan(logger, []Waiting{
		{Key: "young", Since: t0.Add(time.Minute), Quorum: q(2)},
		{Key: "old", Since: t0, Quorum: q(3)},
	}, nodes, nil, nil, bound)
	if got := fmt.Sprint(plan.Waiting()); got != "[old young]" {
		t.Errorf("served %s, want [old young]", got)
	}
	if PackAround(logger, q(3), nodes, nil, plan.Ahead("old")).Fits() != true {
		t.Error("the oldest quorum is kept from its own room")
	}
	if PackAround(logger, q(2), nodes, nil, plan.Ahead("young")).Fits() {
		t.Error("the younger quorum took room held for the older one")
	}
	if PackAround(logger, q(1), nodes, nil, plan.Ahead("young")).Fits() != true {
		t.Error("the younger quorum cannot use the room the older one leaves")
	}
	// An elastic member sees all held room set aside: one node is left.
	free := 0
	for i := range nodes {
		if plan.Ahead("elastic").Admits(w8, &nodes[i]) {
			free++
		}
	}
	if free != 1 {
		t.Errorf("an elastic member may use %d nodes, want the 1 no quorum needs", free)
	}

	// Priority before age.
	plan = MakePlan(logger, []Waiting{{Key: "old", Since: t0, Quorum: q(3)}, {Key: "urgent", Priority: 1000, Since: t0.Add(time.Hour), Quorum: q(3)}}, nodes, nil, nil, bound)
	if got := fmt.Sprint(plan.Waiting()); got != "[urgent old]" {
		t.Errorf("served %s, want [urgent old]", got)
	}

	// A quorum that does not fit holds nothing until it has waited the
	// starvation bound; then what room there is is held for it.
	big := Waiting{Key: "big", Since: t0, Quorum: q(4), Waited: time.Minute, CouldFit: true}
	running(nodes, "other", 0, 0, 1, w8, 0) // one node busy: big does not fit now
	small := Waiting{Key: "small", Since: t0.Add(time.Minute), Quorum: q(2)}
	plan = MakePlan(logger, []Waiting{big, small}, nodes, nil, nil, bound)
	if !PackAround(logger, q(2), nodes, nil, plan.Ahead("small")).Fits() {
		t.Error("a quorum that does not fit held room before the starvation bound")
	}
	big.Waited = bound
	plan = MakePlan(logger, []Waiting{big, small}, nodes, nil, nil, bound)
	if PackAround(logger, q(1), nodes, nil, plan.Ahead("small")).Fits() {
		t.Error("a gang starved past the bound was overtaken by a younger one")
	}
	// Confined to its required domain (n0, n1, n2), the starved gang's
	// held room is there only: n3 stays the younger gang's.
	inDomain := func(n *v1.Node) bool { return n.Name != "n3" }
	confined := Waiting{Key: "big", Since: t0, Quorum: q(3), Waited: bound, CouldFit: true, InDomain: inDomain}
	plan = MakePlan(logger, []Waiting{confined, small}, nodes, nil, nil, bound)
	if !plan.Ahead("small").Admits(w8, &nodes[3]) {
		t.Error("room outside its required domain was held for a starved gang")
	}
	if plan.Ahead("small").Admits(w8, &nodes[1]) || plan.Ahead("small").Admits(w8, &nodes[2]) {
		t.Error("a starved gang's room in its required domain went to a younger gang")
	}
	big.CouldFit = false // larger than the cluster: new nodes serve it, held room would idle
	plan = MakePlan(logger, []Waiting{big, small}, nodes, nil, nil, bound)
	if !PackAround(logger, q(2), nodes, nil, plan.Ahead("small")).Fits() {
		t.Error("room was held for a gang larger than the cluster")
	}

	// A node booked for a gang is room for that gang only, whatever its
	// rank: the older gang does not count the younger one's new node.
	nodes = cluster(4)
	booked := map[string]string{nodes[3].Node.Name: "young"}
	plan = MakePlan(logger, []Waiting{{Key: "old", Since: t0, Quorum: q(4)}, {Key: "young", Since: t0.Add(time.Minute), Quorum: q(1)}}, nodes, nil, booked, bound)
	if PackAround(logger, q(4), nodes, nil, plan.Ahead("old")).Fits() {
		t.Error("the older gang counts a node booked for the younger one")
	}
	if !PackAround(logger, q(1), nodes, nil, plan.Ahead("young")).Fits() || !plan.Ahead("young").Admits(w8, &nodes[3]) {
		t.Error("the younger gang is kept off the node booked for it")
	}
	if plan.Ahead("old").Admits(w8, &nodes[3]) || !plan.Ahead("old").On(nodes[3].Node.Name) {
		t.Error("Filter would let the older gang onto a node booked for the younger one")
	}
}

// TestPlanProperties checks, on thousands of generated clusters with mixed
// waiting quorums, that no node's room is promised twice, that a younger
// gang's quorum never takes the room of a fitting quorum served before it
// (a fitting gang is never passed over), and that an elastic member
// admitted beside the plan never takes room a waiting quorum was promised.
func TestPlanProperties(t *testing.T) {
	logger, _ := ktesting.NewTestContext(t)
	rng := rand.New(rand.NewSource(11))
	shapes := []*Shape{ShapeOf(pod("w8", 1000, 8), gpu), ShapeOf(pod("w4", 2000, 4), gpu), ShapeOf(pod("w1", 500, 1), gpu), ShapeOf(pod("cpu", 6000, 0), gpu)}
	for trial := range 2000 {
		var nodes []Node
		for i := range 1 + rng.Intn(6) {
			n := node(fmt.Sprintf("n%d", i), int64(4000+rng.Intn(5)*2000), 8)
			n.UsedScalars = map[v1.ResourceName]int64{gpu: int64(rng.Intn(9))}
			nodes = append(nodes, n)
		}
		var waiting []Waiting
		for g := range rng.Intn(5) {
			q := randomQuorum(rng, shapes)
			if len(q) == 0 {
				continue
			}
			waiting = append(waiting, Waiting{Key: fmt.Sprintf("g%d", g), Priority: int32(rng.Intn(2)), Since: t0.Add(time.Duration(rng.Intn(60)) * time.Minute),
				Waited: time.Duration(rng.Intn(20)) * time.Minute, Quorum: q, CouldFit: rng.Intn(2) == 0, MayShed: rng.Intn(2) == 0})
		}
		booked := map[string]string{}
		for i := range nodes {
			if len(waiting) > 0 && rng.Intn(4) == 0 {
				booked[nodes[i].Node.Name] = waiting[rng.Intn(len(waiting))].Key
			}
		}
		plan := MakePlan(logger, waiting, nodes, nil, booked, 10*time.Minute)
		// No node is promised twice: a node booked for one gang holds
		// nothing for another gang's GPU members.
		for i, key := range plan.order {
			after := plan.heldBefore(i + 1)
			for node, owner := range booked {
				if owner != key && after[node].scalars[gpu] != plan.heldBefore(i)[node].scalars[gpu] {
					t.Fatalf("trial %d: node %s is booked for %s, and the plan promised its GPUs to %s", trial, node, owner, key)
				}
			}
			for j := range nodes {
				if owner := booked[nodes[j].Node.Name]; owner != "" && owner != key && plan.Ahead(key).Admits(shapes[2], &nodes[j]) {
					t.Fatalf("trial %d: gang %s is admitted on node %s, booked for %s", trial, key, nodes[j].Node.Name, owner)
				}
			}
		}
		all := plan.Ahead("elastic")
		for i := range nodes {
			u := all.heldOn(nodes[i].Node.Name)
			free := nodes[i].AllocScalars[gpu] - nodes[i].UsedScalars[gpu]
			if u.scalars[gpu] > free || u.milliCPU > nodes[i].MilliCPU || u.pods > nodes[i].Pods {
				t.Fatalf("trial %d: node %s promised %+v, has %d GPUs, %d mCPU free", trial, nodes[i].Node.Name, u, free, nodes[i].MilliCPU)
			}
		}
		// A gang whose quorum fits is never passed over: a younger (later
		// served) gang's quorum placed where the plan admits it leaves every
		// fitting quorum ahead of it fitting still.
		for hi := 1; hi < len(plan.order); hi++ {
			h := waitingByKey(waiting, plan.order[hi])
			taken, fits := packTaken(logger, h.Quorum, nodes, snapshotOf(plan.heldBefore(hi), nodes), plan.admitFor(h.Key, nil))
			if !fits {
				continue
			}
			base := snapshotOf(plan.heldBefore(hi), nodes)
			after := append([]Node(nil), nodes...)
			for i := range after {
				own := taken[i].scalars[gpu] - base[i].scalars[gpu]
				after[i].MilliCPU -= taken[i].milliCPU - base[i].milliCPU
				after[i].Memory -= taken[i].memory - base[i].memory
				after[i].Pods -= taken[i].pods - base[i].pods
				after[i].UsedScalars = map[v1.ResourceName]int64{gpu: nodes[i].UsedScalars[gpu] + own}
			}
			for gi := range hi {
				g := waitingByKey(waiting, plan.order[gi])
				if PackAround(logger, g.Quorum, nodes, nil, plan.Ahead(g.Key)).Fits() &&
					!PackAround(logger, g.Quorum, after, nil, plan.Ahead(g.Key)).Fits() {
					t.Fatalf("trial %d: younger gang %s's quorum took room gang %s's fitting quorum was promised", trial, h.Key, g.Key)
				}
			}
		}
		// Place one elastic member of a random shape wherever the plan
		// admits it, either one that may not borrow or one that may (of a
		// random priority and age); every quorum the plan served must
		// still fit around the gangs before it, in the plan made once the
		// member is bound: only the room of gangs that do not fit yet is
		// lent, and it stays theirs.
		s := shapes[rng.Intn(len(shapes))]
		member, borrows := all, rng.Intn(2) == 0
		elastic := Gang{Key: "elastic", Priority: int32(rng.Intn(2)), Since: t0.Add(time.Duration(rng.Intn(60)) * time.Minute)}
		if borrows {
			member = plan.Lent(elastic.Key, elastic.Priority)
		}
		for i := range nodes {
			if !member.Admits(s, &nodes[i]) {
				continue
			}
			after := append([]Node(nil), nodes...)
			after[i].MilliCPU -= s.Demand.MilliCPU
			after[i].Pods--
			after[i].UsedScalars = map[v1.ResourceName]int64{gpu: after[i].UsedScalars[gpu] + s.GPUs}
			next := plan
			if borrows {
				// Bound now: after every waiting gang started to starve.
				elastic.Bound = []Member{{Name: "elastic-1", Node: nodes[i].Node.Name, Shape: s, Started: t0.Add(2 * time.Hour)}}
				next = MakePlan(logger, waiting, after, []Gang{elastic}, booked, 10*time.Minute)
			}
			for _, w := range waiting {
				before := PackAround(logger, w.Quorum, nodes, nil, plan.Ahead(w.Key)).Fits()
				if before && !PackAround(logger, w.Quorum, after, nil, next.Ahead(w.Key)).Fits() {
					// The case, for a failure to be read.
					for _, g := range waiting {
						t.Logf("waiting %s: priority %d, since %s, waited %s, could fit %t, may shed %t, quorum %s", g.Key, g.Priority, g.Since.Sub(t0), g.Waited, g.CouldFit, g.MayShed, g.Quorum)
					}
					for _, n := range nodes {
						t.Logf("node %s: %d mCPU free, %d GPUs used, booked for %q", n.Node.Name, n.MilliCPU, n.UsedScalars[gpu], booked[n.Node.Name])
					}
					t.Logf("held before: %v; once the member is bound: %v", plan.heldBefore(len(plan.order)), next.heldBefore(len(next.order)))
					t.Fatalf("trial %d: an elastic %s on %s (borrowing %t) took room gang %s's quorum was promised", trial, s, nodes[i].Node.Name, borrows, w.Key)
				}
			}
			break
		}
	}
}

func waitingByKey(w []Waiting, key string) Waiting {
	for _, g := range w {
		if g.Key == key {
			return g
		}
	}
	panic("no waiting gang " + key)
}

// snapshotOf lays a per-node map of held room out in node order.
func snapshotOf(m map[string]used, nodes []Node) []used {
	out := make([]used, len(nodes))
	for i := range nodes {
		out[i] = m[nodes[i].Node.Name].clone()
	}
	return out
}

// BenchmarkMakePlan5000Nodes200Gangs makes the plan for 200 waiting gangs
// (a launcher and 49 one-GPU workers each, 10 000 pods) on 5000 nodes of 8
// GPUs, then asks it, as Filter does for one member, whether each node
// admits a worker. With -benchmem, allocations must grow with the gangs and
// the nodes they touch, not with nodes x gangs.
func BenchmarkMakePlan5000Nodes200Gangs(b *testing.B) {
	logger, _ := ktesting.NewTestContext(b)
	nodes := make([]Node, 5000)
	for i := range nodes {
		nodes[i] = node(fmt.Sprintf("n%04d", i), 64000, 8)
	}
	launcher, worker := ShapeOf(pod("launcher", 1000, 0), gpu), ShapeOf(pod("worker", 1000, 1), gpu)
	waiting := make([]Waiting, 200)
	for i := range waiting {
		waiting[i] = Waiting{Key: fmt.Sprintf("g%03d", i), Since: t0.Add(time.Duration(i) * time.Second),
			Quorum: Quorum{{Shape: worker, Count: 49}, {Shape: launcher, Count: 1}}, CouldFit: true}
	}
	b.ReportAllocs()
	admitted := 0
	for b.Loop() {
		plan := MakePlan(logger, waiting, nodes, nil, nil, time.Hour)
		held := plan.Ahead("g199")
		admitted = 0
		for i := range nodes {
			if held.Admits(worker, &nodes[i]) {
				admitted++
			}
		}
	}
	// The 199 gangs ahead hold 199 x 49 = 9751 GPUs: 1218 whole nodes and
	// 7 GPUs of one more, which keeps one free.
	if want := 5000 - 1218; admitted != want {
		b.Fatalf("%d nodes admit the last gang's worker, want %d", admitted, want)
	}
}

// packTaken packs q on the room base leaves and returns what it took per
// node, and whether all of q found a place.
func packTaken(logger klog.Logger, q Quorum, nodes []Node, base []used, inDomain func(*v1.Node) bool) ([]used, bool) {
	taken := make([]used, len(nodes))
	for i := range base {
		taken[i] = base[i].clone()
	}
	p := packInto(logger, q, nodes, inDomain, taken, nil)
	for i := range taken {
		taken[i] = taken[i].minus(base[i])
	}
	return taken, p.Fits()
}

func (u used) plus(o used) used {
	out := u.clone()
	out.addUsed(o)
	return out
}

func (u used) minus(o used) used {
	neg := used{milliCPU: -o.milliCPU, memory: -o.memory, pods: -o.pods}
	if o.scalars != nil {
		neg.scalars = map[v1.ResourceName]int64{}
		for k, v := range o.scalars {
			neg.scalars[k] = -v
		}
	}
	return u.plus(neg)
}

// heldBefore is what the plan holds, by node, for the gangs ranked before
// rank (len(order): all of them).
func (p *Plan) heldBefore(rank int) map[string]used {
	out := map[string]used{}
	h := Held{plan: p, rank: rank}
	for name := range p.holds {
		if u, ok := h.on(name); ok {
			out[name] = u
		}
	}
	return out
}

func (h Held) heldOn(node string) used {
	u, _ := h.on(node)
	return u
}

// A gang the plan does not know is served after all of its gangs only if it
// ranks after the last of them (priority, then age, then key); a plan
// without gangs serves any gang last.
func TestServedAfterAll(t *testing.T) {
	logger, _ := ktesting.NewTestContext(t)
	w1 := ShapeOf(pod("w1", 1000, 1), gpu)
	q := Quorum{{Shape: w1, Count: 1}}
	plan := MakePlan(logger, []Waiting{
		{Key: "ns/a", Since: t0, Quorum: q},
		{Key: "ns/b", Since: t0.Add(time.Minute), Quorum: q},
	}, cluster(2), nil, nil, time.Hour)
	for _, tc := range []struct {
		g    Waiting
		want bool
	}{
		{Waiting{Key: "ns/c", Since: t0.Add(2 * time.Minute)}, true},
		{Waiting{Key: "ns/c", Since: t0.Add(time.Minute)}, true}, // same age, later key
		{Waiting{Key: "ns/0", Since: t0.Add(time.Minute)}, false},
		{Waiting{Key: "ns/c", Since: t0.Add(30 * time.Second)}, false},
		{Waiting{Key: "ns/c", Priority: 1, Since: t0.Add(time.Hour)}, false},
	} {
		if got := plan.ServedAfterAll(tc.g); got != tc.want {
			t.Errorf("ServedAfterAll(%s, priority %d, since +%v) = %v, want %v", tc.g.Key, tc.g.Priority, tc.g.Since.Sub(t0), got, tc.want)
		}
	}
	var none *Plan
	if !none.ServedAfterAll(Waiting{Key: "ns/x", Priority: 1000}) || !MakePlan(logger, nil, cluster(1), nil, nil, time.Hour).ServedAfterAll(Waiting{Key: "ns/x"}) {
		t.Error("a plan without gangs does not serve a new gang last")
	}
}

// The shape cache answers from memory while a pod's resourceVersion stays,
// reads it again when it changes, and forgets it on request.
func TestShapesCache(t *testing.T) {
	c := NewShapes(gpu)
	p := pod("w", 1000, 1)
	p.ResourceVersion = "1"
	s1 := c.Of(p)
	if c.Of(p) != s1 || c.Len() != 1 {
		t.Fatalf("unchanged pod read again (%d remembered)", c.Len())
	}
	changed := p.DeepCopy()
	changed.ResourceVersion = "2"
	changed.Spec.Containers[0].Resources.Requests[gpu] = *resource.NewQuantity(2, resource.DecimalSI)
	if s2 := c.Of(changed); s2 == s1 || s2.GPUs != 2 {
		t.Errorf("changed pod: shape %v (GPUs %d), want a new one with 2 GPUs", s2, s2.GPUs)
	}
	c.Forget(p.UID)
	if c.Len() != 0 {
		t.Errorf("%d shapes remembered after Forget, want 0", c.Len())
	}
	noVersion := pod("x", 1000, 1)
	if c.Of(noVersion); c.Len() != 0 {
		t.Errorf("a pod without resourceVersion was remembered")
	}
}

// Held.GPUs lists the GPUs set aside for the gangs ahead, node by node, and
// every GPU of a node booked for another gang.
func TestHeldGPUs(t *testing.T) {
	logger, _ := ktesting.NewTestContext(t)
	w8 := ShapeOf(pod("w8", 1000, 8), gpu)
	nodes := cluster(4)
	plan := MakePlan(logger, []Waiting{
		{Key: "old", Since: t0, Quorum: Quorum{{Shape: w8, Count: 2}}},
		{Key: "young", Since: t0.Add(time.Minute), Quorum: Quorum{{Shape: w8, Count: 1}}},
	}, nodes, nil, map[string]string{nodes[3].Node.Name: "booked"}, time.Hour)
	sum := func(h Held) (total int64, nodes int) {
		h.GPUs(gpu, func(_ string, g int64) { total += g; nodes++ })
		return total, nodes
	}
	if g, n := sum(plan.Ahead("old")); n != 1 || g < 8 {
		t.Errorf("ahead of the oldest gang: %d GPUs on %d nodes, want only the booked node", g, n)
	}
	if g, n := sum(plan.Ahead("young")); n != 3 || g < 16+8 {
		t.Errorf("ahead of the younger gang: %d GPUs on %d nodes, want the older gang's 16 on two nodes and the booked node", g, n)
	}
	if g, n := sum(plan.Ahead("booked")); n != 3 || g != 24 {
		t.Errorf("ahead of the booked gang (not waiting: all that is held, its own booked node not): %d GPUs on %d nodes, want 24 on 3", g, n)
	}
}

// TestLentRoom: room held for a starving gang that may shed elastic members
// is lent to the members above min of gangs it may shed (lower or equal
// priority, of any age: it starved), not to others; room promised to a gang that fits, or
// held for one that may not shed, is lent to nobody. Once the starving
// gang's room is complete counting what it lent, MakeRoom sheds the
// borrowers.
func TestLentRoom(t *testing.T) {
	logger, _ := ktesting.NewTestContext(t)
	w8 := ShapeOf(pod("w8", 1000, 8), gpu)
	q := func(n int64) Quorum { return Quorum{{Shape: w8, Count: n}} }
	const bound = 10 * time.Minute
	// n0 and n1 run a rigid gang; n4 runs an elastic gang's min member.
	nodes := cluster(5)
	running(nodes, "busy", 0, 0, 2, w8, 0, 1)
	running(nodes, "elastic", 0, time.Hour, 1, w8, 4)
	starving := Waiting{Key: "starving", Since: t0, Waited: bound, CouldFit: true, MayShed: true, Quorum: q(3)}
	plan := MakePlan(logger, []Waiting{starving}, nodes, nil, nil, bound)
	admitted := func(h Held) []string { return admittedOn(h, w8, nodes) }
	for _, c := range []struct {
		name     string
		priority int32
		want     string
	}{
		{"same priority: borrows (a starving gang sheds extras of any age)", 0, "[n2 n3]"},
		{"lower priority: borrows", -1, "[n2 n3]"},
		{"higher priority: comes before a quorum that does not fit (and is never shed by it)", 1, "[n2 n3]"},
	} {
		if got := fmt.Sprint(admitted(plan.Lent("elastic", c.priority))); got != c.want {
			t.Errorf("%s: admitted on %s, want %s", c.name, got, c.want)
		}
	}
	if got := fmt.Sprint(admitted(plan.Ahead("elastic"))); got != "[]" {
		t.Errorf("a member that may not borrow (Ahead): admitted on %s, want none", got)
	}
	if PackAround(logger, q(2), nodes, nil, plan.Lent("elastic", 0)).Fits() != true {
		t.Error("two borrowing members do not fit the two nodes held for the starving gang")
	}
	if PackAround(logger, q(1), nodes, nil, plan.Ahead("starving")).Fits() != true {
		t.Error("the starving gang is kept off its own room")
	}

	noShed := starving
	noShed.MayShed = false
	plan = MakePlan(logger, []Waiting{noShed}, nodes, nil, nil, bound)
	if got := fmt.Sprint(admitted(plan.Lent("elastic", 0))); got != "[]" {
		t.Errorf("room held for a gang that may not shed: a borrower admitted on %s, want none", got)
	}
	// A gang that fits is promised its room at once: nothing is lent. n2
	// is promised to the fitting gang served first; n3 stays lent.
	fitting := Waiting{Key: "fitting", Priority: 5, Since: t0, MayShed: true, Quorum: q(1)}
	plan = MakePlan(logger, []Waiting{starving, fitting}, nodes, nil, nil, bound)
	if got := fmt.Sprint(admitted(plan.Lent("elastic", 0))); got != "[n3]" {
		t.Errorf("beside a fitting gang's promise: a borrower admitted on %s, want [n3]", got)
	}

	// The borrowers bound on n2 and n3, beside the elastic gang's min
	// member on n4; then the rigid gang ends. Freed room alone does not
	// complete the starving gang's quorum, with one borrower shed it does:
	// only that one is shed.
	nodes = cluster(5)
	elastic := running(nodes, "elastic", 0, time.Hour, 1, w8, 4, 2, 3)
	plan = MakePlan(logger, []Waiting{starving}, nodes, nil, nil, bound)
	held := plan.Ahead("starving")
	if PackAround(logger, q(3), nodes, nil, held).Fits() {
		t.Fatal("the starving gang fits without shedding")
	}
	r := MakeRoom(logger, q(3), Gang{Key: "starving", Since: t0, Min: 3}, nodes, held, []Gang{elastic}, nil, Rule{Shed: true}, t0.Add(2*time.Hour))
	if got := describe(r); got != "elastic:extras:1" {
		t.Errorf("MakeRoom: %s, want one borrower shed", got)
	} else if m := r.Victims[0].Members[0]; m.Name != "elastic-2" {
		t.Errorf("MakeRoom shed %s, want the newest member, elastic-2", m.Name)
	}
}

// admittedOn names the nodes on which held admits a member of shape s.
func admittedOn(held Held, s *Shape, nodes []Node) (out []string) {
	for i := range nodes {
		if held.Admits(s, &nodes[i]) {
			out = append(out, nodes[i].Node.Name)
		}
	}
	return out
}

// TestGrowthBeforeAQuorumThatCannotRun: a higher priority's members above
// min may use room held for a lower-priority starving gang whose quorum
// does not fit even so, never room promised to a quorum that fits; the
// starving gang counts the growth that came while it starved as its own,
// so its hold stays where it was and the later gang keeps its promise.
func TestGrowthBeforeAQuorumThatCannotRun(t *testing.T) {
	logger, _ := ktesting.NewTestContext(t)
	const bound = 10 * time.Minute
	w8, w7, w1 := ShapeOf(pod("w8", 1000, 8), gpu), ShapeOf(pod("w7", 1000, 7), gpu), ShapeOf(pod("w1", 500, 1), gpu)
	// n0 is free; n1 and n2 have one GPU free; n3 runs the priority-1
	// elastic gang's min member.
	nodes := cluster(4)
	running(nodes, "busy", 0, 0, 2, w7, 1, 2)
	high := running(nodes, "high", 1, 0, 1, w8, 3)
	// The starving gang packs one 8-GPU member on n0 and its 1-GPU member
	// on n1 and does not fit; the later gang's one GPU fits on n2.
	starving := Waiting{Key: "starving", Since: t0, Waited: bound, CouldFit: true, Quorum: Quorum{{Shape: w8, Count: 2}, {Shape: w1, Count: 1}}}
	late := Waiting{Key: "late", Since: t0.Add(time.Minute), Quorum: Quorum{{Shape: w1, Count: 1}}}
	waiting := []Waiting{starving, late}
	plan := MakePlan(logger, waiting, nodes, []Gang{high}, nil, bound)
	admitted := func(h Held, s *Shape) []string { return admittedOn(h, s, nodes) }
	for _, c := range []struct {
		name string
		held Held
		s    *Shape
		want string
	}{
		{"higher priority's growth, 8 GPUs", plan.Growth("high", 1), w8, "[n0]"},
		{"higher priority's growth, 1 GPU: not the fitting gang's promise", plan.Growth("high", 1), w1, "[n0 n1]"},
		{"equal priority's growth", plan.Growth("high", 0), w1, "[]"},
		{"a member that may not borrow", plan.Ahead("high"), w1, "[]"},
	} {
		if got := fmt.Sprint(admitted(c.held, c.s)); got != c.want {
			t.Errorf("%s: admitted on %s, want %s", c.name, got, c.want)
		}
	}

	// The growth binds one GPU on n1, on the room held for the starving
	// gang, after it started to starve: the starving gang counts it as its
	// own, and the later gang keeps n2.
	grown := append([]Node(nil), nodes...)
	grownHigh := high
	grownHigh.Bound = append(append([]Member(nil), high.Bound...), Member{Name: "high-1", Node: "n1", Shape: w1, Started: t0.Add(bound + time.Minute)})
	grown[1].MilliCPU -= w1.Demand.MilliCPU
	grown[1].Pods--
	grown[1].UsedScalars = map[v1.ResourceName]int64{gpu: 8}
	next := MakePlan(logger, waiting, grown, []Gang{grownHigh}, nil, bound)
	if !PackAround(logger, late.Quorum, grown, nil, next.Ahead("late")).Fits() {
		t.Errorf("the growth moved the starving gang's hold onto the later gang's promise: held %v", next.heldBefore(len(next.order)))
	}
	if got := fmt.Sprint(admitted(next.Ahead("late"), w8)); got != "[]" {
		t.Errorf("the starving gang's 8-GPU room on n0: the later gang admitted on %s, want none", got)
	}
	// Growth bound before the gang starved is not counted: the gang holds
	// the room it can use now, n2 among it.
	grownHigh.Bound[1].Started = t0
	before := MakePlan(logger, waiting, grown, []Gang{grownHigh}, nil, bound)
	if PackAround(logger, late.Quorum, grown, nil, before.Ahead("late")).Fits() {
		t.Errorf("growth from before the gang starved drew its hold off the free room: held %v", before.heldBefore(len(before.order)))
	}
}

// TestMakeRoomAroundHeld: room the plan holds for a gang served first is
// not room MakeRoom may count, so a gang does not stay put (or disrupt
// others for nothing) on room it could not use.
func TestMakeRoomAroundHeld(t *testing.T) {
	logger, _ := ktesting.NewTestContext(t)
	w8 := ShapeOf(pod("w8", 1000, 8), gpu)
	q := func(n int64) Quorum { return Quorum{{Shape: w8, Count: n}} }
	nodes := cluster(3)
	low := running(nodes, "low", -1, 0, 1, w8, 2)
	// "first" (priority 10) fits on n0 and is promised it; "second"
	// (priority 5) needs two nodes: n1, and n2 once low is preempted.
	plan := MakePlan(logger, []Waiting{
		{Key: "first", Priority: 10, Since: t0, Quorum: q(1)},
		{Key: "second", Priority: 5, Since: t0, Quorum: q(2)},
	}, nodes, nil, nil, time.Hour)
	me := Gang{Key: "second", Priority: 5, Since: t0, Min: 2}
	if got := describe(MakeRoom(logger, q(2), me, nodes, plan.Ahead("second"), []Gang{low}, nil, Rule{Shed: true, Preempt: true}, t0.Add(time.Hour))); got != "low:whole:1" {
		t.Errorf("around the room held for the gang first: %s, want low preempted", got)
	}
	if got := describe(MakeRoom(logger, q(2), me, nodes, Held{}, []Gang{low}, nil, Rule{Shed: true, Preempt: true}, t0.Add(time.Hour))); got != "fits" {
		t.Errorf("with nothing held: %q, want it fits as it is", got)
	}
}
