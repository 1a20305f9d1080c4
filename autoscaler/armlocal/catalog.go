// The SKU type and the default catalogue of CPU and NVIDIA GPU sizes with their prices.

package armlocal

// SKU is one virtual machine size as the Resource SKUs API describes it, plus
// the hourly price the simulator charges for it.
type SKU struct {
	Name     string  // e.g. Standard_ND96isr_H100_v5
	Family   string  // quota family, e.g. standardNDSH100v5Family
	VCPUs    int     // capability vCPUs
	MemoryGB float64 // capability MemoryGB
	GPUs     int     // capability GPUs (0 for CPU-only sizes)
	// Arch is the capability CpuArchitectureType: "x64" (default) or "Arm64".
	Arch string
	// Zones the size is offered in, in the server's location.
	Zones []string
	// HourlyPrice in USD, pay-as-you-go Linux.
	HourlyPrice float64
}

// DefaultSKUs is a catalogue of common CPU and NVIDIA GPU sizes with their
// published vCPU, memory and GPU counts and approximate pay-as-you-go prices.
// It is simulator data: the autoscaler learns these values from the Resource
// SKUs API, never from this table.
func DefaultSKUs() []SKU {
	z := []string{"1", "2", "3"}
	return []SKU{
		{Name: "Standard_D4s_v5", Family: "standardDSv5Family", VCPUs: 4, MemoryGB: 16, Zones: z, HourlyPrice: 0.192},
		{Name: "Standard_D16s_v5", Family: "standardDSv5Family", VCPUs: 16, MemoryGB: 64, Zones: z, HourlyPrice: 0.768},
		{Name: "Standard_D16ps_v5", Family: "standardDPSv5Family", VCPUs: 16, MemoryGB: 64, Arch: "Arm64", Zones: z, HourlyPrice: 0.616},
		{Name: "Standard_NC4as_T4_v3", Family: "standardNCASv3_T4Family", VCPUs: 4, MemoryGB: 28, GPUs: 1, Zones: z, HourlyPrice: 0.526},
		{Name: "Standard_NC64as_T4_v3", Family: "standardNCASv3_T4Family", VCPUs: 64, MemoryGB: 440, GPUs: 4, Zones: z, HourlyPrice: 4.352},
		{Name: "Standard_NC6s_v3", Family: "standardNCSv3Family", VCPUs: 6, MemoryGB: 112, GPUs: 1, Zones: z, HourlyPrice: 3.06},
		{Name: "Standard_NV36ads_A10_v5", Family: "StandardNVADSA10v5Family", VCPUs: 36, MemoryGB: 440, GPUs: 1, Zones: z, HourlyPrice: 3.20},
		{Name: "Standard_NC24ads_A100_v4", Family: "StandardNCADSA100v4Family", VCPUs: 24, MemoryGB: 220, GPUs: 1, Zones: z, HourlyPrice: 3.673},
		{Name: "Standard_NC40ads_H100_v5", Family: "standardNCadsH100v5Family", VCPUs: 40, MemoryGB: 320, GPUs: 1, Zones: z, HourlyPrice: 6.98},
		{Name: "Standard_ND40rs_v2", Family: "standardNDSv2Family", VCPUs: 40, MemoryGB: 672, GPUs: 8, Zones: z, HourlyPrice: 22.032},
		{Name: "Standard_ND96asr_v4", Family: "standardNDASv4_A100Family", VCPUs: 96, MemoryGB: 900, GPUs: 8, Zones: z, HourlyPrice: 27.197},
		{Name: "Standard_ND96amsr_A100_v4", Family: "StandardNDAMSv4_A100Family", VCPUs: 96, MemoryGB: 1900, GPUs: 8, Zones: z, HourlyPrice: 32.77},
		{Name: "Standard_ND96isr_H100_v5", Family: "standardNDSH100v5Family", VCPUs: 96, MemoryGB: 1900, GPUs: 8, Zones: z, HourlyPrice: 98.32},
		{Name: "Standard_ND96isr_H200_v5", Family: "standardNDSH200v5Family", VCPUs: 96, MemoryGB: 1850, GPUs: 8, Zones: z, HourlyPrice: 110.24},
	}
}
