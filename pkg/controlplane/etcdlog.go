// A zap logger writing through klog, for the etcd clients of the embedded API servers.

package controlplane

import (
	"fmt"
	"sort"
	"strings"
	_ "unsafe" // go:linkname, for the API server's etcd client logger

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	_ "k8s.io/apiserver/pkg/storage/storagebackend/factory" // defines apiserverEtcdClientLogger
	"k8s.io/klog/v2"
)

// apiserverEtcdClientLogger is the logger every API server's etcd client
// gets (clientv3.Config.Logger). The apiserver package builds it in its
// init, as JSON on stderr at info level, and offers no way to replace it
// (kubernetes/kubernetes#111476): it logs a warning for each storage call
// whose request was cancelled, which the components do as they stop, and
// those raw JSON lines went past every command's log settings into `muster
// demo`'s output. startEtcd replaces it before any API server starts.
//
//go:linkname apiserverEtcdClientLogger k8s.io/apiserver/pkg/storage/storagebackend/factory.etcd3ClientLogger
var apiserverEtcdClientLogger *zap.Logger

// etcdClientLog is the API servers' etcd clients' log level: as the
// apiserver's own (info), nothing once StopEtcd closes etcd.
var etcdClientLog = zap.NewAtomicLevelAt(zap.InfoLevel)

// klogZap returns a zap logger that writes through klog, so the embedded
// etcd and its clients log where the embedding command sends klog (the
// demo keeps errors for a failure and shows everything only with -v,
// muster-bench writes them to its --log file, tests to stderr as before)
// rather than as JSON on stderr. level gates the entries first; debug
// entries are then klog's V(4), info V(2), warnings and errors its own.
func klogZap(level zapcore.LevelEnabler) *zap.Logger {
	return zap.New(&klogCore{level: level}, zap.AddCaller())
}

type klogCore struct {
	level  zapcore.LevelEnabler
	fields []zapcore.Field
}

func (c *klogCore) Enabled(l zapcore.Level) bool {
	if !c.level.Enabled(l) {
		return false
	}
	switch l {
	case zapcore.DebugLevel:
		return klog.V(4).Enabled()
	case zapcore.InfoLevel:
		return klog.V(2).Enabled()
	}
	return true
}

func (c *klogCore) With(fields []zapcore.Field) zapcore.Core {
	return &klogCore{level: c.level, fields: append(c.fields[:len(c.fields):len(c.fields)], fields...)}
}

func (c *klogCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(e.Level) {
		return ce.AddCore(e, c)
	}
	return ce
}

func (c *klogCore) Write(e zapcore.Entry, fields []zapcore.Field) error {
	msg := klogLine(e, append(c.fields[:len(c.fields):len(c.fields)], fields...))
	// klog's file:line: Write's caller is zap's CheckedEntry.Write, whose
	// caller is the Logger method etcd called; the line's caller= field is
	// zap's own account of it.
	const depth = 3
	switch {
	case e.Level >= zapcore.ErrorLevel:
		klog.ErrorDepth(depth, msg)
	case e.Level == zapcore.WarnLevel:
		klog.WarningDepth(depth, msg)
	default:
		klog.InfoDepth(depth, msg)
	}
	return nil
}

func (c *klogCore) Sync() error { return nil }

// klogLine formats an entry as one line: the logger's name, the message,
// its fields as sorted key=value pairs, then where it was logged.
func klogLine(e zapcore.Entry, fields []zapcore.Field) string {
	enc := zapcore.NewMapObjectEncoder()
	for _, f := range fields {
		f.AddTo(enc)
	}
	var b strings.Builder
	if e.LoggerName != "" {
		b.WriteString(e.LoggerName)
		b.WriteString(": ")
	}
	b.WriteString(e.Message)
	keys := make([]string, 0, len(enc.Fields))
	for k := range enc.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if s, ok := enc.Fields[k].(string); ok {
			fmt.Fprintf(&b, " %s=%q", k, s)
		} else {
			fmt.Fprintf(&b, " %s=%v", k, enc.Fields[k])
		}
	}
	if e.Caller.Defined {
		fmt.Fprintf(&b, " caller=%s", e.Caller.TrimmedPath())
	}
	return b.String()
}
