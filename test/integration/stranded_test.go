// Integration tests of stranded members: a bound member under a gang whose other member never binds is evicted after the timeout, or kept, and the timeout survives a failover.

package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"github.com/muster-project/muster/pkg/controlplane"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/simulate"
)

// failBinds makes the API server refuse to bind the named pods: a
// ValidatingAdmissionPolicy on pods/binding, the way a webhook or an
// apiserver hiccup fails a bind in a real cluster.
func failBinds(t *testing.T, ctx context.Context, env *controlplane.Env, pods ...string) {
	t.Helper()
	names := `["` + strings.Join(pods, `","`) + `"]`
	policy := &admissionv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "test-fail-binds"},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionv1.Fail),
			MatchConstraints: &admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionv1.RuleWithOperations{Operations: []admissionv1.OperationType{admissionv1.Create},
					Rule: admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods/binding"}}},
			}}},
			Validations: []admissionv1.Validation{{Expression: "!(object.metadata.name in " + names + ")", Message: "test: this bind fails"}},
		},
	}
	denyWith(t, ctx, env, policy)
	// Wait until the policy is in force: a bind of a pod that does not exist
	// is refused by it rather than by the missing pod.
	probe := &v1.Binding{ObjectMeta: metav1.ObjectMeta{Name: pods[0], Namespace: "default"}, Target: v1.ObjectReference{Kind: "Node", Name: "nowhere"}}
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		err := env.Client.CoreV1().Pods("default").Bind(ctx, probe, metav1.CreateOptions{})
		return err != nil && strings.Contains(err.Error(), "this bind fails"), nil
	}); err != nil {
		t.Fatalf("bind-failing policy not in force: %v", err)
	}
}

// denyWith creates a test's admission policy and binds it to deny.
func denyWith(t *testing.T, ctx context.Context, env *controlplane.Env, policy *admissionv1.ValidatingAdmissionPolicy) {
	t.Helper()
	if _, err := env.Client.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, policy, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &admissionv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: policy.Name},
		Spec:       admissionv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: policy.Name, ValidationActions: []admissionv1.ValidationAction{admissionv1.Deny}},
	}
	if _, err := env.Client.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestStrandedMembersAreEvicted: one member of a gang of two fails to bind
// every time. The other, bound, is not left holding its GPUs under half a
// gang: once the gang's timeout has passed it is evicted through the
// Eviction API, with a DisruptionTarget condition saying why. With
// strandedMembers: Keep it stays; there the plugins run on a clock the test
// moves past the timeout, so that "stays" is a verdict on what the
// scheduler did once the timeout passed, not on how long the test looked.
func TestStrandedMembersAreEvicted(t *testing.T) {
	for _, policy := range []string{"Evict", "Keep"} {
		t.Run(policy, func(t *testing.T) {
			ctx, env := controlPlane(t)
			failBinds(t, ctx, env, "llm-1")
			args := controlplane.GangArgs{BackoffSeconds: 1, ScheduleTimeoutSeconds: 3, StrandedMembers: policy}
			var sched *controlplane.Scheduler
			var clk *simulate.StepClock
			if policy == "Keep" {
				clk = simulate.NewStepClock(time.Now())
				var err error
				if sched, err = env.StartSchedulerOn(ctx, musterConfig(t, env, args), clk); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(sched.Stop)
			} else {
				startScheduler(t, ctx, env, args)
			}
			kubelet := startKubelet(t, ctx, env)
			if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 2, 8); err != nil {
				t.Fatal(err)
			}
			topoGang(t, ctx, env, "llm", 2, 8, 2, 2)
			waitPod(t, ctx, env, "llm-0", "bound", func(p *v1.Pod) bool { return p.Spec.NodeName != "" })
			if policy == "Keep" {
				// The writers settled first, so that any timer of the
				// gang's is armed before the clock moves past it, and again
				// after. (llm-1, failing to bind, is retried without end:
				// the scheduler as a whole is never quiet here.)
				written(t, ctx, sched)
				clk.StepTo(clk.Now().Add(10 * time.Second))
				written(t, ctx, sched)
				p, err := env.Client.CoreV1().Pods(ns).Get(ctx, "llm-0", metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if _, evicted := kubelet.evicted()["llm-0"]; evicted || p.DeletionTimestamp != nil || p.Spec.NodeName == "" {
					t.Fatalf("llm-0 evicted (%v) or leaving (%v) past the timeout with strandedMembers: Keep", evicted, p.DeletionTimestamp)
				}
				return
			}
			if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
				_, ok := kubelet.evicted()["llm-0"]
				return ok, nil
			}); err != nil {
				t.Fatalf("llm-0, bound alone in a gang of min 2, not evicted: %v", err)
			}
			msg := kubelet.evicted()["llm-0"]
			if !strings.Contains(msg, "had 1 of min 2 members bound since ") || !strings.Contains(msg, "past its timeout of 3s") {
				t.Errorf("llm-0 DisruptionTarget %q, want it to say why", msg)
			}
			waitEvent(t, ctx, env, "Pod", "llm-0", gang.ReasonStranded, "did not join")
		})
	}
}

// written waits until Muster's writers have written all they owe on two
// looks in a row.
func written(t *testing.T, ctx context.Context, sched *controlplane.Scheduler) {
	t.Helper()
	twice(t, ctx, "the scheduler's writers did not settle", func(context.Context) (bool, string) { return sched.Written() })
}

// TestStrandedTimeoutSurvivesAFailover: the scheduler that saw a gang's
// members fall below min stops before their timeout; the one that takes
// over counts the timeout from when they fell, which the first wrote on the
// members, not from when it first saw them, so a failover never stretches
// how long GPUs sit under a partial gang.
func TestStrandedTimeoutSurvivesAFailover(t *testing.T) {
	ctx, env := controlPlane(t)
	failBinds(t, ctx, env, "llm-1")
	args := controlplane.GangArgs{BackoffSeconds: 1, ScheduleTimeoutSeconds: 6, StrandedMembers: "Evict"}
	// Each scheduler runs on a clock of its own that the test moves, so the
	// verdicts are on what each did by its clock, not on how long the test
	// looked.
	start := func(clk *simulate.StepClock) *controlplane.Scheduler {
		s, err := env.StartSchedulerOn(ctx, musterConfig(t, env, args), clk)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Stop)
		return s
	}
	clk := simulate.NewStepClock(time.Now())
	first := start(clk)
	kubelet := startKubelet(t, ctx, env)
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 2, 8); err != nil {
		t.Fatal(err)
	}
	topoGang(t, ctx, env, "llm", 2, 8, 2, 2)
	p := waitPod(t, ctx, env, "llm-0", "the stranded-since mark", func(p *v1.Pod) bool {
		return p.Spec.NodeName != "" && p.Annotations[gang.StrandedSinceAnnotation] != ""
	})
	since := p.Annotations[gang.StrandedSinceAnnotation]
	first.Stop()

	// The next leader starts two seconds on, as after a handover. Once its
	// writers have settled (the gang's timer armed), it has not evicted
	// llm-0: on its clock the timeout counted from the mark has not passed.
	clk = simulate.NewStepClock(clk.Now().Add(2 * time.Second))
	second := start(clk)
	written(t, ctx, second)
	if _, ok := kubelet.evicted()["llm-0"]; ok {
		t.Fatalf("llm-0 evicted 2s into a 6s timeout counted from %s", since)
	}
	clk.StepTo(clk.Now().Add(10 * time.Second))
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		_, ok := kubelet.evicted()["llm-0"]
		return ok, nil
	}); err != nil {
		t.Fatalf("llm-0, bound alone in a gang of min 2, not evicted by the new scheduler past its timeout: %v", err)
	}
	if msg := kubelet.evicted()["llm-0"]; !strings.Contains(msg, "members bound since "+since) {
		t.Errorf("llm-0 DisruptionTarget %q, want the timeout counted from %s, when the first scheduler saw it stranded", msg, since)
	}
}
