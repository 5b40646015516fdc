package serverproc

import "os/exec"

// inGroup does nothing: Windows has no process groups to signal, and the
// servers started here (slapd, 389 Directory Server) do not run on it.
func inGroup(*exec.Cmd) {}

// terminate ends the process: Windows has no SIGTERM.
func (p *Process) terminate() { _ = p.cmd.Process.Kill() }

// kill ends the process at once.
func (p *Process) kill() { _ = p.cmd.Process.Kill() }
