// Tests of POST /sync for a stepped clock: one node agent pass answering armlocal's time and next change, failed passes, Nodes there when it answers.

package main

import (
	"context"
	"encoding/json"
	"errors"
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

	apiv1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/muster-project/muster/autoscaler/armlocal"
	"github.com/muster-project/muster/autoscaler/cloudprovider/agentpool"
	"github.com/muster-project/muster/autoscaler/nodeagent/apiservertest"
)

// postSync POSTs /sync and returns the status, the raw body and, on 200,
// the decoded answer.
func postSync(t *testing.T, url string) (int, string, map[string]string) {
	t.Helper()
	resp, err := http.Post(url+"/sync", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, string(b), nil
	}
	var ans map[string]string
	if err := json.Unmarshal(b, &ans); err != nil {
		t.Fatalf("POST /sync answer %q: %v", b, err)
	}
	return resp.StatusCode, string(b), ans
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// TestSyncEndpoint: POST /sync runs the sync function once, then answers
// armlocal's time and its next change (none: no "next"); a failed pass is a
// 500 naming the error; without a node agent it still answers; other
// methods are refused.
func TestSyncEndpoint(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	clk := clocktesting.NewFakePassiveClock(t0)
	s, err := armlocal.New(armlocal.Options{Clock: clk, DeletionDelay: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.AddScaleSet(armlocal.ScaleSetSpec{ResourceGroup: "rg-sim", Name: "cpu", SKU: "Standard_D4s_v5", Capacity: 2}); err != nil {
		t.Fatal(err)
	}
	pools := []pool{{Name: "cpu", Family: "standardDSv5Family"}}

	var mu sync.Mutex
	calls := 0
	var fail error
	syncFn := func(ctx context.Context) error {
		mu.Lock()
		defer mu.Unlock()
		calls++
		return fail
	}
	withAgent := httptest.NewServer(faultsHandler(s, "rg-sim", pools, syncFn, nil))
	defer withAgent.Close()
	noAgent := httptest.NewServer(faultsHandler(s, "rg-sim", pools, nil, nil))
	defer noAgent.Close()

	// Nothing pending: the time, no next.
	code, body, ans := postSync(t, withAgent.URL)
	if code != http.StatusOK || ans["now"] != rfc3339(t0) {
		t.Fatalf("POST /sync: %d %s, want 200 with now %s", code, body, rfc3339(t0))
	}
	if _, ok := ans["next"]; ok {
		t.Errorf("POST /sync with nothing pending: %s, want no next", body)
	}
	if calls != 1 {
		t.Errorf("sync function called %d times by one POST /sync, want 1", calls)
	}

	// A deletion under way ends a minute of the clock later.
	clk.SetTime(t0.Add(10 * time.Second))
	if err := s.DeleteInstance("rg-sim", "cpu", "cpu000001"); err != nil {
		t.Fatal(err)
	}
	for name, url := range map[string]string{"with the agent": withAgent.URL, "without the agent": noAgent.URL} {
		code, body, ans = postSync(t, url)
		if code != http.StatusOK || ans["now"] != rfc3339(t0.Add(10*time.Second)) || ans["next"] != rfc3339(t0.Add(70*time.Second)) {
			t.Errorf("POST /sync %s during a deletion: %d %s, want now t0+10s, next t0+70s", name, code, body)
		}
	}
	if calls != 2 {
		t.Errorf("sync function called %d times after two POSTs to the agent's endpoint, want 2", calls)
	}
	clk.SetTime(t0.Add(70 * time.Second))
	if _, body, ans = postSync(t, withAgent.URL); ans["next"] != "" {
		t.Errorf("POST /sync when the deletion is done: %s, want no next", body)
	}

	// A failed pass.
	mu.Lock()
	fail = errors.New("listing nodes: connection refused")
	mu.Unlock()
	if code, body, _ := postSync(t, withAgent.URL); code != http.StatusInternalServerError || !strings.Contains(body, "listing nodes: connection refused") {
		t.Errorf("POST /sync with a failing pass: %d %q, want 500 naming the error", code, body)
	}

	resp, err := http.Get(withAgent.URL + "/sync")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /sync: %d, want 405", resp.StatusCode)
	}
}

// TestPushClock: POST /clock sets the --clock-url clock, which POST /sync
// then answers without the URL being read again; without a URL clock it
// is refused, naming why; a body that is no time is a 400.
func TestPushClock(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	reads := 0
	served := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		reads++
		fmt.Fprintln(w, rfc3339(t0.Add(time.Duration(reads)*time.Hour)))
	}))
	defer served.Close()
	clk, err := armlocal.NewURLClock(context.Background(), served.URL)
	if err != nil {
		t.Fatal(err)
	}
	s, err := armlocal.New(armlocal.Options{Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	pools := []pool{{Name: "cpu", Family: "standardDSv5Family"}}
	h := httptest.NewServer(faultsHandler(s, "rg-sim", pools, nil, clk))
	defer h.Close()
	wallTime := httptest.NewServer(faultsHandler(s, "rg-sim", pools, nil, nil))
	defer wallTime.Close()
	post := func(url, body string) (int, string) {
		t.Helper()
		resp, err := http.Post(url+"/clock", "text/plain", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}

	pushed := t0.Add(90 * time.Minute)
	if code, body := post(h.URL, rfc3339(pushed)); code != http.StatusNoContent {
		t.Fatalf("POST /clock: %d %s, want 204", code, body)
	}
	mu.Lock()
	before := reads
	mu.Unlock()
	for range 3 {
		if _, body, ans := postSync(t, h.URL); ans["now"] != rfc3339(pushed) {
			t.Errorf("POST /sync after a push: %s, want now %s", body, rfc3339(pushed))
		}
	}
	mu.Lock()
	if reads != before {
		t.Errorf("the clock URL was read %d times after the push, want none", reads-before)
	}
	mu.Unlock()
	if code, body := post(h.URL, "noon"); code != http.StatusBadRequest || !strings.Contains(body, "RFC 3339") {
		t.Errorf("POST /clock with %q: %d %q, want 400 asking for RFC 3339", "noon", code, body)
	}
	if code, body := post(wallTime.URL, rfc3339(pushed)); code != http.StatusConflict || !strings.Contains(body, "--clock-url") {
		t.Errorf("POST /clock without a URL clock: %d %q, want 409 naming --clock-url", code, body)
	}
}

// TestSyncNodeAgent runs the command on a served clock with the node agent
// against a real API server and an agent interval far longer than the test:
// only POST /sync makes passes. A scale-up's next change is its boot time;
// once the clock is there, the Node exists when POST /sync answers; a
// deleted instance's Node is gone when it answers, and the next change is
// the deletion's end.
func TestSyncNodeAgent(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a control plane")
	}
	restCfg := apiservertest.Start(t)
	kube := kubernetes.NewForConfigOrDie(restCfg)
	ctx := context.Background()

	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	now := t0
	clockSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintln(w, now.Format(time.RFC3339Nano))
	}))
	defer clockSrv.Close()
	setClock := func(t time.Time) {
		mu.Lock()
		defer mu.Unlock()
		now = t
	}

	dir := t.TempDir()
	secretFile := filepath.Join(dir, "secret")
	if err := os.WriteFile(secretFile, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o := options{
		scenario: "simulate", rg: "rg-sim", delay: 3 * time.Minute, delDelay: time.Minute, clockURL: clockSrv.URL,
		clientID: "c", secretFile: secretFile,
		cpuMin: 1, cpuMax: 3, lightMax: 2, heavyMax: 2,
		cpuSKU: "Standard_D4s_v5", lightSKU: "Standard_NC4as_T4_v3", heavySKU: "Standard_ND96isr_H100_v5",
		familyQuota: 1000, regionalQuota: 10000,
		kubeconfig: apiservertest.WriteKubeconfig(t, restCfg), agentInterval: time.Hour,
		cloudConfigPath: filepath.Join(dir, "cloud-config.yaml"),
		cacheTTL:        10 * time.Millisecond, pollInterval: 50 * time.Millisecond,
		faultsAddress: "127.0.0.1:0",
	}
	var info readyInfo
	if err := json.Unmarshal([]byte(runArmlocal(t, o)), &info); err != nil {
		t.Fatal(err)
	}

	cfg, err := agentpool.LoadConfig(o.cloudConfigPath)
	if err != nil {
		t.Fatal(err)
	}
	prov := providerFor(t, cfg, info.CAFile)
	var heavy interface {
		IncreaseSize(int) error
		DeleteNodes([]*apiv1.Node) error
	}
	for _, g := range prov.NodeGroups() {
		if g.Id() == "gpu-heavy" {
			heavy = g
		}
	}
	if heavy == nil {
		t.Fatal("no gpu-heavy pool")
	}
	nodeExists := func() (*apiv1.Node, bool) {
		t.Helper()
		n, err := kube.CoreV1().Nodes().Get(ctx, "gpu-heavy000000", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil, false
		}
		if err != nil {
			t.Fatal(err)
		}
		return n, true
	}
	doSync := func(wantNow time.Time, wantNext time.Duration) {
		t.Helper()
		code, body, ans := postSync(t, info.FaultsURL)
		next := ""
		if wantNext >= 0 {
			next = rfc3339(t0.Add(wantNext))
		}
		if code != http.StatusOK || ans["now"] != rfc3339(wantNow) || ans["next"] != next {
			t.Fatalf("POST /sync: %d %s, want now %s next %q", code, body, rfc3339(wantNow), next)
		}
	}

	doSync(t0, -1)
	if err := heavy.IncreaseSize(1); err != nil {
		t.Fatal(err)
	}
	doSync(t0, 3*time.Minute)
	if _, ok := nodeExists(); ok {
		t.Fatal("the heavy-GPU node exists while its instance boots")
	}

	setClock(t0.Add(3 * time.Minute))
	doSync(t0.Add(3*time.Minute), -1)
	node, ok := nodeExists()
	if !ok {
		t.Fatal("no heavy-GPU node when POST /sync at its boot time answered")
	}
	if readyStatus(node) != apiv1.ConditionTrue {
		t.Fatalf("heavy-GPU node not Ready when POST /sync answered: %+v", node.Status.Conditions)
	}

	if err := heavy.DeleteNodes([]*apiv1.Node{node}); err != nil {
		t.Fatal(err)
	}
	doSync(t0.Add(3*time.Minute), 4*time.Minute)
	if _, ok := nodeExists(); ok {
		t.Fatal("the deleted instance's node is there when POST /sync answered")
	}
	setClock(t0.Add(4 * time.Minute))
	doSync(t0.Add(4*time.Minute), -1)
	if _, err := kube.CoreV1().Nodes().Get(ctx, "cpu000000", metav1.GetOptions{}); err != nil {
		t.Fatalf("the CPU node: %v", err)
	}
}
