package umsim

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/target/umwire"
)

// TestUsernameUpdateOnlyForEmailInOrgDomain checks rule 7: the username of
// a Federated ID can be updated only when its email is in a domain of the
// organization.
func TestUsernameUpdateOnlyForEmailInOrgDomain(t *testing.T) {
	t.Parallel()
	st, err := LoadState("testdata/org.yaml")
	if err != nil {
		t.Fatal(err)
	}
	st.Users = append(st.Users, User{
		ID: "U7@VendorID", Email: "pat@partner.net", Username: "pat", Domain: "example.com",
		FirstName: "Pat", LastName: "Out", Country: "US", Type: umwire.TypeFederatedID,
	})
	f := newFixtureFrom(t, st, Options{})
	resp := f.action(`[{"user":"pat","domain":"example.com","do":[{"update":{"username":"patrick"}}]},
	{"user":"bob@example.com","do":[{"update":{"username":"bobby"}}]}]`, "")
	if resp.Result != umwire.ResultPartial || len(resp.Errors) != 1 || resp.Errors[0].Index != 0 || resp.Errors[0].ErrorCode != umwire.ErrUsernameNoUpdate {
		t.Fatalf("username updates: %+v", resp)
	}
	if u := f.user("pat@partner.net"); u == nil || u.Username != "pat" {
		t.Errorf("pat after a refused username update: %+v", u)
	}
}

// TestRemoveFromOrgTakesTheDomainFromTheEmail checks rule 12: for a user
// given by email, the email's domain names the account; a different
// domain field does not matter.
func TestRemoveFromOrgTakesTheDomainFromTheEmail(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	resp := f.action(`[{"user":"dave@example.org","domain":"partner.net","do":[{"removeFromOrg":{}}]}]`, "")
	if resp.Result != umwire.ResultSuccess || resp.Completed != 1 || f.user("dave@example.org") != nil {
		t.Errorf("removeFromOrg of dave by email with another domain: %+v, dave %+v", resp, f.user("dave@example.org"))
	}
}

// TestAddVendorIDRetryDoesNotResend checks contract 7: addVendorID with
// an option on a pending invite succeeds without sending it again (its
// lastSentDTS and expiry stay), and later steps add to its memberships.
func TestAddVendorIDRetryDoesNotResend(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	sent := f.clock.now.UnixMilli()
	add := `[{"user":"hal@gmail.com","do":[{"addVendorID":{"email":"hal@gmail.com","option":"ignoreIfAlreadyExists"}},{"add":{"group":["GROUP"]}}]}]`
	for _, g := range []string{"Writers", "Design Pro"} {
		if resp := f.action(strings.Replace(add, "GROUP", g, 1), ""); resp.Completed != 1 {
			t.Fatalf("addVendorID with %s: %+v", g, resp)
		}
		f.clock.now = f.clock.now.Add(time.Hour)
	}
	list, r := f.invites("/organizations/" + testOrg + "/invites/hal@gmail.com")
	if r.status != http.StatusOK || len(list) != 1 || list[0].LastSentDTS != sent {
		t.Fatalf("invite after the retry: %d %s, want lastSentDTS %d", r.status, r.body, sent)
	}
	if err := f.srv.AcceptInvite("hal@gmail.com"); err != nil {
		t.Fatal(err)
	}
	if u := f.user("hal@gmail.com"); u == nil || !slices.Equal(u.Groups, []string{"Writers", "Design Pro"}) {
		t.Errorf("accepted user %+v, want groups Writers and Design Pro", u)
	}
}

// TestDefaultInviteExpiryIs30Days checks contract 7: by default an invite
// expires 30 days after lastSentDTS.
func TestDefaultInviteExpiryIs30Days(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{TokenLifetime: 60 * 24 * time.Hour})
	f.action(`[{"user":"ivy@gmail.com","do":[{"addVendorID":{"email":"ivy@gmail.com"}}]}]`, "")
	path := "/organizations/" + testOrg + "/invites/ivy@gmail.com?includeExpired=false"
	f.clock.now = f.clock.now.Add(30*24*time.Hour - time.Millisecond)
	if _, r := f.invites(path); r.status != http.StatusOK {
		t.Errorf("1 ms before 30 days: %d %s, want the invite", r.status, r.body)
	}
	f.clock.now = f.clock.now.Add(time.Millisecond)
	if _, r := f.invites(path); r.status != http.StatusNotFound {
		t.Errorf("at 30 days: %d %s, want 404", r.status, r.body)
	}
}

// TestProductsWithoutAPIKeyIs403 checks endpoint 6: a missing x-api-key
// header gives 403 with an empty body.
func TestProductsWithoutAPIKeyIs403(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	r := f.do("GET", "/"+testOrg+"/products/", "", umwire.HeaderAPIKey, "")
	if r.status != http.StatusForbidden || len(r.body) != 0 {
		t.Errorf("products without x-api-key: %d %q", r.status, r.body)
	}
}

// TestEmailAndUsernameUpdates checks rules 7 and 8 on Federated IDs: an
// email change carries an email-form username along but leaves a
// non-email username alone, and a username (even one that looks like an
// email) never names the user in a request.
func TestEmailAndUsernameUpdates(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	resp := f.action(`[{"user":"bob@example.com","do":[{"update":{"email":"bob@example.org"}}]},
	{"user":"dave","domain":"example.org","do":[{"update":{"email":"david@example.com"}}]}]`, "")
	if resp.Completed != 2 {
		t.Fatalf("email updates: %+v", resp)
	}
	if u := f.user("bob@example.org"); u == nil || u.Username != "bob@example.org" || u.Domain != "example.org" {
		t.Errorf("bob after the email update: %+v, want username and domain to follow", u)
	}
	if u := f.user("david@example.com"); u == nil || u.Username != "dave" || u.Domain != "example.org" {
		t.Errorf("dave after the email update: %+v, want username dave in example.org", u)
	}
	resp = f.action(`[{"user":"bob@example.org","do":[{"update":{"username":"robert@example.org"}}]}]`, "")
	if resp.Completed != 1 {
		t.Fatalf("username update: %+v", resp)
	}
	resp = f.action(`[{"user":"robert@example.org","do":[{"add":{"group":["Writers"]}}]}]`, "")
	if len(resp.Errors) != 1 || resp.Errors[0].ErrorCode != umwire.ErrUserNonexistent {
		t.Errorf("entry naming a user by an email-form username: %+v, want %s", resp, umwire.ErrUserNonexistent)
	}
	r := f.do("GET", "/organizations/"+testOrg+"/users/robert@example.org", "")
	if r.status != http.StatusNotFound {
		t.Errorf("endpoint 3 by an email-form username: %d %s, want 404", r.status, r.body)
	}
}

// TestMalformedEntryErrorsKeepRequestIDAndUser checks contract 2: an
// entry's error carries its requestID (and user) even when the entry is
// malformed elsewhere, so that a client can match the error to its entry.
func TestMalformedEntryErrorsKeepRequestIDAndUser(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	resp := f.action(`[{"user":"alice@example.com","requestID":"r1","colour":"red","do":[{"add":{"group":["Writers"]}}]},
	{"user":5,"requestID":"r2","do":[{"add":{"group":["Writers"]}}]},
	{"user":"bob@example.com","requestID":"r3","do":{}}]`, "")
	want := []umwire.ActionError{
		{Index: 0, RequestID: "r1", User: "alice@example.com", ErrorCode: umwire.ErrCommandMalformed},
		{Index: 1, RequestID: "r2", ErrorCode: umwire.ErrCommandMalformed},
		{Index: 2, RequestID: "r3", User: "bob@example.com", ErrorCode: umwire.ErrCommandMalformed},
	}
	if len(resp.Errors) != len(want) {
		t.Fatalf("errors %+v, want %d", resp.Errors, len(want))
	}
	for i, e := range resp.Errors {
		e.Message = ""
		if e != want[i] {
			t.Errorf("error %d = %+v, want %+v", i, e, want[i])
		}
	}
}
