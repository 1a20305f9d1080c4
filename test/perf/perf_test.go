// Package perf runs upstream's scheduler benchmark
// (k8s.io/kubernetes/test/integration/scheduler_perf) on upstream's gang and
// topology-aware workloads, once under upstream's plugins and once under
// Muster's, which it registers through scheduler_perf's out-of-tree plugin
// registry. scheduler_perf starts an "etcd" from PATH for each workload;
// `make bench-perf` builds hack/etcd for it.
//
//	make bench-perf                  # the 5000-node workloads
//	make bench-perf-short            # the 10-node ones (CI)
package perf

import (
	"fmt"
	"os"
	"testing"

	_ "k8s.io/component-base/logs/json/register"
	schedperf "k8s.io/kubernetes/test/integration/scheduler_perf"

	"github.com/muster-project/muster/pkg/scheduler/plugins"
	"github.com/muster-project/muster/test/harness"
)

func TestMain(m *testing.M) {
	if err := harness.EnsureCertFixtureDir(); err != nil {
		fmt.Fprintf(os.Stderr, "%v\n", err)
		os.Exit(1)
	}
	if err := schedperf.InitTests(); err != nil {
		fmt.Fprintf(os.Stderr, "%v\n", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

func BenchmarkPerfScheduling(b *testing.B) {
	muster := plugins.New()
	go muster.RunControllers(b.Context())
	schedperf.RunBenchmarkPerfScheduling(b, "performance-config.yaml", "muster", muster.Registry())
}
