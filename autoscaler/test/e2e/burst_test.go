// Test of a burst of gangs short of nodes: every request, and the pending pods beside them, served in one autoscaler loop.

package e2e

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	apiv1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/muster-project/muster/autoscaler/armlocal"
	provreqv1 "github.com/muster-project/muster/autoscaler/provreq/apis/v1"
)

// loopLog forwards the autoscaler's output to the test log and keeps the
// lines in which the Orchestrator says what one loop served.
type loopLog struct {
	t     *testing.T
	mu    sync.Mutex
	loops []string
}

func (l *loopLog) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		l.t.Log("[autoscaler] " + line)
		if strings.Contains(line, "Served this loop's ProvisioningRequests and pending pods") {
			l.mu.Lock()
			l.loops = append(l.loops, line)
			l.mu.Unlock()
		}
	}
	return len(p), nil
}

var servedRE = regexp.MustCompile(`requests=(\d+) requestsScaledUp=(\d+) pendingPods=(\d+) pendingPodsScaledUp=(true|false)(?: requestPoolWrites=(\d+) poolWrites=(\d+))?`)

// TestBurstIsProvisionedInOneLoop: nine gangs short of nodes at once (eight
// of one 8-GPU member, an MPI-style gang of two 8-GPU workers whose CPU
// launcher is an ordinary pending pod) get all their nodes in the
// autoscaler's first loop that sees them: each request its own
// all-or-nothing scale-up of exactly its nodes, and the launcher its CPU
// node in the same loop. Upstream's wrapper orchestrator, and Muster's
// until this change, served one request per loop and the ordinary pods in
// the loops between. Each pool is written once in that loop: the heavy
// pool once for all nine requests, the CPU pool once for the launcher.
func TestBurstIsProvisionedInOneLoop(t *testing.T) {
	bin, restCfg, kube, dyn, arm := provreqStack(t, armlocal.Options{ProvisioningDelay: 3 * time.Second, FamilyQuota: 2000})
	addPools(t, arm, "12")
	bar := newBarriers(t, kube, arm) // the CPU pool's one node, full

	// The whole burst exists before the autoscaler starts, so that its
	// first loop sees all of it.
	var names []string
	for i := range 8 {
		g := gang{name: fmt.Sprintf("small-%d", i), count: 1}
		g.create(t, kube, dyn)
		names = append(names, g.name)
	}
	mpi := gang{name: "mpi", count: 2}
	mpi.create(t, kube, dyn)
	names = append(names, mpi.name)
	createUnschedulable(t, kube, &apiv1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "mpi-launcher", Namespace: "default", Labels: map[string]string{"muster.dev/gang": "mpi"}},
		Spec: apiv1.PodSpec{Containers: []apiv1.Container{{Name: "launcher", Image: "x", Resources: apiv1.ResourceRequirements{
			Requests: apiv1.ResourceList{apiv1.ResourceCPU: resource.MustParse("8")}}}}},
	})

	log := &loopLog{t: t}
	args := []string{
		"--kubeconfig=" + writeKubeconfig(t, restCfg),
		"--cloud-config=" + writeCloudConfig(t, arm, "10m", "10m"),
		"--leader-elect=false",
		"--address=127.0.0.1:0",
		"--scan-interval=1s",
		"--expander=price",
		"--scale-down-enabled=false",
		"--max-node-provision-time=10m",
		"--new-pod-scale-up-delay=0s",
		"--v=1",
	}
	startAutoscalerWriter(t, bin, args, append(os.Environ(), "SSL_CERT_FILE="+arm.CAFile()), log)

	for _, name := range names {
		pr := waitCondition(t, dyn, name, provreqv1.Provisioned)
		if p := condition(pr, provreqv1.Provisioned); p.Status != metav1.ConditionTrue || p.Reason != "CapacityIsProvisioned" {
			t.Fatalf("%s Provisioned %s %q: %q", name, p.Status, p.Reason, p.Message)
		}
	}
	if heavy, _, _ := arm.ScaleSet(rg, "gpu-heavy"); heavy != 10 {
		t.Fatalf("heavy pool %d after the burst, want exactly 10 (8 + 2)", heavy)
	}
	waitFor(t, "the CPU pool to grow for mpi-launcher", func() bool { return bar.cpu() == 2 })
	heavyWrites, cpuWrites := arm.ScaleSetCapacityWrites(rg, "gpu-heavy"), arm.ScaleSetCapacityWrites(rg, "cpu")
	t.Logf("capacity writes: gpu-heavy %d, cpu %d", heavyWrites, cpuWrites)
	if heavyWrites != 1 || cpuWrites != 1 {
		t.Errorf("capacity writes: gpu-heavy %d, cpu %d; want one each (one write per pool per loop)", heavyWrites, cpuWrites)
	}

	// The loop's line comes after its writes: wait for it, not for time.
	waitFor(t, "the autoscaler to log the loop that served the burst", func() bool {
		log.mu.Lock()
		defer log.mu.Unlock()
		for _, line := range log.loops {
			if m := servedRE.FindStringSubmatch(line); m != nil && (m[2] != "0" || m[4] == "true") {
				return true
			}
		}
		return false
	})
	log.mu.Lock()
	defer log.mu.Unlock()
	loops := 0
	for _, line := range log.loops {
		m := servedRE.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("cannot read loop line %q", line)
		}
		if m[2] == "0" && m[4] == "false" {
			continue // a loop that scaled nothing up
		}
		loops++
		if m[1] != "9" || m[2] != "9" || m[3] != "1" || m[4] != "true" {
			t.Errorf("a loop served %s requests (%s scaled up) and %s pending pods (scaled up: %s); want all 9 requests scaled up and the launcher's node in one loop", m[1], m[2], m[3], m[4])
		}
		if m[5] != "1" || m[6] != "2" {
			t.Errorf("the loop says it made %q pool writes for requests, %q in all; want 1 (gpu-heavy) and 2 (and cpu)", m[5], m[6])
		}
	}
	t.Logf("loops that scaled up for the burst: %d", loops)
	if loops != 1 {
		t.Errorf("%d loops served the burst, want 1", loops)
	}
}
