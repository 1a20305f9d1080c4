// Tests of the etcd log through klog: the linked API server etcd client logger, klogZap.

package controlplane

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-logr/logr/funcr"
	"go.uber.org/zap"
	"k8s.io/klog/v2"
)

// The linkname names the apiserver's own logger: its init set it.
func TestAPIServerEtcdClientLoggerIsLinked(t *testing.T) {
	if apiserverEtcdClientLogger == nil {
		t.Fatal("apiserverEtcdClientLogger is nil: the linkname does not reach k8s.io/apiserver's etcd3ClientLogger")
	}
}

// etcd's entries go through klog as one line each, gated first by their
// level and then by klog's verbosity; none once the level is fatal.
func TestKlogZap(t *testing.T) {
	var lines []string
	klog.SetLogger(funcr.New(func(prefix, args string) { lines = append(lines, args) }, funcr.Options{LogCaller: funcr.All}))
	defer klog.ClearLogger()
	level := zap.NewAtomicLevelAt(zap.InfoLevel)
	lg := klogZap(level).Named("etcd-client").With(zap.String("target", "etcd-endpoints://x"))
	lg.Warn("retrying of unary invoker failed", zap.String("method", "/etcdserverpb.KV/Txn"), zap.Uint("attempt", 0), zap.Error(errors.New("context canceled")))
	lg.Info("below klog's verbosity")
	lg.Debug("below the level")
	level.SetLevel(zap.FatalLevel)
	lg.Error("after the level is raised")
	if len(lines) != 1 {
		t.Fatalf("klog got %d lines, want 1: %q", len(lines), lines)
	}
	for _, want := range []string{`etcd-client: retrying of unary invoker failed`, `attempt=0`, `error=\"context canceled\"`, `method=\"/etcdserverpb.KV/Txn\"`, `target=\"etcd-endpoints://x\"`, `caller=controlplane/etcdlog_test.go:`, `"caller"={"file"="etcdlog_test.go"`} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("line %s lacks %s", lines[0], want)
		}
	}
}
