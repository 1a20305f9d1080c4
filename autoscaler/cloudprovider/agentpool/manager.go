// The manager: SDK clients, caches, pool registration and tag discovery, refresh, quota checks.

package agentpool

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	apiv1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
)

// Options are the provider's inputs besides the cloud-config.
type Options struct {
	// NodeGroupSpecs are --nodes values (min:max:name).
	NodeGroupSpecs []string
	// AutoDiscoverySpecs are --node-group-auto-discovery values
	// (label:key=value,...).
	AutoDiscoverySpecs []string
	// Credential replaces the one the config names (tests use a static
	// token); Transport replaces the HTTP client (tests trust armlocal's
	// certificate).
	Credential azcore.TokenCredential
	Transport  policy.Transporter
	// NodeInUse reports whether the node of the instance with this provider
	// ID runs workload pods. A failed all-or-nothing scale-up keeps such
	// instances: the pods on them are worth more than the rollback, and the
	// node is scaled down like any other once it is idle. Nil: none is.
	NodeInUse func(providerID string) bool
}

// manager owns the SDK clients, the caches and the pools.
type manager struct {
	cfg            *Config
	c              *clients
	skus           *skuCatalog
	pricing        *pricing
	kubeReserved   apiv1.ResourceList
	nodeInUse      func(providerID string) bool
	requestTimeout time.Duration
	pollInterval   time.Duration
	cacheTTL       time.Duration

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	explicit      []PoolConfig
	discoveryTags []map[string]string

	mu            sync.Mutex
	groups        map[string]*nodeGroup // lower-case id
	lastDiscovery time.Time
}

func newManager(cfg *Config, opts Options) (*manager, error) {
	cred := opts.Credential
	if cred == nil {
		var err error
		if cred, err = newCredential(cfg, opts.Transport); err != nil {
			return nil, err
		}
	}
	c, err := newClients(cfg, cred, opts.Transport)
	if err != nil {
		return nil, err
	}
	m := &manager{
		cfg: cfg, c: c, pricing: newPricing(cfg), kubeReserved: apiv1.ResourceList{},
		requestTimeout: cfg.RequestTimeout.or(DefaultRequestTimeout),
		pollInterval:   cfg.PollInterval.or(DefaultPollInterval),
		cacheTTL:       cfg.CacheTTL.or(DefaultCacheTTL),
		groups:         map[string]*nodeGroup{},
		nodeInUse:      opts.NodeInUse,
	}
	m.skus = &skuCatalog{c: c, location: cfg.Location, ttl: cfg.SKUCacheTTL.or(DefaultSKUCacheTTL), timeout: m.requestTimeout}
	for k, v := range cfg.KubeReserved {
		q, err := parseQuantity(v)
		if err != nil {
			return nil, fmt.Errorf("cloud config: kubeReserved.%s: %w", k, err)
		}
		m.kubeReserved[apiv1.ResourceName(k)] = q
	}
	m.explicit = append(m.explicit, cfg.Pools...)
	for _, s := range opts.NodeGroupSpecs {
		p, err := ParseNodesSpec(s)
		if err != nil {
			return nil, err
		}
		m.explicit = append(m.explicit, p)
	}
	if cfg.AutoDiscovery != nil {
		m.discoveryTags = append(m.discoveryTags, cfg.AutoDiscovery.Tags)
	}
	for _, s := range opts.AutoDiscoverySpecs {
		tags, err := ParseDiscoverySpec(s)
		if err != nil {
			return nil, err
		}
		m.discoveryTags = append(m.discoveryTags, tags)
	}
	for _, p := range m.explicit {
		if cfg.poolType(p) == PoolTypeAKS && cfg.ClusterName == "" {
			return nil, fmt.Errorf("cloud config: clusterName: required for pool %q of type aks", p.Name)
		}
	}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	return m, nil
}

// goWatch runs f in the background until the provider is cleaned up.
func (m *manager) goWatch(f func(ctx context.Context)) {
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		f(m.ctx)
	}()
}

func (m *manager) stop() {
	m.cancel()
	m.wg.Wait()
}

func (m *manager) newGroup(p PoolConfig, kind string) *nodeGroup {
	g := &nodeGroup{m: m, id: p.Name, kind: kind, minSize: p.Min, maxSize: p.Max, pool: p, failed: map[string]failedInstance{}, withdrawn: map[string]time.Time{}}
	rg := p.ResourceGroup
	switch kind {
	case PoolTypeAKS:
		if rg == "" {
			rg = m.cfg.clusterResourceGroup()
		}
		g.be = &agentPoolBackend{c: m.c, resourceGroup: rg, cluster: m.cfg.ClusterName, name: p.Name, location: m.cfg.Location}
	default:
		if rg == "" {
			rg = m.cfg.ResourceGroup
		}
		g.be = &scaleSetBackend{c: m.c, resourceGroup: rg, name: p.Name}
	}
	return g
}

// start registers the explicit pools, checking that each exists (a clear
// start-up error otherwise), and runs the first discovery.
func (m *manager) start() error {
	for _, p := range m.explicit {
		g := m.newGroup(p, m.cfg.poolType(p))
		var st *poolState
		err := m.retryTransient("reading pool "+p.Name, func() (err error) {
			st, err = g.fresh()
			return err
		})
		if err != nil {
			return fmt.Errorf("pool %q (%s): %w", p.Name, g.be.describe(), err)
		}
		m.mu.Lock()
		m.groups[strings.ToLower(p.Name)] = g
		m.mu.Unlock()
		g.resume(st.tags)
	}
	if err := m.retryTransient("discovering pools", m.discover); err != nil {
		return err
	}
	m.mu.Lock()
	n := len(m.groups)
	m.mu.Unlock()
	if n == 0 {
		klog.InfoS("No pools yet: none listed (--nodes, pools) and auto-discovery found none")
	}
	return nil
}

// startupRetryBudget is how long start-up retries calls Azure throttles or
// answers with a 5xx: an autoscaler restarted during a throttling storm
// waits it out instead of exiting into a crash loop that throttles more.
var startupRetryBudget = 2 * time.Minute

// retryTransient calls f until it succeeds, fails for another reason than a
// 429 or 5xx, or the start-up budget is spent, waiting 1 s, then twice as
// long each time up to 16 s.
func (m *manager) retryTransient(what string, f func() error) error {
	deadline := time.Now().Add(startupRetryBudget)
	delay := time.Second
	for {
		err := f()
		if err == nil || !isTransient(err) || time.Now().Add(delay).After(deadline) {
			return err
		}
		klog.InfoS("Azure throttled or failed a start-up call; retrying", "call", what, "in", delay, "err", err)
		select {
		case <-m.ctx.Done():
			return err
		case <-time.After(delay):
		}
		delay = min(2*delay, 16*time.Second)
	}
}

// discover finds pools by tags; pools listed explicitly keep their bounds.
func (m *manager) discover() error {
	if len(m.discoveryTags) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(m.ctx, m.requestTimeout)
	defer cancel()
	minTag, maxTag := DefaultMinTag, DefaultMaxTag
	if ad := m.cfg.AutoDiscovery; ad != nil {
		if ad.MinTag != "" {
			minTag = ad.MinTag
		}
		if ad.MaxTag != "" {
			maxTag = ad.MaxTag
		}
	}
	found := map[string]*nodeGroup{}
	consider := func(name, kind, rg string, tags map[string]*string) {
		if !m.matches(tags) {
			return
		}
		p := PoolConfig{Name: name, ResourceGroup: rg, Type: kind}
		var err error
		if p.Min, err = tagInt(tags, minTag, 0); err == nil {
			p.Max, err = tagInt(tags, maxTag, -1)
		}
		if err == nil && p.Max < p.Min {
			err = fmt.Errorf("tag %s=%d is below tag %s=%d", maxTag, p.Max, minTag, p.Min)
		}
		if err != nil {
			klog.ErrorS(err, "Skipping a discovered pool with bad bounds", "pool", name, "kind", kind)
			return
		}
		g := m.newGroup(p, kind)
		g.discoveredTags = map[string]string{}
		for k, v := range tags {
			if v != nil {
				g.discoveredTags[k] = *v
			}
		}
		found[strings.ToLower(name)] = g
	}
	pager := m.c.scaleSets.NewListPager(m.cfg.ResourceGroup, nil)
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return m.discoveryFailed(err)
		}
		for _, ss := range page.Value {
			if ss != nil && ss.Name != nil {
				consider(*ss.Name, PoolTypeVMSS, m.cfg.ResourceGroup, ss.Tags)
			}
		}
	}
	if m.cfg.ClusterName != "" {
		ap := m.c.pools.NewListPager(m.cfg.clusterResourceGroup(), m.cfg.ClusterName, nil)
		for ap.More() {
			page, err := ap.NextPage(ctx)
			if err != nil {
				return m.discoveryFailed(err)
			}
			for _, p := range page.Value {
				if p != nil && p.Name != nil && p.Properties != nil {
					consider(*p.Name, PoolTypeAKS, m.cfg.clusterResourceGroup(), p.Properties.Tags)
				}
			}
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for id, g := range m.groups {
		if _, ok := found[id]; !ok && !m.isExplicit(id) {
			klog.InfoS("Pool no longer discovered", "pool", g.id)
			delete(m.groups, id)
		}
	}
	for id, g := range found {
		if old, ok := m.groups[id]; ok {
			if m.isExplicit(id) {
				continue
			}
			old.minSize, old.maxSize = g.minSize, g.maxSize
			continue
		}
		klog.InfoS("Discovered pool", "pool", g.id, "kind", g.kind, "min", g.minSize, "max", g.maxSize)
		m.groups[id] = g
		g.resume(g.discoveredTags)
	}
	m.lastDiscovery = time.Now()
	return nil
}

func (m *manager) discoveryFailed(err error) error {
	m.mu.Lock()
	first := m.lastDiscovery.IsZero()
	m.mu.Unlock()
	if first {
		return fmt.Errorf("discovering pools: %w", err)
	}
	klog.InfoS("Pool discovery failed; keeping the pools found before", "throttled", isThrottled(err), "err", err)
	return nil
}

func (m *manager) isExplicit(id string) bool {
	for _, p := range m.explicit {
		if strings.EqualFold(p.Name, id) {
			return true
		}
	}
	return false
}

func (m *manager) matches(tags map[string]*string) bool {
	for _, want := range m.discoveryTags {
		ok := true
		for k, v := range want {
			got, present := tags[k]
			if !present || got == nil || (v != "" && !strings.EqualFold(*got, v)) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func tagInt(tags map[string]*string, key string, def int) (int, error) {
	v, ok := tags[key]
	if !ok || v == nil {
		if def < 0 {
			return 0, fmt.Errorf("tag %s is missing", key)
		}
		return def, nil
	}
	n, err := strconv.Atoi(*v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("tag %s=%q is not a non-negative integer", key, *v)
	}
	return n, nil
}

// refresh rediscovers pools when due and re-reads pools whose cache expired.
func (m *manager) refresh() error {
	m.mu.Lock()
	due := len(m.discoveryTags) > 0 && time.Since(m.lastDiscovery) > m.cfg.DiscoveryInterval.or(DefaultDiscoveryInterval)
	m.mu.Unlock()
	if due {
		if err := m.discover(); err != nil {
			return err
		}
	}
	// The pools are read at once, not one after another: a loop waits for
	// the slowest read instead of their sum (each is one or two ARM round
	// trips).
	var wg sync.WaitGroup
	for _, g := range m.list() {
		wg.Go(func() {
			st, err := g.cached(false)
			if err != nil {
				klog.InfoS("Refreshing pool failed", "pool", g.id, "err", err)
				return
			}
			if st.spot {
				g.removeReclaimed(st)
			}
		})
	}
	wg.Wait()
	return nil
}

func (m *manager) list() []*nodeGroup {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*nodeGroup, 0, len(m.groups))
	for _, g := range m.groups {
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// checkQuota fails fast, naming the quota, when the regional or family
// vCPU quota cannot take n more instances of sku.
func (m *manager) checkQuota(ctx context.Context, pool string, sku skuInfo, n int) error {
	need := int64(n * sku.VCPUs)
	type usage struct{ used, limit int64 }
	usages := map[string]usage{}
	pager := m.c.usage.NewListPager(m.cfg.Location, nil)
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("pool %s: reading vCPU quota in %s: %w", pool, m.cfg.Location, err)
		}
		for _, u := range page.Value {
			if u == nil || u.Name == nil || u.Name.Value == nil || u.CurrentValue == nil || u.Limit == nil {
				continue
			}
			usages[strings.ToLower(*u.Name.Value)] = usage{int64(*u.CurrentValue), *u.Limit}
		}
	}
	check := func(name string) error {
		u, ok := usages[strings.ToLower(name)]
		if !ok {
			return nil
		}
		if u.used+need > u.limit {
			return &OutOfResourcesError{Pool: pool, Quota: name, Limit: u.limit, Used: u.used, Needed: need}
		}
		return nil
	}
	if sku.Family != "" {
		if err := check(sku.Family); err != nil {
			return err
		}
	} else {
		klog.InfoS("SKU family unknown (static SKU data); checking the regional quota only", "pool", pool, "sku", sku.Name)
	}
	return check("cores")
}
