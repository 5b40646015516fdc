package umsim

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/target/umsim/gate"
	"github.com/orgsync/orgsync/target/umwire"
)

func (f *fixture) invites(path string) ([]umwire.Invite, response) {
	f.t.Helper()
	r := f.do("GET", path, "")
	var list []umwire.Invite
	if r.status == http.StatusOK {
		r.decode(f.t, &list)
	}
	return list, r
}

// checkNoPendingInvite checks that resend and revoke of path answer 404
// invites.pending.not_found.
func (f *fixture) checkNoPendingInvite(path, when string) {
	f.t.Helper()
	for _, m := range []string{"POST", "DELETE"} {
		r := f.do(m, path, "")
		var eb umwire.InviteError
		r.decode(f.t, &eb)
		if r.status != http.StatusNotFound || eb.Status != umwire.InviteNotFound {
			f.t.Errorf("%s %s: %d %s", m, when, r.status, r.body)
		}
	}
}

func inviteEmails(list []umwire.Invite) []string {
	out := make([]string, len(list))
	for i, in := range list {
		out[i] = in.Email
	}
	return out
}

func TestAddVendorIDInvitesAndAcceptGrantsMemberships(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	resp := f.action(`[{"user":"gina@gmail.com","do":[{"addVendorID":{"email":"gina@gmail.com","country":"IT"}},{"add":{"group":["Writers","Design Pro"]}},{"remove":{"group":["Design Pro"]}}]}]`, "")
	if resp.Completed != 1 {
		t.Fatalf("addVendorID: %+v", resp)
	}
	if f.user("gina@gmail.com") != nil {
		t.Fatal("an invited user is a member before accepting")
	}
	list, r := f.invites("/organizations/" + testOrg + "/invites/GINA@gmail.com")
	if r.status != http.StatusOK || len(list) != 1 || list[0].LastSentDTS != f.clock.now.UnixMilli() || list[0].InviteCode == "" || list[0].InvitedBy.ID == "" {
		t.Fatalf("query invite: %d %s", r.status, r.body)
	}
	// Again without option: already invited; with an option: success, not resent.
	resp = f.action(`[{"user":"gina@gmail.com","do":[{"addVendorID":{"email":"gina@gmail.com"}}]},{"user":"gina@gmail.com","do":[{"addVendorID":{"email":"gina@gmail.com","option":"ignoreIfAlreadyExists"}},{"add":{"group":["Docs Default"]}}]}]`, "")
	if len(resp.Errors) != 1 || resp.Errors[0].ErrorCode != umwire.ErrUserInvited || resp.Completed != 1 {
		t.Fatalf("second invite: %+v", resp)
	}
	// Steps on the invitee in another entry do not reach the invite.
	if resp := f.action(`[{"user":"gina@gmail.com","do":[{"add":{"group":["Writers"]}}]}]`, ""); resp.Errors[0].ErrorCode != umwire.ErrUserNonexistent {
		t.Fatalf("add outside the inviting entry: %+v", resp)
	}
	if r := f.do("POST", "/_sim/invites/gina@gmail.com/accept", ""); r.status != http.StatusOK {
		t.Fatalf("accept: %d %s", r.status, r.body)
	}
	u := f.user("gina@gmail.com")
	if u == nil || u.Type != umwire.TypeVendorID || u.Country != "IT" || !slices.Equal(u.Groups, []string{"Writers", "Docs Default"}) {
		t.Fatalf("accepted user %+v", u)
	}
	if _, r := f.invites("/organizations/" + testOrg + "/invites/gina@gmail.com"); r.status != http.StatusNotFound {
		t.Errorf("invite still pending after acceptance: %d", r.status)
	}
	if err := f.srv.AcceptInvite("gina@gmail.com"); err == nil {
		t.Error("accepted twice")
	}
	// Now a member: addVendorID without option fails, with one succeeds.
	resp = f.action(`[{"user":"gina@gmail.com","do":[{"addVendorID":{"email":"gina@gmail.com"}}]},{"user":"gina@gmail.com","do":[{"addVendorID":{"email":"gina@gmail.com","option":"updateIfAlreadyExists"}}]}]`, "")
	if len(resp.Errors) != 1 || resp.Errors[0].ErrorCode != umwire.ErrUserExists {
		t.Errorf("addVendorID on a member: %+v", resp)
	}
}

func TestInviteListingExpiryResendRevoke(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{InviteExpiry: 48 * time.Hour, InvitePageSize: 2, TokenLifetime: 30 * 24 * time.Hour, ResendExpired: true})
	f.clock.now = f.clock.now.Add(24 * time.Hour) // frank's seeded invite (2026-01-01) expires
	for _, e := range []string{"b@gmail.com", "a@gmail.com", "c@gmail.com"} {
		f.clock.now = f.clock.now.Add(time.Hour)
		f.action(`[{"user":"`+e+`","do":[{"addVendorID":{"email":"`+e+`"}}]}]`, "")
	}
	base := "/" + testOrg + "/invites/"
	// The seeded invite of frank was sent at 2026-01-01 and has expired.
	cases := []struct {
		query string
		want  []string
	}{
		{"", []string{"c@gmail.com", "a@gmail.com"}},
		{"?page=2", []string{"b@gmail.com", "frank@gmail.com"}},
		{"?page=3&sortOrder=ASC", []string{"c@gmail.com"}},
		{"?includeExpired=false&sortColumn=EMAIL&sortOrder=ASC", []string{"a@gmail.com", "b@gmail.com"}},
		{"?page=9", []string{}},
	}
	for _, c := range cases {
		list, r := f.invites(base + c.query)
		if r.status != http.StatusOK || !slices.Equal(inviteEmails(list), c.want) {
			t.Errorf("list %s: %d %v, want %v", c.query, r.status, inviteEmails(list), c.want)
		}
	}
	for _, q := range []string{"?sortColumn=NAME", "?sortOrder=UP", "?includeExpired=1x", "?page=-1", "?bogus=1"} {
		r := f.do("GET", base+q, "")
		var eb umwire.InviteError
		r.decode(t, &eb)
		if r.status != http.StatusBadRequest || eb.Status != umwire.InviteBadRequest || eb.StatusMessage == "" {
			t.Errorf("list %s: %d %s", q, r.status, r.body)
		}
	}
	if _, r := f.invites("/organizations/" + testOrg + "/invites/frank@gmail.com?includeExpired=false"); r.status != http.StatusNotFound {
		t.Errorf("expired invite listed without includeExpired: %d", r.status)
	}
	if err := f.srv.AcceptInvite("frank@gmail.com"); err == nil {
		t.Error("an expired invite was accepted")
	}
	// Resend restarts the expiry.
	if r := f.do("POST", base+"frank@gmail.com", ""); r.status != http.StatusOK || string(r.body) != "{\"status\":\"success\"}\n" {
		t.Fatalf("resend: %d %s", r.status, r.body)
	}
	if list, _ := f.invites("/organizations/" + testOrg + "/invites/frank@gmail.com?includeExpired=false"); len(list) != 1 || list[0].LastSentDTS != f.clock.now.UnixMilli() {
		t.Errorf("resent invite: %+v", list)
	}
	if err := f.srv.AcceptInvite("frank@gmail.com"); err != nil {
		t.Errorf("accept after resend: %v", err)
	}
	if r := f.do("DELETE", base+"a@gmail.com", ""); r.status != http.StatusOK {
		t.Errorf("revoke: %d %s", r.status, r.body)
	}
	f.checkNoPendingInvite(base+"a@gmail.com", "after revoke")
	f.do("DELETE", base+"b@gmail.com", "")
	f.do("DELETE", base+"c@gmail.com", "")
	if _, r := f.invites(base); r.status != http.StatusNotFound {
		t.Errorf("no invites left: %d %s", r.status, r.body)
	}
}

func TestProducts(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	r := f.do("GET", "/"+testOrg+"/products/", "")
	var list []umwire.Product
	r.decode(t, &list)
	// Design Suite: alice, carol (Design Pro), bob, erin (Design Default) and dave (through Designers).
	if r.status != http.StatusOK || len(list) != 2 || list[0].Name != "Design Suite" || list[0].UserCount != 5 ||
		list[0].ConfigurationCount != 2 || list[0].LicenseQuota != 2 || list[1].UserCount != 1 || list[0].ID == "" || list[0].Code == "" {
		t.Errorf("products: %d %s", r.status, r.body)
	}
	r = f.do("GET", "/"+testOrg+"/products/?page=1", "")
	r.decode(t, &list)
	if len(list) != 1 || list[0].Name != "Docs" {
		t.Errorf("page 1: %s", r.body)
	}
	if r := f.do("GET", "/"+testOrg+"/products/?page=x", ""); r.status != http.StatusBadRequest {
		t.Errorf("bad page: %d", r.status)
	}
}

func TestGateInFront(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{Limits: gate.Limits{Read: 2, Window: time.Minute}})
	f.token = "not-a-token"
	if r := f.do("GET", "/users/"+testOrg+"/0", "", umwire.HeaderRequestID, "r9"); r.status != http.StatusUnauthorized || r.header.Get(umwire.HeaderRequestID) != "r9" {
		t.Errorf("bad token: %d %v", r.status, r.header)
	}
	f.token = f.fetchToken()
	if r := f.do("GET", "/users/"+testOrg+"/0", "", umwire.HeaderAPIKey, "other"); r.status != http.StatusForbidden || len(r.body) != 0 {
		t.Errorf("wrong API key: %d %s", r.status, r.body)
	}
	for i := 0; i < 3; i++ {
		f.do("GET", "/users/"+testOrg+"/0", "")
	}
	st := f.srv.Stats()
	if st.TooManyRequests != 1 || st.Count(gate.EndpointUsers, http.StatusOK) != 2 {
		t.Errorf("stats %+v", st)
	}
	// The admin endpoints are served without authentication.
	f.token = ""
	r := f.do("GET", "/_sim/state", "")
	var state State
	r.decode(t, &state)
	if r.status != http.StatusOK || len(state.Users) != 6 || strings.Contains(string(r.body), "sim-secret") {
		t.Errorf("/_sim/state: %d %s", r.status, r.body)
	}
}

func TestSeededOrgFlagsReachTheGate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		change func(*State)
		status int
	}{
		{"migrating", func(st *State) { st.Org.Migrating = true }, http.StatusForbidden},
		{"certificate expired", func(st *State) { st.Integrations[0].CertificateExpired = true }, http.StatusBadRequest},
	} {
		st, err := LoadState("testdata/org.yaml")
		if err != nil {
			t.Fatal(err)
		}
		c.change(st)
		f := newFixtureFrom(t, st, Options{})
		if r := f.do("GET", "/users/"+testOrg+"/0", ""); r.status != c.status {
			t.Errorf("%s: %d %s", c.name, r.status, r.body)
		}
	}
}

// By default an expired invite is no longer pending: resend and revoke
// answer 404 invites.pending.not_found, and addVendorID (with an option)
// sends a new invite with the memberships of the entry.
func TestExpiredInviteNotPending(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{InviteExpiry: 48 * time.Hour, TokenLifetime: 30 * 24 * time.Hour})
	f.clock.now = f.clock.now.Add(24 * time.Hour) // frank's seeded invite (2026-01-01) expires
	base := "/" + testOrg + "/invites/"
	f.checkNoPendingInvite(base+"frank@gmail.com", "on an expired invite")
	resp := f.action(`[{"user":"frank@gmail.com","useVendorID":true,"do":[{"addVendorID":{"email":"frank@gmail.com","option":"ignoreIfAlreadyExists"}},{"add":{"group":["Designers"]}}]}]`, "")
	if resp.Result != umwire.ResultSuccess {
		t.Fatalf("addVendorID after expiry: %+v", resp)
	}
	list, _ := f.invites("/organizations/" + testOrg + "/invites/frank@gmail.com?includeExpired=false")
	if len(list) != 1 || list[0].LastSentDTS != f.clock.now.UnixMilli() {
		t.Fatalf("new invite: %+v", list)
	}
	if err := f.srv.AcceptInvite("frank@gmail.com"); err != nil {
		t.Fatal(err)
	}
	if u := f.user("frank@gmail.com"); u == nil || !slices.Equal(u.Groups, []string{"Designers"}) {
		t.Errorf("accepted user %+v: want the new invite's group only", u)
	}
}

// invitedBy is the whole object of the specification, describing the
// integration that sent the invite.
func TestInvitedBy(t *testing.T) {
	t.Parallel()
	st, err := LoadState("testdata/org.yaml")
	if err != nil {
		t.Fatal(err)
	}
	gi, _ := gate.NewTestIntegration()
	st.Integrations = append(st.Integrations, Integration{ClientID: gi.ClientID, ClientSecret: gi.ClientSecret,
		TechnicalAccountID: gi.TechnicalAccountID, Certificate: gi.CertificatePEM,
		Email: "sync-bot@example.com", FirstName: "Sync", LastName: "Bot", CountryCode: "DE"})
	f := newFixtureFrom(t, st, Options{})
	f.action(`[{"user":"one@gmail.com","do":[{"addVendorID":{"email":"one@gmail.com"}}]}]`, "")
	second := *f
	second.client, second.secret = gi.ClientID, gi.ClientSecret
	second.token = second.fetchToken()
	second.action(`[{"user":"two@gmail.com","do":[{"addVendorID":{"email":"two@gmail.com"}}]}]`, "")
	want := map[string]umwire.InvitedBy{
		"frank@gmail.com": {ID: "1234ABCD@techacct.vendor.com", Email: "1234ABCD@techacct.vendor.com", FirstName: "Technical", LastName: "Account", CountryCode: "US"}, // seeded with its id only
		"one@gmail.com":   {ID: "1234ABCD@techacct.vendor.com", Email: "1234ABCD@techacct.vendor.com", FirstName: "Technical", LastName: "Account", CountryCode: "US"},
		"two@gmail.com":   {ID: gi.TechnicalAccountID, Email: "sync-bot@example.com", FirstName: "Sync", LastName: "Bot", CountryCode: "DE"},
	}
	for email, by := range want {
		r := f.do("GET", "/organizations/"+testOrg+"/invites/"+email, "")
		var raw []struct {
			InvitedBy map[string]any `json:"invitedBy"`
		}
		r.decode(t, &raw)
		var list []umwire.Invite
		r.decode(t, &list)
		if len(list) != 1 || list[0].InvitedBy != by || len(raw[0].InvitedBy) != 5 {
			t.Errorf("%s: invitedBy %s, want %+v with its five fields", email, r.body, by)
		}
	}
}
