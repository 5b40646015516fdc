// Package winsvc runs orgsync daemon as a Windows service: under the
// Service Control Manager (golang.org/x/sys/windows/svc), answering start,
// stop and shutdown in time, stop as the same graceful stop SIGTERM gives
// on Linux, and the parameter-change control (sc control orgsync
// paramchange, or orgsync service reload) as the reload SIGHUP gives. It
// installs and removes the service (recovery actions: restart on
// failure), its event log source and its folder on the system PATH, and
// writes the service's start, stop, each run's outcome and each approval
// decision to the Windows Application log under the source orgsync.
// Elsewhere than Windows its functions return ErrNotWindows.
package winsvc

import (
	"context"
	"errors"
	"time"

	"go.uber.org/zap/zapcore"
)

// The service as the Service Control Manager and the event log know it.
const (
	Name        = "orgsync"
	DisplayName = "orgsync directory sync"
	Description = "Keeps the organization's users in the User Management Service in step with the company directory (orgsync daemon)."
)

// VirtualAccount is the account the service runs as unless told
// otherwise: a virtual account of its own.
const VirtualAccount = `NT SERVICE\` + Name

// Options are what Install registers.
type Options struct {
	Exe     string   // the binary
	Args    []string // its arguments: daemon --config FILE
	Account string   // "": VirtualAccount
	Folders Folders  // the account's folders
}

// Folders are the configuration's folder, which the service's account
// reads, and the state and log folders, which it writes.
type Folders struct{ Config, State, Logs string }

// StopTimeout bounds a stop: a run in progress stops between requests,
// and the status page's server gets its own 10 s, well inside it.
const StopTimeout = 30 * time.Second

// ErrNotWindows is the error of this package's functions elsewhere than
// Windows.
var ErrNotWindows = errors.New("Windows services exist on Windows only: on Linux run orgsync daemon under systemd (see the deployment guide)")

// ErrNotService is the error of Run in a process the Service Control
// Manager did not start (a console's).
var ErrNotService = errors.New("not started by the Service Control Manager")

// Daemon is what the service runs: orgsync daemon, until ctx ends,
// reading the configuration again at each value of reload; its log lines
// also go to events, which writes the selected ones to the event log. It
// returns the daemon's exit code.
type Daemon func(ctx context.Context, reload <-chan struct{}, events zapcore.Core) int
