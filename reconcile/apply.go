package reconcile

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Sender sends action requests and invite revokes to the service.
type Sender interface {
	// Send sends one request, with ?testOnly=true when testOnly is set,
	// and returns the entries that failed. An error means the request
	// as a whole failed or may not have been applied; one that wraps
	// ErrUnanswered, that it was sent and no answer says what the service
	// did with it.
	Send(ctx context.Context, req Request, testOnly bool) ([]EntryFailure, error)
	// RevokeInvite revokes a pending invite; an error wrapping
	// ErrNoPendingInvite says the service has none for email.
	RevokeInvite(ctx context.Context, email string) error
}

// ErrUnanswered is what a Sender's error wraps when the request was sent
// and no answer says what the service did with it (the connection
// dropped or timed out before the answer, the answer was a 5xx, the run
// stopped while it waited): the service may have applied it, and only a
// later read of the organization tells.
var ErrUnanswered = errors.New("sent, no answer: the service may have applied it")

// ErrNoPendingInvite is what a Sender's RevokeInvite wraps when the
// service has no pending invite for the email (the specification defines
// revoke on pending invites).
var ErrNoPendingInvite = errors.New("no pending invite")

// EntryFailure is one failed entry of a request, as a Sender reports it.
type EntryFailure struct {
	Index   int    // the entry's position in the request
	Step    int    // the failing step's position, -1 when unknown
	Code    string // the service's errorCode
	Message string
}

// Failure is one failed entry or invite revoke of a run.
type Failure struct {
	Request int `json:"request"` // 1-based request number, 0 for invite revokes
	// Invite is the invite operation (revoke-invite) that failed.
	Invite  Kind     `json:"invite,omitempty"`
	Target  string   `json:"target"` // the user's key or the group's name
	Step    StepKind `json:"step"`   // the failing step, "" when unknown
	Code    string   `json:"code"`
	Message string   `json:"message"`
	// Unknown is set when the request was sent and no answer said what
	// the service did with it (ErrUnanswered): it may have applied it.
	Unknown bool `json:"unknown,omitempty"`
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
	// validates them and changes nothing. Invite revokes, which have no
	// test mode, are not sent.
	TestOnly bool
	Limits   Limits
	// Requests are the plan's batches when the caller has packed them
	// already (plan.Batches(Limits)); nil packs them in Apply.
	Requests []Request
	// Events hears each request and invite revoke as Apply sends it (or,
	// in a dry run, would); nil: nobody.
	Events func(Event)
}

// Event is one request or invite revoke of Apply, as it goes: sent, or
// in a dry run (an invite revoke: in a test-only run too) not sent.
type Event struct {
	// Request is the request's number (1-based) of Requests, with its
	// Entries; 0 for an invite revoke.
	Request, Requests int
	Entries           []Entry
	// Revoke is the change whose invite is revoked.
	Revoke *Change
	// Sent is set when the request or revoke is sent.
	Sent bool
}

// Result is what Apply did.
type Result struct {
	Requests int       `json:"requests"` // requests sent (in a dry run: that would be sent)
	Entries  int       `json:"entries"`
	Invites  int       `json:"invites"` // invite revokes
	Failures []Failure `json:"failures,omitempty"`
	// Unverified counts, in a test-only run, the entries that failed only
	// because the user or group an earlier request creates does not exist
	// (nothing is created in test mode): the error says the user is not a
	// member and the entry waits on a user's creation, or it says a group
	// is missing and the entry waits on a group's creation.
	Unverified int `json:"unverified,omitempty"`
	// Unsent are the targets (user keys, group names) of the entries and
	// invite revokes a stopped run did not send: not applied; the next
	// run plans them again. (A request sent without an answer before the
	// run stopped is a Failure, Unknown.)
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
	b.WriteString(fmt.Sprintf("apply: %d entries or invite revokes failed", len(e.Failures)))
	for i, f := range e.Failures {
		if i == 5 {
			b.WriteString(fmt.Sprintf("; and %d more", len(e.Failures)-5))
			break
		}
		b.WriteString("; " + f.String())
	}
	return b.String()
}

// Apply sends the plan's batches in order and then its invite revokes,
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
	if o.Events == nil {
		o.Events = func(Event) {}
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
		o.Events(Event{Request: i + 1, Requests: len(reqs), Entries: req.Entries, Sent: !o.DryRun})
		if o.DryRun {
			continue
		}
		fs := sendOne(ctx, s, i+1, req, o.TestOnly)
		if len(fs) > 0 && fs[0].interrupted {
			stop, unsentFrom = ctx.Err(), i
			if fs[0].Unknown { // sent before the stop, without an answer
				for _, f := range fs {
					res.Failures = append(res.Failures, f.Failure)
				}
				unsentFrom = i + 1
			}
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
		stop = applyRevokes(ctx, plan, s, o, res)
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
// request (Unknown: it was sent, and the service may have applied it).
type entryFailure struct {
	Failure
	unverifiable bool
	interrupted  bool
}

// unsent lists the targets of reqs' entries and of the plan's invite
// revokes: what a run stopped before reqs did not send.
func unsent(reqs []Request, plan *Plan) []string {
	var out []string
	for _, req := range reqs {
		for _, e := range req.Entries {
			out = append(out, e.Target())
		}
	}
	for _, c := range plan.Changes {
		if kinds[c.Kind].send == asRevoke {
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
		unknown, code := errors.Is(err, ErrUnanswered), "request.failed"
		if unknown {
			code = "request.unanswered"
		}
		for _, e := range req.Entries {
			out = append(out, entryFailure{Failure: Failure{Request: n, Target: e.Target(), Code: code, Message: err.Error(), Unknown: unknown},
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

// applyRevokes revokes invites; a test-only run sends none, a stopped run
// lists the rest in res.Unsent and returns why it stopped.
func applyRevokes(ctx context.Context, plan *Plan, s Sender, o ApplyOptions, res *Result) (stop error) {
	for _, c := range plan.Changes {
		if kinds[c.Kind].send != asRevoke {
			continue
		}
		if err := ctx.Err(); err != nil {
			res.Unsent = append(res.Unsent, c.Key())
			stop = err
			continue
		}
		res.Invites++
		sent := !o.DryRun && !o.TestOnly
		o.Events(Event{Revoke: &c, Sent: sent})
		if !sent {
			continue
		}
		res.Failures = append(res.Failures, revoke(ctx, s, &c)...)
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
	return []Failure{{Invite: c.Kind, Target: c.User.Email, Code: "invite.failed", Message: err.Error(), Unknown: errors.Is(err, ErrUnanswered)}}
}
