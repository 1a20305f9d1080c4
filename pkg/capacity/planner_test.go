// Tests of the Planner: after any sequence of events the plan it keeps equals MakePlan's from scratch.

package capacity

import (
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2/ktesting"
)

// TestPlannerEqualsMakePlan drives a Planner through random sequences of
// events (a gang placed on room the plan held for it or elsewhere, a pod
// leaving, nodes added, changed and removed, gangs arriving, changing and
// starving, elastic gangs growing and shrinking, bookings) on mixed shapes
// (8-, 4- and 1-GPU members, CPU members, members one per node), and checks
// after each event that its plan equals the plan MakePlan makes from scratch
// on the same inputs.
func TestPlannerEqualsMakePlan(t *testing.T) {
	logger, _ := ktesting.NewTestContext(t)
	rng := rand.New(rand.NewSource(38))
	bound := 10 * time.Minute
	spread := antiAffine(pod("spread", 1000, 4), v1.LabelHostname, "spread", true)
	shapes := []*Shape{ShapeOf(pod("w8", 1000, 8), gpu), ShapeOf(pod("w4", 2000, 4), gpu), ShapeOf(pod("w1", 500, 1), gpu),
		ShapeOf(pod("cpu", 6000, 0), gpu), ShapeOf(spread, gpu)}
	inRackN := func(n *v1.Node) bool { return n.Labels["rack"] == "n" }
	// kept counts the events after which no gang was packed again, partial
	// those after which some were and others kept their packing.
	events, kept, partial := 0, 0, 0
	for trial := range 300 {
		s := &world{rng: rng, shapes: shapes, nextNode: 0}
		for range 1 + rng.Intn(12) {
			s.addNode(len(s.nodes))
		}
		for range rng.Intn(8) {
			s.arrive(inRackN)
		}
		p := NewPlanner(logger, bound)
		p.SetNodes(s.nodes, 0)
		p.SetWaiting(s.waiting)
		p.SetRunning(s.running)
		p.SetBooked(s.booked)
		check := func(step int, what string) {
			t.Helper()
			events++
			switch {
			case p.dirty >= len(p.gangs):
				kept++
			case p.dirty > 0:
				partial++
			}
			want := MakePlan(logger, s.waiting, s.nodes, s.running, s.booked, bound)
			if err := samePlan(p.Plan(), want); err != nil {
				for _, g := range s.waiting {
					t.Logf("waiting %s: prio %d since %s waited %s couldfit %t mayshed %t domain %t quorum %s", g.Key, g.Priority, g.Since.Sub(t0), g.Waited, g.CouldFit, g.MayShed, g.InDomain != nil, g.Quorum)
				}
				for _, n := range s.nodes {
					t.Logf("node %s: %d mCPU, %d GPUs used, unschedulable %t", n.Node.Name, n.MilliCPU, n.UsedScalars[gpu], n.Node.Spec.Unschedulable)
				}
				for _, r := range p.gangs {
					t.Logf("incremental %s: fits %t kept %t reach %d journal %v after %v", r.g.Key, r.fits, r.kept, r.reach, r.journal, r.after)
				}
				t.Fatalf("trial %d, event %d (%s): the incremental plan differs from MakePlan's: %v", trial, step, what, err)
			}
		}
		check(0, "start")
		for step := 1; step <= 40; step++ {
			before := slices.Clone(s.nodes)
			what := ""
			switch e := rng.Intn(11); {
			case e == 0 && len(s.waiting) > 0:
				// A gang placed: on the room the plan held for it, or where
				// the scheduler chose.
				what = "placed"
				g := s.waiting[rng.Intn(len(s.waiting))]
				s.place(g, p.Plan(), rng.Intn(2) == 0)
				p.Remove(g.Key)
				p.SetRunning(s.running)
			case e == 1:
				what = "pod left"
				s.podLeaves()
			case e == 2:
				what = "node added"
				s.addNode(rng.Intn(len(s.nodes) + 1))
			case e == 3 && len(s.nodes) > 1:
				what = "node removed"
				i := rng.Intn(len(s.nodes))
				s.nodes = slices.Delete(s.nodes, i, i+1)
			case e == 4 && len(s.nodes) > 0:
				what = "node changed"
				s.changeNode(rng.Intn(len(s.nodes)))
			case e == 5:
				what = "gang arrived"
				g := s.arrive(inRackN)
				p.Set(g)
			case e == 6 && len(s.waiting) > 0:
				// Time passes: a gang starves, or its quorum or priority
				// changes.
				what = "gang changed"
				i := rng.Intn(len(s.waiting))
				g := &s.waiting[i]
				switch rng.Intn(3) {
				case 0:
					g.Waited += time.Duration(rng.Intn(15)) * time.Minute
				case 1:
					g.Quorum = randomQuorum(rng, shapes)
				case 2:
					g.Priority = int32(rng.Intn(3))
				}
				p.Set(*g)
			case e == 7:
				what = "elastic growth"
				s.grow()
				p.SetRunning(s.running)
			case e == 8 && len(s.running) > 0:
				what = "elastic member left"
				s.shrink()
				p.SetRunning(s.running)
			case e == 9:
				what = "booking"
				s.book()
				p.SetBooked(s.booked)
			default:
				what = "full refresh"
				p.SetWaiting(s.waiting)
			}
			p.SetNodes(s.nodes, firstChanged(before, s.nodes))
			check(step, what)
		}
	}
	t.Logf("%d events checked: %d repacked no gang, %d only some", events, kept, partial)
	if kept == 0 || partial == 0 {
		t.Errorf("the events never left some gangs' packing as it was")
	}
}

// world is the cluster a Planner test's events change.
type world struct {
	rng      *rand.Rand
	shapes   []*Shape
	nodes    []Node
	waiting  []Waiting
	running  []Gang
	booked   map[string]string
	nextNode int
	nextGang int
}

func (s *world) addNode(at int) {
	n := node(fmt.Sprintf("n%d", s.nextNode), int64(4000+s.rng.Intn(5)*2000), 8)
	s.nextNode++
	n.UsedScalars = map[v1.ResourceName]int64{gpu: int64(s.rng.Intn(9))}
	s.nodes = slices.Insert(s.nodes, at, n)
}

// changeNode gives node i new room, or taints it, or lifts its taint.
func (s *world) changeNode(i int) {
	n := s.nodes[i]
	switch s.rng.Intn(3) {
	case 0:
		n.UsedScalars = map[v1.ResourceName]int64{gpu: int64(s.rng.Intn(9))}
	case 1:
		n.MilliCPU = int64(s.rng.Intn(8) * 2000)
	case 2:
		o := n.Node.DeepCopy()
		o.Spec.Unschedulable = !o.Spec.Unschedulable
		n.Node = o
	}
	s.nodes[i] = n
}

func (s *world) arrive(inDomain func(*v1.Node) bool) Waiting {
	q := randomQuorum(s.rng, s.shapes)
	g := Waiting{Key: fmt.Sprintf("g%d", s.nextGang), Priority: int32(s.rng.Intn(3)), Since: t0.Add(time.Duration(s.rng.Intn(60)) * time.Minute),
		Waited: time.Duration(s.rng.Intn(20)) * time.Minute, Quorum: q, CouldFit: s.rng.Intn(3) > 0, MayShed: s.rng.Intn(2) == 0}
	if s.rng.Intn(6) == 0 {
		g.InDomain = inDomain
	}
	s.nextGang++
	s.waiting = append(s.waiting, g)
	return g
}

// take puts one member of shape sh on node i.
func (s *world) take(i int, sh *Shape) {
	n := s.nodes[i]
	n.MilliCPU -= sh.Demand.MilliCPU
	n.Pods--
	n.UsedScalars = map[v1.ResourceName]int64{gpu: n.UsedScalars[gpu] + sh.GPUs}
	s.nodes[i] = n
}

// place binds gang g's quorum: where the plan held room for it (exact), or
// on random nodes; the gang runs on, elastic (min one less than bound).
func (s *world) place(g Waiting, plan *Plan, exact bool) {
	s.waiting = slices.DeleteFunc(s.waiting, func(w Waiting) bool { return w.Key == g.Key })
	rg := Gang{Key: g.Key, Priority: g.Priority, Since: g.Since}
	at := map[string]int{}
	for i := range s.nodes {
		at[s.nodes[i].Node.Name] = i
	}
	bind := func(i int, sh *Shape) {
		s.take(i, sh)
		rg.Bound = append(rg.Bound, Member{Name: fmt.Sprintf("%s-%d", g.Key, len(rg.Bound)), Node: s.nodes[i].Node.Name, Shape: sh, Started: t0.Add(time.Duration(s.rng.Intn(180)) * time.Minute)})
	}
	if r, ok := plan.rank[g.Key]; exact && ok {
		// What the plan holds for it on each node, shape by shape: its
		// cumulative hold less the one before it.
		for name, hs := range plan.holds {
			for k, h := range hs {
				if h.rank != r {
					continue
				}
				u := h.u
				if k > 0 {
					u = u.minus(hs[k-1].u)
				}
				for _, w := range g.Quorum {
					for c := int64(0); c < w.Count && u.pods > 0 && fitsIn(w.Shape, u); c++ {
						u = u.minus(one(w.Shape))
						bind(at[name], w.Shape)
					}
				}
			}
		}
	} else if len(s.nodes) > 0 {
		for _, w := range g.Quorum {
			for range w.Count {
				bind(s.rng.Intn(len(s.nodes)), w.Shape)
			}
		}
	}
	rg.Min = max(int64(len(rg.Bound))-1, 0)
	s.running = append(s.running, rg)
}

func one(sh *Shape) used {
	var u used
	u.add(sh, 1)
	return u
}

func fitsIn(sh *Shape, u used) bool {
	return u.milliCPU >= sh.Demand.MilliCPU && u.scalars[gpu] >= sh.GPUs
}

// podLeaves frees one running member's room, or some room on a node.
func (s *world) podLeaves() {
	if len(s.nodes) == 0 {
		return
	}
	i := s.rng.Intn(len(s.nodes))
	n := s.nodes[i]
	n.MilliCPU += 1000
	n.Pods++
	n.UsedScalars = map[v1.ResourceName]int64{gpu: max(0, n.UsedScalars[gpu]-int64(1+s.rng.Intn(4)))}
	s.nodes[i] = n
}

// grow binds one more member of a running gang, started now (after the
// gangs began to starve: growth a starving gang counts as its own).
func (s *world) grow() {
	if len(s.running) == 0 || len(s.nodes) == 0 {
		// A gang of higher priority running elastic on one node.
		s.running = append(s.running, Gang{Key: fmt.Sprintf("r%d", s.nextGang), Priority: 3, Since: t0})
		s.nextGang++
		if len(s.nodes) == 0 {
			return
		}
	}
	g := &s.running[s.rng.Intn(len(s.running))]
	sh := s.shapes[s.rng.Intn(len(s.shapes))]
	i := s.rng.Intn(len(s.nodes))
	s.take(i, sh)
	g.Bound = append(g.Bound, Member{Name: fmt.Sprintf("%s-%d", g.Key, len(g.Bound)), Node: s.nodes[i].Node.Name, Shape: sh, Started: t0.Add(time.Duration(s.rng.Intn(180)) * time.Minute)})
}

// shrink drops a running gang's newest member (its room stays taken: the
// node's room changes by its own event).
func (s *world) shrink() {
	g := &s.running[s.rng.Intn(len(s.running))]
	if len(g.Bound) > 0 {
		g.Bound = g.Bound[:len(g.Bound)-1]
		g.Min = min(g.Min, int64(len(g.Bound)))
	}
}

func (s *world) book() {
	s.booked = maps.Clone(s.booked)
	if s.booked == nil {
		s.booked = map[string]string{}
	}
	if len(s.nodes) == 0 {
		return
	}
	name := s.nodes[s.rng.Intn(len(s.nodes))].Node.Name
	if _, ok := s.booked[name]; ok || len(s.waiting) == 0 {
		delete(s.booked, name)
		return
	}
	s.booked[name] = s.waiting[s.rng.Intn(len(s.waiting))].Key
}

// firstChanged is the first index at which two node lists differ.
func firstChanged(a, b []Node) int {
	for i := range min(len(a), len(b)) {
		x, y := a[i], b[i]
		if x.Node != y.Node || x.MilliCPU != y.MilliCPU || x.Memory != y.Memory || x.Pods != y.Pods ||
			!maps.Equal(x.AllocScalars, y.AllocScalars) || !maps.Equal(x.UsedScalars, y.UsedScalars) || !maps.Equal(x.Leaving, y.Leaving) {
			return i
		}
	}
	return min(len(a), len(b))
}

// samePlan says how two plans differ, if they do.
func samePlan(got, want *Plan) error {
	if !slices.Equal(got.order, want.order) {
		return fmt.Errorf("order %v, want %v", got.order, want.order)
	}
	if !slices.Equal(got.priorities, want.priorities) || !maps.Equal(got.rank, want.rank) {
		return fmt.Errorf("ranks %v %v, want %v %v", got.rank, got.priorities, want.rank, want.priorities)
	}
	if got.firstHeld != want.firstHeld {
		return fmt.Errorf("first held %d, want %d", got.firstHeld, want.firstHeld)
	}
	if !maps.Equal(got.booked, want.booked) {
		return fmt.Errorf("booked %v, want %v", got.booked, want.booked)
	}
	starved := func(p *Plan) (ranks []int) {
		for _, s := range p.starved {
			ranks = append(ranks, s.rank)
		}
		return ranks
	}
	if !slices.Equal(starved(got), starved(want)) {
		return fmt.Errorf("starved gangs at ranks %v, want %v", starved(got), starved(want))
	}
	if got.last.Key != want.last.Key || got.last.Priority != want.last.Priority || !got.last.Since.Equal(want.last.Since) {
		return fmt.Errorf("last %s, want %s", got.last.Key, want.last.Key)
	}
	for _, c := range []struct {
		name      string
		got, want map[string][]cumulativeHold
	}{{"holds", got.holds, want.holds}, {"lent", got.lent, want.lent}, {"short", got.short, want.short}} {
		if len(c.got) != len(c.want) {
			return fmt.Errorf("%s on %d nodes, want %d: %v, want %v", c.name, len(c.got), len(c.want), c.got, c.want)
		}
		for node, hs := range c.want {
			gs := c.got[node]
			if len(gs) != len(hs) {
				return fmt.Errorf("%s on %s: %v, want %v", c.name, node, gs, hs)
			}
			for k := range hs {
				if gs[k].rank != hs[k].rank || !sameUsed(gs[k].u, hs[k].u) {
					return fmt.Errorf("%s on %s: %v, want %v", c.name, node, gs, hs)
				}
			}
		}
	}
	return nil
}

func sameUsed(a, b used) bool {
	if a.milliCPU != b.milliCPU || a.memory != b.memory || a.pods != b.pods || a.onePerNode != b.onePerNode {
		return false
	}
	for k, v := range a.scalars {
		if b.scalars[k] != v {
			return false
		}
	}
	for k, v := range b.scalars {
		if a.scalars[k] != v {
			return false
		}
	}
	return true
}

// plannerBench is scheduler_perf's 5000Nodes_1000Gangs_3000Pods as the plan
// sees it: 1000 waiting gangs of three 100m CPU members, 5000 nodes of 4
// CPUs.
func plannerBench() ([]Node, []Waiting) {
	nodes := make([]Node, 5000)
	for i := range nodes {
		nodes[i] = node(fmt.Sprintf("n%04d", i), 4000, 0)
	}
	member := ShapeOf(pod("member", 100, 0), gpu)
	waiting := make([]Waiting, 1000)
	for i := range waiting {
		waiting[i] = Waiting{Key: fmt.Sprintf("g%04d", i), Since: t0.Add(time.Duration(i) * time.Second), Quorum: Quorum{{Shape: member, Count: 3}}}
	}
	return nodes, waiting
}

// BenchmarkMakePlan5000Nodes1000Gangs is the plan made from scratch.
func BenchmarkMakePlan5000Nodes1000Gangs(b *testing.B) {
	logger, _ := ktesting.NewTestContext(b)
	nodes, waiting := plannerBench()
	b.ReportAllocs()
	for b.Loop() {
		MakePlan(logger, waiting, nodes, nil, nil, time.Hour)
	}
}

// plannedBench is a Planner that has planned plannerBench's gangs on its
// nodes.
func plannedBench(b *testing.B) (*Planner, []Node, []Waiting) {
	logger, _ := ktesting.NewTestContext(b)
	nodes, waiting := plannerBench()
	p := NewPlanner(logger, time.Hour)
	p.SetNodes(nodes, 0)
	p.SetWaiting(waiting)
	p.Plan()
	return p, nodes, waiting
}

// BenchmarkPlannerFirstGangPlaced is the plan kept up to date as the
// first-served gang is placed (on nodes no gang's packing read) and a new
// gang arrives last: every gang after the first is packed again.
func BenchmarkPlannerFirstGangPlaced(b *testing.B) {
	p, nodes, waiting := plannedBench(b)
	next := len(waiting)
	b.ReportAllocs()
	for b.Loop() {
		first := p.gangs[0].g
		p.Remove(first.Key)
		first.Key, first.Since = fmt.Sprintf("g%04d", next), t0.Add(time.Duration(next)*time.Second)
		next++
		p.Set(first)
		nodes[4999].MilliCPU -= 300
		p.SetNodes(nodes, 4999)
		p.Plan()
	}
}

// BenchmarkPlannerNodeChanged is the plan kept up to date as a node no
// gang's packing read changes: no gang is packed again.
func BenchmarkPlannerNodeChanged(b *testing.B) {
	p, nodes, _ := plannedBench(b)
	b.ReportAllocs()
	for b.Loop() {
		nodes[4999].MilliCPU -= 1
		p.SetNodes(nodes, 4999)
		p.Plan()
	}
}
