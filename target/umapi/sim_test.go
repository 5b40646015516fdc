package umapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/target/umsim"
	"github.com/orgsync/orgsync/target/umsim/gate"
	"github.com/orgsync/orgsync/target/umwire"
)

// The tests in this file run the client against the complete simulator
// (gate in front of umsim) over loopback HTTP.

// simEnv is the simulator with one integration, served over loopback.
type simEnv struct {
	creds
	sim *umsim.Server
}

func newSimEnv(t testing.TB, st *umsim.State, opts umsim.Options, edit ...func(*umsim.Integration)) *simEnv {
	t.Helper()
	in, key := testIntegration()
	st.Integrations = []umsim.Integration{{ClientID: in.ClientID, ClientSecret: in.ClientSecret,
		TechnicalAccountID: in.TechnicalAccountID, Certificate: in.CertificatePEM}}
	for _, e := range edit {
		e(&st.Integrations[0])
	}
	sim, err := umsim.New(st, opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	return &simEnv{creds: creds{srv: srv, in: in, key: key}, sim: sim}
}

// simUser names the i-th generated user.
func simUser(i int) string { return fmt.Sprintf("user%06d@example.com", i) }

// testState is an organization of n Enterprise users on example.com (user
// 3 disabled when n > 3; even users in Designers, odd users in Writers and
// Design Pro; Design Suite has 6 licenses), one independent user and two
// pending invites.
func testState(n int) *umsim.State {
	st := &umsim.State{
		Org: umsim.Org{ID: fakeOrg, Domains: []umsim.Domain{{Name: "example.com", Directory: "corp", Claimed: true}}},
		Products: []umsim.Product{
			{Name: "Design Suite", LicenseQuota: 6, Profiles: []string{"Design Default", "Design Pro"}},
			{Name: "Docs", Profiles: []string{"Docs Default"}},
		},
		UserGroups: []umsim.UserGroup{{Name: "Designers", Profiles: []string{"Design Default"}}, {Name: "Writers"}},
		Users:      make([]umsim.User, 0, n+1),
		Invites: []umsim.Invite{
			{Email: "frank@gmail.com", LastSentDTS: 1767225600000},
			{Email: "grace@gmail.com", LastSentDTS: 1767225700000},
		},
	}
	for i := range n {
		u := umsim.User{Email: simUser(i), FirstName: "F" + fmt.Sprint(i), LastName: "L", Country: "US", Type: umwire.TypeEnterpriseID,
			Groups: []string{"Designers"}}
		if i%2 == 1 {
			u.Groups = []string{"Writers", "Design Pro"}
		}
		if i == 3 {
			u.Status = umwire.StatusDisabled
		}
		st.Users = append(st.Users, u)
	}
	st.Users = append(st.Users, umsim.User{Email: "carol@gmail.com", FirstName: "Carol", Type: umwire.TypeVendorID})
	return st
}

// collect drains a users sequence into emails, failing the test on error.
func collect(t *testing.T, seq func(func(*UsersPage, error) bool)) (emails []string, pages []*UsersPage) {
	t.Helper()
	for p, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, p)
		for _, u := range p.Users {
			emails = append(emails, u.Email)
		}
	}
	return emails, pages
}

func TestSimListings(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t, testState(20), umsim.Options{PageSize: 6})
	c := mustClient(t, e.config(AuthJWT))
	ctx := context.Background()

	emails, pages := collect(t, c.OrgUsers(ctx, OrgUsersOptions{}))
	if len(emails) != 20 || slices.Contains(emails, simUser(3)) || len(pages) != 4 {
		t.Errorf("org users: %d users in %d pages (%v); want the 19 active Enterprise users and carol in 4 pages", len(emails), len(pages), emails)
	}
	if p := pages[0]; p.TotalCount != 20 || p.PageCount != 4 || p.CurrentPage != 0 || p.PageSize != 6 || p.LastPage {
		t.Errorf("page 0 info = %+v", p.PageInfo)
	}
	if !pages[3].LastPage || pages[3].CurrentPage != 3 || pages[3].RequestID == "" {
		t.Errorf("last page info = %+v", pages[3].PageInfo)
	}
	if all, _ := collect(t, c.AllUsers(ctx)); !slices.Equal(all, emails) {
		t.Errorf("all-users endpoint = %v, want %v", all, emails)
	}
	if dom, _ := collect(t, c.OrgUsers(ctx, OrgUsersOptions{Domain: "example.com"})); len(dom) != 19 {
		t.Errorf("domain example.com: %d users, want 19", len(dom))
	}
	_, ind := collect(t, c.OrgUsers(ctx, OrgUsersOptions{IncludeIndirect: true}))
	if u := ind[0].Users[0]; !slices.Contains(u.Groups, "Design Default") {
		t.Errorf("directOnly=false: %s groups %v, want the profile granted by Designers", u.Email, u.Groups)
	}

	designers, _ := collect(t, c.GroupUsers(ctx, "designers", GroupUsersOptions{}))
	if len(designers) != 10 {
		t.Errorf("Designers: %d members, want 10", len(designers))
	}
	_, bare := collect(t, c.GroupUsers(ctx, "Writers", GroupUsersOptions{ExcludeGroups: true}))
	if g := bare[0]; g.GroupName != "Writers" || g.Users[0].Groups != nil {
		t.Errorf("excludeGroups: group %q, first user's groups %v", g.GroupName, g.Users[0].Groups)
	}
	act, _ := collect(t, c.GroupUsers(ctx, "Design Pro", GroupUsersOptions{Status: "active"}))
	inact, _ := collect(t, c.GroupUsers(ctx, "Design Pro", GroupUsersOptions{Status: "inactive"}))
	if len(act)+len(inact) != 10 || len(inact) == 0 || slices.ContainsFunc(act, func(e string) bool { return slices.Contains(inact, e) }) {
		t.Errorf("Design Pro (quota 6 of 10 direct members): active %v, inactive %v; want 10 split between them", act, inact)
	}
	_, err := c.GroupUsersPage(ctx, "No Such Group", 0, GroupUsersOptions{})
	var ae *APIError
	if !IsNotFound(err) || !errorsAs(err, &ae) || ae.Code != umwire.ErrGroupNotFound || ae.Message == "" {
		t.Errorf("missing group: err = %v, want 404 %s", err, umwire.ErrGroupNotFound)
	}
}

func TestSimGetUser(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t, testState(5), umsim.Options{})
	c := mustClient(t, e.config(AuthOAuth))
	ctx := context.Background()
	u, err := c.GetUser(ctx, strings.ToUpper(simUser(2)), "example.com")
	if err != nil || u.Email != simUser(2) || u.Type != umwire.TypeEnterpriseID || !slices.Contains(u.Groups, "Designers") {
		t.Errorf("GetUser = %+v, %v", u, err)
	}
	if u, err := c.GetUser(ctx, "carol@gmail.com", "VendorID"); err != nil || u.Type != umwire.TypeVendorID {
		t.Errorf("GetUser(independent) = %+v, %v", u, err)
	}
	_, err = c.GetUser(ctx, "nobody@example.com", "")
	var ae *APIError
	if !IsNotFound(err) || !errorsAs(err, &ae) || ae.Code != umwire.ErrUserNotFound || ae.RequestID == "" {
		t.Errorf("missing user: err = %v, want 404 %s with a request id", err, umwire.ErrUserNotFound)
	}
}

func TestSimInvitesAndProducts(t *testing.T) {
	t.Parallel()
	// On a January clock both invites (sent 2026-01-01) are pending.
	january := time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC)
	e := newSimEnv(t, testState(2), umsim.Options{InvitePageSize: 1, Clock: func() time.Time { return january }})
	cfg := e.config(AuthOAuth)
	cfg.InvitesPerCall = 1
	c := mustClient(t, cfg)
	ctx := context.Background()
	var got []string
	for batch, err := range c.Invites(ctx, InviteQuery{SortColumn: umwire.SortEmail, SortOrder: umwire.SortAsc}) {
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range batch {
			got = append(got, in.Email)
		}
	}
	if strings.Join(got, ",") != "frank@gmail.com,grace@gmail.com" || c.Stats().Requests[EndpointInvites][200] != 3 {
		t.Errorf("invites = %v after %v; want two, in three calls (the last one empty)", got, c.Stats().Requests[EndpointInvites])
	}
	// With the service's 200 a call, a short answer ends the listing.
	june := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	e200 := newSimEnv(t, testState(2), umsim.Options{Clock: func() time.Time { return june }})
	c200 := mustClient(t, e200.config(AuthOAuth))
	for batch, err := range c200.Invites(ctx, InviteQuery{}) {
		if err != nil || len(batch) != 2 {
			t.Errorf("batch %v, err %v", batch, err)
		}
	}
	if n := c200.Stats().Requests[EndpointInvites][200]; n != 1 {
		t.Errorf("%d calls for 2 invites, want 1", n)
	}
	// Both invites were sent in January 2026 and expired 30 days later, so
	// on the simulator's June clock leaving expired invites out leaves none
	// (the service's 404).
	for batch, err := range c200.Invites(ctx, InviteQuery{ExcludeExpired: true}) {
		t.Errorf("batch %v, err %v; want an empty listing", batch, err)
	}
	if ins, err := c.UserInvites(ctx, "grace@gmail.com", InviteQuery{}); err != nil || len(ins) != 1 || ins[0].InviteCode == "" {
		t.Errorf("UserInvites = %+v, %v", ins, err)
	}
	if ins, err := c.UserInvites(ctx, "nobody@gmail.com", InviteQuery{}); err != nil || len(ins) != 0 {
		t.Errorf("UserInvites(none) = %+v, %v; want empty", ins, err)
	}
	if err := c.ResendInvite(ctx, "frank@gmail.com"); err != nil {
		t.Errorf("resend: %v", err)
	}
	if err := c.RevokeInvite(ctx, "frank@gmail.com"); err != nil {
		t.Errorf("revoke: %v", err)
	}
	var ae *APIError
	if err := c.RevokeInvite(ctx, "frank@gmail.com"); !IsNotFound(err) || !errorsAs(err, &ae) || ae.Code != umwire.InviteNotFound {
		t.Errorf("second revoke: err = %v, want 404 %s", err, umwire.InviteNotFound)
	}
	if err := c.ResendInvite(ctx, "frank@gmail.com"); !IsNotFound(err) {
		t.Errorf("resend of a revoked invite: err = %v, want 404", err)
	}

	prods, err := c.Products(ctx)
	if err != nil || len(prods) != 2 || prods[0].Name != "Design Suite" || prods[0].ConfigurationCount != 2 || prods[0].UserCount != 2 {
		t.Errorf("Products = %+v, %v", prods, err)
	}
}

func errorsAs(err error, target **APIError) bool { return errors.As(err, target) }

// memberships maps each user of a snapshot to its sorted groups.
func memberships(st *umsim.State) map[string]string {
	out := make(map[string]string, len(st.Users))
	for _, u := range st.Users {
		g := slices.Clone(u.Groups)
		slices.Sort(g)
		out[u.Email] = u.FirstName + " " + u.Status + " " + strings.Join(g, ",")
	}
	return out
}

// syncEntries creates `n` new users (with option) into Writers and adds
// every existing even user (of `existing`) to Writers: idempotent work.
func syncEntries(existing, n int) []umwire.Entry {
	var out []umwire.Entry
	for i := 0; i < existing; i += 2 {
		out = append(out, umwire.Entry{User: simUser(i), Do: []umwire.Step{{Add: &umwire.Membership{Group: []string{"Writers"}}}}})
	}
	for i := existing; i < existing+n; i++ {
		out = append(out, umwire.Entry{User: simUser(i), RequestID: fmt.Sprint("new", i), Do: []umwire.Step{
			{CreateEnterpriseID: &umwire.CreateUser{Email: simUser(i), FirstName: "New", LastName: "User", Country: "US", Option: umwire.OptionUpdateIfExists}},
			{Add: &umwire.Membership{Group: []string{"Writers", "Design Pro"}}},
		}})
	}
	return out
}

// Batch against the simulator: test mode changes nothing and predicts the
// real run; step errors land on the right entries.
func TestSimBatch(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t, testState(10), umsim.Options{})
	c := mustClient(t, e.config(AuthJWT))
	ctx := context.Background()
	entries := append(syncEntries(10, 12),
		umwire.Entry{User: "carol@gmail.com", Do: []umwire.Step{{Update: &umwire.Update{FirstName: new("C")}}}},
		umwire.Entry{User: simUser(2), Do: []umwire.Step{{Add: &umwire.Membership{Group: []string{"Writers"}}}, {Add: &umwire.Membership{Group: []string{"Nope"}}}}},
		umwire.Entry{User: simUser(4), Do: []umwire.Step{{RemoveFromOrg: &umwire.RemoveFromOrg{}}}},
	)
	before := memberships(e.sim.Snapshot())
	dry, err := c.Batch(ctx, entries, ActionOptions{TestOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if after := memberships(e.sim.Snapshot()); !mapsEqual(before, after) {
		t.Error("testOnly changed the state")
	}
	real, err := c.Batch(ctx, entries, ActionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if real.Requests != (len(entries)+9)/10 || real.Completed != len(entries)-2 || dry.Completed != real.Completed || !dry.TestOnly {
		t.Errorf("requests %d, completed real %d / test %d of %d", real.Requests, real.Completed, dry.Completed, len(entries))
	}
	n := len(entries)
	if r := real.Results[n-3]; r.Completed || r.Code != umwire.ErrUpdateVendorID || r.Step != 0 || r.StepName != umwire.StepUpdate || r.User != "carol@gmail.com" {
		t.Errorf("update of an independent ID: %+v", r)
	}
	if r := real.Results[n-2]; r.Completed || r.Code != umwire.ErrGroupNotFound || r.Step != 1 || r.Index != n-2 {
		t.Errorf("add to a missing group: %+v", r)
	}
	st := memberships(e.sim.Snapshot())
	if got := st[simUser(15)]; got != "New active Design Pro,Writers" {
		t.Errorf("created user: %q", got)
	}
	if _, ok := st[simUser(4)]; ok {
		t.Error("removeFromOrg left the user in the organization")
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// With 10% 5xx, 10% dropped connections and 20% of the other answers cut
// mid-body, a read and a sync finish and give the same results as without
// faults.
func TestSimFaults(t *testing.T) {
	t.Parallel()
	clean := newSimEnv(t, testState(40), umsim.Options{PageSize: 5})
	faulty := newSimEnv(t, testState(40), umsim.Options{PageSize: 5,
		Faults: gate.Faults{Seed: 7, ErrorRate: 0.1, DropRate: 0.1, CutRate: 0.2}})
	ctx := context.Background()
	var reads [2][]string
	for i, e := range []*simEnv{clean, faulty} {
		c := mustClient(t, e.config(AuthOAuth))
		reads[i], _ = collect(t, c.OrgUsers(ctx, OrgUsersOptions{}))
		rep, err := c.Batch(ctx, syncEntries(40, 30), ActionOptions{})
		if err != nil || rep.Failed != 0 {
			t.Fatalf("env %d: err %v, %d entries failed", i, err, rep.Failed)
		}
		if i == 1 && c.Stats().Retries == 0 {
			t.Error("no retries under faults: the faults did not happen")
		}
	}
	if !slices.Equal(reads[0], reads[1]) {
		t.Errorf("read under faults differs:\n%v\n%v", reads[0], reads[1])
	}
	if a, b := memberships(clean.sim.Snapshot()), memberships(faulty.sim.Snapshot()); !mapsEqual(a, b) {
		t.Error("final state under faults differs from the clean run")
	}
}

// Action requests that are applied and then answered 500 or dropped are
// retried; the final state equals a run without faults. A create without
// option is not retried and is reported ambiguous.
func TestSimAmbiguousFailures(t *testing.T) {
	t.Parallel()
	clean := newSimEnv(t, testState(20), umsim.Options{})
	faulty := newSimEnv(t, testState(20), umsim.Options{Faults: gate.Faults{Seed: 1, AmbiguousRate: 0.3}})
	ctx := context.Background()
	var faultyClient *Client
	for _, e := range []*simEnv{clean, faulty} {
		c := mustClient(t, e.config(AuthOAuth))
		rep, err := c.Batch(ctx, syncEntries(20, 130), ActionOptions{})
		if err != nil || rep.Failed != 0 {
			t.Fatalf("err %v, %d entries failed", err, rep.Failed)
		}
		faultyClient = c
	}
	if faultyClient.Stats().Retries == 0 || faulty.sim.Stats().Faults[gate.FaultAmbiguous500]+faulty.sim.Stats().Faults[gate.FaultAmbiguousDrop] == 0 {
		t.Errorf("no ambiguous failure happened: gate faults %v", faulty.sim.Stats().Faults)
	}
	if a, b := memberships(clean.sim.Snapshot()), memberships(faulty.sim.Snapshot()); !mapsEqual(a, b) {
		t.Error("final state after ambiguous failures differs from the clean run")
	}

	faulty.sim.SetFaults(gate.Faults{AmbiguousRate: 1})
	create := []umwire.Entry{{User: "zed@example.com", Do: []umwire.Step{{CreateEnterpriseID: &umwire.CreateUser{Email: "zed@example.com", FirstName: "Z", LastName: "Z"}}}}}
	before := faultyClient.Stats().Requests[EndpointAction]
	rep, err := faultyClient.Batch(ctx, create, ActionOptions{})
	after := faultyClient.Stats().Requests[EndpointAction]
	sent := 0
	for status, n := range after {
		sent += n - before[status]
	}
	if err != nil || rep.Failed != 1 || !rep.Results[0].Ambiguous || sent != 1 {
		t.Errorf("create without option: err %v, result %+v, %d requests; want one request, ambiguous", err, rep.Results[0], sent)
	}
	if _, ok := memberships(faulty.sim.Snapshot())["zed@example.com"]; !ok {
		t.Error("the ambiguous create was not applied by the simulator (test premise)")
	}
}

// Cancelling a run stops it promptly with the context's error.
func TestSimCancellation(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t, testState(10), umsim.Options{PageSize: 2, Faults: gate.Faults{Latency: 10 * time.Second}})
	c := mustClient(t, e.config(AuthOAuth))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	for _, err := range c.OrgUsers(ctx, OrgUsersOptions{}) {
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want the context's deadline", err)
		}
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("stopped after %s", d)
	}
	rep, err := c.Batch(ctx, syncEntries(10, 0), ActionOptions{})
	if !errors.Is(err, context.DeadlineExceeded) || rep.Requests != 0 || rep.Failed != 5 {
		t.Errorf("batch after cancel: err %v, %d requests, %d failed", err, rep.Requests, rep.Failed)
	}
}

// An expired integration certificate (400 on every request) stops a batch
// after its first request instead of failing every request alike.
func TestSimExpiredCertificateStopsBatch(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t, testState(4), umsim.Options{}, func(in *umsim.Integration) { in.CertificateExpired = true })
	c := mustClient(t, e.config(AuthJWT))
	rep, err := c.Batch(context.Background(), syncEntries(4, 30), ActionOptions{})
	if StatusOf(err) != http.StatusBadRequest || rep.Requests != 1 || rep.Failed != 32 || rep.Results[31].Request != -1 {
		t.Errorf("err %v, %d requests, %d failed; want a 400 after one request, 32 failed", err, rep.Requests, rep.Failed)
	}
	if _, err := c.GetUser(context.Background(), simUser(0), ""); StatusOf(err) != http.StatusBadRequest {
		t.Errorf("GetUser: err %v, want 400", err)
	}
}
