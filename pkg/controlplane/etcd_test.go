// Tests of the embedded etcd: reaping the data directories of exited processes.

package controlplane

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The etcd directories of exited processes go; those of live processes,
// and anything not named as ours, stay.
func TestReapEtcdDirs(t *testing.T) {
	tmp := t.TempDir()
	exited := exec.Command("true")
	if err := exited.Run(); err != nil {
		t.Skipf("no `true` to start: %v", err)
	}
	dead := exited.Process.Pid
	dirs := map[string]bool{ // name: should stay
		fmt.Sprintf("%s%d-123", etcdDirPrefix, os.Getpid()): true,
		fmt.Sprintf("%s%d-456", etcdDirPrefix, dead):        false,
		"muster-etcd789":                    true, // no owner in the name
		fmt.Sprintf("%sx-1", etcdDirPrefix): true,
		"unrelated":                         true,
	}
	for name := range dirs {
		if err := os.MkdirAll(filepath.Join(tmp, name, "member"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	reapEtcdDirs(tmp)
	for name, stay := range dirs {
		_, err := os.Stat(filepath.Join(tmp, name))
		if stayed := err == nil; stayed != stay {
			t.Errorf("%s: stayed %v, want %v", name, stayed, stay)
		}
	}
}
