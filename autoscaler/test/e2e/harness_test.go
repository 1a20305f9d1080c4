package e2e

import (
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	kubeapiservertesting "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
	"k8s.io/kubernetes/test/integration/framework"
)

// startEtcd runs etcd in-process on free loopback ports and points the
// integration framework at it.
func startEtcd(t *testing.T) {
	t.Helper()
	client, peer := freeURL(t), freeURL(t)
	cfg := embed.NewConfig()
	cfg.Name = "muster-autoscaler-e2e"
	cfg.Dir = t.TempDir()
	cfg.ListenClientUrls = []url.URL{*client}
	cfg.AdvertiseClientUrls = []url.URL{*client}
	cfg.ListenPeerUrls = []url.URL{*peer}
	cfg.AdvertisePeerUrls = []url.URL{*peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.UnsafeNoFsync = true
	cfg.LogLevel = "error"
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		t.Fatalf("starting etcd: %v", err)
	}
	t.Cleanup(e.Close)
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(60 * time.Second):
		t.Fatal("etcd did not become ready")
	}
	t.Setenv("KUBE_INTEGRATION_ETCD_URL", client.String())
}

func freeURL(t *testing.T) *url.URL {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	u, _ := url.Parse("http://" + l.Addr().String())
	return u
}

// certFixtureDir gives the API server test server a writable place for its
// self-signed certificate: it writes beside its own source, which is in the
// read-only module cache, unless TEST_SRCDIR/TEST_WORKSPACE redirect it.
func certFixtureDir(t *testing.T) {
	t.Helper()
	out, err := exec.Command(goBin(), "list", "-f", "{{.Dir}}", "k8s.io/kubernetes/cmd/kube-apiserver/app/testing").Output()
	if err != nil {
		t.Fatalf("locating the kube-apiserver test server package: %v", err)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "muster", strings.TrimSpace(string(out)), "testdata"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TEST_SRCDIR", dir)
	t.Setenv("TEST_WORKSPACE", "muster")
}

// startAPIServer runs a real kube-apiserver on the k8s 1.33 line.
func startAPIServer(t *testing.T) *rest.Config {
	t.Helper()
	startEtcd(t)
	certFixtureDir(t)
	srv, err := kubeapiservertesting.StartTestServer(t, kubeapiservertesting.NewDefaultTestServerOptions(),
		framework.DefaultTestServerFlags(), framework.SharedEtcd())
	if err != nil {
		t.Fatalf("starting kube-apiserver: %v", err)
	}
	t.Cleanup(srv.TearDownFn)
	cfg := rest.CopyConfig(srv.ClientConfig)
	cfg.QPS, cfg.Burst = 500, 500
	return cfg
}

// writeKubeconfig writes c for a subprocess; the loopback certificate is
// issued for a server name, not for 127.0.0.1.
func writeKubeconfig(t *testing.T, c *rest.Config) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	kc := clientcmdapi.NewConfig()
	kc.Clusters["local"] = &clientcmdapi.Cluster{Server: c.Host, CertificateAuthorityData: c.CAData, TLSServerName: c.ServerName, InsecureSkipTLSVerify: c.Insecure}
	kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{Token: c.BearerToken, ClientCertificateData: c.CertData, ClientKeyData: c.KeyData}
	kc.Contexts["local"] = &clientcmdapi.Context{Cluster: "local", AuthInfo: "admin"}
	kc.CurrentContext = "local"
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

func goBin() string {
	if g := os.Getenv("GO"); g != "" {
		return g
	}
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(os.Getenv("GOROOT"), "bin", "go")
}

// buildAutoscaler builds cmd/muster-autoscaler with the module's GOFLAGS
// (the Makefile's -tags=kwok), using the build cache.
func buildAutoscaler(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "muster-autoscaler")
	cmd := exec.Command(goBin(), "build", "-o", bin, "./cmd/muster-autoscaler")
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building muster-autoscaler: %v\n%s", err, out)
	}
	readModuleSources(t)
	return bin
}

// readModuleSources reads the sources of this module's packages the binary
// is built from, and go.mod/go.sum: go test caches a result by the files
// the test read, and the binary is built in a subprocess, so without this
// a changed provider or consumer would replay a cached pass.
func readModuleSources(t *testing.T) {
	t.Helper()
	cmd := exec.Command(goBin(), "list", "-deps", "-f", "{{if .Module}}{{if .Module.Main}}{{.Dir}}{{end}}{{end}}", "./cmd/muster-autoscaler")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("listing muster-autoscaler's packages: %v", err)
	}
	files := []string{filepath.Join("..", "..", "go.mod"), filepath.Join("..", "..", "go.sum")}
	for _, dir := range strings.Fields(string(out)) {
		matches, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range matches {
			if !strings.HasSuffix(m, "_test.go") {
				files = append(files, m)
			}
		}
	}
	for _, f := range files {
		if _, err := os.ReadFile(f); err != nil {
			t.Fatalf("reading %s: %v", f, err)
		}
	}
}

// logWriter forwards a subprocess's output to the test log.
type logWriter struct {
	t      *testing.T
	prefix string
}

func (w logWriter) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		w.t.Log(w.prefix + line)
	}
	return len(p), nil
}
