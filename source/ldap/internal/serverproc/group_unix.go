//go:build unix

package serverproc

import (
	"os/exec"
	"syscall"
)

// inGroup makes cmd start in a process group of its own, which signal
// reaches whole.
func inGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// terminate asks the process group of p to end (SIGTERM).
func (p *Process) terminate() { _ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM) }

// kill ends the process group of p at once (SIGKILL).
func (p *Process) kill() { _ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL) }
