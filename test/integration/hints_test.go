// Integration tests of ProvisioningRequest hints: the exact shortfall asked for, no hint when nodes would not help, bookings kept for their gang, requests replaced after they end.

package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	autoscalingv1 "github.com/muster-project/muster/pkg/apis/autoscaling/v1"
	"github.com/muster-project/muster/pkg/contract"
	"github.com/muster-project/muster/pkg/controlplane"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/scheduler/podpatch"
	"github.com/muster-project/muster/pkg/scheduler/provisioning"
	"github.com/muster-project/muster/pkg/shortfall"
	"github.com/muster-project/muster/pkg/topology"
)

// provReqs lists the ProvisioningRequests in the test namespace, by name.
func provReqs(t *testing.T, ctx context.Context, env *controlplane.Env) map[string]autoscalingv1.ProvisioningRequest {
	t.Helper()
	dc, err := dynamic.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	list, err := dc.Resource(autoscalingv1.Resource).Namespace(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]autoscalingv1.ProvisioningRequest{}
	for _, u := range list.Items {
		var pr autoscalingv1.ProvisioningRequest
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &pr); err != nil {
			t.Fatal(err)
		}
		out[pr.Name] = pr
	}
	return out
}

// waitProvReqs waits until the gang's requests satisfy cond.
func waitProvReqs(t *testing.T, ctx context.Context, env *controlplane.Env, gangName, what string, cond func([]autoscalingv1.ProvisioningRequest) bool) []autoscalingv1.ProvisioningRequest {
	t.Helper()
	var mine []autoscalingv1.ProvisioningRequest
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		mine = mine[:0]
		for _, pr := range provReqs(t, ctx, env) {
			if pr.Labels[provisioning.GangLabel] == gangName {
				mine = append(mine, pr)
			}
		}
		sort.Slice(mine, func(i, j int) bool { return mine[i].Name < mine[j].Name })
		return cond(mine), nil
	})
	if err != nil {
		t.Fatalf("gang %s: waiting for ProvisioningRequests %s: %v; have %+v", gangName, what, err, mine)
	}
	return mine
}

func oneRequestFor(count int32) func([]autoscalingv1.ProvisioningRequest) bool {
	return func(prs []autoscalingv1.ProvisioningRequest) bool {
		return len(prs) == 1 && len(prs[0].Spec.PodSets) == 1 && prs[0].Spec.PodSets[0].Count == count
	}
}

func noRequest(prs []autoscalingv1.ProvisioningRequest) bool { return len(prs) == 0 }

// setProvReqCondition stands in for the autoscaler writing the request's status.
func setProvReqCondition(t *testing.T, ctx context.Context, env *controlplane.Env, name string, c metav1.Condition) {
	t.Helper()
	dc, err := dynamic.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	c.LastTransitionTime = metav1.Now()
	cond, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&c)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": autoscalingv1.GroupVersion.String(), "kind": "ProvisioningRequest",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"status":   map[string]any{"conditions": []any{cond}},
	}}
	data, _ := u.MarshalJSON()
	if _, err := dc.Resource(autoscalingv1.Resource).Namespace(ns).Patch(ctx, name, "application/merge-patch+json", data, metav1.PatchOptions{}, "status"); err != nil {
		t.Fatal(err)
	}
}

// patchProvReq merge-patches a ProvisioningRequest (not its status).
func patchProvReq(t *testing.T, ctx context.Context, env *controlplane.Env, name string, patch map[string]any) {
	t.Helper()
	dc, err := dynamic.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(patch)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dc.Resource(autoscalingv1.Resource).Namespace(ns).Patch(ctx, name, "application/merge-patch+json", data, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// providerID is the spec.providerID the tests give node name.
func providerID(name string) string {
	return "azure:///subscriptions/test/resourceGroups/RG/providers/Microsoft.Compute/virtualMachineScaleSets/gpu/virtualMachines/" + name
}

// bookedGPUNode is an 8-GPU node with a provider ID, as one the autoscaler
// adds.
func bookedGPUNode(name string) *v1.Node {
	n := controlplane.GPUNode(name, 8)
	n.Spec.ProviderID = providerID(name)
	return n
}

// setProvisioned marks the request Provisioned with the instances Muster's
// autoscaler records adding for it (pkg/apis/autoscaling/v1 details).
func setProvisioned(t *testing.T, ctx context.Context, env *controlplane.Env, name, msg string, nodes ...string) {
	t.Helper()
	setProvReqCondition(t, ctx, env, name, metav1.Condition{Type: autoscalingv1.Provisioned, Status: metav1.ConditionTrue, Reason: "CapacityIsProvisioned", Message: msg})
	prefix := strings.TrimSuffix(providerID("x"), "x")
	patch, _ := json.Marshal(map[string]any{"status": map[string]any{"provisioningClassDetails": map[string]string{
		autoscalingv1.DetailNodeGroup: "gpu", autoscalingv1.DetailNodesAdded: fmt.Sprint(len(nodes)),
		autoscalingv1.DetailProviderIDPrefix: prefix, autoscalingv1.DetailInstances: strings.Join(nodes, ","),
	}}})
	dc, err := dynamic.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dc.Resource(autoscalingv1.Resource).Namespace(ns).Patch(ctx, name, "application/merge-patch+json", patch, metav1.PatchOptions{}, "status"); err != nil {
		t.Fatal(err)
	}
}

// shortGangRequest creates nodes 8-GPU nodes and a PodGroup of members
// 8-GPU members, min members, and returns the one request the gang gets
// for the members the nodes leave out.
func shortGangRequest(t *testing.T, ctx context.Context, env *controlplane.Env, name string, nodes, members int) autoscalingv1.ProvisioningRequest {
	t.Helper()
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", nodes, 8); err != nil {
		t.Fatal(err)
	}
	createPodGroup(t, env, int32(members), 0, 0, name)
	if err := controlplane.CreatePods(ctx, env.Client, controlplane.PodGroupMembers(ns, name, members, 8)...); err != nil {
		t.Fatal(err)
	}
	short := int32(members - nodes)
	return waitProvReqs(t, ctx, env, name, fmt.Sprintf("for %d members", short), oneRequestFor(short))[0]
}

// A gang short of nodes gets one request for exactly the members that do not
// fit, its members consume it, the autoscaler's answer shows in the gang's
// status, and the request goes once the gang is placed.
func TestShortGangGetsExactHint(t *testing.T) {
	ctx, env, sched := setup(t, controlplane.GangArgs{BackoffSeconds: 1})
	pr := shortGangRequest(t, ctx, env, "llm", 2, 5)
	if pr.Spec.ProvisioningClassName != autoscalingv1.ClassBestEffortAtomicScaleUp {
		t.Errorf("class %q, want %q", pr.Spec.ProvisioningClassName, autoscalingv1.ClassBestEffortAtomicScaleUp)
	}
	if len(pr.OwnerReferences) != 1 || pr.OwnerReferences[0].Kind != "PodGroup" || pr.OwnerReferences[0].Name != "llm" {
		t.Errorf("owners %+v, want the PodGroup llm", pr.OwnerReferences)
	}
	tmpl, err := env.Client.CoreV1().PodTemplates(ns).Get(ctx, pr.Spec.PodSets[0].PodTemplateRef.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("PodTemplate of the request: %v", err)
	}
	if q := tmpl.Template.Spec.Containers[0].Resources.Requests[controlplane.GPU]; q.Value() != 8 {
		t.Errorf("template asks for %s GPUs, want 8", q.String())
	}
	waitPod(t, ctx, env, "llm-0", "consume annotation", func(p *v1.Pod) bool {
		return p.Annotations[autoscalingv1.ConsumeAnnotation] == pr.Name && p.Annotations[autoscalingv1.ClassAnnotation] == autoscalingv1.ClassBestEffortAtomicScaleUp
	})
	waitExtraCondition(t, ctx, env, "llm", provisioning.ConditionCapacity, provisioning.ReasonRequested, "short 3 pods x 8 GPUs; asked the cluster-autoscaler")

	setProvReqCondition(t, ctx, env, pr.Name, metav1.Condition{Type: autoscalingv1.Provisioned, Status: metav1.ConditionTrue, Reason: "Provisioned", Message: "heavy-gpu pool adding 3 nodes"})
	waitExtraCondition(t, ctx, env, "llm", provisioning.ConditionCapacity, provisioning.ReasonProvisioned, "short 3 pods x 8 GPUs; heavy-gpu pool adding 3 nodes")

	// The autoscaler's nodes arrive one by one: the shortfall shrinks, but the
	// provisioned request stays, or nodes would be added twice.
	if err := controlplane.CreateNodes(ctx, env.Client, "new", 1, 8); err != nil {
		t.Fatal(err)
	}
	settles(t, ctx, env, sched, "the provisioned request stays while its nodes arrive", func() (bool, error) {
		prs := provReqs(t, ctx, env)
		_, ok := prs[pr.Name]
		return ok && len(prs) == 1, nil
	})
	if err := controlplane.CreateNodes(ctx, env.Client, "more", 2, 8); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.PodGroupLabel, "llm", 5)
	waitProvReqs(t, ctx, env, "llm", "deleted once placed", noRequest)
	// The writer deletes the request, then its PodTemplate.
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := env.Client.CoreV1().PodTemplates(ns).Get(ctx, pr.Name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	}); err != nil {
		t.Errorf("PodTemplate %s outlived its request: %v", pr.Name, err)
	}
}

// waitExtraCondition waits for a PodGroup condition of type typ.
func waitExtraCondition(t *testing.T, ctx context.Context, env *controlplane.Env, name, typ, reason, msgPart string) {
	t.Helper()
	if got, ok := pollExtraCondition(ctx, env, name, typ, func(c map[string]any) bool {
		return c != nil && c["reason"] == reason && strings.Contains(c["message"].(string), msgPart)
	}); !ok {
		t.Fatalf("PodGroup %s: want %s condition %s with %q, last %q", name, typ, reason, msgPart, got)
	}
}

// waitNoExtraCondition waits until the PodGroup's status has no condition
// of type typ.
func waitNoExtraCondition(t *testing.T, ctx context.Context, env *controlplane.Env, name, typ string) {
	t.Helper()
	if got, ok := pollExtraCondition(ctx, env, name, typ, func(c map[string]any) bool { return c == nil }); !ok {
		t.Fatalf("PodGroup %s: want no %s condition, still %q", name, typ, got)
	}
}

// pollExtraCondition polls the PodGroup's condition of type typ (nil when
// it has none) until done holds; it returns the last one seen, in words.
func pollExtraCondition(ctx context.Context, env *controlplane.Env, name, typ string, done func(map[string]any) bool) (string, bool) {
	var got string
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		st, err := podGroupStatus(ctx, env, name)
		if err != nil {
			return false, nil
		}
		conds, _ := st["conditions"].([]any)
		for _, c := range conds {
			if m := c.(map[string]any); m["type"] == typ {
				got = fmt.Sprintf("%v: %v", m["reason"], m["message"])
				return done(m), nil
			}
		}
		got = ""
		return done(nil), nil
	})
	return got, err == nil
}

// No hint for a gang that new nodes would not help: an incomplete gang, one
// confined to a level new nodes cannot join, or members pinned to a node.
// Members beyond max are never counted.
func TestNoHintWhenNodesWouldNotHelp(t *testing.T) {
	ctx, env, sched := setup(t, controlplane.GangArgs{BackoffSeconds: 1})
	gpuNodes(t, ctx, env, "a0:"+h100+":a:r1:z1", "a1:"+h100+":a:r1:z1")

	// Incomplete: 3 of min 4 exist.
	createPodGroup(t, env, 4, 0, 0, "partial")
	if err := controlplane.CreatePods(ctx, env.Client, controlplane.PodGroupMembers(ns, "partial", 3, 8)...); err != nil {
		t.Fatal(err)
	}
	// Confined to one clique, bigger than any clique.
	pg := controlplane.PodGroup(ns, "cliquey", 3, 0, 0)
	pg.Annotations = map[string]string{topology.RequiredLevelAnnotation: "clique"}
	if _, err := env.PodGroups.SchedulingV1alpha1().PodGroups(ns).Create(ctx, pg, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := controlplane.CreatePods(ctx, env.Client, controlplane.PodGroupMembers(ns, "cliquey", 3, 8)...); err != nil {
		t.Fatal(err)
	}
	waitExtraCondition(t, ctx, env, "cliquey", provisioning.ConditionCapacity, provisioning.ReasonNoRequest, "nodes the autoscaler adds cannot join an existing clique")
	// Its members are kept out of one-by-one scale-up, which would add
	// nodes that join no clique with room.
	held := provisioning.HoldName(gang.Key{Namespace: ns, Name: "cliquey"})
	waitPod(t, ctx, env, "cliquey-0", "held from ordinary scale-up", func(p *v1.Pod) bool {
		return p.Annotations[autoscalingv1.ConsumeAnnotation] == held
	})

	// Pinned to a node that does not exist.
	pinned := controlplane.PodGroupMembers(ns, "pinned", 2, 8)
	createPodGroup(t, env, 2, 0, 0, "pinned")
	for i := range pinned {
		p := pinned[i].Pod()
		p.Spec.NodeSelector = map[string]string{topology.HostnameLabel: "gone"}
		if _, err := env.Client.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	waitExtraCondition(t, ctx, env, "pinned", provisioning.ConditionCapacity, provisioning.ReasonNoRequest, "new nodes cannot fix")

	// Elastic: min 1 placed, max 4: the members waiting beyond the quorum ask for nothing.
	if err := controlplane.CreatePods(ctx, env.Client, controlplane.LabelMembers(ns, "elastic", 4, 8, 1, 4)...); err != nil {
		t.Fatal(err)
	}
	settles(t, ctx, env, sched, "no ProvisioningRequest at all", func() (bool, error) {
		return len(provReqs(t, ctx, env)) == 0, nil
	})
	// The elastic members waiting beyond the quorum are held too, and the
	// incomplete gang's members stay gated, which autoscalers skip.
	heldElastic := provisioning.HoldName(gang.Key{Namespace: ns, Name: "elastic"})
	pods, err := env.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waiting := 0
	for _, p := range pods.Items {
		switch {
		case p.Labels[gang.GroupLabel] == "elastic" && p.Spec.NodeName == "":
			// The mark comes with a writer's sync after the member's
			// attempt; the test waits for the mark itself, as a quiet
			// scheduler was once seen before it came (1 run in 12
			// beside a CPU hog).
			waiting++
			waitPod(t, ctx, env, p.Name, "held from ordinary scale-up", func(p *v1.Pod) bool {
				return p.Annotations[autoscalingv1.ConsumeAnnotation] == heldElastic
			})
		case strings.HasPrefix(p.Name, "partial-"):
			if !hasPodCondition(&p, v1.PodScheduled, v1.PodReasonSchedulingGated) {
				t.Errorf("incomplete gang's member %s conditions %+v, want PodScheduled %s", p.Name, p.Status.Conditions, v1.PodReasonSchedulingGated)
			}
		}
	}
	if waiting == 0 {
		t.Error("no elastic member waits beyond the quorum; the test lost its case")
	}
}

func hasPodCondition(p *v1.Pod, t v1.PodConditionType, reason string) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == t && c.Reason == reason {
			return true
		}
	}
	return false
}

// A gang's request follows its shortfall: when another gang leaves and frees
// a node, the request is replaced by one for fewer members.
func TestHintFollowsShortfall(t *testing.T) {
	ctx, env, _ := setup(t, controlplane.GangArgs{BackoffSeconds: 1})
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 3, 8); err != nil {
		t.Fatal(err)
	}
	if err := controlplane.CreatePods(ctx, env.Client, controlplane.LabelMembers(ns, "small", 1, 8, 1, 1)...); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.GroupLabel, "small", 1)
	if err := controlplane.CreatePods(ctx, env.Client, controlplane.LabelMembers(ns, "big", 5, 8, 5, 5)...); err != nil {
		t.Fatal(err)
	}
	first := waitProvReqs(t, ctx, env, "big", "for 3 members", oneRequestFor(3))[0]
	if first.OwnerReferences[0].Kind != "Pod" || first.OwnerReferences[0].Name != "big-0" {
		t.Errorf("owner %+v, want the oldest member big-0", first.OwnerReferences)
	}
	if err := env.Client.CoreV1().Pods(ns).Delete(ctx, "small-0", metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}
	second := waitProvReqs(t, ctx, env, "big", "for 2 members", oneRequestFor(2))[0]
	if second.Name == first.Name {
		t.Errorf("request %s kept with a changed shortfall", first.Name)
	}
	waitPod(t, ctx, env, "big-4", "consumes the new request", func(p *v1.Pod) bool {
		return p.Annotations[autoscalingv1.ConsumeAnnotation] == second.Name
	})
}

// A restarted scheduler adopts its live request rather than adding another,
// and withdraws it when the gang is placed.
func TestHintSurvivesRestart(t *testing.T) {
	ctx, env, sched := setup(t, controlplane.GangArgs{BackoffSeconds: 1})
	before := shortGangRequest(t, ctx, env, "job", 1, 3)
	sched.Stop()
	sched = startScheduler(t, ctx, env, controlplane.GangArgs{BackoffSeconds: 1})
	settles(t, ctx, env, sched, "the same single request", func() (bool, error) {
		var mine []string
		for name, pr := range provReqs(t, ctx, env) {
			if pr.Labels[provisioning.GangLabel] == "job" {
				mine = append(mine, name)
			}
		}
		return len(mine) == 1 && mine[0] == before.Name, nil
	})
	if err := controlplane.CreateNodes(ctx, env.Client, "new", 2, 8); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.PodGroupLabel, "job", 3)
	waitProvReqs(t, ctx, env, "job", "deleted once placed", noRequest)
}

// Bound members tell the cluster-autoscaler which nodes it must not empty:
// the quorum's members are not safe to evict, members beyond min are.
func TestScaleDownProtection(t *testing.T) {
	ctx, env, _ := setup(t, controlplane.GangArgs{BackoffSeconds: 1})
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 4, 8); err != nil {
		t.Fatal(err)
	}
	members := controlplane.LabelMembers(ns, "ddp", 4, 8, 2, 4)
	for _, m := range members {
		if err := controlplane.CreatePods(ctx, env.Client, m); err != nil {
			t.Fatal(err)
		}
		time.Sleep(1100 * time.Millisecond) // distinct creation seconds: age orders the members
	}
	waitBound(t, env, gang.GroupLabel, "ddp", 4)
	safe := func(name, want string) {
		t.Helper()
		waitPod(t, ctx, env, name, gang.SafeToEvictAnnotation+"="+want, func(p *v1.Pod) bool { return p.Annotations[gang.SafeToEvictAnnotation] == want })
	}
	safe("ddp-0", "false")
	safe("ddp-1", "false")
	safe("ddp-2", "true")
	safe("ddp-3", "true")

	// Down to min: the survivors stay protected.
	for _, name := range []string{"ddp-0", "ddp-3"} {
		if err := env.Client.CoreV1().Pods(ns).Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
			t.Fatal(err)
		}
	}
	safe("ddp-1", "false")
	safe("ddp-2", "false")
}

// The request states the gang's GPU class: exact products as a node
// requirement, the class annotations on the template.
func TestHintCarriesGPUClass(t *testing.T) {
	ctx, env, _ := setup(t, controlplane.GangArgs{BackoffSeconds: 1})
	gpuNodes(t, ctx, env, "a100:"+a100+":x:r1:z1")
	topoGang(t, ctx, env, "hopper", 2, 8, 2, 2, topology.GPUProductAnnotation, h100, topology.GPUMemoryAnnotation, "80Gi")
	pr := waitProvReqs(t, ctx, env, "hopper", "for both members (the A100 node is not of the class)", oneRequestFor(2))[0]
	tmpl, err := env.Client.CoreV1().PodTemplates(ns).Get(ctx, pr.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := tmpl.Template.Annotations[topology.GPUMemoryAnnotation]; got != "80Gi" {
		t.Errorf("template annotation %s = %q, want 80Gi", topology.GPUMemoryAnnotation, got)
	}
	aff := tmpl.Template.Spec.Affinity
	if aff == nil || aff.NodeAffinity == nil || aff.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		t.Fatalf("template has no required node affinity: %+v", tmpl.Template.Spec)
	}
	found := false
	for _, term := range aff.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, e := range term.MatchExpressions {
			if e.Key == topology.ProductLabel && fmt.Sprint(e.Values) == "["+h100+"]" {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("template affinity %+v does not require %s", aff.NodeAffinity, h100)
	}
}

// Nodes the autoscaler adds for a gang's provisioned request are kept for
// that gang: a younger gang that arrives meanwhile does not take them, nor
// counts them as room, so its own request stays as it is; an elastic gang
// does not grow onto them; a node the booking does not name is anyone's.
func TestBookedNodesKeptForTheirGang(t *testing.T) {
	ctx, env, sched := setup(t, controlplane.GangArgs{BackoffSeconds: 1})
	if err := controlplane.CreateNodes(ctx, env.Client, "cpu", 1, 0); err != nil {
		t.Fatal(err)
	}
	createPodGroup(t, env, 3, 0, 0, "first")
	if err := controlplane.CreatePods(ctx, env.Client, controlplane.PodGroupMembers(ns, "first", 3, 8)...); err != nil {
		t.Fatal(err)
	}
	pr := waitProvReqs(t, ctx, env, "first", "for 3 members", oneRequestFor(3))[0]
	setProvisioned(t, ctx, env, pr.Name, "gpu-heavy pool adding 3 nodes", "booked-0", "booked-1", "booked-2")
	waitExtraCondition(t, ctx, env, "first", provisioning.ConditionCapacity, provisioning.ReasonProvisioned, "adding 3 nodes")

	// A younger gang that would fit on two of the new nodes, and a lone
	// 1-GPU pod that would take a GPU from the first of them.
	createPodGroup(t, env, 2, 0, 0, "second")
	if err := controlplane.CreatePods(ctx, env.Client, controlplane.PodGroupMembers(ns, "second", 2, 8)...); err != nil {
		t.Fatal(err)
	}
	if err := controlplane.CreatePods(ctx, env.Client, controlplane.Member{Namespace: ns, Name: "lone", GPUs: 1}); err != nil {
		t.Fatal(err)
	}
	second := waitProvReqs(t, ctx, env, "second", "for 2 members", oneRequestFor(2))[0]
	unchanged := func() (bool, error) {
		found := false
		for _, pr := range provReqs(t, ctx, env) {
			if pr.Labels[provisioning.GangLabel] == "second" {
				if pr.UID != second.UID {
					return false, nil
				}
				found = true
			}
		}
		return found, nil
	}
	// Two of the booked nodes arrive: room for the younger gang, were
	// they not booked. Its request is neither dropped nor replaced.
	for i := range 2 {
		if err := controlplane.CreateNode(ctx, env.Client, bookedGPUNode(fmt.Sprintf("booked-%d", i))); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
	}
	settles(t, ctx, env, sched, "the younger gang's request", unchanged)
	waitPod(t, ctx, env, "lone", "still waiting, not on booked nodes", func(p *v1.Pod) bool { return p.Spec.NodeName == "" })
	// A node the booking does not name (ordinary scale-up, another pool)
	// is anyone's, though it came up after the booking began. It has five
	// GPUs: the booked gang's 8-GPU members, older and waiting, would
	// otherwise race the lone pod for it, and win at times.
	unbooked := controlplane.GPUNode("unbooked", 5)
	unbooked.Spec.ProviderID = providerID("unbooked")
	if err := controlplane.CreateNode(ctx, env.Client, unbooked); err != nil {
		t.Fatal(err)
	}
	waitPod(t, ctx, env, "lone", "bound to the node no booking names", func(p *v1.Pod) bool { return p.Spec.NodeName == "unbooked" })
	// An elastic gang beside it: its min member takes what the lone pod
	// left; its members above min do not grow onto the booked nodes.
	createPodGroup(t, env, 1, 3, 0, "grow")
	if err := controlplane.CreatePods(ctx, env.Client, controlplane.PodGroupMembers(ns, "grow", 3, 4)...); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.PodGroupLabel, "grow", 1)
	settledBound(t, ctx, env, sched, gang.PodGroupLabel, "grow", 1)
	// The last booked node arrives.
	if err := controlplane.CreateNode(ctx, env.Client, bookedGPUNode("booked-2")); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.PodGroupLabel, "first", 3)
	for i := range 3 {
		waitPod(t, ctx, env, fmt.Sprintf("first-%d", i), "on a node booked for it", func(p *v1.Pod) bool { return strings.HasPrefix(p.Spec.NodeName, "booked-") })
	}
	settledBound(t, ctx, env, sched, gang.PodGroupLabel, "second", 0)
	waitPod(t, ctx, env, "second-0", "still waiting, not on booked nodes", func(p *v1.Pod) bool { return p.Spec.NodeName == "" })
	if ok, _ := unchanged(); !ok {
		t.Fatalf("the younger gang's request %s was replaced or dropped", second.Name)
	}
}

// Two gangs booked on the same pool: each booking names its own nodes, and
// each gang binds on exactly those, whatever order the nodes register in.
// The younger gang's nodes come first; the older gang does not take them.
func TestTwoBookingsBothBind(t *testing.T) {
	ctx, env, _ := setup(t, controlplane.GangArgs{BackoffSeconds: 1})
	if err := controlplane.CreateNodes(ctx, env.Client, "cpu", 1, 0); err != nil {
		t.Fatal(err)
	}
	provision := func(name string, nodes ...string) {
		t.Helper()
		createPodGroup(t, env, 2, 0, 0, name)
		if err := controlplane.CreatePods(ctx, env.Client, controlplane.PodGroupMembers(ns, name, 2, 8)...); err != nil {
			t.Fatal(err)
		}
		pr := waitProvReqs(t, ctx, env, name, "for 2 members", oneRequestFor(2))[0]
		setProvisioned(t, ctx, env, pr.Name, "gpu-heavy pool adding 2 nodes", nodes...)
		waitExtraCondition(t, ctx, env, name, provisioning.ConditionCapacity, provisioning.ReasonProvisioned, "adding 2 nodes")
	}
	provision("older", "older-a", "older-b")
	provision("younger", "younger-a", "younger-b")
	for _, n := range []string{"younger-a", "younger-b"} {
		if err := controlplane.CreateNode(ctx, env.Client, bookedGPUNode(n)); err != nil {
			t.Fatal(err)
		}
	}
	waitBound(t, env, gang.PodGroupLabel, "younger", 2)
	for _, n := range []string{"older-a", "older-b"} {
		if err := controlplane.CreateNode(ctx, env.Client, bookedGPUNode(n)); err != nil {
			t.Fatal(err)
		}
	}
	waitBound(t, env, gang.PodGroupLabel, "older", 2)
	for _, g := range []string{"older", "younger"} {
		for i := range 2 {
			waitPod(t, ctx, env, fmt.Sprintf("%s-%d", g, i), "on a node booked for its gang", func(p *v1.Pod) bool { return strings.HasPrefix(p.Spec.NodeName, g+"-") })
		}
	}
}

// A gang whose provisioned nodes have come fits, but until its quorum binds
// its request and booking stay, so that other gangs keep off those nodes
// (in simulate an elastic gang's extra members took a younger gang's new
// nodes in that moment). A booking that expires ends the wait. The writer
// runs alone here, against the API server, with verdicts set by the test.
func TestBookingHeldUntilQuorumBinds(t *testing.T) {
	ctx, env := controlPlane(t)
	read, dyn := unservedPair(t, ctx, env)
	pods := read()
	k := gang.Key{Namespace: ns, Name: "llm"}
	w := newWriter(t, ctx, env, dyn, provisioning.Options{Members: func(gang.Key) []*v1.Pod { return pods }, Period: time.Hour})
	verdict := func(room int64) {
		w.Set(shortPair(k, pods[0], 2-room))
		w.Sync(ctx)
	}
	booked := func() bool {
		for _, b := range w.Bookings() {
			if b.Key == k {
				return true
			}
		}
		return false
	}

	verdict(0) // short 2
	pr := waitProvReqs(t, ctx, env, "llm", "for 2 members", oneRequestFor(2))[0]
	setProvisioned(t, ctx, env, pr.Name, "gpu-heavy pool adding 2 nodes", "n-0", "n-1")
	w.Sync(ctx)
	if !booked() {
		t.Fatal("no booking once the request is Provisioned")
	}

	// The two nodes have come: the gang fits, and keeps request and booking.
	verdict(2)
	if prs := provReqs(t, ctx, env); prs[pr.Name].UID != pr.UID || !booked() {
		t.Fatalf("request %s kept: %v, booking kept: %v; want both while the quorum has not bound", pr.Name, prs[pr.Name].UID == pr.UID, booked())
	}

	// The autoscaler's booking time runs out: the wait ends.
	setProvReqCondition(t, ctx, env, pr.Name, metav1.Condition{Type: autoscalingv1.BookingExpired, Status: metav1.ConditionTrue, Reason: "BookingTimeout", Message: "pods did not bind in time"})
	verdict(2)
	waitProvReqs(t, ctx, env, "llm", "dropped", noRequest)
	if booked() {
		t.Fatal("booking kept after it expired")
	}
}

// A request that ends while its gang is still short (deleted, Failed, its
// booking expired) is replaced by a new one after a backoff, which doubles
// and starts afresh once a request is served; meanwhile the members consume
// no dead request and the gang's status says what happened. A CRD-free
// gang's request is owned by several members, so that the garbage
// collector does not take it with one. The writer runs alone here.
func TestEndedRequestIsReplaced(t *testing.T) {
	ctx, env := controlPlane(t)
	pods, dyn := unservedPair(t, ctx, env)
	k := gang.Key{Namespace: ns, Name: "llm"}
	var last metav1.Condition
	// The writer's backoffs run on the test's clock, which moves only when
	// the test moves it: how long a backoff took is the writer's choice,
	// not the machine's speed.
	now, advance := writerClock()
	marks := podWriter(ctx, env)
	w, err := provisioning.NewWriter(env.Client, dyn, marks, provisioning.Options{Members: func(gang.Key) []*v1.Pod { return pods() },
		Synced: func() bool { return true }, Report: func(_ gang.Key, c metav1.Condition) { last = c }, Period: time.Hour,
		Backoff: provisioning.Backoff{First: time.Second, Ceiling: 4 * time.Second, NeverFitsCeiling: 8 * time.Second}, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	shortOf := func(n int64) {
		w.Set(shortPair(k, pods()[0], n))
		w.Sync(ctx)
	}
	short := func() { shortOf(2) }
	only := func() autoscalingv1.ProvisioningRequest {
		t.Helper()
		prs := waitProvReqs(t, ctx, env, "llm", "one request", func(prs []autoscalingv1.ProvisioningRequest) bool { return len(prs) == 1 })
		return prs[0]
	}
	// consumes waits for the members' marks, which the pod writer sends
	// off the writer's loop.
	consumes := func(want string) {
		t.Helper()
		var wrong string
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			wrong = ""
			for _, p := range pods() {
				if got := p.Annotations[autoscalingv1.ConsumeAnnotation]; got != want {
					wrong = fmt.Sprintf("%s consumes %q, want %q", p.Name, got, want)
				}
			}
			if wrong == "" {
				return
			}
			if time.Now().After(deadline) {
				t.Fatal(wrong)
			}
		}
	}
	var retryingMessage string
	// retried runs the writer until the request ended for why is replaced,
	// checking what holds meanwhile (the members consume held until the
	// replacement: the ended request itself when it failed or is gone,
	// the hold name when its booking expired, since Muster's autoscaler
	// still counts room for that request's consumers); it returns the
	// replacement and how long the backoff took.
	retried := func(ended, why, held string) (autoscalingv1.ProvisioningRequest, time.Duration) {
		t.Helper()
		start := now()
		written := marks.Writes()
		short()
		if last.Reason != provisioning.ReasonRetrying || !strings.Contains(last.Message, why) {
			t.Fatalf("after %s %s: condition %s %q, want %s mentioning %q", ended, why, last.Reason, last.Message, provisioning.ReasonRetrying, why)
		}
		retryingMessage = last.Message
		for marks.Unwritten() > 0 {
			time.Sleep(10 * time.Millisecond) // bounded by the test's timeout
		}
		if held == ended && marks.Writes() != written {
			t.Errorf("the members of a gang whose request %s %s were marked again (%d writes), want them left consuming it", ended, why, marks.Writes()-written)
		}
		consumes(held)
		for {
			short()
			prs := provReqs(t, ctx, env)
			if _, still := prs[ended]; !still && len(prs) == 1 {
				for _, pr := range prs {
					consumes(pr.Name)
					return pr, now().Sub(start)
				}
			}
			if now().Sub(start) > 20*time.Second {
				t.Fatalf("request %s (%s) not replaced in 20s; requests %v", ended, why, prs)
			}
			advance(100 * time.Millisecond)
		}
	}

	short()
	r0 := only()
	consumes(r0.Name)
	// A Sync whose context has ended writes nothing, and does not trip on
	// the reads it never made (it once dereferenced them).
	ended, cancel := context.WithCancel(ctx)
	cancel()
	w.Sync(ended)
	if prs := provReqs(t, ctx, env); len(prs) != 1 {
		t.Fatalf("after a Sync whose context had ended: requests %v, want %s alone", prs, r0.Name)
	}
	if len(r0.OwnerReferences) != 2 {
		t.Fatalf("a CRD-free gang's request has owners %v, want both members", r0.OwnerReferences)
	}

	// Deleted by someone: replaced after the first backoff.
	if err := dyn.Resource(autoscalingv1.Resource).Namespace(ns).Delete(ctx, r0.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	r1, _ := retried(r0.Name, "was deleted", r0.Name)
	if r1.Name == r0.Name {
		t.Fatalf("replacement kept the name %s", r0.Name)
	}

	// Failed because no pool could ever hold the gang: replaced only after
	// the ceiling of the backoff (while a request lives, the autoscaler
	// keeps the nodes the gang counts on), even when the shortfall changes
	// meanwhile (room freed): a failure is not retried sooner under
	// another name.
	setProvReqCondition(t, ctx, env, r1.Name, metav1.Condition{Type: autoscalingv1.Failed, Status: metav1.ConditionTrue, Reason: provisioning.ReasonNeverFits, Message: "gpu-heavy: 8 nodes at max hold 8"})
	if _, _, never := w.NeverFits(k); never {
		t.Error("a gang whose deleted request was replaced is taken as one no pool can hold")
	}
	shortOf(1)
	if prs := provReqs(t, ctx, env); len(prs) != 1 {
		t.Fatalf("a new request came at once for a changed shortfall after a failure: %v", prs)
	}
	// Until its replacement is due MusterGang may park the gang's lead.
	if why, due, never := w.NeverFits(k); !never || !strings.Contains(why, "8 nodes at max hold 8") || !due.After(now()) {
		t.Errorf("NeverFits after a request failed so: %q due %v, %t; want the autoscaler's answer, due later", why, due, never)
	}
	r2, took := retried(r1.Name, "failed: gpu-heavy: 8 nodes at max hold 8", r1.Name)
	if took < 4*time.Second {
		t.Errorf("a request no pool could ever hold replaced after %s, want the ceiling of 4s", took)
	}
	if _, _, never := w.NeverFits(k); never {
		t.Error("a gang whose request no pool could hold was replaced: still taken as one no pool can hold")
	}
	// Failed so again: the backoff doubles past the ceiling, up to the
	// never-fits ceiling of 8s (read from the condition's due time).
	setProvReqCondition(t, ctx, env, r2.Name, metav1.Condition{Type: autoscalingv1.Failed, Status: metav1.ConditionTrue, Reason: provisioning.ReasonNeverFits, Message: "gpu-heavy: 8 nodes at max hold 8"})
	noticed := now()
	r2, _ = retried(r2.Name, "failed: gpu-heavy: 8 nodes at max hold 8", r2.Name)
	if wait := dueIn(t, retryingMessage).Sub(noticed); wait < 7*time.Second {
		t.Errorf("a request no pool could hold, failed so twice, due for replacement %s after its end, want the never-fits ceiling of 8s", wait.Round(time.Second))
	}

	// Failed so a third time, and due while MusterGang keeps the gang's
	// lead parked, so that no verdict comes: the replacement waits for the
	// lead's next verdict. Written from the verdict of before (nodes may
	// have come meanwhile), it was replaced again at once by the one that
	// verdict named.
	setProvReqCondition(t, ctx, env, r2.Name, metav1.Condition{Type: autoscalingv1.Failed, Status: metav1.ConditionTrue, Reason: provisioning.ReasonNeverFits, Message: "gpu-heavy: 8 nodes at max hold 8"})
	_, due, never := w.NeverFits(k)
	for start := now(); !never; _, due, never = w.NeverFits(k) {
		if now().Sub(start) > 20*time.Second {
			t.Fatalf("the writer did not see request %s fail in 20s", r2.Name)
		}
		advance(100 * time.Millisecond)
		w.Sync(ctx)
	}
	for !now().After(due.Add(2 * time.Second)) {
		advance(500 * time.Millisecond)
		w.Sync(ctx)
	}
	if _, _, never := w.NeverFits(k); never {
		t.Errorf("past its replacement's due time, %s is still taken as a gang no pool can hold", k)
	}
	if prs := provReqs(t, ctx, env); len(prs) != 1 || prs[r2.Name].Name == "" {
		t.Fatalf("request %s, failed, was due for replacement and no verdict came since: requests %v, want %s alone", r2.Name, slices.Sorted(maps.Keys(prs)), r2.Name)
	}
	for start := now(); ; advance(100 * time.Millisecond) {
		short() // the lead's attempt, let through at the due time
		if prs := provReqs(t, ctx, env); len(prs) == 1 && prs[r2.Name].Name == "" {
			for _, pr := range prs {
				r2 = pr
			}
			break
		}
		if now().Sub(start) > 20*time.Second {
			t.Fatalf("request %s not replaced in 20s after a verdict came", r2.Name)
		}
	}
	consumes(r2.Name)

	// Served, then its booking expired: the backoff starts afresh. The
	// replacement's due time, as the gang's condition gives it, says which
	// backoff the writer chose (1s afresh, 4s had it doubled again), so a
	// slow machine does not make the check fail, as timing the wait did.
	setProvisioned(t, ctx, env, r2.Name, "gpu-heavy pool adding 2 nodes")
	short()
	setProvReqCondition(t, ctx, env, r2.Name, metav1.Condition{Type: autoscalingv1.BookingExpired, Status: metav1.ConditionTrue, Reason: "CapacityReservationTimeExpired", Message: "released"})
	noticed = now()
	retried(r2.Name, "ended its booking", provisioning.HoldName(k))
	if wait := dueIn(t, retryingMessage).Sub(noticed); wait >= 3*time.Second {
		t.Errorf("replacement after a served request due %s after its end, want the first backoff of 1s", wait.Round(time.Second))
	}
}

// A request Muster's autoscaler failed because no pool could ever hold the
// gang, recording the pools it judged that on, is not retried at the
// never-fits ceiling but at the backstop, or as soon as the autoscaler
// flags the pools changed, or the gang's PodGroup changes
// (RetryNeverFits); the replacement is written from the lead's next
// verdict. A week of the simulator's trace otherwise ended with 168 such
// gangs, each written again and failed again every hour.
func TestNeverFitsWaitsForThePoolsToChange(t *testing.T) {
	ctx, env := controlPlane(t)
	pods, dyn := unservedPair(t, ctx, env)
	k := gang.Key{Namespace: ns, Name: "llm"}
	now, advance := writerClock()
	w := newWriter(t, ctx, env, dyn, provisioning.Options{Members: func(gang.Key) []*v1.Pod { return pods() }, Period: time.Hour,
		Backoff: provisioning.Backoff{First: time.Second, Ceiling: 4 * time.Second, NeverFitsCeiling: 8 * time.Second, NeverFitsBackstop: time.Hour}, Now: now})
	short := func() {
		w.Set(shortPair(k, pods()[0], 2))
		w.Sync(ctx)
	}
	only := func() autoscalingv1.ProvisioningRequest {
		t.Helper()
		prs := provReqs(t, ctx, env)
		if len(prs) != 1 {
			t.Fatalf("requests %v, want one", slices.Sorted(maps.Keys(prs)))
		}
		for _, pr := range prs {
			return pr
		}
		panic("unreachable")
	}
	details := func(name string, d map[string]string) {
		t.Helper()
		patch, _ := json.Marshal(map[string]any{"status": map[string]any{"provisioningClassDetails": d}})
		if _, err := dyn.Resource(autoscalingv1.Resource).Namespace(ns).Patch(ctx, name, "application/merge-patch+json", patch, metav1.PatchOptions{}, "status"); err != nil {
			t.Fatal(err)
		}
	}
	failWatched := func(name string) time.Time {
		t.Helper()
		setProvReqCondition(t, ctx, env, name, metav1.Condition{Type: autoscalingv1.Failed, Status: metav1.ConditionTrue, Reason: provisioning.ReasonNeverFits, Message: "gpu-heavy: 8 nodes at max hold 8"})
		details(name, map[string]string{contract.DetailPoolsAtFailure: "0123456789abcdef"})
		short()
		_, due, never := w.NeverFits(k)
		if !never || due.Sub(now()) < 59*time.Minute {
			t.Fatalf("after %s failed as never fitting, its pools recorded: NeverFits %v due in %s, want due at the backstop of 1h", name, never, due.Sub(now()))
		}
		return due
	}
	// replacedAfterVerdict: once due, the lead's next verdict has the
	// request replaced.
	replacedAfterVerdict := func(old string) autoscalingv1.ProvisioningRequest {
		t.Helper()
		if _, _, never := w.NeverFits(k); never {
			t.Fatalf("%s's replacement is not due", old)
		}
		advance(time.Millisecond)
		short()
		pr := only()
		if pr.Name == old {
			t.Fatalf("%s not replaced once due and a verdict came", old)
		}
		return pr
	}

	short()
	r0 := only()
	failWatched(r0.Name)
	// Past the never-fits ceiling the request stands: nothing says the
	// pools changed.
	advance(time.Minute)
	short()
	if pr := only(); pr.Name != r0.Name {
		t.Fatalf("%s replaced by %s a minute after it failed, its pools unchanged", r0.Name, pr.Name)
	}
	// The autoscaler flags the pools changed: due at once.
	details(r0.Name, map[string]string{contract.DetailPoolsChanged: "true"})
	w.Sync(ctx)
	r1 := replacedAfterVerdict(r0.Name)

	// Failed so again; the gang's PodGroup changes: due at once too.
	failWatched(r1.Name)
	w.RetryNeverFits(k)
	replacedAfterVerdict(r1.Name)
}

// The CRD caps a podSet's count, so that one request cannot make an
// autoscaler build millions of pods in memory.
func TestRequestCountIsCapped(t *testing.T) {
	ctx, env := controlPlane(t)
	dyn, err := dynamic.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	create := func(count int32) error {
		pr := &autoscalingv1.ProvisioningRequest{
			TypeMeta:   metav1.TypeMeta{APIVersion: autoscalingv1.GroupVersion.String(), Kind: "ProvisioningRequest"},
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("r-%d", count), Namespace: ns},
			Spec: autoscalingv1.ProvisioningRequestSpec{ProvisioningClassName: autoscalingv1.ClassBestEffortAtomicScaleUp,
				PodSets: []autoscalingv1.PodSet{{PodTemplateRef: autoscalingv1.Reference{Name: "t"}, Count: count}}},
		}
		obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pr)
		if err != nil {
			t.Fatal(err)
		}
		_, err = dyn.Resource(autoscalingv1.Resource).Namespace(ns).Create(ctx, &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{})
		return err
	}
	if err := create(10000); err != nil {
		t.Fatalf("count 10000 refused: %v", err)
	}
	if err := create(10001); err == nil || !strings.Contains(err.Error(), "spec.podSets[0].count") {
		t.Fatalf("count 10001: %v, want the API server to refuse spec.podSets[0].count", err)
	}
}

// podWriter is a running writer of member marks on the test's client.
// newWriter is a ProvisioningRequest writer on env with options o, its
// members' informer taken as synced. Its requests' informer is not
// started (Writer.Start): each Sync reads them from the API, so a test's
// write is seen by the next Sync.
func newWriter(t *testing.T, ctx context.Context, env *controlplane.Env, dyn dynamic.Interface, o provisioning.Options) *provisioning.Writer {
	t.Helper()
	o.Synced = func() bool { return true }
	w, err := provisioning.NewWriter(env.Client, dyn, podWriter(ctx, env), o)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func podWriter(ctx context.Context, env *controlplane.Env) *podpatch.Writer {
	w := podpatch.NewForClient(env.Client)
	go w.Run(ctx, 1)
	return w
}

// A standby that becomes the leader adopts the requests the previous leader
// wrote since the standby started, so replacing the gang's request leaves
// one, not orphans the autoscaler would go on serving (make chaos, seed 13:
// a leader killed just after asking for a gang's nodes; its request later
// booked four idle nodes past the leak bound). Of two requests of one gang
// found on taking over (the old leader wrote a replacement and died before
// deleting the first), the newest is kept, the other withdrawn.
func TestNewLeaderAdoptsTheRequestsOfTheOld(t *testing.T) {
	ctx, env := controlPlane(t)
	read, dyn := unservedPair(t, ctx, env)
	pods := read()
	k := gang.Key{Namespace: ns, Name: "llm"}
	var leader atomic.Int32
	leader.Store(1)
	writer := func(id int32) *provisioning.Writer {
		return newWriter(t, ctx, env, dyn, provisioning.Options{Members: func(gang.Key) []*v1.Pod { return pods }, Period: time.Hour,
			Leading: func() bool { return leader.Load() == id }})
	}
	short := func(w *provisioning.Writer, n int64) {
		w.Set(shortPair(k, pods[0], n))
		w.Sync(ctx)
	}
	old, standby := writer(1), writer(2)
	standby.Sync(ctx) // a standby writes nothing and knows nothing yet
	short(old, 2)
	first := waitProvReqs(t, ctx, env, "llm", "the old leader's request", oneRequestFor(2))[0]
	// The old leader's replacement, written just before it died.
	time.Sleep(1100 * time.Millisecond) // creation timestamps have second resolution
	u, err := dyn.Resource(autoscalingv1.Resource).Namespace(ns).Get(ctx, first.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	u.SetName(first.Name + "-next")
	u.SetResourceVersion("")
	u.SetUID("")
	unstructured.RemoveNestedField(u.Object, "status")
	if _, err := dyn.Resource(autoscalingv1.Resource).Namespace(ns).Create(ctx, u, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	// The standby takes over, with another shortfall.
	leader.Store(2)
	short(standby, 1)
	prs := provReqs(t, ctx, env)
	if len(prs) != 1 {
		var names []string
		for name := range prs {
			names = append(names, name)
		}
		t.Fatalf("requests after the takeover: %v, want only the new leader's", names)
	}
	for name := range prs {
		if name == first.Name || name == first.Name+"-next" {
			t.Fatalf("request %s kept for a changed shortfall", name)
		}
	}
}

// unservedPair creates the CRD-free gang llm of two 8-GPU members that no
// scheduler serves (they stay pending), for tests that drive the hint writer
// alone; it returns a function reading the members afresh, and a dynamic
// client for the writer.
func unservedPair(t *testing.T, ctx context.Context, env *controlplane.Env) (func() []*v1.Pod, dynamic.Interface) {
	t.Helper()
	members := []controlplane.Member{{Namespace: ns, Name: "llm-0", Scheduler: "nobody", GPUs: 8}, {Namespace: ns, Name: "llm-1", Scheduler: "nobody", GPUs: 8}}
	if err := controlplane.CreatePods(ctx, env.Client, members...); err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	return func() []*v1.Pod {
		var out []*v1.Pod
		for _, m := range members {
			p, err := env.Client.CoreV1().Pods(ns).Get(ctx, m.Name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, p)
		}
		return out
	}, dyn
}

// shortPair is the writer's input for unservedPair's gang with n of its two
// members short of room.
func shortPair(k gang.Key, member *v1.Pod, n int64) provisioning.Want {
	return provisioning.Want{Key: k, Min: 2, Source: gang.SourceLabels,
		Sets:    []provisioning.Set{{Member: member, Count: n, GPUs: 8, Shape: "8 GPUs"}},
		Verdict: shortfall.Decide(shortfall.Facts{Min: 2, Max: 2, Exists: 2, Room: map[string]int64{"": 2 - n}})}
}

// dueIn reads when a Retrying condition's message says the next request follows.
func dueIn(t *testing.T, message string) time.Time {
	t.Helper()
	_, dueText, ok := strings.Cut(message, "a new request follows at ")
	if !ok {
		t.Fatalf("Retrying condition %q names no due time", message)
	}
	due, err := time.Parse(time.RFC3339, dueText)
	if err != nil {
		t.Fatalf("Retrying condition %q: %v", message, err)
	}
	return due
}

// The hint writer reads the live requests from its informer: no list or
// GET of them per sync (a list each second decoded every request, the
// largest part of a day-long replay's hint cost; a GET per request read
// each from etcd), and it still sees the autoscaler's answer.
func TestHintWriterReadsRequestsFromItsInformer(t *testing.T) {
	ctx, env, sched := setup(t, controlplane.GangArgs{BackoffSeconds: 1})
	pr := shortGangRequest(t, ctx, env, "llm", 2, 5)
	syncs := func(n int) {
		t.Helper()
		for range n {
			begun, _, _ := sched.HintSyncs()
			sched.KickHints()
			if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
				_, done, _ := sched.HintSyncs()
				return done > begun, nil
			}); err != nil {
				t.Fatalf("no hint sync began after a kick: %v", err)
			}
		}
	}
	etcdGets := func() float64 {
		return metric(t, "etcd_requests_total", map[string]string{"operation": "get", "resource": "provisioningrequests"})
	}
	lists := func() float64 {
		return metric(t, "apiserver_request_total", map[string]string{"verb": "LIST", "resource": "provisioningrequests"})
	}
	syncs(1)
	gets, listed := etcdGets(), lists()
	syncs(3)
	if got := etcdGets() - gets; got != 0 {
		t.Errorf("three hint syncs read ProvisioningRequests from etcd %v times, want 0", got)
	}
	if got := lists() - listed; got != 0 {
		t.Errorf("three hint syncs listed ProvisioningRequests %v times, want 0 (the informer has them)", got)
	}
	setProvReqCondition(t, ctx, env, pr.Name, metav1.Condition{Type: autoscalingv1.Provisioned, Status: metav1.ConditionTrue, Reason: "Provisioned", Message: "heavy-gpu pool adding 3 nodes"})
	waitExtraCondition(t, ctx, env, "llm", provisioning.ConditionCapacity, provisioning.ReasonProvisioned, "heavy-gpu pool adding 3 nodes")
}

// A gang whose sync would change nothing is not reconciled again until
// what it acts on changes: its verdict, its live request, its members, or
// the time its replacement is due (and at the latest after a resync). A
// backlog of gangs no pool can serve otherwise cost every sync a read and
// a reconcile each. The writer reads its requests from its informer here,
// as in muster-scheduler.
func TestHintWriterSkipsUnchangedGangs(t *testing.T) {
	ctx, env := controlPlane(t)
	listed, dyn := unservedPair(t, ctx, env)
	pods := listed()
	k := gang.Key{Namespace: ns, Name: "llm"}
	now, advance := writerClock()
	var reports []metav1.Condition
	w := newWriter(t, ctx, env, dyn, provisioning.Options{Members: func(gang.Key) []*v1.Pod { return pods },
		Report: func(_ gang.Key, c metav1.Condition) { reports = append(reports, c) }, Period: time.Hour, Now: now,
		Backoff: provisioning.Backoff{First: time.Second, Ceiling: 4 * time.Second, NeverFitsCeiling: 8 * time.Second}})
	// The informer's watch ends before the API server, which would wait
	// for it.
	informing, stop := context.WithCancel(ctx)
	t.Cleanup(stop)
	w.Start(informing)
	// seen waits until the writer's informer has seen every request as
	// the API server has it now.
	seen := func() {
		t.Helper()
		list, err := dyn.Resource(autoscalingv1.Resource).Namespace(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var newest int64
		for _, u := range list.Items {
			if v, _ := strconv.ParseInt(u.GetResourceVersion(), 10, 64); v > newest {
				newest = v
			}
		}
		if err := wait.PollUntilContextTimeout(ctx, 5*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
			rv, informed := w.RequestsSeen()
			v, _ := strconv.ParseInt(rv, 10, 64)
			return informed && v >= newest, nil
		}); err != nil {
			t.Fatalf("the writer's informer did not see ProvisioningRequests at %d: %v", newest, err)
		}
	}
	// reconciled syncs once and says whether the gang was reconciled (it
	// reports the gang's condition each time it is).
	reconciled := func() bool {
		t.Helper()
		seen()
		n := len(reports)
		w.Sync(ctx)
		return len(reports) > n
	}
	w.Set(shortPair(k, pods[0], 2))
	reconciled()
	pr := onlyRequest(t, ctx, env)
	// Not answered yet: reconciled each sync (an unanswered request turns,
	// in time, into "no autoscaler serves ProvisioningRequests here").
	for i := range 2 {
		if !reconciled() {
			t.Fatalf("sync %d: a gang whose request no autoscaler answered yet was skipped", i+1)
		}
	}
	setProvReqCondition(t, ctx, env, pr.Name, metav1.Condition{Type: autoscalingv1.Provisioned, Status: metav1.ConditionFalse, Reason: "Pending", Message: "waiting for the next loop"})
	if !reconciled() {
		t.Fatal("the autoscaler's answer was not reconciled")
	}
	if reconciled() {
		t.Fatal("a gang whose verdict, request and members did not change was reconciled again")
	}
	// The same verdict again changes nothing; a new one does.
	w.Set(shortPair(k, pods[0], 2))
	if reconciled() {
		t.Fatal("the same verdict set again had the gang reconciled")
	}
	w.Set(shortPair(k, pods[0], 1))
	if !reconciled() {
		t.Fatal("a new verdict was not reconciled")
	}
	// It asked for another request, which the autoscaler answers.
	if got := onlyRequest(t, ctx, env); got.Name == pr.Name {
		t.Fatalf("request %s for 2 members kept for a shortfall of 1", pr.Name)
	} else {
		pr = got
	}
	setProvReqCondition(t, ctx, env, pr.Name, metav1.Condition{Type: autoscalingv1.Provisioned, Status: metav1.ConditionFalse, Reason: "Pending", Message: "waiting for the next loop"})
	if !reconciled() {
		t.Fatal("the autoscaler's answer to the new request was not reconciled")
	}
	if reconciled() {
		t.Fatal("reconciled again with nothing changed since the new request's answer")
	}
	// A member changed.
	p, err := env.Client.CoreV1().Pods(ns).Get(ctx, pods[1].Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.Annotations = map[string]string{"touched": "yes"}
	if p, err = env.Client.CoreV1().Pods(ns).Update(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	pods = []*v1.Pod{pods[0], p}
	if !reconciled() {
		t.Fatal("a member's change was not reconciled")
	}
	// Failed: the replacement is due after the first backoff; skipped
	// until then, replaced once it is due.
	setProvReqCondition(t, ctx, env, pr.Name, metav1.Condition{Type: autoscalingv1.Failed, Status: metav1.ConditionTrue, Reason: "ScaleUpFailed", Message: "quota exceeded"})
	if !reconciled() || reports[len(reports)-1].Reason != provisioning.ReasonRetrying {
		t.Fatalf("a failed request: reported %+v, want %s", reports[len(reports)-1], provisioning.ReasonRetrying)
	}
	// That sync began the backoff (the writer's state of the gang
	// changed): the next one runs again and changes nothing.
	if !reconciled() {
		t.Fatal("not reconciled after the sync that began its backoff")
	}
	if reconciled() {
		t.Fatal("reconciled again while its replacement was not due")
	}
	advance(time.Second)
	if !reconciled() {
		t.Fatal("not reconciled once its replacement was due")
	}
	if got := onlyRequest(t, ctx, env); got.Name == pr.Name {
		t.Fatalf("request %s not replaced once due", pr.Name)
	}
	// A resync reconciles even what did not change.
	setProvReqCondition(t, ctx, env, onlyRequest(t, ctx, env).Name, metav1.Condition{Type: autoscalingv1.Provisioned, Status: metav1.ConditionFalse, Reason: "Pending", Message: "waiting for the next loop"})
	reconciled()
	if reconciled() {
		t.Fatal("reconciled again with nothing changed")
	}
	advance(6 * time.Minute)
	if !reconciled() {
		t.Fatal("not reconciled after the resync")
	}
}

// writerClock is a clock for a writer's backoffs that moves only when the
// test moves it (advance): how long a backoff took is the writer's choice,
// not the machine's speed.
func writerClock() (now func() time.Time, advance func(time.Duration)) {
	var mu sync.Mutex
	at := time.Now()
	return func() time.Time { mu.Lock(); defer mu.Unlock(); return at },
		func(d time.Duration) { mu.Lock(); defer mu.Unlock(); at = at.Add(d) }
}

// onlyRequest waits until the namespace has exactly one ProvisioningRequest and returns it.
func onlyRequest(t *testing.T, ctx context.Context, env *controlplane.Env) autoscalingv1.ProvisioningRequest {
	t.Helper()
	return waitProvReqs(t, ctx, env, "llm", "one request", func(prs []autoscalingv1.ProvisioningRequest) bool { return len(prs) == 1 })[0]
}
