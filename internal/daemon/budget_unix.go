//go:build unix

package daemon

import "syscall"

// connectionBudget is how many connections the endpoints keep open at
// once: a quarter of the file descriptors the process may open (the runs
// need the rest: the service, the directories, the state and log files),
// between minConns and maxConns.
func connectionBudget() int {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur > 1<<20 {
		return maxConns
	}
	return min(max(int(lim.Cur/4), minConns), maxConns)
}
