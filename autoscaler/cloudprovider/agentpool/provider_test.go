// Tests of the provider against armlocal: scale-ups and their rollback, restarts and throttling, transient faults, deletions and withdrawals, AKS pools, discovery, options, SKU fallback.

package agentpool

import (
	"errors"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	apiv1 "k8s.io/api/core/v1"
	"k8s.io/autoscaler/cluster-autoscaler/cloudprovider"
	"k8s.io/autoscaler/cluster-autoscaler/config"
	"k8s.io/autoscaler/cluster-autoscaler/utils/backoff"

	"github.com/muster-project/muster/autoscaler/armlocal"
)

const rg = "rg-muster"

// env is an armlocal endpoint with the seed scenario's pools: a CPU-only,
// a light-GPU and a heavy-GPU scale set, plus an AKS cluster with the same
// three pools.
type env struct {
	srv *armlocal.Server
	cfg *Config
}

func newEnv(t *testing.T, provisioning time.Duration) *env {
	t.Helper()
	srv, err := armlocal.New(armlocal.Options{ProvisioningDelay: provisioning})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	for _, ss := range []armlocal.ScaleSetSpec{
		{ResourceGroup: rg, Name: "cpu", SKU: "Standard_D16s_v5", Capacity: 1, Zones: []string{"1", "2"},
			Tags: map[string]string{"cluster-autoscaler-enabled": "true", "min": "1", "max": "10"}},
		{ResourceGroup: rg, Name: "gpu-light", SKU: "Standard_NC4as_T4_v3", Capacity: 0,
			Tags: map[string]string{"cluster-autoscaler-enabled": "true", "min": "0", "max": "4",
				TagNodeTemplateTaintPrefix + "sku": "gpu:NoSchedule"}},
		{ResourceGroup: rg, Name: "gpu-heavy", SKU: "Standard_ND96isr_H100_v5", Capacity: 1, ProximityPlacementGroup: "ppg-ib",
			Zones: []string{"1"},
			Tags: map[string]string{"cluster-autoscaler-enabled": "true", "min": "0", "max": "3",
				TagNodeTemplateTaintPrefix + "nvidia.com_gpu": "present:NoSchedule"}},
		{ResourceGroup: rg, Name: "unmanaged", SKU: "Standard_D4s_v5", Capacity: 1},
	} {
		if err := srv.AddScaleSet(ss); err != nil {
			t.Fatal(err)
		}
	}
	for _, ap := range []armlocal.AgentPoolSpec{
		{ResourceGroup: rg, Cluster: "aks1", Name: "cpuaks", VMSize: "Standard_D4s_v5", Count: 1, Mode: "System"},
		{ResourceGroup: rg, Cluster: "aks1", Name: "gpuaks", VMSize: "Standard_ND96asr_v4", Count: 0,
			NodeTaints: []string{"nvidia.com/gpu=present:NoSchedule"}, NodeLabels: map[string]string{"team": "ml"}},
	} {
		if err := srv.AddAgentPool(ap); err != nil {
			t.Fatal(err)
		}
	}
	ms := func(n int) Duration { return Duration{Duration: time.Duration(n) * time.Millisecond} }
	cfg := &Config{
		ResourceManagerEndpoint: srv.URL(), ActiveDirectoryAuthorityHost: srv.URL(),
		TenantID: srv.TenantID(), SubscriptionID: srv.SubscriptionID(), ResourceGroup: rg, Location: srv.Location(),
		ClusterName:    "aks1",
		RequestTimeout: ms(3000), TryTimeout: ms(1000), MaxRetries: 3, RetryDelay: ms(10), MaxRetryDelay: ms(50),
		PollInterval: ms(20), CacheTTL: ms(1), DiscoveryInterval: ms(1), ThrottleBackoff: ms(30000),
		FailedInstanceRetention: Duration{Duration: time.Minute},
		AutoDiscovery:           &AutoDiscoveryConfig{Tags: map[string]string{"cluster-autoscaler-enabled": "true"}},
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	return &env{srv: srv, cfg: cfg}
}

func (e *env) provider(t *testing.T, specs ...string) *Provider {
	t.Helper()
	p, err := New(e.cfg, Options{NodeGroupSpecs: specs, Credential: e.srv.Credential(), Transport: e.srv.HTTPClient()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Cleanup() })
	return p
}

func group(t *testing.T, p *Provider, id string) *nodeGroup {
	t.Helper()
	for _, g := range p.m.list() {
		if g.id == id {
			return g
		}
	}
	t.Fatalf("no pool %s", id)
	return nil
}

// eventually waits for cond, failing after a generous bound (a hang guard,
// not a timing assertion).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func states(e *env, name string) (int, map[string]string) {
	c, insts, _ := e.srv.ScaleSet(rg, name)
	out := map[string]string{}
	for _, i := range insts {
		out[i.ID] = i.State
	}
	return c, out
}

func settled(e *env, name string) bool {
	_, st := states(e, name)
	for _, s := range st {
		if s == armlocal.StateCreating || s == armlocal.StateDeleting {
			return false
		}
	}
	return true
}

func TestScaleUp(t *testing.T) {
	cases := []struct {
		name    string
		pool    string
		delta   int
		atomic  bool
		setup   func(e *env)
		wantErr string // substring; empty: success
		// after the operation has settled:
		wantCapacity  int
		wantStates    map[string]string
		wantErrorInfo int // instances Nodes() reports with an error
		wantClass     cloudprovider.InstanceErrorClass
		updates       int // capacity writes
	}{
		{name: "heavy GPU pool grows by exactly one", pool: "gpu-heavy", delta: 1,
			wantCapacity: 2, wantStates: map[string]string{"0": "Succeeded", "1": "Succeeded"}, updates: 1},
		{name: "never above max", pool: "gpu-heavy", delta: 3, wantErr: "exceeds max 3",
			wantCapacity: 1, wantStates: map[string]string{"0": "Succeeded"}, updates: 0},
		{name: "family quota checked first", pool: "gpu-heavy", delta: 1,
			setup:        func(e *env) { e.srv.SetQuota("standardNDSH100v5Family", 150) },
			wantErr:      "OutOfResources: pool gpu-heavy: quota standardNDSH100v5Family allows 54 more vCPUs",
			wantCapacity: 1, wantStates: map[string]string{"0": "Succeeded"}, updates: 0},
		{name: "regional quota checked first", pool: "cpu", delta: 2,
			setup:   func(e *env) { e.srv.SetRegionalQuota(122) },
			wantErr: "quota cores allows 2 more vCPUs", wantCapacity: 1, wantStates: map[string]string{"0": "Succeeded"}, updates: 0},
		{name: "GPU IncreaseSize is all-or-nothing", pool: "gpu-heavy", delta: 2,
			setup:        func(e *env) { e.srv.InjectPartialProvisioning("gpu-heavy", 1, "AllocationFailed") },
			wantCapacity: 1, wantStates: map[string]string{"0": "Succeeded"},
			wantErrorInfo: 2, wantClass: cloudprovider.OutOfResourcesErrorClass, updates: 1},
		{name: "CPU IncreaseSize keeps what arrived", pool: "cpu", delta: 3,
			setup:        func(e *env) { e.srv.InjectPartialProvisioning("cpu", 1, "AllocationFailed") },
			wantCapacity: 2, wantStates: map[string]string{"0": "Succeeded", "1": "Succeeded"},
			wantErrorInfo: 2, wantClass: cloudprovider.OutOfResourcesErrorClass, updates: 1},
		{name: "CPU AtomicIncreaseSize is all-or-nothing", pool: "cpu", delta: 3, atomic: true,
			setup:        func(e *env) { e.srv.InjectPartialProvisioning("cpu", 2, "InternalOperationError") },
			wantCapacity: 1, wantStates: map[string]string{"0": "Succeeded"},
			wantErrorInfo: 3, wantClass: cloudprovider.OtherErrorClass, updates: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, 100*time.Millisecond)
			p := e.provider(t)
			if tc.setup != nil {
				tc.setup(e)
			}
			g := group(t, p, tc.pool)
			var err error
			if tc.atomic {
				err = g.AtomicIncreaseSize(tc.delta)
			} else {
				err = g.IncreaseSize(tc.delta)
			}
			if tc.wantErr == "" && err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
			}
			if size, _ := g.TargetSize(); err == nil && size != 1+tc.delta && tc.pool != "cpu" {
				t.Fatalf("target size %d right after the increase, want %d", size, 1+tc.delta)
			}
			eventually(t, "the pool to settle", func() bool {
				c, _ := states(e, tc.pool)
				return settled(e, tc.pool) && c == tc.wantCapacity
			})
			p.m.wg.Wait() // the watcher has finished its cleanup
			c, st := states(e, tc.pool)
			if c != tc.wantCapacity || len(st) != len(tc.wantStates) {
				t.Fatalf("capacity %d instances %v, want %d %v", c, st, tc.wantCapacity, tc.wantStates)
			}
			for id, s := range tc.wantStates {
				if st[id] != s {
					t.Fatalf("instances %v, want %v", st, tc.wantStates)
				}
			}
			if n := e.srv.CapacityWrites(); n != tc.updates {
				t.Fatalf("%d capacity writes, want %d", n, tc.updates)
			}
			insts, err := g.Nodes()
			if err != nil {
				t.Fatal(err)
			}
			withErr := 0
			for _, i := range insts {
				if i.Status != nil && i.Status.ErrorInfo != nil {
					withErr++
					if i.Status.ErrorInfo.ErrorClass != tc.wantClass || i.Status.State != cloudprovider.InstanceCreating {
						t.Fatalf("instance %s: %+v, want class %v", i.Id, i.Status.ErrorInfo, tc.wantClass)
					}
				}
			}
			if withErr != tc.wantErrorInfo {
				t.Fatalf("%d instances with errors in %+v, want %d", withErr, insts, tc.wantErrorInfo)
			}
		})
	}
}

// A failed all-or-nothing scale-up removes only the instances it created:
// a second scale-up of the same pool, issued while the first is still
// under way, keeps its instance, and the first's cleanup lowers the target
// by nothing the second still needs.
// reportedFailed returns how many of g's instances Nodes() reports with an
// error, and all of them for messages.
func reportedFailed(t *testing.T, g cloudprovider.NodeGroup) (int, []cloudprovider.Instance) {
	t.Helper()
	insts, err := g.Nodes()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, i := range insts {
		if i.Status != nil && i.Status.ErrorInfo != nil {
			n++
		}
	}
	return n, insts
}

func TestFailedScaleUpDeletesOnlyItsOwn(t *testing.T) {
	for _, tc := range []struct {
		name            string
		first, second   int
		succeed         int  // of the first's instances (-1: all)
		preempt         bool // the second write preempts the first's operation
		wantSucceeded   []string
		wantFailedCount int // instances Nodes() reports with an error
	}{
		{name: "partial first, whole second", first: 2, second: 1, succeed: 1,
			wantSucceeded: []string{"0", "3"}, wantFailedCount: 2},
		{name: "first fails entirely, second of two", first: 3, second: 2, succeed: 0,
			wantSucceeded: []string{"0", "4", "5"}, wantFailedCount: 3},
		{name: "partial first preempted by the second", first: 2, second: 1, succeed: 1, preempt: true,
			wantSucceeded: []string{"0", "3"}, wantFailedCount: 2},
		{name: "first preempted by the second, both whole", first: 2, second: 1, succeed: -1, preempt: true,
			wantSucceeded: []string{"0", "1", "2", "3"}, wantFailedCount: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, 300*time.Millisecond)
			p := e.provider(t)
			g := group(t, p, "cpu")
			if tc.succeed >= 0 {
				e.srv.InjectPartialProvisioning("cpu", tc.succeed, "AllocationFailed")
			}
			if tc.preempt {
				e.srv.InjectPreemption("cpu")
			}
			if err := g.AtomicIncreaseSize(tc.first); err != nil {
				t.Fatal(err)
			}
			if err := g.AtomicIncreaseSize(tc.second); err != nil {
				t.Fatal(err)
			}
			eventually(t, "both scale-ups to settle", func() bool { return settled(e, "cpu") })
			p.m.wg.Wait()
			eventually(t, "the cleanup's deletions to finish", func() bool { return settled(e, "cpu") })
			c, st := states(e, "cpu")
			var ok []string
			for id, s := range st {
				if s != armlocal.StateSucceeded {
					t.Fatalf("instance %s is %s; instances %v", id, s, st)
				}
				ok = append(ok, id)
			}
			sort.Strings(ok)
			if strings.Join(ok, ",") != strings.Join(tc.wantSucceeded, ",") || c != len(tc.wantSucceeded) {
				t.Fatalf("capacity %d, instances %v; want %v (the second scale-up's instances kept)", c, st, tc.wantSucceeded)
			}
			withErr, insts := reportedFailed(t, g)
			if withErr != tc.wantFailedCount {
				t.Fatalf("%d instances reported failed, want %d (the first scale-up's): %+v", withErr, tc.wantFailedCount, insts)
			}
		})
	}
}

// A failed all-or-nothing scale-up removes what it created, except an
// instance whose node already runs pods: the rollback must not break them
// (the chaos run caught it deleting such a VM). The failure is still
// reported for the instances that did not come.
func TestFailedAtomicScaleUpKeepsInstancesInUse(t *testing.T) {
	for _, tc := range []struct {
		name     string
		inUse    bool
		wantSize int
	}{
		{name: "the instance that came up runs pods", inUse: true, wantSize: 2},
		{name: "the instance that came up is empty", inUse: false, wantSize: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, 200*time.Millisecond)
			var asked []string
			var mu sync.Mutex
			p, err := New(e.cfg, Options{Credential: e.srv.Credential(), Transport: e.srv.HTTPClient(),
				NodeInUse: func(providerID string) bool {
					mu.Lock()
					defer mu.Unlock()
					asked = append(asked, providerID)
					return tc.inUse
				}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.Cleanup() })
			g := group(t, p, "cpu")
			e.srv.InjectPartialProvisioning("cpu", 1, "AllocationFailed")
			if err := g.AtomicIncreaseSize(3); err != nil {
				t.Fatal(err)
			}
			eventually(t, "the scale-up to settle", func() bool { return settled(e, "cpu") })
			p.m.wg.Wait()
			eventually(t, "the cleanup's deletions to finish", func() bool { return settled(e, "cpu") })
			c, st := states(e, "cpu")
			if c != tc.wantSize || len(st) != tc.wantSize {
				t.Fatalf("capacity %d, instances %v; want %d", c, st, tc.wantSize)
			}
			for id, s := range st {
				if s != armlocal.StateSucceeded {
					t.Fatalf("instance %s is %s; instances %v", id, s, st)
				}
			}
			mu.Lock()
			if len(asked) == 0 {
				t.Fatal("the rollback never asked whether a node was in use")
			}
			for _, id := range asked {
				if !strings.Contains(id, "/virtualMachines/") || strings.HasSuffix(id, "/virtualMachines/0") {
					t.Fatalf("asked about %s: only the scale-up's healthy instances are in question", id)
				}
			}
			mu.Unlock()
			failed, insts := reportedFailed(t, g)
			if want := 3 - (tc.wantSize - 1); failed != want {
				t.Fatalf("%d instances reported failed, want %d: %+v", failed, want, insts)
			}
		})
	}
}

// scaleUpRecords returns the scale-up records on a scale set's tags.
func scaleUpRecords(e *env, name string) []string {
	var out []string
	for k := range e.srv.ScaleSetTags(rg, name) {
		if strings.HasPrefix(k, scaleUpTagPrefix) {
			out = append(out, k)
		}
	}
	return out
}

// An autoscaler restarted in the middle of an all-or-nothing scale-up takes
// it up from the record on the pool: when part of it fails, the new process
// removes all of it. And a cleanup Azure refuses for a while is retried
// until it is done, never given up.
func TestScaleUpSurvivesRestartAndRefusals(t *testing.T) {
	t.Run("restart mid scale-up", func(t *testing.T) {
		e := newEnv(t, 400*time.Millisecond)
		first := e.provider(t)
		e.srv.InjectPartialProvisioning("cpu", 1, "AllocationFailed")
		if err := group(t, first, "cpu").AtomicIncreaseSize(2); err != nil {
			t.Fatal(err)
		}
		if recs := scaleUpRecords(e, "cpu"); len(recs) != 1 {
			t.Fatalf("scale-up records on the pool %v, want one", recs)
		}
		if err := first.Cleanup(); err != nil { // the process goes away mid scale-up
			t.Fatal(err)
		}
		second := e.provider(t)
		eventually(t, "the restarted provider to remove the partial scale-up", func() bool {
			c, st := states(e, "cpu")
			return c == 1 && len(st) == 1 && st["0"] == armlocal.StateSucceeded && len(scaleUpRecords(e, "cpu")) == 0
		})
		second.m.wg.Wait()
		failed, insts := reportedFailed(t, group(t, second, "cpu"))
		if failed != 2 {
			t.Fatalf("%d instances reported failed after the restart, want the scale-up's 2: %+v", failed, insts)
		}
	})
	t.Run("cleanup refused for a while", func(t *testing.T) {
		e := newEnv(t, 100*time.Millisecond)
		p := e.provider(t)
		e.srv.InjectPartialProvisioning("cpu", 1, "AllocationFailed")
		// Three whole attempts (each with the SDK's three retries) fail.
		e.srv.InjectServerError(armlocal.OpScaleSetDeleteInstances, 12, http.StatusInternalServerError)
		if err := group(t, p, "cpu").AtomicIncreaseSize(2); err != nil {
			t.Fatal(err)
		}
		eventually(t, "the cleanup to get through", func() bool {
			c, st := states(e, "cpu")
			return c == 1 && len(st) == 1 && len(scaleUpRecords(e, "cpu")) == 0
		})
		if n := e.srv.Requests(armlocal.OpScaleSetDeleteInstances); n != 13 {
			t.Fatalf("%d deletion requests, want 13 (12 refused, then the one that went through)", n)
		}
	})
}

func TestOutOfResourcesErrorType(t *testing.T) {
	e := newEnv(t, 0)
	e.srv.SetQuota("standardNCASv3_T4Family", 0)
	p := e.provider(t)
	err := group(t, p, "gpu-light").AtomicIncreaseSize(1)
	var oor *OutOfResourcesError
	if !errors.As(err, &oor) || oor.Quota != "standardNCASv3_T4Family" || oor.Type() != "cloudProviderError" {
		t.Fatalf("want OutOfResourcesError naming standardNCASv3_T4Family, got %#v", err)
	}
}

func TestThrottling(t *testing.T) {
	e := newEnv(t, 0)
	p := e.provider(t)
	g := group(t, p, "gpu-heavy")
	if _, err := g.Nodes(); err != nil {
		t.Fatal(err)
	}
	e.srv.InjectThrottle(armlocal.OpAny, 1, 30*time.Second)
	time.Sleep(5 * time.Millisecond) // let the 1 ms cache expire
	before := e.srv.Requests(armlocal.OpAny)

	// A read during throttling serves the cache...
	insts, err := g.Nodes()
	if err != nil || len(insts) != 1 {
		t.Fatalf("Nodes while throttled: %v %v", insts, err)
	}
	if size, err := g.TargetSize(); err != nil || size != 1 {
		t.Fatalf("TargetSize while throttled: %d %v", size, err)
	}
	// ...a write fails fast, without calling Azure...
	err = g.IncreaseSize(1)
	var te *ThrottledError
	if !errors.As(err, &te) {
		t.Fatalf("IncreaseSize while throttled: %v, want a ThrottledError", err)
	}
	// ...and only the one request that got the 429 reached Azure.
	if n := e.srv.Requests(armlocal.OpAny) - before; n != 1 {
		t.Fatalf("%d requests reached Azure while throttled, want 1", n)
	}
	if e.srv.Requests(armlocal.OpScaleSetUpdate) != 0 {
		t.Fatal("a capacity write was sent while throttled")
	}
}

// A scale-up Azure throttles is retried within the write budget (a
// Retry-After beyond the cap waits only the cap); past the budget, or after
// 5xx beyond the SDK's retries, it fails as transient, and the core's
// backoff holds the pool back only until Azure takes calls again, never
// exponentially as for missing capacity.
func TestThrottledScaleUps(t *testing.T) {
	ms := func(n int) Duration { return Duration{Duration: time.Duration(n) * time.Millisecond} }
	cases := []struct {
		name          string
		budget, cap   Duration
		inject        func(s *armlocal.Server)
		wantTransient bool
		wantHeldFor   time.Duration // at least, when transient
		wantWrites    int           // to the scale set, refused or not, including removing a scale-up's record
	}{
		{name: "429 with Retry-After within the budget: retried", budget: ms(3000),
			inject: func(s *armlocal.Server) { s.InjectThrottle(armlocal.OpScaleSetUpdate, 1, time.Second) }, wantWrites: 3},
		{name: "an hour's Retry-After is capped and retried", budget: ms(3000), cap: ms(200),
			inject: func(s *armlocal.Server) { s.InjectThrottle(armlocal.OpScaleSetUpdate, 1, time.Hour) }, wantWrites: 3},
		{name: "429 past the budget: transient, held back until Retry-After", budget: ms(500),
			inject:        func(s *armlocal.Server) { s.InjectThrottle(armlocal.OpScaleSetUpdate, 1, 30*time.Second) },
			wantTransient: true, wantHeldFor: 25 * time.Second, wantWrites: 1},
		{name: "5xx past the SDK's retries: transient, held back for the throttle backoff", budget: ms(500),
			inject: func(s *armlocal.Server) {
				s.InjectServerError(armlocal.OpScaleSetUpdate, 10, http.StatusServiceUnavailable)
			},
			wantTransient: true, wantHeldFor: 25 * time.Second, wantWrites: 4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, 0)
			e.cfg.WriteRetryBudget, e.cfg.MaxRetryAfter = tc.budget, tc.cap
			p := e.provider(t)
			g := group(t, p, "cpu")
			inner := backoff.NewIdBasedExponentialBackoff(5*time.Minute, 30*time.Minute, 3*time.Hour)
			b := p.Backoff(inner)
			tc.inject(e.srv)
			err := g.IncreaseSize(1)
			p.m.wg.Wait() // a scale-up that went through has ended and removed its record
			if n := e.srv.Requests(armlocal.OpScaleSetUpdate); n != tc.wantWrites {
				t.Fatalf("%d writes reached the scale set, want %d", n, tc.wantWrites)
			}
			var te *TransientError
			if !tc.wantTransient {
				if err != nil {
					t.Fatalf("IncreaseSize: %v, want it retried to success", err)
				}
				if c, _ := states(e, "cpu"); c != 2 {
					t.Fatalf("capacity %d, want 2", c)
				}
				return
			}
			if !errors.As(err, &te) {
				t.Fatalf("IncreaseSize: %v, want a TransientError", err)
			}
			// The core backs the pool off right after the failure.
			now := time.Now()
			until := b.Backoff(g, nil, cloudprovider.InstanceErrorInfo{ErrorClass: cloudprovider.OtherErrorClass, ErrorCode: "cloudProviderError", ErrorMessage: err.Error()}, now)
			if until.Sub(now) < tc.wantHeldFor || until.Sub(now) > time.Minute {
				t.Fatalf("held back until %v from now, want about %v", until.Sub(now), tc.wantHeldFor)
			}
			if st := b.BackoffStatus(g, nil, now); !st.IsBackedOff || st.ErrorInfo.ErrorCode != ErrorCodeTransient {
				t.Fatalf("backoff status %+v, want backed off with %s", st, ErrorCodeTransient)
			}
			if st := b.BackoffStatus(g, nil, until.Add(time.Millisecond)); st.IsBackedOff {
				t.Fatalf("still backed off once Azure takes calls again: %+v", st)
			}
			// A real capacity failure still backs off exponentially.
			b.Backoff(g, nil, cloudprovider.InstanceErrorInfo{ErrorClass: cloudprovider.OutOfResourcesErrorClass, ErrorCode: "QuotaExceeded"}, now)
			if st := b.BackoffStatus(g, nil, until.Add(time.Millisecond)); !st.IsBackedOff || st.ErrorInfo.ErrorCode != "QuotaExceeded" {
				t.Fatalf("backoff status after a capacity failure %+v, want the exponential backoff", st)
			}
		})
	}
}

func TestTransientFaults(t *testing.T) {
	cases := []struct {
		name    string
		inject  func(s *armlocal.Server)
		wantErr bool
	}{
		{"5xx retried within the budget", func(s *armlocal.Server) {
			s.InjectServerError(armlocal.OpScaleSetGet, 2, http.StatusServiceUnavailable)
		}, false},
		{"5xx beyond the budget fails", func(s *armlocal.Server) {
			s.InjectServerError(armlocal.OpScaleSetGet, 10, http.StatusInternalServerError)
		}, true},
		{"timeouts bounded in time", func(s *armlocal.Server) { s.InjectDelay(armlocal.OpScaleSetGet, 10, time.Minute) }, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, 0)
			p := e.provider(t)
			g := group(t, p, "cpu")
			tc.inject(e.srv)
			err := g.IncreaseSize(1)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err %v, want error %v", err, tc.wantErr)
			}
			p.m.wg.Wait()
			wantWrites := 2 // the capacity change, then removing its record
			if tc.wantErr {
				wantWrites = 0
			}
			if n := e.srv.Requests(armlocal.OpScaleSetUpdate); n != wantWrites {
				t.Fatalf("%d capacity writes, want %d", n, wantWrites)
			}
			e.srv.ClearFaults()
		})
	}
}

func node(name, providerID string) *apiv1.Node {
	n := &apiv1.Node{Spec: apiv1.NodeSpec{ProviderID: providerID}}
	n.Name = name
	return n
}

func TestDeleteNodes(t *testing.T) {
	e := newEnv(t, 0)
	p := e.provider(t)
	g := group(t, p, "cpu")
	if err := g.IncreaseSize(3); err != nil {
		t.Fatal(err)
	}
	eventually(t, "4 instances", func() bool { c, _ := states(e, "cpu"); return c == 4 && settled(e, "cpu") })
	p.m.wg.Wait()
	_, insts, _ := e.srv.ScaleSet(rg, "cpu")
	_, other, _ := e.srv.ScaleSet(rg, "gpu-heavy")

	// Not an instance of the pool: refused, nothing deleted.
	if err := g.DeleteNodes([]*apiv1.Node{node("x", other[0].ProviderID)}); err == nil || !strings.Contains(err.Error(), "is not an instance of") {
		t.Fatalf("deleting another pool's node: %v", err)
	}
	// Exactly the named instances go.
	if err := g.DeleteNodes([]*apiv1.Node{node("n1", insts[1].ProviderID), node("n3", insts[3].ProviderID)}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "2 instances", func() bool { c, _ := states(e, "cpu"); return c == 2 && settled(e, "cpu") })
	_, st := states(e, "cpu")
	if _, ok := st["0"]; !ok || st["2"] != "Succeeded" || len(st) != 2 {
		t.Fatalf("after deleting 1 and 3: %v", st)
	}
	// Never below min (1): deleting both remaining is refused...
	_, insts, _ = e.srv.ScaleSet(rg, "cpu")
	both := []*apiv1.Node{node("a", insts[0].ProviderID), node("b", insts[1].ProviderID)}
	if err := g.DeleteNodes(both); err == nil || !strings.Contains(err.Error(), "below its min 1") {
		t.Fatalf("deleting below min: %v", err)
	}
	// ...unless forced.
	if err := g.ForceDeleteNodes(both); err != nil {
		t.Fatal(err)
	}
	eventually(t, "0 instances", func() bool { c, _ := states(e, "cpu"); return c == 0 && settled(e, "cpu") })
	if c, _ := states(e, "gpu-heavy"); c != 1 {
		t.Fatalf("another pool changed: capacity %d", c)
	}
}

func TestDecreaseTargetSize(t *testing.T) {
	e := newEnv(t, 0)
	p := e.provider(t)
	g := group(t, p, "gpu-heavy")
	if err := g.DecreaseTargetSize(-1); err == nil || !strings.Contains(err.Error(), "attempt to delete existing instances") {
		t.Fatalf("decrease over existing instances: %v", err)
	}
	if err := g.DecreaseTargetSize(1); err == nil {
		t.Fatal("positive delta accepted")
	}
	if c, _ := states(e, "gpu-heavy"); c != 1 {
		t.Fatalf("capacity %d", c)
	}
}

// TestWithdrawCreating: instances still being created that no node has
// registered for are deleted newest first; a registered one, one that is
// up, and the pool's min are kept; the core may then delete a withdrawn
// instance again without error.
func TestWithdrawCreating(t *testing.T) {
	e := newEnv(t, time.Minute) // instances stay Creating for the whole test
	p := e.provider(t)
	light := group(t, p, "gpu-light")
	if err := light.IncreaseSize(4); err != nil {
		t.Fatal(err)
	}
	_, insts, _ := e.srv.ScaleSet(rg, "gpu-light")
	if len(insts) != 4 {
		t.Fatalf("%d instances, want 4", len(insts))
	}
	// The newest has registered a node (its kubelet came up before Azure
	// finished the VM): it is not withdrawn.
	registered := map[string]bool{strings.ToLower(insts[3].ProviderID): true}
	got, err := light.WithdrawCreating(2, registered)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != insts[2].ProviderID || got[1] != insts[1].ProviderID {
		t.Fatalf("withdrew %v, want instances 2 and 1: %s, %s", got, insts[2].ProviderID, insts[1].ProviderID)
	}
	eventually(t, "2 instances left", func() bool { c, st := states(e, "gpu-light"); return c == 2 && len(st) == 2 })
	if _, st := states(e, "gpu-light"); st[insts[0].ID] == "" || st[insts[3].ID] == "" {
		t.Fatalf("kept %v, want instances %s and %s", st, insts[0].ID, insts[3].ID)
	}
	// More than is still creating and unregistered: only instance 0 goes.
	if got, err := light.WithdrawCreating(5, registered); err != nil || len(got) != 1 || got[0] != insts[0].ProviderID {
		t.Fatalf("second withdrawal: %v, %v", got, err)
	}
	eventually(t, "1 instance left", func() bool { c, st := states(e, "gpu-light"); return c == 1 && len(st) == 1 })
	// The core's cached instance list may still show a withdrawn one as
	// unregistered and delete it later: nothing to do, no error.
	if err := light.DeleteNodes([]*apiv1.Node{node("withdrawn", insts[1].ProviderID)}); err != nil {
		t.Fatalf("deleting a withdrawn instance again: %v", err)
	}
	if c, _ := states(e, "gpu-light"); c != 1 {
		t.Fatalf("capacity %d after the repeated delete, want 1", c)
	}

	// An instance that is up is never withdrawn, nor one below min.
	heavy := group(t, p, "gpu-heavy")
	if got, err := heavy.WithdrawCreating(1, nil); err != nil || len(got) != 0 {
		t.Fatalf("heavy pool (instance up): withdrew %v, %v", got, err)
	}
	cpu := group(t, p, "cpu") // min 1, one instance up
	if err := cpu.IncreaseSize(1); err != nil {
		t.Fatal(err)
	}
	if got, err := cpu.WithdrawCreating(3, nil); err != nil || len(got) != 1 {
		t.Fatalf("cpu pool: withdrew %v, %v; want the one being created", got, err)
	}
	eventually(t, "the cpu pool back to its min", func() bool { c, st := states(e, "cpu"); return c == 1 && len(st) == 1 })
}

func TestAKSPools(t *testing.T) {
	e := newEnv(t, 50*time.Millisecond)
	e.cfg.Pools = []PoolConfig{{Name: "gpuaks", Type: PoolTypeAKS, Min: 0, Max: 4}, {Name: "cpuaks", Type: PoolTypeAKS, Min: 1, Max: 5}}
	p := e.provider(t)
	g := group(t, p, "gpuaks")

	// Scale from zero: the template comes from the SKU data.
	ni, err := g.TemplateNodeInfo()
	if err != nil {
		t.Fatal(err)
	}
	n := ni.Node()
	if q := n.Status.Allocatable[GPUResourceName]; q.Value() != 8 || n.Labels[GPUProductLabel] != "NVIDIA-A100-SXM4-40GB" || n.Labels["team"] != "ml" || len(n.Spec.Taints) != 1 {
		t.Fatalf("template %v %v %v", n.Labels, n.Status.Allocatable, n.Spec.Taints)
	}
	if err := g.AtomicIncreaseSize(2); err != nil {
		t.Fatal(err)
	}
	eventually(t, "2 machines", func() bool { c, m, _ := e.srv.AgentPool(rg, "aks1", "gpuaks"); return c == 2 && len(m) == 2 })
	p.m.wg.Wait()
	_, machines, _ := e.srv.AgentPool(rg, "aks1", "gpuaks")
	owner, err := p.NodeGroupForNode(node("m1", machines[1].ProviderID))
	if err != nil || owner == nil || owner.Id() != "gpuaks" {
		t.Fatalf("NodeGroupForNode(%s) = %v, %v", machines[1].ProviderID, owner, err)
	}
	if err := g.DeleteNodes([]*apiv1.Node{node("m1", machines[1].ProviderID)}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "1 machine", func() bool { c, m, _ := e.srv.AgentPool(rg, "aks1", "gpuaks"); return c == 1 && len(m) == 1 })
	_, left, _ := e.srv.AgentPool(rg, "aks1", "gpuaks")
	if left[0].ID != machines[0].ID {
		t.Fatalf("kept %s, want %s", left[0].ID, machines[0].ID)
	}

	// Partial provisioning of an atomic scale-up: nothing is kept.
	e.srv.InjectPartialProvisioning("gpuaks", 1, "")
	if err := g.AtomicIncreaseSize(2); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the pool back to 1", func() bool {
		c, m, _ := e.srv.AgentPool(rg, "aks1", "gpuaks")
		return c == 1 && len(m) == 1
	})
	p.m.wg.Wait()
	c, m, _ := e.srv.AgentPool(rg, "aks1", "gpuaks")
	if c != 1 || len(m) != 1 || m[0].ID != machines[0].ID {
		t.Fatalf("after the failed atomic scale-up: count %d machines %+v", c, m)
	}
	insts, _ := g.Nodes()
	failed := 0
	for _, i := range insts {
		if i.Status.ErrorInfo != nil && i.Status.ErrorInfo.ErrorClass == cloudprovider.OutOfResourcesErrorClass {
			failed++
		}
	}
	if failed != 2 {
		t.Fatalf("%d failed instances reported, want 2: %+v", failed, insts)
	}
}

// AKS machines report their provisioning state (from the VMs behind them),
// so the core waits for machines being created and a withdrawal can take
// them back; and a resize never overwrites another writer's count.
func TestAKSMachineStatesAndConcurrentWriters(t *testing.T) {
	e := newEnv(t, time.Minute) // machines stay Creating for the test
	e.cfg.Pools = []PoolConfig{{Name: "gpuaks", Type: PoolTypeAKS, Min: 0, Max: 6}, {Name: "cpuaks", Type: PoolTypeAKS, Min: 1, Max: 5}}
	p := e.provider(t)
	g := group(t, p, "gpuaks")
	if err := g.IncreaseSize(2); err != nil {
		t.Fatal(err)
	}
	insts, err := g.Nodes()
	if err != nil {
		t.Fatal(err)
	}
	if len(insts) != 2 {
		t.Fatalf("%d machines, want 2", len(insts))
	}
	for _, i := range insts {
		if i.Status == nil || i.Status.State != cloudprovider.InstanceCreating {
			t.Fatalf("machine %s reported %+v while its VM is being created, want Creating", i.Id, i.Status)
		}
	}
	got, err := g.WithdrawCreating(1, map[string]bool{})
	if err != nil || len(got) != 1 {
		t.Fatalf("withdrawing one creating machine: %v, %v", got, err)
	}
	eventually(t, "1 machine left", func() bool { c, m, _ := e.srv.AgentPool(rg, "aks1", "gpuaks"); return c == 1 && len(m) == 1 })

	// Another writer resizes the pool while a scale-up is between its read
	// and its write (held up in the quota check): the scale-up's write is
	// refused (412) and redone from a fresh read, so both increases count.
	e.srv.InjectDelay(armlocal.OpUsageList, 1, 300*time.Millisecond)
	done := make(chan error, 1)
	go func() { done <- g.IncreaseSize(1) }()
	time.Sleep(100 * time.Millisecond)
	if err := e.srv.ResizeAgentPool(rg, "aks1", "gpuaks", 3); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if c, _, _ := e.srv.AgentPool(rg, "aks1", "gpuaks"); c != 4 {
		t.Fatalf("count %d after another writer's resize to 3 and a scale-up by 1, want 4", c)
	}
}

func TestDiscoveryAndNodeGroupForNode(t *testing.T) {
	e := newEnv(t, 0)
	e.cfg.AutoDiscovery = &AutoDiscoveryConfig{Tags: map[string]string{"cluster-autoscaler-enabled": "true"}}
	p := e.provider(t, "2:5:unmanaged")
	var ids []string
	for _, g := range p.NodeGroups() {
		ids = append(ids, g.Id()+":"+strconv.Itoa(g.MinSize())+":"+strconv.Itoa(g.MaxSize()))
	}
	if got := strings.Join(ids, ","); got != "cpu:1:10,gpu-heavy:0:3,gpu-light:0:4,unmanaged:2:5" {
		t.Fatalf("pools %s", got)
	}
	_, insts, _ := e.srv.ScaleSet(rg, "gpu-heavy")
	cases := []struct {
		providerID string
		want       string
	}{
		{insts[0].ProviderID, "gpu-heavy"},
		{strings.Replace(insts[0].ProviderID, "rg-muster", "RG-MUSTER", 1), "gpu-heavy"},
		{"azure:///subscriptions/x/resourceGroups/other/providers/Microsoft.Compute/virtualMachineScaleSets/gpu-heavy/virtualMachines/0", ""},
		{"", ""},
	}
	for _, tc := range cases {
		g, err := p.NodeGroupForNode(node("n", tc.providerID))
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if g != nil {
			got = g.Id()
		}
		if got != tc.want {
			t.Errorf("NodeGroupForNode(%q) = %q, want %q", tc.providerID, got, tc.want)
		}
	}
	if has, err := p.HasInstance(node("n", insts[0].ProviderID)); !has || err != nil {
		t.Fatalf("HasInstance of a live instance: %v %v", has, err)
	}
	gone := strings.TrimSuffix(insts[0].ProviderID, "/0") + "/42"
	if has, err := p.HasInstance(node("n", gone)); has || err != nil {
		t.Fatalf("HasInstance of a deleted instance: %v %v", has, err)
	}
	if gpus := p.GetAvailableGPUTypes(); len(gpus) != 2 {
		t.Fatalf("GPU types %v", gpus)
	}
}

func TestGetOptions(t *testing.T) {
	e := newEnv(t, 0)
	e.cfg.GPUPools = GPUPoolDefaults{ScaleDownUnneededTime: Duration{Duration: 45 * time.Minute}}
	e.cfg.Pools = []PoolConfig{{Name: "gpu-light", Min: 0, Max: 4, MaxNodeProvisionTime: Duration{Duration: 7 * time.Minute}}}
	p := e.provider(t, "1:10:cpu", "0:3:gpu-heavy")
	defaults := config.NodeGroupAutoscalingOptions{ScaleDownUnneededTime: 10 * time.Minute, MaxNodeProvisionTime: 15 * time.Minute, ScaleDownUtilizationThreshold: 0.5}
	cases := []struct {
		pool                string
		unneeded, provision time.Duration
	}{
		{"cpu", 10 * time.Minute, 15 * time.Minute},
		{"gpu-heavy", 45 * time.Minute, DefaultGPUMaxNodeProvisionTime},
		{"gpu-light", 45 * time.Minute, 7 * time.Minute},
	}
	for _, tc := range cases {
		o, err := group(t, p, tc.pool).GetOptions(defaults)
		if err != nil {
			t.Fatal(err)
		}
		if o.ScaleDownUnneededTime != tc.unneeded || o.MaxNodeProvisionTime != tc.provision || o.ScaleDownUtilizationThreshold != 0.5 {
			t.Errorf("%s: %+v", tc.pool, o)
		}
	}
}

func TestStaticSKUFallback(t *testing.T) {
	e := newEnv(t, 0)
	e.srv.InjectServerError(armlocal.OpResourceSKUsList, 100, http.StatusInternalServerError)
	p := e.provider(t, "0:3:gpu-heavy")
	ni, err := group(t, p, "gpu-heavy").TemplateNodeInfo()
	if err != nil {
		t.Fatal(err)
	}
	if q := ni.Node().Status.Capacity[GPUResourceName]; q.Value() != 8 {
		t.Fatalf("fallback template capacity %v", ni.Node().Status.Capacity)
	}
}

// TestStartWaitsOutThrottling: an autoscaler (re)started while Azure throttles
// or fails its first calls retries them instead of exiting (in a pod: a
// crash loop that throttles more); a call that fails for another reason
// still fails the start at once.
func TestStartWaitsOutThrottling(t *testing.T) {
	e := newEnv(t, 0)
	e.srv.InjectThrottle(armlocal.OpScaleSetList, 2, time.Second)
	e.srv.InjectServerError(armlocal.OpScaleSetList, 4, http.StatusServiceUnavailable)
	p := e.provider(t)
	if g := group(t, p, "gpu-heavy"); g.maxSize != 3 {
		t.Fatalf("gpu-heavy discovered with max %d, want 3", g.maxSize)
	}

	e.srv.InjectServerError(armlocal.OpScaleSetGet, 100, http.StatusServiceUnavailable)
	old := startupRetryBudget
	startupRetryBudget = 3 * time.Second
	t.Cleanup(func() { startupRetryBudget = old })
	if _, err := New(e.cfg, Options{NodeGroupSpecs: []string{"0:3:gpu-heavy"}, Credential: e.srv.Credential(), Transport: e.srv.HTTPClient()}, nil); err == nil {
		t.Fatal("a pool Azure keeps failing: the start succeeded")
	}
	e.srv.ClearFaults()
	e.cfg.AutoDiscovery = nil
	if _, err := New(e.cfg, Options{NodeGroupSpecs: []string{"0:3:no-such-pool"}, Credential: e.srv.Credential(), Transport: e.srv.HTTPClient()}, nil); err == nil || !strings.Contains(err.Error(), "no-such-pool") {
		t.Fatalf("a missing pool: %v, want an error naming it at once", err)
	}
}
