// Package harness holds what only test binaries need around the in-process
// control plane (pkg/controlplane, which the tests start with
// controlplane.Start(t)): RunTests, the TestMain body that stops the
// embedded etcd, klog's -v and -vmodule flags, and EnsureCertFixtureDir
// for upstream's own API server test server (the scheduler_perf benchmark
// in test/perf).
package harness

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"k8s.io/klog/v2"

	"github.com/muster-project/muster/pkg/controlplane"
)

// init gives the test binaries klog's -v and -vmodule, as upstream's
// ktesting did while the control plane was built on it: go test
// ./test/integration -args -v=3.
func init() {
	var klogFlags flag.FlagSet
	klog.InitFlags(&klogFlags)
	for _, name := range []string{"v", "vmodule"} {
		if flag.CommandLine.Lookup(name) == nil {
			f := klogFlags.Lookup(name)
			flag.CommandLine.Var(f.Value, name, f.Usage)
		}
	}
}

// RunTests runs a test binary's tests, then stops its etcd and removes the
// data: use it as TestMain's body in packages that start control planes.
func RunTests(m *testing.M) int {
	defer controlplane.StopEtcd()
	// MUSTER_TEST_V=N logs at klog verbosity N (the gangs' attempts and
	// failures at 2, domain choices at 3), to find why a test failed.
	if v := os.Getenv("MUSTER_TEST_V"); v != "" {
		var fs flag.FlagSet
		klog.InitFlags(&fs)
		if err := fs.Set("v", v); err != nil {
			fmt.Fprintf(os.Stderr, "MUSTER_TEST_V=%q: %v\n", v, err)
			return 2
		}
	}
	return m.Run()
}
