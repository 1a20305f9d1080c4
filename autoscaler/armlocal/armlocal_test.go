// Tests of the local ARM server through Azure's SDK clients: scale set lifecycle, injected faults, throttling windows, SKUs and usage, AKS agent pools, authentication, boot delays and clocks.

package armlocal_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/muster-project/muster/autoscaler/armlocal"
)

const rg = "rg-muster"

func start(t *testing.T, opts armlocal.Options) *armlocal.Server {
	t.Helper()
	s, err := armlocal.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// fastOptions keep the SDK's retry and polling quick in tests.
func fastOptions(s *armlocal.Server, retryOn ...int) *arm.ClientOptions {
	o := s.ClientOptions()
	o.Retry = policy.RetryOptions{MaxRetries: 3, RetryDelay: 10 * time.Millisecond, MaxRetryDelay: 50 * time.Millisecond, StatusCodes: retryOn}
	return o
}

func vmssClients(t *testing.T, s *armlocal.Server, retryOn ...int) (*armcompute.VirtualMachineScaleSetsClient, *armcompute.VirtualMachineScaleSetVMsClient) {
	t.Helper()
	f, err := armcompute.NewClientFactory(s.SubscriptionID(), s.Credential(), fastOptions(s, retryOn...))
	if err != nil {
		t.Fatal(err)
	}
	return f.NewVirtualMachineScaleSetsClient(), f.NewVirtualMachineScaleSetVMsClient()
}

func pollOpts() *runtime.PollUntilDoneOptions {
	return &runtime.PollUntilDoneOptions{Frequency: 10 * time.Millisecond}
}

func listVMs(t *testing.T, c *armcompute.VirtualMachineScaleSetVMsClient, name string) map[string]string {
	t.Helper()
	out := map[string]string{}
	pager := c.NewListPager(rg, name, &armcompute.VirtualMachineScaleSetVMsClientListOptions{Expand: to.Ptr("instanceView")})
	for pager.More() {
		page, err := pager.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, vm := range page.Value {
			out[*vm.InstanceID] = *vm.Properties.ProvisioningState
		}
	}
	return out
}

func scaleTo(ctx context.Context, c *armcompute.VirtualMachineScaleSetsClient, name string, capacity int64) error {
	p, err := c.BeginUpdate(ctx, rg, name, armcompute.VirtualMachineScaleSetUpdate{SKU: &armcompute.SKU{Capacity: to.Ptr(capacity)}}, nil)
	if err != nil {
		return err
	}
	_, err = p.PollUntilDone(ctx, pollOpts())
	return err
}

func TestScaleSetLifecycle(t *testing.T) {
	s := start(t, armlocal.Options{ProvisioningDelay: 200 * time.Millisecond})
	if err := s.AddScaleSet(armlocal.ScaleSetSpec{ResourceGroup: rg, Name: "gpu-heavy", SKU: "Standard_ND96isr_H100_v5", Capacity: 1, Tags: map[string]string{"min": "0"}, Zones: []string{"1"}, ProximityPlacementGroup: "ppg-a"}); err != nil {
		t.Fatal(err)
	}
	ss, vms := vmssClients(t, s)
	ctx := context.Background()

	got, err := ss.Get(ctx, rg, "gpu-heavy", nil)
	if err != nil {
		t.Fatal(err)
	}
	if *got.SKU.Capacity != 1 || *got.SKU.Name != "Standard_ND96isr_H100_v5" || !strings.HasSuffix(*got.Properties.ProximityPlacementGroup.ID, "/ppg-a") {
		t.Fatalf("unexpected scale set %+v", got.VirtualMachineScaleSet)
	}

	// Scale to 3: the poller sees InProgress during the provisioning delay and
	// Succeeded after it; instances are Creating meanwhile.
	p, err := ss.BeginUpdate(ctx, rg, "gpu-heavy", armcompute.VirtualMachineScaleSetUpdate{SKU: &armcompute.SKU{Capacity: to.Ptr[int64](3)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	states := listVMs(t, vms, "gpu-heavy")
	if len(states) != 3 || states["0"] != armlocal.StateSucceeded || states["1"] != armlocal.StateCreating {
		t.Fatalf("during provisioning: %v", states)
	}
	if _, err := p.PollUntilDone(ctx, pollOpts()); err != nil {
		t.Fatal(err)
	}
	states = listVMs(t, vms, "gpu-heavy")
	for id, st := range states {
		if st != armlocal.StateSucceeded {
			t.Errorf("instance %s: %s after the operation completed", id, st)
		}
	}

	// Delete exactly instance 1.
	dp, err := ss.BeginDeleteInstances(ctx, rg, "gpu-heavy", armcompute.VirtualMachineScaleSetVMInstanceRequiredIDs{InstanceIDs: []*string{to.Ptr("1")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dp.PollUntilDone(ctx, pollOpts()); err != nil {
		t.Fatal(err)
	}
	capacity, insts, _ := s.ScaleSet(rg, "gpu-heavy")
	if capacity != 2 || len(insts) != 2 || insts[0].ID != "0" || insts[1].ID != "2" {
		t.Fatalf("after deleting instance 1: capacity %d, instances %+v", capacity, insts)
	}
	if !strings.HasPrefix(insts[1].ProviderID, "azure:///subscriptions/") {
		t.Fatalf("provider ID %q", insts[1].ProviderID)
	}
}

func TestFaults(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name   string
		setup  func(s *armlocal.Server)
		retry  []int
		scale  int64
		check  func(t *testing.T, s *armlocal.Server, err error)
		states map[string]string
	}{
		{
			name:  "family quota exhausted",
			setup: func(s *armlocal.Server) { s.SetQuota("standardNDSH100v5Family", 96) },
			scale: 2,
			check: func(t *testing.T, s *armlocal.Server, err error) {
				var re *azcore.ResponseError
				if !errors.As(err, &re) || re.StatusCode != http.StatusConflict || re.ErrorCode != "OperationNotAllowed" {
					t.Fatalf("want 409 OperationNotAllowed, got %v", err)
				}
				if !strings.Contains(err.Error(), "standardNDSH100v5Family") {
					t.Fatalf("error does not name the quota: %v", err)
				}
			},
			states: map[string]string{"0": armlocal.StateSucceeded},
		},
		{
			name:  "regional quota exhausted",
			setup: func(s *armlocal.Server) { s.SetRegionalQuota(100) },
			scale: 2,
			check: func(t *testing.T, s *armlocal.Server, err error) {
				if err == nil || !strings.Contains(err.Error(), "Total Regional Cores quota") {
					t.Fatalf("want regional quota error, got %v", err)
				}
			},
			states: map[string]string{"0": armlocal.StateSucceeded},
		},
		{
			name:  "partial provisioning",
			setup: func(s *armlocal.Server) { s.InjectPartialProvisioning("gpu-heavy", 1, "") },
			scale: 3,
			check: func(t *testing.T, s *armlocal.Server, err error) {
				var re *azcore.ResponseError
				if !errors.As(err, &re) || re.ErrorCode != "AllocationFailed" {
					t.Fatalf("want AllocationFailed, got %v", err)
				}
			},
			states: map[string]string{"0": armlocal.StateSucceeded, "1": armlocal.StateSucceeded, "2": armlocal.StateFailed},
		},
		{
			name:  "throttled without client retry",
			setup: func(s *armlocal.Server) { s.InjectThrottle(armlocal.OpScaleSetUpdate, 1, 7*time.Second) },
			retry: []int{http.StatusInternalServerError},
			scale: 2,
			check: func(t *testing.T, s *armlocal.Server, err error) {
				var re *azcore.ResponseError
				if !errors.As(err, &re) || re.StatusCode != http.StatusTooManyRequests || re.RawResponse.Header.Get("Retry-After") != "7" {
					t.Fatalf("want 429 with Retry-After 7, got %v", err)
				}
				if n := s.Requests(armlocal.OpScaleSetUpdate); n != 1 {
					t.Fatalf("%d update requests, want 1", n)
				}
			},
			states: map[string]string{"0": armlocal.StateSucceeded},
		},
		{
			name: "server errors retried",
			setup: func(s *armlocal.Server) {
				s.InjectServerError(armlocal.OpScaleSetUpdate, 2, http.StatusServiceUnavailable)
			},
			retry: []int{http.StatusServiceUnavailable},
			scale: 2,
			check: func(t *testing.T, s *armlocal.Server, err error) {
				if err != nil {
					t.Fatal(err)
				}
				if n := s.Requests(armlocal.OpScaleSetUpdate); n != 3 {
					t.Fatalf("%d update requests, want 3 (two 503s, one success)", n)
				}
			},
			states: map[string]string{"0": armlocal.StateSucceeded, "1": armlocal.StateSucceeded},
		},
		{
			name:  "slow answer times out",
			setup: func(s *armlocal.Server) { s.InjectDelay(armlocal.OpScaleSetUpdate, 1, time.Minute) },
			scale: 2,
			check: func(t *testing.T, s *armlocal.Server, err error) {
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("want deadline exceeded, got %v", err)
				}
			},
			states: map[string]string{"0": armlocal.StateSucceeded},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := start(t, armlocal.Options{})
			if err := s.AddScaleSet(armlocal.ScaleSetSpec{ResourceGroup: rg, Name: "gpu-heavy", SKU: "Standard_ND96isr_H100_v5", Capacity: 1}); err != nil {
				t.Fatal(err)
			}
			tc.setup(s)
			ss, vms := vmssClients(t, s, tc.retry...)
			cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			tc.check(t, s, scaleTo(cctx, ss, "gpu-heavy", tc.scale))
			got := listVMs(t, vms, "gpu-heavy")
			if len(got) != len(tc.states) {
				t.Fatalf("instances %v, want %v", got, tc.states)
			}
			for id, st := range tc.states {
				if got[id] != st {
					t.Fatalf("instances %v, want %v", got, tc.states)
				}
			}
		})
	}
}

// TestThrottleWindow: a throttling window answers every request 429 while it
// lasts, however many there are, and none after it.
func TestThrottleWindow(t *testing.T) {
	ctx := context.Background()
	s := start(t, armlocal.Options{})
	if err := s.AddScaleSet(armlocal.ScaleSetSpec{ResourceGroup: rg, Name: "gpu-heavy", SKU: "Standard_ND96isr_H100_v5", Capacity: 1}); err != nil {
		t.Fatal(err)
	}
	window := 500 * time.Millisecond
	s.InjectThrottleFor(armlocal.OpScaleSetUpdate, window, time.Second)
	ss, vms := vmssClients(t, s, http.StatusInternalServerError)
	began := time.Now()
	for i := range 3 {
		err := scaleTo(ctx, ss, "gpu-heavy", 2)
		var re *azcore.ResponseError
		if time.Since(began) >= window {
			break // the machine was too slow to ask three times inside it
		}
		if !errors.As(err, &re) || re.StatusCode != http.StatusTooManyRequests {
			t.Fatalf("update %d inside the window: want 429, got %v", i, err)
		}
	}
	time.Sleep(time.Until(began.Add(window)))
	if err := scaleTo(ctx, ss, "gpu-heavy", 2); err != nil {
		t.Fatalf("update after the window: %v", err)
	}
	if got := listVMs(t, vms, "gpu-heavy"); len(got) != 2 {
		t.Fatalf("instances %v, want 2", got)
	}
}

func TestSKUsAndUsage(t *testing.T) {
	s := start(t, armlocal.Options{})
	if err := s.AddScaleSet(armlocal.ScaleSetSpec{ResourceGroup: rg, Name: "cpu", SKU: "Standard_D16s_v5", Capacity: 2}); err != nil {
		t.Fatal(err)
	}
	f, err := armcompute.NewClientFactory(s.SubscriptionID(), s.Credential(), fastOptions(s))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	found := map[string]map[string]string{}
	pager := f.NewResourceSKUsClient().NewListPager(&armcompute.ResourceSKUsClientListOptions{Filter: to.Ptr("location eq 'westeurope'")})
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range page.Value {
			caps := map[string]string{}
			for _, c := range k.Capabilities {
				caps[*c.Name] = *c.Value
			}
			found[*k.Name] = caps
		}
	}
	if c := found["Standard_ND96isr_H100_v5"]; c["GPUs"] != "8" || c["vCPUs"] != "96" || c["MemoryGB"] != "1900" {
		t.Fatalf("H100 capabilities %v", c)
	}
	if c := found["Standard_D16ps_v5"]; c["CpuArchitectureType"] != "Arm64" {
		t.Fatalf("Arm SKU capabilities %v", c)
	}
	usage := map[string][2]int64{}
	up := f.NewUsageClient().NewListPager("westeurope", nil)
	for up.More() {
		page, err := up.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range page.Value {
			usage[*u.Name.Value] = [2]int64{int64(*u.CurrentValue), *u.Limit}
		}
	}
	if usage["standardDSv5Family"][0] != 32 || usage["cores"][0] != 32 {
		t.Fatalf("usage %v, want 32 vCPUs in use", usage)
	}
}

func TestAgentPools(t *testing.T) {
	s := start(t, armlocal.Options{ProvisioningDelay: 50 * time.Millisecond})
	if err := s.AddAgentPool(armlocal.AgentPoolSpec{ResourceGroup: rg, Cluster: "aks1", Name: "gpuheavy", VMSize: "Standard_ND96asr_v4", Count: 1, NodeTaints: []string{"nvidia.com/gpu=present:NoSchedule"}}); err != nil {
		t.Fatal(err)
	}
	f, err := armcontainerservice.NewClientFactory(s.SubscriptionID(), s.Credential(), fastOptions(s))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	pools := f.NewAgentPoolsClient()
	ap, err := pools.Get(ctx, rg, "aks1", "gpuheavy", nil)
	if err != nil {
		t.Fatal(err)
	}
	if *ap.Properties.Count != 1 || *ap.Properties.NodeTaints[0] != "nvidia.com/gpu=present:NoSchedule" {
		t.Fatalf("pool %+v", ap.Properties)
	}
	ap.Properties.Count = to.Ptr[int32](3)
	p, err := pools.BeginCreateOrUpdate(ctx, rg, "aks1", "gpuheavy", ap.AgentPool, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.PollUntilDone(ctx, pollOpts()); err != nil {
		t.Fatal(err)
	}
	count, machines, _ := s.AgentPool(rg, "aks1", "gpuheavy")
	if count != 3 || len(machines) != 3 {
		t.Fatalf("count %d machines %+v", count, machines)
	}
	var names []string
	mp := f.NewMachinesClient().NewListPager(rg, "aks1", "gpuheavy", nil)
	for mp.More() {
		page, err := mp.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range page.Value {
			names = append(names, *m.Name)
			if !strings.Contains(*m.Properties.ResourceID, "/virtualMachineScaleSets/aks-gpuheavy-") {
				t.Fatalf("machine resource ID %s", *m.Properties.ResourceID)
			}
		}
	}
	if len(names) != 3 {
		t.Fatalf("machines %v", names)
	}
	dp, err := pools.BeginDeleteMachines(ctx, rg, "aks1", "gpuheavy", armcontainerservice.AgentPoolDeleteMachinesParameter{MachineNames: []*string{to.Ptr(names[1])}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dp.PollUntilDone(ctx, pollOpts()); err != nil {
		t.Fatal(err)
	}
	count, machines, _ = s.AgentPool(rg, "aks1", "gpuheavy")
	if count != 2 || len(machines) != 2 || machines[0].ID != names[0] || machines[1].ID != names[2] {
		t.Fatalf("after deleting %s: count %d machines %+v", names[1], count, machines)
	}
}

func TestAuthentication(t *testing.T) {
	s := start(t, armlocal.Options{ClientID: "muster", ClientSecret: "s3cret"})
	if err := s.AddScaleSet(armlocal.ScaleSetSpec{ResourceGroup: rg, Name: "cpu", SKU: "Standard_D4s_v5"}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, secret string
		wantErr      bool
	}{
		{"right secret", "s3cret", false},
		{"wrong secret", "nope", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cred, err := azidentity.NewClientSecretCredential(s.TenantID(), "muster", tc.secret, &azidentity.ClientSecretCredentialOptions{
				ClientOptions: policy.ClientOptions{Cloud: s.Cloud(), Transport: s.HTTPClient()}, DisableInstanceDiscovery: true,
			})
			if err != nil {
				t.Fatal(err)
			}
			c, err := armcompute.NewVirtualMachineScaleSetsClient(s.SubscriptionID(), cred, fastOptions(s))
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Get(context.Background(), rg, "cpu", nil)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
		})
	}
	// No credential at all.
	req, _ := http.NewRequest(http.MethodGet, s.URL()+"subscriptions/"+s.SubscriptionID()+"/resourceGroups/"+rg+"/providers/Microsoft.Compute/virtualMachineScaleSets/cpu", nil)
	resp, err := s.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("anonymous request: %d", resp.StatusCode)
	}
}

// A scale set's own provisioning delay wins over the server's: a GPU size
// boots slower than a CPU one.
func TestScaleSetProvisioningDelay(t *testing.T) {
	s := start(t, armlocal.Options{ProvisioningDelay: time.Hour})
	if err := s.AddScaleSet(armlocal.ScaleSetSpec{ResourceGroup: rg, Name: "fast", SKU: "Standard_D16s_v5", ProvisioningDelay: 50 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddScaleSet(armlocal.ScaleSetSpec{ResourceGroup: rg, Name: "slow", SKU: "Standard_D16s_v5"}); err != nil {
		t.Fatal(err)
	}
	ss, vms := vmssClients(t, s)
	ctx := context.Background()
	if err := scaleTo(ctx, ss, "fast", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := ss.BeginUpdate(ctx, rg, "slow", armcompute.VirtualMachineScaleSetUpdate{SKU: &armcompute.SKU{Capacity: to.Ptr[int64](1)}}, nil); err != nil {
		t.Fatal(err)
	}
	if st := listVMs(t, vms, "fast"); st["0"] != armlocal.StateSucceeded {
		t.Fatalf("fast pool's instance: %v", st)
	}
	if st := listVMs(t, vms, "slow"); st["0"] != armlocal.StateCreating {
		t.Fatalf("slow pool's instance: %v, want Creating for the server's hour", st)
	}
}

// TestClock runs the cloud on a clock of its own, as a simulator's trace
// clock: boot and deletion delays and fault windows pass when that clock
// moves, however much or little wall time goes by.
func TestClock(t *testing.T) {
	ctx := context.Background()
	clk := clocktesting.NewFakePassiveClock(time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC))
	s := start(t, armlocal.Options{Clock: clk, ProvisioningDelay: 3 * time.Minute, DeletionDelay: time.Minute})
	if err := s.AddScaleSet(armlocal.ScaleSetSpec{ResourceGroup: rg, Name: "gpu-heavy", SKU: "Standard_ND96isr_H100_v5"}); err != nil {
		t.Fatal(err)
	}
	ss, vms := vmssClients(t, s)
	if _, err := ss.BeginUpdate(ctx, rg, "gpu-heavy", armcompute.VirtualMachineScaleSetUpdate{SKU: &armcompute.SKU{Capacity: to.Ptr[int64](1)}}, nil); err != nil {
		t.Fatal(err)
	}
	// Wall time passes, the cloud's clock does not: the VM still boots.
	time.Sleep(50 * time.Millisecond)
	clk.SetTime(clk.Now().Add(3*time.Minute - time.Second))
	if st := listVMs(t, vms, "gpu-heavy"); st["0"] != armlocal.StateCreating {
		t.Fatalf("instance %v one second of the clock before its boot delay, want Creating", st)
	}
	clk.SetTime(clk.Now().Add(time.Second))
	if st := listVMs(t, vms, "gpu-heavy"); st["0"] != armlocal.StateSucceeded {
		t.Fatalf("instance %v at its boot delay on the clock, want Succeeded", st)
	}

	dp, err := ss.BeginDeleteInstances(ctx, rg, "gpu-heavy", armcompute.VirtualMachineScaleSetVMInstanceRequiredIDs{InstanceIDs: []*string{to.Ptr("0")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st := listVMs(t, vms, "gpu-heavy"); st["0"] != armlocal.StateDeleting {
		t.Fatalf("instance %v just deleted, want Deleting for the clock's minute", st)
	}
	clk.SetTime(clk.Now().Add(time.Minute))
	if _, err := dp.PollUntilDone(ctx, pollOpts()); err != nil {
		t.Fatal(err)
	}
	if st := listVMs(t, vms, "gpu-heavy"); len(st) != 0 {
		t.Fatalf("instances %v a minute of the clock after the deletion, want none", st)
	}

	// A throttling window lasts its time on the clock.
	s.InjectThrottleFor(armlocal.OpScaleSetUpdate, 5*time.Minute, time.Second)
	time.Sleep(50 * time.Millisecond)
	var re *azcore.ResponseError
	if err := scaleTo(ctx, ss, "gpu-heavy", 1); !errors.As(err, &re) || re.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("update inside the clock's throttling window: want 429, got %v", err)
	}
	clk.SetTime(clk.Now().Add(5 * time.Minute))
	if _, err := ss.BeginUpdate(ctx, rg, "gpu-heavy", armcompute.VirtualMachineScaleSetUpdate{SKU: &armcompute.SKU{Capacity: to.Ptr[int64](1)}}, nil); err != nil {
		t.Fatalf("update after the clock passed the window: %v", err)
	}
}

// TestURLClock runs the cloud on a clock served over HTTP, as muster
// simulate serves its trace clock to the armlocal process.
func TestURLClock(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	now := time.Date(2020, 1, 1, 12, 0, 0, 0, time.UTC)
	broken := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if broken {
			http.Error(w, "simulator gone", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, now.Format(time.RFC3339Nano))
	}))
	defer srv.Close()
	set := func(d time.Duration, fail bool) {
		mu.Lock()
		defer mu.Unlock()
		now, broken = now.Add(d), fail
	}

	if _, err := armlocal.NewURLClock(ctx, srv.URL+"/now"); err != nil {
		t.Fatalf("any path of the server answers: %v", err)
	}
	if _, err := armlocal.NewURLClock(ctx, "http://127.0.0.1:1/now"); err == nil {
		t.Fatal("an endpoint that does not answer: want an error at start")
	}
	clk, err := armlocal.NewURLClock(ctx, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	s := start(t, armlocal.Options{Clock: clk, ProvisioningDelay: 10 * time.Minute})
	if err := s.AddScaleSet(armlocal.ScaleSetSpec{ResourceGroup: rg, Name: "cpu", SKU: "Standard_D16s_v5"}); err != nil {
		t.Fatal(err)
	}
	ss, vms := vmssClients(t, s)
	if _, err := ss.BeginUpdate(ctx, rg, "cpu", armcompute.VirtualMachineScaleSetUpdate{SKU: &armcompute.SKU{Capacity: to.Ptr[int64](1)}}, nil); err != nil {
		t.Fatal(err)
	}
	// The endpoint fails: the clock keeps its last time, it does not fall
	// back to wall time (years past the boot delay here).
	set(9*time.Minute, true)
	if st := listVMs(t, vms, "cpu"); st["0"] != armlocal.StateCreating {
		t.Fatalf("instance %v while the clock endpoint fails, want Creating", st)
	}
	if got := clk.Now(); !got.Equal(time.Date(2020, 1, 1, 12, 0, 0, 0, time.UTC)) {
		t.Errorf("clock while its endpoint fails: %s, want the last time read", got)
	}
	set(time.Minute, false)
	if st := listVMs(t, vms, "cpu"); st["0"] != armlocal.StateSucceeded {
		t.Fatalf("instance %v when the served clock reached the boot delay, want Succeeded", st)
	}
	if d := clk.Since(time.Date(2020, 1, 1, 12, 0, 0, 0, time.UTC)); d != 10*time.Minute {
		t.Errorf("Since the start: %s, want 10m", d)
	}

	// Pushed (POST to ServeSet): the clock is what was set, the URL no
	// longer read, never backwards.
	push := httptest.NewServer(http.HandlerFunc(clk.ServeSet))
	defer push.Close()
	post := func(body string) int {
		t.Helper()
		resp, err := http.Post(push.URL, "text/plain", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post("ten past noon"); code != http.StatusBadRequest {
		t.Errorf("POST of a body that is no time: status %d, want 400", code)
	}
	if _, err := ss.BeginUpdate(ctx, rg, "cpu", armcompute.VirtualMachineScaleSetUpdate{SKU: &armcompute.SKU{Capacity: to.Ptr[int64](2)}}, nil); err != nil {
		t.Fatal(err)
	}
	pushed := time.Date(2020, 1, 1, 12, 20, 0, 0, time.UTC)
	set(time.Hour, false) // the URL, were it read, would be an hour on
	if code := post(pushed.Format(time.RFC3339Nano)); code != http.StatusNoContent {
		t.Fatalf("POST of a time: status %d, want 204", code)
	}
	if got := clk.Now(); !got.Equal(pushed) {
		t.Errorf("clock after a push: %s, want %s", got, pushed)
	}
	if st := listVMs(t, vms, "cpu"); st["1"] != armlocal.StateSucceeded {
		t.Errorf("instance %v on the pushed clock past its boot delay, want Succeeded", st)
	}
	post(pushed.Add(-time.Minute).Format(time.RFC3339Nano))
	if got := clk.Now(); !got.Equal(pushed) {
		t.Errorf("clock after an earlier time was pushed: %s, want it to stay at %s", got, pushed)
	}
}
