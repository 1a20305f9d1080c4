// E2E test of the secure endpoint: metrics only to authorized callers, health to anyone, the plain endpoint off, its self-signed certificate.

package e2e

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	apiv1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/muster-project/muster/autoscaler/armlocal"
	"github.com/muster-project/muster/autoscaler/nodeagent/apiservertest"
)

// The secure endpoint serves metrics only to callers the API server
// authenticates and authorizes (a service account bound to get /metrics),
// health to anyone (kubelet's probes), and the plain endpoint can be off.
func TestSecureEndpoints(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the autoscaler and runs a control plane")
	}
	bin := buildAutoscaler(t)
	// RBAC, so that the SubjectAccessReviews the endpoint asks for mean
	// something (the test server's default authorizes everything).
	restCfg := apiservertest.StartWithFlags(t, "--authorization-mode=RBAC")
	kube := kubernetes.NewForConfigOrDie(restCfg)
	ctx := context.Background()
	arm, err := armlocal.New(armlocal.Options{ProvisioningDelay: time.Second, ClientID: "muster-autoscaler", ClientSecret: "e2e-secret"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(arm.Close)
	addPools(t, arm, "2")
	kubeconfig := writeKubeconfig(t, restCfg)

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	certDir := t.TempDir()
	startAutoscalerProcess(t, bin, []string{
		"--kubeconfig=" + kubeconfig,
		"--cloud-config=" + writeCloudConfig(t, arm, "3s", "2m"),
		"--leader-elect=false",
		"--scan-interval=1s",
		"--address=", // the secure endpoint only
		"--bind-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", port),
		"--cert-dir=" + certDir,
		"--authentication-kubeconfig=" + kubeconfig,
		"--authorization-kubeconfig=" + kubeconfig,
		"--v=2",
	}, append(os.Environ(), "SSL_CERT_FILE="+arm.CAFile()), "[autoscaler] ")

	// A scraper's service account may get /metrics; another may not.
	for _, sa := range []string{"scraper", "nobody"} {
		if _, err := kube.CoreV1().ServiceAccounts("default").Create(ctx, &apiv1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := kube.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "muster-autoscaler-metrics-reader"},
		Rules: []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := kube.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "scraper-reads-metrics"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "muster-autoscaler-metrics-reader"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: "default", Name: "scraper"}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	token := func(sa string) string {
		tr, err := kube.CoreV1().ServiceAccounts("default").CreateToken(ctx, sa, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return tr.Status.Token
	}

	// The self-signed serving certificate is the only one to trust.
	var client *http.Client
	waitFor(t, "the secure endpoint's certificate", func() bool {
		pem, err := os.ReadFile(filepath.Join(certDir, "muster-autoscaler.crt"))
		if err != nil {
			return false
		}
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(pem)
		client = &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: "localhost"}}}
		return true
	})
	get := func(path, bearer string) int {
		req, err := http.NewRequest(http.MethodGet, fmt.Sprintf("https://127.0.0.1:%d%s", port, path), nil)
		if err != nil {
			t.Fatal(err)
		}
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	waitFor(t, "health over HTTPS without credentials", func() bool { return get(healthPathForTest, "") == http.StatusOK })
	scraper, nobody := token("scraper"), token("nobody")
	for _, c := range []struct {
		who, bearer string
		want        int
	}{
		{"anonymous", "", http.StatusForbidden},
		{"a service account without the role", nobody, http.StatusForbidden},
		{"a bad token", "not-a-token", http.StatusUnauthorized},
		{"the scraper", scraper, http.StatusOK},
	} {
		if got := get("/metrics", c.bearer); got != c.want {
			t.Errorf("GET /metrics as %s: %d, want %d", c.who, got, c.want)
		}
	}
}

// healthPathForTest is the autoscaler's health path (cmd/muster-autoscaler).
const healthPathForTest = "/health-check"
