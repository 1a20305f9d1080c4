// Test that a PodGroup status write the API server refused is tried again although the gang brings no further change.

package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"github.com/muster-project/muster/pkg/controlplane"
	"github.com/muster-project/muster/pkg/gang"
)

// A status write the API server refuses is tried again at the next flush:
// a gang whose members are all bound brings no change that would sync it
// again, and its PodGroup kept the status of before (a Preempting condition
// once cleared, still shown). A ValidatingAdmissionPolicy refuses the
// PodGroup's status writes while a ConfigMap names it; the ConfigMap then
// stops naming it, which the gang does not see.
func TestRefusedStatusWriteIsRetried(t *testing.T) {
	ctx, env := controlPlane(t)
	deny := &v1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "deny-status"}, Data: map[string]string{"podGroup": "mixed"}}
	if _, err := env.Client.CoreV1().ConfigMaps(ns).Create(ctx, deny, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "deny-podgroup-status"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			ParamKind:     &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"},
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Update},
					Rule: admissionregistrationv1.Rule{APIGroups: []string{"scheduling.x-k8s.io"}, APIVersions: []string{"v1alpha1"},
						Resources: []string{"podgroups/status"}},
				},
			}}},
			Validations: []admissionregistrationv1.Validation{{
				Expression: "params.data.podGroup != object.metadata.name",
				Message:    "status writes refused by the test",
			}},
		},
	}
	if _, err := env.Client.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, policy, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "deny-podgroup-status"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName: policy.Name,
			ParamRef: &admissionregistrationv1.ParamRef{Name: deny.Name, Namespace: ns,
				ParameterNotFoundAction: ptr.To(admissionregistrationv1.AllowAction)},
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	}
	if _, err := env.Client.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The policy takes effect once the API server has loaded it: until
	// then a write to a gang's status would pass. A probe PodGroup's status
	// write is refused once it has.
	probe := controlplane.PodGroup(ns, "mixed", 3, 0, 0)
	if _, err := env.PodGroups.SchedulingV1alpha1().PodGroups(ns).Create(ctx, probe, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitRefused(t, ctx, env, "mixed")

	sched := startScheduler(t, ctx, env, controlplane.GangArgs{BackoffSeconds: 1})
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 2, 8); err != nil {
		t.Fatal(err)
	}
	// A launcher and two 8-GPU workers.
	members := controlplane.PodGroupMembers(ns, "mixed", 3, 8)
	members[2].Name, members[2].GPUs = "mixed-launcher", 0
	if err := controlplane.CreatePods(ctx, env.Client, members...); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.PodGroupLabel, "mixed", 3)
	waitEvent(t, ctx, env, "PodGroup", "mixed", gang.ReasonAtMax, "3 of max 3")
	// Once the scheduler has seen every change the gang made (binds, its
	// members' marks), nothing touches the gang again: a write refused
	// after that is the writer trying again on its own.
	twice(t, ctx, "the scheduler did not catch up with the API server", func(ctx context.Context) (bool, string) {
		return caught(ctx, env, sched, func(p *v1.Pod) (bool, string) {
			if p.Labels[gang.PodGroupLabel] == "mixed" && p.Annotations[gang.SafeToEvictAnnotation] != "false" {
				return false, p.Name + " not marked safe-to-evict=false yet"
			}
			return true, ""
		})
	})
	refusals := func() float64 {
		return metric(t, "apiserver_validating_admission_policy_check_total", map[string]string{"policy": policy.Name, "enforcement_action": "deny"})
	}
	caught := refusals()
	if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		return refusals() > caught+1, nil
	}); err != nil {
		t.Fatalf("no status write refused after the scheduler caught up (%v refused before): a refused write is not tried again", caught)
	}
	if st, err := podGroupStatus(ctx, env, "mixed"); err != nil || st["phase"] != nil {
		t.Fatalf("PodGroup mixed's status %v (%v) while its writes are refused, want none written", st, err)
	}

	deny.Data["podGroup"] = ""
	if _, err := env.Client.CoreV1().ConfigMaps(ns).Update(ctx, deny, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitCondition(t, ctx, env, "mixed", gang.ReasonAtMax, "3 of max 3")
}

// waitRefused waits until the API server refuses a write to the PodGroup's
// status (the test's admission policy is loaded).
func waitRefused(t *testing.T, ctx context.Context, env *controlplane.Env, name string) {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, last = env.PodGroups.SchedulingV1alpha1().PodGroups(ns).Patch(ctx, name, types.MergePatchType, []byte(`{"status":{"scheduled":0}}`), metav1.PatchOptions{}, "status")
		return last != nil && strings.Contains(last.Error(), "status writes refused by the test"), nil
	})
	if err != nil {
		t.Fatalf("PodGroup %s: status writes not refused by the policy: last %v", name, last)
	}
}
