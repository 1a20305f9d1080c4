// The in-process etcd, one per process: start, stop, reaping stale data directories.

package controlplane

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

var (
	etcdOnce sync.Once
	etcdURL  string
	etcdErr  error
	etcd     *embed.Etcd
	etcdDir  string
	// etcdLog is the embedded etcd's log level: errors while it runs,
	// nothing once StopEtcd closes it (it logs its listeners closing as
	// errors, and muster and muster-bench printed them at every exit). Its
	// log goes through klog (klogZap).
	etcdLog = zap.NewAtomicLevelAt(zap.ErrorLevel)
)

// etcdDirPrefix names each process's etcd data directory, followed by the
// owner's PID, so a later process can tell which directories their owners
// left behind (killed by a test timeout, interrupted): each holds hundreds
// of megabytes, and they filled the disk.
const etcdDirPrefix = "muster-etcd-"

// startEtcd starts one in-process etcd per process on free loopback ports
// and returns its client URL. Each API server uses its own key prefix in
// it (startAPIServer), so tests stay isolated.
func startEtcd() (string, error) {
	etcdOnce.Do(func() {
		reapEtcdDirs(os.TempDir())
		dir, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", etcdDirPrefix, os.Getpid()))
		if err != nil {
			etcdErr = err
			return
		}
		// The ports are free when picked, not when etcd binds them: another
		// process (a parallel test shard, or any client's ephemeral port)
		// may take one in between. A bind that finds one taken picks again.
		var e *embed.Etcd
		for attempt := 1; ; attempt++ {
			e, err = startEtcdOnFreePorts(dir)
			if err == nil || attempt == 5 || !(errors.Is(err, syscall.EADDRINUSE) || strings.Contains(err.Error(), "address already in use")) {
				break
			}
			// A bind fails before etcd writes its data; start afresh all the same.
			if err := os.RemoveAll(dir); err != nil {
				break
			}
			if err := os.MkdirAll(dir, 0o700); err != nil {
				break
			}
		}
		if err != nil {
			etcdErr = fmt.Errorf("starting embedded etcd: %w", err)
			_ = os.RemoveAll(dir)
			return
		}
		etcd, etcdDir = e, dir
		select {
		case <-e.Server.ReadyNotify():
		case <-time.After(30 * time.Second):
			etcdErr = fmt.Errorf("embedded etcd did not become ready within 30s")
			return
		}
		etcdURL = e.Config().AdvertiseClientUrls[0].String()
	})
	return etcdURL, etcdErr
}

// startEtcdOnFreePorts starts the process's etcd in dir on two loopback
// ports free when picked.
func startEtcdOnFreePorts(dir string) (*embed.Etcd, error) {
	client, err := freeURL()
	if err != nil {
		return nil, err
	}
	peer, err := freeURL()
	if err != nil {
		return nil, err
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
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(klogZap(etcdLog).Named("etcd"))
	// Before any API server builds its etcd client from it.
	apiserverEtcdClientLogger = klogZap(etcdClientLog).Named("etcd-client")
	return embed.StartEtcd(cfg)
}

func freeURL() (*url.URL, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	defer l.Close()
	return url.Parse("http://" + l.Addr().String())
}

// StopEtcd stops the process's etcd, if it started, and removes its data.
// No API server may use it after: call it when the process is done with
// the control plane (test/harness's RunTests does, for test binaries).
func StopEtcd() {
	if etcd != nil {
		etcdLog.SetLevel(zap.FatalLevel)
		etcdClientLog.SetLevel(zap.FatalLevel)
		etcd.Close()
		etcd = nil
	}
	if etcdDir != "" {
		_ = os.RemoveAll(etcdDir)
		etcdDir = ""
	}
}

// reapEtcdDirs removes the etcd data directories under tmp whose owning
// process has exited.
func reapEtcdDirs(tmp string) {
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, ok := etcdDirOwner(e.Name())
		if !ok || !e.IsDir() || processAlive(pid) {
			continue
		}
		_ = os.RemoveAll(filepath.Join(tmp, e.Name()))
	}
}

// etcdDirOwner parses the PID out of a directory name etcd's data was
// given (etcdDirPrefix, PID, '-', random suffix).
func etcdDirOwner(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, etcdDirPrefix)
	if !ok {
		return 0, false
	}
	pidText, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(pidText)
	return pid, err == nil && pid > 0
}

// processAlive tells whether a process with this PID exists (signal 0
// checks without sending anything; EPERM means it exists as another user).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
