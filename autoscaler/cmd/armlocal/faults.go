// The fault endpoint: POST /faults (ARM faults, lost VMs), GET /state, POST /sync for a stepped clock.

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/muster-project/muster/autoscaler/armlocal"
)

// The fault endpoint (--faults-address) lets a running armlocal be broken on
// purpose from another process: `muster chaos` (make chaos in the root
// module) injects ARM faults, takes VMs away and reads what was deleted and
// why. A simulator stepping its trace clock (`muster simulate`) asks it,
// after each step, to sync the node agent now and for the cloud's next
// change (POST /sync), and pushes each step's time (POST /clock) instead of
// being read for it. Plain HTTP on loopback only; off by default.

// faultRequest is the body of POST /faults.
type faultRequest struct {
	Kind       string `json:"kind"`
	Op         string `json:"op"`
	Count      int    `json:"count"`
	For        string `json:"for"`
	RetryAfter string `json:"retryAfter"`
	Status     int    `json:"status"`
	Delay      string `json:"delay"`
	Pool       string `json:"pool"`
	Succeed    int    `json:"succeed"`
	Code       string `json:"code"`
	VCPUs      *int   `json:"vcpus"`
	Instance   string `json:"instance"`
}

// ops are the operation names a fault may target ("*": any).
var ops = map[string]armlocal.Op{}

func init() {
	for _, op := range []armlocal.Op{armlocal.OpAny, armlocal.OpScaleSetGet, armlocal.OpScaleSetList, armlocal.OpScaleSetUpdate,
		armlocal.OpScaleSetDeleteInstances, armlocal.OpScaleSetVMList, armlocal.OpResourceSKUsList, armlocal.OpUsageList,
		armlocal.OpAgentPoolGet, armlocal.OpAgentPoolList, armlocal.OpAgentPoolCreateOrUpdate, armlocal.OpAgentPoolDeleteMachines,
		armlocal.OpMachinesList, armlocal.OpMachinesGet, armlocal.OpOperationStatus} {
		ops[string(op)] = op
	}
}

// syncAnswer is the body of POST /sync's answer: armlocal's clock after the
// pass, and the next time the cloud changes by itself (Server.NextChange),
// empty when nothing is pending. Both RFC 3339 with nanoseconds.
type syncAnswer struct {
	Now  string `json:"now"`
	Next string `json:"next,omitempty"`
}

// faultsHandler serves POST /faults, GET /state, POST /sync and POST /clock
// for the scenario's pools. agentSync is one node agent pass (nil: no node
// agent); clock is the --clock-url clock (nil: wall time, nothing to set).
func faultsHandler(s *armlocal.Server, rg string, pools []pool, agentSync func(context.Context) error, clock *armlocal.URLClock) http.Handler {
	family := map[string]string{}
	for _, p := range pools {
		family[p.Name] = p.Family
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /faults", func(w http.ResponseWriter, r *http.Request) {
		var f faultRequest
		dec := json.NewDecoder(r.Body)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f); err != nil {
			http.Error(w, "fault: "+err.Error(), http.StatusBadRequest)
			return
		}
		if err := applyFault(s, rg, family, f); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET /state", func(w http.ResponseWriter, r *http.Request) {
		body := struct {
			Pools     []armlocal.PoolState `json:"pools"`
			Deletions []armlocal.Deletion  `json:"deletions"`
			Requests  int                  `json:"requests"`
		}{s.Snapshot().Pools, s.Deletions(), s.Requests(armlocal.OpAny)}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(body)
	})
	// POST /sync makes the node agent's pass now, not up to --agent-interval
	// later, and answers once it is done: every Node due by armlocal's time
	// exists then, and no Node of a deleted instance does.
	// POST /clock sets the --clock-url clock to the time in the body: a
	// stepped clock's owner pushes each step's time, and the clock is not
	// read over HTTP again.
	mux.HandleFunc("POST /clock", func(w http.ResponseWriter, r *http.Request) {
		if clock == nil {
			http.Error(w, "clock: armlocal runs on wall time (no --clock-url): there is no clock to set", http.StatusConflict)
			return
		}
		clock.ServeSet(w, r)
	})
	mux.HandleFunc("POST /sync", func(w http.ResponseWriter, r *http.Request) {
		if agentSync != nil {
			if err := agentSync(r.Context()); err != nil {
				http.Error(w, "sync: "+err.Error(), http.StatusInternalServerError)
				return
			}
		}
		now, next, ok := s.NextChange()
		body := syncAnswer{Now: now.UTC().Format(time.RFC3339Nano)}
		if ok {
			body.Next = next.UTC().Format(time.RFC3339Nano)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(body)
	})
	return mux
}

// applyFault checks a fault request and injects it; its error names the
// field at fault.
func applyFault(s *armlocal.Server, rg string, family map[string]string, f faultRequest) error {
	kind := fmt.Sprintf("fault %q", f.Kind)
	op := armlocal.OpAny
	if f.Op != "" {
		var ok bool
		if op, ok = ops[f.Op]; !ok {
			return fmt.Errorf("%s: op %q is not an operation armlocal answers (\"*\" for any)", kind, f.Op)
		}
	}
	duration := func(field, v string, positive bool) (time.Duration, error) {
		d, err := time.ParseDuration(v)
		if err != nil {
			return 0, fmt.Errorf("%s: %s %q: %v", kind, field, v, err)
		}
		if d < 0 || (positive && d == 0) {
			return 0, fmt.Errorf("%s: %s must be positive, got %s", kind, field, v)
		}
		return d, nil
	}
	count := func() error {
		if f.Count < 1 {
			return fmt.Errorf("%s: count must be at least 1, got %d", kind, f.Count)
		}
		return nil
	}
	// window reads how long a throttle or server-error fault lasts: a
	// number of requests (count) or a span of time (for), one of the two.
	window := func() (time.Duration, error) {
		if f.For == "" {
			return 0, count()
		}
		if f.Count != 0 {
			return 0, fmt.Errorf("%s: count and for are exclusive, got count %d and for %q", kind, f.Count, f.For)
		}
		return duration("for", f.For, true)
	}
	needPool := func() error {
		if _, ok := family[f.Pool]; !ok {
			return fmt.Errorf("%s: pool %q is not a scale set of this scenario", kind, f.Pool)
		}
		return nil
	}
	switch f.Kind {
	case "throttle":
		span, err := window()
		if err != nil {
			return err
		}
		retry := time.Duration(0)
		if f.RetryAfter != "" {
			var err error
			if retry, err = duration("retryAfter", f.RetryAfter, false); err != nil {
				return err
			}
		}
		if span > 0 {
			s.InjectThrottleFor(op, span, retry)
		} else {
			s.InjectThrottle(op, f.Count, retry)
		}
	case "server-error":
		span, err := window()
		if err != nil {
			return err
		}
		status := f.Status
		if status == 0 {
			status = http.StatusServiceUnavailable
		}
		if status < 500 || status > 599 {
			return fmt.Errorf("%s: status must be a 5xx, got %d", kind, f.Status)
		}
		if span > 0 {
			s.InjectServerErrorFor(op, span, status)
		} else {
			s.InjectServerError(op, f.Count, status)
		}
	case "delay":
		if err := count(); err != nil {
			return err
		}
		d, err := duration("delay", f.Delay, true)
		if err != nil {
			return err
		}
		s.InjectDelay(op, f.Count, d)
	case "partial-provisioning":
		if err := needPool(); err != nil {
			return err
		}
		if f.Succeed < 0 {
			return fmt.Errorf("%s: succeed must not be negative, got %d", kind, f.Succeed)
		}
		s.InjectPartialProvisioning(f.Pool, f.Succeed, f.Code)
	case "preemption":
		if err := needPool(); err != nil {
			return err
		}
		s.InjectPreemption(f.Pool)
	case "quota":
		if err := needPool(); err != nil {
			return err
		}
		if f.VCPUs == nil || *f.VCPUs < 0 {
			return fmt.Errorf("%s: vcpus must be given and not negative", kind)
		}
		s.SetQuota(family[f.Pool], *f.VCPUs)
	case "delete-instance", "evict-spot":
		if err := needPool(); err != nil {
			return err
		}
		if f.Instance == "" {
			return fmt.Errorf("%s: instance is required", kind)
		}
		take := s.DeleteInstance
		if f.Kind == "evict-spot" {
			take = s.EvictSpot
		}
		if err := take(rg, f.Pool, f.Instance); err != nil {
			return fmt.Errorf("%s: %w", kind, err)
		}
	case "clear":
		s.ClearFaults()
	default:
		return fmt.Errorf("fault: kind %q is not one of throttle, server-error, delay, partial-provisioning, preemption, quota, delete-instance, clear", f.Kind)
	}
	return nil
}

// serveFaults listens on a loopback address and serves the fault endpoint
// until ctx ends; it returns the endpoint's URL.
func serveFaults(ctx context.Context, addr string, h http.Handler) (string, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return "", usageError(fmt.Sprintf("--faults-address %q: %v", addr, err))
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return "", usageError(fmt.Sprintf("--faults-address %q: must be a loopback address (the endpoint has no authentication)", addr))
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("--faults-address: %w", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(os.Stderr, "armlocal: fault endpoint:", err)
		}
	}()
	return "http://" + l.Addr().String(), nil
}
