package daemon

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/config"
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

// newPage makes the status page: protected by the credentials the
// daemon read (d.access), approving and rejecting on the page when they
// are set, with the per-user lookup.
func (d *daemon) newPage() *statuspage.Page {
	return statuspage.New(statuspage.Options{Status: d.status, Decide: d.decide, History: d.history, Access: d.access.Load,
		Log: d.log.Named("statuspage")})
}

// readAccess reads the page's credentials from cfg (status.token, or
// status.username and password: a secret command runs here, never at a
// request) and the names an open page answers; an error says which
// secret and why.
func (d *daemon) readAccess(cfg *config.Config) (*statuspage.Access, error) {
	c, err := cfg.Status.Credentials()
	if err != nil {
		return nil, err
	}
	return &statuspage.Access{Credentials: statuspage.Credentials{Token: c.Token, User: c.User, Password: c.Password},
		Listen: d.listen, AllowedHosts: cfg.Status.AllowedHosts}, nil
}

// history is the per-user lookup's: the history entries of user.
func (d *daemon) history(user string) ([]store.Entry, error) {
	return d.control.History(user, "", "")
}

// warning says that the page listens beyond this machine without
// authentication; empty when it does not.
func (d *daemon) warning() string {
	a := d.access.Load()
	if d.listen == "" || a.Token != "" || a.User != "" || loopback(d.listen) {
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

// decide takes a decision of the status page, as a run of the daemon's
// (never beside a scheduled one), counts it and logs it: who, what, the
// outcome.
// Review plans afresh and shows what approving applies (nothing is
// sent); approve applies it as orgsync approve does, only while it is
// what the approver reviewed; reject discards the approval.
func (d *daemon) decide(ctx context.Context, dec statuspage.Decision) (out statuspage.Outcome, err error) {
	switch dec.Action {
	case statuspage.ActionReject:
		out, err = d.reject(dec)
	case statuspage.ActionReview:
		out, err = d.approve(ctx, dec, true)
	default:
		out, err = d.approve(ctx, dec, false)
	}
	result := store.RunSuccess
	if err != nil {
		out.State, out.Pending = d.approvalState(dec.ID)
		result = store.RunFailure
	}
	d.metrics.decisions.WithLabelValues(dec.Action, result).Inc()
	d.logDecision(dec, out, err)
	return out, err
}

// reject discards approval dec.ID, and says what becomes of its changes.
func (d *daemon) reject(dec statuspage.Decision) (statuspage.Outcome, error) {
	var a *store.Approval
	err := d.exclusive(func() ([]*run.Result, error) {
		var err error
		a, err = d.control.Reject(dec.ID, dec.Who)
		return nil, err
	})
	if err != nil {
		return statuspage.Outcome{}, err
	}
	var b strings.Builder
	view.Rejected(&b, a)
	return statuspage.Outcome{Text: b.String()}, nil
}

// approve reviews (review set: nothing is applied) or applies approval
// dec.ID against a fresh plan. An apply goes on only while what it sends
// is what the review showed (dec.Reviewed); else it returns a fresh
// review and statuspage.ErrReviewChanged.
func (d *daemon) approve(ctx context.Context, dec statuspage.Decision, review bool) (statuspage.Outcome, error) {
	var text bytes.Buffer
	v := &reviewing{Approving: view.Approving{W: &text}}
	o := changecontrol.ApproveOptions{By: dec.Who, DryRun: review,
		Confirm: func() (bool, error) { return v.digest() == dec.Reviewed, nil }}
	var phase string
	err := d.exclusive(func() ([]*run.Result, error) {
		job := d.begin(d.job.Load())
		res, err := d.control.Approve(ctx, job, dec.ID, v, o)
		if !review {
			view.Result(&text, res, job.MultiOrg())
		}
		if res == nil {
			return nil, err
		}
		phase = res.Phase
		return []*run.Result{res}, err
	})
	out := statuspage.Outcome{Text: text.String(), Applies: v.applies, Digest: v.digest(), Phase: phase}
	if errors.Is(err, changecontrol.ErrNotConfirmed) {
		return out, statuspage.ErrReviewChanged
	}
	if err == nil && !review {
		out.State, out.Pending = d.approvalState(dec.ID)
	}
	return out, err
}

// reviewing shows an approval being decided on the page, and keeps what
// releasing it applies, to tell whether it is still what was reviewed.
type reviewing struct {
	view.Approving
	release bytes.Buffer
	applies bool
}

// Release writes what releasing the approval applies, and keeps it.
func (v *reviewing) Release(g *run.Gated) bool {
	v.applies = view.Approving{W: io.MultiWriter(v.W, &v.release)}.Release(g)
	return v.applies
}

// NotApplied writes nothing: the review page says that nothing was
// sent.
func (v *reviewing) NotApplied() {}

// digest identifies what releasing the approval applies.
func (v *reviewing) digest() string {
	sum := sha256.Sum256(v.release.Bytes())
	return hex.EncodeToString(sum[:])
}

// approvalState says, after a decision, what state approval id is in,
// and whether it is still pending.
func (d *daemon) approvalState(id string) (string, bool) {
	dir := d.control.StateDir()
	if dir == nil {
		return "", false
	}
	a, err := dir.Approval(id)
	if err != nil {
		return "", false
	}
	if a.Status == store.Pending {
		return fmt.Sprintf("still pending: its %s wait for a decision; nothing of them is sent until then",
			plural.Of(len(a.Changes), "change", "changes")), true
	}
	return fmt.Sprintf("%s, by %s at %s", a.Status, a.Decided.String(), a.Closed.In(d.location()).Format(time.RFC3339)), false
}

// logDecision logs a decision of the page: who, what, the outcome.
func (d *daemon) logDecision(dec statuspage.Decision, out statuspage.Outcome, err error) {
	fields := []zap.Field{zap.String("approval", dec.ID), zap.String("action", dec.Action), zap.String("by", dec.Who.String())}
	switch {
	case errors.Is(err, statuspage.ErrReviewChanged):
		d.log.Warn("status page: the approve was refused: what it applies changed since the review; nothing was applied", fields...)
	case err != nil:
		d.log.Error("status page: the decision failed", append(fields, zap.String("state", out.State), zap.Error(err))...)
	case dec.Action == statuspage.ActionReview:
		d.log.Info("status page: approval reviewed, nothing applied", append(fields, zap.Bool("applies", out.Applies))...)
	default:
		d.log.Info("status page: decision taken", append(fields, zap.String("state", out.State))...)
	}
}
