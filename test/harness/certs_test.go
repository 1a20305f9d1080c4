// Tests of EnsureCertFixtureDir: the directory upstream's test server caches its certificate in.

package harness

import (
	"os"
	"path/filepath"
	"testing"
)

// The fixture directory is where upstream's test server looks: under
// $TEST_SRCDIR/$TEST_WORKSPACE, the vendored package's source directory's
// testdata.
func TestEnsureCertFixtureDir(t *testing.T) {
	if err := EnsureCertFixtureDir(); err != nil {
		t.Fatal(err)
	}
	srcdir, workspace := os.Getenv("TEST_SRCDIR"), os.Getenv("TEST_WORKSPACE")
	if srcdir == "" || workspace == "" {
		t.Fatalf("TEST_SRCDIR=%q TEST_WORKSPACE=%q, want both set", srcdir, workspace)
	}
	wd, err := os.Getwd() // test/harness
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(srcdir, workspace, filepath.Dir(filepath.Dir(wd)), "vendor/k8s.io/kubernetes/cmd/kube-apiserver/app/testing/testdata")
	if st, err := os.Stat(want); err != nil || !st.IsDir() {
		t.Errorf("%s: not a directory (%v)", want, err)
	}
	t.Cleanup(func() { os.RemoveAll(srcdir) })
}
