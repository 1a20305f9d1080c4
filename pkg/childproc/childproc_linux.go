//go:build linux

package childproc

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel send the child SIGKILL when the thread that
// started it exits: the Go runtime exits a thread only when a goroutine
// locked to it ends locked, which Start's callers never do.
func dieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
