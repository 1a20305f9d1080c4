// Command etcd is a single-member etcd for tests, built from the etcd server
// Muster already vendors (go.etcd.io/etcd/server/v3/embed). Upstream's
// test/integration/scheduler_perf starts a fresh "etcd" from PATH for every
// workload (framework.RunCustomEtcd); `make bench-perf` puts this one there,
// so no etcd release has to be downloaded. It takes the flags
// RunCustomEtcd passes and runs until it is killed.
package main

import (
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"go.etcd.io/etcd/server/v3/embed"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "etcd: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	cfg := embed.NewConfig()
	fs := flag.NewFlagSet("etcd", flag.ContinueOnError)
	dataDir := fs.String("data-dir", "", "directory of the member's data (required)")
	listenClient := fs.String("listen-client-urls", "", "URLs to serve clients on, comma separated (required; unix:// sockets too)")
	advertiseClient := fs.String("advertise-client-urls", "", "URLs advertised to clients (default: the listen URLs)")
	fs.String("listen-peer-urls", "", "ignored: a free loopback port serves the single member's peer URL")
	logLevel := fs.String("log-level", "warn", "debug, info, warn or error")
	quota := fs.Int64("quota-backend-bytes", 0, "backend size limit in bytes (0: etcd's default)")
	if err := fs.Parse(os.Args[1:]); err != nil {
		return err
	}
	if *dataDir == "" || *listenClient == "" {
		return fmt.Errorf("--data-dir and --listen-client-urls are required")
	}
	clients, err := urls(*listenClient)
	if err != nil {
		return fmt.Errorf("--listen-client-urls: %w", err)
	}
	advertised := clients
	if *advertiseClient != "" {
		if advertised, err = urls(*advertiseClient); err != nil {
			return fmt.Errorf("--advertise-client-urls: %w", err)
		}
	}
	peer, err := freeURL()
	if err != nil {
		return err
	}
	cfg.Name = "muster-test"
	cfg.Dir = *dataDir
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = clients, advertised
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*peer}, []url.URL{*peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.LogLevel = *logLevel
	cfg.QuotaBackendBytes = *quota
	// Test data: losing it on a crash costs nothing, syncing it costs time.
	cfg.UnsafeNoFsync = true
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return err
	}
	defer e.Close()
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	select {
	case <-stop:
		return nil
	case err := <-e.Err():
		return err
	}
}

func urls(list string) ([]url.URL, error) {
	var out []url.URL
	for _, s := range strings.Split(list, ",") {
		u, err := url.Parse(strings.TrimSpace(s))
		if err != nil {
			return nil, err
		}
		out = append(out, *u)
	}
	return out, nil
}

func freeURL() (*url.URL, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	defer l.Close()
	return url.Parse("http://" + l.Addr().String())
}
