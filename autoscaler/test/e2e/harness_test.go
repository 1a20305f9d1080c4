package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/muster-project/muster/autoscaler/nodeagent/apiservertest"
)

// The API server comes from apiservertest, shared with the node agent's tests.
var (
	startAPIServer  = apiservertest.Start
	writeKubeconfig = apiservertest.WriteKubeconfig
	goBin           = apiservertest.GoBin
)

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
