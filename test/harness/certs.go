// EnsureCertFixtureDir: where upstream's own API server test server (scheduler_perf's) caches its certificate.

package harness

import (
	"os"
	"path/filepath"
	goruntime "runtime"
	"sync"
)

var (
	certOnce sync.Once
	certErr  error
)

// EnsureCertFixtureDir gives upstream's API server test server
// (k8s.io/kubernetes/cmd/kube-apiserver/app/testing, which scheduler_perf
// starts; the control plane no longer does) somewhere to cache its
// self-signed serving certificate. It writes it beside its own source
// file, in a testdata directory that vendoring leaves out and that must not
// be written to; it honours Bazel's TEST_SRCDIR/TEST_WORKSPACE by looking
// under $TEST_SRCDIR/$TEST_WORKSPACE/<its source dir>/testdata instead, so
// those point at a temporary directory, once per process.
func EnsureCertFixtureDir() error {
	certOnce.Do(func() {
		const apiserverPkg = "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
		pkg := apiserverPkg
		if _, self, _, ok := goruntime.Caller(0); ok && filepath.IsAbs(self) {
			// This file is test/harness/certs.go; the module root is two up.
			pkg = filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(self))), "vendor", apiserverPkg)
		}
		dir, err := os.MkdirTemp("", "muster-apiserver-certs")
		if err != nil {
			certErr = err
			return
		}
		const workspace = "muster"
		if certErr = os.MkdirAll(filepath.Join(dir, workspace, pkg, "testdata"), 0o700); certErr != nil {
			return
		}
		os.Setenv("TEST_SRCDIR", dir)
		os.Setenv("TEST_WORKSPACE", workspace)
	})
	return certErr
}
