package incremental

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/store/snapshot"
	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umapi"
	"github.com/orgsync/orgsync/target/umsim"
	"github.com/orgsync/orgsync/target/umwire"
)

// smallOrg is ann, bob and cy (Enterprise IDs) in G1; user groups G1 and
// G2 exist.
func smallOrg() *umsim.State {
	st := &umsim.State{
		Org:        umsim.Org{ID: orgID, Domains: []umsim.Domain{{Name: "example.com", Directory: "corp", Claimed: true}}},
		UserGroups: []umsim.UserGroup{{Name: "G1"}, {Name: "G2"}},
	}
	for _, n := range []string{"ann", "bob", "cy"} {
		st.Users = append(st.Users, umsim.User{Type: umwire.TypeEnterpriseID, Email: n + "@example.com", FirstName: n, LastName: "L",
			Country: "US", Groups: []string{"G1"}})
	}
	return st
}

func person(name string, groups ...string) reconcile.User {
	return reconcile.User{Type: reconcile.EnterpriseID, Email: name + "@example.com", FirstName: name, LastName: "L", Country: "US", Groups: groups}
}

// named is u with first name first.
func named(u reconcile.User, first string) reconcile.User {
	u.FirstName = first
	return u
}

var smallPolicy = &reconcile.Policy{Managed: []string{"G1", "G2"}, UserGroups: []string{"G1", "G2"}, CreateUserGroups: true,
	Unmatched: reconcile.RemoveGroups, Update: reconcile.Attributes{FirstName: true, LastName: true}}

// behind changes the organization through the service, as someone else
// would.
func (o *org) behind(t *testing.T, entries ...umwire.Entry) {
	t.Helper()
	resp, err := o.client.Action(context.Background(), entries, umapi.ActionOptions{})
	if err != nil || len(resp.Errors) > 0 {
		t.Fatalf("change behind the run's back: %v %+v", err, resp)
	}
}

// converged fails unless a plan from a full read is empty and the
// snapshot holds what the organization has.
func (o *org) converged(t *testing.T, want []reconcile.User, pol *reconcile.Policy) {
	t.Helper()
	if plan := diff(t, want, o.fullRead(t), pol); !plan.Empty() {
		t.Errorf("a plan from a full read is not empty: %+v", plan.Changes)
	}
	o.sameAsOrganization(t)
}

// TestContradictionsSwitchToAFullRead: an answer that shows the snapshot
// wrong stops the incremental run's sending; the run reads the whole
// organization, plans again and sends the rest, and says why.
func TestContradictionsSwitchToAFullRead(t *testing.T) {
	t.Parallel()
	updated := "dan"
	tests := []struct {
		name   string
		behind umwire.Entry
		want   []reconcile.User
		code   string
		target string
	}{
		{name: "user not found", behind: umwire.Entry{User: "bob@example.com", Do: []umwire.Step{{RemoveFromOrg: &umwire.RemoveFromOrg{}}}},
			want: []reconcile.User{person("ann", "G1"), named(person("bob", "G1"), "Bobby"), person("cy", "G1")},
			code: umwire.ErrUserNonexistent, target: "bob@example.com"},
		{name: "already exists", behind: umwire.Entry{User: "dan@example.com", Do: []umwire.Step{{CreateEnterpriseID: &umwire.CreateUser{
			Email: "dan@example.com", FirstName: "Someone", LastName: "Else", Country: "US"}}, {Add: &umwire.Membership{Group: []string{"G1"}}}}},
			want: []reconcile.User{person("ann", "G1"), person("bob", "G1"), person("cy", "G1"), person(updated, "G2")},
			code: umwire.ErrUserExists, target: "dan@example.com"},
		{name: "group not found", behind: umwire.Entry{UserGroup: "G2", Do: []umwire.Step{{DeleteUserGroup: &umwire.DeleteUserGrp{}}}},
			want: []reconcile.User{person("ann", "G1", "G2"), person("bob", "G1"), person("cy", "G1")},
			code: "error.usergroup.not_found", target: "G2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := newOrg(t, smallOrg())
			in := []reconcile.User{person("ann", "G1"), person("bob", "G1"), person("cy", "G1")}
			if out := o.sync(t, in, smallPolicy); out.err != nil || out.run.Kind() != Full {
				t.Fatalf("first run: %s %v", out.run.Kind(), out.err)
			}
			o.behind(t, tc.behind)
			out := o.sync(t, tc.want, smallPolicy)
			if out.contra == nil || out.contra.Code != tc.code || out.contra.Target != tc.target {
				t.Fatalf("contradiction %v, want %s for %s", out.contra, tc.code, tc.target)
			}
			if out.run.Kind() != Full || !strings.HasPrefix(out.run.Reason(), "switched to a full read: the service answered "+tc.code+" for "+tc.target) {
				t.Errorf("after the switch: %s, %q", out.run.Kind(), out.run.Reason())
			}
			if out.err != nil {
				t.Errorf("the full plan's apply: %v", out.err)
			}
			o.converged(t, tc.want, smallPolicy)
		})
	}
}

// TestContradictionEndsTheSending: the answer that contradicts the
// snapshot ends the sending (the rest of the plan is not sent); finished
// there, it leaves the snapshot in doubt, so that the next run reads the
// whole organization even when no switch follows (the process stopped).
func TestContradictionEndsTheSending(t *testing.T) {
	t.Parallel()
	o := newOrg(t, smallOrg())
	o.sync(t, []reconcile.User{person("ann", "G1"), person("bob", "G1"), person("cy", "G1")}, smallPolicy)
	o.behind(t, umwire.Entry{User: "ann@example.com", Do: []umwire.Step{{RemoveFromOrg: &umwire.RemoveFromOrg{}}}})
	r, plan, target := o.begin(t, []reconcile.User{named(person("ann", "G1"), "Anna"), named(person("bob", "G1"), "Bobby"),
		named(person("cy", "G1"), "Cyd")}, smallPolicy)
	s, err := r.Send(plan, true)
	if err != nil {
		t.Fatal(err)
	}
	limits := reconcile.DefaultLimits()
	limits.EntriesPerRequest = 1 // a request an entry: the sending can end between them
	ctx, sender := s.Wrap(context.Background(), target, plan)
	res, _ := reconcile.Apply(ctx, plan, sender, reconcile.ApplyOptions{Requests: plan.Batches(limits)})
	if c := s.Contradiction(); c == nil || c.Target != "ann@example.com" || len(res.Unsent) == 0 {
		t.Fatalf("contradiction %v, unsent %v: want the sending ended at ann", c, res.Unsent)
	}
	if _, err := s.Finish(); err != nil {
		t.Fatal(err)
	}
	next := Begin(o.settings(), needsFor(smallPolicy, nil))
	if next.Kind() != Full || !strings.Contains(next.Reason(), "an answer showed the snapshot wrong: the service answered "+umwire.ErrUserNonexistent) {
		t.Errorf("the run after: %s, %q", next.Kind(), next.Reason())
	}
}

// TestDriftBehindTheRunsBackWaitsForTheFullRead: what changed behind the
// run's back without contradicting what it sends is left as it is by the
// incremental runs, and corrected by the next full read.
func TestDriftBehindTheRunsBackWaitsForTheFullRead(t *testing.T) {
	t.Parallel()
	o := newOrg(t, smallOrg())
	want := []reconcile.User{person("ann", "G1"), person("bob", "G1"), person("cy", "G1")}
	o.sync(t, want, smallPolicy)
	newName := "Changed"
	o.behind(t,
		umwire.Entry{User: "ann@example.com", Do: []umwire.Step{{RemoveFromOrg: &umwire.RemoveFromOrg{}}}},
		umwire.Entry{User: "bob@example.com", Do: []umwire.Step{{Add: &umwire.Membership{Group: []string{"G2"}}}}},
		umwire.Entry{User: "cy@example.com", Do: []umwire.Step{{Update: &umwire.Update{FirstName: &newName}}}})
	drifted := o.fullRead(t)
	if out := o.sync(t, want, smallPolicy); out.run.Kind() != Incremental || !out.plan.Empty() {
		t.Fatalf("incremental run: %s, plan %+v", out.run.Kind(), out.plan.Changes)
	}
	if got, was := userLines(o.fullRead(t).Users), userLines(drifted.Users); strings.Join(got, "\n") != strings.Join(was, "\n") {
		t.Errorf("the incremental run changed the organization:\n%s", diffLines(got, was))
	}
	o.now = o.now.Add(25 * time.Hour)
	out := o.sync(t, want, smallPolicy)
	if out.run.Kind() != Full || len(out.plan.Changes) != 3 {
		t.Fatalf("the run a day later: %s (%s), plan %+v", out.run.Kind(), out.run.Reason(), out.plan.Changes)
	}
	o.converged(t, want, smallPolicy)
}

// lostAnswer sends through next and then reports the request failed, as
// a client does when the service applied a request whose answer was
// lost; from the request numbered lose on.
type lostAnswer struct {
	reconcile.Sender
	n, lose int
}

func (l *lostAnswer) Send(ctx context.Context, req reconcile.Request, testOnly bool) ([]reconcile.EntryFailure, error) {
	l.n++
	failed, err := l.Sender.Send(ctx, req, testOnly)
	if err == nil && l.n >= l.lose {
		return nil, errors.New("connection reset: no answer")
	}
	return failed, err
}

// TestRequestWithoutAnswerMakesTheNextRunFull: a request the service may
// have applied is not recorded as applied nor as not: the next run reads
// fully, and says why.
func TestRequestWithoutAnswerMakesTheNextRunFull(t *testing.T) {
	t.Parallel()
	o := newOrg(t, smallOrg())
	want := []reconcile.User{person("ann", "G2"), person("bob", "G1"), person("cy", "G1")}
	o.sync(t, []reconcile.User{person("ann", "G1"), person("bob", "G1"), person("cy", "G1")}, smallPolicy)
	r, plan, target := o.begin(t, want, smallPolicy)
	s, err := r.Send(plan, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := send(s, &lostAnswer{Sender: target, lose: 1}, plan); err == nil {
		t.Fatal("the lost answer was not reported")
	}
	if _, err := s.Finish(); err != nil {
		t.Fatal(err)
	}
	next := Begin(o.settings(), needsFor(smallPolicy, want))
	if next.Kind() != Full || !strings.Contains(next.Reason(), "had no answer for ann@example.com: the next run reads fully") {
		t.Errorf("next run: %s, %q", next.Kind(), next.Reason())
	}
	o.sync(t, want, smallPolicy)
	o.converged(t, want, smallPolicy)
}

// TestStopBeforeRecordingMakesTheNextRunFull: a run that sent changes and
// stopped before recording them (killed, the machine down) leaves the
// sending marker: the next run reads fully.
func TestStopBeforeRecordingMakesTheNextRunFull(t *testing.T) {
	t.Parallel()
	o := newOrg(t, smallOrg())
	o.sync(t, []reconcile.User{person("ann", "G1"), person("bob", "G1"), person("cy", "G1")}, smallPolicy)
	want := []reconcile.User{person("ann", "G1"), person("bob", "G1", "G2")}
	r, plan, target := o.begin(t, want, smallPolicy)
	s, err := r.Send(plan, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := send(s, target, plan); err != nil {
		t.Fatal(err)
	}
	s.lock.Unlock() // the process ends here: no Finish
	next := Begin(o.settings(), needsFor(smallPolicy, want))
	if next.Kind() != Full || !strings.HasPrefix(next.Reason(), "a run stopped between sending changes and recording them in the snapshot (run of pid ") {
		t.Errorf("next run: %s, %q", next.Kind(), next.Reason())
	}
	if out := o.sync(t, want, smallPolicy); !out.plan.Empty() {
		t.Errorf("the full run found more to do: %+v", out.plan.Changes)
	}
	o.converged(t, want, smallPolicy)
}

// TestOneRunSendsAtATime: while a run sends, another cannot; a run whose
// snapshot another run replaced after it planned records nothing, and
// when it sent something the next run reads fully.
func TestOneRunSendsAtATime(t *testing.T) {
	t.Parallel()
	o := newOrg(t, smallOrg())
	want := []reconcile.User{person("ann", "G1"), person("bob", "G1"), person("cy", "G1")}
	o.sync(t, want, smallPolicy)
	need := needsFor(smallPolicy, want)
	first, second, third := Begin(o.settings(), need), Begin(o.settings(), need), Begin(o.settings(), need)
	s, err := first.Send(&reconcile.Plan{}, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := second.Send(&reconcile.Plan{}, true); !errors.Is(err, snapshot.ErrLocked) || !strings.Contains(err.Error(), "this run sends nothing") {
		t.Errorf("second run: %v", err)
	}
	if _, err := s.Finish(); err != nil {
		t.Fatal(err)
	}
	o.now = o.now.Add(time.Second)
	o.sync(t, []reconcile.User{named(person("ann", "G1"), "Anne"), person("bob", "G1"), person("cy", "G1")}, smallPolicy) // saves a snapshot after second began
	if s, err = third.Send(&reconcile.Plan{}, true); err != nil {
		t.Fatal(err)
	}
	if saved, err := s.Finish(); err != nil || saved {
		t.Errorf("a run that sent nothing, planned from a replaced snapshot: saved %v, %v", saved, err)
	}
	s, err = second.Send(&reconcile.Plan{Changes: []reconcile.Change{{Kind: reconcile.KindUpdate, User: person("ann")}}}, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Finish(); err == nil || !strings.Contains(err.Error(), "another run replaced the snapshot") {
		t.Errorf("finish of a run planned from a replaced snapshot: %v", err)
	}
	if next := Begin(o.settings(), need); next.Kind() != Full {
		t.Errorf("next run: %s, %q", next.Kind(), next.Reason())
	}
}
