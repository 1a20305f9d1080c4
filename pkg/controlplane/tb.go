// TB, what Start needs of its caller (a test or a plain program), and ProcessTB, a TB for plain programs.

package controlplane

import (
	"fmt"
	"os"
	"sync"

	"k8s.io/klog/v2"
)

// TB is what Start needs of its caller: somewhere to put files, cleanups
// to run when the caller is done, and a log. *testing.T and *testing.B
// satisfy it, so a test passes itself; a plain program passes a ProcessTB.
// Helper and Log make it a klog ktesting.TL: the API server's contextual
// log goes there, as upstream's test server sent it to the test's log.
type TB interface {
	Cleanup(func())
	TempDir() string
	Helper()
	Log(args ...any)
	Logf(format string, args ...any)
}

// ProcessTB is a TB for a plain program (the demo, muster simulate, the
// benchmark report): cleanups run in reverse order at Close, which removes
// the temporary directories too; the log is klog's at verbosity 2.
type ProcessTB struct {
	name     string
	mu       sync.Mutex
	cleanups []func()
	dirs     []string
}

var _ TB = (*ProcessTB)(nil)

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

// Cleanup registers f to run at Close.
func (t *ProcessTB) Cleanup(f func()) {
	t.mu.Lock()
	t.cleanups = append(t.cleanups, f)
	t.mu.Unlock()
}

// Helper does nothing: klog's file and line are the caller's own.
func (t *ProcessTB) Helper() {}

// Log logs at klog verbosity 2.
func (t *ProcessTB) Log(args ...any) { klog.V(2).Info(fmt.Sprint(args...)) }

// Logf logs at klog verbosity 2.
func (t *ProcessTB) Logf(format string, args ...any) { klog.V(2).Info(fmt.Sprintf(format, args...)) }

// TempDir makes a temporary directory that Close removes.
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
