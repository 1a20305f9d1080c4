// The package's TestMain, and the test types that must be TBs.

package controlplane

import (
	"os"
	"testing"
)

// Tests and benchmarks pass themselves to Start.
var (
	_ TB = (*testing.T)(nil)
	_ TB = (*testing.B)(nil)
)

// TestMain removes the embedded etcd's data when the tests are done, as
// test/harness's RunTests does for other packages (it imports this one, so
// this one cannot import it).
func TestMain(m *testing.M) {
	code := m.Run()
	StopEtcd()
	os.Exit(code)
}
