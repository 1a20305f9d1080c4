// Tests of the served APIs: discovery retried on failures and ended with its context, features adapted to the server's version and RBAC, unsynced informers named.

package served

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/component-base/featuregate"
	"k8s.io/kubernetes/pkg/features"
)

// apiServer is a local HTTP endpoint answering discovery and
// SelfSubjectAccessReviews as an API server of some version and RBAC would.
type apiServer struct {
	mu sync.Mutex
	// served maps a group version to its resources; absent: 404.
	served map[string][]string
	// failures answers this many requests for a group version with 503
	// before answering.
	failures map[string]int
	requests map[string]int
	// refused holds "verb resource" pairs access reviews deny.
	refused map[string]bool
	// reviewStatus, when set, answers every access review with this HTTP
	// status instead.
	reviewStatus int
}

func (s *apiServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/selfsubjectaccessreviews") {
		if s.reviewStatus != 0 {
			http.Error(w, "access reviews refused", s.reviewStatus)
			return
		}
		review := &authorizationv1.SelfSubjectAccessReview{}
		if err := json.NewDecoder(r.Body).Decode(review); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		a := review.Spec.ResourceAttributes
		review.Status.Allowed = !s.refused[a.Verb+" "+a.Resource]
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(review)
		return
	}
	gv := strings.TrimPrefix(r.URL.Path, "/apis/")
	s.requests[gv]++
	if s.failures[gv] > 0 {
		s.failures[gv]--
		http.Error(w, "etcd leader changed", http.StatusServiceUnavailable)
		return
	}
	names, ok := s.served[gv]
	if !ok {
		http.NotFound(w, r)
		return
	}
	list := metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: gv}
	for _, n := range names {
		list.APIResources = append(list.APIResources, metav1.APIResource{Name: n, Namespaced: false, Kind: n, Verbs: []string{"list", "watch"}})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(list)
}

func start(t *testing.T, s *apiServer) (discovery.DiscoveryInterface, kubernetes.Interface) {
	t.Helper()
	if s.requests == nil {
		s.requests = map[string]int{}
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	cs := kubernetes.NewForConfigOrDie(&rest.Config{Host: srv.URL, ContentConfig: rest.ContentConfig{ContentType: "application/json"}})
	return cs.Discovery(), cs
}

// fastRetry makes the retry backoff a millisecond for the test.
func fastRetry(t *testing.T) {
	old := retry
	retry = wait.Backoff{Duration: time.Millisecond, Factor: 1, Steps: 1 << 30}
	t.Cleanup(func() { retry = old })
}

func TestResources(t *testing.T) {
	fastRetry(t)
	s := &apiServer{
		served:   map[string][]string{"resource.k8s.io/v1": {"resourceclaims", "deviceclasses"}},
		failures: map[string]int{"resource.k8s.io/v1": 2},
	}
	dc, _ := start(t, s)

	got, err := Resources(context.Background(), dc, "resource.k8s.io/v1")
	if err != nil {
		t.Fatal(err)
	}
	if !got.Has("resourceclaims") || !got.Has("deviceclasses") || got.Len() != 2 {
		t.Errorf("resources %v, want resourceclaims and deviceclasses", got.UnsortedList())
	}
	if n := s.requests["resource.k8s.io/v1"]; n != 3 {
		t.Errorf("%d discovery requests, want 3: two 503s are asked again, never read as not served", n)
	}

	got, err = Resources(context.Background(), dc, "scheduling.k8s.io/v1beta1")
	if err != nil || got.Len() != 0 {
		t.Errorf("a group version not served: %v, %v; want no resources and no error", got.UnsortedList(), err)
	}
	if n := s.requests["scheduling.k8s.io/v1beta1"]; n != 1 {
		t.Errorf("%d requests for a group version answered NotFound, want 1", n)
	}
}

func TestResourcesEndsWithContext(t *testing.T) {
	fastRetry(t)
	s := &apiServer{failures: map[string]int{"resource.k8s.io/v1": 1 << 30}}
	dc, _ := start(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { _, err := Resources(ctx, dc, "resource.k8s.io/v1"); done <- err }()
	// Wait until it has been refused a few times, then end it.
	for {
		s.mu.Lock()
		n := s.requests["resource.k8s.io/v1"]
		s.mu.Unlock()
		if n >= 3 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	err := <-done
	if err == nil || !strings.Contains(err.Error(), "discovering resource.k8s.io/v1") {
		t.Errorf("error %v, want one naming the group version", err)
	}
}

// gate is a copy of the scheduler's real feature gate, as its binary starts.
func gate(t *testing.T) featuregate.MutableFeatureGate {
	t.Helper()
	g := utilfeature.DefaultMutableFeatureGate.DeepCopy()
	for _, f := range []featuregate.Feature{features.DRADeviceTaintRules, features.DynamicResourceAllocation} {
		if !g.Enabled(f) {
			t.Fatalf("%s is off by default in this build; the test assumes 1.37's defaults", f)
		}
	}
	return g
}

func TestAdaptFeatures(t *testing.T) {
	fastRetry(t)
	draV1 := []string{"resourceclaims", "resourceslices", "deviceclasses"}
	cases := []struct {
		name     string
		server   *apiServer
		wantOff  []featuregate.Feature
		wantLock []featuregate.Feature
		reason   string
	}{
		{
			name:   "1.37 serves and grants everything",
			server: &apiServer{served: map[string][]string{"resource.k8s.io/v1": append(draV1, "devicetaintrules")}},
		},
		{
			name:    "1.34-1.36 serve DRA v1 but not DeviceTaintRules v1",
			server:  &apiServer{served: map[string][]string{"resource.k8s.io/v1": draV1}},
			wantOff: []featuregate.Feature{features.DRADeviceTaintRules},
			reason:  "the API server does not serve devicetaintrules.v1.resource.k8s.io",
		},
		{
			name: "served but the scheduler's role does not allow watching it",
			server: &apiServer{served: map[string][]string{"resource.k8s.io/v1": append(draV1, "devicetaintrules")},
				refused: map[string]bool{"watch devicetaintrules": true}},
			wantOff: []featuregate.Feature{features.DRADeviceTaintRules},
			reason:  "muster-scheduler's role does not allow watch devicetaintrules.v1.resource.k8s.io",
		},
		{
			name:    "a discovery that fails first is asked again, not read as not served",
			server:  &apiServer{served: map[string][]string{"resource.k8s.io/v1": append(draV1, "devicetaintrules")}, failures: map[string]int{"resource.k8s.io/v1": 3}},
			wantOff: nil,
		},
		{
			name: "access reviews refused (403): no opinion, the feature stays on",
			server: &apiServer{served: map[string][]string{"resource.k8s.io/v1": append(draV1, "devicetaintrules")},
				reviewStatus: http.StatusForbidden},
		},
		{
			name:     "DRA itself is locked on in 1.37: reported, left on",
			server:   &apiServer{served: map[string][]string{}},
			wantOff:  []featuregate.Feature{features.DRADeviceTaintRules},
			wantLock: []featuregate.Feature{features.DynamicResourceAllocation},
			reason:   "the API server does not serve resourceclaims.v1.resource.k8s.io, resourceslices.v1.resource.k8s.io, deviceclasses.v1.resource.k8s.io",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dc, cs := start(t, tc.server)
			g := gate(t)
			decisions, err := AdaptFeatures(context.Background(), dc, cs.AuthorizationV1().SelfSubjectAccessReviews(), g, SchedulerRequirements)
			if err != nil {
				t.Fatal(err)
			}
			var off, locked []featuregate.Feature
			reasons := map[featuregate.Feature]string{}
			for _, d := range decisions {
				if d.Off {
					off = append(off, d.Feature)
				}
				if d.Locked {
					locked = append(locked, d.Feature)
				}
				reasons[d.Feature] = d.Reason
			}
			if !equal(off, tc.wantOff) || !equal(locked, tc.wantLock) {
				t.Fatalf("turned off %v and locked %v, want %v and %v", off, locked, tc.wantOff, tc.wantLock)
			}
			for _, f := range tc.wantOff {
				if g.Enabled(f) {
					t.Errorf("%s still enabled in the gate", f)
				}
			}
			for _, f := range tc.wantLock {
				if !g.Enabled(f) {
					t.Errorf("locked %s was turned off", f)
				}
			}
			if tc.reason != "" {
				f := append(tc.wantLock, tc.wantOff...)[0]
				if reasons[f] != tc.reason {
					t.Errorf("reason for %s %q, want %q", f, reasons[f], tc.reason)
				}
			}
			if len(tc.wantOff) == 0 && !g.Enabled(features.DRADeviceTaintRules) {
				t.Error("DRADeviceTaintRules turned off though its API is served and granted")
			}
		})
	}
}

func equal(a, b []featuregate.Feature) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestUnsynced(t *testing.T) {
	// Pods are listed; DeviceTaintRules are not served (404), as on a
	// 1.36 API server: their informer never syncs.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/pods" && r.URL.Query().Get("watch") == "" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]}`))
			return
		}
		if r.URL.Query().Get("sendInitialEvents") != "" {
			// No streaming lists (as before 1.34's WatchList): the
			// informer falls back to a plain list.
			http.Error(w, "sendInitialEvents is not supported", http.StatusBadRequest)
			return
		}
		if r.URL.Query().Get("watch") != "" {
			<-r.Context().Done()
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	cs := kubernetes.NewForConfigOrDie(&rest.Config{Host: srv.URL, ContentConfig: rest.ContentConfig{ContentType: "application/json"}})
	factory := informers.NewSharedInformerFactory(cs, 0)
	if _, started := Unsynced(factory); started {
		t.Fatal("started before any informer was")
	}
	factory.Core().V1().Pods().Informer()
	factory.Resource().V1().DeviceTaintRules().Informer()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); factory.Shutdown() })
	factory.Start(ctx.Done())
	// Wait for the pod informer, the one that can sync.
	for !factory.Core().V1().Pods().Informer().HasSynced() {
		time.Sleep(time.Millisecond)
	}
	pending, started := Unsynced(factory)
	if !started || len(pending) != 1 || !strings.Contains(pending[0], "DeviceTaintRule") {
		t.Errorf("unsynced %v (started %t), want only the DeviceTaintRule informer", pending, started)
	}
}
