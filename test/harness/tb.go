// ProcessTB: a testing.TB for plain programs (the demo, the benchmark report).

package harness

import (
	"fmt"
	"os"
	"sync"

	"k8s.io/klog/v2"
)

// ProcessTB lets a plain program (the demo, the benchmark report) use the
// upstream test servers, which take a testing.TB. Failures panic; cleanups run
// in reverse order at Close.
type ProcessTB struct {
	name     string
	mu       sync.Mutex
	cleanups []func()
	failed   bool
	dirs     []string
}

// NewProcessTB returns a TB for a program named name.
func NewProcessTB(name string) *ProcessTB { return &ProcessTB{name: name} }

// Close runs the cleanups and removes temporary directories.
func (t *ProcessTB) Close() {
	t.mu.Lock()
	c := t.cleanups
	t.cleanups = nil
	t.mu.Unlock()
	for i := len(c) - 1; i >= 0; i-- {
		c[i]()
	}
	for _, d := range t.dirs {
		os.RemoveAll(d)
	}
}

func (t *ProcessTB) Attr(key, value string) {}
func (t *ProcessTB) Chdir(dir string)       { _ = os.Chdir(dir) }
func (t *ProcessTB) Cleanup(f func()) {
	t.mu.Lock()
	t.cleanups = append(t.cleanups, f)
	t.mu.Unlock()
}
func (t *ProcessTB) Error(args ...any)                 { t.failed = true; klog.Error(args...) }
func (t *ProcessTB) Errorf(format string, args ...any) { t.failed = true; klog.Errorf(format, args...) }
func (t *ProcessTB) Fail()                             { t.failed = true }
func (t *ProcessTB) FailNow()                          { panic(t.name + ": FailNow") }
func (t *ProcessTB) Failed() bool                      { return t.failed }
func (t *ProcessTB) Fatal(args ...any)                 { panic(fmt.Sprint(args...)) }
func (t *ProcessTB) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (t *ProcessTB) Helper()                           {}
func (t *ProcessTB) Log(args ...any)                   { klog.V(2).Info(fmt.Sprint(args...)) }
func (t *ProcessTB) Logf(format string, args ...any)   { klog.V(2).Info(fmt.Sprintf(format, args...)) }
func (t *ProcessTB) Name() string                      { return t.name }
func (t *ProcessTB) Setenv(key, value string)          { os.Setenv(key, value) }
func (t *ProcessTB) Skip(args ...any)                  { panic("skip is not supported outside tests") }
func (t *ProcessTB) Skipf(format string, args ...any)  { panic("skip is not supported outside tests") }
func (t *ProcessTB) SkipNow()                          { panic("skip is not supported outside tests") }
func (t *ProcessTB) Skipped() bool                     { return false }
func (t *ProcessTB) TempDir() string {
	d, err := os.MkdirTemp("", t.name)
	if err != nil {
		panic(err)
	}
	t.mu.Lock()
	t.dirs = append(t.dirs, d)
	t.mu.Unlock()
	return d
}
