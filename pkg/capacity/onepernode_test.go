// Tests of one member per node: required anti-affinity on the hostname against its own label, or a host port; such members packed a node each.

package capacity

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2/ktesting"
)

// antiAffine gives pod a required pod anti-affinity term on topologyKey
// against pods labelled role=value, and that label itself when own.
func antiAffine(pod *v1.Pod, topologyKey, value string, own bool, namespaces ...string) *v1.Pod {
	pod.Namespace = "ml"
	if own {
		pod.Labels = map[string]string{"role": value}
	}
	pod.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"role": value}}, TopologyKey: topologyKey, Namespaces: namespaces}}}}
	return pod
}

func TestOnePerNode(t *testing.T) {
	for _, c := range []struct {
		name string
		pod  *v1.Pod
		want bool
	}{
		{"no affinity", pod("w", 1000, 4), false},
		{"against its own label, per host", antiAffine(pod("w", 1000, 4), v1.LabelHostname, "worker", true), true},
		{"against its own label, in its namespace", antiAffine(pod("w", 1000, 4), v1.LabelHostname, "worker", true, "ml"), true},
		{"against its own label, in another namespace", antiAffine(pod("w", 1000, 4), v1.LabelHostname, "worker", true, "other"), false},
		{"against its own label, per zone", antiAffine(pod("w", 1000, 4), v1.LabelTopologyZone, "worker", true), false},
		{"against another label", antiAffine(pod("w", 1000, 4), v1.LabelHostname, "db", false), false},
		{"a host port", func() *v1.Pod {
			p := pod("w", 1000, 4)
			p.Spec.Containers[0].Ports = []v1.ContainerPort{{ContainerPort: 29500, HostPort: 29500}}
			return p
		}(), true},
		{"a container port only", func() *v1.Pod {
			p := pod("w", 1000, 4)
			p.Spec.Containers[0].Ports = []v1.ContainerPort{{ContainerPort: 29500}}
			return p
		}(), false},
	} {
		if got := OnePerNode(c.pod); got != c.want {
			t.Errorf("%s: OnePerNode = %t, want %t", c.name, got, c.want)
		}
	}
}

// Members that keep off one another's nodes take a node each, whatever
// room a node has for more, across shapes too; a launcher without the term
// shares a node with one of them.
func TestPackOnePerNode(t *testing.T) {
	logger, _ := ktesting.NewTestContext(t)
	four := antiAffine(pod("w4", 1000, 4), v1.LabelHostname, "worker", true)
	two := antiAffine(pod("w2", 1000, 2), v1.LabelHostname, "worker", true)
	launcher := pod("launcher", 1000, 0)
	nodes := []Node{node("a0", 8000, 8), node("a1", 8000, 8)}
	for _, c := range []struct {
		name  string
		q     Quorum
		short string
	}{
		{"two 4-GPU workers on two 8-GPU nodes", Quorum{{Shape: ShapeOf(four, gpu), Count: 2}}, "no members"},
		{"three 4-GPU workers on two 8-GPU nodes", Quorum{{Shape: ShapeOf(four, gpu), Count: 3}}, "1 x 4 GPUs"},
		{"a 4-GPU and two 2-GPU workers", Quorum{{Shape: ShapeOf(four, gpu), Count: 1}, {Shape: ShapeOf(two, gpu), Count: 2}}, "1 x 2 GPUs"},
		{"two workers and a launcher", Quorum{{Shape: ShapeOf(four, gpu), Count: 2}, {Shape: ShapeOf(launcher, gpu), Count: 1}}, "no members"},
	} {
		if got := Pack(logger, c.q, nodes, nil).Short.String(); got != c.short {
			t.Errorf("%s: short %s, want %s", c.name, got, c.short)
		}
	}
	// Without the term, one node holds both.
	plain := pod("w", 1000, 4)
	if p := Pack(logger, Quorum{{Shape: ShapeOf(plain, gpu), Count: 2}}, nodes[:1], nil); !p.Fits() {
		t.Errorf("two plain 4-GPU workers do not fit one 8-GPU node: short %s", p.Short)
	}
	if q := (Quorum{{Shape: ShapeOf(four, gpu), Count: 2}, {Shape: ShapeOf(launcher, gpu), Count: 1}}); !q.OnePerNode() {
		t.Error("a quorum whose GPU members all keep apart is not OnePerNode")
	}
	if q := (Quorum{{Shape: ShapeOf(four, gpu), Count: 1}, {Shape: ShapeOf(plain, gpu), Count: 1}}); q.OnePerNode() {
		t.Error("a quorum with a GPU member free to share a node is OnePerNode")
	}
}

// A member's room is decided by its shape alone unless something of its
// own, or its siblings' places, decides it too.
func TestPlacedByShape(t *testing.T) {
	with := func(f func(p *v1.Pod)) *v1.Pod {
		p := pod("w", 1000, 4)
		f(p)
		return p
	}
	for _, c := range []struct {
		name string
		pod  *v1.Pod
		want bool
	}{
		{"requests, selector, tolerations", with(func(p *v1.Pod) {
			p.Spec.NodeSelector = map[string]string{"pool": "a100"}
			p.Spec.Tolerations = []v1.Toleration{{Key: "nvidia.com/gpu", Operator: v1.TolerationOpExists}}
			p.Spec.Volumes = []v1.Volume{{Name: "shm", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{Medium: v1.StorageMediumMemory}}}}
		}), true},
		{"a container port only", with(func(p *v1.Pod) { p.Spec.Containers[0].Ports = []v1.ContainerPort{{ContainerPort: 29500}} }), true},
		{"a host port", with(func(p *v1.Pod) {
			p.Spec.Containers[0].Ports = []v1.ContainerPort{{ContainerPort: 29500, HostPort: 29500}}
		}), false},
		{"one per node by anti-affinity", antiAffine(pod("w", 1000, 4), v1.LabelHostname, "worker", true), false},
		{"pod affinity", with(func(p *v1.Pod) { p.Spec.Affinity = &v1.Affinity{PodAffinity: &v1.PodAffinity{}} }), false},
		{"topology spread", with(func(p *v1.Pod) {
			p.Spec.TopologySpreadConstraints = []v1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: v1.LabelTopologyZone, WhenUnsatisfiable: v1.DoNotSchedule}}
		}), false},
		{"a volume claim", with(func(p *v1.Pod) {
			p.Spec.Volumes = []v1.Volume{{Name: "data", VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: "data-w-0"}}}}
		}), false},
		{"an ephemeral volume", with(func(p *v1.Pod) {
			p.Spec.Volumes = []v1.Volume{{Name: "scratch", VolumeSource: v1.VolumeSource{Ephemeral: &v1.EphemeralVolumeSource{}}}}
		}), false},
		{"a resource claim", with(func(p *v1.Pod) { p.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpu"}} }), false},
	} {
		if got := PlacedByShape(c.pod); got != c.want {
			t.Errorf("%s: PlacedByShape = %t, want %t", c.name, got, c.want)
		}
	}
}
