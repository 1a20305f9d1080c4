// GPU Feature Discovery naming of the GPU models found in Azure VM size names.

package agentpool

import (
	"regexp"
	"strings"
)

// gpuModel is the GFD naming of one GPU model: what nvidia.com/gpu.product
// says on a node and the memory per GPU GFD reports. It is naming only: how
// many GPUs a size has always comes from the Resource SKUs API.
type gpuModel struct {
	product   string
	memoryMiB int
}

// gpuNaming maps the GPU family in an Azure size name to GFD naming. The
// first matching rule wins; the order puts specific before generic.
var gpuNaming = []struct {
	re    *regexp.Regexp
	model gpuModel
}{
	{regexp.MustCompile(`(?i)_H200`), gpuModel{"NVIDIA-H200", 143771}},
	{regexp.MustCompile(`(?i)^Standard_NC\d+ads_H100_v5`), gpuModel{"NVIDIA-H100-NVL", 95830}},
	{regexp.MustCompile(`(?i)_H100`), gpuModel{"NVIDIA-H100-80GB-HBM3", 81559}},
	{regexp.MustCompile(`(?i)^Standard_ND\d+amsr_A100_v4`), gpuModel{"NVIDIA-A100-SXM4-80GB", 81920}},
	{regexp.MustCompile(`(?i)^Standard_ND\d+asr_v4`), gpuModel{"NVIDIA-A100-SXM4-40GB", 40960}},
	{regexp.MustCompile(`(?i)^Standard_NC\d+ads_A100_v4`), gpuModel{"NVIDIA-A100-80GB-PCIe", 81920}},
	{regexp.MustCompile(`(?i)_A100`), gpuModel{"NVIDIA-A100", 0}},
	{regexp.MustCompile(`(?i)^Standard_ND\d+rs_v2`), gpuModel{"Tesla-V100-SXM2-32GB", 32768}},
	{regexp.MustCompile(`(?i)^Standard_NC\d+r?s_v3`), gpuModel{"Tesla-V100-PCIE-16GB", 16384}},
	{regexp.MustCompile(`(?i)_T4_`), gpuModel{"Tesla-T4", 15360}},
	{regexp.MustCompile(`(?i)_A10_`), gpuModel{"NVIDIA-A10", 23028}},
	{regexp.MustCompile(`(?i)^Standard_NC\d+as?_v2`), gpuModel{"Tesla-P100-PCIE-16GB", 16384}},
	{regexp.MustCompile(`(?i)^Standard_ND\d+s`), gpuModel{"Tesla-P40", 24576}},
	{regexp.MustCompile(`(?i)^Standard_NV\d+s_v3`), gpuModel{"Tesla-M60", 8192}},
	{regexp.MustCompile(`(?i)^Standard_NC\d+r?$`), gpuModel{"Tesla-K80", 12288}},
}

// gpuModelFor names the GPUs of an Azure size. An unknown family still gets
// a product (derived from the size name, e.g. Azure-ND128isr_NDR_GB200_v6)
// but no memory.
func gpuModelFor(sku string) gpuModel {
	for _, n := range gpuNaming {
		if n.re.MatchString(sku) {
			return n.model
		}
	}
	return gpuModel{product: "Azure-" + strings.TrimPrefix(sku, "Standard_")}
}
