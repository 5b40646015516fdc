//go:build !windows

package winsvc

// Run returns ErrNotWindows.
func Run(Daemon) (int, error) { return 1, ErrNotWindows }

// Install returns ErrNotWindows.
func Install(Options) ([]string, error) { return nil, ErrNotWindows }

// Uninstall returns ErrNotWindows.
func Uninstall(string) error { return ErrNotWindows }

// Start returns ErrNotWindows.
func Start() error { return ErrNotWindows }

// Stop returns ErrNotWindows.
func Stop() error { return ErrNotWindows }

// Reload returns ErrNotWindows.
func Reload() error { return ErrNotWindows }
