package run

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umapi"
	"github.com/orgsync/orgsync/target/umtarget"
	"github.com/orgsync/orgsync/target/umwire"
)

// orgGroups are the groups of each user of the organization c serves, read in
// full, by email.
func orgGroups(t *testing.T, c *umapi.Client) map[string][]string {
	t.Helper()
	cur, err := umtarget.New(c).ReadCurrent(context.Background(), reconcile.ReadNeeds{AllUsers: true})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, u := range cur.Users.All() {
		out[strings.ToLower(u.Email)] = u.Groups
	}
	return out
}

// TestSwitchedPlanGoesThroughTheGate: an incremental run whose update of
// bob is answered "no such user" (bob was removed behind orgsync's back)
// reads the whole organization and plans again; that plan also takes
// Engineering away from erin and frank, given it behind orgsync's back:
// two removals over maxRemovals 1. The gate decides on the second plan as
// on any: the removals are held for approval (nothing destructive sent),
// bob is created, and the Result says so.
func TestSwitchedPlanGoesThroughTheGate(t *testing.T) {
	t.Parallel()
	tr := newTripped(t, "\n  onLimit: hold")
	tr.edit(t, tr.path, "safety:\n", "state: {dir: state}\nincremental: {enabled: true}\nsafety:\n")
	tr.edit(t, tr.path, "maxRemovals: 1", "maxRemovals: 50%")
	if r := tr.sync(t, Real); r.Err != nil || r.Read.Kind != "full" {
		t.Fatalf("first sync: %v, read %s", r.Err, r.Read)
	}
	j := tr.job(t)
	client, err := j.Client(j.Orgs()[0])
	if err != nil {
		t.Fatal(err)
	}
	engineering := func(email string) umwire.Entry {
		return umwire.Entry{User: email, Do: []umwire.Step{{Add: &umwire.Membership{Group: []string{"Engineering"}}}}}
	}
	if _, err := client.Action(context.Background(), []umwire.Entry{engineering("erin@example.com"), engineering("frank@example.com"),
		{User: "bob@example.com", Do: []umwire.Step{{RemoveFromOrg: &umwire.RemoveFromOrg{}}}}}, umapi.ActionOptions{}); err != nil {
		t.Fatal(err)
	}
	tr.edit(t, tr.csv, "Bob,Builder", "Bob,Baker")
	tr.edit(t, tr.path, "maxRemovals: 50%", "maxRemovals: 1")

	r := tr.sync(t, Real)
	if r.Err != nil || !r.Switched || !strings.HasPrefix(r.Read.Reason, "switched to a full read: the service answered error.user.nonexistent for bob@example.com") {
		t.Fatalf("the incremental sync did not switch: %v, switched %v, read %s", r.Err, r.Switched, r.Read)
	}
	held := r.Decision.Created
	if held == nil || keys(held.Changes) != "erin@example.com,frank@example.com" || r.Decision.Tripped == "" {
		t.Fatalf("the second plan's removals were not held for approval: %+v", r.Decision)
	}
	groups := orgGroups(t, client)
	for _, u := range []string{"erin@example.com", "frank@example.com"} {
		if !slices.Contains(groups[u], "Engineering") {
			t.Errorf("a held removal was sent: %s has %v", u, groups[u])
		}
	}
	if _, ok := groups["bob@example.com"]; !ok {
		t.Error("bob was not created again")
	}
	if r.Counts.Withheld != 2 || !slices.ContainsFunc(r.Plan.Changes, func(c reconcile.Change) bool { return c.Kind == reconcile.KindCreate }) {
		t.Errorf("the result's plan: %d withheld, changes %s", r.Counts.Withheld, keys(r.Plan.Changes))
	}
}

// TestReleaseIsNotPlannedAgain: an approval's changes applied from an
// incremental plan meet an answer that contradicts the snapshot (bob,
// whose removal the approval holds, was removed behind orgsync's back):
// the apply sends the approval's changes and nothing else (zed, whom the
// sources gained since, is not created by it), and leaves the next run to
// read the whole organization.
func TestReleaseIsNotPlannedAgain(t *testing.T) {
	t.Parallel()
	tr := newTripped(t, "\n  onLimit: hold")
	tr.edit(t, tr.path, "safety:\n", "state: {dir: state}\nincremental: {enabled: true}\nsafety:\n")
	tr.edit(t, tr.path, "maxRemovals: 1", "maxRemovals: 50%")
	if r := tr.sync(t, Real); r.Err != nil {
		t.Fatal(r.Err)
	}
	tr.edit(t, tr.path, "maxRemovals: 50%", "maxRemovals: 1")
	tr.edit(t, tr.csv, "Alice,Anders,alice@example.com,US,eng\nBob,Builder,bob@example.com,DE,eng\n", "")
	r := tr.sync(t, Real)
	if r.Err != nil || r.Decision.Created == nil || keys(r.Decision.Created.Changes) != "alice@example.com,bob@example.com" {
		t.Fatalf("alice's and bob's removals were not held: %v %+v", r.Err, r.Decision)
	}
	id := r.Decision.Created.ID
	tr.edit(t, tr.csv, "Frank,", "Zed,Zero,zed@example.com,US,eng\nFrank,")
	j := tr.job(t)
	client, err := j.Client(j.Orgs()[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Action(context.Background(), []umwire.Entry{{User: "bob@example.com", Do: []umwire.Step{{RemoveFromOrg: &umwire.RemoveFromOrg{}}}}},
		umapi.ActionOptions{}); err != nil {
		t.Fatal(err)
	}

	plans, err := j.Plan(context.Background())
	if err != nil || plans.Orgs[0].Read.Kind != "incremental" {
		t.Fatalf("plan: %v, read %v", err, plans.Orgs[0].Read)
	}
	g, err := j.Release(plans.Orgs[0], id, store.Decider{By: "test", Via: "test"}, Real)
	if err != nil {
		t.Fatal(err)
	}
	res := j.Apply(context.Background(), g)
	groups := orgGroups(t, client)
	if _, created := groups["zed@example.com"]; created || res.Switched {
		t.Errorf("the approval's apply was planned again: zed created %v, switched %v", created, res.Switched)
	}
	if slices.Contains(groups["alice@example.com"], "Engineering") {
		t.Errorf("the approval's removal was not sent: alice has %v", groups["alice@example.com"])
	}
	after, err := tr.job(t).Plan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if read := after.Orgs[0].Read; read.Kind != "full" || !strings.Contains(read.Reason, "an answer showed the snapshot wrong") {
		t.Errorf("the plan after reads %v, want in full", read)
	}
}
