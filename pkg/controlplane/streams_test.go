package controlplane

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Thousands of requests in flight at once share one connection to the API
// server. The in-process clients of `muster simulate` are not throttled
// (QPS 5000), and the scheduler's event broadcaster writes each event from
// a goroutine of its own: past the server's streams per connection, Go's
// HTTP/2 client dials a connection per request, and a burst of events on a
// loaded run (a week of the default trace, the baseline's side) opened
// 20000 and stalled the process on "too many open files". Watches stand
// in for the burst here: each holds its stream open.
func TestConcurrentRequestsShareAConnection(t *testing.T) {
	env, err := Start(t)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	var dials atomic.Int64
	cfg := rest.CopyConfig(env.Config)
	var d net.Dialer
	cfg.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return d.DialContext(ctx, network, addr)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// The first request makes the connection: requests that find none
	// each dial, whatever the server allows.
	if _, err := cs.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	const watches = 2500
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		open    []watch.Interface
		lastErr error
	)
	for range watches {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, err := cs.CoreV1().Pods("default").Watch(ctx, metav1.ListOptions{})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				lastErr = err
				return
			}
			open = append(open, w)
		}()
	}
	wg.Wait()
	for _, w := range open {
		w.Stop()
	}
	if lastErr != nil {
		t.Fatalf("%d of %d watches opened; last error: %v", len(open), watches, lastErr)
	}
	if n := dials.Load(); n != 1 {
		t.Errorf("%d watches open at once took %d connections, want 1", watches, n)
	}
}
