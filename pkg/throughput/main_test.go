// The package's TestMain: it removes the embedded etcd's data when the tests are done.

package throughput

import (
	"os"
	"testing"

	"github.com/muster-project/muster/test/harness"
)

// TestMain removes the embedded etcd's data when the tests are done.
func TestMain(m *testing.M) { os.Exit(harness.RunTests(m)) }
