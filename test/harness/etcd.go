package harness

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"sync"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
)

var (
	etcdOnce sync.Once
	etcdURL  string
	etcdErr  error
)

// startEtcd starts one in-process etcd per process on free loopback ports and
// points the integration framework at it through KUBE_INTEGRATION_ETCD_URL.
// Each API server then uses its own key prefix, so tests stay isolated.
func startEtcd() (string, error) {
	etcdOnce.Do(func() {
		dir, err := os.MkdirTemp("", "muster-etcd")
		if err != nil {
			etcdErr = err
			return
		}
		client, err := freeURL()
		if err != nil {
			etcdErr = err
			return
		}
		peer, err := freeURL()
		if err != nil {
			etcdErr = err
			return
		}
		cfg := embed.NewConfig()
		cfg.Name = "muster-test"
		cfg.Dir = dir
		cfg.ListenClientUrls = []url.URL{*client}
		cfg.AdvertiseClientUrls = []url.URL{*client}
		cfg.ListenPeerUrls = []url.URL{*peer}
		cfg.AdvertisePeerUrls = []url.URL{*peer}
		cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
		cfg.UnsafeNoFsync = true
		cfg.LogLevel = "error"
		e, err := embed.StartEtcd(cfg)
		if err != nil {
			etcdErr = fmt.Errorf("starting embedded etcd: %w", err)
			return
		}
		select {
		case <-e.Server.ReadyNotify():
		case <-time.After(30 * time.Second):
			etcdErr = fmt.Errorf("embedded etcd did not become ready within 30s")
			return
		}
		etcdURL = client.String()
		os.Setenv("KUBE_INTEGRATION_ETCD_URL", etcdURL)
	})
	return etcdURL, etcdErr
}

func freeURL() (*url.URL, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	defer l.Close()
	return url.Parse("http://" + l.Addr().String())
}
