// Integration tests of leader election with the scheduler binary: the standby writes nothing, and a new leader writes what the old one would, with or without pods to schedule.

package integration

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	autoscalingv1 "github.com/muster-project/muster/pkg/apis/autoscaling/v1"
	"github.com/muster-project/muster/pkg/controlplane"
	"github.com/muster-project/muster/pkg/gang"
)

// TestOnlyTheLeaderWrites: two replicas on one API server, leader election
// on. While the leader places a gang short of capacity (request, consume
// marks, gated conditions, status, events) and rejects a gang with bad
// input, the standby, which sees the same pods, writes nothing: every write
// of its identity would be denied by an admission policy, and none is.
// Then the leader stops mid-gang; the standby takes over, binds the gang
// once its node arrives, and writes what the leader would.
func TestOnlyTheLeaderWrites(t *testing.T) {
	ctx, env := controlPlane(t)
	const standby = "muster-standby"
	denyWritesBy(t, ctx, env, standby)
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 1, 8); err != nil {
		t.Fatal(err)
	}
	args := controlplane.GangArgs{BackoffSeconds: 1, StatusSyncMillis: 100}

	leader := startElected(t, ctx, env, "", args)
	waitLeaseHeld(t, ctx, env)
	startElected(t, ctx, env, standby, args)

	topoGang(t, ctx, env, "llm", 2, 8, 2, 2)
	bad := controlplane.LabelMembers(ns, "bad", 1, 1, 1, 1)
	bad[0].Annotations[gang.MinMemberAnnotation] = "many"
	if err := controlplane.CreatePods(ctx, env.Client, bad...); err != nil {
		t.Fatal(err)
	}
	waitProvReqs(t, ctx, env, "llm", "the leader's request", func(prs []autoscalingv1.ProvisioningRequest) bool { return len(prs) == 1 })
	waitPod(t, ctx, env, "llm-1", "the leader's consume mark", func(p *v1.Pod) bool { return p.Annotations[autoscalingv1.ConsumeAnnotation] != "" })
	waitEvent(t, ctx, env, "Pod", "bad-0", "InvalidGangSpec", "many")
	time.Sleep(3 * time.Second) // time for a standby to write, were it to
	if n := denied(t, ctx, env); n != 0 {
		t.Fatalf("the standby attempted %v writes", n)
	}

	// Handover mid-gang: the leader goes, the standby may write again.
	if err := env.Client.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Delete(ctx, "test-deny-writes", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := leader.Process.Signal(syscall.SIGTERM); err != nil { // it gives up the lease as it goes
		t.Fatal(err)
	}
	if err := controlplane.CreateNodes(ctx, env.Client, "more", 1, 8); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.GroupLabel, "llm", 2)
	waitPod(t, ctx, env, "llm-0", "the new leader's safe-to-evict mark", func(p *v1.Pod) bool { return p.Annotations[gang.SafeToEvictAnnotation] == "false" })
}

// A standby that takes over when nothing is left to schedule writes all the
// same: it learns that it leads from the lease, not from a scheduling cycle
// it may never run. The gang binds under the first leader; once the second
// holds the lease, a member's safe-to-evict mark, taken off, comes back.
// Before, the new leader read the leader-election gauge by the lease's name
// (the gauge names the elector, "kube-scheduler") and wrote nothing until
// it scheduled a pod (TestOnlyTheLeaderWrites in stress, when the old
// leader bound the gang as it stopped).
func TestNewLeaderWithNothingToScheduleWrites(t *testing.T) {
	ctx, env := controlPlane(t)
	if err := controlplane.CreateNodes(ctx, env.Client, "gpu", 2, 8); err != nil {
		t.Fatal(err)
	}
	args := controlplane.GangArgs{BackoffSeconds: 1, StatusSyncMillis: 100}
	first := startElected(t, ctx, env, "", args)
	waitLeaseHeld(t, ctx, env)
	holder := func() string {
		l, err := env.Client.CoordinationV1().Leases("kube-system").Get(ctx, "muster-test", metav1.GetOptions{})
		if err != nil || l.Spec.HolderIdentity == nil {
			return ""
		}
		return *l.Spec.HolderIdentity
	}
	old := holder()
	startElected(t, ctx, env, "", args)

	topoGang(t, ctx, env, "llm", 2, 8, 2, 2)
	waitBound(t, env, gang.GroupLabel, "llm", 2)
	protected := func(p *v1.Pod) bool { return p.Annotations[gang.SafeToEvictAnnotation] == "false" }
	waitPod(t, ctx, env, "llm-0", "the first leader's safe-to-evict mark", protected)

	if err := first.Process.Signal(syscall.SIGTERM); err != nil { // it gives up the lease as it goes
		t.Fatal(err)
	}
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		h := holder()
		return h != "" && h != old, nil
	}); err != nil {
		t.Fatalf("the standby did not take the lease over from %s: %v", old, err)
	}
	patch := []byte(`{"metadata":{"annotations":{"` + gang.SafeToEvictAnnotation + `":null}}}`)
	if _, err := env.Client.CoreV1().Pods(ns).Patch(ctx, "llm-0", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPod(t, ctx, env, "llm-0", "the new leader's safe-to-evict mark, with nothing to schedule", protected)
}

// startElected runs the muster-scheduler binary, leader election on, acting
// as user ("" the test's admin). In-process schedulers cannot be used here:
// kube-scheduler exits the process when a leader-elected scheduler stops.
func startElected(t *testing.T, ctx context.Context, env *controlplane.Env, user string, args controlplane.GangArgs) *exec.Cmd {
	t.Helper()
	kc, err := env.Kubeconfig()
	if user != "" {
		kc, err = env.KubeconfigAs(user)
	}
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	config := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(config, []byte(controlplane.LeaderElected(controlplane.MusterConfig(kc, args), "muster-test")), 0o600); err != nil {
		t.Fatal(err)
	}
	log, err := os.Create(filepath.Join(dir, "scheduler.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, schedulerBinary(t), "--config="+config, "--secure-port=0", "--v=2")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		if t.Failed() {
			out, _ := os.ReadFile(log.Name())
			t.Logf("scheduler %q log (tail):\n%s", user, tail(string(out), 40))
		}
	})
	return cmd
}

func tail(s string, lines int) string {
	l := strings.Split(s, "\n")
	if len(l) > lines {
		l = l[len(l)-lines:]
	}
	return strings.Join(l, "\n")
}

var (
	schedulerBin     string
	schedulerBinErr  error
	schedulerBinOnce sync.Once
)

// schedulerBinary builds cmd/muster-scheduler once per test process.
func schedulerBinary(t *testing.T) string {
	t.Helper()
	schedulerBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "muster-scheduler-bin")
		if err != nil {
			schedulerBinErr = err
			return
		}
		schedulerBin = filepath.Join(dir, "muster-scheduler")
		build := exec.Command("go", "build", "-o", schedulerBin, "../../cmd/muster-scheduler")
		if out, err := build.CombinedOutput(); err != nil {
			schedulerBinErr = fmt.Errorf("building muster-scheduler: %v\n%s", err, out)
		}
	})
	if schedulerBinErr != nil {
		t.Fatal(schedulerBinErr)
	}
	return schedulerBin
}

func waitLeaseHeld(t *testing.T, ctx context.Context, env *controlplane.Env) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		l, err := env.Client.CoordinationV1().Leases("kube-system").Get(ctx, "muster-test", metav1.GetOptions{})
		return err == nil && l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity != "", nil
	}); err != nil {
		t.Fatalf("no leader: %v", err)
	}
}

// denyWritesBy denies every write of user except to Leases (leader
// election); denied counts the denials.
func denyWritesBy(t *testing.T, ctx context.Context, env *controlplane.Env, user string) {
	t.Helper()
	policy := &admissionv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "test-deny-writes"},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionv1.Fail),
			MatchConstraints: &admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionv1.RuleWithOperations{Operations: []admissionv1.OperationType{admissionv1.OperationAll},
					Rule: admissionv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*/*"}}},
			}}},
			MatchConditions: []admissionv1.MatchCondition{
				{Name: "user", Expression: `request.userInfo.username == "` + user + `"`},
				{Name: "not-leases", Expression: `request.resource.resource != "leases"`},
			},
			Validations: []admissionv1.Validation{{Expression: "false", Message: "test: a standby writes nothing"}},
		},
	}
	denyWith(t, ctx, env, policy)
	// In force once a write of the user is refused by it.
	probe := controlplane.LabelMembers(ns, "probe", 1, 0, 1, 1)[0].Pod()
	c := impersonating(t, env, user)
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := c.CoreV1().Pods(ns).Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err != nil && strings.Contains(err.Error(), "a standby writes nothing"), nil
	}); err != nil {
		t.Fatalf("deny policy not in force: %v", err)
	}
	baseDenied = denied(t, ctx, env)
}

var baseDenied float64

// impersonating is a client acting as user.
func impersonating(t *testing.T, env *controlplane.Env, user string) kubernetes.Interface {
	t.Helper()
	cfg := rest.CopyConfig(env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// denied is how many requests the deny policy refused since it was in
// force (the probe's own denials before that are not counted).
func denied(t *testing.T, ctx context.Context, env *controlplane.Env) float64 {
	t.Helper()
	raw, err := env.Client.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var n float64
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "apiserver_validating_admission_policy_check_total{") &&
			strings.Contains(line, `policy="test-deny-writes"`) && strings.Contains(line, `enforcement_action="deny"`) {
			v, _ := strconv.ParseFloat(line[strings.LastIndex(line, " ")+1:], 64)
			n += v
		}
	}
	return n - baseDenied
}
