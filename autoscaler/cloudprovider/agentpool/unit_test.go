// Unit tests of template nodes, tag labels and taints, config and --nodes validation, pricing, Azure error classes, the shipped cloud-config, and instances claimed by concurrent scale-ups.

package agentpool

import (
	"strings"
	"testing"
	"time"

	apiv1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestTemplateNodesForGPUSizes(t *testing.T) {
	cases := []struct {
		sku      skuInfo
		product  string
		memory   string
		zones    []string
		wantZone string
	}{
		{skuInfo{Name: "Standard_ND96isr_H100_v5", VCPUs: 96, MemoryGB: 1900, GPUs: 8, Arch: "amd64"}, "NVIDIA-H100-80GB-HBM3", "81559", []string{"1"}, "westeurope-1"},
		{skuInfo{Name: "Standard_ND96isr_H200_v5", VCPUs: 96, MemoryGB: 1850, GPUs: 8, Arch: "amd64"}, "NVIDIA-H200", "143771", nil, "0"},
		{skuInfo{Name: "Standard_ND96amsr_A100_v4", VCPUs: 96, MemoryGB: 1900, GPUs: 8, Arch: "amd64"}, "NVIDIA-A100-SXM4-80GB", "81920", []string{"2", "1"}, "westeurope-1__westeurope-2"},
		{skuInfo{Name: "Standard_ND96asr_v4", VCPUs: 96, MemoryGB: 900, GPUs: 8, Arch: "amd64"}, "NVIDIA-A100-SXM4-40GB", "40960", nil, "0"},
		{skuInfo{Name: "Standard_NC24ads_A100_v4", VCPUs: 24, MemoryGB: 220, GPUs: 1, Arch: "amd64"}, "NVIDIA-A100-80GB-PCIe", "81920", nil, "0"},
		{skuInfo{Name: "Standard_NC40ads_H100_v5", VCPUs: 40, MemoryGB: 320, GPUs: 1, Arch: "amd64"}, "NVIDIA-H100-NVL", "95830", nil, "0"},
		{skuInfo{Name: "Standard_ND40rs_v2", VCPUs: 40, MemoryGB: 672, GPUs: 8, Arch: "amd64"}, "Tesla-V100-SXM2-32GB", "32768", nil, "0"},
		{skuInfo{Name: "Standard_NC6s_v3", VCPUs: 6, MemoryGB: 112, GPUs: 1, Arch: "amd64"}, "Tesla-V100-PCIE-16GB", "16384", nil, "0"},
		{skuInfo{Name: "Standard_NC4as_T4_v3", VCPUs: 4, MemoryGB: 28, GPUs: 1, Arch: "amd64"}, "Tesla-T4", "15360", nil, "0"},
		{skuInfo{Name: "Standard_NV36ads_A10_v5", VCPUs: 36, MemoryGB: 440, GPUs: 1, Arch: "amd64"}, "NVIDIA-A10", "23028", nil, "0"},
		// Unknown family: a product from the size name, the count from SKU data, no memory.
		{skuInfo{Name: "Standard_ND128isr_NDR_GB200_v6", VCPUs: 128, MemoryGB: 900, GPUs: 4, Arch: "arm64"}, "Azure-ND128isr_NDR_GB200_v6", "", nil, "0"},
	}
	for _, tc := range cases {
		t.Run(tc.sku.Name, func(t *testing.T) {
			n, err := buildTemplateNode(templateSpec{
				Pool: "gpu", SKU: tc.sku, Location: "WestEurope", Zones: tc.zones, PlacementGroup: "ppg-ib",
				Taints:       []apiv1.Taint{{Key: "nvidia.com/gpu", Value: "present", Effect: apiv1.TaintEffectNoSchedule}},
				KubeReserved: apiv1.ResourceList{apiv1.ResourceMemory: resource.MustParse("1Gi")},
			})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{
				GPUProductLabel: tc.product, GPUCountLabel: itoa(tc.sku.GPUs), InstanceTypeLabel: tc.sku.Name,
				AgentPoolLabel: "gpu", LegacyAgentPoolLabel: "gpu", PlacementGroupLabel: "ppg-ib",
				ZoneLabel: tc.wantZone, RegionLabel: "westeurope", OSLabel: "linux", ArchLabel: tc.sku.Arch,
				HostnameLabel: n.Name,
			}
			if tc.memory != "" {
				want[GPUMemoryLabel] = tc.memory
			}
			for k, v := range want {
				if n.Labels[k] != v {
					t.Errorf("label %s = %q, want %q", k, n.Labels[k], v)
				}
			}
			if _, ok := n.Labels[GPUMemoryLabel]; tc.memory == "" && ok {
				t.Errorf("memory label set for an unknown GPU")
			}
			gpus := n.Status.Allocatable[GPUResourceName]
			cpu := n.Status.Allocatable[apiv1.ResourceCPU]
			mem := n.Status.Allocatable[apiv1.ResourceMemory]
			capMem := n.Status.Capacity[apiv1.ResourceMemory]
			if gpus.Value() != int64(tc.sku.GPUs) || cpu.Value() != int64(tc.sku.VCPUs) {
				t.Errorf("allocatable %v", n.Status.Allocatable)
			}
			if capMem.Value()-mem.Value() != 1<<30 {
				t.Errorf("kubeReserved memory not subtracted: capacity %s allocatable %s", capMem.String(), mem.String())
			}
			if len(n.Spec.Taints) != 1 || n.Spec.Taints[0].Key != "nvidia.com/gpu" {
				t.Errorf("taints %v", n.Spec.Taints)
			}
		})
	}
}

func itoa(n int) string { return resource.NewQuantity(int64(n), resource.DecimalSI).String() }

func TestCPUTemplateHasNoGPU(t *testing.T) {
	n, err := buildTemplateNode(templateSpec{Pool: "cpu", SKU: skuInfo{Name: "Standard_D16s_v5", VCPUs: 16, MemoryGB: 64, Arch: "amd64"}, Location: "westeurope", PlacementGroup: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := n.Status.Capacity[GPUResourceName]; ok {
		t.Fatal("CPU node has GPUs")
	}
	if _, ok := n.Labels[GPUProductLabel]; ok {
		t.Fatal("CPU node has a GPU product")
	}
	if p := n.Status.Capacity[apiv1.ResourcePods]; p.Value() != DefaultMaxPods {
		t.Fatalf("pods %v", p)
	}
}

func TestTagLabelsAndTaints(t *testing.T) {
	labels, taints, err := tagLabelsAndTaints(map[string]string{
		TagNodeTemplateLabelPrefix + "team":           "ml",
		TagNodeTemplateTaintPrefix + "nvidia.com_gpu": "present:NoSchedule",
		"unrelated": "x",
	})
	if err != nil {
		t.Fatal(err)
	}
	if labels["team"] != "ml" || len(labels) != 1 || len(taints) != 1 || taints[0].Key != "nvidia.com/gpu" || taints[0].Value != "present" {
		t.Fatalf("labels %v taints %v", labels, taints)
	}
	if _, _, err := tagLabelsAndTaints(map[string]string{TagNodeTemplateTaintPrefix + "sku": "gpu:Sometimes"}); err == nil {
		t.Fatal("bad taint effect accepted")
	}
}

func TestConfigValidation(t *testing.T) {
	base := `
tenantId: t
subscriptionId: s
resourceGroup: rg
location: westeurope
`
	cases := []struct {
		name, extra, wantField string
	}{
		{"valid", "", ""},
		{"unknown field", "subscriptionID2: x\n", "unknown field"},
		{"missing location", "location: \"\"\n", "location"},
		{"bad cloud", "cloud: Mars\n", "cloud"},
		{"http endpoint", "resourceManagerEndpoint: http://x\n", "resourceManagerEndpoint"},
		{"bad auth method", "auth: {method: password}\n", "auth.method"},
		{"client secret without file", "auth: {method: client-secret, clientId: c}\n", "auth.clientSecretFile"},
		{"pool max below min", "pools: [{name: p, min: 3, max: 1}]\n", "pools[0].max"},
		{"pool bad taint", "pools: [{name: p, max: 1, taints: [\"a=b:Never\"]}]\n", "pools[0].taints[0]"},
		{"aks pool without cluster", "pools: [{name: p, type: aks, max: 1}]\n", "clusterName"},
		{"duplicate pool", "pools: [{name: p, max: 1}, {name: P, max: 2}]\n", "pools[1].name"},
		{"bad duration", "requestTimeout: soon\n", "requestTimeout"},
		{"bad reserved", "kubeReserved: {memory: lots}\n", "kubeReserved.memory"},
		{"negative price", "prices: {Standard_D4s_v5: -1}\n", "prices.Standard_D4s_v5"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			text := base
			if strings.HasPrefix(tc.extra, "location") {
				text = strings.Replace(base, "location: westeurope\n", "", 1)
			}
			text += tc.extra
			_, err := ParseConfig([]byte(text))
			if tc.wantField == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantField) {
				t.Fatalf("error %v, want one naming %q", err, tc.wantField)
			}
		})
	}
}

func TestNodesSpecs(t *testing.T) {
	cases := []struct {
		spec    string
		want    PoolConfig
		wantErr bool
	}{
		{"0:4:gpu-heavy", PoolConfig{Name: "gpu-heavy", Min: 0, Max: 4}, false},
		{"2:1:x", PoolConfig{}, true},
		{"a:1:x", PoolConfig{}, true},
		{"1:2", PoolConfig{}, true},
		{"1:2:", PoolConfig{}, true},
	}
	for _, tc := range cases {
		got, err := ParseNodesSpec(tc.spec)
		if (err != nil) != tc.wantErr || (!tc.wantErr && (got.Name != tc.want.Name || got.Min != tc.want.Min || got.Max != tc.want.Max)) {
			t.Errorf("ParseNodesSpec(%q) = %+v, %v", tc.spec, got, err)
		}
	}
	tags, err := ParseDiscoverySpec("label:cluster-autoscaler-enabled=true,cluster-autoscaler-name=aks1")
	if err != nil || tags["cluster-autoscaler-name"] != "aks1" || len(tags) != 2 {
		t.Fatalf("discovery spec: %v %v", tags, err)
	}
	if _, err := ParseDiscoverySpec("asg:tag=x"); err == nil {
		t.Fatal("non-label discovery spec accepted")
	}
}

func TestPricingPrefersCheaperPools(t *testing.T) {
	p := newPricing(&Config{Prices: map[string]float64{"Standard_Custom_X": 2}})
	start := time.Unix(0, 0)
	end := start.Add(time.Hour)
	price := func(sku string) float64 {
		n := &apiv1.Node{ObjectMeta: metav1.ObjectMeta{Name: sku, Labels: map[string]string{InstanceTypeLabel: sku}}}
		v, err := p.NodePrice(n, start, end)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	cpu, light, heavy := price("Standard_D16s_v5"), price("Standard_NC4as_T4_v3"), price("Standard_ND96isr_H100_v5")
	if !(cpu < heavy && light < heavy) {
		t.Fatalf("prices cpu %v light %v heavy %v", cpu, light, heavy)
	}
	if price("Standard_Custom_X") != 2 {
		t.Fatal("config price not used")
	}
	pod := &apiv1.Pod{Spec: apiv1.PodSpec{Containers: []apiv1.Container{{Resources: apiv1.ResourceRequirements{Requests: apiv1.ResourceList{
		apiv1.ResourceCPU: resource.MustParse("2"), GPUResourceName: resource.MustParse("1"),
	}}}}}}
	pp, err := p.PodPrice(pod, start, end)
	if err != nil || pp != 2*defaultUnitPrices.CPU+defaultUnitPrices.GPU {
		t.Fatalf("pod price %v %v", pp, err)
	}
}

func TestErrorClassification(t *testing.T) {
	cases := []struct {
		code, msg string
		want      bool
	}{
		{"AllocationFailed", "", true},
		{"ZonalAllocationFailed", "", true},
		{"OverconstrainedAllocationRequest", "", true},
		{"SkuNotAvailable", "", true},
		{"QuotaExceeded", "", true},
		{"OperationNotAllowed", "results in exceeding approved standardNDSH100v5Family Cores quota", true},
		{"OperationNotAllowed", "the scale set is being deleted", false},
		{"InternalOperationError", "", false},
	}
	for _, tc := range cases {
		if got := isOutOfResources(tc.code, tc.msg); got != tc.want {
			t.Errorf("isOutOfResources(%q, %q) = %v", tc.code, tc.msg, got)
		}
	}
}

// The example shipped in manifests/autoscaler must stay valid.
func TestManifestCloudConfigExample(t *testing.T) {
	cfg, err := LoadConfig("../../../manifests/autoscaler/cloud-config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.authMethod() != "workload-identity" || cfg.Auth.ClientSecretFile != "" {
		t.Fatalf("example must use workload identity and carry no secret: %+v", cfg.Auth)
	}
}

func TestClaimInstances(t *testing.T) {
	vms := func(keys ...string) []vm {
		out := make([]vm, len(keys))
		for i, k := range keys {
			out[i] = vm{key: k}
		}
		return out
	}
	set := func(keys ...string) map[string]bool {
		out := map[string]bool{}
		for _, k := range keys {
			out[k] = true
		}
		return out
	}
	keys := func(v []vm) string {
		var out []string
		for _, x := range v {
			out = append(out, x.key)
		}
		return strings.Join(out, ",")
	}
	cases := []struct {
		name      string
		ups       []*scaleUp
		instances []vm
		want      []string // per scale-up, in order
	}{
		{name: "back-to-back: each owns its own",
			ups:       []*scaleUp{{before: set("0"), delta: 2}, {before: set("0", "1", "2"), delta: 1}},
			instances: vms("0", "1", "2", "3"), want: []string{"1,2", "3"}},
		{name: "second's snapshot was stale: the first claims nothing it cannot tell apart",
			ups:       []*scaleUp{{before: set("0"), delta: 2}, {before: set("0"), delta: 1}},
			instances: vms("3", "0", "2", "1"), want: []string{"", "1"}},
		{name: "an earlier ended scale-up's instances are not in a stale snapshot",
			ups:       []*scaleUp{{before: set("0"), delta: 2, owned: set("1", "2"), ended: true}, {before: set("0"), delta: 1}},
			instances: vms("3", "0", "2", "1"), want: []string{"1,2", "3"}},
		{name: "never more than asked for, whatever appeared",
			ups:       []*scaleUp{{before: set("0"), delta: 1}},
			instances: vms("0", "1", "2", "3"), want: []string{"1"}},
		{name: "an ended scale-up keeps its claim after its instances went",
			ups:       []*scaleUp{{before: set("0"), delta: 2, owned: set("1", "2"), ended: true}, {before: set("0", "1", "2"), delta: 1}},
			instances: vms("0", "3"), want: []string{"", "3"}},
		{name: "one instance not yet listed: neither takes the other's",
			ups:       []*scaleUp{{before: set("0"), delta: 2}, {before: set("0", "1"), delta: 1}},
			instances: vms("0", "1", "3"), want: []string{"1", "3"}},
		{name: "AKS machine names order by their base-36 suffix",
			ups:       []*scaleUp{{before: set("aks-gpu-1-vmss00000z"), delta: 1}, {before: set("aks-gpu-1-vmss00000z", "aks-gpu-1-vmss000010"), delta: 1}},
			instances: vms("aks-gpu-1-vmss000011", "aks-gpu-1-vmss00000z", "aks-gpu-1-vmss000010"),
			want:      []string{"aks-gpu-1-vmss000010", "aks-gpu-1-vmss000011"}},
		{name: "instance IDs past 9 order numerically",
			ups:       []*scaleUp{{before: set("9"), delta: 1}, {before: set("9", "10"), delta: 1}},
			instances: vms("11", "9", "10"), want: []string{"10", "11"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := claimInstances(tc.ups, tc.instances)
			for i, u := range tc.ups {
				if keys(got[u]) != tc.want[i] {
					t.Fatalf("scale-up %d owns %q, want %q", i, keys(got[u]), tc.want[i])
				}
			}
		})
	}
}
