package umtarget

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umsim"
)

func TestReadChoosesTheCheaperListing(t *testing.T) {
	st := umsim.Generate(umsim.GenOptions{Users: 3000, UserGroups: 30, Seed: 3, OrgID: orgID})
	e := newEnv(t, st, umsim.Options{PageSize: 10})
	ctx := context.Background()
	few := &reconcile.Policy{Managed: []string{"Group 1", "Group 2", "Group 3"}}
	cur, err := e.target.ReadCurrent(ctx, few.ReadScopeFor(nil))
	if err != nil {
		t.Fatal(err)
	}
	r := e.target.LastRead
	t.Logf("three groups: %d listing requests instead of %d organization pages", r.PagesRead, r.OrgPages)
	if !r.ByGroup || !cur.Scoped || r.PagesRead >= r.OrgPages/2 {
		t.Errorf("three groups: report %+v; want a read by group far below the %d organization pages", r, r.OrgPages)
	}
	for _, u := range cur.Users {
		if !inAny(u.Groups, few.Managed) {
			t.Fatalf("read by group returned %s, in none of the groups (%v)", u.Key(), u.Groups)
		}
	}
	all := &reconcile.Policy{Managed: few.Managed, Unlisted: reconcile.RemoveUsers}
	cur, err = e.target.ReadCurrent(ctx, all.ReadScopeFor(nil))
	if err != nil {
		t.Fatal(err)
	}
	if r := e.target.LastRead; r.ByGroup || cur.Scoped || r.PagesRead != r.OrgPages || len(cur.Users) < 2900 {
		t.Errorf("policy removing unlisted users: report %+v, %d users; want the whole organization listing", r, len(cur.Users))
	}
	many := &reconcile.Policy{}
	for i := range 30 {
		many.Managed = append(many.Managed, fmt.Sprintf("Group %d", i))
	}
	if _, err := e.target.ReadCurrent(ctx, many.ReadScopeFor(nil)); err != nil {
		t.Fatal(err)
	}
	if r := e.target.LastRead; r.PagesRead > r.OrgPages+len(many.Managed) {
		t.Errorf("thirty groups: report %+v; want at most the organization listing plus one probe per group", r)
	}
}

func inAny(groups, want []string) bool {
	for _, g := range groups {
		for _, w := range want {
			if strings.EqualFold(g, w) {
				return true
			}
		}
	}
	return false
}

// seeded is a small organization and a desired state that changes it.
func seeded(t *testing.T) (*env, []reconcile.User) {
	rng := rand.New(rand.NewPCG(42, 1))
	st := randomOrg(rng, 30)
	return newEnv(t, st, umsim.Options{}), drift(rng, st, 5)
}

func TestSafetyOnTheService(t *testing.T) {
	e, want := seeded(t)
	pol := policy(reconcile.RemoveUsers)
	pol.MaxRemovals = reconcile.Limit{Count: 1}
	ctx := context.Background()
	for name, des := range map[string]reconcile.Desired{
		"empty source":  {Complete: true},
		"failed source": {Users: want},
		"over limit":    {Users: want, Complete: true},
	} {
		before := e.sim.Snapshot()
		cur, err := e.target.ReadCurrent(ctx, pol.ReadScopeFor(des.Users))
		if err != nil {
			t.Fatal(err)
		}
		plan, err := reconcile.Diff(des, cur, pol)
		if err != nil {
			t.Fatal(err)
		}
		if len(plan.Withheld) == 0 {
			t.Fatalf("%s: nothing withheld", name)
		}
		_, err = reconcile.Apply(ctx, plan, e.target, reconcile.ApplyOptions{})
		var se *reconcile.SafetyError
		if !errors.As(err, &se) {
			t.Errorf("%s: apply error %v, want a *SafetyError", name, err)
		}
		after := e.sim.Snapshot()
		if len(after.Users) < len(before.Users) {
			t.Errorf("%s: %d users before, %d after: a removal went through", name, len(before.Users), len(after.Users))
		}
		checkUntouched(t, before, after, pol)
		checkNoRemovedMembership(t, before, after, name)
	}
}

// checkNoRemovedMembership fails when a user lost a group.
func checkNoRemovedMembership(t *testing.T, before, after *umsim.State, name string) {
	t.Helper()
	now := map[string][]string{}
	for _, u := range after.Users {
		now[simKey(u)] = u.Groups
	}
	for _, u := range before.Users {
		for _, g := range u.Groups {
			if !inAny([]string{g}, now[simKey(u)]) {
				t.Errorf("%s: %s lost %s", name, u.Email, g)
			}
		}
	}
}

func TestDryRunAndTestOnlyChangeNothing(t *testing.T) {
	e, want := seeded(t)
	pol := policy(reconcile.RemoveUsers)
	ctx := context.Background()
	plan := e.plan(t, want, pol)
	before := e.sim.Snapshot()
	var out bytes.Buffer
	res, err := reconcile.Apply(ctx, plan, e.target, reconcile.ApplyOptions{DryRun: true, Out: &out})
	if err != nil || res.Requests == 0 || !strings.Contains(out.String(), "would send request 1/") {
		t.Fatalf("dry run: %v, %+v, output %q", err, res, out.String())
	}
	if n := e.sim.Stats().Requests["action"]; len(n) != 0 {
		t.Errorf("dry run sent action requests: %v", n)
	}
	res, err = reconcile.Apply(ctx, plan, e.target, reconcile.ApplyOptions{TestOnly: true})
	if err != nil || res.Requests == 0 {
		t.Fatalf("test-only run: %v, %+v", err, res)
	}
	if after := e.sim.Snapshot(); !reflect.DeepEqual(before.Users, after.Users) || !reflect.DeepEqual(before.Invites, after.Invites) {
		t.Error("a dry or test-only run changed the organization")
	}
}

func TestGroupCreationAndEntryErrors(t *testing.T) {
	e, want := seeded(t)
	pol := policy(reconcile.Preserve)
	pol.Managed = append(pol.Managed, "New Group", "No Such Profile")
	pol.UserGroups = append(pol.UserGroups, "New Group")
	pol.CreateUserGroups = true
	for i := range want {
		if i%3 == 0 {
			want[i].Groups = append(want[i].Groups, "New Group")
		}
	}
	want[1].Groups = append(want[1].Groups, "No Such Profile")
	_, err := e.run(t, want, pol)
	var ae *reconcile.ApplyError
	if !errors.As(err, &ae) || len(ae.Failures) != 1 || ae.Failures[0].Target != want[1].Key() || ae.Failures[0].Code != "error.group.not_found" {
		t.Fatalf("apply error = %v; want one failure, %s: error.group.not_found", err, want[1].Key())
	}
	want[1].Groups = want[1].Groups[:len(want[1].Groups)-1]
	if _, err := e.run(t, want, pol); err != nil { // the steps after the failed one
		t.Fatal(err)
	}
	if again := e.plan(t, want, pol); !again.Empty() {
		t.Errorf("plan after apply is not empty:\n%s", render(again))
	}
}

func TestTestOnlyRunOfDependentRequests(t *testing.T) {
	e, want := seeded(t)
	pol := policy(reconcile.Preserve)
	pol.Managed = append(pol.Managed, "New Group")
	pol.UserGroups = append(pol.UserGroups, "New Group")
	pol.CreateUserGroups = true
	for i := range want {
		want[i].Groups = append(want[i].Groups, "New Group")
	}
	ctx := context.Background()
	plan := e.plan(t, want, pol)
	before := e.sim.Snapshot()
	res, err := reconcile.Apply(ctx, plan, e.target, reconcile.ApplyOptions{TestOnly: true})
	if err != nil {
		t.Fatalf("test-only run: %v", err)
	}
	if res.Requests < 2 || res.Unverified == 0 {
		t.Errorf("result %+v: want entries waiting on the group's creation, unverifiable in test mode", res)
	}
	if after := e.sim.Snapshot(); !reflect.DeepEqual(before.UserGroups, after.UserGroups) || !reflect.DeepEqual(before.Users, after.Users) {
		t.Error("the test-only run changed the organization")
	}
}
