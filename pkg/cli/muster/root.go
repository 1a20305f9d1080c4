// Package muster is the muster command, Muster's tool for trying the gang
// scheduler without a cluster: `muster demo` runs a control plane and
// muster-scheduler in-process and submits a bursty mix of gangs to a
// simulated GPU pool; `muster simulate`, `muster chaos` and `muster
// placement-report` replay traces against it.
package muster

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	"github.com/muster-project/muster/pkg/controlplane"
)

// Main runs the muster command on the process's arguments and returns its
// exit code.
func Main() int {
	err := newRootCommand().Execute()
	controlplane.StopEtcd() // the embedded control plane's data, hundreds of MB
	if err != nil {
		logs.dump(os.Stderr)
		return 1
	}
	return 0
}

func newRootCommand() *cobra.Command {
	var verbosity int
	root := &cobra.Command{
		Use:           "muster",
		Short:         "Muster gang scheduling tools",
		SilenceUsage:  true,
		SilenceErrors: false,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			return setupLogging(verbosity)
		},
	}
	root.PersistentFlags().IntVarP(&verbosity, "v", "v", 0, "log verbosity of the embedded control plane and scheduler (0 shows errors only)")
	root.AddCommand(newDemoCommand())
	root.AddCommand(newSimulateCommand())
	root.AddCommand(newChaosCommand())
	root.AddCommand(newPlacementReportCommand())
	return root
}

// klogFlags holds klog's settings; the embedded components log through klog.
var klogFlags = flag.NewFlagSet("klog", flag.ContinueOnError)

func init() { klog.InitFlags(klogFlags) }

// logs is where klog writes.
var logs = &logFilter{out: os.Stderr}

// setupLogging keeps klog quiet. At verbosity 0 nothing reaches stderr while
// the command runs: the embedded control plane logs harmless errors as its
// components start and stop. The latest errors are kept and shown if the
// command fails. Above 0, everything up to that verbosity goes to stderr.
// Progress and results go to stdout either way.
func setupLogging(v int) error {
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

// silenceLogging drops all klog output from now on, for the shutdown of the
// embedded control plane, whose components complain about each other going
// away.
func silenceLogging() {
	logs.mu.Lock()
	logs.quiet = true
	logs.mu.Unlock()
}

// endControlPlane is deferred by each run of the embedded control plane: a
// panic (tb's TempDir panics when it cannot make a directory) becomes *err,
// then the control plane is shut down quietly.
func endControlPlane(tb *controlplane.ProcessTB, err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("control plane: %v", r)
	}
	silenceLogging()
	tb.Close()
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
