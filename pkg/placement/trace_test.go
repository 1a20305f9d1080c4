// Tests of traces: parsing and its errors, the default trace's promises to the report, a gang's annotations, and the cluster's node list.

package placement

import (
	"strings"
	"testing"

	"github.com/muster-project/muster/pkg/topology"
)

func TestParseTrace(t *testing.T) {
	tr, err := ParseTrace(`
# comment
+ a 4x8   # trailing comment
+ b 3x2
- a
`)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Gangs) != 2 || tr.Gangs[0] != (Gang{Name: "a", Members: 4, GPUs: 8}) || tr.Gangs[1] != (Gang{Name: "b", Members: 3, GPUs: 2}) {
		t.Errorf("gangs %+v", tr.Gangs)
	}
	want := []Event{{Arrive, "a"}, {Arrive, "b"}, {Depart, "a"}}
	if len(tr.Events) != len(want) {
		t.Fatalf("events %v, want %v", tr.Events, want)
	}
	for i := range want {
		if tr.Events[i] != want[i] {
			t.Errorf("event %d: %v, want %v", i, tr.Events[i], want[i])
		}
	}
	if tr.SmallestGPUs() != 2 || tr.Peak() != 38 {
		t.Errorf("smallest %d, peak %d; want 2 and 38", tr.SmallestGPUs(), tr.Peak())
	}
}

func TestParseTraceErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"+ a 4*8", `trace line 1 "+ a 4*8": shape must be MEMBERSxGPUS`},
		{"+ a 4x8\n* a", `trace line 2 "* a": want "+ NAME MEMBERSxGPUS" or "- NAME"`},
		{"- a\n+ a 1x2", "gang departs before it arrives"},
		{"+ a 1x2\n- a\n- a", "event 3 (-a): gang departs twice"},
		{"+ a 1x2\n+ a 1x2", "gang a: name used twice"},
		{"+ a 0x2", "gang a: members must be at least 1, got 0"},
		{"+ a 2x0", "gang a: GPUs per member must be at least 1, got 0"},
		{"+ A 2x1", `gang "A": name must be a DNS label`},
		{"+ a 1x2\n- b\n", "event 2 (-b): no such gang"},
		{"", "trace: no gangs"},
	} {
		_, err := ParseTrace(tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseTrace(%q): error %v, want it to contain %q", tc.text, err, tc.want)
		}
	}
	// Gangs arrive in the order they are listed.
	tr := Trace{Gangs: []Gang{{"a", 1, 2}, {"b", 1, 2}}, Events: []Event{{Arrive, "b"}, {Arrive, "a"}}}
	if err := tr.Validate(); err == nil || !strings.Contains(err.Error(), "expected a") {
		t.Errorf("out-of-order arrivals: error %v", err)
	}
	tr = Trace{Gangs: []Gang{{"a", 1, 2}, {"b", 1, 2}}, Events: []Event{{Arrive, "a"}}}
	if err := tr.Validate(); err == nil || !strings.Contains(err.Error(), "gang b never arrives") {
		t.Errorf("missing arrival: error %v", err)
	}
}

// The report's trace and cluster keep the promises the report relies on.
func TestDefaultTraceShape(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    Cluster
		tr   Trace
	}{
		{"default", DefaultCluster(), DefaultTrace()},
		{"small", SmallCluster(), SmallTrace()},
	} {
		if err := tc.c.Validate(); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		// Stranding needs a smallest shape above 1 GPU.
		if s := tc.tr.SmallestGPUs(); s < 2 {
			t.Errorf("%s: smallest shape %d GPUs per member; nothing could ever be stranded", tc.name, s)
		}
		if p := tc.tr.Peak(); p > tc.c.GPUs() {
			t.Errorf("%s: peak demand %d GPUs exceeds the cluster's %d", tc.name, p, tc.c.GPUs())
		}
		nodes := tc.c.NodeList()
		var clique *Level
		for i := range Levels {
			if Levels[i].Name == "clique" {
				clique = &Levels[i]
			}
		}
		fitsClique, needsMore, odd := 0, 0, 0
		for _, g := range tc.tr.Gangs {
			switch DomainsNeeded(nodes, *clique, g.Members, g.GPUs) {
			case 1:
				fitsClique++
			case 0:
				t.Errorf("%s: gang %s (%s) fits no clique at all", tc.name, g.Name, g.Shape())
			default:
				needsMore++
			}
			if tc.c.GPUsPerNode%g.GPUs != 0 {
				odd++
			}
			if g.TotalGPUs() > tc.c.GPUs() {
				t.Errorf("%s: gang %s (%s) is bigger than the cluster", tc.name, g.Name, g.Shape())
			}
		}
		if fitsClique == 0 || odd == 0 {
			t.Errorf("%s: %d gangs fit one clique, %d have members that do not divide a node; want some of each", tc.name, fitsClique, odd)
		}
		if tc.name == "default" && needsMore == 0 {
			t.Errorf("%s: no gang needs more than one clique", tc.name)
		}
	}
}

// Level is topology.Level, named here for the test's brevity.
type Level = topology.Level

func TestGangAnnotations(t *testing.T) {
	c := DefaultCluster()
	a := Gang{Name: "x", Members: 32, GPUs: 8}.Annotations(c)
	want := map[string]string{
		topology.GPUProductAnnotation:     "NVIDIA-H100*",
		topology.PreferredLevelAnnotation: "clique",
		topology.RequiredLevelAnnotation:  "zone",
	}
	if len(a) != len(want) {
		t.Errorf("annotations %v, want %v", a, want)
	}
	for k, v := range want {
		if a[k] != v {
			t.Errorf("annotation %s = %q, want %q", k, a[k], v)
		}
	}
	// A gang bigger than one zone (32 nodes) requires no zone.
	if big := (Gang{Name: "y", Members: 33, GPUs: 8}).Annotations(c); big[topology.RequiredLevelAnnotation] != "" {
		t.Errorf("gang of 33x8: required %q, want none", big[topology.RequiredLevelAnnotation])
	}
	// 3-GPU members: two per node, 64 per zone.
	if g := (Gang{Name: "z", Members: 65, GPUs: 3}).Annotations(c); g[topology.RequiredLevelAnnotation] != "" {
		t.Errorf("gang of 65x3: required %q, want none", g[topology.RequiredLevelAnnotation])
	}
}

func TestClusterNodeList(t *testing.T) {
	nodes := DefaultCluster().NodeList()
	if len(nodes) != 64 {
		t.Fatalf("%d nodes, want 64", len(nodes))
	}
	for _, tc := range []struct {
		i                        int
		name, clique, rack, zone string
	}{
		{0, "gpu-000", "clique-00", "rack-00", "eastus-1"},
		{17, "gpu-017", "clique-02", "rack-01", "eastus-1"},
		{40, "gpu-040", "clique-05", "rack-02", "eastus-2"},
		{63, "gpu-063", "clique-07", "rack-03", "eastus-2"},
	} {
		n := nodes[tc.i]
		l := n.Labels
		if n.Name != tc.name || l[topology.HostnameLabel] != tc.name || l[topology.CliqueLabel] != tc.clique ||
			l[topology.LeafLabel] != tc.rack || l[topology.ZoneLabel] != tc.zone {
			t.Errorf("node %d: %s %v; want %s in %s, %s, %s", tc.i, n.Name, l, tc.name, tc.clique, tc.rack, tc.zone)
		}
		if n.GPUs != 8 || l[topology.ProductLabel] != "NVIDIA-H100-80GB-HBM3" || l[topology.MemoryLabel] != "81559" || l[topology.CountLabel] != "8" {
			t.Errorf("node %d: GPUs %d, labels %v", tc.i, n.GPUs, l)
		}
	}
	for _, tc := range []struct {
		c    Cluster
		want string
	}{
		{Cluster{Nodes: 64, GPUsPerNode: 8, NodesPerClique: 8, NodesPerRack: 12, NodesPerZone: 24, Product: "p"}, "nodesPerRack 12 is not a positive multiple of nodesPerClique 8"},
		{Cluster{Nodes: 64, GPUsPerNode: 8, NodesPerClique: 8, NodesPerRack: 16, NodesPerZone: 24, Product: "p"}, "nodesPerZone 24 is not a positive multiple of nodesPerRack 16"},
		{Cluster{Nodes: 40, GPUsPerNode: 8, NodesPerClique: 8, NodesPerRack: 16, NodesPerZone: 32, Product: "p"}, "nodes 40 is not a multiple of nodesPerZone 32"},
		{Cluster{Nodes: 64, GPUsPerNode: 0, NodesPerClique: 8, NodesPerRack: 16, NodesPerZone: 32, Product: "p"}, "gpusPerNode must be at least 1"},
	} {
		if err := tc.c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate(%+v): error %v, want %q", tc.c, err, tc.want)
		}
	}
}
