// Package childproc starts helper processes that do not outlive the process
// that started them.
package childproc

import "os/exec"

// Start starts cmd so that the kernel kills it when this process dies,
// however it dies (a crash, SIGKILL, SIGQUIT's goroutine dump), where the
// system allows (Linux). `muster simulate` starts armlocal and
// muster-autoscaler, and `make bench-scale` kube-schedulers: orphaned, they
// ran on, polling an API server that was gone, and took CPU from the runs
// after.
func Start(cmd *exec.Cmd) error {
	dieWithParent(cmd)
	return cmd.Start()
}
