package umsim

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/target/umwire"
)

func TestOrgUsersListsActiveUsersWithHeaders(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	p, h := f.page("/users/" + testOrg + "/0")
	// erin is disabled; the technical account counts but is not in the body.
	want := []string{"alice@example.com", "bob@example.com", "carol@gmail.com", "dave@example.org"}
	if got := emails(p.Users); !slices.Equal(got, want) {
		t.Errorf("users = %v, want %v", got, want)
	}
	for name, want := range map[string]string{
		umwire.HeaderTotalCount: "5", umwire.HeaderPageCount: "1", umwire.HeaderCurrentPage: "0", umwire.HeaderPageSize: "4",
	} {
		if got := h.Get(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if !p.LastPage || p.Result != umwire.ResultSuccess {
		t.Errorf("lastPage %v result %q", p.LastPage, p.Result)
	}
	alice := p.Users[0]
	if alice.ID != "U1@VendorID" || alice.Type != umwire.TypeEnterpriseID || alice.Country != "US" || alice.Status != "active" {
		t.Errorf("alice = %+v", alice)
	}
	if !slices.Equal(alice.Groups, []string{"Designers", "Design Pro", "_org_admin"}) {
		t.Errorf("alice's direct groups = %v", alice.Groups)
	}
}

func TestOrgUsersPaging(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{PageSize: 2})
	cases := []struct {
		page, wantCur string
		wantLast      bool
		want          []string
	}{
		{"0", "0", false, []string{"alice@example.com", "bob@example.com"}},
		{"1", "1", false, []string{"carol@gmail.com", "dave@example.org"}},
		{"2", "2", true, nil}, // only the technical account: counted, not shown
		{"7", "2", true, nil},
	}
	for _, c := range cases {
		p, h := f.page("/users/" + testOrg + "/" + c.page)
		if got := emails(p.Users); !slices.Equal(got, c.want) && len(got)+len(c.want) > 0 {
			t.Errorf("page %s: users %v, want %v", c.page, got, c.want)
		}
		if h.Get(umwire.HeaderCurrentPage) != c.wantCur || p.LastPage != c.wantLast || h.Get(umwire.HeaderPageCount) != "3" {
			t.Errorf("page %s: current %q lastPage %v pages %q", c.page, h.Get(umwire.HeaderCurrentPage), p.LastPage, h.Get(umwire.HeaderPageCount))
		}
	}
	// Endpoint 7 answers like endpoint 1.
	p, h := f.page("/" + testOrg + "/users?page=1")
	if !slices.Equal(emails(p.Users), []string{"carol@gmail.com", "dave@example.org"}) || h.Get(umwire.HeaderCurrentPage) != "1" {
		t.Errorf("endpoint 7 page 1: %v %v", emails(p.Users), h)
	}
}

func TestOrgUsersDomainAndDirectOnly(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	p, h := f.page("/users/" + testOrg + "/0?domain=EXAMPLE.org")
	if !slices.Equal(emails(p.Users), []string{"dave@example.org"}) || h.Get(umwire.HeaderTotalCount) != "1" {
		t.Errorf("domain example.org: %v total %s", emails(p.Users), h.Get(umwire.HeaderTotalCount))
	}
	r := f.do("GET", "/users/"+testOrg+"/0?domain=nowhere.com", "")
	var eb umwire.ErrorBody
	r.decode(t, &eb)
	if r.status != http.StatusNotFound || eb.Result != umwire.ErrDomainNotFound || eb.Message == "" {
		t.Errorf("unknown domain: %d %s", r.status, r.body)
	}
	p, _ = f.page("/users/" + testOrg + "/0?directOnly=false")
	if got := p.Users[0].Groups; !slices.Equal(got, []string{"Designers", "Design Pro", "_org_admin", "Design Default"}) {
		t.Errorf("alice with indirect groups = %v", got)
	}
}

func TestListingBadParameters(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	for _, path := range []string{
		"/users/" + testOrg + "/x",
		"/users/" + testOrg + "/-1",
		"/users/" + testOrg + "/+1",
		"/users/" + testOrg + "/",
		"/users/" + testOrg + "//Designers",
		"/users/" + testOrg + "/0?directOnly=maybe",
		"/users/" + testOrg + "/0?bogus=1",
		"/users/" + testOrg + "/0/Designers?status=active",
		"/users/" + testOrg + "/0/Design%20Pro?status=gone",
		"/" + testOrg + "/users?page=x",
	} {
		r := f.do("GET", path, "")
		var eb umwire.ErrorBody
		r.decode(t, &eb)
		if r.status != http.StatusBadRequest || eb.Result != umwire.ErrRequestMalformed || eb.Message == "" {
			t.Errorf("GET %s: %d %s", path, r.status, r.body)
		}
	}
}

func TestOrganizationChecks(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	r := f.do("GET", "/users/FFFF@VendorOrg/0", "")
	if r.status != http.StatusUnauthorized || len(r.body) != 0 || r.header.Get("WWW-Authenticate") != umwire.WWWAuthenticateInvalid {
		t.Errorf("other org: %d %q %v", r.status, r.body, r.header)
	}
	r = f.do("GET", "/users/not-an-org/0", "")
	var eb umwire.ErrorBody
	r.decode(t, &eb)
	if r.status != http.StatusBadRequest || eb.Result != umwire.ErrOrgInvalidID {
		t.Errorf("malformed org: %d %s", r.status, r.body)
	}
	r = f.do("GET", "/users/"+testOrg+"/0", "", umwire.HeaderRequestID, "req-42")
	if r.header.Get(umwire.HeaderRequestID) != "req-42" {
		t.Errorf("X-Request-Id not echoed: %v", r.header)
	}
	if r := f.do("POST", "/users/"+testOrg+"/0", ""); r.status != http.StatusMethodNotAllowed {
		t.Errorf("POST on a listing: %d", r.status)
	}
}

func TestGroupMembers(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	base := "/users/" + testOrg + "/0/"
	cases := []struct {
		path, group string
		want        []string
	}{
		{"designers", "Designers", []string{"alice@example.com", "dave@example.org"}},
		{"Design%20Default", "Design Default", []string{"bob@example.com", "erin@example.com"}},
		{"Design%20Default?directOnly=false", "Design Default", []string{"alice@example.com", "bob@example.com", "dave@example.org", "erin@example.com"}},
		// Design Suite has 2 licenses: alice and bob hold them.
		{"Design%20Pro?status=active", "Design Pro", []string{"alice@example.com"}},
		{"Design%20Pro?status=inactive", "Design Pro", []string{"carol@gmail.com"}},
		{"Design%20Default?directOnly=false&status=active", "Design Default", []string{"alice@example.com", "bob@example.com"}},
		{"Design%20Default?directOnly=false&status=inactive", "Design Default", []string{"dave@example.org", "erin@example.com"}},
		{"_admin_Designers", "_admin_Designers", []string{"carol@gmail.com"}},
		{"_org_admin", "_org_admin", []string{"alice@example.com"}},
		{"_admin_Writers", "_admin_Writers", nil}, // group exists, its admin group does not
		{"_product_admin_docs", "_product_admin_Docs", nil},
	}
	for _, c := range cases {
		p, h := f.page(base + c.path)
		if got := emails(p.Users); !slices.Equal(got, c.want) && len(got)+len(c.want) > 0 {
			t.Errorf("%s: %v, want %v", c.path, got, c.want)
		}
		if p.GroupName != c.group || h.Get(umwire.HeaderTotalCount) == "" {
			t.Errorf("%s: groupName %q headers %v", c.path, p.GroupName, h)
		}
	}
	p, _ := f.page(base + "Designers?excludeGroups=true")
	if len(p.Users) != 2 || p.Users[0].Groups != nil {
		t.Errorf("excludeGroups: %+v", p.Users)
	}
	for _, g := range []string{"Nobody", "_admin_Nobody", "_developer_Designers"} {
		r := f.do("GET", base+g, "")
		var eb umwire.ErrorBody
		r.decode(t, &eb)
		if r.status != http.StatusNotFound || eb.LastPage == nil || *eb.LastPage || eb.Result != umwire.ErrGroupNotFound || eb.Message == "" || r.header.Get(umwire.HeaderCanonical) == "" {
			t.Errorf("group %s: %d %s %v", g, r.status, r.body, r.header)
		}
	}
}

func TestGetUser(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	base := "/organizations/" + testOrg + "/users/"
	for path, want := range map[string]string{
		"ALICE@example.COM":                    "U1@VendorID",
		"alice@example.com?domain=example.org": "U1@VendorID", // same directory
		"carol@gmail.com?domain=VendorID":      "U3@VendorID",
		"dave?domain=example.org":              "U4@VendorID",
		"dave@example.org":                     "U4@VendorID",
	} {
		r := f.do("GET", base+path, "")
		var info umwire.UserInfo
		r.decode(t, &info)
		if r.status != http.StatusOK || info.Result != umwire.ResultSuccess || info.User == nil || info.User.ID != want {
			t.Errorf("GET %s: %d %s", path, r.status, r.body)
		}
	}
	for _, path := range []string{"nobody@example.com", "erin@example.com", "alice@example.com?domain=partner.net", "dave", "alice@example.com?domain=VendorID", "carol@gmail.com?domain=vendorid"} {
		r := f.do("GET", base+path, "")
		var info umwire.UserInfo
		r.decode(t, &info)
		if r.status != http.StatusNotFound || info.Result != umwire.ErrUserNotFound || info.Message == "" || r.header.Get(umwire.HeaderCanonical) == "" {
			t.Errorf("GET %s: %d %s", path, r.status, r.body)
		}
	}
	// The technical account has type unknown, shown only on request.
	var info umwire.UserInfo
	f.do("GET", base+"1234abcd@techacct.vendor.com", "").decode(t, &info)
	if info.User == nil || info.User.Type != umwire.TypeVendorID {
		t.Errorf("unknown type without header: %+v", info.User)
	}
	f.do("GET", base+"1234abcd@techacct.vendor.com", "", umwire.HeaderUsertypeUnknown, "true").decode(t, &info)
	if info.User == nil || info.User.Type != umwire.TypeUnknown {
		t.Errorf("unknown type with header: %+v", info.User)
	}
}

func TestLoadStateReportsFileLineAndField(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "bad.yaml")
	data := `org:
  id: 0ABC@VendorOrg
users:
  - email: a@example.com
    type: vendorID
    groups: [Nope]
  - email: not-an-email
    type: enterpriseID
  - {id: X1, email: b@example.com, type: vendorID}
  - {id: X1, email: c@example.com, type: vendorID}
`
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := LoadState(path)
	if err == nil {
		t.Fatal("LoadState accepted a bad file")
	}
	for _, want := range []string{path + ":6: users[0].groups[0]: no group", path + ":7: users[1].email:", path + ":10: users[3].id: id \"X1\" is used twice"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if err := os.WriteFile(path, []byte("org:\n  id: 0ABC@VendorOrg\n  colour: blue\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadState(path); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("unknown field: %v", err)
	}
}

func TestSaveStateRoundTrip(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	for _, name := range []string{"state.yaml", "state.json"} {
		path := filepath.Join(t.TempDir(), name)
		if err := f.srv.SaveState(path); err != nil {
			t.Fatal(err)
		}
		st, err := LoadState(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		srv, err := New(st, Options{})
		if err != nil {
			t.Fatal(err)
		}
		a, b := f.srv.Snapshot(), srv.Snapshot()
		if len(a.Users) != len(b.Users) || !slices.Equal(a.Users[0].Groups, b.Users[0].Groups) || len(b.Invites) != 1 || len(b.AdminGroups) != 2 {
			t.Errorf("%s: round trip differs: %+v", name, b)
		}
	}
}

func TestSnapshotIsADeepCopy(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	a := f.srv.Snapshot()
	a.Users[0].Groups[0] = "Changed"
	a.UserGroups[0].Profiles[0] = "Changed"
	a.Invites[0].Groups[0] = "Changed"
	a.Org.Domains[0].Name = "changed.example"
	b := f.srv.Snapshot()
	if b.Users[0].Groups[0] != "Designers" || b.UserGroups[0].Profiles[0] != "Design Default" || b.Invites[0].Groups[0] != "Writers" || b.Org.Domains[0].Name != "example.com" {
		t.Errorf("changing a snapshot changed the server: %+v", b)
	}
}
