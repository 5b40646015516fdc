package reconcile

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// fakeSender records what it is sent and fails the entries of chosen users.
type fakeSender struct {
	requests []Request
	testOnly []bool
	failUser string
	failAll  int // 1-based request number that fails as a whole
	// unanswered makes that failure one of a request sent without an
	// answer (ErrUnanswered).
	unanswered bool
	cancel     func()
	invites    []string
	// inviteErr, when set, is what the invite revokes answer.
	inviteErr error
}

func (f *fakeSender) Send(_ context.Context, req Request, testOnly bool) ([]EntryFailure, error) {
	f.requests = append(f.requests, req)
	f.testOnly = append(f.testOnly, testOnly)
	if f.cancel != nil {
		f.cancel()
	}
	if len(f.requests) == f.failAll && f.unanswered {
		return nil, fmt.Errorf("%w (connection closed before an answer)", ErrUnanswered)
	}
	if len(f.requests) == f.failAll {
		return nil, errors.New("503 service unavailable")
	}
	var out []EntryFailure
	for i, e := range req.Entries {
		if e.Target() == f.failUser {
			out = append(out, EntryFailure{Index: i, Step: len(e.Steps) - 1, Code: "error.group.not_found", Message: "no such group"})
		}
	}
	return out, nil
}

func (f *fakeSender) RevokeInvite(_ context.Context, email string) error {
	f.invites = append(f.invites, "revoke "+email)
	return f.inviteErr
}

// manyCreates is a plan creating n Federated IDs named by username, which
// cannot be sent group-rooted, so each needs its own entry.
func manyCreates(n int) *Plan {
	p := &Plan{UserGroups: []string{"G"}}
	for i := range n {
		p.Changes = append(p.Changes, Change{Kind: KindCreate, User: User{Type: FederatedID, Username: fmt.Sprintf("u%02d", i), Domain: "x.com", Country: "US"}, Add: []string{"G"}})
	}
	p.Changes = append(p.Changes, Change{Kind: KindRevokeInvite, User: User{Type: VendorID, Email: "stray@x.com"}})
	return p
}

func TestApplyDryRunSendsNothing(t *testing.T) {
	t.Parallel()
	var events []Event
	res, err := Apply(context.Background(), manyCreates(25), nil, ApplyOptions{DryRun: true, Events: func(ev Event) { events = append(events, ev) }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests != 3 || res.Entries != 25 || res.Invites != 1 {
		t.Errorf("result = %+v, want 3 requests, 25 entries, 1 invite", res)
	}
	entries := 0
	for i, ev := range events[:min(3, len(events))] {
		if ev.Sent || ev.Request != i+1 || ev.Requests != 3 || ev.Revoke != nil {
			t.Errorf("event %d = %+v: want request %d of 3, not sent", i, ev, i+1)
		}
		entries += len(ev.Entries)
	}
	if len(events) != 4 || entries != 25 {
		t.Fatalf("dry run told %d events of %d entries: want 3 requests of 25 entries and the revoke", len(events), entries)
	}
	if ev := events[3]; ev.Sent || ev.Revoke == nil || ev.Revoke.User.Email != "stray@x.com" {
		t.Errorf("dry run's last event %+v: want the invite of stray@x.com, not revoked", ev)
	}
}

func TestApplyCollectsFailuresAndGoesOn(t *testing.T) {
	t.Parallel()
	f := &fakeSender{failUser: "u03@x.com", failAll: 2}
	res, err := Apply(context.Background(), manyCreates(25), f, ApplyOptions{})
	if len(f.requests) != 3 {
		t.Fatalf("sent %d requests, want all 3", len(f.requests))
	}
	var ae *ApplyError
	if !errors.As(err, &ae) {
		t.Fatalf("err = %v, want an *ApplyError", err)
	}
	if len(res.Failures) != 11 {
		t.Fatalf("failures = %d, want 1 entry + 10 of the failed request: %v", len(res.Failures), res.Failures)
	}
	first := res.Failures[0]
	if first.Request != 1 || first.Target != "u03@x.com" || first.Step != StepAdd || first.Code != "error.group.not_found" {
		t.Errorf("first failure = %+v", first)
	}
	if res.Failures[1].Request != 2 || res.Failures[1].Code != "request.failed" {
		t.Errorf("second failure = %+v", res.Failures[1])
	}
	if !strings.Contains(first.String(), "fix the mapping rule") || strings.Contains(res.Failures[1].String(), "mapping rule") {
		t.Errorf("only a missing group's failure says what to do: %q, %q", first, res.Failures[1])
	}
	if len(f.invites) != 1 || f.invites[0] != "revoke stray@x.com" {
		t.Errorf("invites = %v", f.invites)
	}
}

func TestApplyTestOnlyAndCancel(t *testing.T) {
	t.Parallel()
	f := &fakeSender{}
	if _, err := Apply(context.Background(), manyCreates(12), f, ApplyOptions{TestOnly: true}); err != nil {
		t.Fatal(err)
	}
	if len(f.testOnly) != 2 || !f.testOnly[0] || !f.testOnly[1] || len(f.invites) != 0 {
		t.Errorf("testOnly flags %v, invites %v: want every request test-only and no invite sent", f.testOnly, f.invites)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f = &fakeSender{cancel: cancel}
	res, err := Apply(ctx, manyCreates(25), f, ApplyOptions{})
	if !errors.Is(err, context.Canceled) || len(f.requests) != 1 || res.Requests != 1 {
		t.Errorf("after cancel: err %v, %d requests sent; want context.Canceled after 1", err, len(f.requests))
	}
	if sent := len(f.requests[0].Entries); len(res.Unsent) != 25-sent+1 || res.Unsent[len(res.Unsent)-1] != "stray@x.com" {
		t.Errorf("after cancel: unsent %v; want the %d entries not sent and the invite revoke", res.Unsent, 25-sent)
	}
	// A request the stop interrupts (no answer) is not sent as far as the
	// run knows: not a failure of the service.
	ctx, cancel = context.WithCancel(context.Background())
	f = &fakeSender{cancel: cancel, failAll: 1}
	res, err = Apply(ctx, manyCreates(25), f, ApplyOptions{})
	if !errors.Is(err, context.Canceled) || len(res.Failures) != 0 || len(res.Unsent) != 26 {
		t.Errorf("an interrupted request: err %v, failures %v, %d unsent; want context.Canceled, no failure, 26 unsent", err, res.Failures, len(res.Unsent))
	}
	// One the stop interrupts after it was sent (its Sender says so) may
	// have been applied: its entries are failures of unknown outcome, not
	// unsent.
	ctx, cancel = context.WithCancel(context.Background())
	f = &fakeSender{cancel: cancel, failAll: 1, unanswered: true}
	res, err = Apply(ctx, manyCreates(25), f, ApplyOptions{})
	if sent := len(f.requests[0].Entries); !errors.Is(err, context.Canceled) || len(res.Failures) != sent || !res.Failures[0].Unknown ||
		res.Failures[0].Code != "request.unanswered" || len(res.Unsent) != 25-sent+1 {
		t.Errorf("a request sent, then interrupted: err %v, failures %v, %d unsent; want its %d entries unknown, the rest unsent", err, res.Failures, len(res.Unsent), sent)
	}
}

// TestApplyUnansweredRequest: a request sent without an answer (the run
// goes on) fails its entries as unknown, and the run sends the rest.
func TestApplyUnansweredRequest(t *testing.T) {
	f := &fakeSender{failAll: 1, unanswered: true}
	res, err := Apply(context.Background(), manyCreates(25), f, ApplyOptions{})
	var ae *ApplyError
	if !errors.As(err, &ae) || len(f.requests) != 3 || len(res.Failures) != len(f.requests[0].Entries) || len(res.Unsent) != 0 {
		t.Fatalf("err %v, %d requests, failures %v, unsent %v", err, len(f.requests), res.Failures, res.Unsent)
	}
	for _, fl := range res.Failures {
		if !fl.Unknown || fl.Code != "request.unanswered" || !strings.Contains(fl.String(), "sent, no answer: the service may have applied it") {
			t.Errorf("failure %s: unknown %v", fl, fl.Unknown)
		}
	}
}

func TestApplyReportsSafety(t *testing.T) {
	t.Parallel()
	p := manyCreates(1)
	p.Safety = &SafetyError{Reason: "the sources returned no user"}
	_, err := Apply(context.Background(), p, &fakeSender{}, ApplyOptions{})
	var se *SafetyError
	if !errors.As(err, &se) {
		t.Errorf("err = %v, want the plan's *SafetyError", err)
	}
}

func TestUnverifiableOnlyWhatTheEntryWaitsFor(t *testing.T) {
	t.Parallel()
	user, group := &Entry{WaitsUser: true}, &Entry{WaitsGroup: true}
	for _, tc := range []struct {
		e    *Entry
		code string
		want bool
	}{
		{user, "error.user.nonexistent", true},
		{user, "error.group.not_found", false}, // a missing profile is a real error
		{group, "error.group.not_found", true},
		{group, "error.usergroup.not_found", true},
		{group, "error.user.nonexistent", false}, // an existing user was expected
		{&Entry{}, "error.user.nonexistent", false},
		{&Entry{WaitsUser: true, WaitsGroup: true}, "error.country.invalid", false},
	} {
		if got := unverifiable(tc.e, tc.code); got != tc.want {
			t.Errorf("unverifiable(%+v, %s) = %v, want %v", *tc.e, tc.code, got, tc.want)
		}
	}
}

// Re-invites of expired invites are action entries packed with the other
// changes: 46 creates and 5 re-invites, one entry each, take the 6
// requests 51 entries need (not 5 plus one a re-invite); each re-invite is
// addVendorID with its groups, and a failed one is the failure of its
// request's entry. A revoke that finds no pending invite is no failure.
func TestApplyReinviteInTheBatches(t *testing.T) {
	t.Parallel()
	plan := manyCreates(46)
	for i := range 5 {
		plan.Changes = append(plan.Changes, Change{Kind: KindResendInvite, User: User{Type: VendorID, Email: fmt.Sprintf("old%d@x.com", i)}, Add: []string{"G"}})
	}
	s := &fakeSender{failUser: "old3@x.com", inviteErr: fmt.Errorf("404: %w", ErrNoPendingInvite)}
	res, err := Apply(context.Background(), plan, s, ApplyOptions{})
	if res.Requests != 6 || len(s.requests) != 6 || res.Entries != 51 {
		t.Errorf("%d requests sent (result: %d requests, %d entries), want 6 requests of 51 entries", len(s.requests), res.Requests, res.Entries)
	}
	reinvited := map[string]bool{}
	for _, req := range s.requests {
		for _, e := range req.Entries {
			if e.User.Type != VendorID {
				continue
			}
			if len(e.Steps) != 2 || e.Steps[0].Kind != StepCreate || e.Steps[0].Create.Type != VendorID || e.Steps[1].Kind != StepAdd {
				t.Errorf("entry %s, want create (addVendorID); add [G]", show(e))
			}
			reinvited[e.User.Email] = true
		}
	}
	if len(reinvited) != 5 {
		t.Errorf("re-invited %v, want the 5 expired", reinvited)
	}
	if len(s.invites) != 1 || s.invites[0] != "revoke stray@x.com" {
		t.Errorf("invite operations %v, want only the revoke", s.invites)
	}
	if len(res.Failures) != 1 || !strings.HasPrefix(res.Failures[0].String(), "request ") || res.Failures[0].Target != "old3@x.com" || err == nil {
		t.Errorf("failures %v (err %v): want old3@x.com's entry failed in its request", res.Failures, err)
	}
}
