// The Azure SDK clients and credential, the shared 429 throttle gate, and Azure error classes.

package agentpool

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"
	"k8s.io/klog/v2"
)

// clients are the real Azure SDK clients the provider uses.
type clients struct {
	scaleSets *armcompute.VirtualMachineScaleSetsClient
	vms       *armcompute.VirtualMachineScaleSetVMsClient
	skus      *armcompute.ResourceSKUsClient
	usage     *armcompute.UsageClient
	pools     *armcontainerservice.AgentPoolsClient
	machines  *armcontainerservice.MachinesClient
	gate      *throttleGate
}

// cloudConfig resolves the cloud and its endpoint overrides.
func (c *Config) cloudConfig() cloud.Configuration {
	var cc cloud.Configuration
	switch c.Cloud {
	case "AzureUSGovernmentCloud":
		cc = cloud.AzureGovernment
	case "AzureChinaCloud":
		cc = cloud.AzureChina
	default:
		cc = cloud.AzurePublic
	}
	services := map[cloud.ServiceName]cloud.ServiceConfiguration{}
	for k, v := range cc.Services {
		services[k] = v
	}
	cc.Services = services
	if c.ActiveDirectoryAuthorityHost != "" {
		cc.ActiveDirectoryAuthorityHost = c.ActiveDirectoryAuthorityHost
	}
	if c.ResourceManagerEndpoint != "" {
		rm := cc.Services[cloud.ResourceManager]
		rm.Endpoint = c.ResourceManagerEndpoint
		rm.Audience = c.ResourceManagerEndpoint
		if c.ResourceManagerAudience != "" {
			rm.Audience = c.ResourceManagerAudience
		}
		cc.Services[cloud.ResourceManager] = rm
	}
	return cc
}

// newCredential builds the azidentity credential the config names. Secrets
// come from files or the environment only.
func newCredential(c *Config, transport policy.Transporter) (azcore.TokenCredential, error) {
	co := policy.ClientOptions{Cloud: c.cloudConfig(), Transport: transport}
	// A custom authority host (sovereign or private cloud, tests) has no
	// entry in Entra's instance discovery.
	customAuthority := c.ActiveDirectoryAuthorityHost != ""
	switch c.authMethod() {
	case "workload-identity":
		return azidentity.NewWorkloadIdentityCredential(&azidentity.WorkloadIdentityCredentialOptions{
			ClientOptions: co, ClientID: c.Auth.ClientID, TenantID: c.TenantID,
			TokenFilePath: c.Auth.FederatedTokenFile, DisableInstanceDiscovery: customAuthority,
		})
	case "managed-identity":
		o := &azidentity.ManagedIdentityCredentialOptions{ClientOptions: co}
		if c.Auth.ClientID != "" {
			o.ID = azidentity.ClientID(c.Auth.ClientID)
		}
		return azidentity.NewManagedIdentityCredential(o)
	case "client-secret":
		secret := os.Getenv("AZURE_CLIENT_SECRET")
		if c.Auth.ClientSecretFile != "" {
			b, err := os.ReadFile(c.Auth.ClientSecretFile)
			if err != nil {
				return nil, fmt.Errorf("cloud config: auth.clientSecretFile: %w", err)
			}
			secret = strings.TrimSpace(string(b))
		}
		if secret == "" {
			return nil, fmt.Errorf("cloud config: auth.clientSecretFile: the client secret is empty")
		}
		return azidentity.NewClientSecretCredential(c.TenantID, c.Auth.ClientID, secret, &azidentity.ClientSecretCredentialOptions{
			ClientOptions: co, DisableInstanceDiscovery: customAuthority,
		})
	}
	return nil, fmt.Errorf("cloud config: auth.method: %q is not supported", c.Auth.Method)
}

// newClients builds the SDK clients with bounded retries (408 and 5xx only:
// 429 goes to the throttle gate, which fails calls fast until Retry-After has
// passed instead of sleeping in the SDK).
func newClients(c *Config, cred azcore.TokenCredential, transport policy.Transporter) (*clients, error) {
	registerMetrics()
	gate := &throttleGate{fallback: c.ThrottleBackoff.or(DefaultThrottleBackoff), ceiling: c.MaxRetryAfter.or(DefaultMaxRetryAfter)}
	opts := &arm.ClientOptions{ClientOptions: policy.ClientOptions{
		Cloud:     c.cloudConfig(),
		Transport: transport,
		Retry: policy.RetryOptions{
			MaxRetries:    int32(max(c.MaxRetries, 0)),
			TryTimeout:    c.TryTimeout.or(DefaultTryTimeout),
			RetryDelay:    c.RetryDelay.or(DefaultRetryDelay),
			MaxRetryDelay: c.MaxRetryDelay.or(DefaultMaxRetryDelay),
			StatusCodes: []int{http.StatusRequestTimeout, http.StatusInternalServerError, http.StatusBadGateway,
				http.StatusServiceUnavailable, http.StatusGatewayTimeout},
		},
		PerRetryPolicies: []policy.Policy{countCalls{}, gate},
	}}
	if c.MaxRetries == 0 {
		opts.Retry.MaxRetries = DefaultMaxRetries
	}
	compute, err := armcompute.NewClientFactory(c.SubscriptionID, cred, opts)
	if err != nil {
		return nil, err
	}
	aks, err := armcontainerservice.NewClientFactory(c.SubscriptionID, cred, opts)
	if err != nil {
		return nil, err
	}
	return &clients{
		scaleSets: compute.NewVirtualMachineScaleSetsClient(),
		vms:       compute.NewVirtualMachineScaleSetVMsClient(),
		skus:      compute.NewResourceSKUsClient(),
		usage:     compute.NewUsageClient(),
		pools:     aks.NewAgentPoolsClient(),
		machines:  aks.NewMachinesClient(),
		gate:      gate,
	}, nil
}

// ThrottledError is returned without calling Azure while a 429's
// Retry-After has not passed.
type ThrottledError struct{ Until time.Time }

func (e *ThrottledError) Error() string {
	return fmt.Sprintf("Azure Resource Manager is throttling this client until %s (429 Retry-After); not calling it before then", e.Until.Format(time.RFC3339))
}

// NonRetriable tells the SDK's retry policy not to retry.
func (e *ThrottledError) NonRetriable() {}

// throttleGate is a per-retry pipeline policy shared by all clients: after a
// 429 it records the Retry-After and fails every call fast until then.
type throttleGate struct {
	fallback time.Duration
	ceiling  time.Duration // cap on Retry-After
	mu       sync.Mutex
	until    time.Time
}

func (g *throttleGate) Do(req *policy.Request) (*http.Response, error) {
	if until, ok := g.blocked(); ok {
		return nil, &ThrottledError{Until: until}
	}
	resp, err := req.Next()
	if err == nil && resp.StatusCode == http.StatusTooManyRequests {
		d := retryAfter(resp.Header, g.fallback)
		if d > g.ceiling {
			klog.InfoS("Azure asked for a Retry-After beyond the cap; calling again at the cap", "retryAfter", d, "cap", g.ceiling)
			d = g.ceiling
		}
		armRetryAfter.Observe(d.Seconds())
		g.mu.Lock()
		if u := time.Now().Add(d); u.After(g.until) {
			g.until = u
		}
		g.mu.Unlock()
		klog.InfoS("Azure throttled a request; backing off", "method", req.Raw().Method, "path", req.Raw().URL.Path, "retryAfter", d)
	}
	return resp, err
}

func (g *throttleGate) blocked() (time.Time, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.until, time.Now().Before(g.until)
}

// retryAfter reads Retry-After (seconds or an HTTP date), or the
// retry-after-ms variants, falling back to def.
func retryAfter(h http.Header, def time.Duration) time.Duration {
	for _, k := range []string{"retry-after-ms", "x-ms-retry-after-ms"} {
		if v := h.Get(k); v != "" {
			if ms, err := strconv.Atoi(v); err == nil && ms > 0 {
				return time.Duration(ms) * time.Millisecond
			}
		}
	}
	if v := h.Get("Retry-After"); v != "" {
		if s, err := strconv.Atoi(v); err == nil && s > 0 {
			return time.Duration(s) * time.Second
		}
		if t, err := http.ParseTime(v); err == nil {
			if d := time.Until(t); d > 0 {
				return d
			}
		}
	}
	return def
}

// isThrottled reports whether err is a 429 or the gate refusing a call.
func isThrottled(err error) bool {
	var te *ThrottledError
	if errors.As(err, &te) {
		return true
	}
	var re *azcore.ResponseError
	return errors.As(err, &re) && re.StatusCode == http.StatusTooManyRequests
}

// maxWriteConflicts bounds the retries of a capacity write another writer
// got in before.
const maxWriteConflicts = 3

// isConflict reports a 412: a conditional write whose ETag no longer
// matches.
func isConflict(err error) bool {
	var re *azcore.ResponseError
	return errors.As(err, &re) && re.StatusCode == http.StatusPreconditionFailed
}

// isNotFound reports a 404 from Azure.
func isNotFound(err error) bool {
	var re *azcore.ResponseError
	return errors.As(err, &re) && re.StatusCode == http.StatusNotFound
}

// errorCode returns Azure's error code and message of err, if any.
func errorCode(err error) (string, string) {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.ErrorCode, err.Error()
	}
	var inst *instanceFailure
	if errors.As(err, &inst) {
		return inst.code, inst.msg
	}
	return "", err.Error()
}

// instanceFailure is an instance's own provisioning error, for a scale-up
// whose operation said nothing of it (a preempted one).
type instanceFailure struct{ code, msg string }

func (e *instanceFailure) Error() string { return e.code + ": " + e.msg }

// isOutOfResources classifies an Azure error code (and message) as lack of
// capacity or quota.
func isOutOfResources(code, msg string) bool {
	lc := strings.ToLower(code)
	if outOfResourcesCodes[lc] {
		return true
	}
	return lc == "operationnotallowed" && strings.Contains(strings.ToLower(msg), "quota")
}
