// Tests of the /proc readers, and make bench-scale's grid at its smallest: both scheduler processes schedule every pod, and the table and chart name both.

package throughput

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/muster-project/muster/pkg/controlplane"
)

// The process's own /proc entries read as plausible figures: some resident
// memory, a peak no lower, and CPU time that grows with work.
func TestProcReaders(t *testing.T) {
	pid := os.Getpid()
	rss, err := residentBytes(pid)
	if err != nil || rss < 1<<20 {
		t.Fatalf("residentBytes = %d, %v; want at least 1 MiB", rss, err)
	}
	peak, err := peakResidentBytes(pid)
	if err != nil || peak < rss {
		t.Fatalf("peakResidentBytes = %d, %v; want at least the resident %d", peak, err, rss)
	}
	before, err := cpuTime(pid)
	if err != nil {
		t.Fatal(err)
	}
	// Spin until the kernel has counted some of it (it counts in ticks of
	// 10 ms); a reader that never sees CPU time grow fails after 30 s.
	for deadline := time.Now().Add(30 * time.Second); ; {
		after, err := cpuTime(pid)
		if err != nil {
			t.Fatal(err)
		}
		if after > before {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("CPU time stayed %v over 30 s of spinning", before)
		}
	}
	if _, err := residentBytes(-1); err == nil {
		t.Error("residentBytes of no process: no error")
	}
}

func goBinary() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

// TestScaleGridShort is make bench-scale's grid at one cell, 500 nodes and
// 10 waiting gangs of 50: the muster-scheduler and kube-scheduler processes
// each bind every pod, each gang reaches its quorum, every figure is there,
// and the table and chart show both sides. It asserts no timing.
func TestScaleGridShort(t *testing.T) {
	if testing.Short() {
		t.Skip("builds muster-scheduler and kube-scheduler and runs each as a process")
	}
	if err := controlplane.SetupLogging(0); err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	build := exec.Command(goBinary(), "build", "-o", bin+string(os.PathSeparator), "../../cmd/muster-scheduler", "../../hack/kube-scheduler")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the schedulers: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	o := ScaleOptions{Nodes: []int{500}, Gangs: []int{10}, Pods: 500, Timeout: 5 * time.Minute,
		MusterBinary: filepath.Join(bin, "muster-scheduler"), UpstreamBinary: filepath.Join(bin, "kube-scheduler")}
	var progress bytes.Buffer
	cells, err := RunScale(ctx, o, &progress)
	t.Log(progress.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 2 || cells[0].Side == cells[1].Side {
		t.Fatalf("cells %+v, want one per side", cells)
	}
	for _, c := range cells {
		r := c.Result
		if c.Nodes != 500 || c.Gangs != 10 || c.GangSize != 50 || r.Pods != 500 || r.Gangs != 10 {
			t.Errorf("%s: %d nodes, %d pods in %d gangs of %d; want 500 nodes, 500 pods in 10 gangs of 50", c.Side, c.Nodes, r.Pods, r.Gangs, c.GangSize)
		}
		if r.Bound != r.Pods || r.GangsAtMin() != r.Gangs {
			t.Errorf("%s: %d of %d pods bound, %d of %d gangs at quorum", c.Side, r.Bound, r.Pods, r.GangsAtMin(), r.Gangs)
		}
		if c.PeakRSS <= 0 || c.CPU <= 0 || r.SchedPodsPerSec <= 0 || r.P99 <= 0 || r.Startup <= 0 {
			t.Errorf("%s: a figure is missing: peak RSS %d, CPU %v, %.1f pods/s, p99 %v, start-up %v", c.Side, c.PeakRSS, c.CPU, r.SchedPodsPerSec, r.P99, r.Startup)
		}
	}
	var table, chart bytes.Buffer
	if err := WriteScaleTable(&table, o.Pods, cells); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + table.String())
	for _, side := range []string{SideMuster, SideUpstream} {
		if !strings.Contains(table.String(), " "+side+" ") {
			t.Errorf("the table has no %s row:\n%s", side, table.String())
		}
	}
	if err := WriteScaleChart(&chart, cells); err != nil {
		t.Fatal(err)
	}
	// The chart is well-formed XML with a point and a label per side.
	dec, circles := xml.NewDecoder(bytes.NewReader(chart.Bytes())), 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("chart is not XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "circle" {
			circles++
		}
	}
	if circles != 2 || !strings.Contains(chart.String(), ">muster<") || !strings.Contains(chart.String(), ">upstream<") {
		t.Errorf("chart has %d points, want 2, and both sides' labels:\n%s", circles, chart.String())
	}
}
