// Integration test of the shipped admission policy: the scheduler may patch only the annotations it writes and a pod's status conditions; other users are not affected.

package integration

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/muster-project/muster/manifests"
	autoscalingv1 "github.com/muster-project/muster/pkg/apis/autoscaling/v1"
	"github.com/muster-project/muster/pkg/controlplane"
	"github.com/muster-project/muster/pkg/gang"
)

// TestSchedulerPodPatchesAreLimited: with the shipped admission policy, the
// scheduler's service account may patch a pod's autoscaler annotations and
// its status conditions, and nothing else; other users are not affected.
func TestSchedulerPodPatchesAreLimited(t *testing.T) {
	ctx, env := controlPlane(t)
	installAdmissionPolicy(t, ctx, env)
	pod := controlplane.LabelMembers(ns, "vap", 1, 8, 1, 1)[0].Pod()
	if _, err := env.Client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	const identity = "system:serviceaccount:muster-system:muster-scheduler"
	sched := impersonating(t, env, identity)
	patch := func(c kubernetes.Interface, body string, sub ...string) error {
		_, err := c.CoreV1().Pods(ns).Patch(ctx, pod.Name, types.MergePatchType, []byte(body), metav1.PatchOptions{}, sub...)
		return err
	}
	// The policy takes a moment to be loaded: wait until it denies. Each
	// probe changes the label anew: a patch that changes nothing skips
	// admission, so repeating one that got in before the policy never would.
	denied := `{"metadata":{"labels":{"team":"b"}}}`
	probes := 0
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		probes++
		return patch(sched, fmt.Sprintf(`{"metadata":{"labels":{"probe":"%d"}}}`, probes)) != nil, nil
	}); err != nil {
		t.Fatal("the scheduler could still change a pod's labels after 30s")
	}
	for _, tc := range []struct {
		name, body, sub, wantErr string
	}{
		{name: "consume annotation", body: `{"metadata":{"annotations":{"autoscaling.x-k8s.io/consume-provisioning-request":"muster-vap-1","autoscaling.x-k8s.io/provisioning-class-name":"best-effort-atomic-scale-up.autoscaling.x-k8s.io"}}}`},
		{name: "safe-to-evict", body: `{"metadata":{"annotations":{"cluster-autoscaler.kubernetes.io/safe-to-evict":"false"}}}`},
		{name: "stranded since", body: `{"metadata":{"annotations":{"muster.dev/stranded-since":"2026-01-01T00:00:00.000Z"}}}`},
		{name: "consume annotation removed", body: `{"metadata":{"annotations":{"autoscaling.x-k8s.io/consume-provisioning-request":null}}}`},
		{name: "gated condition", sub: "status", body: `{"status":{"conditions":[{"type":"PodScheduled","status":"False","reason":"SchedulingGated","message":"gang waits"}]}}`},
		{name: "nominated node", sub: "status", body: `{"status":{"nominatedNodeName":"gpu-0"}}`},
		{name: "marks and a condition in one status patch", sub: "status", body: `{"metadata":{"annotations":{"autoscaling.x-k8s.io/consume-provisioning-request":"muster-vap-2"}},"status":{"conditions":[{"type":"PodScheduled","status":"False","reason":"Unschedulable","message":"gang waits"}]}}`},
		{name: "another annotation through status", sub: "status", body: `{"metadata":{"annotations":{"example.com/owner":"me"}}}`, wantErr: "not example.com/owner"},
		{name: "a label through status", sub: "status", body: `{"metadata":{"labels":{"probe":"status"}}}`, wantErr: "may not change a pod's labels"},
		{name: "a label", body: denied, wantErr: "may not change a pod's labels"},
		{name: "another annotation", body: `{"metadata":{"annotations":{"example.com/owner":"me"}}}`, wantErr: "not example.com/owner"},
		{name: "a Muster and another annotation", body: `{"metadata":{"annotations":{"cluster-autoscaler.kubernetes.io/safe-to-evict":"true","muster.dev/max-member":"9"}}}`, wantErr: "not muster.dev/max-member"},
		{name: "the phase", sub: "status", body: `{"status":{"phase":"Failed"}}`, wantErr: "only a pod's status conditions"},
		{name: "the pod IP", sub: "status", body: `{"status":{"podIP":"10.0.0.9","podIPs":[{"ip":"10.0.0.9"}]}}`, wantErr: "only a pod's status conditions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sub []string
			if tc.sub != "" {
				sub = []string{tc.sub}
			}
			err := patch(sched, tc.body, sub...)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("denied: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("err %v, want one mentioning %q", err, tc.wantErr)
			}
		})
	}
	if err := patch(env.Client, denied); err != nil {
		t.Errorf("the policy limits other users too: %v", err)
	}

	// The scheduler itself, under that identity, does all it needs: a gang
	// one node short gets its request and consume marks, then binds and is
	// marked for scale-down.
	kc, err := env.KubeconfigAs(identity)
	if err != nil {
		t.Fatal(err)
	}
	s, err := env.StartScheduler(ctx, controlplane.MusterConfig(kc, controlplane.GangArgs{BackoffSeconds: 1, StatusSyncMillis: 100}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	// One node for the pod patched above (a gang of one), one for the gang.
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 2, 8); err != nil {
		t.Fatal(err)
	}
	topoGang(t, ctx, env, "llm", 2, 8, 2, 2)
	waitProvReqs(t, ctx, env, "llm", "a request for the gang", func(prs []autoscalingv1.ProvisioningRequest) bool { return len(prs) == 1 })
	waitPod(t, ctx, env, "llm-0", "consume mark", func(p *v1.Pod) bool { return p.Annotations[autoscalingv1.ConsumeAnnotation] != "" })
	if err := controlplane.CreateNodes(ctx, env.Client, "more", 1, 8); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.GroupLabel, "llm", 2)
	waitPod(t, ctx, env, "llm-1", "safe-to-evict mark", func(p *v1.Pod) bool { return p.Annotations[gang.SafeToEvictAnnotation] == "false" })
}

// installAdmissionPolicy creates the shipped policy and its binding.
func installAdmissionPolicy(t *testing.T, ctx context.Context, env *controlplane.Env) {
	t.Helper()
	for _, doc := range bytes.Split(manifests.SchedulerAdmission, []byte("\n---\n")) {
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			t.Fatal(err)
		}
		switch meta.Kind {
		case "ValidatingAdmissionPolicy":
			var p admissionv1.ValidatingAdmissionPolicy
			if err := yaml.UnmarshalStrict(doc, &p); err != nil {
				t.Fatal(err)
			}
			if _, err := env.Client.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, &p, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		case "ValidatingAdmissionPolicyBinding":
			var b admissionv1.ValidatingAdmissionPolicyBinding
			if err := yaml.UnmarshalStrict(doc, &b); err != nil {
				t.Fatal(err)
			}
			if _, err := env.Client.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Create(ctx, &b, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("unexpected object %q in the admission manifest", meta.Kind)
		}
	}
	// A policy whose expressions do not type-check is reported in its status
	// (by a controller the test API server may not run).
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 3*time.Second, true, func(ctx context.Context) (bool, error) {
		p, err := env.Client.AdmissionregistrationV1().ValidatingAdmissionPolicies().Get(ctx, "muster-scheduler-pod-patches", metav1.GetOptions{})
		if err != nil || p.Status.TypeChecking == nil {
			return false, nil
		}
		for _, w := range p.Status.TypeChecking.ExpressionWarnings {
			t.Errorf("policy expression %s: %s", w.FieldRef, w.Warning)
		}
		return true, nil
	}); err != nil {
		return // not reported: the patches below show whether it works
	}
}
