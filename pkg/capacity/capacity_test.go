// Tests of quorums and Pack: a gang's quorum, mixed gangs packed into a domain, copies a node holds, Pack against an exhaustive search, the shortfall by domain, the fewest GPUs of a quorum.

package capacity

import (
	"fmt"
	"math/rand"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2/ktesting"
)

const gpu = v1.ResourceName("nvidia.com/gpu")

func pod(name string, milliCPU, gpus int64) *v1.Pod {
	req := v1.ResourceList{v1.ResourceCPU: *resource.NewMilliQuantity(milliCPU, resource.DecimalSI)}
	if gpus > 0 {
		req[gpu] = *resource.NewQuantity(gpus, resource.DecimalSI)
	}
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(name)},
		Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: req}}}}}
}

func node(name string, milliCPU, gpus int64) Node {
	return Node{Node: &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"rack": name[:1]}}},
		MilliCPU: milliCPU, Memory: 1 << 40, Pods: 110,
		AllocScalars: map[v1.ResourceName]int64{gpu: gpus}}
}

func TestQuorumOf(t *testing.T) {
	launcher := pod("launcher", 2000, 0)
	workers := []*v1.Pod{pod("w0", 1000, 8), pod("w1", 1000, 8), pod("w2", 1000, 8)}
	all := append([]*v1.Pod{launcher}, workers...)
	tests := []struct {
		name    string
		need    int64
		first   *v1.Pod
		want    string
		members int64
	}{
		{name: "whole gang, worker first", need: 4, first: workers[1], want: "3 x 8 GPUs + 1 x 2 CPU", members: 4},
		{name: "whole gang, launcher first", need: 4, first: launcher, want: "3 x 8 GPUs + 1 x 2 CPU", members: 4},
		{name: "elastic gang takes the smallest members", need: 2, first: workers[0], want: "1 x 8 GPUs + 1 x 2 CPU", members: 2},
		{name: "fewer members than need", need: 6, first: nil, want: "3 x 8 GPUs + 1 x 2 CPU", members: 4},
		{name: "nothing needed", need: 0, first: launcher, want: "no members"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := QuorumOf(tt.need, all, tt.first, gpu)
			if q.String() != tt.want || q.Members() != tt.members {
				t.Errorf("QuorumOf = %q (%d members), want %q (%d)", q, q.Members(), tt.want, tt.members)
			}
		})
	}
}

func TestPackMixedGang(t *testing.T) {
	logger, _ := ktesting.NewTestContext(t)
	launcher, worker := pod("launcher", 2000, 0), pod("w", 1000, 8)
	mpi := Quorum{{Shape: ShapeOf(worker, gpu), Count: 8}, {Shape: ShapeOf(launcher, gpu), Count: 1}}
	var gpuNodes []Node
	for i := range 8 {
		gpuNodes = append(gpuNodes, node(fmt.Sprintf("a%d", i), 4000, 8))
	}
	cpu := node("cpu", 4000, 0)
	rackA := func(n *v1.Node) bool { return n.Labels["rack"] == "a" }
	tests := []struct {
		name     string
		nodes    []Node
		inDomain func(*v1.Node) bool
		short    string
	}{
		{name: "eight GPU nodes and a CPU node", nodes: append(append([]Node{}, gpuNodes...), cpu), short: "no members"},
		{name: "CPU node first", nodes: append([]Node{cpu}, gpuNodes...), short: "no members"},
		{name: "launcher shares a GPU node's CPU", nodes: gpuNodes, short: "no members"},
		{name: "one GPU node short", nodes: append(append([]Node{}, gpuNodes[1:]...), cpu), short: "1 x 8 GPUs"},
		{name: "GPU nodes full of CPU, no CPU node", nodes: fullCPU(gpuNodes), short: "1 x 2 CPU"},
		{name: "CPU members may sit outside the GPU domain", nodes: append(append([]Node{}, gpuNodes...), cpu), inDomain: rackA, short: "no members"},
		{name: "GPU members may not", nodes: append(append([]Node{}, gpuNodes...), cpu), inDomain: func(n *v1.Node) bool { return n.Name != "a3" }, short: "1 x 8 GPUs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Pack(logger, mpi, tt.nodes, tt.inDomain)
			if got := p.Short.String(); got != tt.short {
				t.Errorf("short %q, want %q", got, tt.short)
			}
			if p.Fits() != (tt.short == "no members") {
				t.Errorf("Fits = %v with short %q", p.Fits(), p.Short)
			}
		})
	}
}

// fullCPU leaves each node 1.5 cores: room for a worker (1 core), none
// left for the launcher (2 cores).
func fullCPU(nodes []Node) []Node {
	out := make([]Node, len(nodes))
	for i, n := range nodes {
		n.MilliCPU = 1500
		out[i] = n
	}
	return out
}

func TestCopiesOn(t *testing.T) {
	s := ShapeOf(pod("m", 1000, 2), gpu)
	tests := []struct {
		name string
		n    Node
		want int64
	}{
		{name: "GPU bound", n: node("a", 96000, 8), want: 4},
		{name: "CPU bound", n: node("a", 3000, 8), want: 3},
		{name: "pod slots bound", n: func() Node { n := node("a", 96000, 8); n.Pods = 1; return n }(), want: 1},
		{name: "overcommitted node", n: node("a", -5, 8), want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := copiesOn(s, &tt.n, nil); got != tt.want {
				t.Errorf("copiesOn = %d, want %d", got, tt.want)
			}
		})
	}
}

// TestPackProperties checks Pack against an exhaustive search on thousands
// of small random clusters and mixed quorums: Pack never reports room that
// is not there, finds it whenever the quorum has one shape, and never does
// worse when a node is added.
func TestPackProperties(t *testing.T) {
	logger, _ := ktesting.NewTestContext(t)
	rng := rand.New(rand.NewSource(1))
	shapes := []*Shape{
		ShapeOf(pod("s8", 1000, 8), gpu), ShapeOf(pod("s4", 2000, 4), gpu),
		ShapeOf(pod("s1", 500, 1), gpu), ShapeOf(pod("cpu", 2000, 0), gpu),
	}
	for trial := range 3000 {
		var nodes []Node
		for i := range 1 + rng.Intn(4) {
			nodes = append(nodes, node(fmt.Sprintf("n%d", i), int64(rng.Intn(9))*500, int64([]int{0, 4, 8, 16}[rng.Intn(4)]-rng.Intn(3))))
		}
		q := randomQuorum(rng, shapes)
		if len(q) == 0 {
			continue
		}
		p := Pack(logger, q, nodes, nil)
		exact := exhaustive(q, nodes)
		if p.Fits() && !exact {
			t.Fatalf("trial %d: Pack fits %s on %v; no placement exists", trial, q, nodes)
		}
		if len(q) == 1 && exact && !p.Fits() {
			t.Fatalf("trial %d: one-shape quorum %s fits %v, Pack says short %s", trial, q, nodes, p.Short)
		}
		for i, w := range q {
			var short int64
			for _, s := range p.Short {
				if s.Shape == w.Shape {
					short = s.Count
				}
			}
			if p.Placed[i]+short != w.Count {
				t.Fatalf("trial %d: want %d of %s, placed %d short %d", trial, w.Count, w.Shape, p.Placed[i], short)
			}
		}
		more := Pack(logger, q, append(append([]Node{}, nodes...), node("extra", int64(rng.Intn(9))*500, 8)), nil)
		if more.Short.Members() > p.Short.Members() {
			t.Fatalf("trial %d: adding a node left more short (%s) than before (%s)", trial, more.Short, p.Short)
		}
	}
}

// randomQuorum takes up to two members of each shape, largest shape first.
func randomQuorum(rng *rand.Rand, shapes []*Shape) Quorum {
	var q Quorum
	for _, s := range shapes {
		if c := int64(rng.Intn(3)); c > 0 {
			q = append(q, Want{Shape: s, Count: c})
		}
	}
	sortQuorum(q)
	return q
}

func sortQuorum(q Quorum) {
	for i := range q {
		for j := i + 1; j < len(q); j++ {
			if larger(q[j].Shape, q[i].Shape) {
				q[i], q[j] = q[j], q[i]
			}
		}
	}
}

// exhaustive tries every assignment of the quorum's members to nodes.
func exhaustive(q Quorum, nodes []Node) bool {
	var members []*Shape
	for _, w := range q {
		for range w.Count {
			members = append(members, w.Shape)
		}
	}
	taken := make([]used, len(nodes))
	var try func(i int) bool
	try = func(i int) bool {
		if i == len(members) {
			return true
		}
		for j := range nodes {
			if copiesOn(members[i], &nodes[j], &taken[j]) > 0 {
				saved := taken[j]
				saved.scalars = map[v1.ResourceName]int64{}
				for k, v := range taken[j].scalars {
					saved.scalars[k] = v
				}
				taken[j].add(members[i], 1)
				if try(i + 1) {
					return true
				}
				taken[j] = saved
			}
		}
		return false
	}
	return try(0)
}

func TestShortByDomain(t *testing.T) {
	logger, _ := ktesting.NewTestContext(t)
	launcher, worker := pod("launcher", 2000, 0), pod("w", 1000, 8)
	q := Quorum{{Shape: ShapeOf(worker, gpu), Count: 4}, {Shape: ShapeOf(launcher, gpu), Count: 1}}
	a := []Node{node("a0", 4000, 8), node("a1", 4000, 8), node("a2", 4000, 8)}
	b := []Node{node("b0", 4000, 8)}
	cpuFull := node("c", 1000, 0)
	all := append(append(append([]Node{}, a...), b...), cpuFull)
	short := ShortByDomain(logger, q, map[string][]Node{"a": a, "b": b}, all)
	if got := short["a"].String(); got != "1 x 8 GPUs" {
		t.Errorf("short in a = %q, want 1 x 8 GPUs", got)
	}
	if got := short["b"].String(); got != "3 x 8 GPUs" {
		t.Errorf("short in b = %q, want 3 x 8 GPUs", got)
	}
	noCPU := []Node{node("a0", 1000, 8)}
	short = ShortByDomain(logger, q, map[string][]Node{"": noCPU}, noCPU)
	if got := short[""].String(); got != "3 x 8 GPUs + 1 x 2 CPU" {
		t.Errorf("short = %q, want 3 x 8 GPUs + 1 x 2 CPU", got)
	}
}

func TestFewestGPUs(t *testing.T) {
	shapes := func(gpus ...int64) []*Shape {
		var out []*Shape
		for _, g := range gpus {
			out = append(out, &Shape{GPUs: g})
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		need    int64
		members []*Shape
		want    int64
	}{
		{name: "uniform workers", need: 3, members: shapes(8, 8, 8, 8), want: 24},
		{name: "a launcher without GPUs counts first", need: 3, members: shapes(8, 0, 8, 8), want: 16},
		{name: "mixed sizes: the smallest", need: 2, members: shapes(8, 4, 2, 8), want: 6},
		{name: "fewer members than need: all of them", need: 5, members: shapes(8, 8), want: 16},
		{name: "none needed", need: 0, members: shapes(8), want: 0},
		{name: "no members", need: 2, want: 0},
	} {
		if got := FewestGPUs(tc.need, tc.members); got != tc.want {
			t.Errorf("%s: FewestGPUs(%d) = %d, want %d", tc.name, tc.need, got, tc.want)
		}
	}
}
