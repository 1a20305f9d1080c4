//go:build linux

package childproc

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A child started with Start dies with the process that started it, even
// when that process is killed: here a copy of this test binary starts
// `sleep`, says its pid, and is killed with SIGKILL.
func TestChildDiesWithItsParent(t *testing.T) {
	if os.Getenv("CHILDPROC_PARENT") == "1" {
		child := exec.Command("sleep", "300")
		if err := Start(child); err != nil {
			os.Exit(2)
		}
		os.Stdout.WriteString(strconv.Itoa(child.Process.Pid) + "\n")
		select {} // until killed
	}
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep binary")
	}
	parent := exec.Command(os.Args[0], "-test.run=^TestChildDiesWithItsParent$")
	parent.Env = append(os.Environ(), "CHILDPROC_PARENT=1")
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the parent said no child pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("the parent said %q, want the child's pid", line)
	}
	if !alive(pid) {
		t.Fatalf("child %d is not running while its parent is", pid)
	}
	_ = parent.Process.Kill()
	_ = parent.Wait()
	// The kernel signals the child as the parent exits; it is gone (or a
	// zombie its new parent has not reaped) soon after.
	deadline := time.Now().Add(30 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			_ = syscallKill(pid)
			t.Fatalf("child %d still runs 30 s after its parent was killed", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// alive says whether pid runs (exists and is no zombie).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && len(s) > i+2 {
		return s[i+2] != 'Z'
	}
	return true
}

func syscallKill(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}
