// Package apiservertest starts a real kube-apiserver (k8s 1.33 line) on an
// in-process etcd for tests: the node agent's, the armlocal command's and the
// end-to-end tests.
package apiservertest

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

func startEtcd(t *testing.T) {
	t.Helper()
	client, peer := freeURL(t), freeURL(t)
	cfg := embed.NewConfig()
	cfg.Name = "muster-apiservertest"
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

// certFixtureDir gives the test server a writable place for its certificate
// (it writes beside its source, in the read-only module cache, unless
// TEST_SRCDIR/TEST_WORKSPACE redirect it).
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

// Start runs etcd and kube-apiserver for the test's lifetime and returns an
// admin client config.
func Start(t *testing.T) *rest.Config {
	t.Helper()
	return StartWithFlags(t)
}

// StartWithFlags is Start with more kube-apiserver flags (for example
// --authorization-mode=RBAC; the default authorizes every request).
func StartWithFlags(t *testing.T, flags ...string) *rest.Config {
	t.Helper()
	startEtcd(t)
	certFixtureDir(t)
	srv, err := kubeapiservertesting.StartTestServer(t, kubeapiservertesting.NewDefaultTestServerOptions(),
		append(framework.DefaultTestServerFlags(), flags...), framework.SharedEtcd())
	if err != nil {
		t.Fatalf("starting kube-apiserver: %v", err)
	}
	t.Cleanup(srv.TearDownFn)
	cfg := rest.CopyConfig(srv.ClientConfig)
	cfg.QPS, cfg.Burst = 500, 500
	return cfg
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

// WriteKubeconfig writes c for a subprocess; the loopback certificate is
// issued for a server name, not for 127.0.0.1.
func WriteKubeconfig(t *testing.T, c *rest.Config) string {
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

// GoBin is the go command the tests build with.
func GoBin() string { return goBin() }

// WaitFor polls cond every poll until it holds, failing the test after
// limit: a hang guard, not a timing assertion.
func WaitFor(t *testing.T, what string, limit, poll time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(poll)
	}
}
