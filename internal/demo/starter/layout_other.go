//go:build !windows

package starter

// Installed is this system's installation layout: the Linux packages'.
func Installed() Layout { return LinuxPackages() }

// sameFolder compares folders.
func sameFolder(a, b string) bool { return a == b }

// newline ends the lines of the files init writes.
const newline = "\n"
