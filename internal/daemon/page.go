package daemon

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/internal/changecontrol"
	"github.com/orgsync/orgsync/internal/daemon/statuspage"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/internal/util/plural"
	"github.com/orgsync/orgsync/internal/view"
)

// resolvedShown bound the approvals the page lists as decided lately.
const (
	resolvedSince = 7 * 24 * time.Hour
	resolvedMax   = 20
)

// status is what the status page shows now.
func (d *daemon) status() statuspage.Status {
	now := time.Now()
	d.mu.Lock()
	s := statuspage.Status{Now: now.UTC(), Runs: append([]store.Run(nil), d.runs...), ConfigProblem: d.problem, Location: d.location()}
	d.mu.Unlock()
	s.NextRun = d.nextRun(now).UTC()
	s.Pending, s.Warning = d.control.PendingApprovals(), d.warning()
	if dir := d.control.StateDir(); dir == nil {
		s.StateNote = "state.dir is not set: the runs shown are this process's only; no history, run records or approvals are kept"
	} else if resolved, err := dir.Resolved(now.Add(-resolvedSince)); err == nil {
		s.Resolved = resolved[:min(len(resolved), resolvedMax)]
	}
	return s
}

// page serves the status page, protected by status.token or
// status.username and password when they are set (read at each request;
// one that cannot be read is logged), approving and rejecting on the page
// when they are.
func (d *daemon) page() http.Handler {
	load := func() (string, string, string, error) { return d.auth.Load().Secrets() }
	onError := func(err error) {
		d.log.Error("the status page's secret cannot be read: the page answers 500 until it can", zap.Error(err))
	}
	return statuspage.Protect(statuspage.Handler(d.status, d.decide), load, onError)
}

// warning says that the page listens beyond this machine without
// authentication; empty when it does not.
func (d *daemon) warning() string {
	a := d.auth.Load()
	if d.listen == "" || a.Token.IsSet() || a.Username != "" || loopback(d.listen) {
		return ""
	}
	return fmt.Sprintf("the status page listens on %s, beyond this machine, without authentication: whoever reaches it sees the runs, "+
		"the errors and the held changes; set status.token (or status.username and status.password), or schedule.listen to 127.0.0.1:PORT", d.listen)
}

// warnOpen logs the warning, when there is one.
func (d *daemon) warnOpen() {
	if w := d.warning(); w != "" {
		d.log.Warn(w)
	}
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

// decide approves or rejects approval id on the status page for who:
// approving plans afresh and applies as orgsync approve does, as a run of
// the daemon's (never beside a scheduled one).
func (d *daemon) decide(ctx context.Context, id, action string, who store.Decider) (string, error) {
	if action == statuspage.ActionReject {
		a, err := d.control.Reject(id, who)
		if err != nil {
			return "", err
		}
		d.countPending()
		return fmt.Sprintf("approval %s rejected by %s: its %s discarded", a.ID, who.String(), plural.Of(len(a.Changes), "change is", "changes are")), nil
	}
	var out bytes.Buffer
	err := d.exclusive(func() ([]*run.Result, error) {
		job := d.begin(d.job.Load())
		res, err := d.control.Approve(ctx, job, id, view.Approving{W: &out}, changecontrol.ApproveOptions{By: who})
		view.Result(&out, res, job.Config().MultiOrg())
		if res == nil {
			return nil, err
		}
		return []*run.Result{res}, err
	})
	return out.String(), err
}
