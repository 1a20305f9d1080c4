// The Server: options, start-up, quotas, SKUs, request routing, async operations and settling.

package armlocal

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	computefake "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7/fake"
	aksfake "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6/fake"
	"k8s.io/utils/clock"
)

// Options configures a Server. Zero values take the defaults noted.
type Options struct {
	SubscriptionID string // default "00000000-0000-0000-0000-000000000001"
	TenantID       string // default "00000000-0000-0000-0000-0000000000aa"
	Location       string // default "westeurope"
	SKUs           []SKU  // default DefaultSKUs()
	// FamilyQuota is the vCPU limit of each SKU family not set with SetQuota
	// (default 1000); RegionalQuota the total regional vCPU limit (default 10000).
	FamilyQuota   int
	RegionalQuota int
	// ProvisioningDelay is how long a new instance stays Creating;
	// DeletionDelay how long a deleted one stays Deleting.
	ProvisioningDelay time.Duration
	DeletionDelay     time.Duration
	// ClientID and ClientSecret, when set, are the only credentials the token
	// endpoint accepts.
	ClientID     string
	ClientSecret string
	// Clock is the time instances boot and are deleted on, operations
	// settle and fault windows end by (default: wall time). A simulator
	// that runs its trace on a clock of its own passes that clock, so the
	// cloud's delays are trace time however fast the trace runs.
	Clock clock.PassiveClock
}

// Server is a running local ARM endpoint.
type Server struct {
	opts   Options
	ts     *httptest.Server
	token  string
	caFile string

	mu        sync.Mutex
	skus      []SKU
	quota     map[string]int // lower-case family -> vCPU limit
	regional  int
	scaleSets map[string]*scaleSet  // lower(rg/name)
	pools     map[string]*agentPool // lower(rg/cluster/name)
	clusters  map[string]string     // lower(rg/cluster) -> node resource group
	ops       map[string]*operation
	faults    []*fault
	partial   map[string]partialFault
	preempt   map[string]bool
	// capacityWrites counts scale set updates that set a capacity.
	capacityWrites int
	deletions      []Deletion
	hits           map[Op]int
	tokens         map[string]bool
	provDelay      time.Duration
	delDelay       time.Duration

	closing   chan struct{}
	closeOnce sync.Once

	fakeMu  sync.Mutex // the fakes' pager trackers are keyed by path: one dispatch at a time
	compute *computefake.ServerFactoryTransport
	aks     *aksfake.ServerFactoryTransport
}

// New starts a local ARM endpoint on a loopback port with a self-signed
// certificate.
func New(opts Options) (*Server, error) {
	if opts.SubscriptionID == "" {
		opts.SubscriptionID = "00000000-0000-0000-0000-000000000001"
	}
	if opts.TenantID == "" {
		opts.TenantID = "00000000-0000-0000-0000-0000000000aa"
	}
	if opts.Location == "" {
		opts.Location = "westeurope"
	}
	if opts.SKUs == nil {
		opts.SKUs = DefaultSKUs()
	}
	if opts.FamilyQuota == 0 {
		opts.FamilyQuota = 1000
	}
	if opts.RegionalQuota == 0 {
		opts.RegionalQuota = 10000
	}
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	s := &Server{
		opts:      opts,
		token:     "armlocal-static-" + randomHex(8),
		skus:      append([]SKU(nil), opts.SKUs...),
		quota:     map[string]int{},
		regional:  opts.RegionalQuota,
		scaleSets: map[string]*scaleSet{},
		pools:     map[string]*agentPool{},
		clusters:  map[string]string{},
		ops:       map[string]*operation{},
		partial:   map[string]partialFault{},
		preempt:   map[string]bool{},
		hits:      map[Op]int{},
		tokens:    map[string]bool{},
		provDelay: opts.ProvisioningDelay,
		delDelay:  opts.DeletionDelay,
		closing:   make(chan struct{}),
	}
	s.compute = computefake.NewServerFactoryTransport(s.computeFakes())
	s.aks = aksfake.NewServerFactoryTransport(s.aksFakes())
	s.ts = httptest.NewUnstartedServer(http.HandlerFunc(s.serveHTTP))
	s.ts.StartTLS()
	dir, err := os.MkdirTemp("", "armlocal")
	if err != nil {
		s.ts.Close()
		return nil, err
	}
	s.caFile = dir + "/ca.pem"
	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.ts.Certificate().Raw})
	if err := os.WriteFile(s.caFile, cert, 0o600); err != nil {
		s.ts.Close()
		return nil, err
	}
	return s, nil
}

// now is the server's time: Options.Clock's.
func (s *Server) now() time.Time { return s.opts.Clock.Now() }

// URL is the Resource Manager endpoint (and Entra authority host), e.g.
// https://127.0.0.1:41234/.
func (s *Server) URL() string { return s.ts.URL + "/" }

// CAFile is a PEM file holding the server's certificate, for clients in
// other processes (SSL_CERT_FILE).
func (s *Server) CAFile() string { return s.caFile }

// HTTPClient trusts the server's certificate.
func (s *Server) HTTPClient() *http.Client { return s.ts.Client() }

// Token is a bearer token the server accepts without a token request, for
// tests that use a static credential.
func (s *Server) Token() string { return s.token }

// SubscriptionID, TenantID and Location of the simulated subscription.
func (s *Server) SubscriptionID() string { return s.opts.SubscriptionID }
func (s *Server) TenantID() string       { return s.opts.TenantID }
func (s *Server) Location() string       { return s.opts.Location }

// Close stops the server.
func (s *Server) Close() {
	s.closeOnce.Do(func() { close(s.closing) })
	s.ts.Close()
	os.RemoveAll(strings.TrimSuffix(s.caFile, "/ca.pem"))
}

// SetQuota sets the vCPU limit of an SKU family (as Usage reports it).
func (s *Server) SetQuota(family string, vcpus int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.quota[strings.ToLower(family)] = vcpus
}

// SetRegionalQuota sets the total regional vCPU limit.
func (s *Server) SetRegionalQuota(vcpus int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.regional = vcpus
}

// SetProvisioningDelay changes how long instances added from now on stay
// Creating.
func (s *Server) SetProvisioningDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.provDelay = d
}

// SetSKUs replaces the Resource SKUs catalogue.
func (s *Server) SetSKUs(skus []SKU) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.skus = append([]SKU(nil), skus...)
}

// Prices returns the hourly price of every SKU in the catalogue.
func (s *Server) Prices() map[string]float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]float64{}
	for _, k := range s.skus {
		out[k.Name] = k.HourlyPrice
	}
	return out
}

func (s *Server) skuLocked(name string) (SKU, bool) {
	for _, k := range s.skus {
		if strings.EqualFold(k.Name, name) {
			return k, true
		}
	}
	return SKU{}, false
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// armError is ARM's error body.
type armError struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	var e armError
	e.Error.Code, e.Error.Message = code, msg
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("x-ms-error-code", code)
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(e)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "InternalError", err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// route is the outcome of matching a request path.
type route struct {
	op      Op
	apiName string // for the fakes; empty for plain handlers
	aks     bool
	params  []string
}

// match compares path segments case-insensitively with a pattern in which
// "*" matches one segment, collecting the wildcard segments.
func match(segs []string, pattern string) ([]string, bool) {
	ps := strings.Split(pattern, "/")
	if len(ps) != len(segs) {
		return nil, false
	}
	var params []string
	for i, p := range ps {
		if p == "*" {
			params = append(params, segs[i])
			continue
		}
		if !strings.EqualFold(p, segs[i]) {
			return nil, false
		}
	}
	return params, true
}

const (
	vmssPath = "subscriptions/*/resourceGroups/*/providers/Microsoft.Compute/virtualMachineScaleSets"
	aksPath  = "subscriptions/*/resourceGroups/*/providers/Microsoft.ContainerService/managedClusters/*/agentPools"
)

func resolve(method string, segs []string) (route, bool) {
	table := []struct {
		method, pattern string
		r               route
	}{
		{"GET", vmssPath, route{op: OpScaleSetList, apiName: "VirtualMachineScaleSetsClient.NewListPager"}},
		{"GET", vmssPath + "/*", route{op: OpScaleSetGet, apiName: "VirtualMachineScaleSetsClient.Get"}},
		{"PATCH", vmssPath + "/*", route{op: OpScaleSetUpdate}},
		{"POST", vmssPath + "/*/delete", route{op: OpScaleSetDeleteInstances}},
		{"GET", vmssPath + "/*/virtualMachines", route{op: OpScaleSetVMList, apiName: "VirtualMachineScaleSetVMsClient.NewListPager"}},
		{"GET", "subscriptions/*/providers/Microsoft.Compute/skus", route{op: OpResourceSKUsList, apiName: "ResourceSKUsClient.NewListPager"}},
		{"GET", "subscriptions/*/providers/Microsoft.Compute/locations/*/usages", route{op: OpUsageList, apiName: "UsageClient.NewListPager"}},
		{"GET", aksPath, route{op: OpAgentPoolList, apiName: "AgentPoolsClient.NewListPager", aks: true}},
		{"GET", aksPath + "/*", route{op: OpAgentPoolGet, apiName: "AgentPoolsClient.Get", aks: true}},
		{"PUT", aksPath + "/*", route{op: OpAgentPoolCreateOrUpdate, aks: true}},
		{"POST", aksPath + "/*/deleteMachines", route{op: OpAgentPoolDeleteMachines, aks: true}},
		{"GET", aksPath + "/*/machines", route{op: OpMachinesList, apiName: "MachinesClient.NewListPager", aks: true}},
		{"GET", aksPath + "/*/machines/*", route{op: OpMachinesGet, apiName: "MachinesClient.Get", aks: true}},
		{"GET", "subscriptions/*/providers/armlocal/operations/*", route{op: OpOperationStatus}},
		{"GET", "api/retail/prices", route{op: OpRetailPrices}},
		{"GET", "*/v2.0/.well-known/openid-configuration", route{op: OpToken}},
		{"GET", "common/discovery/instance", route{op: OpToken}},
		{"POST", "*/oauth2/v2.0/token", route{op: OpToken}},
	}
	for _, t := range table {
		if t.method != method {
			continue
		}
		if params, ok := match(segs, t.pattern); ok {
			r := t.r
			r.params = params
			return r, true
		}
	}
	return route{}, false
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	segs := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	rt, ok := resolve(r.Method, segs)
	if !ok {
		writeError(w, http.StatusNotFound, "InvalidResourceType", fmt.Sprintf("armlocal does not serve %s %s", r.Method, r.URL.Path))
		return
	}
	s.mu.Lock()
	s.hits[rt.op]++
	s.mu.Unlock()
	if rt.op == OpToken {
		s.serveIdentity(w, r, segs)
		return
	}
	if rt.op == OpRetailPrices {
		s.serveRetailPrices(w, r)
		return
	}
	if !s.authorized(r) {
		writeError(w, http.StatusUnauthorized, "AuthenticationFailed", "Authentication failed. The 'Authorization' header is missing or carries a token armlocal did not issue.")
		return
	}
	if !strings.EqualFold(rt.params[0], s.opts.SubscriptionID) {
		writeError(w, http.StatusNotFound, "SubscriptionNotFound", fmt.Sprintf("The subscription '%s' could not be found.", rt.params[0]))
		return
	}
	if s.applyFault(w, r, rt.op) {
		return
	}
	switch rt.op {
	case OpScaleSetUpdate:
		s.scaleSetUpdate(w, r, rt.params[1], rt.params[2])
	case OpScaleSetDeleteInstances:
		s.scaleSetDeleteInstances(w, r, rt.params[1], rt.params[2])
	case OpAgentPoolCreateOrUpdate:
		s.agentPoolPut(w, r, rt.params[1], rt.params[2], rt.params[3])
	case OpAgentPoolDeleteMachines:
		s.agentPoolDeleteMachines(w, r, rt.params[1], rt.params[2], rt.params[3])
	case OpOperationStatus:
		s.operationStatus(w, r, rt.params[1])
	default:
		s.dispatchFake(w, r, rt)
	}
}

func (s *Server) authorized(r *http.Request) bool {
	h := r.Header.Get("Authorization")
	tok, ok := strings.CutPrefix(h, "Bearer ")
	if !ok {
		return false
	}
	if tok == s.token {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tokens[tok]
}

// dispatchFake hands a read to the SDK fake server types, naming the
// operation as the SDK client would have.
func (s *Server) dispatchFake(w http.ResponseWriter, r *http.Request, rt route) {
	s.fakeMu.Lock()
	defer s.fakeMu.Unlock()
	req := r.WithContext(context.WithValue(r.Context(), runtime.CtxAPINameKey{}, rt.apiName))
	var tr policy.Transporter = s.compute
	if rt.aks {
		tr = s.aks
	}
	resp, err := tr.Do(req)
	if err != nil {
		var re *azcore.ResponseError
		if errors.As(err, &re) {
			writeError(w, re.StatusCode, re.ErrorCode, fmt.Sprintf("%s %s: %s", r.Method, r.URL.Path, re.ErrorCode))
			return
		}
		writeError(w, http.StatusBadRequest, "InvalidRequest", err.Error())
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

// newOperation registers an async operation and writes the 202/200 answer
// with its Azure-AsyncOperation URL; body may be nil.
func (s *Server) startOperationLocked(w http.ResponseWriter, r *http.Request, op *operation, status int, body any) {
	op.id = randomHex(8)
	op.started = s.now()
	s.ops[op.id] = op
	url := fmt.Sprintf("https://%s/subscriptions/%s/providers/armlocal/operations/%s", r.Host, s.opts.SubscriptionID, op.id)
	w.Header().Set("Azure-AsyncOperation", url)
	w.Header().Set("Retry-After", "0")
	if body == nil {
		w.WriteHeader(status)
		return
	}
	writeJSON(w, status, body)
}

func (s *Server) operationStatus(w http.ResponseWriter, r *http.Request, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	op, ok := s.ops[id]
	if !ok {
		writeError(w, http.StatusNotFound, "OperationNotFound", fmt.Sprintf("operation %s not found", id))
		return
	}
	now := s.now()
	s.settleLocked(now)
	status, code, msg := op.status(now)
	body := map[string]any{"name": id, "status": status, "startTime": op.started.UTC().Format(time.RFC3339Nano)}
	if status == "Failed" {
		body["error"] = map[string]string{"code": code, "message": msg}
	}
	writeJSON(w, http.StatusOK, body)
}

// settleLocked applies the passage of time: deleted instances disappear,
// failed agent pool machines vanish and their pool records the failure.
func (s *Server) settleLocked(now time.Time) {
	for _, ss := range s.scaleSets {
		ss.gc(now)
	}
	for _, ap := range s.pools {
		for _, m := range ap.instances {
			if m.failCode != "" && !now.Before(m.readyAt) && m.deleteAt.IsZero() {
				m.gone = true
				ap.lastOpFailed = true
				ap.provisioning = StateFailed
			}
		}
		ap.gc(now)
		if ap.provisioning != StateFailed {
			ap.provisioning = StateSucceeded
			for _, m := range ap.instances {
				if st := m.state(now); st == StateCreating || st == StateDeleting {
					ap.provisioning = "Scaling"
				}
			}
		}
	}
}

// usageLocked returns the vCPUs in use per lower-case family and in total.
func (s *Server) usageLocked(now time.Time) (map[string]int, int) {
	per := map[string]int{}
	total := 0
	add := func(skuName string, n int) {
		k, ok := s.skuLocked(skuName)
		if !ok {
			return
		}
		per[strings.ToLower(k.Family)] += n * k.VCPUs
		total += n * k.VCPUs
	}
	for _, ss := range s.scaleSets {
		add(ss.sku, len(ss.live()))
	}
	for _, ap := range s.pools {
		add(ap.sku, len(ap.live()))
	}
	return per, total
}

func (s *Server) familyLimitLocked(family string) int {
	if l, ok := s.quota[strings.ToLower(family)]; ok {
		return l
	}
	return s.opts.FamilyQuota
}

// checkQuotaLocked reports the quota an addition of n instances of sku would
// exceed, as ARM words it.
func (s *Server) checkQuotaLocked(now time.Time, skuName string, n int) (string, bool) {
	k, ok := s.skuLocked(skuName)
	if !ok {
		return fmt.Sprintf("The requested VM size %s is not available in location '%s'.", skuName, s.opts.Location), false
	}
	per, total := s.usageLocked(now)
	need := n * k.VCPUs
	if lim := s.familyLimitLocked(k.Family); per[strings.ToLower(k.Family)]+need > lim {
		return fmt.Sprintf("Operation could not be completed as it results in exceeding approved %s Cores quota. Additional details - Deployment Model: Resource Manager, Location: %s, Current Limit: %d, Current Usage: %d, Additional Required: %d, (Minimum) New Limit Required: %d.",
			k.Family, s.opts.Location, lim, per[strings.ToLower(k.Family)], need, per[strings.ToLower(k.Family)]+need), false
	}
	if total+need > s.regional {
		return fmt.Sprintf("Operation could not be completed as it results in exceeding approved Total Regional Cores quota. Additional details - Deployment Model: Resource Manager, Location: %s, Current Limit: %d, Current Usage: %d, Additional Required: %d, (Minimum) New Limit Required: %d.",
			s.opts.Location, s.regional, total, need, total+need), false
	}
	return "", true
}

// addInstancesLocked creates n instances in p, applying a pending partial
// provisioning fault for p's name.
func (s *Server) addInstancesLocked(now time.Time, p *pool, prefix string, n int) []*instance {
	pf, partial := s.partial[p.name]
	if partial {
		delete(s.partial, p.name)
	}
	var out []*instance
	for k := 0; k < n; k++ {
		id := p.nextID
		p.nextID++
		delay := s.provDelay
		if p.provDelay > 0 {
			delay = p.provDelay
		}
		inst := &instance{id: id, computerName: computerName(prefix, id), created: now, readyAt: now.Add(delay)}
		if len(p.zones) > 0 {
			inst.zone = p.zones[id%len(p.zones)]
		}
		if partial && k >= pf.succeed {
			inst.failCode = pf.code
			inst.failMessage = fmt.Sprintf("Allocation failed. We do not have sufficient capacity for the requested VM size %s in this region.", p.sku)
		}
		p.instances = append(p.instances, inst)
		out = append(out, inst)
	}
	return out
}

// decodeBody decodes a JSON request body into v.
func decodeBody(r *http.Request, v any) error {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}
