// The skew test's cluster: go.mod's kube-apiserver on an in-process etcd with RBAC, the shipped YAML applied, CRDs installed, kubeconfigs for service accounts and admin.

package skew

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	authenticationv1 "k8s.io/api/authentication/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	kubeapiservertesting "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
	"k8s.io/kubernetes/test/integration/framework"
	"sigs.k8s.io/yaml"
)

// repoRoot is the root module's directory, two levels up.
var repoRoot = filepath.Join("..", "..")

// cluster is this module's kube-apiserver (the version go.mod pins) on an
// in-process etcd, authorizing with RBAC as real clusters do.
type cluster struct {
	admin *rest.Config
	kube  kubernetes.Interface
	dyn   dynamic.Interface
	disco discovery.DiscoveryInterface
}

func startCluster(t *testing.T) *cluster {
	t.Helper()
	startEtcd(t)
	certFixtureDir(t)
	srv, err := kubeapiservertesting.StartTestServer(t, kubeapiservertesting.NewDefaultTestServerOptions(),
		append(framework.DefaultTestServerFlags(), "--authorization-mode=RBAC"), framework.SharedEtcd())
	if err != nil {
		t.Fatalf("starting kube-apiserver: %v", err)
	}
	t.Cleanup(srv.TearDownFn)
	cfg := rest.CopyConfig(srv.ClientConfig)
	cfg.QPS, cfg.Burst = 200, 400
	c := &cluster{admin: cfg}
	c.kube = kubernetes.NewForConfigOrDie(cfg)
	c.dyn = dynamic.NewForConfigOrDie(cfg)
	c.disco = c.kube.Discovery()
	return c
}

func startEtcd(t *testing.T) {
	t.Helper()
	client, peer := freeURL(t), freeURL(t)
	cfg := embed.NewConfig()
	cfg.Name = "muster-skew"
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
	case <-time.After(time.Minute):
		t.Fatal("etcd did not become ready")
	}
	t.Setenv("KUBE_INTEGRATION_ETCD_URL", client.String())
}

func freeURL(t *testing.T) *url.URL {
	t.Helper()
	u, _ := url.Parse("http://127.0.0.1:" + freePort(t))
	return u
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
}

// certFixtureDir gives the test server a writable place for its serving
// certificate: it writes beside its own source, in the read-only module
// cache, unless TEST_SRCDIR/TEST_WORKSPACE point elsewhere.
func certFixtureDir(t *testing.T) {
	t.Helper()
	cmd := exec.Command(goBin(), "list", modFlag(), "-f", "{{.Dir}}", "k8s.io/kubernetes/cmd/kube-apiserver/app/testing")
	out, err := cmd.Output()
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

// modFlag is the -modfile this test runs with (make test-skew sets
// SKEW_MODFILE for versions other than go.mod's), for go commands it runs.
func modFlag() string {
	if f := os.Getenv("SKEW_MODFILE"); f != "" {
		return "-modfile=" + f
	}
	return "-modfile=go.mod"
}

func goBin() string {
	if g := os.Getenv("GO"); g != "" {
		return g
	}
	return "go"
}

// apply creates every object of the YAML files under the root module, in
// order, with the admin client (kubectl apply's effect on a new cluster).
func (c *cluster) apply(t *testing.T, files ...string) {
	t.Helper()
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(c.disco))
	for _, f := range files {
		raw, err := os.ReadFile(filepath.Join(repoRoot, f))
		if err != nil {
			t.Fatal(err)
		}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(raw), 4096)
		for {
			obj := &unstructured.Unstructured{}
			if err := dec.Decode(&obj.Object); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if len(obj.Object) == 0 {
				continue
			}
			gvk := obj.GroupVersionKind()
			m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
			if err != nil {
				t.Fatalf("%s: %s %s: %v", f, gvk, obj.GetName(), err)
			}
			var ri dynamic.ResourceInterface = c.dyn.Resource(m.Resource)
			if m.Scope.Name() == meta.RESTScopeNameNamespace {
				ri = c.dyn.Resource(m.Resource).Namespace(obj.GetNamespace())
			}
			if _, err := ri.Create(context.Background(), obj, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
				t.Fatalf("%s: creating %s %s: %v", f, gvk.Kind, obj.GetName(), err)
			}
		}
	}
}

// installCRDs creates Muster's CRDs and waits until discovery serves them.
func (c *cluster) installCRDs(t *testing.T) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repoRoot, "manifests", "crds", "*_*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs under manifests/crds: %v", err)
	}
	for _, f := range files {
		rel, _ := filepath.Rel(repoRoot, f)
		c.apply(t, rel)
		raw, _ := os.ReadFile(f)
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.Unmarshal(raw, crd); err != nil {
			t.Fatal(err)
		}
		for _, v := range crd.Spec.Versions {
			gv := crd.Spec.Group + "/" + v.Name
			waitFor(t, "discovery to serve "+crd.Spec.Names.Plural+"."+gv, time.Minute, func() bool {
				l, err := c.disco.ServerResourcesForGroupVersion(gv)
				if err != nil {
					return false
				}
				for _, r := range l.APIResources {
					if r.Name == crd.Spec.Names.Plural {
						return true
					}
				}
				return false
			})
		}
	}
}

// serves says whether the server serves gvr.
func (c *cluster) serves(gvr schema.GroupVersionResource) bool {
	l, err := c.disco.ServerResourcesForGroupVersion(gvr.GroupVersion().String())
	if err != nil {
		return false
	}
	for _, r := range l.APIResources {
		if r.Name == gvr.Resource {
			return true
		}
	}
	return false
}

// serviceAccountKubeconfig writes a kubeconfig that authenticates as the
// service account with a token from the TokenRequest API, as a pod of it
// would: the shipped RBAC is what it may do.
func (c *cluster) serviceAccountKubeconfig(t *testing.T, namespace, name string) string {
	t.Helper()
	expiry := int64(24 * 3600)
	tr, err := c.kube.CoreV1().ServiceAccounts(namespace).CreateToken(context.Background(), name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("token for service account %s/%s: %v", namespace, name, err)
	}
	return writeKubeconfig(t, c.admin, name, &clientcmdapi.AuthInfo{Token: tr.Status.Token})
}

// adminKubeconfig writes the admin client's kubeconfig.
func (c *cluster) adminKubeconfig(t *testing.T) string {
	t.Helper()
	return writeKubeconfig(t, c.admin, "admin", &clientcmdapi.AuthInfo{Token: c.admin.BearerToken, ClientCertificateData: c.admin.CertData, ClientKeyData: c.admin.KeyData})
}

func writeKubeconfig(t *testing.T, server *rest.Config, user string, auth *clientcmdapi.AuthInfo) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), user+".kubeconfig")
	kc := clientcmdapi.NewConfig()
	kc.Clusters["local"] = &clientcmdapi.Cluster{Server: server.Host, CertificateAuthorityData: server.CAData, TLSServerName: server.ServerName, InsecureSkipTLSVerify: server.Insecure}
	kc.AuthInfos[user] = auth
	kc.Contexts["local"] = &clientcmdapi.Context{Cluster: "local", AuthInfo: user}
	kc.CurrentContext = "local"
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// waitFor polls cond until it holds, failing after limit: a hang guard,
// except where a test says the limit is what it checks.
func waitFor(t *testing.T, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %s waiting for %s", limit, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
