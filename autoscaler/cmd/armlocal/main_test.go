// Tests of the command against a real API server: the simulate scenario with its node agent, driven as muster-autoscaler does, and --pools-file with prices, boot delays and spot pools.

package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apiv1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/muster-project/muster/autoscaler/cloudprovider/agentpool"
	"github.com/muster-project/muster/autoscaler/nodeagent"
	"github.com/muster-project/muster/autoscaler/nodeagent/apiservertest"
)

const waitLimit = 2 * time.Minute // hang guard, not a timing assertion

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	apiservertest.WaitFor(t, what, waitLimit, 50*time.Millisecond, cond)
}

// runArmlocal runs the command in-process until the test ends and returns
// its ready line's JSON.
func runArmlocal(t *testing.T, o options) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	exited := make(chan error, 1)
	go func() {
		err := run(ctx, o, pw)
		pw.Close()
		exited <- err
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-exited; err != nil {
			t.Errorf("armlocal: %v", err)
		}
	})
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the ready line: %v", err)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	payload, ok := strings.CutPrefix(strings.TrimSpace(line), "ARMLOCAL_READY ")
	if !ok {
		t.Fatalf("first stdout line %q is not the ready line", line)
	}
	return payload
}

// TestSimulateScenarioWithNodeAgent runs the command's scenario with the
// node agent against a real API server and drives it the way
// muster-autoscaler does: the provider built from the written cloud-config
// (client-secret auth through the token endpoint, armlocal's certificate
// from the ready JSON). The heavy-GPU family quota admits one instance; the
// Node appears once it has provisioned and goes when the provider deletes
// it. The CPU pool's initial instance has its Node before the ready line.
func TestSimulateScenarioWithNodeAgent(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a control plane")
	}
	restCfg := apiservertest.Start(t)
	kube := kubernetes.NewForConfigOrDie(restCfg)
	dir := t.TempDir()
	secretFile := filepath.Join(dir, "secret")
	if err := os.WriteFile(secretFile, []byte("very-secret-value\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o := options{
		scenario: "simulate", rg: "rg-sim", cluster: "aks1", delay: 100 * time.Millisecond,
		clientID: "muster-autoscaler", secretFile: secretFile,
		cpuMin: 1, cpuMax: 3, lightMax: 2, heavyMax: 2,
		cpuSKU: "Standard_D4s_v5", lightSKU: "Standard_NC4as_T4_v3", heavySKU: "Standard_ND96isr_H100_v5",
		familyQuota: 1000, gpuQuota: 96, regionalQuota: 10000,
		kubeconfig: apiservertest.WriteKubeconfig(t, restCfg), agentInterval: 50 * time.Millisecond,
		cloudConfigPath: filepath.Join(dir, "cloud-config.yaml"), readyPath: filepath.Join(dir, "ready.json"),
		gpuUnneeded: 20 * time.Second, cacheTTL: 100 * time.Millisecond, pollInterval: 50 * time.Millisecond,
	}
	ctx := context.Background()
	payload := runArmlocal(t, o)
	var info readyInfo
	if err := json.Unmarshal([]byte(payload), &info); err != nil {
		t.Fatal(err)
	}
	fileJSON, err := os.ReadFile(o.readyPath)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(fileJSON)) != payload {
		t.Fatalf("ready file %s differs from the ready line %s", fileJSON, payload)
	}
	if info.CloudConfig != o.cloudConfigPath || info.ClientSecretFile != secretFile || !info.NodeAgent || len(info.Pools) != 3 || info.ClusterName != "" {
		t.Fatalf("ready JSON %+v", info)
	}
	for _, p := range info.Pools {
		want := map[string]int{"cpu": 1}[p.Name]
		if p.Min != want {
			t.Errorf("pool %s min %d, want %d", p.Name, p.Min, want)
		}
	}

	// The CPU pool's initial instance was registered before the ready line.
	cpuNode, err := kube.CoreV1().Nodes().Get(ctx, "cpu000000", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the CPU pool's initial node: %v", err)
	}
	if cpuNode.Labels[agentpool.AgentPoolLabel] != "cpu" || cpuNode.Labels[agentpool.InstanceTypeLabel] != "Standard_D4s_v5" {
		t.Errorf("CPU node labels %v", cpuNode.Labels)
	}

	raw, err := os.ReadFile(o.cloudConfigPath)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "very-secret-value") {
		t.Fatalf("the cloud-config holds the secret:\n%s", raw)
	}
	cfg, err := agentpool.LoadConfig(o.cloudConfigPath)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.GPUPools.ScaleDownUnneededTime.Duration != 20*time.Second {
		t.Errorf("gpuPools.scaleDownUnneededTime %v", cfg.GPUPools.ScaleDownUnneededTime)
	}
	prov := providerFor(t, cfg, info.CAFile)
	var heavy interface {
		IncreaseSize(int) error
		DeleteNodes([]*apiv1.Node) error
	}
	var ids []string
	for _, g := range prov.NodeGroups() {
		ids = append(ids, g.Id())
		if g.Id() == "gpu-heavy" {
			heavy = g
		}
	}
	if heavy == nil {
		t.Fatalf("pools %v: no gpu-heavy", ids)
	}
	var quotaErr *agentpool.OutOfResourcesError
	if err := heavy.IncreaseSize(2); !errors.As(err, &quotaErr) {
		t.Fatalf("scaling gpu-heavy to 2 under a 96-vCPU family quota: %v, want a quota error", err)
	}
	if err := heavy.IncreaseSize(1); err != nil {
		t.Fatal(err)
	}
	var node *apiv1.Node
	waitFor(t, "the heavy-GPU node", func() bool {
		n, err := kube.CoreV1().Nodes().Get(ctx, "gpu-heavy000000", metav1.GetOptions{})
		if err != nil || readyStatus(n) != apiv1.ConditionTrue {
			return false
		}
		node = n
		return true
	})
	if node.Labels[agentpool.GPUCountLabel] != "8" || node.Labels[agentpool.PlacementGroupLabel] != "ppg-ib" || node.Annotations[nodeagent.RegisteredByAnnotation] != "armlocal" {
		t.Errorf("heavy node labels %v annotations %v", node.Labels, node.Annotations)
	}
	if err := heavy.DeleteNodes([]*apiv1.Node{node}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the deleted heavy-GPU node to go", func() bool {
		_, err := kube.CoreV1().Nodes().Get(ctx, "gpu-heavy000000", metav1.GetOptions{})
		return err != nil
	})
	if _, err := kube.CoreV1().Nodes().Get(ctx, "cpu000000", metav1.GetOptions{}); err != nil {
		t.Fatalf("the CPU node went too: %v", err)
	}
}

func readyStatus(n *apiv1.Node) apiv1.ConditionStatus {
	for _, c := range n.Status.Conditions {
		if c.Type == apiv1.NodeReady {
			return c.Status
		}
	}
	return ""
}

// --pools-file replaces the simulate scenario's three scale sets with the
// user's, prices and boot delays included; a bad file is refused naming the
// pool and the field.
func TestPoolsFile(t *testing.T) {
	dir := t.TempDir()
	secretFile := filepath.Join(dir, "secret")
	if err := os.WriteFile(secretFile, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	base := options{scenario: "simulate", rg: "rg-sim", delay: time.Minute, clientID: "muster-autoscaler", secretFile: secretFile,
		cpuMin: 0, cpuMax: 1, lightMax: 1, heavyMax: 1, cpuSKU: "Standard_D4s_v5", lightSKU: "Standard_NC4as_T4_v3", heavySKU: "Standard_ND96isr_H100_v5",
		familyQuota: 1000, regionalQuota: 10000, cacheTTL: time.Second, pollInterval: time.Second,
		cloudConfigPath: filepath.Join(dir, "cloud-config.yaml")}
	o := base
	o.poolsFile = write("pools.json", `[
	  {"name": "cpu", "vmSize": "Standard_D16s_v5", "min": 1, "max": 4, "provisioningDelay": "10ms"},
	  {"name": "h100", "vmSize": "Standard_ND96isr_H100_v5", "min": 0, "max": 2, "placementGroup": "ppg-a", "familyQuotaVCPUs": 192, "hourlyPrice": 50},
	  {"name": "h100-spot", "vmSize": "Standard_ND96isr_H100_v5", "min": 1, "max": 2, "hourlyPrice": 20, "spot": true}
	]`)
	o.faultsAddress = "127.0.0.1:0"
	var info readyInfo
	if err := json.Unmarshal([]byte(runArmlocal(t, o)), &info); err != nil {
		t.Fatal(err)
	}
	if len(info.Pools) != 3 || info.Pools[0].Name != "cpu" || info.Pools[0].Min != 1 || info.Pools[1].GPUs != 8 ||
		info.Pools[1].HourlyPrice != 50 || info.Pools[1].PlacementGroup != "ppg-a" || info.Pools[0].HourlyPrice <= 0 ||
		info.Pools[1].Spot || !info.Pools[2].Spot || info.Pools[2].HourlyPrice != 20 {
		t.Fatalf("pools %+v", info.Pools)
	}
	cfg, err := os.ReadFile(o.cloudConfigPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(cfg), "Standard_ND96isr_H100_v5: 50") {
		t.Errorf("the cloud-config does not price the pool as the file says (a spot pool's price is not the size's):\n%s", cfg)
	}
	// The spot pool's VM is reclaimed through the fault endpoint, as muster
	// simulate does: deleted (policy Delete), its cause spot-eviction.
	resp, err := http.Post(info.FaultsURL+"/faults", "application/json", strings.NewReader(`{"kind":"evict-spot","pool":"h100-spot","instance":"h100-spot000000"}`))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(resp.Body); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("evict-spot: %d %s", resp.StatusCode, b)
	}
	resp.Body.Close()
	resp, err = http.Get(info.FaultsURL + "/state")
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Deletions []struct{ Pool, Instance, Cause string } `json:"deletions"`
	}
	err = json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	if err != nil || len(st.Deletions) != 1 || st.Deletions[0].Instance != "h100-spot000000" || st.Deletions[0].Cause != "spot-eviction" {
		t.Fatalf("deletions %+v (%v), want h100-spot000000 spot-eviction", st.Deletions, err)
	}
	for _, tc := range []struct{ body, want string }{
		{`[{"name": "a", "vmSize": "Standard_Nope", "max": 1}]`, "pool a: vmSize Standard_Nope is not in armlocal's catalogue"},
		{`[{"name": "a", "vmSize": "Standard_D4s_v5", "min": 2, "max": 1}]`, "pool 0 (a): max: want 0 <= min (2) <= max (1)"},
		{`[{"name": "a", "vmSize": "Standard_D4s_v5", "max": 1, "provisioningDelay": "soon"}]`, `provisioningDelay: want a duration such as 3m, got "soon"`},
		{`[{"name": "a", "vmSize": "Standard_D4s_v5", "max": 1, "spotty": true}]`, `unknown field "spotty"`},
		{`[]`, "no pools"},
	} {
		bad := base
		bad.poolsFile = write("bad.json", tc.body)
		if err := run(context.Background(), bad, io.Discard); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want one saying %q", tc.body, err, tc.want)
		}
	}
}

// providerFor builds the agent-pool cloud provider on cfg, trusting
// armlocal's CA certificate, and cleans it up with the test.
func providerFor(t *testing.T, cfg *agentpool.Config, caFile string) *agentpool.Provider {
	t.Helper()
	ca, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(ca) {
		t.Fatalf("no certificate in %s", caFile)
	}
	prov, err := agentpool.New(cfg, agentpool.Options{Transport: &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = prov.Cleanup() })
	return prov
}
