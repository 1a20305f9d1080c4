// Tests of the profile's one shape cache: shared by both plugins, counting
// the GPU resource MusterTopology names, forgetting members once placed.

package gangstate

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/muster-project/muster/pkg/capacity"
)

func podsInformer() cache.SharedIndexInformer {
	return cache.NewSharedIndexInformer(&cache.ListWatch{}, &v1.Pod{}, 0, cache.Indexers{})
}

func member(name string, res v1.ResourceList) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: name, UID: types.UID(name), ResourceVersion: "1"},
		Spec:       v1.PodSpec{Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: res}}}},
	}
}

// Both plugins of a profile read one cache, whichever is built first, and
// it counts the GPU resource MusterTopology names: MusterGang's plan and
// MusterTopology's quorum see the same GPUs (MusterGang used to count
// nvidia.com/gpu whatever the profile said).
func TestShapesSharedByTheProfile(t *testing.T) {
	amd := v1.ResourceName("amd.com/gpu")
	worker := member("w-0", v1.ResourceList{amd: apiresource.MustParse("8"), v1.ResourceCPU: apiresource.MustParse("4")})
	for _, order := range []string{"MusterGang first", "MusterTopology first"} {
		t.Run(order, func(t *testing.T) {
			st := NewSet().For(&handle{profile: "p"})
			pods := podsInformer()
			var gangs, topo *capacity.Shapes
			var err error
			if order == "MusterGang first" {
				if gangs, err = st.Shapes(pods, ""); err == nil {
					topo, err = st.Shapes(pods, amd)
				}
			} else {
				if topo, err = st.Shapes(pods, amd); err == nil {
					gangs, err = st.Shapes(pods, "")
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			if gangs != topo {
				t.Fatal("MusterGang and MusterTopology of one profile got two shape caches")
			}
			if g := gangs.Of(worker).GPUs; g != 8 {
				t.Errorf("MusterGang's shape of an 8 x %s member counts %d GPUs", amd, g)
			}
			if g := gangs.DemandOf(worker).GPUs; g != 8 {
				t.Errorf("MusterGang's demand of an 8 x %s member counts %d GPUs", amd, g)
			}
		})
	}
	st := NewSet().For(&handle{profile: "gang-only"})
	alone, err := st.Shapes(podsInformer(), "")
	if err != nil {
		t.Fatal(err)
	}
	nv := member("n-0", v1.ResourceList{"nvidia.com/gpu": apiresource.MustParse("4")})
	if g := alone.Of(nv).GPUs; g != 4 {
		t.Errorf("a profile without MusterTopology counts %d nvidia.com/gpu of 4", g)
	}
	var none *State
	a, _ := none.Shapes(podsInformer(), "")
	b, _ := none.Shapes(podsInformer(), "")
	if a == nil || a == b {
		t.Error("plugins built by hand (no State) do not get caches of their own")
	}
}

// A member's shape is dropped once it is placed or deleted: the shape holds
// the pod as it was while waiting, so a cache that kept it until the pod
// was deleted held a second copy of every running member. Updates of a
// waiting member keep it (its gang's attempts read it again). An MPI-style
// gang: three 8-GPU workers and a CPU launcher.
func TestPlacedMembersShapesAreDropped(t *testing.T) {
	c := capacity.NewShapes("nvidia.com/gpu")
	h := ShapesHandler(c)
	pods := []*v1.Pod{member("mpi-launcher", v1.ResourceList{v1.ResourceCPU: apiresource.MustParse("8")})}
	for i := range 3 {
		pods = append(pods, member(fmt.Sprintf("mpi-worker-%d", i), v1.ResourceList{"nvidia.com/gpu": apiresource.MustParse("8")}))
	}
	for _, p := range pods {
		c.Of(p) // as the gang's attempts read them
	}
	if n := c.Len(); n != 4 {
		t.Fatalf("%d shapes after the attempt read 4 members", n)
	}
	waiting := pods[1].DeepCopy()
	waiting.ResourceVersion = "2"
	waiting.Annotations = map[string]string{"muster.dev/consume-provisioning-request": "mpi-r1"}
	h.OnUpdate(pods[1], waiting)
	if n := c.Len(); n != 4 {
		t.Errorf("%d shapes after a waiting member's update, want 4", n)
	}
	for i, p := range pods[:3] {
		bound := p.DeepCopy()
		bound.ResourceVersion, bound.Spec.NodeName = "3", fmt.Sprintf("gpu-%05d", i)
		h.OnUpdate(p, bound)
	}
	if n := c.Len(); n != 1 {
		t.Errorf("%d shapes once three members are bound, want 1", n)
	}
	h.OnDelete(cache.DeletedFinalStateUnknown{Key: "ml/mpi-worker-2", Obj: pods[3]})
	if n := c.Len(); n != 0 {
		t.Errorf("%d shapes once the last waiting member is deleted (seen late), want 0", n)
	}
}

// A shape read from a stale copy of a member, after its delete or its
// placement was handled (the informer's store has it gone or bound), is
// not kept: no later event would drop it (a soak's leftover entries). A
// member still waiting in the store is kept.
func TestStaleReadsOfGoneMembersAreNotKept(t *testing.T) {
	pods := podsInformer()
	c, err := (*State)(nil).Shapes(pods, "")
	if err != nil {
		t.Fatal(err)
	}
	gpu := v1.ResourceList{"nvidia.com/gpu": apiresource.MustParse("8")}
	launcher := member("job-launcher", v1.ResourceList{v1.ResourceCPU: apiresource.MustParse("2")})
	waiting, gone, bound := member("job-0", gpu), member("job-1", gpu), member("job-2", gpu)
	placed := bound.DeepCopy()
	placed.Spec.NodeName = "n1"
	for _, p := range []*v1.Pod{launcher, waiting, placed} {
		if err := pods.GetStore().Add(p); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []*v1.Pod{launcher, waiting, gone, bound} {
		c.Of(p)
	}
	if n := c.Len(); n != 2 {
		t.Errorf("%d shapes kept, want 2 (the waiting launcher and worker; not the deleted one nor the one the store has bound)", n)
	}
}
