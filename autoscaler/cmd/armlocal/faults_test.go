// Tests of the fault endpoint: faults taken or refused naming the field, an injected VM loss in GET /state with its cause, a non-loopback --faults-address refused.

package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFaultEndpoint runs the command with --faults-address and breaks it
// over HTTP: faults are taken or refused with a message naming the field,
// and an injected VM loss shows in GET /state with its cause.
func TestFaultEndpoint(t *testing.T) {
	dir := t.TempDir()
	secretFile := filepath.Join(dir, "secret")
	if err := os.WriteFile(secretFile, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o := options{
		scenario: "simulate", rg: "rg-sim", delay: 10 * time.Millisecond, clientID: "c", secretFile: secretFile,
		cpuMin: 2, cpuMax: 3, lightMax: 2, heavyMax: 2,
		cpuSKU: "Standard_D4s_v5", lightSKU: "Standard_NC4as_T4_v3", heavySKU: "Standard_ND96isr_H100_v5",
		familyQuota: 1000, regionalQuota: 10000, cacheTTL: time.Second, pollInterval: time.Second,
		faultsAddress: "127.0.0.1:0",
	}
	var info readyInfo
	if err := json.Unmarshal([]byte(runArmlocal(t, o)), &info); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(info.FaultsURL, "http://127.0.0.1:") {
		t.Fatalf("faultsURL %q", info.FaultsURL)
	}
	post := func(body string) (int, string) {
		resp, err := http.Post(info.FaultsURL+"/faults", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, ok := range []string{
		`{"kind":"throttle","op":"*","count":3,"retryAfter":"1s"}`,
		`{"kind":"throttle","op":"*","for":"1ms","retryAfter":"1s"}`,
		`{"kind":"server-error","for":"1ms"}`,
		`{"kind":"server-error","op":"VirtualMachineScaleSets.Update","count":1,"status":500}`,
		`{"kind":"delay","count":1,"delay":"10ms"}`,
		`{"kind":"partial-provisioning","pool":"gpu-heavy","succeed":1}`,
		`{"kind":"quota","pool":"gpu-heavy","vcpus":0}`,
		`{"kind":"clear"}`,
		`{"kind":"delete-instance","pool":"cpu","instance":"cpu000001"}`,
	} {
		if code, msg := post(ok); code != http.StatusNoContent {
			t.Errorf("POST %s: %d %s", ok, code, msg)
		}
	}
	for body, field := range map[string]string{
		`{"kind":"explode"}`:                                             `kind "explode"`,
		`{"kind":"throttle","count":0}`:                                  "count must be at least 1",
		`{"kind":"throttle","op":"Nope.Get","count":1}`:                  `op "Nope.Get"`,
		`{"kind":"server-error","count":1,"status":404}`:                 "status must be a 5xx",
		`{"kind":"delay","count":1}`:                                     "delay",
		`{"kind":"quota","pool":"gpu-heavy"}`:                            "vcpus",
		`{"kind":"quota","pool":"nope","vcpus":1}`:                       `pool "nope"`,
		`{"kind":"delete-instance","pool":"cpu"}`:                        "instance is required",
		`{"kind":"evict-spot","pool":"cpu","instance":"cpu000000"}`:      "not a spot pool",
		`{"kind":"delete-instance","pool":"cpu","instance":"cpu000009"}`: "no instance cpu000009",
		`{"kind":"throttle","count":1,"bogus":true}`:                     "bogus",
		`{"kind":"throttle","count":1,"for":"1m"}`:                       "count and for are exclusive",
		`{"kind":"server-error","for":"soon"}`:                           `for "soon"`,
	} {
		if code, msg := post(body); code != http.StatusBadRequest || !strings.Contains(msg, field) {
			t.Errorf("POST %s: %d %q, want 400 naming %q", body, code, msg, field)
		}
	}

	resp, err := http.Get(info.FaultsURL + "/state")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st struct {
		Pools []struct {
			Name      string `json:"name"`
			Capacity  int    `json:"capacity"`
			Instances []struct {
				Name  string `json:"name"`
				State string `json:"state"`
			} `json:"instances"`
		} `json:"pools"`
		Deletions []struct {
			Pool, Instance, Cause string
		} `json:"deletions"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	if len(st.Deletions) != 1 || st.Deletions[0].Pool != "cpu" || st.Deletions[0].Instance != "cpu000001" || st.Deletions[0].Cause != "injected" {
		t.Errorf("deletions %+v, want cpu000001 injected", st.Deletions)
	}
	for _, p := range st.Pools {
		if p.Name == "cpu" && (p.Capacity != 1 || len(p.Instances) != 1 || p.Instances[0].Name != "cpu000000") {
			t.Errorf("cpu pool after the loss: %+v", p)
		}
	}
}

func TestFaultsAddressMustBeLoopback(t *testing.T) {
	_, err := serveFaults(context.Background(), "0.0.0.0:0", http.NotFoundHandler())
	if _, ok := err.(usageError); !ok || !strings.Contains(err.Error(), "--faults-address") {
		t.Fatalf("error %v, want a usage error naming --faults-address", err)
	}
}
