// Guards on pkg/scheduler's layout: no source file grows past what one reads at a sitting, and no state is kept process-wide.

package plugins

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxFileLines is the most lines a non-test Go file under pkg/scheduler may
// have: a file longer than that holds more than one concern.
const maxFileLines = 600

func TestNoSchedulerFileOverMaxLines(t *testing.T) {
	root := filepath.Join("..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if n := bytes.Count(data, []byte("\n")); n > maxFileLines {
			t.Errorf("%s has %d lines, more than %d: split it by concern", path, n, maxFileLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// packageVars are the package-level variables pkg/scheduler may have, by
// file and name, each with why it is not state one scheduler, or one
// profile, keeps: what the plugins of a profile share lives in their
// gangstate.State, built by the registry, so two schedulers in one process
// share nothing and a stopped scheduler's state goes with it.
var packageVars = map[string]string{
	"provisioning/create.go:podGroupResources":       "constant table",
	"provisioning/metrics.go:requestsWritten":        "metric vector, registered once per process (upstream's way)",
	"provisioning/metrics.go:membersRequested":       "metric vector",
	"provisioning/metrics.go:requestOutcomes":        "metric vector",
	"provisioning/metrics.go:registerOnce":           "metric registration",
	"plugins/gang/metrics.go:quorumWait":             "metric vector",
	"plugins/gang/metrics.go:evictions":              "metric vector",
	"plugins/gang/metrics.go:gangsDesc":              "metric description",
	"plugins/gang/metrics.go:registerOnce":           "metric registration",
	"plugins/gang/metrics.go:phaseSources":           "the live status writers a process-wide collector reads at scrape time; each leaves when its scheduler stops",
	"plugins/gputopology/metrics.go:domainDecisions": "metric vector",
	"plugins/gputopology/metrics.go:registerOnce":    "metric registration",
	"served/features.go:resourceV1":                  "constant API version",
	"served/features.go:schedulingV1beta1":           "constant API version",
	"served/features.go:schedulingV1a3":              "constant API version",
	"served/features.go:SchedulerRequirements":       "constant table",
	"served/served.go:retry":                         "constant backoff, a test seam",
	"statemetrics/collector.go:mu":                   "the sources a process-wide collector reads at scrape time; each leaves when its plugin stops",
	"statemetrics/collector.go:sources":              "as mu",
	"statemetrics/collector.go:once":                 "metric registration",
	"statemetrics/collector.go:entriesDesc":          "metric description",
}

func TestNoPackageLevelStateInScheduler(t *testing.T) {
	root := filepath.Join("..")
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, spec := range g.Specs {
				for _, name := range spec.(*ast.ValueSpec).Names {
					if name.Name == "_" {
						continue
					}
					key := filepath.ToSlash(rel) + ":" + name.Name
					seen[key] = true
					if _, ok := packageVars[key]; !ok {
						t.Errorf("%s: package-level var %s: keep what a profile's plugins share in their gangstate.State, or add it to packageVars with why it is not state", rel, name.Name)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for key := range packageVars {
		if !seen[key] {
			t.Errorf("packageVars lists %s, which is gone: drop it", key)
		}
	}
}
