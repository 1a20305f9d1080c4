// Tests of request, template and hold names: valid and distinct for every gang name, the same whichever member stands for a shape; quorum templates kept off spot.

package provisioning

import (
	"fmt"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/shortfall"
)

// TestNamesAreValid: every gang name a label allows gives request, template
// and hold names that are valid object names, and distinct gangs distinct
// names.
func TestNamesAreValid(t *testing.T) {
	seen := map[string]string{}
	for _, name := range []string{"llm", "Train_Job", "train-job", "TRAIN.JOB", "a.b", "x", "9lives", strings.Repeat("A", 63),
		strings.Repeat("a", 63), "a_-_b", "Z", "z", strings.Repeat("ab.", 20) + "ab"} {
		if errs := validation.IsValidLabelValue(name); len(errs) > 0 {
			t.Fatalf("test input %q is no label value: %v", name, errs)
		}
		k := gang.Key{Namespace: "ml", Name: name}
		x := Want{Key: k, Verdict: shortfall.Verdict{Ask: true, Short: shortfall.Need{Members: 3}}}
		req := generationName(requestName(x), 12)
		for _, obj := range []string{req, templateName(req, 31), HoldName(k)} {
			if errs := validation.IsDNS1123Subdomain(obj); len(errs) > 0 {
				t.Errorf("gang %q: name %q is not a valid object name: %v", name, obj, errs)
			}
		}
		if other, dup := seen[nameBase(k)]; dup {
			t.Errorf("gangs %q and %q share the name base %q", other, name, nameBase(k))
		}
		seen[nameBase(k)] = name
	}
}

// TestRequestNameIgnoresMembersIdentity: whichever member stands for a shape,
// the request keeps its name; a different shape gets a different one.
func TestRequestNameIgnoresMembersIdentity(t *testing.T) {
	member := func(rank int, gpus string) *v1.Pod {
		return &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: fmt.Sprintf("llm-worker-%d", rank)},
			Spec: v1.PodSpec{
				Hostname: fmt.Sprintf("llm-worker-%d", rank), Subdomain: "llm-workers",
				InitContainers: []v1.Container{{Name: "wait", Image: "busybox", Command: []string{"sh", "-c", fmt.Sprintf("until nslookup llm-worker-%d; do sleep 1; done", rank)}}},
				Containers: []v1.Container{{
					Name: "train", Image: "trainer:1", Args: []string{fmt.Sprintf("--rank=%d", rank)},
					Env:       []v1.EnvVar{{Name: "RANK", Value: fmt.Sprint(rank)}},
					EnvFrom:   []v1.EnvFromSource{{ConfigMapRef: &v1.ConfigMapEnvSource{LocalObjectReference: v1.LocalObjectReference{Name: fmt.Sprintf("rank-%d", rank)}}}},
					Resources: v1.ResourceRequirements{Requests: v1.ResourceList{"nvidia.com/gpu": resource.MustParse(gpus)}, Limits: v1.ResourceList{"nvidia.com/gpu": resource.MustParse(gpus)}},
				}},
			},
		}
	}
	want := func(p *v1.Pod) Want {
		return Want{Key: gang.Key{Namespace: "ml", Name: "llm"}, Verdict: shortfall.Verdict{Ask: true, Short: shortfall.Need{Members: 4}},
			Sets: []Set{{Member: p, Count: 4, GPUs: 8}}}
	}
	first := requestName(want(member(0, "8")))
	for rank := 1; rank < 1000; rank += 97 {
		if got := requestName(want(member(rank, "8"))); got != first {
			t.Fatalf("member %d names the request %q, member 0 %q: the name hashes a member's identity", rank, got, first)
		}
	}
	if other := requestName(want(member(0, "4"))); other == first {
		t.Errorf("members of 4 and 8 GPUs share the request name %q", first)
	}
	spec := templateSpec(want(member(7, "8")), member(7, "8"))
	if got := spec.Containers[0].Resources.Requests["nvidia.com/gpu"]; got.Value() != 8 {
		t.Errorf("template lost the member's GPU request: %v", spec.Containers[0].Resources)
	}
}

// TestQuorumTemplateKeepsOffSpot: a member that tolerates spot nodes is
// asked for with a NotIn-spot node requirement, in every term, so that the
// autoscaler never adds a spot node for a quorum; one that does not is left
// as it is.
func TestQuorumTemplateKeepsOffSpot(t *testing.T) {
	pod := func(tolerate bool) *v1.Pod {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "w"}, Spec: v1.PodSpec{
			Affinity: &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{
				{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "zone", Operator: v1.NodeSelectorOpIn, Values: []string{"a"}}}},
				{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "zone", Operator: v1.NodeSelectorOpIn, Values: []string{"b"}}}},
			}}}},
			Containers: []v1.Container{{Name: "w", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{"nvidia.com/gpu": resource.MustParse("8")}}}},
		}}
		if tolerate {
			p.Spec.Tolerations = []v1.Toleration{{Key: "kubernetes.azure.com/scalesetpriority", Operator: v1.TolerationOpExists}}
		}
		return p
	}
	for _, tolerate := range []bool{true, false} {
		p := pod(tolerate)
		spec := templateSpec(Want{Key: gang.Key{Namespace: "ml", Name: "llm"}, Sets: []Set{{Member: p, Count: 2, GPUs: 8}}}, p)
		for i, term := range spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			offSpot := false
			for _, r := range term.MatchExpressions {
				if r.Key == "kubernetes.azure.com/scalesetpriority" && r.Operator == v1.NodeSelectorOpNotIn && len(r.Values) == 1 && r.Values[0] == "spot" {
					offSpot = true
				}
			}
			if offSpot != tolerate {
				t.Errorf("tolerates spot %v: term %d %v", tolerate, i, term.MatchExpressions)
			}
		}
	}
}
