// Command armlocal runs the local ARM endpoint with the seed scenario (a
// CPU-only, a light-GPU and a heavy-GPU scale set, and an AKS cluster with
// the same three pools) until interrupted, printing what a cloud-config
// needs to reach it.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/muster-project/muster/autoscaler/armlocal"
)

func main() {
	rg := flag.String("resource-group", "rg-muster", "resource group of the scale sets and the AKS cluster")
	cluster := flag.String("cluster", "aks1", "AKS managed cluster name")
	delay := flag.Duration("provisioning-delay", 30*time.Second, "how long new instances stay Creating")
	clientID := flag.String("client-id", "muster-autoscaler", "client ID the token endpoint accepts")
	secretFile := flag.String("client-secret-file", "", "file holding the client secret the token endpoint accepts (required)")
	flag.Parse()
	if *secretFile == "" {
		fmt.Fprintln(os.Stderr, "armlocal: --client-secret-file is required")
		os.Exit(2)
	}
	secret, err := os.ReadFile(*secretFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "armlocal: --client-secret-file:", err)
		os.Exit(2)
	}
	s, err := armlocal.New(armlocal.Options{ProvisioningDelay: *delay, ClientID: *clientID, ClientSecret: string(trim(secret))})
	if err != nil {
		fmt.Fprintln(os.Stderr, "armlocal:", err)
		os.Exit(1)
	}
	defer s.Close()
	tags := func(min, max string) map[string]string {
		return map[string]string{"cluster-autoscaler-enabled": "true", "min": min, "max": max}
	}
	gpuTaint := "k8s.io_cluster-autoscaler_node-template_taint_nvidia.com_gpu"
	for _, ss := range []armlocal.ScaleSetSpec{
		{ResourceGroup: *rg, Name: "cpu", SKU: "Standard_D16s_v5", Capacity: 1, Tags: tags("1", "10")},
		{ResourceGroup: *rg, Name: "gpu-light", SKU: "Standard_NC4as_T4_v3", Tags: merge(tags("0", "8"), gpuTaint, "present:NoSchedule")},
		{ResourceGroup: *rg, Name: "gpu-heavy", SKU: "Standard_ND96isr_H100_v5", ProximityPlacementGroup: "ppg-ib", Tags: merge(tags("0", "4"), gpuTaint, "present:NoSchedule")},
	} {
		must(s.AddScaleSet(ss))
	}
	for _, ap := range []armlocal.AgentPoolSpec{
		{ResourceGroup: *rg, Cluster: *cluster, Name: "cpu", VMSize: "Standard_D4s_v5", Count: 1, Mode: "System", Tags: tags("1", "10")},
		{ResourceGroup: *rg, Cluster: *cluster, Name: "gpulight", VMSize: "Standard_NC4as_T4_v3", NodeTaints: []string{"nvidia.com/gpu=present:NoSchedule"}, Tags: tags("0", "8")},
		{ResourceGroup: *rg, Cluster: *cluster, Name: "gpuheavy", VMSize: "Standard_ND96amsr_A100_v4", NodeTaints: []string{"nvidia.com/gpu=present:NoSchedule"}, Tags: tags("0", "4")},
	} {
		must(s.AddAgentPool(ap))
	}
	fmt.Printf("resourceManagerEndpoint: %s\nactiveDirectoryAuthorityHost: %s\ntenantId: %s\nsubscriptionId: %s\nresourceGroup: %s\nlocation: %s\nclusterName: %s\n# CA certificate (SSL_CERT_FILE): %s\n",
		s.URL(), s.URL(), s.TenantID(), s.SubscriptionID(), *rg, s.Location(), *cluster, s.CAFile())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
}

func merge(m map[string]string, k, v string) map[string]string {
	m[k] = v
	return m
}

func trim(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r' || b[len(b)-1] == ' ') {
		b = b[:len(b)-1]
	}
	return b
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "armlocal:", err)
		os.Exit(1)
	}
}
