// URLClock, a clock read from an HTTP endpoint (a simulator's trace clock).

package armlocal

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"k8s.io/klog/v2"
)

// URLClock is a clock read from an HTTP endpoint that answers GET with the
// time in RFC 3339 (with nanoseconds): a simulator's trace clock, which runs
// at its own pace and may stand still or jump. A clock that moves only in
// steps can instead be pushed each step's time (Set): reading it over HTTP
// for every request the cloud serves cost a stepped replay tens of round
// trips a step.
type URLClock struct {
	url    string
	client *http.Client

	mu   sync.Mutex
	last time.Time
	// set: the owner pushes the time (Set); the URL is not read again.
	set bool
}

// NewURLClock reads the clock at url once, so that a wrong URL fails at
// start rather than on the first request.
func NewURLClock(ctx context.Context, url string) (*URLClock, error) {
	c := &URLClock{url: url, client: &http.Client{Timeout: 2 * time.Second}}
	t, err := c.read(ctx)
	if err != nil {
		return nil, err
	}
	c.last = t
	return c, nil
}

func (c *URLClock) read(ctx context.Context) (time.Time, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	if err != nil {
		return time.Time{}, fmt.Errorf("clock %s: %w", c.url, err)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return time.Time{}, fmt.Errorf("clock %s: %w", c.url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 256))
	if err != nil {
		return time.Time{}, fmt.Errorf("clock %s: %w", c.url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return time.Time{}, fmt.Errorf("clock %s: status %d: %s", c.url, resp.StatusCode, strings.TrimSpace(string(b)))
	}
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(string(b)))
	if err != nil {
		return time.Time{}, fmt.Errorf("clock %s: want a time in RFC 3339, got %q: %w", c.url, b, err)
	}
	return t, nil
}

// Now reads the clock. When the endpoint does not answer it returns the
// last time read: the cloud then stands still, as the trace does while its
// simulator is busy, rather than jump to wall time.
func (c *URLClock) Now() time.Time {
	c.mu.Lock()
	if c.set {
		defer c.mu.Unlock()
		return c.last
	}
	c.mu.Unlock()
	t, err := c.read(context.Background())
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		klog.ErrorS(err, "Reading the clock; keeping its last time", "last", c.last)
		return c.last
	}
	// Never backwards: two reads racing may come back in either order.
	if t.After(c.last) {
		c.last = t
	}
	return c.last
}

// Set moves the clock to t (never backwards) and stops its reads of the
// URL: from then on the clock is what its owner last set, as a stepped
// clock's owner sets it at each step before anything can read it.
func (c *URLClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.set = true
	if t.After(c.last) {
		c.last = t
	}
}

// ServeSet serves POST with the time in RFC 3339 in the body: Set.
func (c *URLClock) ServeSet(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "use POST", http.StatusMethodNotAllowed)
		return
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, 256))
	if err != nil {
		http.Error(w, "clock: "+err.Error(), http.StatusBadRequest)
		return
	}
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(string(b)))
	if err != nil {
		http.Error(w, fmt.Sprintf("clock: want a time in RFC 3339 in the body, got %q", b), http.StatusBadRequest)
		return
	}
	c.Set(t)
	w.WriteHeader(http.StatusNoContent)
}

// Since is the clock's time elapsed since t.
func (c *URLClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }
