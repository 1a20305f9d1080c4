// BaselineConfig: upstream's default profile scoring with LeastAllocated or MostAllocated.

package controlplane

import "fmt"

// NodeResourcesFit scoring strategies the baseline profiles use.
const (
	LeastAllocated = "LeastAllocated" // upstream's default: spread
	MostAllocated  = "MostAllocated"  // bin packing
)

// BaselineConfig returns a KubeSchedulerConfiguration with one upstream
// default profile (schedulerName default-scheduler, every default plugin)
// whose NodeResourcesFit scores nodes with strategy, LeastAllocated or
// MostAllocated; the scheduler rejects any other value at start-up, naming
// the field. It reads the API server through kubeconfig, without leader
// election, like DefaultConfig.
//
// Resources and weights: cpu 1, memory 1, nvidia.com/gpu 3. GPUs are the
// scarce resource whose packing (or spreading) the comparison is about, and
// the default resources (cpu and memory, weight 1 each) do not count them
// at all; training pods ask for little cpu and memory next to a node's, so
// with gpu at 3 of 5 the score follows GPU use while cpu and memory still
// break ties the way upstream would.
func BaselineConfig(kubeconfig, strategy string) string {
	return fmt.Sprintf(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: false
clientConnection:
  kubeconfig: %q
  qps: 5000
  burst: 5000
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: %q
        resources:
        - {name: cpu, weight: 1}
        - {name: memory, weight: 1}
        - {name: %s, weight: 3}
`, kubeconfig, strategy, GPU)
}
