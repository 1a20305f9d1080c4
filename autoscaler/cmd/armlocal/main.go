// Command armlocal runs the local ARM endpoint with a scenario of CPU-only,
// light-GPU and heavy-GPU pools until interrupted. With --kubeconfig it also
// plays the pools' kubelets (package nodeagent): a Node appears in the API
// server when an instance finishes provisioning and goes when the instance
// is deleted, so that one process is "the cloud plus its kubelets" for
// muster simulate.
//
// Once serving it prints one line "ARMLOCAL_READY {json}" on stdout (the
// same JSON --write-ready writes) and, with --write-cloud-config, writes a
// muster-autoscaler cloud-config for the scenario.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"sigs.k8s.io/yaml"

	"github.com/muster-project/muster/autoscaler/armlocal"
	"github.com/muster-project/muster/autoscaler/cloudprovider/agentpool"
	"github.com/muster-project/muster/autoscaler/nodeagent"
)

// DiscoveryTag is the tag every scenario pool carries and the written
// cloud-config discovers pools by.
const discoveryTag = "cluster-autoscaler-enabled"

const gpuTaintTag = agentpool.TagNodeTemplateTaintPrefix + "nvidia.com_gpu"

type options struct {
	scenario                 string
	rg, cluster              string
	delay, delDelay          time.Duration
	clockURL                 string
	clientID, secretFile     string
	cpuMin, cpuMax           int
	lightMax, heavyMax       int
	cpuSKU, lightSKU         string
	heavySKU                 string
	familyQuota, gpuQuota    int
	regionalQuota            int
	kubeconfig               string
	agentInterval            time.Duration
	cloudConfigPath          string
	readyPath                string
	gpuUnneeded, gpuProvTime time.Duration
	cacheTTL, pollInterval   time.Duration
	faultsAddress            string
	poolsFile                string
}

// poolSpec is one pool of --pools-file (JSON; muster simulate --pools writes
// it from the user's pools file).
type poolSpec struct {
	Name           string `json:"name"`
	VMSize         string `json:"vmSize"`
	Min            int    `json:"min"`
	Max            int    `json:"max"`
	PlacementGroup string `json:"placementGroup,omitempty"`
	// ProvisioningDelay (a Go duration) overrides --provisioning-delay.
	ProvisioningDelay string `json:"provisioningDelay,omitempty"`
	// FamilyQuotaVCPUs sets the VM family's vCPU quota (0: the default).
	FamilyQuotaVCPUs int `json:"familyQuotaVCPUs,omitempty"`
	// HourlyPrice overrides the catalogue's price (0: the catalogue's).
	HourlyPrice float64 `json:"hourlyPrice,omitempty"`
	// Spot makes the scale set's VMs spot VMs (eviction policy Delete, max
	// price -1: evicted for capacity only, as muster simulate plays them).
	Spot bool `json:"spot,omitempty"`
}

// pool is one scale set of the scenario, as the ready JSON reports it.
type pool struct {
	Name        string  `json:"name"`
	Type        string  `json:"type"` // vmss
	SKU         string  `json:"sku"`
	Min         int     `json:"min"`
	Max         int     `json:"max"`
	VCPUs       int     `json:"vcpus"`
	MemoryGB    float64 `json:"memoryGB"`
	GPUs        int     `json:"gpus"`
	Family      string  `json:"family"`
	HourlyPrice float64 `json:"hourlyPrice"`
	// PlacementGroup is the proximity placement group, empty without one.
	PlacementGroup string `json:"placementGroup,omitempty"`
	// Spot: a spot scale set.
	Spot        bool `json:"spot,omitempty"`
	tainted     bool
	delay       time.Duration
	familyQuota int
}

// readyInfo is the ARMLOCAL_READY JSON.
type readyInfo struct {
	Scenario                     string `json:"scenario"`
	PID                          int    `json:"pid"`
	ResourceManagerEndpoint      string `json:"resourceManagerEndpoint"`
	ActiveDirectoryAuthorityHost string `json:"activeDirectoryAuthorityHost"`
	TokenEndpoint                string `json:"tokenEndpoint"`
	// CAFile is armlocal's certificate: muster-autoscaler needs
	// SSL_CERT_FILE=CAFile in its environment.
	CAFile           string `json:"caFile"`
	TenantID         string `json:"tenantId"`
	SubscriptionID   string `json:"subscriptionId"`
	ResourceGroup    string `json:"resourceGroup"`
	Location         string `json:"location"`
	ClusterName      string `json:"clusterName,omitempty"` // seed scenario's AKS cluster (not in the cloud-config)
	ClientID         string `json:"clientId"`
	ClientSecretFile string `json:"clientSecretFile"`
	// CloudConfig is the path --write-cloud-config wrote, empty without it.
	CloudConfig    string            `json:"cloudConfig,omitempty"`
	DiscoveryTags  map[string]string `json:"discoveryTags"`
	Pools          []pool            `json:"pools"`
	NodeAgent      bool              `json:"nodeAgent"`
	ProviderPrefix string            `json:"providerIDPrefix"`
	// FaultsURL is the fault endpoint's URL, empty without --faults-address.
	FaultsURL string `json:"faultsURL,omitempty"`
}

func main() {
	var o options
	flag.StringVar(&o.scenario, "scenario", "seed", "seed: scale sets cpu (starts at --cpu-min, default 1), gpu-light, gpu-heavy plus an AKS cluster with three pools; simulate: the three scale sets only, all starting at their min (--cpu-min default 0)")
	flag.StringVar(&o.rg, "resource-group", "rg-muster", "resource group of the scale sets and the AKS cluster")
	flag.StringVar(&o.cluster, "cluster", "aks1", "AKS managed cluster name (seed scenario)")
	flag.DurationVar(&o.delay, "provisioning-delay", 30*time.Second, "how long new instances stay Creating")
	flag.DurationVar(&o.delDelay, "deletion-delay", 0, "how long deleted instances stay Deleting")
	flag.StringVar(&o.clockURL, "clock-url", "", "run instances' boot and deletion delays, operations and fault windows on the clock this URL serves (GET: the time in RFC 3339), e.g. muster simulate's trace clock, until the fault endpoint's POST /clock sets it: from then on each step's time is pushed there instead (default: wall time)")
	flag.StringVar(&o.clientID, "client-id", "muster-autoscaler", "client ID the token endpoint accepts")
	flag.StringVar(&o.secretFile, "client-secret-file", "", "file holding the client secret the token endpoint accepts (required; the written cloud-config points at it)")
	flag.IntVar(&o.cpuMin, "cpu-min", -1, "min (and initial) size of the cpu scale set (default 1 for --scenario seed, 0 for simulate)")
	flag.IntVar(&o.cpuMax, "cpu-max", 10, "max size of the cpu scale set")
	flag.IntVar(&o.lightMax, "light-max", 8, "max size of the gpu-light scale set (min 0)")
	flag.IntVar(&o.heavyMax, "heavy-max", 4, "max size of the gpu-heavy scale set (min 0)")
	flag.StringVar(&o.cpuSKU, "cpu-sku", "Standard_D16s_v5", "VM size of the cpu scale set")
	flag.StringVar(&o.lightSKU, "light-sku", "Standard_NC4as_T4_v3", "VM size of the gpu-light scale set")
	flag.StringVar(&o.heavySKU, "heavy-sku", "Standard_ND96isr_H100_v5", "VM size of the gpu-heavy scale set (in proximity placement group ppg-ib)")
	flag.IntVar(&o.familyQuota, "family-quota-vcpus", 1000, "vCPU quota of every VM family not set otherwise")
	flag.IntVar(&o.gpuQuota, "gpu-family-quota-vcpus", 0, "vCPU quota of the light and heavy GPU sizes' families (0: --family-quota-vcpus)")
	flag.IntVar(&o.regionalQuota, "regional-quota-vcpus", 10000, "total regional vCPU quota")
	flag.StringVar(&o.kubeconfig, "kubeconfig", "", "enables the node agent: register a Node in this cluster for every provisioned instance of the scale sets, delete it when the instance is deleted")
	flag.DurationVar(&o.agentInterval, "agent-interval", 500*time.Millisecond, "how often the node agent compares instances and Nodes")
	flag.StringVar(&o.cloudConfigPath, "write-cloud-config", "", "write a muster-autoscaler cloud-config (client-secret auth through --client-secret-file, auto-discovery of the scale sets) to this path")
	flag.StringVar(&o.readyPath, "write-ready", "", "once serving, write the ARMLOCAL_READY JSON to this path (atomically; removed on exit)")
	flag.DurationVar(&o.gpuUnneeded, "gpu-scale-down-unneeded-time", 0, "cloud-config gpuPools.scaleDownUnneededTime (0: the provider's default, 30m)")
	flag.DurationVar(&o.gpuProvTime, "gpu-max-node-provision-time", 0, "cloud-config gpuPools.maxNodeProvisionTime (0: the provider's default, 30m)")
	flag.DurationVar(&o.cacheTTL, "cloud-config-cache-ttl", time.Second, "cloud-config cacheTTL: how long muster-autoscaler reuses pool reads")
	flag.StringVar(&o.faultsAddress, "faults-address", "", "serve the fault endpoint (POST /faults, GET /state; POST /sync: run the node agent's pass now and answer {\"now\",\"next\"}, armlocal's clock and the cloud's next change, RFC 3339; plain HTTP, loopback only) on this address, e.g. 127.0.0.1:0, for chaos runs and stepped simulator clocks; its URL is the ready JSON's faultsURL (default: off)")
	flag.StringVar(&o.poolsFile, "pools-file", "", "with --scenario simulate: a JSON list of pools {name, vmSize, min, max, placementGroup, provisioningDelay, familyQuotaVCPUs, hourlyPrice, spot} replacing the three default scale sets and their --*-max/--*-sku flags")
	flag.DurationVar(&o.pollInterval, "cloud-config-poll-interval", 500*time.Millisecond, "cloud-config pollInterval: how often muster-autoscaler polls scale operations")
	klog.InitFlags(nil)
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), `Usage: armlocal --client-secret-file FILE [flags]

Runs a local Azure Resource Manager endpoint (HTTPS on a loopback port) with
CPU, light-GPU and heavy-GPU scale sets. Once serving it prints
  ARMLOCAL_READY {json}
on stdout: endpoint, CA file (SSL_CERT_FILE for clients), tenant, subscription,
resource group, location, client ID and secret file, token endpoint, the pools,
and the cloud-config path when written.

Flags:
`)
		flag.PrintDefaults()
	}
	flag.Parse()
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	if err := run(ctx, o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "armlocal:", err)
		if _, ok := err.(usageError); ok {
			flag.Usage()
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// usageError is a bad flag value (exit status 2, with the usage).
type usageError string

func (e usageError) Error() string { return string(e) }

// run serves until ctx ends, printing the ready line to stdout.
func run(ctx context.Context, o options, stdout io.Writer) error {
	if o.secretFile == "" {
		return usageError("--client-secret-file is required")
	}
	if o.scenario != "seed" && o.scenario != "simulate" {
		return usageError(fmt.Sprintf("--scenario %q: want seed or simulate", o.scenario))
	}
	if o.cpuMin < 0 {
		o.cpuMin = 0
		if o.scenario == "seed" {
			o.cpuMin = 1
		}
	}
	for _, f := range []struct {
		name     string
		min, max int
	}{{"--cpu-max", o.cpuMin, o.cpuMax}, {"--light-max", 0, o.lightMax}, {"--heavy-max", 0, o.heavyMax}} {
		if f.max < f.min {
			return usageError(fmt.Sprintf("%s %d is below the pool's min %d", f.name, f.max, f.min))
		}
	}
	secretFile, err := filepath.Abs(o.secretFile)
	if err != nil {
		return err
	}
	secret, err := os.ReadFile(secretFile)
	if err != nil {
		return fmt.Errorf("--client-secret-file: %w", err)
	}
	if strings.TrimSpace(string(secret)) == "" {
		return fmt.Errorf("--client-secret-file %s is empty", secretFile)
	}

	pools := []pool{
		{Name: "cpu", SKU: o.cpuSKU, Min: o.cpuMin, Max: o.cpuMax},
		{Name: "gpu-light", SKU: o.lightSKU, Max: o.lightMax, tainted: true},
		{Name: "gpu-heavy", SKU: o.heavySKU, Max: o.heavyMax, PlacementGroup: "ppg-ib", tainted: true},
	}
	if o.poolsFile != "" {
		if o.scenario != "simulate" {
			return usageError("--pools-file needs --scenario simulate")
		}
		if pools, err = readPools(o.poolsFile); err != nil {
			return usageError(err.Error())
		}
	}
	catalogue := map[string]armlocal.SKU{}
	var known []string
	for _, k := range armlocal.DefaultSKUs() {
		catalogue[strings.ToLower(k.Name)] = k
		known = append(known, k.Name)
	}
	for i := range pools {
		k, ok := catalogue[strings.ToLower(pools[i].SKU)]
		if !ok {
			return usageError(fmt.Sprintf("pool %s: vmSize %s is not in armlocal's catalogue (%s)", pools[i].Name, pools[i].SKU, strings.Join(known, ", ")))
		}
		p := &pools[i]
		price := k.HourlyPrice
		if p.HourlyPrice > 0 {
			price = p.HourlyPrice
		}
		p.Type, p.SKU, p.VCPUs, p.MemoryGB, p.GPUs, p.Family, p.HourlyPrice = agentpool.PoolTypeVMSS, k.Name, k.VCPUs, k.MemoryGB, k.GPUs, k.Family, price
		if o.poolsFile != "" {
			p.tainted = k.GPUs > 0
		}
	}

	var clk clock.PassiveClock = clock.RealClock{}
	var urlClock *armlocal.URLClock
	if o.clockURL != "" {
		uc, err := armlocal.NewURLClock(ctx, o.clockURL)
		if err != nil {
			return usageError("--clock-url: " + err.Error())
		}
		clk, urlClock = uc, uc
	}
	s, err := armlocal.New(armlocal.Options{
		Clock:             clk,
		ProvisioningDelay: o.delay, DeletionDelay: o.delDelay,
		ClientID: o.clientID, ClientSecret: strings.TrimSpace(string(secret)),
		FamilyQuota: o.familyQuota, RegionalQuota: o.regionalQuota,
	})
	if err != nil {
		return err
	}
	defer s.Close()
	if o.gpuQuota > 0 {
		for _, p := range pools {
			if p.GPUs > 0 {
				s.SetQuota(p.Family, o.gpuQuota)
			}
		}
	}
	for _, p := range pools {
		if p.familyQuota > 0 {
			s.SetQuota(p.Family, p.familyQuota)
		}
	}
	var refs []nodeagent.ScaleSet
	for _, p := range pools {
		tags := map[string]string{discoveryTag: "true", agentpool.DefaultMinTag: fmt.Sprint(p.Min), agentpool.DefaultMaxTag: fmt.Sprint(p.Max)}
		if p.tainted {
			tags[gpuTaintTag] = "present:NoSchedule"
		}
		var spot *armlocal.Spot
		if p.Spot {
			spot = &armlocal.Spot{EvictionPolicy: armlocal.EvictDelete, MaxPrice: -1}
		}
		if err := s.AddScaleSet(armlocal.ScaleSetSpec{ResourceGroup: o.rg, Name: p.Name, SKU: p.SKU, Capacity: p.Min, Tags: tags, ProximityPlacementGroup: p.PlacementGroup, ProvisioningDelay: p.delay, Spot: spot}); err != nil {
			return err
		}
		refs = append(refs, nodeagent.ScaleSet{ResourceGroup: o.rg, Name: p.Name})
	}
	info := readyInfo{
		Scenario: o.scenario, PID: os.Getpid(),
		ResourceManagerEndpoint: s.URL(), ActiveDirectoryAuthorityHost: s.URL(),
		TokenEndpoint: fmt.Sprintf("%s%s/oauth2/v2.0/token", s.URL(), s.TenantID()),
		CAFile:        s.CAFile(), TenantID: s.TenantID(), SubscriptionID: s.SubscriptionID(),
		ResourceGroup: o.rg, Location: s.Location(), ClientID: o.clientID, ClientSecretFile: secretFile,
		DiscoveryTags: map[string]string{discoveryTag: "true"}, Pools: pools,
		NodeAgent: o.kubeconfig != "", ProviderPrefix: nodeagent.ArmlocalProviderIDPrefix(s),
	}
	if o.scenario == "seed" {
		tags := func(min, max string) map[string]string {
			return map[string]string{discoveryTag: "true", "min": min, "max": max}
		}
		for _, ap := range []armlocal.AgentPoolSpec{
			{ResourceGroup: o.rg, Cluster: o.cluster, Name: "cpu", VMSize: "Standard_D4s_v5", Count: 1, Mode: "System", Tags: tags("1", "10")},
			{ResourceGroup: o.rg, Cluster: o.cluster, Name: "gpulight", VMSize: "Standard_NC4as_T4_v3", NodeTaints: []string{"nvidia.com/gpu=present:NoSchedule"}, Tags: tags("0", "8")},
			{ResourceGroup: o.rg, Cluster: o.cluster, Name: "gpuheavy", VMSize: "Standard_ND96amsr_A100_v4", NodeTaints: []string{"nvidia.com/gpu=present:NoSchedule"}, Tags: tags("0", "4")},
		} {
			if err := s.AddAgentPool(ap); err != nil {
				return err
			}
		}
		info.ClusterName = o.cluster
	}

	cfgYAML, err := cloudConfig(o, s, secretFile, pools)
	if err != nil {
		return err
	}
	if o.cloudConfigPath != "" {
		if info.CloudConfig, err = filepath.Abs(o.cloudConfigPath); err != nil {
			return err
		}
		if err := writeAtomic(info.CloudConfig, cfgYAML); err != nil {
			return fmt.Errorf("--write-cloud-config: %w", err)
		}
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	agentDone := make(chan struct{})
	close(agentDone)
	var agentSync func(context.Context) error
	if o.kubeconfig != "" {
		if agentDone, agentSync, err = startAgent(ctx, o, s, cfgYAML, refs); err != nil {
			return err
		}
	}

	if o.faultsAddress != "" {
		if info.FaultsURL, err = serveFaults(ctx, o.faultsAddress, faultsHandler(s, o.rg, pools, agentSync, urlClock)); err != nil {
			return err
		}
	}
	b, err := json.Marshal(info)
	if err != nil {
		return err
	}
	if o.readyPath != "" {
		if err := writeAtomic(o.readyPath, append(b, '\n')); err != nil {
			return fmt.Errorf("--write-ready: %w", err)
		}
		defer os.Remove(o.readyPath)
	}
	fmt.Fprintf(os.Stderr, "armlocal: serving %s (CA certificate for SSL_CERT_FILE: %s), tenant %s, subscription %s, resource group %s, location %s, scenario %s, node agent %v\n",
		s.URL(), s.CAFile(), s.TenantID(), s.SubscriptionID(), o.rg, s.Location(), o.scenario, info.NodeAgent)
	fmt.Fprintf(stdout, "ARMLOCAL_READY %s\n", b)
	<-ctx.Done()
	<-agentDone
	return nil
}

// readPools reads --pools-file.
func readPools(path string) ([]pool, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--pools-file: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var specs []poolSpec
	if err := dec.Decode(&specs); err != nil {
		return nil, fmt.Errorf("--pools-file %s: %w", path, err)
	}
	if len(specs) == 0 {
		return nil, fmt.Errorf("--pools-file %s: no pools", path)
	}
	seen := map[string]bool{}
	var out []pool
	for i, sp := range specs {
		bad := func(field, format string, args ...any) error {
			return fmt.Errorf("--pools-file %s: pool %d (%s): %s: %s", path, i, sp.Name, field, fmt.Sprintf(format, args...))
		}
		switch {
		case sp.Name == "":
			return nil, bad("name", "empty")
		case seen[sp.Name]:
			return nil, bad("name", "used twice")
		case sp.VMSize == "":
			return nil, bad("vmSize", "empty")
		case sp.Min < 0 || sp.Max < sp.Min || sp.Max == 0:
			return nil, bad("max", "want 0 <= min (%d) <= max (%d), max > 0", sp.Min, sp.Max)
		case sp.FamilyQuotaVCPUs < 0:
			return nil, bad("familyQuotaVCPUs", "negative")
		case sp.HourlyPrice < 0:
			return nil, bad("hourlyPrice", "negative")
		}
		seen[sp.Name] = true
		p := pool{Name: sp.Name, SKU: sp.VMSize, Min: sp.Min, Max: sp.Max, PlacementGroup: sp.PlacementGroup,
			HourlyPrice: sp.HourlyPrice, familyQuota: sp.FamilyQuotaVCPUs, Spot: sp.Spot}
		if sp.ProvisioningDelay != "" {
			if p.delay, err = time.ParseDuration(sp.ProvisioningDelay); err != nil || p.delay < 0 {
				return nil, bad("provisioningDelay", "want a duration such as 3m, got %q", sp.ProvisioningDelay)
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// cloudConfig is the muster-autoscaler cloud-config of the scenario's scale
// sets: client-secret auth reading secretFile, auto-discovery by tag, the
// catalogue's prices, quick polling. It is checked with the provider's own
// strict parser before it is used.
func cloudConfig(o options, s *armlocal.Server, secretFile string, pools []pool) ([]byte, error) {
	prices := map[string]float64{}
	for _, p := range pools {
		if p.Spot {
			continue // the size's price is a regular VM's; a spot pool's is its own
		}
		prices[p.SKU] = p.HourlyPrice
	}
	cfg := map[string]any{
		"resourceManagerEndpoint":      s.URL(),
		"activeDirectoryAuthorityHost": s.URL(),
		"tenantId":                     s.TenantID(),
		"subscriptionId":               s.SubscriptionID(),
		"resourceGroup":                o.rg,
		"location":                     s.Location(),
		"auth":                         map[string]any{"method": "client-secret", "clientId": o.clientID, "clientSecretFile": secretFile},
		"autoDiscovery":                map[string]any{"tags": map[string]string{discoveryTag: "true"}},
		"prices":                       prices,
		"pollInterval":                 o.pollInterval.String(),
		"cacheTTL":                     o.cacheTTL.String(),
		"discoveryInterval":            "30s",
		"requestTimeout":               "20s",
		"retryDelay":                   "200ms",
	}
	gpu := map[string]any{}
	if o.gpuUnneeded > 0 {
		gpu["scaleDownUnneededTime"] = o.gpuUnneeded.String()
	}
	if o.gpuProvTime > 0 {
		gpu["maxNodeProvisionTime"] = o.gpuProvTime.String()
	}
	if len(gpu) > 0 {
		cfg["gpuPools"] = gpu
	}
	b, err := yaml.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	if _, err := agentpool.ParseConfig(b); err != nil {
		return nil, fmt.Errorf("the cloud-config armlocal would write does not parse: %w", err)
	}
	head := "# muster-autoscaler cloud-config written by armlocal: the scale sets tagged " + discoveryTag + "=true.\n" +
		"# Run muster-autoscaler with SSL_CERT_FILE=" + s.CAFile() + "\n"
	return append([]byte(head), b...), nil
}

// startAgent connects to the cluster (waiting up to 30s for it to answer)
// and runs the node agent until ctx ends; the returned channel closes then.
// The returned function makes one more pass at once (POST /sync); the
// agent serialises it with its own loop's.
func startAgent(ctx context.Context, o options, s *armlocal.Server, cfgYAML []byte, refs []nodeagent.ScaleSet) (chan struct{}, func(context.Context) error, error) {
	restCfg, err := clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	if err != nil {
		return nil, nil, fmt.Errorf("--kubeconfig: %w", err)
	}
	// The agent plays every node's kubelet, each of which would have its
	// own client: client-go's default 5 requests a second would make a
	// burst of nodes wait on one another.
	restCfg.QPS, restCfg.Burst = 200, 400
	kube, err := kubernetes.NewForConfig(restCfg)
	if err != nil {
		return nil, nil, fmt.Errorf("--kubeconfig: %w", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{Limit: 1})
		if err == nil {
			break
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return nil, nil, fmt.Errorf("--kubeconfig: the API server does not answer: %w", err)
		}
		time.Sleep(500 * time.Millisecond)
	}
	cfg, err := agentpool.ParseConfig(cfgYAML)
	if err != nil {
		return nil, nil, err
	}
	prov, err := nodeagent.NewArmlocalProvider(s, cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("node agent: %w", err)
	}
	agent, err := nodeagent.New(nodeagent.Config{
		Client: kube, Cloud: nodeagent.ArmlocalScaleSets{Server: s, ScaleSets: refs}, Provider: prov,
		ProviderIDPrefix: nodeagent.ArmlocalProviderIDPrefix(s), Interval: o.agentInterval,
	})
	if err != nil {
		return nil, nil, err
	}
	// The first pass registers the Nodes of the instances the scenario
	// starts with before anyone reads the ready line.
	if _, err := agent.Sync(ctx); err != nil {
		return nil, nil, fmt.Errorf("node agent: first pass: %w", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer prov.Cleanup()
		agent.Run(ctx)
	}()
	return done, func(ctx context.Context) error {
		_, err := agent.Sync(ctx)
		return err
	}, nil
}

func writeAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
