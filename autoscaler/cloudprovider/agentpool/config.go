// The cloud-config file: its types, loading and validation, and the --nodes and discovery specs.

package agentpool

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	apiv1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// Config is the cloud-config file (--cloud-config), YAML or JSON. Secrets are
// never in it: a client secret is read from ClientSecretFile or the
// AZURE_CLIENT_SECRET environment variable.
type Config struct {
	// Cloud is AzurePublicCloud (default), AzureUSGovernmentCloud or
	// AzureChinaCloud; ResourceManagerEndpoint and
	// ActiveDirectoryAuthorityHost override its endpoints (sovereign clouds,
	// Azure Stack, tests).
	Cloud                        string `json:"cloud,omitempty"`
	ResourceManagerEndpoint      string `json:"resourceManagerEndpoint,omitempty"`
	ResourceManagerAudience      string `json:"resourceManagerAudience,omitempty"`
	ActiveDirectoryAuthorityHost string `json:"activeDirectoryAuthorityHost,omitempty"`

	TenantID       string `json:"tenantId"`
	SubscriptionID string `json:"subscriptionId"`
	// ResourceGroup holds the scale sets (and, by default, the AKS cluster).
	ResourceGroup string `json:"resourceGroup"`
	Location      string `json:"location"`
	// ClusterName and ClusterResourceGroup name the AKS managed cluster whose
	// agent pools are scaled (needed only for pools of type aks).
	ClusterName          string `json:"clusterName,omitempty"`
	ClusterResourceGroup string `json:"clusterResourceGroup,omitempty"`

	Auth AuthConfig `json:"auth"`

	// PoolType is the type of pools named with --nodes: vmss (default) or aks.
	PoolType string `json:"poolType,omitempty"`
	// Pools listed explicitly (in addition to --nodes and auto-discovery).
	Pools []PoolConfig `json:"pools,omitempty"`
	// AutoDiscovery finds pools by tags (in addition to
	// --node-group-auto-discovery=label:k=v,...).
	AutoDiscovery *AutoDiscoveryConfig `json:"autoDiscovery,omitempty"`

	// GPUPools are the defaults for pools whose SKU has GPUs.
	GPUPools GPUPoolDefaults `json:"gpuPools,omitempty"`

	// MaxPods on template nodes of scale set pools (AKS pools report theirs).
	MaxPods int `json:"maxPods,omitempty"`
	// KubeReserved is subtracted from template capacity to get allocatable.
	KubeReserved map[string]string `json:"kubeReserved,omitempty"`

	// Prices per SKU (USD per hour) override and extend the defaults;
	// PricesFile is a YAML map SKU: price read at start-up.
	Prices     map[string]float64 `json:"prices,omitempty"`
	PricesFile string             `json:"pricesFile,omitempty"`
	// UnitPrices price a pod's requests for the price expander.
	UnitPrices *UnitPrices `json:"unitPrices,omitempty"`

	// API behaviour. RequestTimeout bounds every Azure call including its
	// retries; TryTimeout one attempt; MaxRetries, RetryDelay and
	// MaxRetryDelay govern retries of 408/5xx; ThrottleBackoff is the pause
	// after a 429 without Retry-After.
	RequestTimeout  Duration `json:"requestTimeout,omitempty"`
	TryTimeout      Duration `json:"tryTimeout,omitempty"`
	MaxRetries      int      `json:"maxRetries,omitempty"`
	RetryDelay      Duration `json:"retryDelay,omitempty"`
	MaxRetryDelay   Duration `json:"maxRetryDelay,omitempty"`
	ThrottleBackoff Duration `json:"throttleBackoff,omitempty"`
	// MaxRetryAfter caps a 429's Retry-After (default 5m): past the cap the
	// provider calls again, and a 429 then closes the gate anew, so a
	// bogus or very long Retry-After cannot silence it for hours.
	MaxRetryAfter Duration `json:"maxRetryAfter,omitempty"`
	// WriteRetryBudget (default 20s) is how long a capacity write that Azure
	// throttles or answers with 5xx is retried inside the autoscaler's
	// loop. Past it the scale-up is reported as a transient failure: the
	// node group is held back only until Retry-After, never backed off as
	// if capacity were missing.
	WriteRetryBudget Duration `json:"writeRetryBudget,omitempty"`
	// PollInterval is how often long-running operations are polled (a
	// Retry-After from Azure takes precedence).
	PollInterval Duration `json:"pollInterval,omitempty"`
	// CacheTTL is how long pool reads are reused; DiscoveryInterval how often
	// pools are rediscovered; SKUCacheTTL how long the SKU catalogue is kept.
	CacheTTL          Duration `json:"cacheTTL,omitempty"`
	DiscoveryInterval Duration `json:"discoveryInterval,omitempty"`
	SKUCacheTTL       Duration `json:"skuCacheTTL,omitempty"`
	// FailedInstanceRetention is how long an instance that failed to
	// provision (and was cleaned up) is still reported by Nodes() with its
	// error, so that the core backs off the pool.
	FailedInstanceRetention Duration `json:"failedInstanceRetention,omitempty"`
}

// AuthConfig selects the azidentity credential.
type AuthConfig struct {
	// Method: workload-identity (default), managed-identity or client-secret.
	Method string `json:"method,omitempty"`
	// ClientID of the user-assigned identity or app registration
	// (workload identity also reads AZURE_CLIENT_ID).
	ClientID string `json:"clientId,omitempty"`
	// FederatedTokenFile for workload identity (default: AZURE_FEDERATED_TOKEN_FILE).
	FederatedTokenFile string `json:"federatedTokenFile,omitempty"`
	// ClientSecretFile holds the client secret (client-secret method);
	// without it AZURE_CLIENT_SECRET is used.
	ClientSecretFile string `json:"clientSecretFile,omitempty"`
}

// PoolConfig is one explicitly listed pool.
type PoolConfig struct {
	Name          string `json:"name"`
	Type          string `json:"type,omitempty"` // vmss or aks; default Config.PoolType
	ResourceGroup string `json:"resourceGroup,omitempty"`
	Min           int    `json:"min"`
	Max           int    `json:"max"`
	// Labels and Taints ("key=value:Effect") added to template nodes.
	Labels map[string]string `json:"labels,omitempty"`
	Taints []string          `json:"taints,omitempty"`
	// ScaleDownUnneededTime and MaxNodeProvisionTime override the defaults
	// (the GPU pool defaults for GPU SKUs).
	ScaleDownUnneededTime Duration `json:"scaleDownUnneededTime,omitempty"`
	MaxNodeProvisionTime  Duration `json:"maxNodeProvisionTime,omitempty"`
}

// AutoDiscoveryConfig finds pools carrying all of Tags; their bounds come
// from the MinTag and MaxTag tags.
type AutoDiscoveryConfig struct {
	Tags   map[string]string `json:"tags"`
	MinTag string            `json:"minTag,omitempty"`
	MaxTag string            `json:"maxTag,omitempty"`
}

// GPUPoolDefaults apply to pools whose SKU has GPUs.
type GPUPoolDefaults struct {
	// ScaleDownUnneededTime (default 30m): GPU nodes are expensive to get back.
	ScaleDownUnneededTime Duration `json:"scaleDownUnneededTime,omitempty"`
	// MaxNodeProvisionTime (default 30m): large GPU VMs take long to boot.
	MaxNodeProvisionTime Duration `json:"maxNodeProvisionTime,omitempty"`
}

// UnitPrices are USD per hour per unit requested.
type UnitPrices struct {
	CPU      float64 `json:"cpu"`
	MemoryGB float64 `json:"memoryGB"`
	GPU      float64 `json:"gpu"`
}

// Duration is a time.Duration written as "30s" in the config. A value that
// does not parse is kept and reported by Validate under its field name.
type Duration struct {
	time.Duration
	bad error
}

// UnmarshalJSON accepts a Go duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	s, err := strconv.Unquote(string(b))
	if err != nil {
		d.bad = fmt.Errorf("want a duration string like \"30s\", got %s", b)
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		d.bad = err
		return nil
	}
	if v < 0 {
		d.bad = fmt.Errorf("%s is negative", s)
		return nil
	}
	d.Duration = v
	return nil
}

// MarshalJSON writes a Go duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return []byte(strconv.Quote(d.String())), nil }

func (d Duration) or(def time.Duration) time.Duration {
	if d.Duration > 0 {
		return d.Duration
	}
	return def
}

// LoadConfig reads and validates a cloud-config file.
func LoadConfig(path string) (*Config, error) {
	if path == "" {
		return nil, fmt.Errorf("cloud config: --cloud-config is required")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cloud config: %w", err)
	}
	return ParseConfig(b)
}

// ParseConfig decodes (strictly: unknown fields are errors) and validates a
// cloud-config.
func ParseConfig(b []byte) (*Config, error) {
	cfg := &Config{}
	if err := yaml.UnmarshalStrict(b, cfg); err != nil {
		return nil, fmt.Errorf("cloud config: %w", err)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// Validate checks the config, naming the first bad field.
func (c *Config) Validate() error {
	bad := func(field, format string, args ...any) error {
		return fmt.Errorf("cloud config: %s: %s", field, fmt.Sprintf(format, args...))
	}
	if c.SubscriptionID == "" {
		return bad("subscriptionId", "required")
	}
	if c.TenantID == "" && c.Auth.Method != "managed-identity" {
		return bad("tenantId", "required for auth method %q", c.authMethod())
	}
	if c.ResourceGroup == "" {
		return bad("resourceGroup", "required")
	}
	if c.Location == "" {
		return bad("location", "required (quota and SKU data are per location)")
	}
	switch c.Cloud {
	case "", "AzurePublicCloud", "AzureUSGovernmentCloud", "AzureChinaCloud":
	default:
		return bad("cloud", "%q is not one of AzurePublicCloud, AzureUSGovernmentCloud, AzureChinaCloud (set resourceManagerEndpoint for others)", c.Cloud)
	}
	for _, f := range []struct{ name, v string }{{"resourceManagerEndpoint", c.ResourceManagerEndpoint}, {"activeDirectoryAuthorityHost", c.ActiveDirectoryAuthorityHost}} {
		if f.v != "" && !strings.HasPrefix(f.v, "https://") {
			return bad(f.name, "%q must be an https:// URL", f.v)
		}
	}
	switch c.authMethod() {
	case "workload-identity", "managed-identity":
	case "client-secret":
		if c.Auth.ClientID == "" {
			return bad("auth.clientId", "required for client-secret")
		}
		if c.Auth.ClientSecretFile == "" && os.Getenv("AZURE_CLIENT_SECRET") == "" {
			return bad("auth.clientSecretFile", "required for client-secret unless AZURE_CLIENT_SECRET is set")
		}
	default:
		return bad("auth.method", "%q is not one of workload-identity, managed-identity, client-secret", c.Auth.Method)
	}
	switch c.PoolType {
	case "", PoolTypeVMSS, PoolTypeAKS:
	default:
		return bad("poolType", "%q is not one of vmss, aks", c.PoolType)
	}
	seen := map[string]bool{}
	for i, p := range c.Pools {
		field := fmt.Sprintf("pools[%d]", i)
		if p.Name == "" {
			return bad(field+".name", "required")
		}
		if seen[strings.ToLower(p.Name)] {
			return bad(field+".name", "pool %q listed twice", p.Name)
		}
		seen[strings.ToLower(p.Name)] = true
		switch p.Type {
		case "", PoolTypeVMSS, PoolTypeAKS:
		default:
			return bad(field+".type", "%q is not one of vmss, aks", p.Type)
		}
		if p.Min < 0 {
			return bad(field+".min", "%d is negative", p.Min)
		}
		if p.Max < p.Min {
			return bad(field+".max", "%d is below min %d", p.Max, p.Min)
		}
		for j, t := range p.Taints {
			if _, err := parseTaint(t); err != nil {
				return bad(fmt.Sprintf("%s.taints[%d]", field, j), "%v", err)
			}
		}
		if c.poolType(p) == PoolTypeAKS && c.ClusterName == "" {
			return bad("clusterName", "required for pool %q of type aks", p.Name)
		}
	}
	if c.PoolType == PoolTypeAKS && c.ClusterName == "" {
		return bad("clusterName", "required when poolType is aks")
	}
	if c.AutoDiscovery != nil && len(c.AutoDiscovery.Tags) == 0 {
		return bad("autoDiscovery.tags", "at least one tag is required")
	}
	if c.MaxPods < 0 {
		return bad("maxPods", "%d is negative", c.MaxPods)
	}
	for k, v := range c.KubeReserved {
		if _, err := parseQuantity(v); err != nil {
			return bad("kubeReserved."+k, "%v", err)
		}
	}
	for k, v := range c.Prices {
		if v < 0 {
			return bad("prices."+k, "%v is negative", v)
		}
	}
	durations := []struct {
		name string
		d    Duration
	}{
		{"requestTimeout", c.RequestTimeout}, {"tryTimeout", c.TryTimeout}, {"retryDelay", c.RetryDelay},
		{"maxRetryDelay", c.MaxRetryDelay}, {"throttleBackoff", c.ThrottleBackoff}, {"pollInterval", c.PollInterval},
		{"maxRetryAfter", c.MaxRetryAfter}, {"writeRetryBudget", c.WriteRetryBudget},
		{"cacheTTL", c.CacheTTL}, {"discoveryInterval", c.DiscoveryInterval}, {"skuCacheTTL", c.SKUCacheTTL},
		{"failedInstanceRetention", c.FailedInstanceRetention},
		{"gpuPools.scaleDownUnneededTime", c.GPUPools.ScaleDownUnneededTime}, {"gpuPools.maxNodeProvisionTime", c.GPUPools.MaxNodeProvisionTime},
	}
	for i, p := range c.Pools {
		durations = append(durations,
			struct {
				name string
				d    Duration
			}{fmt.Sprintf("pools[%d].scaleDownUnneededTime", i), p.ScaleDownUnneededTime},
			struct {
				name string
				d    Duration
			}{fmt.Sprintf("pools[%d].maxNodeProvisionTime", i), p.MaxNodeProvisionTime})
	}
	for _, d := range durations {
		if d.d.bad != nil {
			return bad(d.name, "%v", d.d.bad)
		}
	}
	if c.MaxRetries < 0 {
		return bad("maxRetries", "%d is negative", c.MaxRetries)
	}
	if c.PricesFile != "" {
		b, err := os.ReadFile(c.PricesFile)
		if err != nil {
			return bad("pricesFile", "%v", err)
		}
		var prices map[string]float64
		if err := yaml.UnmarshalStrict(b, &prices); err != nil {
			return bad("pricesFile", "%s: %v", c.PricesFile, err)
		}
		merged := map[string]float64{}
		for k, v := range prices {
			merged[k] = v
		}
		for k, v := range c.Prices {
			merged[k] = v
		}
		c.Prices = merged
	}
	return nil
}

func (c *Config) authMethod() string {
	if c.Auth.Method == "" {
		return "workload-identity"
	}
	return c.Auth.Method
}

func (c *Config) poolType(p PoolConfig) string {
	if p.Type != "" {
		return p.Type
	}
	if c.PoolType != "" {
		return c.PoolType
	}
	return PoolTypeVMSS
}

func (c *Config) clusterResourceGroup() string {
	if c.ClusterResourceGroup != "" {
		return c.ClusterResourceGroup
	}
	return c.ResourceGroup
}

// ParseNodesSpec parses an upstream --nodes value, min:max:name.
func ParseNodesSpec(spec string) (PoolConfig, error) {
	parts := strings.SplitN(spec, ":", 3)
	if len(parts) != 3 {
		return PoolConfig{}, fmt.Errorf("--nodes %q: want min:max:name", spec)
	}
	minSize, err := strconv.Atoi(parts[0])
	if err != nil || minSize < 0 {
		return PoolConfig{}, fmt.Errorf("--nodes %q: min %q is not a non-negative integer", spec, parts[0])
	}
	maxSize, err := strconv.Atoi(parts[1])
	if err != nil || maxSize < minSize {
		return PoolConfig{}, fmt.Errorf("--nodes %q: max %q is not an integer >= min", spec, parts[1])
	}
	if parts[2] == "" {
		return PoolConfig{}, fmt.Errorf("--nodes %q: name is empty", spec)
	}
	return PoolConfig{Name: parts[2], Min: minSize, Max: maxSize}, nil
}

// ParseDiscoverySpec parses an upstream --node-group-auto-discovery value of
// the form label:key=value,key2=value2 into tags.
func ParseDiscoverySpec(spec string) (map[string]string, error) {
	rest, ok := strings.CutPrefix(spec, "label:")
	if !ok {
		return nil, fmt.Errorf("--node-group-auto-discovery %q: only label:key=value,... is supported", spec)
	}
	tags := map[string]string{}
	for _, kv := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--node-group-auto-discovery %q: %q is not key=value", spec, kv)
		}
		tags[k] = v
	}
	return tags, nil
}

// parseTaint parses key=value:Effect (value optional).
func parseTaint(s string) (apiv1.Taint, error) {
	kv, effect, ok := strings.Cut(s, ":")
	if !ok {
		return apiv1.Taint{}, fmt.Errorf("taint %q: want key=value:Effect", s)
	}
	k, v, _ := strings.Cut(kv, "=")
	if k == "" {
		return apiv1.Taint{}, fmt.Errorf("taint %q: empty key", s)
	}
	switch apiv1.TaintEffect(effect) {
	case apiv1.TaintEffectNoSchedule, apiv1.TaintEffectPreferNoSchedule, apiv1.TaintEffectNoExecute:
	default:
		return apiv1.Taint{}, fmt.Errorf("taint %q: effect %q is not NoSchedule, PreferNoSchedule or NoExecute", s, effect)
	}
	return apiv1.Taint{Key: k, Value: v, Effect: apiv1.TaintEffect(effect)}, nil
}
