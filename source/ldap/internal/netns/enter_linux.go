package netns

import (
	"fmt"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// enter moves the current thread into a new network namespace and brings
// its loopback interface up.
func enter() error {
	if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
		return fmt.Errorf("making a network namespace (unshare; it needs root): %w", err)
	}
	if err := loopbackUp(); err != nil {
		return fmt.Errorf("bringing up the loopback interface of a network namespace: %w", err)
	}
	return nil
}

// DiesWithNamespace makes cmd, started in a namespace (Do), be killed
// when the namespace's thread ends, even if the program dies without
// stopping it (Pdeathsig).
func DiesWithNamespace(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// loopbackUp brings up lo of the current thread's network namespace.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}
