// Unit tests of PostFilter's shortfall: what a gang lacks in its best domain, handed to the request writer.

package gputopology

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	st "k8s.io/kubernetes/pkg/scheduler/testing"

	"github.com/muster-project/muster/pkg/capacity"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/gangstate"
	"github.com/muster-project/muster/pkg/shortfall"
	"github.com/muster-project/muster/pkg/topology"
)

// What a gang that did not fit asks the autoscaler for (PostFilter's
// shortfall), on four 8-GPU nodes in two racks with one free node in each:
// the GPU members the best domain lacks, per member shape, in that domain
// when a level is required and nodes added join it; nothing for a gang
// that fits, and nothing for one whose required level new nodes cannot
// join. A launcher without GPUs is never asked for; a GPU class pattern
// goes on the request's template, for Muster's autoscaler to read. The room
// of members the gang may shed (gangstate.Cycle.Sheddable) is counted as
// its own: it asks only for what shedding leaves short, where shedding
// leaves the most.
func TestShortfallAsksForWhatTheBestDomainLacks(t *testing.T) {
	for _, tc := range []struct {
		name          string
		gpuMembers    int
		launcher      bool
		annotations   map[string]string
		provisionable bool
		ask           bool
		noReason      string
		sets          string // "count x GPUs" per set
		domain        string
		shed          []int // the busy pods (by node) the gang may shed
	}{
		{name: "anywhere: two free nodes, four members", gpuMembers: 4, ask: true, sets: "[2x8]"},
		{name: "anywhere: fits", gpuMembers: 2, noReason: shortfall.ReasonFits},
		{name: "a launcher is not asked for", gpuMembers: 4, launcher: true, ask: true, sets: "[2x8]"},
		{name: "in a rack nodes join", gpuMembers: 3, annotations: map[string]string{topology.RequiredLevelAnnotation: "rack"}, provisionable: true, ask: true, sets: "[2x8]", domain: "rack-0000"},
		{name: "in a rack nodes cannot join", gpuMembers: 3, annotations: map[string]string{topology.RequiredLevelAnnotation: "rack"}, noReason: shortfall.ReasonLevel},
		{name: "anywhere: a member it may shed is room", gpuMembers: 4, shed: []int{1}, ask: true, sets: "[1x8]"},
		{name: "anywhere: shedding makes room, no nodes asked", gpuMembers: 4, shed: []int{1, 3}, noReason: shortfall.ReasonFits},
		{name: "in the rack where shedding makes the most room", gpuMembers: 3, shed: []int{3}, annotations: map[string]string{topology.RequiredLevelAnnotation: "rack"}, provisionable: true, ask: true, sets: "[1x8]", domain: "rack-0001"},
		{name: "of a class no node has", gpuMembers: 2, annotations: map[string]string{topology.GPUProductAnnotation: "NVIDIA-B200*"}, ask: true, sets: "[2x8]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(4, 1, 2, 4) // rack-0000: gpu-00000, gpu-00001; rack-0001: gpu-00002, gpu-00003
			busy := map[int]*v1.Pod{}
			for _, i := range []int{1, 3} {
				busy[i] = st.MakePod().Namespace("ml").Name(fmt.Sprintf("busy-%d", i)).UID(fmt.Sprintf("busy-%d", i)).
					Node(c.infos[i].Node().Name).Req(map[v1.ResourceName]string{"nvidia.com/gpu": "8"}).Obj()
				c.infos[i].AddPod(busy[i])
			}
			var sheddable []capacity.Member
			for _, i := range tc.shed {
				sheddable = append(sheddable, capacity.Member{Name: "ml/" + busy[i].Name, Node: busy[i].Spec.NodeName, Shape: capacity.DemandShape(busy[i], "nvidia.com/gpu")})
			}
			informer := cache.NewSharedIndexInformer(&cache.ListWatch{}, &v1.Pod{}, 0, cache.Indexers{})
			if err := gangstate.EnsureGangIndex(informer); err != nil {
				t.Fatal(err)
			}
			pl := newTestPlugin()
			pl.pods = informer.GetIndexer()
			pl.provisionable = map[string]bool{"rack": tc.provisionable}
			pods := members("g", tc.gpuMembers, "8")
			if tc.launcher {
				l := st.MakePod().Namespace("ml").Name("g-launcher").UID("g-launcher").Label(gang.GroupLabel, "g").
					Req(map[v1.ResourceName]string{v1.ResourceCPU: "2"}).Obj()
				pods = append(pods, l)
			}
			for _, p := range pods {
				if err := pl.pods.Add(p); err != nil {
					t.Fatal(err)
				}
			}
			n := int32(len(pods))
			spec := gang.Spec{Key: gang.Key{Namespace: "ml", Name: "g"}, Source: gang.SourceLabels, MinMember: n, MaxMember: n, Annotations: tc.annotations}
			want := pl.shortfall(klog.Background(), spec, pods[0], c.views, sheddable)
			if want.Verdict.Ask != tc.ask || (!tc.ask && want.Verdict.NoReason != tc.noReason) {
				t.Fatalf("verdict %+v, want ask %t / %q", want.Verdict, tc.ask, tc.noReason)
			}
			var sets []string
			for _, s := range want.Sets {
				sets = append(sets, fmt.Sprintf("%dx%d", s.Count, s.GPUs))
			}
			if tc.ask && fmt.Sprint(sets) != tc.sets {
				t.Errorf("asked for %v, want %s", sets, tc.sets)
			}
			if p := tc.annotations[topology.GPUProductAnnotation]; p != "" && want.TemplateAnnotations[topology.GPUProductAnnotation] != p {
				t.Errorf("the request's template states GPU products %q, want the gang's %q", want.TemplateAnnotations[topology.GPUProductAnnotation], p)
			}
			if want.AffinityValue != tc.domain {
				t.Errorf("new nodes confined to %q=%q, want %q", want.AffinityLabel, want.AffinityValue, tc.domain)
			}
		})
	}
}
