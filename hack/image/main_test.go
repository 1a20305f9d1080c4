// Tests of the image builder: reproducible archives, the check of entrypoint, platforms and a binary that runs, bad input, a registry base by digest, an unreachable registry.

package main

import (
	"bytes"
	"io"
	"log"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// fakeBinary is a script standing in for a binary: it prints usage.
func fakeBinary(t *testing.T, dir, usage string) string {
	t.Helper()
	p := filepath.Join(dir, "muster-fake")
	if err := os.WriteFile(p, []byte("#!/bin/sh\necho '"+usage+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func caBundle(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "ca.crt")
	if err := os.WriteFile(p, []byte("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBuildIsReproducibleAndChecks(t *testing.T) {
	dir := t.TempDir()
	host := runtime.GOOS + "/" + runtime.GOARCH
	bin := fakeBinary(t, dir, "Usage: muster-fake")
	args := func(out string) []string {
		return []string{"--name", "muster-fake", "--base", "offline", "--ca-bundle", caBundle(t, dir),
			"--binary", host + "=" + bin, "--binary", "linux/riscv64=" + bin, "--label", "a=b", "--out", out}
	}
	one, two := filepath.Join(dir, "one.tar"), filepath.Join(dir, "two.tar")
	if err := build(args(one)); err != nil {
		t.Fatal(err)
	}
	if err := build(args(two)); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(one)
	b, _ := os.ReadFile(two)
	if !bytes.Equal(a, b) {
		t.Fatal("two builds of the same inputs gave different archives")
	}
	if err := check([]string{"--archive", one, "--entrypoint", "/muster-fake", "--platforms", host + ",linux/riscv64"}); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000")
	if err := build(args(two)); err != nil {
		t.Fatal(err)
	}
	if b, _ = os.ReadFile(two); bytes.Equal(a, b) {
		t.Fatal("another SOURCE_DATE_EPOCH gave the same archive: dates are not recorded")
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{name: "wrong entrypoint", args: []string{"--archive", one, "--entrypoint", "/muster-other"}, want: "entrypoint"},
		{name: "missing platform", args: []string{"--archive", one, "--entrypoint", "/muster-fake", "--platforms", "linux/s390x"}, want: "no image for linux/s390x"},
		{name: "not an archive", args: []string{"--archive", bin, "--entrypoint", "/muster-fake"}, want: "muster-fake"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := check(tc.args)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

func TestBinaryThatDoesNotRunFailsTheCheck(t *testing.T) {
	dir := t.TempDir()
	host := runtime.GOOS + "/" + runtime.GOARCH
	bin := filepath.Join(dir, "muster-fake")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho broken >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "img.tar")
	if err := build([]string{"--name", "muster-fake", "--base", "offline", "--ca-bundle", caBundle(t, dir), "--binary", host + "=" + bin, "--out", out}); err != nil {
		t.Fatal(err)
	}
	if err := check([]string{"--archive", out, "--entrypoint", "/muster-fake"}); err == nil || !strings.Contains(err.Error(), "--help") {
		t.Fatalf("err %v, want the --help run to fail the check", err)
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{args: []string{"--name", "x", "--out", "o.tar"}, want: "at least one --binary"},
		{args: []string{"--name", "x", "--out", "o.tar", "--binary", "amd64=/x"}, want: "want os/arch=path"},
		{args: []string{"--name", "x", "--out", filepath.Join(dir, "o.tar"), "--base", "offline", "--ca-bundle", filepath.Join(dir, "none"), "--binary", "linux/amd64=/x"}, want: "--ca-bundle"},
	} {
		if err := build(tc.args); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("build %v: err %v, want one mentioning %q", tc.args, err, tc.want)
		}
	}
}

// A registry base (here an in-memory registry on loopback, as a user's
// would serve distroless) is pulled per platform by digest; the image keeps
// its files and runs as nonroot.
func TestRegistryBase(t *testing.T) {
	dir := t.TempDir()
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	layer, err := offlineBaseLayer(caBundle(t, dir), time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	host := runtime.GOOS + "/" + runtime.GOARCH
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, p := range []v1.Platform{{OS: "linux", Architecture: "amd64"}, {OS: "linux", Architecture: "arm64"}, {OS: runtime.GOOS, Architecture: runtime.GOARCH}} {
		img, err := mutate.AppendLayers(mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON), layer)
		if err != nil {
			t.Fatal(err)
		}
		cf, _ := img.ConfigFile()
		cf = cf.DeepCopy()
		cf.OS, cf.Architecture = p.OS, p.Architecture
		if img, err = mutate.ConfigFile(img, cf); err != nil {
			t.Fatal(err)
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &p}})
	}
	host127 := strings.TrimPrefix(srv.URL, "http://")
	ref, err := name.ParseReference(host127 + "/distroless/static:nonroot")
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.WriteIndex(ref, idx); err != nil {
		t.Fatal(err)
	}
	d, _ := idx.Digest()
	bin := fakeBinary(t, dir, "Usage: muster-fake")
	out := filepath.Join(dir, "img.tar")
	if err := build([]string{"--name", "muster-fake", "--base", host127 + "/distroless/static@" + d.String(),
		"--binary", host + "=" + bin, "--binary", "linux/arm64=" + bin, "--out", out}); err != nil {
		t.Fatal(err)
	}
	if err := check([]string{"--archive", out, "--entrypoint", "/muster-fake", "--platforms", host + ",linux/arm64"}); err != nil {
		t.Fatal(err)
	}
	pinned := host127 + "/distroless/static@" + d.String()
	if err := baseCheck([]string{"--base", pinned, "--platforms", "linux/amd64,linux/arm64", "--timeout", "10s"}); err != nil {
		t.Fatalf("base-check of a base the registry serves: %v", err)
	}
	if err := baseCheck([]string{"--base", pinned, "--platforms", "linux/amd64,linux/s390x", "--timeout", "10s"}); err == nil || !strings.Contains(err.Error(), "no image for linux/s390x") {
		t.Fatalf("base-check of a platform the base lacks: err %v, want one naming the platform", err)
	}
	if err := baseCheck([]string{"--base", host127 + "/distroless/static@sha256:" + strings.Repeat("0", 64), "--timeout", "10s"}); err == nil || !strings.Contains(err.Error(), host127+" did not serve base image") {
		t.Fatalf("base-check of a digest the registry lacks: err %v, want one saying the registry answered", err)
	}
	if err := build([]string{"--name", "muster-fake", "--base", host127 + "/distroless/static@sha256:" + strings.Repeat("0", 64),
		"--binary", host + "=" + bin, "--out", out}); err == nil || !strings.Contains(err.Error(), "muster-fake base for "+host) {
		t.Fatalf("a base digest the registry lacks: err %v, want one naming the image and platform", err)
	}
}

// base-check fails in about its timeout, naming the registry, when the
// registry refuses connections or accepts them and never answers; an
// offline base needs no registry.
func TestBaseCheckUnreachable(t *testing.T) {
	if err := baseCheck([]string{"--base", "offline", "--timeout", "1ms"}); err != nil {
		t.Fatalf("offline base: %v", err)
	}
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, never answered
		}
	}()
	for _, tc := range []struct{ name, registry string }{
		{name: "refused", registry: "127.0.0.1:1"},
		{name: "silent", registry: silent.Addr().String()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			err := baseCheck([]string{"--base", tc.registry + "/distroless/static@sha256:" + strings.Repeat("0", 64), "--timeout", "500ms"})
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("took %s with a 500ms timeout", took)
			}
			if err == nil || !strings.Contains(err.Error(), "cannot reach "+tc.registry+" for base image") {
				t.Fatalf("err %v, want one saying %s cannot be reached", err, tc.registry)
			}
		})
	}
}
