// Tests of the topology: requests parsed from annotations, GPU classes matched, a gang's domain chosen, the index kept current, the order of scores, a gang's request from its spec.

package topology

import (
	"fmt"
	"strings"
	"testing"

	"github.com/muster-project/muster/pkg/gang"
)

// levels used by the tests: node, clique, rack, zone.
var testLevels = []Level{
	{Name: "node", Label: HostnameLabel},
	{Name: "clique", Label: CliqueLabel},
	{Name: "rack", Label: LeafLabel},
	{Name: "zone", Label: ZoneLabel},
}

const h100 = "NVIDIA-H100-80GB-HBM3"

// node builds a NodeState; kv are extra labels.
func node(name string, alloc, used int64, product string, kv ...string) NodeState {
	l := map[string]string{HostnameLabel: name, ProductLabel: product, MemoryLabel: "81559"}
	for i := 0; i+1 < len(kv); i += 2 {
		l[kv[i]] = kv[i+1]
	}
	return NodeState{Name: name, Labels: l, AllocGPUs: alloc, UsedGPUs: used}
}

func TestParseRequest(t *testing.T) {
	cases := []struct {
		name    string
		ann     map[string]string
		want    Request
		wantErr string
	}{
		{name: "none", ann: nil, want: Request{Preferred: 0, Required: Anywhere}},
		{name: "full", ann: map[string]string{GPUProductAnnotation: "NVIDIA-H100*, NVIDIA-H200*", GPUMemoryAnnotation: "80Gi", PreferredLevelAnnotation: "clique", RequiredLevelAnnotation: "zone"},
			want: Request{Class: Class{Products: []string{"NVIDIA-H100*", "NVIDIA-H200*"}, MinMemoryMiB: 81920}, Preferred: 1, Required: 3}},
		{name: "required only", ann: map[string]string{RequiredLevelAnnotation: "rack"}, want: Request{Preferred: 0, Required: 2}},
		{name: "unknown level", ann: map[string]string{RequiredLevelAnnotation: "row"},
			wantErr: `Pod ns/p: metadata.annotations[muster.dev/topology-required]: unknown topology level "row"; the scheduler's levels are node, clique, rack, zone`},
		{name: "preferred wider than required", ann: map[string]string{PreferredLevelAnnotation: "zone", RequiredLevelAnnotation: "clique"},
			wantErr: `metadata.annotations[muster.dev/topology-preferred]: level "zone" is wider than the required level "clique"`},
		{name: "bad memory", ann: map[string]string{GPUMemoryAnnotation: "lots"}, wantErr: "metadata.annotations[muster.dev/gpu-memory-min]: must be a positive quantity"},
		{name: "memory that overflows", ann: map[string]string{GPUMemoryAnnotation: "100Ei"}, wantErr: `metadata.annotations[muster.dev/gpu-memory-min]: must be at most 1Pi per GPU, got "100Ei"`},
		{name: "memory just past int64", ann: map[string]string{GPUMemoryAnnotation: "9223372036854775807"}, wantErr: "must be at most 1Pi per GPU"},
		{name: "bad pattern", ann: map[string]string{GPUProductAnnotation: "NVIDIA-[H"}, wantErr: "metadata.annotations[muster.dev/gpu-product]: \"NVIDIA-[H\" is not a valid pattern"},
		{name: "empty product", ann: map[string]string{GPUProductAnnotation: " , "}, wantErr: "must name at least one GPU product"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseRequest(tc.ann, testLevels, "Pod ns/p")
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestClassMatches(t *testing.T) {
	cases := []struct {
		class   Class
		product string
		mem     int64
		want    bool
	}{
		{Class{}, "", 0, true},
		{Class{Products: []string{"NVIDIA-H100*"}}, h100, 81559, true},
		{Class{Products: []string{"NVIDIA-H100*"}}, "NVIDIA-A100-SXM4-80GB", 81920, false},
		{Class{Products: []string{"NVIDIA-A100*", "NVIDIA-H100*"}}, h100, 81559, true},
		{Class{Products: []string{"NVIDIA-H100*"}}, "", 0, false},
		{Class{MinMemoryMiB: 40960}, "Tesla-T4", 15360, false},
		{Class{MinMemoryMiB: 40960}, h100, 81559, true},
		{Class{MinMemoryMiB: 40960}, h100, 0, false}, // memory unknown
	}
	for _, tc := range cases {
		if got := tc.class.Matches(tc.product, tc.mem); got != tc.want {
			t.Errorf("%v.Matches(%q, %d) = %v, want %v", tc.class, tc.product, tc.mem, got, tc.want)
		}
	}
}

// twoCliques: clique a has nodes a0..a3 (8 GPUs), clique b has b0..b1; all in
// rack r1 and zone z1; n9 has no clique or rack label.
func twoCliques(used map[string]int64) *Index {
	ix := NewIndex(testLevels)
	for _, n := range []string{"a0", "a1", "a2", "a3"} {
		ix.Set(node(n, 8, used[n], h100, CliqueLabel, "a", LeafLabel, "r1", ZoneLabel, "z1"))
	}
	for _, n := range []string{"b0", "b1"} {
		ix.Set(node(n, 8, used[n], h100, CliqueLabel, "b", LeafLabel, "r1", ZoneLabel, "z1"))
	}
	ix.Set(node("n9", 8, used["n9"], h100, ZoneLabel, "z1"))
	return ix
}

func TestChoose(t *testing.T) {
	cases := []struct {
		name      string
		used      map[string]int64
		demand    Demand
		want      string // "level/value", or "" when nothing fits
		wantShort string
	}{
		{name: "one node holds it: best-fit node", used: map[string]int64{"a0": 4, "a1": 2},
			demand: Demand{Members: 2, GPUs: 2, Request: Request{Required: Anywhere}}, want: "node/a0"},
		{name: "fullest clique that fits", demand: Demand{Members: 2, GPUs: 8, Request: Request{Preferred: 1, Required: Anywhere}}, want: "clique/b"},
		{name: "too big for b, fits a", demand: Demand{Members: 3, GPUs: 8, Request: Request{Preferred: 1, Required: Anywhere}}, want: "clique/a"},
		{name: "widen to rack", used: map[string]int64{"a0": 8}, demand: Demand{Members: 4, GPUs: 8, Request: Request{Preferred: 1, Required: 2}}, want: "rack/r1"},
		{name: "required clique cannot hold it", demand: Demand{Members: 5, GPUs: 8, Request: Request{Preferred: 1, Required: 1}},
			wantShort: "needs 5 members x 8 GPUs (any GPU) in one clique; the roomiest clique (a) has room for 4"},
		{name: "unlabelled node joins only the zone", demand: Demand{Members: 7, GPUs: 8, Request: Request{Preferred: 1, Required: 3}}, want: "zone/z1"},
		{name: "anywhere when no level holds it", demand: Demand{Members: 7, GPUs: 8, Request: Request{Preferred: 1, Required: Anywhere}}, want: "zone/z1"},
		{name: "cluster too small", demand: Demand{Members: 8, GPUs: 8, Request: Request{Preferred: 0, Required: Anywhere}},
			wantShort: "needs 8 members x 8 GPUs (any GPU); the cluster has room for 7"},
		{name: "class excludes all", demand: Demand{Members: 1, GPUs: 1, Request: Request{Class: Class{Products: []string{"NVIDIA-A100*"}}, Required: 3}},
			wantShort: "needs 1 members x 1 GPUs (NVIDIA-A100*) in one zone; the roomiest zone (z1) has room for 0"},
		{name: "anchor pins the clique", demand: Demand{Members: 1, GPUs: 8, Anchor: []string{"a2"}, Request: Request{Preferred: 1, Required: 2}}, want: "clique/a"},
		{name: "anchors across cliques widen to rack", demand: Demand{Members: 1, GPUs: 8, Anchor: []string{"a2", "b0"}, Request: Request{Preferred: 1, Required: 3}}, want: "rack/r1"},
		{name: "excluded clique skipped", demand: Demand{Members: 2, GPUs: 8, Request: Request{Preferred: 1, Required: 1},
			Exclude: func(l int, v string) bool { return l == 1 && v == "b" }}, want: "clique/a"},
		{name: "members a node each: a clique, not the best-fit node", used: map[string]int64{"a0": 4, "a1": 2},
			demand: Demand{Members: 2, GPUs: 2, PerNode: 1, Request: Request{Required: Anywhere}}, want: "clique/b"},
		{name: "members a node each: no clique of two holds three", demand: Demand{Members: 3, GPUs: 1, PerNode: 1, Request: Request{Preferred: 1, Required: Anywhere}}, want: "clique/a"},
		{name: "no label at required level", demand: Demand{Members: 1, GPUs: 8, Anchor: []string{"n9"}, Request: Request{Preferred: 1, Required: 2}},
			wantShort: ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ix := twoCliques(tc.used)
			c, short, ok := ix.Choose(tc.demand)
			if tc.want == "" {
				if ok {
					t.Fatalf("chose %s/%s, want no fit", LevelName(testLevels, c.Level), c.Value)
				}
				if got := short.Describe(testLevels, tc.demand); tc.wantShort != "" && got != tc.wantShort {
					t.Errorf("shortfall %q, want %q", got, tc.wantShort)
				}
				return
			}
			if !ok {
				t.Fatalf("no fit (%s), want %s", short.Describe(testLevels, tc.demand), tc.want)
			}
			if got := LevelName(testLevels, c.Level) + "/" + c.Value; got != tc.want {
				t.Errorf("chose %s, want %s", got, tc.want)
			}
		})
	}
}

func TestIndexStaysCurrent(t *testing.T) {
	ix := twoCliques(nil)
	b, _ := ix.Domain(1, "b")
	if b.FreeGPUs != 16 || b.Nodes != 2 {
		t.Fatalf("clique b: free %d nodes %d, want 16 and 2", b.FreeGPUs, b.Nodes)
	}
	any := func(*Kind) bool { return true }
	ix.Adjust("b0", 6)
	if got := b.Room(4, any); got != 2 {
		t.Errorf("room for 4-GPU members after reserving 6 on b0 = %d, want 2", got)
	}
	ix.Adjust("b0", -6)
	if got := b.Room(4, any); got != 4 {
		t.Errorf("room after undoing = %d, want 4", got)
	}
	// Relabel b1 into clique a; b keeps one node.
	ix.Set(node("b1", 8, 0, h100, CliqueLabel, "a", LeafLabel, "r1", ZoneLabel, "z1"))
	a, _ := ix.Domain(1, "a")
	if a.Nodes != 5 || b.Nodes != 1 {
		t.Errorf("after relabel: a %d nodes, b %d nodes; want 5 and 1", a.Nodes, b.Nodes)
	}
	// A sync that misses b0 drops it and the then empty clique b.
	ix.BeginSync()
	for _, n := range []string{"a0", "a1", "a2", "a3", "b1", "n9"} {
		ix.Touch(n)
	}
	ix.EndSync()
	if _, ok := ix.Domain(1, "b"); ok {
		t.Error("clique b survived the removal of its last node")
	}
	if _, ok := ix.Node("b0"); ok {
		t.Error("b0 survived a sync that did not see it")
	}
	if ix.Len() != 6 {
		t.Errorf("len %d, want 6", ix.Len())
	}
	// A node with no GPUs counts in no room.
	ix.Set(NodeState{Name: "cpu", Labels: map[string]string{HostnameLabel: "cpu", ZoneLabel: "z1"}})
	z, _ := ix.Domain(3, "z1")
	if got := z.Room(1, any); got != 48 {
		t.Errorf("zone room for 1-GPU members = %d, want 48", got)
	}
}

func TestScoreOrder(t *testing.T) {
	// Each case lists fits from best to worst for the same member.
	cases := []struct {
		name string
		fits []Fit
	}{
		{name: "gang domain, then gang members, then packing", fits: []Fit{
			{InGangDomain: true, GangMembers: 1, AllocGPUs: 8, FreeGPUs: 8, Want: 2, GroupWhollyFree: true},
			{InGangDomain: true, AllocGPUs: 8, FreeGPUs: 8, Want: 2, GroupWhollyFree: true},
			{AllocGPUs: 8, FreeGPUs: 2, Want: 2},
		}},
		{name: "exact fit, usable leftover, stranding", fits: []Fit{
			{AllocGPUs: 8, FreeGPUs: 2, Want: 2, Smallest: 2},
			{AllocGPUs: 8, FreeGPUs: 6, Want: 2, Smallest: 2},
			{AllocGPUs: 8, FreeGPUs: 8, Want: 2, Smallest: 2, GroupWhollyFree: true},
			{AllocGPUs: 8, FreeGPUs: 3, Want: 2, Smallest: 2},
		}},
		{name: "partly used clique before a whole free one", fits: []Fit{
			{AllocGPUs: 8, FreeGPUs: 8, Want: 4, Smallest: 2},
			{AllocGPUs: 8, FreeGPUs: 8, Want: 4, Smallest: 2, GroupWhollyFree: true},
		}},
		{name: "among equals, the node that came up while the member waited", fits: []Fit{
			{AllocGPUs: 1, FreeGPUs: 1, Want: 1, Smallest: 1, GroupWhollyFree: true, CameUpWhileWaiting: true},
			{AllocGPUs: 1, FreeGPUs: 1, Want: 1, Smallest: 1, GroupWhollyFree: true},
		}},
		{name: "a spot node first for an opted-in member above min, then the gang domain", fits: []Fit{
			{SpotForExtra: true, AllocGPUs: 8, FreeGPUs: 8, Want: 2, GroupWhollyFree: true},
			{InGangDomain: true, GangMembers: 1, AllocGPUs: 8, FreeGPUs: 2, Want: 2, CameUpWhileWaiting: true},
		}},
		{name: "one GPU of packing outweighs a node coming up", fits: []Fit{
			{AllocGPUs: 16, FreeGPUs: 7, Want: 1, Smallest: 1},
			{AllocGPUs: 16, FreeGPUs: 8, Want: 1, Smallest: 1, CameUpWhileWaiting: true},
		}},
	}
	for _, tc := range cases {
		for i := 1; i < len(tc.fits); i++ {
			a, b := Score(tc.fits[i-1]), Score(tc.fits[i])
			if a <= b {
				t.Errorf("%s: fit %d scored %d, not above fit %d's %d", tc.name, i-1, a, i, b)
			}
			if a > MaxRawScore || b > MaxRawScore {
				t.Errorf("%s: score %d above MaxRawScore %d", tc.name, a, MaxRawScore)
			}
		}
	}
}

func TestGangRequest(t *testing.T) {
	spec := func(key string, ann map[string]string) gang.Spec {
		return gang.Spec{Key: gang.Key{Namespace: "ns", Name: "g"}, Source: gang.SourceWorkload, Annotations: ann, TopologyKey: key}
	}
	tests := []struct {
		name                string
		spec                gang.Spec
		preferred, required int
		wantErr             string
	}{
		{name: "no constraint", spec: spec("", nil), preferred: 0, required: Anywhere},
		{name: "a level's label requires that level", spec: spec(LeafLabel, nil), preferred: 0, required: 2},
		{name: "with a narrower preferred level", spec: spec(ZoneLabel, map[string]string{PreferredLevelAnnotation: "rack"}), preferred: 2, required: 3},
		{name: "the annotation agreeing", spec: spec(ZoneLabel, map[string]string{RequiredLevelAnnotation: "zone"}), preferred: 0, required: 3},
		{name: "unknown label", spec: spec("example.com/room", nil),
			wantErr: `PodGroup ns/g: spec.schedulingConstraints.topology[0].key: node label "example.com/room" is none of the scheduler's topology levels (node=kubernetes.io/hostname, clique=nvidia.com/gpu.clique`},
		{name: "the annotation disagreeing", spec: spec(LeafLabel, map[string]string{RequiredLevelAnnotation: "zone"}),
			wantErr: `metadata.annotations[muster.dev/topology-required]: level "zone" disagrees with spec.schedulingConstraints.topology[0].key`},
		{name: "preferred wider than the constraint", spec: spec(CliqueLabel, map[string]string{PreferredLevelAnnotation: "zone"}),
			wantErr: `metadata.annotations[muster.dev/topology-preferred]: level "zone" is wider than the required level "clique"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := GangRequest(tc.spec, testLevels, "PodGroup ns/g")
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Preferred != tc.preferred || got.Required != tc.required {
				t.Errorf("GangRequest = preferred %d required %d, want %d %d", got.Preferred, got.Required, tc.preferred, tc.required)
			}
		})
	}
}
