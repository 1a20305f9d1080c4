// Where the embedded control plane's klog output goes in a plain program (muster's commands): kept quiet, its latest errors shown on failure.

package controlplane

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"

	"k8s.io/klog/v2"
)

// logs is where klog writes once SetupLogging has run.
var logs = &logFilter{out: os.Stderr}

// SetupLogging keeps klog quiet. At verbosity 0 nothing reaches stderr
// while the program runs: the embedded control plane logs harmless errors
// as its components start and stop. The latest errors are kept, for
// DumpLoggedErrors if the program fails. Above 0, everything up to that
// verbosity goes to stderr. Progress and results go to stdout either way.
func SetupLogging(v int) error {
	klogFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(klogFlags)
	for name, value := range map[string]string{
		"logtostderr":     "false",
		"alsologtostderr": "false",
		"stderrthreshold": "FATAL",
		"one_output":      "true",
		"v":               strconv.Itoa(v),
	} {
		if err := klogFlags.Set(name, value); err != nil {
			return fmt.Errorf("setting klog flag %s: %w", name, err)
		}
	}
	logs.mu.Lock()
	logs.stream = v > 0
	logs.mu.Unlock()
	klog.SetOutput(logs)
	return nil
}

// SilenceLogging drops all klog output from now on, for the shutdown of
// the embedded control plane, whose components complain about each other
// going away.
func SilenceLogging() {
	logs.mu.Lock()
	logs.quiet = true
	logs.mu.Unlock()
}

// QuietDuring runs f with klog output dropped, for stopping embedded
// components; errors logged before and after are kept as usual.
func QuietDuring(f func()) {
	logs.mu.Lock()
	was := logs.quiet
	logs.quiet = true
	logs.mu.Unlock()
	defer func() {
		logs.mu.Lock()
		logs.quiet = was
		logs.mu.Unlock()
	}()
	f()
}

// DumpLoggedErrors writes the latest errors klog was given to out.
func DumpLoggedErrors(out io.Writer) { logs.dump(out) }

// End is deferred by each run of the embedded control plane in a plain
// program: a panic (TempDir panics when it cannot make a directory)
// becomes *err, then the control plane is shut down quietly.
func (t *ProcessTB) End(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("control plane: %v", r)
	}
	SilenceLogging()
	t.Close()
}

// keptErrors is how many of the latest errors are kept.
const keptErrors = 30

// logFilter takes klog entries (one per Write): it streams them all to out,
// or keeps the latest errors.
type logFilter struct {
	mu     sync.Mutex
	out    io.Writer
	stream bool
	quiet  bool
	recent [][]byte
}

func (f *logFilter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case f.quiet:
	case f.stream:
		f.out.Write(p)
	case len(p) > 0 && (p[0] == 'E' || p[0] == 'F'):
		if len(f.recent) == keptErrors {
			f.recent = f.recent[1:]
		}
		f.recent = append(f.recent, bytes.Clone(p))
	}
	return len(p), nil
}

// dump writes the kept errors to out.
func (f *logFilter) dump(out io.Writer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.recent) == 0 {
		return
	}
	fmt.Fprintf(out, "Latest errors logged by the embedded control plane and scheduler (-v=2 shows all logs):\n")
	for _, e := range f.recent {
		out.Write(e)
	}
}
