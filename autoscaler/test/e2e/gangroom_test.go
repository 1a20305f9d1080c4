// E2E tests of the room a waiting gang counts on: empty nodes kept from scale-down for its members, not for a gang that could never run; in-room members buy nothing one by one.

package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	apiv1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/muster-project/muster/autoscaler/armlocal"
	"github.com/muster-project/muster/autoscaler/contract"
	provreqv1 "github.com/muster-project/muster/autoscaler/provreq/apis/v1"
)

// TestWaitingGangKeepsTheNodesItCountsOn: gang-w has 4 pending members and
// its request names 1, its scheduler counting the other 3 on three empty
// H100 nodes, while the GPU quota allows no fourth. Scale-down (unneeded
// after 2 s) must not remove those nodes from under the waiting members,
// and the requested member must not be found in them. Once gang-w is gone,
// a gang that counts on them but could never run does not keep them: its
// request fails and the nodes are scaled down.
func TestWaitingGangKeepsTheNodesItCountsOn(t *testing.T) {
	// The heavy pool's max is 4, the GPU family's quota 3 of its VMs (96
	// vCPUs each): a fourth node cannot come now, yet a 4-member gang fits
	// the pool at its max.
	bin, restCfg, kube, dyn, arm := provreqStack(t, armlocal.Options{ProvisioningDelay: time.Second, FamilyQuota: 300})
	ctx := context.Background()
	addPools(t, arm, "4")
	args := gangRoomArgs(t, restCfg, arm)
	proc := startAutoscalerProcess(t, bin, args, append(os.Environ(), "SSL_CERT_FILE="+arm.CAFile()), "[autoscaler] ")
	removeGang := func(name string, members int) {
		t.Helper()
		for i := range members {
			if err := kube.CoreV1().Pods("default").Delete(ctx, fmt.Sprintf("%s-%d", name, i), metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := dyn.Resource(provreqv1.Resource).Namespace("default").Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	// Three empty H100 nodes, registered, the quota used up: gang-a's,
	// provisioned for it.
	nodes := provisionedH100s(t, kube, dyn, arm, "gang-a", 3)

	// gang-w asks for the one member the three nodes leave short; then
	// gang-a goes, and its nodes are the room gang-w counts on.
	gang{name: "gang-w", count: 1, members: 4}.create(t, kube, dyn)
	removeGang("gang-a", 3)
	waitFor(t, "gang-w to be Provisioned=False", func() bool {
		p := condition(getRequest(t, dyn, "gang-w"), provreqv1.Provisioned)
		return p != nil && p.Status == metav1.ConditionFalse
	})
	deadline := time.Now().Add(12 * time.Second)
	for time.Now().Before(deadline) {
		if p := condition(getRequest(t, dyn, "gang-w"), provreqv1.Provisioned); p != nil && p.Status == metav1.ConditionTrue {
			t.Fatalf("gang-w Provisioned %q: %q; no node can be added and the free nodes are its other members' room", p.Reason, p.Message)
		}
		live := liveInstances(arm, "gpu-heavy")
		for _, name := range nodes {
			if !live[name] {
				t.Fatalf("instance %s, which gang-w's waiting members count on, was scaled down", name)
			}
		}
		time.Sleep(200 * time.Millisecond)
	}

	// gang-w goes; gang-huge has 6 members, asks for 3 and counts 3 on the
	// empty nodes, but the pool holds 4 at its max: it can never run. Its
	// request fails, and the nodes are not kept for it: they go.
	removeGang("gang-w", 4)
	gang{name: "gang-huge", count: 3, members: 6}.create(t, kube, dyn)
	pr := waitCondition(t, dyn, "gang-huge", provreqv1.Failed)
	if f := condition(pr, provreqv1.Failed); f.Reason != "NoNodeGroupCanHold" || !strings.Contains(f.Message, "the gang can never run: its 6 pods (3 counted on existing nodes)") {
		t.Fatalf("gang-huge Failed %q: %q; want NoNodeGroupCanHold for the whole gang", f.Reason, f.Message)
	}
	waitFor(t, "the empty nodes to be scaled down", func() bool { return len(liveInstances(arm, "gpu-heavy")) == 0 })

	// The same gang again, now that the nodes its members counted on are
	// gone (as when scale-down wins the race with the gang's arrival): its
	// request alone would fit the empty pool, the whole gang never does.
	// Nothing is scaled up for it.
	removeGang("gang-huge", 6)
	gang{name: "gang-late", count: 3, members: 6}.create(t, kube, dyn)
	waitFor(t, "gang-late to be Failed or Provisioned", func() bool {
		pr := getRequest(t, dyn, "gang-late")
		for _, typ := range []string{provreqv1.Failed, provreqv1.Provisioned} {
			if c := condition(pr, typ); c != nil && c.Status == metav1.ConditionTrue {
				return true
			}
		}
		return len(liveInstances(arm, "gpu-heavy")) > 0
	})
	pr = getRequest(t, dyn, "gang-late")
	if f := condition(pr, provreqv1.Failed); f == nil || f.Status != metav1.ConditionTrue || f.Reason != "NoNodeGroupCanHold" ||
		!strings.Contains(f.Message, "its 6 pods (3 counted on existing nodes)") {
		t.Fatalf("gang-late: conditions %+v, %d live gpu-heavy instances; want Failed NoNodeGroupCanHold for the whole gang and no scale-up", pr.Status.Conditions, len(liveInstances(arm, "gpu-heavy")))
	}
	if n := len(liveInstances(arm, "gpu-heavy")); n != 0 {
		t.Fatalf("%d gpu-heavy instances added for a gang that can never run", n)
	}
	proc.checkRunning(t)
}

// gangRoomArgs are the autoscaler's flags in the gang-room tests: loops
// every second, scale-down of nodes unneeded for 2 s, the cheapest pool
// first, and backoffs of a second or two.
func gangRoomArgs(t *testing.T, restCfg *rest.Config, arm *armlocal.Server) []string {
	return []string{
		"--kubeconfig=" + writeKubeconfig(t, restCfg),
		"--cloud-config=" + writeCloudConfig(t, arm, "2s", "10m"),
		"--leader-elect=false",
		"--address=127.0.0.1:0",
		"--scan-interval=1s",
		"--expander=price",
		"--scale-down-enabled=true",
		"--scale-down-unneeded-time=2s",
		"--scale-down-delay-after-add=0s",
		"--scale-down-delay-after-delete=0s",
		"--scale-down-delay-after-failure=0s",
		"--max-node-provision-time=10m",
		"--new-pod-scale-up-delay=0s",
		"--provisioning-request-initial-backoff-time=1s",
		"--provisioning-request-max-backoff-time=2s",
		// A pool the quota refused is not backed off for minutes: the last
		// gang must be refused for what it is, not for a backoff.
		"--initial-node-group-backoff-duration=1s",
		"--max-node-group-backoff-duration=2s",
		"--v=2",
	}
}

// TestInRoomMembersBuyNothingAndKeepTheirRoom: the members of a gang that
// was short and now fits in room that exists consume the gang's in-room
// name, which no request has. They never make the autoscaler buy nodes
// one by one (make simulate --random 1 --seed 9: two of a gang's three
// 8-GPU nodes were bought so, when the room it fitted was taken first),
// and they count on the room they fit, which nothing else may take.
func TestInRoomMembersBuyNothingAndKeepTheirRoom(t *testing.T) {
	bin, restCfg, kube, _, arm := provreqStack(t, armlocal.Options{ProvisioningDelay: time.Second, FamilyQuota: 300})
	ctx := context.Background()
	addPools(t, arm, "4")
	proc := startAutoscalerProcess(t, bin, gangRoomArgs(t, restCfg, arm), append(os.Environ(), "SSL_CERT_FILE="+arm.CAFile()), "[autoscaler] ")
	pod := func(name, consumes string) *apiv1.Pod {
		p := &apiv1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Spec: gang{}.podSpec()}
		if consumes != "" {
			p.Labels = map[string]string{"muster.dev/gang": "fits"}
			p.Annotations = map[string]string{
				provreqv1.ProvisioningRequestPodAnnotationKey: consumes,
				provreqv1.ProvisioningClassPodAnnotationKey:   provreqv1.ProvisioningClassBestEffortAtomicScaleUp,
			}
		}
		p.Spec.SchedulerName = "muster-scheduler"
		return p
	}
	heavy := func() int { return len(liveInstances(arm, "gpu-heavy")) }

	// Two in-room members, no H100 node, then a plain pod asking for one:
	// the loop that buys the plain pod's node sees the members too, and
	// buys nothing for them (one by one, it bought three nodes at once).
	inRoom := "muster-fits" + contract.InRoomSuffix
	createUnschedulable(t, kube, pod("fits-0", inRoom))
	createUnschedulable(t, kube, pod("fits-1", inRoom))
	createUnschedulable(t, kube, pod("plain-0", ""))
	waitFor(t, "an H100 instance for plain-0", func() bool { return heavy() > 0 })
	if n := heavy(); n != 1 {
		t.Fatalf("%d gpu-heavy instances for plain-0 and two in-room members, want 1: nodes were bought for the in-room members one by one", n)
	}
	first := waitProvisioned(t, arm, "gpu-heavy", 1)

	// plain-0 leaves its node empty, and one in-room member counts on it:
	// the next plain pod does not get it, and a second node comes for it,
	// none for the other in-room member.
	registerNode(t, kube, first[0], "gpu-heavy", "Standard_ND96isr_H100_v5", "96", "1900Gi", 8,
		[]apiv1.Taint{{Key: gpuTaint, Value: "present", Effect: apiv1.TaintEffectNoSchedule}})
	if err := kube.CoreV1().Pods("default").Delete(ctx, "plain-0", metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}
	createUnschedulable(t, kube, pod("plain-1", ""))
	waitFor(t, "a second H100 instance for plain-1, the first being an in-room member's room", func() bool { return heavy() > 1 })
	if n := heavy(); n != 2 {
		t.Fatalf("%d gpu-heavy instances after plain-1 came, want 2: a node was bought for the other in-room member", n)
	}
	if !liveInstances(arm, "gpu-heavy")[first[0].ComputerName] {
		t.Fatalf("instance %s, which an in-room member counts on, was scaled down", first[0].ComputerName)
	}
	proc.checkRunning(t)
}

// TestGangCountingOnRoomItWillShedGetsItsNodes: a gang short of one node
// counts three of its members on existing room, one of them on a node an
// elastic gang's extra runs on, which the scheduler sheds once the node
// asked for comes (Muster's shortfall counts what a gang may shed,
// gangstate.Cycle.Sheddable). The pool can add exactly that one node. The
// member the snapshot finds no room for must not fail the request: the
// gang fits the pool at its max, so the one node is added (make simulate
// --random 1 --seed 7: asking for two where the pool could add one left a
// starving gang waiting 20 trace minutes beside three free nodes).
func TestGangCountingOnRoomItWillShedGetsItsNodes(t *testing.T) {
	bin, restCfg, kube, dyn, arm := provreqStack(t, armlocal.Options{ProvisioningDelay: time.Second, FamilyQuota: 400})
	ctx := context.Background()
	addPools(t, arm, "4")
	proc := startAutoscalerProcess(t, bin, gangRoomArgs(t, restCfg, arm), append(os.Environ(), "SSL_CERT_FILE="+arm.CAFile()), "[autoscaler] ")

	// Three H100 nodes, provisioned for gang-a and registered.
	nodes := provisionedH100s(t, kube, dyn, arm, "gang-a", 3)
	// gang-a's members go; an elastic gang's extra takes all of the third
	// node's GPUs.
	for i := range 3 {
		if err := kube.CoreV1().Pods("default").Delete(ctx, fmt.Sprintf("gang-a-%d", i), metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := dyn.Resource(provreqv1.Resource).Namespace("default").Delete(ctx, "gang-a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	extra := &apiv1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "elastic-extra", Namespace: "default", Labels: map[string]string{"muster.dev/gang": "elastic"}},
		Spec: gang{}.podSpec()}
	extra.Spec.NodeName = nodes[2]
	if _, err := kube.CoreV1().Pods("default").Create(ctx, extra, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	// gang-w: four members, a request for the one the room leaves short.
	gang{name: "gang-w", count: 1, members: 4}.create(t, kube, dyn)
	pr := waitCondition(t, dyn, "gang-w", provreqv1.Provisioned)
	if f := condition(pr, provreqv1.Failed); f != nil && f.Status == metav1.ConditionTrue {
		t.Fatalf("gang-w Failed %q: %q; the gang fits the pool at its max", f.Reason, f.Message)
	}
	if p := condition(pr, provreqv1.Provisioned); p.Status != metav1.ConditionTrue || p.Reason != "CapacityIsProvisioned" {
		t.Fatalf("gang-w Provisioned %s %q: %q; want the one node it lacks added", p.Status, p.Reason, p.Message)
	}
	waitProvisioned(t, arm, "gpu-heavy", 4)
	if n := len(liveInstances(arm, "gpu-heavy")); n != 4 {
		t.Fatalf("%d gpu-heavy instances, want the pool's max of 4: exactly the one node gang-w lacks added", n)
	}
	proc.checkRunning(t)
}

// provisionedH100s has gang name's request provision count H100 nodes,
// registers them and returns their names.
func provisionedH100s(t *testing.T, kube kubernetes.Interface, dyn dynamic.Interface, arm *armlocal.Server, name string, count int) []string {
	t.Helper()
	gang{name: name, count: count}.create(t, kube, dyn)
	if p := condition(waitCondition(t, dyn, name, provreqv1.Provisioned), provreqv1.Provisioned); p.Reason != "CapacityIsProvisioned" {
		t.Fatalf("%s Provisioned %q: %q", name, p.Reason, p.Message)
	}
	var nodes []string
	for _, in := range waitProvisioned(t, arm, "gpu-heavy", count) {
		registerNode(t, kube, in, "gpu-heavy", "Standard_ND96isr_H100_v5", "96", "1900Gi", 8,
			[]apiv1.Taint{{Key: gpuTaint, Value: "present", Effect: apiv1.TaintEffectNoSchedule}})
		nodes = append(nodes, in.ComputerName)
	}
	return nodes
}
