// Tests of the run-on-request endpoint: POST /run-once runs one loop at a time on the served clock read afresh for each, GET refused, non-loopback addresses refused.

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/muster-project/muster/autoscaler/armlocal"
)

func TestServeRunOnce(t *testing.T) {
	// The simulator's trace clock, which the test moves by hand.
	var clockMu sync.Mutex
	served := time.Date(2024, 3, 1, 12, 0, 0, 123456789, time.UTC)
	setServed := func(t time.Time) { clockMu.Lock(); served = t; clockMu.Unlock() }
	clockSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		clockMu.Lock()
		defer clockMu.Unlock()
		fmt.Fprintln(w, served.Format(time.RFC3339Nano))
	}))
	defer clockSrv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clock, err := armlocal.NewURLClock(ctx, clockSrv.URL)
	if err != nil {
		t.Fatal(err)
	}

	// The loop records the times it ran with, and whether two ever ran at
	// once; it sleeps so that unserialised requests would overlap.
	var loopMu sync.Mutex
	var calls []time.Time
	running, overlapped := 0, false
	runOnce := func(now time.Time) {
		loopMu.Lock()
		running++
		overlapped = overlapped || running > 1
		calls = append(calls, now)
		loopMu.Unlock()
		time.Sleep(100 * time.Millisecond)
		loopMu.Lock()
		running--
		loopMu.Unlock()
	}

	urlFile := filepath.Join(t.TempDir(), "run-url")
	url, errc, err := serveRunOnce(ctx, "127.0.0.1:0", urlFile, clock.Now, clock.ServeSet, nil, runOnce)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(urlFile)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != url || !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/run-once") {
		t.Fatalf("--write-run-url file holds %q, serveRunOnce returned %q; want http://127.0.0.1:PORT/run-once in both", b, url)
	}
	if matches, _ := filepath.Glob(urlFile + ".tmp*"); len(matches) > 0 {
		t.Errorf("temporary files left behind: %v", matches)
	}

	// post runs one loop through the URL the file holds and returns the
	// time the answer says it ran with.
	post := func() (time.Time, error) {
		resp, err := http.Post(string(b), "", nil)
		if err != nil {
			return time.Time{}, err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			return time.Time{}, fmt.Errorf("status %d: %s", resp.StatusCode, body)
		}
		var answer struct{ Ran, Took string }
		if err := json.Unmarshal(body, &answer); err != nil {
			return time.Time{}, fmt.Errorf("answer %q: %w", body, err)
		}
		if _, err := time.ParseDuration(answer.Took); err != nil {
			return time.Time{}, fmt.Errorf("answer %q: took: %w", body, err)
		}
		return time.Parse(time.RFC3339Nano, answer.Ran)
	}

	first := served
	var wg sync.WaitGroup
	ran := make([]time.Time, 2)
	errs := make([]error, 2)
	for i := range ran {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			ran[i], errs[i] = post()
		}(i)
	}
	wg.Wait()
	for i := range ran {
		if errs[i] != nil {
			t.Fatalf("POST %d: %v", i, errs[i])
		}
		if !ran[i].Equal(first) {
			t.Errorf("POST %d answered ran=%v, want the served time %v", i, ran[i], first)
		}
	}
	loopMu.Lock()
	if len(calls) != 2 || overlapped {
		t.Errorf("two concurrent POSTs: loop ran %d times (want 2), overlapping=%v (want false)", len(calls), overlapped)
	}
	for i, c := range calls {
		if !c.Equal(first) {
			t.Errorf("loop %d ran with %v, want the served time %v", i, c, first)
		}
	}
	loopMu.Unlock()

	// The clock is read for each loop, not once at start.
	second := first.Add(90 * time.Second)
	setServed(second)
	if got, err := post(); err != nil || !got.Equal(second) {
		t.Errorf("POST after the clock moved: ran=%v, err=%v; want ran=%v", got, err, second)
	}
	loopMu.Lock()
	if len(calls) != 3 || !calls[2].Equal(second) {
		t.Errorf("after the clock moved the loop ran with %v, want a third run at %v", calls, second)
	}
	loopMu.Unlock()

	// Pushed (POST /clock): the loop runs at the time pushed, the served
	// clock no longer read.
	pushed := second.Add(time.Hour)
	setServed(second.Add(2 * time.Hour))
	clockURL := strings.TrimSuffix(url, runOncePath) + clockPath
	resp, err := http.Post(clockURL, "text/plain", strings.NewReader(pushed.Format(time.RFC3339Nano)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("POST %s: status %d, want 204", clockURL, resp.StatusCode)
	}
	if got, err := post(); err != nil || !got.Equal(pushed) {
		t.Errorf("POST after a time was pushed: ran=%v, err=%v; want ran=%v", got, err, pushed)
	}
	loopMu.Lock()
	if len(calls) != 4 {
		t.Errorf("after the push: %d runs, want 4", len(calls))
	}
	loopMu.Unlock()

	resp, err = http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET %s: status %d, want %d", url, resp.StatusCode, http.StatusMethodNotAllowed)
	}
	loopMu.Lock()
	if len(calls) != 4 {
		t.Errorf("GET ran a loop: %d runs, want 4", len(calls))
	}
	loopMu.Unlock()

	cancel()
	if err := <-errc; err != nil {
		t.Errorf("serving stopped with %v once its context was done, want nil", err)
	}
}

func TestServeRunOnceRefusesBadFlags(t *testing.T) {
	never := func(time.Time) { t.Error("a loop ran") }
	for _, tc := range []struct {
		addr, urlFile string
		want          []string // in the error
	}{
		{"0.0.0.0:0", "", []string{"--run-on-request-address", "loopback"}},
		{"192.0.2.1:0", "", []string{"--run-on-request-address", "loopback"}},
		{":0", "", []string{"--run-on-request-address", "loopback"}},
		{"example.com:0", "", []string{"--run-on-request-address", "loopback"}},
		{"127.0.0.1", "", []string{"--run-on-request-address"}},
		{"", "", []string{"--run-on-request-address"}},
		{"", filepath.Join(t.TempDir(), "run-url"), []string{"--write-run-url", "--run-on-request-address"}},
	} {
		_, _, err := serveRunOnce(context.Background(), tc.addr, tc.urlFile, time.Now, nil, nil, never)
		if err == nil {
			t.Errorf("serveRunOnce(%q, %q): no error", tc.addr, tc.urlFile)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("serveRunOnce(%q, %q): error %q does not name %s", tc.addr, tc.urlFile, err, w)
			}
		}
	}
}

// TestRunOnceAwaitsRequests: a loop asked with provisioningRequestsVersion
// first waits for the requests up to it, and runs after; without the
// parameter it does not wait; a version that is no resourceVersion is a
// 400 naming the parameter, and no loop runs.
func TestRunOnceAwaitsRequests(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var order []string
	await := func(_ context.Context, version int64, timeout time.Duration) bool {
		mu.Lock()
		defer mu.Unlock()
		order = append(order, fmt.Sprintf("await %d within %s", version, timeout))
		return true
	}
	runOnce := func(time.Time) {
		mu.Lock()
		defer mu.Unlock()
		order = append(order, "loop")
	}
	url, _, err := serveRunOnce(ctx, "127.0.0.1:0", "", time.Now, nil, await, runOnce)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		query  string
		status int
		want   []string
	}{
		{query: "?provisioningRequestsVersion=42", status: http.StatusOK, want: []string{"await 42 within " + requestsWait.String(), "loop"}},
		{query: "", status: http.StatusOK, want: []string{"loop"}},
		{query: "?provisioningRequestsVersion=0", status: http.StatusOK, want: []string{"loop"}},
		{query: "?provisioningRequestsVersion=abc", status: http.StatusBadRequest},
		{query: "?provisioningRequestsVersion=-3", status: http.StatusBadRequest},
	} {
		mu.Lock()
		order = nil
		mu.Unlock()
		resp, err := http.Post(url+tc.query, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Fatalf("POST %s: %d %s, want %d", tc.query, resp.StatusCode, body, tc.status)
		}
		if tc.status == http.StatusBadRequest && !strings.Contains(string(body), requestsVersionParam) {
			t.Errorf("POST %s: answer %q does not name %s", tc.query, body, requestsVersionParam)
		}
		mu.Lock()
		if fmt.Sprint(order) != fmt.Sprint(tc.want) {
			t.Errorf("POST %s: %q, want %q", tc.query, order, tc.want)
		}
		mu.Unlock()
	}
}
