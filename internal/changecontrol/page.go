package changecontrol

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/robfig/cron/v3"
	"go.uber.org/zap"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/daemon/statuspage"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/internal/util/plural"
)

// resolvedShown bound the approvals the page lists as decided lately.
const (
	resolvedSince = 7 * 24 * time.Hour
	resolvedMax   = 20
)

// pageSetup is how the daemon's status page is served.
type pageSetup struct {
	listen string         // the address it listens on
	zone   *time.Location // schedule.timezone's, for the page's times
	// exclusive runs a decision on the page as a run of the daemon's own
	// (never beside another); nil until the daemon runs.
	exclusive func(fn func() ([]*run.Result, error)) error
}

// scheduleZone is the time zone of the schedule: schedule.timezone, a
// CRON_TZ= prefix, or local time.
func scheduleZone(s config.Schedule) *time.Location {
	if sched, err := s.Parse(); err == nil {
		if spec, ok := sched.(*cron.SpecSchedule); ok {
			return spec.Location
		}
	}
	return time.Local
}

// Serve says where the daemon serves the page and how it runs a decision
// made on it as a run of its own (daemon.Options.Exclusive), and logs a
// warning when the page is open beyond this machine without
// authentication.
func (d *Daemon) Serve(listen string, exclusive func(fn func() ([]*run.Result, error)) error) {
	d.mu.Lock()
	d.page.listen, d.page.exclusive = listen, exclusive
	d.mu.Unlock()
	if w := d.warning(); w != "" {
		d.log.Warn(w)
	}
}

// warning says that the page listens beyond this machine without
// authentication; empty when it does not.
func (d *Daemon) warning() string {
	d.mu.Lock()
	listen := d.page.listen
	d.mu.Unlock()
	a := d.auth.Load()
	if listen == "" || a.Token.IsSet() || a.Username != "" || loopback(listen) {
		return ""
	}
	return fmt.Sprintf("the status page listens on %s, beyond this machine, without authentication: whoever reaches it sees the runs, "+
		"the errors and the held changes; set status.token (or status.username and status.password), or schedule.listen to 127.0.0.1:PORT", listen)
}

// loopback reports whether a listen address is this machine's only.
func loopback(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Status is what the status page shows now.
func (d *Daemon) Status() statuspage.Status {
	d.mu.Lock()
	s := statuspage.Status{Now: time.Now().UTC(), Runs: append([]store.Run(nil), d.runs...), ConfigProblem: d.problem, Location: d.page.zone}
	if d.next != nil {
		s.NextRun = d.next().UTC()
	}
	d.mu.Unlock()
	s.Pending, s.Warning = d.pendingApprovals(), d.warning()
	if dir := d.StateDir(); dir == nil {
		s.StateNote = "state.dir is not set: the runs shown are this process's only; no history, run records or approvals are kept"
	} else if resolved, err := dir.Resolved(time.Now().Add(-resolvedSince)); err == nil {
		s.Resolved = resolved[:min(len(resolved), resolvedMax)]
	}
	return s
}

// Handler serves the status page, protected by status.token or
// status.username and password when they are set (read at each request;
// one that cannot be read is logged), approving and rejecting on the page
// when they are.
func (d *Daemon) Handler() http.Handler {
	load := func() (string, string, string, error) { return d.auth.Load().Secrets() }
	onError := func(err error) {
		d.log.Error("the status page's secret cannot be read: the page answers 500 until it can", zap.Error(err))
	}
	return statuspage.Protect(statuspage.Handler(d.Status, d.decide), load, onError)
}

// errNotRunning is a decision made before the daemon runs.
var errNotRunning = errors.New("the daemon is not running its schedule yet: try again in a moment")

// decide approves or rejects approval id on the status page for who:
// approving plans afresh and applies as orgsync approve does, as a run of
// the daemon's (never beside a scheduled one).
func (d *Daemon) decide(ctx context.Context, id, action string, who store.Decider) (string, error) {
	if action == statuspage.ActionReject {
		a, err := d.Reject(id, who)
		if err != nil {
			return "", err
		}
		d.countPending()
		return fmt.Sprintf("approval %s rejected by %s: its %s discarded", a.ID, who.String(), plural.Of(len(a.Changes), "change is", "changes are")), nil
	}
	d.mu.Lock()
	exclusive, job := d.page.exclusive, d.job
	d.mu.Unlock()
	if exclusive == nil {
		return "", errNotRunning
	}
	var out bytes.Buffer
	err := exclusive(func() ([]*run.Result, error) {
		d.BeginRun(job.Config())
		res, err := d.Approve(ctx, job, id, &out, ApproveOptions{By: who})
		d.WriteResult(&out, res, job.Config().MultiOrg())
		if res == nil {
			return nil, err
		}
		return []*run.Result{res}, err
	})
	return out.String(), err
}
