package winsvc

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/svc"
	"golang.org/x/sys/windows/svc/eventlog"
	"golang.org/x/sys/windows/svc/mgr"
)

// Run runs daemon as the service until the Service Control Manager stops
// it, and returns the daemon's exit code. A process the Service Control
// Manager did not start gets ErrNotService at once (the dispatcher
// cannot connect to it): the parent-process check of svc.IsWindowsService
// fails under Wine, this one does not.
func Run(daemon Daemon) (int, error) {
	events, err := eventlog.Open(Name)
	if err != nil {
		return 1, fmt.Errorf("opening the event log source %s: %w", Name, err)
	}
	defer events.Close()
	h := &handler{daemon: daemon, events: events}
	err = svc.Run(Name, h)
	if errors.Is(err, windows.ERROR_FAILED_SERVICE_CONTROLLER_CONNECT) {
		return 0, ErrNotService
	}
	if err != nil {
		return 1, err
	}
	return h.code, nil
}

// handler answers the Service Control Manager.
type handler struct {
	daemon Daemon
	events *eventlog.Log
	code   int
}

// accepted are the controls the running service answers.
const accepted = svc.AcceptStop | svc.AcceptShutdown | svc.AcceptParamChange

// Execute runs the daemon, answers its controls, and stops it at stop or
// shutdown: the daemon's context ends, and the stop is reported pending,
// its checkpoint advancing every second, until the daemon returns or
// StopTimeout passes.
func (h *handler) Execute(_ []string, req <-chan svc.ChangeRequest, status chan<- svc.Status) (bool, uint32) {
	status <- svc.Status{State: svc.StartPending, WaitHint: 10_000}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reload := make(chan struct{}, 1)
	done := make(chan int, 1)
	go func() { done <- h.daemon(ctx, reload, NewEventCore(h.events)) }()
	status <- svc.Status{State: svc.Running, Accepts: accepted}
	_ = h.events.Info(EventStarted, fmt.Sprintf("The orgsync service started (process %d).", os.Getpid()))
	for {
		select {
		case h.code = <-done:
			// The daemon could not start, or stopped by itself: a failure,
			// which the recovery actions answer by restarting the service.
			_ = h.events.Error(EventStopped, fmt.Sprintf("The orgsync service stopped by itself (exit code %d): see its log.", h.code))
			return true, uint32(max(h.code, 1))
		case c := <-req:
			switch c.Cmd {
			case svc.Interrogate:
				status <- c.CurrentStatus
			case svc.ParamChange:
				_ = h.events.Info(EventReload, "Reload asked for: the configuration is read again (between runs).")
				select {
				case reload <- struct{}{}:
				default: // one is already waiting
				}
				status <- svc.Status{State: svc.Running, Accepts: accepted}
			case svc.Stop, svc.Shutdown:
				h.code = stop(cancel, done, status)
				_ = h.events.Info(EventStopped, "The orgsync service stopped.")
				return false, 0
			}
		}
	}
}

// stop ends the daemon's context and reports the stop pending until the
// daemon returns (its exit code) or StopTimeout passes.
func stop(cancel context.CancelFunc, done <-chan int, status chan<- svc.Status) int {
	cancel()
	deadline := time.After(StopTimeout)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for checkpoint := uint32(1); ; checkpoint++ {
		status <- svc.Status{State: svc.StopPending, CheckPoint: checkpoint, WaitHint: 3_000}
		select {
		case code := <-done:
			return code
		case <-deadline:
			return 1
		case <-tick.C:
		}
	}
}

// Install registers the service to run o.Exe with o.Args (orgsync daemon
// --config FILE) as o.Account (the virtual account NT SERVICE\orgsync
// when empty; a group-managed one's name ends in $), starting
// automatically (delayed) once started, with recovery actions, the event
// log source, o.Exe's folder on the system PATH and o.Folders' rights
// for the account. A service already registered (by the MSI) keeps its
// registration and gets the rest. What the system does not support (Wine
// has no recovery actions) is returned as a warning.
func Install(o Options) (warnings []string, err error) {
	m, err := connect()
	if err != nil {
		return nil, err
	}
	defer m.Disconnect()
	account := cmp.Or(o.Account, VirtualAccount)
	s, err := m.OpenService(Name)
	if err != nil {
		s, err = m.CreateService(Name, o.Exe, mgr.Config{DisplayName: DisplayName, Description: Description,
			StartType: mgr.StartAutomatic, ServiceStartName: account}, o.Args...)
		if err != nil {
			return nil, fmt.Errorf("registering the service %s: %w", Name, err)
		}
	}
	defer s.Close()
	for _, step := range []struct {
		what string
		do   func(*mgr.Service) error
	}{{"delayed automatic start", delayStart}, {"recovery actions (restart on failure)", setRecovery}} {
		err := step.do(s)
		switch {
		case errors.Is(err, windows.ERROR_INVALID_LEVEL):
			warnings = append(warnings, "this system does not support a service's "+step.what+": not set")
		case err != nil:
			return warnings, fmt.Errorf("setting the service's %s: %w", step.what, err)
		}
	}
	if err := eventlog.InstallAsEventCreate(Name, eventlog.Error|eventlog.Warning|eventlog.Info); err != nil && !alreadyThere(err) {
		return warnings, fmt.Errorf("registering the event log source %s: %w", Name, err)
	}
	if err := grant(account, o.Folders); err != nil {
		warnings = append(warnings, err.Error())
	}
	return warnings, addToPath(filepath.Dir(o.Exe))
}

// grant gives account read access to the configuration's folder and
// write access to the state and log folders (created when missing), with
// icacls, inherited by what they hold.
func grant(account string, f Folders) error {
	for _, g := range []struct{ dir, rights string }{{f.Config, "RX"}, {f.State, "M"}, {f.Logs, "M"}} {
		if g.dir == "" {
			continue
		}
		if err := os.MkdirAll(g.dir, 0o700); err != nil {
			return fmt.Errorf("making %s: %w", g.dir, err)
		}
		out, err := exec.Command("icacls", g.dir, "/grant", account+":(OI)(CI)"+g.rights).CombinedOutput()
		if err != nil {
			return fmt.Errorf("giving %s access to %s (icacls): %v: %s", account, g.dir, err, strings.TrimSpace(string(out)))
		}
	}
	return nil
}

// delayStart makes the automatic start delayed (after the services
// Windows needs first, the network among them).
func delayStart(s *mgr.Service) error {
	info := windows.SERVICE_DELAYED_AUTO_START_INFO{IsDelayedAutoStartUp: 1}
	return windows.ChangeServiceConfig2(s.Handle, windows.SERVICE_CONFIG_DELAYED_AUTO_START_INFO, (*byte)(unsafe.Pointer(&info)))
}

// setRecovery sets the recovery actions: restart after 10 s, 30 s and 60 s,
// the count reset after a day without failure; an exit with an error (a
// configuration that does not load) counts as a failure too.
func setRecovery(s *mgr.Service) error {
	actions := []mgr.RecoveryAction{
		{Type: mgr.ServiceRestart, Delay: 10 * time.Second},
		{Type: mgr.ServiceRestart, Delay: 30 * time.Second},
		{Type: mgr.ServiceRestart, Delay: 60 * time.Second},
	}
	if err := s.SetRecoveryActions(actions, uint32((24 * time.Hour).Seconds())); err != nil {
		return err
	}
	return s.SetRecoveryActionsOnNonCrashFailures(true)
}

// alreadyThere reports whether err says the event source exists.
func alreadyThere(err error) bool {
	return errors.Is(err, windows.ERROR_ALREADY_EXISTS) || err.Error() == Name+" registry key already exists"
}

// Uninstall stops and removes the service, its event log source and
// exe's folder on the system PATH; the configuration and the state stay.
func Uninstall(exe string) error {
	m, err := connect()
	if err != nil {
		return err
	}
	defer m.Disconnect()
	if s, err := m.OpenService(Name); err == nil {
		_ = stopService(s)
		err = s.Delete()
		s.Close()
		if err != nil {
			return fmt.Errorf("removing the service %s: %w", Name, err)
		}
	}
	_ = eventlog.Remove(Name)
	return removeFromPath(filepath.Dir(exe))
}

// Start starts the service.
func Start() error {
	return withService(func(s *mgr.Service) error { return s.Start() })
}

// Stop stops the service and waits until it has stopped.
func Stop() error { return withService(stopService) }

// Reload asks the running service to read its configuration again.
func Reload() error {
	return withService(func(s *mgr.Service) error {
		_, err := s.Control(svc.ParamChange)
		return err
	})
}

// connect connects to the Service Control Manager.
func connect() (*mgr.Mgr, error) {
	m, err := mgr.Connect()
	if err != nil {
		return nil, fmt.Errorf("connecting to the Service Control Manager (run as an administrator): %w", err)
	}
	return m, nil
}

// withService runs fn on the installed service.
func withService(fn func(*mgr.Service) error) error {
	m, err := connect()
	if err != nil {
		return err
	}
	defer m.Disconnect()
	s, err := m.OpenService(Name)
	if err != nil {
		return fmt.Errorf("the service %s is not installed (orgsync service install, or the MSI): %w", Name, err)
	}
	defer s.Close()
	return fn(s)
}

// stopService stops s, if it runs, and waits until it has stopped.
func stopService(s *mgr.Service) error {
	st, err := s.Query()
	if err != nil {
		return err
	}
	if st.State == svc.Stopped {
		return nil
	}
	if st.State != svc.StopPending {
		if _, err := s.Control(svc.Stop); err != nil {
			return fmt.Errorf("stopping the service: %w", err)
		}
	}
	deadline := time.Now().Add(StopTimeout + 5*time.Second)
	for time.Now().Before(deadline) {
		if st, err = s.Query(); err != nil || st.State == svc.Stopped {
			return err
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("the service did not stop within %s", StopTimeout+5*time.Second)
}
