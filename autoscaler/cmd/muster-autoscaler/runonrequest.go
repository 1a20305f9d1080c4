// The run-on-request endpoint: POST /run-once runs one autoscaler loop and waits for its deletions; POST /clock sets the --clock-url clock.

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"k8s.io/autoscaler/cluster-autoscaler/core"
	"k8s.io/klog/v2"
)

// runOncePath is where --run-on-request-address serves its loops, clockPath
// where it takes the time of a clock pushed to it. requestsVersionParam,
// a query parameter of runOncePath, is a resourceVersion of
// ProvisioningRequests the loop waits to have seen.
const (
	runOncePath          = "/run-once"
	clockPath            = "/clock"
	requestsVersionParam = "provisioningRequestsVersion"
)

// requestsWait bounds how long a loop waits for the ProvisioningRequest
// changes its request names; past it the loop runs with what it has.
const requestsWait = 10 * time.Second

// checkRunOnRequest validates --run-on-request-address and --write-run-url,
// so that a mistake stops start-up before the autoscaler is built.
func checkRunOnRequest(addr, urlFile string) error {
	if addr == "" {
		if urlFile != "" {
			return fmt.Errorf("--write-run-url needs --run-on-request-address")
		}
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--run-on-request-address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("--run-on-request-address %q: must be a loopback address (the endpoint has no authentication)", addr)
	}
	return nil
}

// deletionsTimeout bounds how long a loop run on request waits for the node
// deletions it started.
const deletionsTimeout = time.Minute

// awaitDeletions waits until the node deletions the autoscaler's loops
// started (emptied nodes, drained ones) have ended, at most timeout: the
// loop only starts them, and each goes on in its own goroutine, in wall
// time. A simulator stepping a trace clock would otherwise see a node go at
// whichever step its deletion happened to finish by, and the same trace
// replayed twice removed nodes (and evicted what they ran) at different
// trace minutes.
func awaitDeletions(a core.Autoscaler, timeout time.Duration) {
	s, ok := a.(*core.StaticAutoscaler)
	if !ok || s.AutoscalingContext == nil || s.ScaleDownActuator == nil {
		return
	}
	deadline := time.Now().Add(timeout)
	for {
		empty, drained := s.ScaleDownActuator.CheckStatus().DeletionsInProgress()
		if len(empty)+len(drained) == 0 {
			return
		}
		if time.Now().After(deadline) {
			klog.InfoS("Answering a loop run on request before its node deletions ended", "timeout", timeout, "emptyNodes", empty, "drainedNodes", drained)
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// serveRunOnce serves POST /run-once on addr: each request runs runOnce
// exactly once, with clock's time, and is answered only once it has
// returned, so that a simulator stepping a trace clock knows when the
// autoscaler is done with a step (the muster-autoscaler's runOnce includes
// the node deletions its loop started, awaitDeletions). Requests run one at a time: the
// autoscaler's loop is not reentrant. With setClock (the --clock-url clock's
// ServeSet), POST /clock beside it sets that clock: a simulator stepping it
// pushes each step's time instead of being read for it on every call the
// cloud provider makes. A request's provisioningRequestsVersion query
// parameter has the loop first wait, with awaitRequests (nil: the
// autoscaler reads no requests, or lists them each loop), until the
// autoscaler's watch of ProvisioningRequests has delivered every change up
// to that resourceVersion: a simulator that saw a request written knows
// the loop sees it. serveRunOnce returns the endpoint's URL once
// listening (and written to urlFile, when given); errc then receives the
// error that stopped serving, or nil once ctx is done.
func serveRunOnce(ctx context.Context, addr, urlFile string, clock func() time.Time, setClock http.HandlerFunc, awaitRequests func(ctx context.Context, version int64, timeout time.Duration) bool, runOnce func(now time.Time)) (url string, errc <-chan error, err error) {
	if err := checkRunOnRequest(addr, urlFile); err != nil {
		return "", nil, err
	}
	if addr == "" { // off, and net.Listen would take every interface
		return "", nil, fmt.Errorf("--run-on-request-address is empty")
	}
	var mu sync.Mutex
	mux := http.NewServeMux()
	mux.HandleFunc(runOncePath, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "use POST", http.StatusMethodNotAllowed)
			return
		}
		var version int64
		if v := r.URL.Query().Get(requestsVersionParam); v != "" {
			var err error
			if version, err = strconv.ParseInt(v, 10, 64); err != nil || version < 0 {
				http.Error(w, fmt.Sprintf("%s %q: not a resourceVersion (a non-negative integer)", requestsVersionParam, v), http.StatusBadRequest)
				return
			}
		}
		mu.Lock()
		defer mu.Unlock()
		if version > 0 && awaitRequests != nil && !awaitRequests(r.Context(), version, requestsWait) {
			klog.InfoS("Running a loop before its ProvisioningRequest changes were seen", "resourceVersion", version, "waited", requestsWait)
		}
		// Read the clock only now: a queued request's loop starts at the
		// time its turn comes.
		now := clock()
		start := time.Now()
		runOnce(now)
		took := time.Since(start)
		klog.V(2).InfoS("Ran one autoscaler loop on request", "currentTime", now, "took", took)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(struct {
			Ran  string `json:"ran"`
			Took string `json:"took"`
		}{now.Format(time.RFC3339Nano), took.String()})
	})

	mux.HandleFunc(clockPath, func(w http.ResponseWriter, r *http.Request) {
		if setClock == nil {
			http.Error(w, "clock: loops run on wall time (no --clock-url): there is no clock to set", http.StatusConflict)
			return
		}
		setClock(w, r)
	})

	l, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, fmt.Errorf("--run-on-request-address: %w", err)
	}
	// No write timeout: a loop may take long, and the answer waits for it.
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() {
		err := srv.Serve(l)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		done <- err
	}()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()

	url = "http://" + l.Addr().String() + runOncePath
	if urlFile != "" {
		if err := writeFileAtomic(urlFile, []byte(url)); err != nil {
			_ = srv.Close()
			return "", nil, fmt.Errorf("--write-run-url: %w", err)
		}
	}
	klog.InfoS("Running autoscaler loops on request only", "url", url)
	return url, done, nil
}

// writeFileAtomic writes through a temporary file and a rename, so that a
// reader polling for path never sees it partly written.
func writeFileAtomic(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}
