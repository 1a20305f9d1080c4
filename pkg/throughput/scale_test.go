// Tests of the /proc readers: the process's resident memory and a CPU time that grows with work.

package throughput

import (
	"os"
	"testing"
	"time"
)

// The process's own /proc entries read as plausible figures: some resident
// memory, and CPU time that grows with work.
func TestProcReaders(t *testing.T) {
	pid := os.Getpid()
	rss, err := residentBytes(pid)
	if err != nil || rss < 1<<20 {
		t.Fatalf("residentBytes = %d, %v; want at least 1 MiB", rss, err)
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
