// The simulator's child processes: armlocal, muster-autoscaler, their flags, the trace clock server.

package replay

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/muster-project/muster/pkg/simulate"
)

// Trace-time settings of the simulated cloud and autoscaler, turned into wall
// time with --minute.
const (
	simProvisioningDelay = 3 * time.Minute // an instance takes this long to come up
	simUnneededTime      = 5 * time.Minute // an empty node is removed after this
)

func wallOf(o Options, trace time.Duration) time.Duration {
	return time.Duration(float64(trace) / float64(time.Minute) * float64(o.Minute))
}

// timerOf is a component's timer of trace duration d as its flag takes it:
// d itself on a stepped clock (the component reads the trace clock), else
// wall time scaled by --minute.
func timerOf(o Options, d time.Duration) string {
	if o.Step > 0 {
		return d.String()
	}
	return wallOf(o, d).String()
}

// heavyQuotaVCPUs is the heavy GPU family's vCPU quota: eight 96-vCPU nodes.
const heavyQuotaVCPUs = 768

// defaultPools is, as a pools file, the cluster startArmlocal runs without
// one (its flags and armlocal's default sizes): what the oracle plans on.
func defaultPools() simulate.PoolsFile {
	boot := simProvisioningDelay.Minutes()
	return simulate.PoolsFile{RegionalQuotaVCPUs: 2000, Pools: []simulate.PoolSpec{
		{Name: "cpu", VMSize: "Standard_D16s_v5", Max: 10, BootMinutes: boot},
		{Name: "gpu-light", VMSize: "Standard_NC4as_T4_v3", Max: 8, BootMinutes: boot},
		{Name: "gpu-heavy", VMSize: "Standard_ND96isr_H100_v5", Max: 8, BootMinutes: boot, PlacementGroup: "ppg-ib", FamilyQuotaVCPUs: heavyQuotaVCPUs},
	}}
}

// poolInfo is a pool as armlocal's ready file describes it.
type poolInfo struct {
	Name string `json:"name"`
	SKU  string `json:"sku"`
	Min  int    `json:"min"`
	Max  int    `json:"max"`
	GPUs int    `json:"gpus"`
	// HourlyPrice is $ per node-hour (the pools file's, or the size's).
	HourlyPrice float64 `json:"hourlyPrice"`
	Spot        bool    `json:"spot"`
}

// freshLog names a log file in dir that no earlier start of the same
// component wrote (a restarted component keeps its predecessor's log).
func freshLog(dir, base string) string {
	path := filepath.Join(dir, base+".log")
	for i := 2; ; i++ {
		if _, err := os.Stat(path); os.IsNotExist(err) {
			return path
		}
		path = filepath.Join(dir, fmt.Sprintf("%s-%d.log", base, i))
	}
}

// serveTraceClock serves the trace clock over HTTP for armlocal's and the
// autoscaler's --clock-url, so that the cloud's boot delays and the
// autoscaler's timers are given in trace time whatever --minute is, or
// however a stepped clock moves.
func serveTraceClock(now func() time.Time) (url string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("serving the trace clock: %w", err)
	}
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, now().Format(time.RFC3339Nano))
	})}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String() + "/now", func() { _ = srv.Close() }, nil
}

// cloudDelay is a trace-time delay as armlocal takes it: as is on the trace
// clock (clockURL), else turned into wall time.
func cloudDelay(o Options, clockURL string, trace time.Duration) time.Duration {
	if clockURL != "" {
		return trace
	}
	return wallOf(o, trace)
}

// startArmlocal runs the local ARM endpoint with the simulator's pools and
// its node agent, and waits until it has written the autoscaler's
// cloud-config. With clockURL the cloud runs on that clock (serveTraceClock)
// and its delays are given in trace time; without, on wall time.
func startArmlocal(ctx context.Context, o Options, kubeconfig, dir, clockURL string) (*process, error) {
	secret := make([]byte, 16)
	if _, err := rand.Read(secret); err != nil {
		return nil, err
	}
	secretFile := filepath.Join(dir, "client-secret")
	if err := os.WriteFile(secretFile, []byte(hex.EncodeToString(secret)), 0o600); err != nil {
		return nil, err
	}
	ready := filepath.Join(dir, "armlocal-ready.json")
	cloud := filepath.Join(dir, "cloud-config.yaml")
	log := filepath.Join(dir, "armlocal.log")
	args := []string{
		"--scenario=simulate",
		"--kubeconfig=" + kubeconfig,
		"--agent-interval=" + agentInterval(o),
		"--client-secret-file=" + secretFile,
		"--write-cloud-config=" + cloud,
		"--write-ready=" + ready,
		"--provisioning-delay=" + cloudDelay(o, clockURL, simProvisioningDelay).String(),
		"--deletion-delay=0s",
		"--gpu-scale-down-unneeded-time=" + timerOf(o, simUnneededTime),
		"--gpu-max-node-provision-time=" + provisionTimeout(o),
		"--cloud-config-cache-ttl=" + cloudCacheTTL(o), "--cloud-config-poll-interval=" + cloudPollInterval(o),
	}
	if o.pools == nil {
		args = append(args, "--cpu-max=10", "--light-max=8", "--heavy-max=8",
			// Eight 96-vCPU H100 nodes: the heavy pool's max is also its quota.
			fmt.Sprintf("--gpu-family-quota-vcpus=%d", heavyQuotaVCPUs), "--regional-quota-vcpus=2000")
	} else {
		file, err := writeArmlocalPools(o, dir, clockURL)
		if err != nil {
			return nil, err
		}
		quota := o.pools.RegionalQuotaVCPUs
		if quota == 0 {
			quota = 10000
		}
		args = append(args, "--pools-file="+file, fmt.Sprintf("--regional-quota-vcpus=%d", quota))
	}
	if o.faults {
		args = append(args, "--faults-address=127.0.0.1:0")
	}
	if clockURL != "" {
		args = append(args, "--clock-url="+clockURL)
	}
	p, err := startProcess(ctx, filepath.Join(o.BinDir, "armlocal"), args, log)
	if err != nil {
		return nil, err
	}
	raw, err := waitFile(p, ready, time.Minute)
	if err != nil {
		p.stop()
		return nil, fmt.Errorf("armlocal: %w\n%s", err, lastLines(log, 20))
	}
	var info struct {
		CAFile    string     `json:"caFile"`
		FaultsURL string     `json:"faultsURL"`
		Pools     []poolInfo `json:"pools"`
	}
	if err := json.Unmarshal(raw, &info); err != nil || info.CAFile == "" {
		p.stop()
		return nil, fmt.Errorf("armlocal: ready file %s has no caFile: %v", ready, err)
	}
	if o.faults && info.FaultsURL == "" {
		p.stop()
		return nil, fmt.Errorf("armlocal: ready file %s has no faultsURL", ready)
	}
	p.cloudConfig, p.caFile, p.faultsURL, p.pools = cloud, info.CAFile, info.FaultsURL, info.Pools
	return p, nil
}

// writeArmlocalPools writes the user's pools as armlocal's --pools-file,
// boot times as cloudDelay gives them.
func writeArmlocalPools(o Options, dir, clockURL string) (string, error) {
	type spec struct {
		Name              string  `json:"name"`
		VMSize            string  `json:"vmSize"`
		Min               int     `json:"min"`
		Max               int     `json:"max"`
		PlacementGroup    string  `json:"placementGroup,omitempty"`
		ProvisioningDelay string  `json:"provisioningDelay"`
		FamilyQuotaVCPUs  int     `json:"familyQuotaVCPUs,omitempty"`
		HourlyPrice       float64 `json:"hourlyPrice,omitempty"`
		Spot              bool    `json:"spot,omitempty"`
	}
	var specs []spec
	for _, p := range o.pools.Pools {
		specs = append(specs, spec{Name: p.Name, VMSize: p.VMSize, Min: p.Min, Max: p.Max, PlacementGroup: p.PlacementGroup,
			ProvisioningDelay: cloudDelay(o, clockURL, time.Duration(p.BootMinutes*float64(time.Minute))).String(),
			FamilyQuotaVCPUs:  p.FamilyQuotaVCPUs, HourlyPrice: p.PricePerHour, Spot: p.Spot})
	}
	b, err := json.Marshal(specs)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "pools.json")
	return path, os.WriteFile(path, b, 0o600)
}

// startAutoscaler runs muster-autoscaler against the API server and armlocal,
// with the ProvisioningRequest consumer and the withdrawal of unneeded
// upcoming nodes on for Muster's run and off for the baseline; the kueue
// side has the consumer serve Kueue's requests, as a stock
// cluster-autoscaler with --enable-provisioning-requests would, and no
// withdrawal.
func startAutoscaler(ctx context.Context, o Options, kubeconfig string, cloud *process, mode runMode, dir, clockURL string) (*process, error) {
	hints := mode.muster
	provreq := fmt.Sprintf("--muster-provisioning-requests=%t", hints)
	if mode.kueue {
		// The stock flag: this build's consumer is the one that serves
		// it (autoscaler/provreq).
		provreq = "--enable-provisioning-requests=true"
	}
	log := freshLog(dir, "muster-autoscaler")
	// Stepped, a pause between tainting a node and deleting it, or before
	// scaling up for a new pod, would be wall time the step does not wait
	// for; the step's wait for quiet gives the scheduler its time instead.
	taintDelay, newPodDelay := timerOf(o, 5*time.Second), timerOf(o, 2*time.Minute)
	if o.Step > 0 {
		taintDelay, newPodDelay = "0s", "0s"
	}
	args := []string{
		"--kubeconfig=" + kubeconfig,
		"--cloud-config=" + cloud.cloudConfig,
		"--cloud-provider=muster-azure",
		"--skip-nodes-with-local-storage=false",
		"--leader-elect=false",
		"--address=127.0.0.1:0",
		"--scan-interval=" + max(wallOf(o, time.Minute), time.Second).String(),
		"--expander=" + expanders(o),
		"--scale-down-enabled=true",
		"--scale-down-unneeded-time=" + timerOf(o, simUnneededTime),
		"--scale-down-delay-after-add=" + timerOf(o, 5*time.Minute),
		"--scale-down-delay-after-delete=0s",
		"--scale-down-delay-after-failure=" + timerOf(o, 2*time.Minute),
		"--max-node-provision-time=" + provisionTimeout(o),
		// Upstream's default, in trace time: a node once found unremovable
		// (it held a pod) would otherwise stay for 5 wall minutes, the
		// rest of the run, however idle it became.
		"--unremovable-node-recheck-timeout=" + timerOf(o, 5*time.Minute),
		// Gives muster-scheduler time to mark a short gang's members as
		// consumers of its ProvisioningRequest before ordinary scale-up
		// looks at them; the same for both runs.
		"--new-pod-scale-up-delay=" + newPodDelay,
		// Upstream's defaults of the timers that shape the outcome, in trace
		// time: at one trace minute per second, the 5 s pause between
		// tainting a node and deleting it would keep every removed node
		// five trace minutes longer, and a failed node group or request
		// would be backed off for the rest of the run. Budgets of the
		// autoscaler's own work (simulation and binpacking timeouts, its
		// health checks) stay in wall time.
		"--node-delete-delay-after-taint=" + taintDelay,
		"--node-deletion-delay-timeout=" + timerOf(o, 2*time.Minute),
		"--max-pod-eviction-time=" + timerOf(o, 2*time.Minute),
		"--scale-down-unready-time=" + timerOf(o, 20*time.Minute),
		"--initial-node-group-backoff-duration=" + timerOf(o, 5*time.Minute),
		"--max-node-group-backoff-duration=" + timerOf(o, 30*time.Minute),
		"--node-group-backoff-reset-timeout=" + timerOf(o, 3*time.Hour),
		"--provisioning-request-initial-backoff-time=" + timerOf(o, time.Minute),
		"--provisioning-request-max-backoff-time=" + timerOf(o, 10*time.Minute),
		"--muster-provisioning-request-booking-ttl=" + timerOf(o, 10*time.Minute),
		provreq,
		// The baseline is the stock autoscaler, which keeps a scale-up's
		// nodes even when its pods went elsewhere before they came up.
		fmt.Sprintf("--muster-withdraw-unneeded-nodes=%t", hints),
		"--v=2",
	}
	runFile := ""
	if o.Step > 0 {
		// Stepped, the autoscaler runs a loop when the step asks, at the
		// trace clock's time, and none of its own.
		runFile = log + ".run-url"
		args = append(args, "--clock-url="+clockURL, "--run-on-request-address=127.0.0.1:0", "--write-run-url="+runFile,
			// A loop's API calls are waited for by the whole step:
			// client-go's default 5 a second would pace it.
			"--kube-client-qps=500", "--kube-client-burst=1000")
	}
	p, err := startProcess(ctx, filepath.Join(o.BinDir, "muster-autoscaler"), args, log, "SSL_CERT_FILE="+cloud.caFile)
	if err != nil {
		return nil, err
	}
	if runFile != "" {
		b, err := waitFile(p, runFile, 60*time.Second)
		if err != nil {
			p.stop()
			return nil, fmt.Errorf("muster-autoscaler: %w:\n%s", err, lastLines(log, 20))
		}
		p.runURL = strings.TrimSpace(string(b))
	}
	select {
	case <-p.done:
		return nil, fmt.Errorf("muster-autoscaler exited at start:\n%s", lastLines(log, 20))
	case <-time.After(2 * time.Second):
	}
	return p, nil
}

// expanders is the autoscaler's expander chain: with spot pools, spot first
// (the priority expander, its ConfigMap written by spotFirst), then the
// cheapest; otherwise the cheapest.
// provisionTimeout is how long the autoscaler waits for a scale-up's nodes
// to register: 15 trace minutes. Stepped, upstream's scale-up executor
// stamps a scale-up in wall time, which the trace clock's loops read as
// long past; the timeout is off then (the simulated cloud loses no booting
// VM outside muster chaos, which runs on wall time).
func provisionTimeout(o Options) string {
	if o.Step > 0 {
		return (30 * 24 * time.Hour).String()
	}
	return timerOf(o, 15*time.Minute)
}

// cloudCacheTTL is how long the autoscaler reuses a pool read, in wall time.
// Stepped, a read kept from an earlier step would show the cloud as it was
// then, or not, depending on how fast the steps went.
func cloudCacheTTL(o Options) string {
	if o.Step > 0 {
		// Shorter than the waits for quiet between two loops, longer
		// than one loop: each loop reads each pool once, afresh.
		return "60ms"
	}
	return "500ms"
}

// cloudPollInterval is how often the autoscaler polls a scale operation, in
// wall time: stepped, well inside the wait for quiet that follows the step
// which settles it.
func cloudPollInterval(o Options) string {
	if o.Step > 0 {
		return "10ms"
	}
	return "250ms"
}

// agentInterval is how often armlocal's node agent looks on its own: on a
// stepped clock each step asks it (POST /sync), so it seldom needs to.
func agentInterval(o Options) string {
	if o.Step > 0 {
		return "10s"
	}
	return "250ms"
}

func expanders(o Options) string {
	if o.pools != nil && o.pools.HasSpot() {
		return "priority,price,least-waste"
	}
	return "price,least-waste"
}
