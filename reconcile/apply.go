package reconcile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Sender sends action requests and invite operations to the service.
type Sender interface {
	// Send sends one request, with ?testOnly=true when testOnly is set,
	// and returns the entries that failed. An error means the request
	// as a whole failed or may not have been applied.
	Send(ctx context.Context, req Request, testOnly bool) ([]EntryFailure, error)
	// ResendInvite and RevokeInvite act on a pending invite; an error
	// wrapping ErrNoPendingInvite says the service has none for email.
	ResendInvite(ctx context.Context, email string) error
	RevokeInvite(ctx context.Context, email string) error
}

// ErrNoPendingInvite is what a Sender's invite operations wrap when the
// service has no pending invite for the email (an expired invite may be
// one: the specification defines resend and revoke on pending invites).
var ErrNoPendingInvite = errors.New("no pending invite")

// EntryFailure is one failed entry of a request, as a Sender reports it.
type EntryFailure struct {
	Index   int    // the entry's position in the request
	Step    int    // the failing step's position, -1 when unknown
	Code    string // the service's errorCode
	Message string
}

// Failure is one failed entry or invite operation of a run.
type Failure struct {
	Request int `json:"request"` // 1-based request number, 0 for invite operations
	// Invite is the invite operation (resend-invite, revoke-invite) that
	// failed, or whose new invite (an action entry) failed.
	Invite  Kind     `json:"invite,omitempty"`
	Target  string   `json:"target"` // the user's key or the group's name
	Step    StepKind `json:"step"`   // the failing step, "" when unknown
	Code    string   `json:"code"`
	Message string   `json:"message"`
}

func (f Failure) String() string {
	label := fmt.Sprintf("request %d", f.Request)
	if f.Invite != "" {
		label = string(f.Invite)
	}
	step := ""
	if f.Step != "" {
		step = string(f.Step) + ": "
	}
	return fmt.Sprintf("%s: %s: %s%s (%s)%s", label, f.Target, step, f.Code, f.Message, hint(f.Code))
}

// hint says what to do about a failure that the configuration causes.
func hint(code string) string {
	if code == "error.group.not_found" {
		return ": the organization has no such group or product profile (plan lists the targets that do not exist, with what to do); create it there or fix the mapping rule that names it"
	}
	return ""
}

// ApplyOptions say how Apply runs.
type ApplyOptions struct {
	// DryRun writes what would be sent and sends nothing.
	DryRun bool
	// TestOnly sends the requests with ?testOnly=true: the service
	// validates them and changes nothing. Invite operations, which have no
	// test mode, are not sent.
	TestOnly bool
	Limits   Limits
	// Requests are the plan's batches when the caller has packed them
	// already (plan.Batches(Limits)); nil packs them in Apply.
	Requests []Request
	// Out receives one line per request or invite operation ("would
	// send ..." in a dry run); nil discards them.
	Out io.Writer
}

// Result is what Apply did.
type Result struct {
	Requests int       `json:"requests"` // requests sent (in a dry run: that would be sent)
	Entries  int       `json:"entries"`
	Invites  int       `json:"invites"`
	Failures []Failure `json:"failures,omitempty"`
	// Unverified counts, in a test-only run, the entries that failed only
	// because the user or group an earlier request creates does not exist
	// (nothing is created in test mode): the error says the user is not a
	// member and the entry waits on a user's creation, or it says a group
	// is missing and the entry waits on a group's creation.
	Unverified int `json:"unverified,omitempty"`
	// Unsent are the targets (user keys, group names) of the entries and
	// invite operations a stopped run did not send, or sent without an
	// answer before it stopped: not applied as far as the run knows; the
	// next run plans them again.
	Unsent []string `json:"unsent,omitempty"`
}

// unverifiable reports whether a test-only failure is explained by what
// the entry waits for, which an earlier request would have created.
func unverifiable(e *Entry, code string) bool {
	switch code {
	case "error.user.nonexistent":
		return e.WaitsUser
	case "error.group.not_found", "error.usergroup.not_found":
		return e.WaitsGroup
	}
	return false
}

// ApplyError reports the failed entries of a run; the others were applied.
type ApplyError struct{ Failures []Failure }

func (e *ApplyError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "apply: %d entries or invite operations failed", len(e.Failures))
	for i, f := range e.Failures {
		if i == 5 {
			fmt.Fprintf(&b, "; and %d more", len(e.Failures)-5)
			break
		}
		b.WriteString("; " + f.String())
	}
	return b.String()
}

// Apply sends the plan's batches in order and then its invite operations,
// through one code path for dry, test-only and real runs. Failed entries
// are collected and the remaining requests still run; cancellation stops
// between requests. A plan that fails Check is not applied at all: nothing
// is sent. The error joins the failures (*ApplyError), the plan's
// safety stop (*SafetyError), its missing targets (*MissingGroupsError) and
// the context's error.
func Apply(ctx context.Context, plan *Plan, s Sender, o ApplyOptions) (*Result, error) {
	if err := plan.Check(); err != nil {
		return &Result{}, fmt.Errorf("apply: nothing sent: %w", err)
	}
	if o.Limits == (Limits{}) {
		o.Limits = DefaultLimits()
	}
	out := o.Out
	if out == nil {
		out = io.Discard
	}
	res := &Result{}
	reqs := o.Requests
	if reqs == nil {
		reqs = plan.Batches(o.Limits)
	}
	var stop error
	unsentFrom := len(reqs)
	for i, req := range reqs {
		if stop = ctx.Err(); stop != nil {
			unsentFrom = i
			break
		}
		res.Requests++
		res.Entries += len(req.Entries)
		if o.DryRun {
			writeRequest(out, "would send", i+1, len(reqs), req, true)
			continue
		}
		writeRequest(out, "sending", i+1, len(reqs), req, false)
		fs := sendOne(ctx, s, i+1, req, o.TestOnly)
		if len(fs) > 0 && fs[0].interrupted {
			stop, unsentFrom = ctx.Err(), i
			break
		}
		for _, f := range fs {
			if o.TestOnly && f.unverifiable {
				res.Unverified++
				continue
			}
			res.Failures = append(res.Failures, f.Failure)
		}
	}
	if stop == nil {
		stop = applyInvites(ctx, plan, s, o, out, res)
	} else {
		res.Unsent = unsent(reqs[unsentFrom:], plan)
	}
	var errs []error
	if len(res.Failures) > 0 {
		errs = append(errs, &ApplyError{Failures: res.Failures})
	}
	if plan.Safety != nil {
		errs = append(errs, plan.Safety)
	}
	if len(plan.MissingGroups) > 0 {
		errs = append(errs, &MissingGroupsError{Groups: plan.MissingGroups, Names: plan.Names})
	}
	if stop != nil {
		errs = append(errs, fmt.Errorf("apply: stopped after %d of %d requests: %w", res.Requests, len(reqs), stop))
	}
	return res, errors.Join(errs...)
}

// entryFailure is a Failure, whether what its entry waits for explains
// it in a test-only run, and whether the run's stop interrupted its
// request (no answer: the service may or may not have applied it).
type entryFailure struct {
	Failure
	unverifiable bool
	interrupted  bool
}

// unsent lists the targets of reqs' entries and of the plan's invite
// operations: what a run stopped before reqs did not send.
func unsent(reqs []Request, plan *Plan) []string {
	var out []string
	for _, req := range reqs {
		for _, e := range req.Entries {
			out = append(out, e.Target())
		}
	}
	for _, c := range plan.Changes {
		if send := kinds[c.Kind].send; send == asResend || send == asRevoke {
			out = append(out, c.Key())
		}
	}
	return out
}

// sendOne sends one request and turns its failures into Failures.
func sendOne(ctx context.Context, s Sender, n int, req Request, testOnly bool) []entryFailure {
	failed, err := s.Send(ctx, req, testOnly)
	var out []entryFailure
	if err != nil {
		for _, e := range req.Entries {
			out = append(out, entryFailure{Failure: Failure{Request: n, Target: e.Target(), Code: "request.failed", Message: err.Error()},
				interrupted: ctx.Err() != nil})
		}
		return out
	}
	for _, f := range failed {
		fl := entryFailure{Failure: Failure{Request: n, Code: f.Code, Message: f.Message}}
		if f.Index >= 0 && f.Index < len(req.Entries) {
			e := req.Entries[f.Index]
			fl.Target, fl.unverifiable = e.Target(), unverifiable(&e, f.Code)
			if f.Step >= 0 && f.Step < len(e.Steps) {
				fl.Step = e.Steps[f.Step].Kind
			}
		}
		out = append(out, fl)
	}
	return out
}

// applyInvites resends and revokes invites; a test-only run sends none, a
// stopped run lists the rest in res.Unsent and returns why it stopped.
func applyInvites(ctx context.Context, plan *Plan, s Sender, o ApplyOptions, out io.Writer, res *Result) (stop error) {
	for _, c := range plan.Changes {
		send := kinds[c.Kind].send
		if send != asResend && send != asRevoke {
			continue
		}
		if err := ctx.Err(); err != nil {
			res.Unsent = append(res.Unsent, c.Key())
			stop = err
			continue
		}
		res.Invites++
		if o.DryRun || o.TestOnly {
			then := ""
			if send == asResend {
				then = fmt.Sprintf(", then send addVendorID with groups %v (a new invite if none is pending)", c.Add)
			}
			fmt.Fprintf(out, "would %s %s%s (invite endpoints have no test mode)\n", c.Kind, c.User.Email, then)
			continue
		}
		fmt.Fprintf(out, "%s %s\n", c.Kind, c.User.Email)
		if send == asRevoke {
			res.Failures = append(res.Failures, revoke(ctx, s, &c)...)
		} else {
			res.Failures = append(res.Failures, reinvite(ctx, s, &c, o, out)...)
		}
	}
	return stop
}

// revoke revokes c's invite; none pending (gone meanwhile, or revoked by
// an attempt whose answer was lost) is not a failure.
func revoke(ctx context.Context, s Sender, c *Change) []Failure {
	err := s.RevokeInvite(ctx, c.User.Email)
	if err == nil || errors.Is(err, ErrNoPendingInvite) {
		return nil
	}
	return []Failure{{Invite: c.Kind, Target: c.User.Email, Code: "invite.failed", Message: err.Error()}}
}

// reinvite invites again a desired user whose invite expired: it resends
// the invite and then sends addVendorID with the desired groups, which
// makes a new invite when the service had no pending invite to resend, and
// otherwise puts the groups with the resent one (changing nothing that is
// there already).
func reinvite(ctx context.Context, s Sender, c *Change, o ApplyOptions, out io.Writer) []Failure {
	err := s.ResendInvite(ctx, c.User.Email)
	if err != nil && !errors.Is(err, ErrNoPendingInvite) {
		return []Failure{{Invite: c.Kind, Target: c.User.Email, Code: "invite.failed", Message: err.Error()}}
	}
	if err == nil && len(c.Add) == 0 {
		return nil
	}
	invite := &Plan{InviteGroups: []Change{{Kind: KindInviteGroups, User: c.User, Add: c.Add}}}
	if err != nil {
		fmt.Fprintf(out, "  %s has no pending invite to resend: inviting anew\n", c.User.Email)
	}
	var fails []Failure
	for _, req := range invite.Batches(o.Limits) {
		for _, f := range sendOne(ctx, s, 0, req, false) {
			f.Invite = c.Kind
			fails = append(fails, f.Failure)
		}
	}
	return fails
}

// writeRequest writes one line for the request and, when entries is set,
// one line per entry.
func writeRequest(w io.Writer, verb string, n, total int, req Request, entries bool) {
	fmt.Fprintf(w, "%s request %d/%d (%d %s)\n", verb, n, total, len(req.Entries), plural(len(req.Entries), "entry", "entries"))
	if !entries {
		return
	}
	for i := range req.Entries {
		fmt.Fprintf(w, "  %s\n", req.Entries[i].String())
	}
}

// String renders an entry on one line, e.g.
// `user jane@example.com: create; add [Design Dev]`.
func (e *Entry) String() string {
	var b strings.Builder
	if e.User != nil {
		fmt.Fprintf(&b, "user %s:", e.User.Key())
	} else {
		fmt.Fprintf(&b, "usergroup %s:", e.Group)
	}
	for i, s := range e.Steps {
		if i > 0 {
			b.WriteByte(';')
		}
		fmt.Fprintf(&b, " %s", s.Kind)
		switch {
		case len(s.Groups) > 0:
			fmt.Fprintf(&b, " %v", s.Groups)
		case len(s.Users) > 0:
			keys := make([]string, len(s.Users))
			for j := range s.Users {
				keys[j] = s.Users[j].Key()
			}
			fmt.Fprintf(&b, " %v", keys)
		case s.DeleteAccount:
			b.WriteString(" deleteAccount")
		}
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
