// The scheduler configurations tests run: Muster's profile and GangArgs, the default, leader election.

package controlplane

import (
	"fmt"
	"strings"
)

// MusterProfile is the scheduler name of Muster's profile.
const MusterProfile = "muster-scheduler"

// GangArgs are the MusterGang args a test sets; zero fields keep the defaults.
type GangArgs struct {
	ScheduleTimeoutSeconds int64
	BackoffSeconds         int64
	MaxGangMembers         int32
	StatusSyncMillis       int64
	// Preemption, when set, is the preemption rules in YAML flow style,
	// e.g. "[{minPriority: 0, policy: LowerPriority, maxWaitForNodesSeconds: 0}]".
	Preemption string
	// StarvationBoundSeconds, when set, is written even when 0.
	StarvationBoundSeconds *int64
	// StrandedMembers, when set, is Evict or Keep.
	StrandedMembers string
	// HintSyncMillis is MusterTopology's hintSyncMillis (default here 200).
	HintSyncMillis int64
	// PodWriteQPS is MusterGang's podWriteQPS.
	PodWriteQPS int64
}

// MusterConfig returns a KubeSchedulerConfiguration with the muster-scheduler
// profile, reading the API server through kubeconfig, without leader election.
func MusterConfig(kubeconfig string, a GangArgs) string {
	var args []string
	add := func(name string, v int64) {
		if v != 0 {
			args = append(args, fmt.Sprintf("      %s: %d", name, v))
		}
	}
	add("scheduleTimeoutSeconds", a.ScheduleTimeoutSeconds)
	add("backoffSeconds", a.BackoffSeconds)
	add("maxGangMembers", int64(a.MaxGangMembers))
	add("statusSyncMillis", a.StatusSyncMillis)
	add("podWriteQPS", a.PodWriteQPS)
	if a.StarvationBoundSeconds != nil {
		args = append(args, fmt.Sprintf("      starvationBoundSeconds: %d", *a.StarvationBoundSeconds))
	}
	if a.Preemption != "" {
		args = append(args, "      preemption: "+a.Preemption)
	}
	if a.StrandedMembers != "" {
		args = append(args, "      strandedMembers: "+a.StrandedMembers)
	}
	hintSync := a.HintSyncMillis
	if hintSync == 0 {
		hintSync = 200
	}
	argText := "{}"
	if len(args) > 0 {
		argText = "\n" + strings.Join(args, "\n")
	}
	return fmt.Sprintf(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: false
clientConnection:
  kubeconfig: %q
  qps: 5000
  burst: 5000
profiles:
- schedulerName: %s
  plugins:
    queueSort:
      enabled: [{name: MusterGang}]
      disabled: [{name: "*"}]
    preEnqueue:
      enabled: [{name: MusterGangGate}, {name: MusterGang}]
    preFilter:
      enabled: [{name: MusterGang}, {name: MusterTopology}]
    postFilter:
      enabled: [{name: MusterGang}, {name: MusterTopology}]
      disabled: [{name: DefaultPreemption}]
    permit:
      enabled: [{name: MusterGang}]
    reserve:
      enabled: [{name: MusterGang}, {name: MusterTopology}]
    postBind:
      enabled: [{name: MusterGang}]
    filter:
      enabled: [{name: MusterGang}, {name: MusterTopology}]
    preScore:
      enabled: [{name: MusterTopology}]
    score:
      enabled: [{name: MusterTopology, weight: 20}]
      disabled: [{name: NodeResourcesBalancedAllocation}]
  pluginConfig:
  - name: MusterGang
    args: %s
  - name: MusterTopology
    args: {hintSyncMillis: %d}
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}, {name: nvidia.com/gpu, weight: 3}]
`, kubeconfig, MusterProfile, argText, hintSync)
}

// DefaultConfig returns a KubeSchedulerConfiguration with only the upstream
// default profile (the baseline Muster is measured against).
func DefaultConfig(kubeconfig string) string {
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
`, kubeconfig)
}

// LeaderElected turns on leader election in a config from MusterConfig, on
// the Lease kube-system/lease, with short timings so that a test sees a
// standby take over within seconds.
func LeaderElected(config, lease string) string {
	return strings.Replace(config, "leaderElection:\n  leaderElect: false\n", fmt.Sprintf(`leaderElection:
  leaderElect: true
  resourceLock: leases
  resourceName: %s
  resourceNamespace: kube-system
  leaseDuration: 3s
  renewDeadline: 2s
  retryPeriod: 250ms
`, lease), 1)
}
