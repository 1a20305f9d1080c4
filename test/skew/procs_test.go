// The skew test's processes: the binaries built once, muster-scheduler's readiness, armlocal with its pools and node agent, muster-autoscaler, their logs kept.

package skew

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// binaries are built once per run (TestMain): muster-scheduler from the root
// module (vendored, k8s 1.37) unless SKEW_SCHEDULER_BIN names one,
// muster-autoscaler and armlocal from the autoscaler's module (k8s 1.33
// line).
var bins struct{ scheduler, autoscaler, armlocal string }

func buildBinaries(dir string) error {
	build := func(moduleDir, goflags string, pkgs ...string) error {
		args := append([]string{"build", "-o", dir + string(os.PathSeparator)}, pkgs...)
		cmd := exec.Command(goBin(), args...)
		cmd.Dir = moduleDir
		cmd.Env = append(os.Environ(), "GOFLAGS="+goflags)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s in %s: %v\n%s", strings.Join(pkgs, " "), moduleDir, err, out)
		}
		return nil
	}
	bins.scheduler = filepath.Join(dir, "muster-scheduler")
	if bin := os.Getenv("SKEW_SCHEDULER_BIN"); bin != "" {
		// A muster-scheduler built elsewhere (a release, an older commit).
		bins.scheduler = bin
	} else if err := build(repoRoot, "-mod=vendor", "./cmd/muster-scheduler"); err != nil {
		return err
	}
	if err := build(filepath.Join(repoRoot, "autoscaler"), "-mod=mod -tags=kwok", "./cmd/muster-autoscaler", "./cmd/armlocal"); err != nil {
		return err
	}
	bins.autoscaler = filepath.Join(dir, "muster-autoscaler")
	bins.armlocal = filepath.Join(dir, "armlocal")
	return nil
}

// process is a binary running for one test, its output in log.
type process struct {
	cmd  *exec.Cmd
	log  string
	done chan struct{}
}

func startProcess(t *testing.T, name, bin string, args ...string) *process {
	t.Helper()
	return startProcessEnv(t, name, nil, bin, args...)
}

// startProcessEnv is startProcess with env added to the test's environment.
func startProcessEnv(t *testing.T, name string, env []string, bin string, args ...string) *process {
	t.Helper()
	log := filepath.Join(logDir(t), name+".log")
	f, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	p := &process{cmd: cmd, log: log, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); f.Close(); close(p.done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("last lines of %s (%s):\n%s", name, log, p.tail(40))
		}
	})
	return p
}

// logDir keeps the processes' logs: SKEW_LOG_DIR when set (make test-skew
// keeps them per version under bin/skew), else the test's temp dir.
func logDir(t *testing.T) string {
	if d := os.Getenv("SKEW_LOG_DIR"); d != "" {
		if err := os.MkdirAll(d, 0o755); err == nil {
			return d
		}
	}
	return t.TempDir()
}

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (p *process) output() string {
	b, _ := os.ReadFile(p.log)
	return string(b)
}

func (p *process) tail(n int) string {
	lines := strings.Split(strings.TrimRight(p.output(), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// ready asks the scheduler's secure port for /readyz, as a kubelet's probe
// does (the path is always allowed, the certificate self-signed).
func ready(port string) (bool, string) {
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	resp, err := client.Get("https://127.0.0.1:" + port + "/readyz?verbose")
	if err != nil {
		return false, err.Error()
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	n, _ := resp.Body.Read(buf)
	b.Write(buf[:n])
	return resp.StatusCode == http.StatusOK, b.String()
}

// startArmlocal runs the local ARM endpoint with pools and its node agent
// (registering a Ready Node per provisioned instance, with the admin
// kubeconfig, as a kubelet of the pool would); it returns the cloud-config
// it wrote for muster-autoscaler and the CA file its TLS is signed with.
func startArmlocal(t *testing.T, kubeconfig string, pools []pool) (cloudConfig, caFile string) {
	t.Helper()
	dir := t.TempDir()
	secret := filepath.Join(dir, "client-secret")
	if err := os.WriteFile(secret, []byte("skew-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(pools)
	if err != nil {
		t.Fatal(err)
	}
	poolsFile := filepath.Join(dir, "pools.json")
	if err := os.WriteFile(poolsFile, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	cloud, readyFile := filepath.Join(dir, "cloud-config.yaml"), filepath.Join(dir, "ready.json")
	p := startProcess(t, "armlocal", bins.armlocal, "--scenario=simulate", "--pools-file="+poolsFile,
		"--kubeconfig="+kubeconfig, "--agent-interval=200ms", "--client-secret-file="+secret,
		"--write-cloud-config="+cloud, "--write-ready="+readyFile, "--deletion-delay=0s",
		"--cloud-config-cache-ttl=200ms", "--cloud-config-poll-interval=200ms")
	var ready []byte
	waitFor(t, "armlocal to serve", time.Minute, func() bool {
		if p.exited() {
			t.Fatalf("armlocal exited:\n%s", p.tail(20))
		}
		ready, err = os.ReadFile(readyFile)
		return err == nil
	})
	var info struct {
		CAFile string `json:"caFile"`
	}
	if err := json.Unmarshal(ready, &info); err != nil || info.CAFile == "" {
		t.Fatalf("armlocal's ready file has no caFile: %v\n%s", err, ready)
	}
	return cloud, info.CAFile
}

// pool is one scale set of armlocal's --pools-file.
type pool struct {
	Name              string `json:"name"`
	VMSize            string `json:"vmSize"`
	Min               int    `json:"min"`
	Max               int    `json:"max"`
	PlacementGroup    string `json:"placementGroup,omitempty"`
	ProvisioningDelay string `json:"provisioningDelay"`
}

// startAutoscaler runs muster-autoscaler with its ProvisioningRequest
// consumer against the cluster and armlocal, looping every two seconds.
func startAutoscaler(t *testing.T, kubeconfig, cloudConfig, caFile string) *process {
	t.Helper()
	return startProcessEnv(t, "muster-autoscaler", []string{"SSL_CERT_FILE=" + caFile}, bins.autoscaler,
		"--kubeconfig="+kubeconfig, "--cloud-config="+cloudConfig, "--cloud-provider=muster-azure",
		"--leader-elect=false", "--address=127.0.0.1:"+freePort(t), "--scan-interval=2s",
		"--skip-nodes-with-local-storage=false", "--scale-down-enabled=false",
		"--new-pod-scale-up-delay=0s", "--max-node-provision-time=2m",
		"--muster-provisioning-requests=true", "--v=2")
}
