package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
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
