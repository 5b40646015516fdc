package umsim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/target/umwire"
)

func TestActionWholeRequestFailures(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	eleven := "[" + strings.Repeat(`{"user":"alice@example.com","do":[{"add":{"group":["Writers"]}}]},`, 10) +
		`{"user":"alice@example.com","do":[{"add":{"group":["Writers"]}}]}]`
	cases := []struct{ name, body, ctype, query, code string }{
		{"object body", `{"user":"a@b.c"}`, "application/json", "", umwire.ErrCommandMalformed},
		{"empty array", `[]`, "application/json", "", umwire.ErrCommandMalformed},
		{"broken JSON", `[{"user":`, "application/json", "", umwire.ErrCommandMalformed},
		{"no body", ``, "application/json", "", umwire.ErrCommandMalformed},
		{"eleven entries", eleven, "application/json", "", umwire.ErrCommandMalformed},
		{"content type", `[]`, "text/plain", "", umwire.ErrRequestMalformed},
		{"testOnly value", `[]`, "application/json", "?testOnly=maybe", umwire.ErrRequestMalformed},
		{"over 1 MiB", `[{"user":"` + strings.Repeat("a", 1<<20) + `@example.com","do":[]}]`, "application/json", "", umwire.ErrCommandMalformed},
	}
	before := f.srv.Snapshot()
	for _, c := range cases {
		r := f.do("POST", "/action/"+testOrg+c.query, c.body, "Content-Type", c.ctype)
		var eb umwire.ErrorBody
		r.decode(t, &eb)
		if r.status != http.StatusBadRequest || eb.Result != c.code || eb.Message == "" {
			t.Errorf("%s: %d %s", c.name, r.status, r.body)
		}
	}
	if !reflect.DeepEqual(before, f.srv.Snapshot()) {
		t.Error("a refused request changed the state")
	}
	// A charset parameter is fine, and so is no content type at all.
	for _, ct := range []string{"application/json; charset=utf-8", ""} {
		r := f.do("POST", "/action/"+testOrg, `[{"user":"alice@example.com","do":[{"add":{"group":["Writers"]}}]}]`, "Content-Type", ct)
		if r.status != http.StatusOK {
			t.Errorf("content type %q: %d %s", ct, r.status, r.body)
		}
	}
}

// actionCase is one action request on a fresh simulator: want lists the
// errors as "index:step:code"; check inspects the state afterwards.
type actionCase struct {
	name   string
	body   string
	result string
	want   []string
	check  func(t *testing.T, f *fixture)
}

func runActionCases(t *testing.T, cases []actionCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			resp := f.action(c.body, "")
			var got []string
			for _, e := range resp.Errors {
				got = append(got, fmt.Sprintf("%d:%d:%s", e.Index, e.Step, e.ErrorCode))
				if e.Message == "" {
					t.Errorf("error without message: %+v", e)
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("errors = %v, want %v (response %+v)", got, c.want, resp)
			}
			if c.result != "" && resp.Result != c.result {
				t.Errorf("result = %q, want %q", resp.Result, c.result)
			}
			var entries []json.RawMessage
			if err := json.Unmarshal([]byte(c.body), &entries); err != nil {
				t.Fatal(err)
			}
			if resp.Completed+resp.NotCompleted != len(entries) || resp.NotCompleted != len(c.want) {
				t.Errorf("counters %+v", resp)
			}
			if c.check != nil {
				c.check(t, f)
			}
		})
	}
}

func groupsOf(t *testing.T, f *fixture, email string) []string {
	t.Helper()
	u := f.user(email)
	if u == nil {
		t.Fatalf("%s is not a member", email)
	}
	return u.Groups
}

func wantGroups(email string, want ...string) func(*testing.T, *fixture) {
	return func(t *testing.T, f *fixture) {
		t.Helper()
		if got := groupsOf(t, f, email); !slices.Equal(got, want) {
			t.Errorf("%s groups = %v, want %v", email, got, want)
		}
	}
}

func TestActionStructureRules(t *testing.T) {
	t.Parallel()
	add := func(gs ...string) string { return `{"add":{"group":["` + strings.Join(gs, `","`) + `"]}}` }
	eleven := make([]string, 11)
	for i := range eleven {
		eleven[i] = add("Writers")
	}
	runActionCases(t, []actionCase{
		{name: "entry not an object", body: `[1]`, want: []string{"0:0:error.command.malformed"}, result: "error"},
		{name: "user and usergroup", body: `[{"user":"alice@example.com","usergroup":"X","do":[` + add("Writers") + `]}]`, want: []string{"0:0:error.command.malformed"}},
		{name: "neither user nor usergroup", body: `[{"do":[` + add("Writers") + `]}]`, want: []string{"0:0:error.command.malformed"}},
		{name: "no do list", body: `[{"user":"alice@example.com"},{"user":"bob@example.com","do":[]}]`, want: []string{"0:0:error.command.malformed", "1:0:error.command.malformed"}},
		{name: "unknown entry field", body: `[{"user":"alice@example.com","colour":"red","do":[` + add("Writers") + `]}]`, want: []string{"0:0:error.command.malformed"}},
		{name: "wrong field type", body: `[{"user":"alice@example.com","useVendorID":"yes","do":[` + add("Writers") + `]}]`, want: []string{"0:0:error.command.malformed"}},
		{name: "unknown step", body: `[{"user":"alice@example.com","do":[` + add("Writers") + `,{"fly":{}}]}]`, want: []string{"0:1:error.command.step.unknown"}, check: wantGroups("alice@example.com", "Designers", "Design Pro", "_org_admin")},
		{name: "group step in user entry", body: `[{"user":"alice@example.com","do":[{"createUserGroup":{}}]}]`, want: []string{"0:0:error.command.step.unknown"}},
		{name: "step with two names", body: `[{"user":"alice@example.com","do":[{"add":{"group":["Writers"]},"remove":"all"}]}]`, want: []string{"0:0:error.command.malformed"}},
		{name: "payload of the wrong type", body: `[{"user":"alice@example.com","do":[{"add":{"group":"Writers"}}]}]`, want: []string{"0:0:error.command.malformed"}},
		{name: "remove ALL", body: `[{"user":"alice@example.com","do":[{"remove":"ALL"}]}]`, want: []string{"0:0:error.command.malformed"}},
		{name: "add all", body: `[{"user":"alice@example.com","do":[{"add":"all"}]}]`, want: []string{"0:0:error.command.malformed"}},
		{name: "unknown payload field", body: `[{"user":"alice@example.com","do":[{"update":{"firstname":"A","nick":"x"}}]}]`, want: []string{"0:0:error.command.malformed"}},
		{name: "field name in other case", body: `[{"user":"alice@example.com","do":[{"update":{"FirstName":"A"}}]}]`, want: []string{"0:0:error.command.malformed"}},
		{name: "two creates", body: `[{"user":"new@example.com","do":[{"createEnterpriseID":{"email":"new@example.com","firstname":"N","lastname":"N"}},{"addVendorID":{"email":"new@example.com"}}]}]`, want: []string{"0:1:error.command.create.more_than_one"}},
		{name: "create not first", body: `[{"user":"new@example.com","do":[` + add("Writers") + `,{"createEnterpriseID":{"email":"new@example.com","firstname":"N","lastname":"N"}}]}]`, want: []string{"0:1:error.command.create.not_first"}},
		{name: "removeFromOrg not last", body: `[{"user":"alice@example.com","do":[{"removeFromOrg":{}},` + add("Writers") + `]}]`, want: []string{"0:0:error.command.removefromorg.not_last"}},
		{name: "eleven steps", body: `[{"user":"alice@example.com","do":[` + strings.Join(eleven, ",") + `]}]`, want: []string{"0:10:error.command.too_many_steps"}},
		{name: "eleven adds", body: `[{"user":"alice@example.com","do":[` + add("Writers", "Docs Default", "Designers", "Design Pro", "Design Default", "Writers") + `,` + add("Writers", "Writers", "Writers", "Writers", "Writers") + `]}]`, want: []string{"0:1:error.command.add_remove.list_too_long"}, check: wantGroups("alice@example.com", "Designers", "Design Pro", "_org_admin")},
		{name: "ten adds and ten removes", body: `[{"user":"alice@example.com","do":[` + add("Writers", "Writers", "Writers", "Writers", "Writers", "Writers", "Writers", "Writers", "Writers", "Writers") + `,{"remove":{"group":["Writers","Writers","Writers","Writers","Writers","Writers","Writers","Writers","Writers","Writers"]}}]}]`, result: "success", check: wantGroups("alice@example.com", "Designers", "Design Pro", "_org_admin")},
	})
}

func TestActionMemberships(t *testing.T) {
	t.Parallel()
	runActionCases(t, []actionCase{
		{name: "add and remove, any case", body: `[{"user":"BOB@example.com","do":[{"add":{"group":["writers","_admin_designers","docs default"]}},{"remove":{"group":["design default"]}}]}]`, result: "success", check: wantGroups("bob@example.com", "Writers", "_admin_Designers", "Docs Default")},
		{name: "idempotent add and remove", body: `[{"user":"bob@example.com","do":[{"add":{"group":["Writers"]}},{"remove":{"group":["Docs Default"]}}]}]`, result: "success", check: wantGroups("bob@example.com", "Design Default", "Writers")},
		{name: "protected groups", body: `[{"user":"bob@example.com","do":[{"add":{"group":["_org_admin"]}}]},{"user":"alice@example.com","do":[{"remove":{"group":["_ORG_ADMIN"]}}]},{"user":"bob@example.com","do":[{"add":{"group":["_compartment_viewer"]}}]}]`, result: "error", want: []string{"0:0:error.command.add_remove.protected_group", "1:0:error.command.add_remove.protected_group", "2:0:error.command.add_remove.protected_group"}},
		{name: "remove all keeps _org_admin", body: `[{"user":"alice@example.com","do":[{"remove":"all"}]}]`, check: wantGroups("alice@example.com", "_org_admin")},
		{name: "unknown group", body: `[{"user":"bob@example.com","do":[{"add":{"group":["Writers","Nope"]}}]}]`, want: []string{"0:0:error.group.not_found"}, check: wantGroups("bob@example.com", "Design Default", "Writers")},
		{name: "undeclared admin group", body: `[{"user":"bob@example.com","do":[{"add":{"group":["_admin_Writers"]}}]}]`, want: []string{"0:0:error.group.not_found"}},
		{name: "first failing step ends the entry", body: `[{"user":"bob@example.com","do":[{"add":{"group":["Docs Default"]}},{"add":{"group":["Nope"]}},{"remove":{"group":["Writers"]}}]}]`, want: []string{"0:1:error.group.not_found"}, check: wantGroups("bob@example.com", "Design Default", "Writers", "Docs Default")},
		{name: "not a member", body: `[{"user":"zed@example.com","requestID":"r1","do":[{"add":{"group":["Writers"]}}]},{"user":"bob@example.com","do":[{"add":{"group":["Docs Default"]}}]}]`, result: "partial", want: []string{"0:0:error.user.nonexistent"}},
		{name: "federated username needs domain", body: `[{"user":"dave","do":[{"add":{"group":["Writers"]}}]},{"user":"dave","domain":"example.org","do":[{"add":{"group":["Writers"]}}]}]`, want: []string{"0:0:error.command.domain.missing"}, check: wantGroups("dave@example.org", "Designers", "Writers")},
		{name: "useVendorID", body: `[{"user":"alice@example.com","useVendorID":true,"do":[{"add":{"group":["Writers"]}}]}]`, want: []string{"0:0:error.user.nonexistent"}},
	})
}

func TestActionErrorCarriesRequestIDAndUser(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	resp := f.action(`[{"user":"bob@example.com","do":[{"add":{"group":["Docs Default"]}}]},{"user":"zed@example.com","requestID":"r1","do":[{"add":{"group":["Writers"]}}]}]`, "")
	want := umwire.ActionResponse{Completed: 1, NotCompleted: 1, Result: "partial", Errors: []umwire.ActionError{{
		Index: 1, Step: 0, RequestID: "r1", User: "zed@example.com", ErrorCode: umwire.ErrUserNonexistent, Message: resp.Errors[0].Message,
	}}}
	if !reflect.DeepEqual(resp, want) {
		t.Errorf("response %+v, want %+v", resp, want)
	}
	// The counters are present even when zero; errors and warnings are omitted when empty.
	r := f.do("POST", "/action/"+testOrg, `[{"user":"bob@example.com","do":[{"add":{"group":["Writers"]}}]}]`)
	var raw map[string]json.RawMessage
	r.decode(t, &raw)
	for _, k := range []string{"completed", "notCompleted", "completedInTestMode", "result"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("%s missing from %s", k, r.body)
		}
	}
	if _, ok := raw["errors"]; ok {
		t.Errorf("empty errors present: %s", r.body)
	}
}

func TestActionCreate(t *testing.T) {
	t.Parallel()
	ent := func(payload string) string {
		return `[{"user":"new@example.com","do":[{"createEnterpriseID":{` + payload + `}}]}]`
	}
	long := strings.Repeat("x", 251)
	runActionCases(t, []actionCase{
		{name: "create enterprise with groups", body: `[{"user":"new@example.com","do":[{"createEnterpriseID":{"email":"new@example.com","firstname":"New","lastname":"User","country":"GB"}},{"add":{"group":["Writers"]}}]}]`, result: "success", check: func(t *testing.T, f *fixture) {
			u := f.user("new@example.com")
			if u == nil || u.Type != "enterpriseID" || u.Username != "new@example.com" || u.Domain != "example.com" || u.Country != "GB" || !slices.Equal(u.Groups, []string{"Writers"}) || u.ID == "" {
				t.Errorf("created user %+v", u)
			}
		}},
		{name: "missing firstname", body: ent(`"email":"new@example.com","lastname":"U"`), want: []string{"0:0:error.user.firstname_missing"}},
		{name: "missing lastname", body: ent(`"email":"new@example.com","firstname":"U"`), want: []string{"0:0:error.user.lastname_missing"}},
		{name: "long name", body: ent(`"email":"new@example.com","firstname":"` + long + `","lastname":"U"`), want: []string{"0:0:error.command.string.too_long"}},
		{name: "missing email", body: ent(`"firstname":"N","lastname":"U"`), want: []string{"0:0:error.user.email.invalid"}},
		{name: "email of another user", body: ent(`"email":"other@example.com","firstname":"N","lastname":"U"`), want: []string{"0:0:error.user.email.invalid"}},
		{name: "email over 60", body: `[{"user":"` + strings.Repeat("a", 50) + `@example.com","do":[{"createEnterpriseID":{"email":"` + strings.Repeat("a", 50) + `@example.com","firstname":"N","lastname":"U"}}]}]`, want: []string{"0:0:error.user.email.invalid"}},
		{name: "lower-case country", body: ent(`"email":"new@example.com","firstname":"N","lastname":"U","country":"gb"`), want: []string{"0:0:error.country.invalid"}},
		{name: "federated needs country", body: `[{"user":"fed@example.com","do":[{"createFederatedID":{"email":"fed@example.com","firstname":"F","lastname":"D"}}]}]`, want: []string{"0:0:error.country.invalid"}},
		{name: "illegal option", body: ent(`"email":"new@example.com","firstname":"N","lastname":"U","option":"always"`), want: []string{"0:0:error.option.illegal"}},
		{name: "unclaimed domain", body: `[{"user":"p@partner.net","do":[{"createEnterpriseID":{"email":"p@partner.net","firstname":"P","lastname":"Q"}}]}]`, want: []string{"0:0:" + umwire.ErrDomainNotClaimed}},
		{name: "exists without option", body: `[{"user":"alice@example.com","do":[{"createEnterpriseID":{"email":"alice@example.com","firstname":"A","lastname":"B"}}]}]`, want: []string{"0:0:error.user.already_exists"}},
		{name: "exists, ignore", body: `[{"user":"alice@example.com","do":[{"createEnterpriseID":{"email":"alice@example.com","firstname":"A","lastname":"B","option":"ignoreIfAlreadyExists"}},{"add":{"group":["Writers"]}}]}]`, check: func(t *testing.T, f *fixture) {
			if u := f.user("alice@example.com"); u.FirstName != "Alice" || !slices.Contains(u.Groups, "Writers") {
				t.Errorf("alice %+v", u)
			}
		}},
		{name: "exists, update", body: `[{"user":"alice@example.com","do":[{"createEnterpriseID":{"email":"alice@example.com","firstname":"Alicia","lastname":"B","country":"FR","option":"updateIfAlreadyExists"}}]}]`, check: func(t *testing.T, f *fixture) {
			if u := f.user("alice@example.com"); u.FirstName != "Alicia" || u.LastName != "B" || u.Country != "US" {
				t.Errorf("alice %+v", u)
			}
		}},
		{name: "federated by username", body: `[{"user":"fd","domain":"example.com","do":[{"createFederatedID":{"email":"fd@example.com","firstname":"F","lastname":"D","country":"US"}}]},{"user":"fd","domain":"example.com","do":[{"add":{"group":["Writers"]}}]}]`, check: func(t *testing.T, f *fixture) {
			if u := f.user("fd@example.com"); u == nil || u.Username != "fd" || u.Type != "federatedID" || !slices.Equal(u.Groups, []string{"Writers"}) {
				t.Errorf("fd %+v", u)
			}
		}},
		{name: "independent ID beside an Enterprise ID", body: `[{"user":"alice@example.com","useVendorID":true,"do":[{"addVendorID":{"email":"alice@example.com"}}]}]`, check: func(t *testing.T, f *fixture) {
			st := f.srv.Snapshot()
			if len(st.Invites) != 2 || st.Invites[0].Email != "alice@example.com" || f.user("alice@example.com").Type != "enterpriseID" {
				t.Errorf("invites %+v", st.Invites)
			}
		}},
		{name: "enterprise needs an email user", body: `[{"user":"x","domain":"example.com","do":[{"createEnterpriseID":{"email":"x@example.com","firstname":"X","lastname":"Y"}}]}]`, want: []string{"0:0:error.user.email.invalid"}},
	})
}

func TestActionUpdate(t *testing.T) {
	t.Parallel()
	upd := func(user, payload string) string {
		return `[{"user":"` + user + `","do":[{"update":{` + payload + `}}]}]`
	}
	runActionCases(t, []actionCase{
		{name: "names", body: upd("alice@example.com", `"firstname":"Al"`), check: func(t *testing.T, f *fixture) {
			if u := f.user("alice@example.com"); u.FirstName != "Al" || u.LastName != "Able" {
				t.Errorf("alice %+v", u)
			}
		}},
		{name: "country", body: upd("alice@example.com", `"country":"DE"`), want: []string{"0:0:error.update.country.no_update"}},
		{name: "independent ID", body: upd("carol@gmail.com", `"firstname":"C"`), want: []string{"0:0:error.update.vendorid.no"}},
		{name: "case only", body: upd("alice@example.com", `"email":"Alice@example.com"`), want: []string{"0:0:error.update.case_only"}},
		{name: "email in the same directory", body: upd("alice@example.com", `"email":"alice@example.org"`), check: func(t *testing.T, f *fixture) {
			if u := f.user("alice@example.org"); u == nil || u.Username != "alice@example.org" || u.Domain != "example.org" || u.ID != "U1@VendorID" {
				t.Errorf("alice %+v", u)
			}
		}},
		{name: "email to another directory", body: upd("alice@example.com", `"email":"alice@partner.net"`), want: []string{"0:0:" + umwire.ErrDomainNotClaimed}},
		{name: "email taken", body: upd("alice@example.com", `"email":"bob@example.com"`), want: []string{"0:0:error.user.already_exists"}},
		{name: "enterprise username", body: upd("alice@example.com", `"username":"al"`), want: []string{"0:0:" + umwire.ErrUsernameNoUpdate}},
		{name: "federated username", body: upd("bob@example.com", `"username":"bobby"`), check: func(t *testing.T, f *fixture) {
			if u := f.user("bob@example.com"); u.Username != "bobby" {
				t.Errorf("bob %+v", u)
			}
		}},
		{name: "not a member", body: upd("zed@example.com", `"firstname":"Z"`), want: []string{"0:0:error.user.nonexistent"}},
		{name: "long name", body: upd("alice@example.com", `"lastname":"`+strings.Repeat("é", 251)+`"`), want: []string{"0:0:error.command.string.too_long"}},
	})
}

func TestActionRemoveFromOrg(t *testing.T) {
	t.Parallel()
	runActionCases(t, []actionCase{
		{name: "unknown user succeeds", body: `[{"user":"zed@example.com","do":[{"removeFromOrg":{}}]}]`, result: "success"},
		{name: "keep the account", body: `[{"user":"alice@example.com","do":[{"removeFromOrg":{"deleteAccount":false}}]}]`, check: func(t *testing.T, f *fixture) {
			st := f.srv.Snapshot()
			if f.user("alice@example.com") != nil || len(st.DirectoryUsers) != 1 || st.DirectoryUsers[0].Email != "alice@example.com" || st.DirectoryUsers[0].Groups != nil {
				t.Errorf("after removal: users %v directory %+v", len(st.Users), st.DirectoryUsers)
			}
			p, _ := f.page("/users/" + testOrg + "/0/_org_admin")
			if len(p.Users) != 0 {
				t.Errorf("_org_admin still lists %v", emails(p.Users))
			}
			// Creating it again re-attaches the account.
			f.action(`[{"user":"alice@example.com","do":[{"createEnterpriseID":{"email":"alice@example.com","firstname":"A","lastname":"B"}}]}]`, "")
			if u := f.user("alice@example.com"); u == nil || u.ID != "U1@VendorID" || len(f.srv.Snapshot().DirectoryUsers) != 0 {
				t.Errorf("re-attached %+v", u)
			}
			p, _ = f.page("/users/" + testOrg + "/0")
			if got := emails(p.Users); len(got) != 4 || got[3] != "alice@example.com" || len(f.srv.Snapshot().Users) != 6 {
				t.Errorf("after re-attaching: %v", got)
			}
		}},
		{name: "delete the account", body: `[{"user":"alice@example.com","do":[{"add":{"group":["Writers"]}},{"removeFromOrg":{"deleteAccount":true}}]}]`, check: func(t *testing.T, f *fixture) {
			if st := f.srv.Snapshot(); f.user("alice@example.com") != nil || len(st.DirectoryUsers) != 0 {
				t.Errorf("deleted account still there: %+v", st.DirectoryUsers)
			}
		}},
		{name: "independent IDs are never deleted", body: `[{"user":"carol@gmail.com","do":[{"removeFromOrg":{"deleteAccount":true}}]}]`, check: func(t *testing.T, f *fixture) {
			if st := f.srv.Snapshot(); f.user("carol@gmail.com") != nil || len(st.DirectoryUsers) != 0 {
				t.Errorf("carol: %+v", st.DirectoryUsers)
			}
		}},
		{name: "federated by username", body: `[{"user":"dave","domain":"example.org","do":[{"removeFromOrg":{}}]}]`, check: func(t *testing.T, f *fixture) {
			if f.user("dave@example.org") != nil {
				t.Error("dave still a member")
			}
		}},
	})
}

func TestActionUserGroups(t *testing.T) {
	t.Parallel()
	runActionCases(t, []actionCase{
		{name: "create, fill and grant", body: `[{"usergroup":"Editors","do":[{"createUserGroup":{"description":"edit"}},{"add":{"user":["bob@example.com","CAROL@gmail.com"],"productConfiguration":["docs default"]}}]}]`, check: func(t *testing.T, f *fixture) {
			st := f.srv.Snapshot()
			ug := st.UserGroups[len(st.UserGroups)-1]
			if ug.Name != "Editors" || ug.Description != "edit" || !slices.Equal(ug.Profiles, []string{"Docs Default"}) {
				t.Errorf("group %+v", ug)
			}
			p, _ := f.page("/users/" + testOrg + "/0/Docs%20Default?directOnly=false")
			if !slices.Equal(emails(p.Users), []string{"bob@example.com", "carol@gmail.com"}) {
				t.Errorf("indirect Docs Default members %v", emails(p.Users))
			}
		}},
		{name: "exists", body: `[{"usergroup":"Writers","do":[{"createUserGroup":{}}]},{"usergroup":"writers","do":[{"createUserGroup":{"option":"ignoreIfAlreadyExists"}}]}]`, want: []string{"0:0:error.usergroup.already_exists"}},
		{name: "name of a profile", body: `[{"usergroup":"Docs Default","do":[{"createUserGroup":{"option":"ignoreIfAlreadyExists"}}]}]`, want: []string{"0:0:error.usergroup.already_exists"}},
		{name: "invalid names", body: `[{"usergroup":"_x","do":[{"createUserGroup":{}}]},{"usergroup":"Y","do":[{"createUserGroup":{"name":"` + strings.Repeat("n", 256) + `"}}]}]`, want: []string{"0:0:error.group.invalid_name", "1:0:error.group.invalid_name"}},
		{name: "rename carries the admin group", body: `[{"usergroup":"Designers","do":[{"updateUserGroup":{"name":"Artists","description":"d"}},{"add":{"user":["bob@example.com"]}}]}]`, check: func(t *testing.T, f *fixture) {
			st := f.srv.Snapshot()
			if !slices.Contains(st.AdminGroups, "_admin_Artists") || slices.Contains(st.AdminGroups, "_admin_Designers") {
				t.Errorf("admin groups %v", st.AdminGroups)
			}
			wantGroups("carol@gmail.com", "Design Pro", "_admin_Artists")(t, f)
			wantGroups("bob@example.com", "Design Default", "Writers", "Artists")(t, f)
		}},
		{name: "delete", body: `[{"usergroup":"Designers","do":[{"deleteUserGroup":{}}]}]`, check: func(t *testing.T, f *fixture) {
			wantGroups("alice@example.com", "Design Pro", "_org_admin")(t, f)
			wantGroups("carol@gmail.com", "Design Pro")(t, f)
			if r := f.do("GET", "/users/"+testOrg+"/0/Designers", ""); r.status != http.StatusNotFound {
				t.Errorf("deleted group listed: %d", r.status)
			}
		}},
		{name: "step after delete", body: `[{"usergroup":"Designers","do":[{"deleteUserGroup":{}},{"add":{"user":["bob@example.com"]}}]}]`, want: []string{"0:0:error.command.malformed"}},
		{name: "not found", body: `[{"usergroup":"Nope","do":[{"updateUserGroup":{"description":"x"}}]},{"usergroup":"Nope","do":[{"deleteUserGroup":{}}]}]`, want: []string{"0:0:error.usergroup.not_found", "1:0:error.usergroup.not_found"}},
		{name: "remove members and grants", body: `[{"usergroup":"Designers","do":[{"remove":{"user":["alice@example.com","bob@example.com"],"productConfiguration":["Design Default"]}}]}]`, check: func(t *testing.T, f *fixture) {
			wantGroups("alice@example.com", "Design Pro", "_org_admin")(t, f)
			if ug := f.srv.Snapshot().UserGroups[0]; ug.Profiles != nil {
				t.Errorf("grants left: %v", ug.Profiles)
			}
		}},
		{name: "unknown member or profile", body: `[{"usergroup":"Designers","do":[{"add":{"user":["zed@example.com"]}}]},{"usergroup":"Designers","do":[{"add":{"productConfiguration":["Nope"]}}]}]`, want: []string{"0:0:error.user.nonexistent", "1:0:error.group.not_found"}},
		{name: "eleven names in a step", body: `[{"usergroup":"Designers","do":[{"add":{"user":["a@b.c","a@b.c","a@b.c","a@b.c","a@b.c","a@b.c"],"productConfiguration":["x","x","x","x","x"]}}]}]`, want: []string{"0:0:error.command.add_remove.list_too_long"}},
		{name: "user payload on a group", body: `[{"usergroup":"Designers","do":[{"add":{"group":["Writers"]}}]}]`, want: []string{"0:0:error.command.malformed"}},
	})
}

func TestActionTestOnlyChangesNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	before := f.srv.Snapshot()
	body := `[{"user":"new@example.com","do":[{"createEnterpriseID":{"email":"new@example.com","firstname":"N","lastname":"U"}},{"add":{"group":["Writers"]}}]},
	{"user":"alice@example.com","do":[{"update":{"email":"alice@example.org"}},{"remove":"all"},{"removeFromOrg":{"deleteAccount":true}}]},
	{"usergroup":"Designers","do":[{"updateUserGroup":{"name":"Artists"}},{"deleteUserGroup":{}}]},
	{"usergroup":"New","do":[{"createUserGroup":{}},{"add":{"user":["bob@example.com"],"productConfiguration":["Docs Default"]}}]},
	{"user":"newbie@gmail.com","do":[{"addVendorID":{"email":"newbie@gmail.com"}},{"add":{"group":["Writers"]}}]},
	{"user":"bob@example.com","do":[{"add":{"group":["Nope"]}}]}]`
	resp := f.action(body, "?testOnly=true")
	if resp.Completed != 0 || resp.CompletedInTestMode != 5 || resp.NotCompleted != 1 || resp.Result != "partial" {
		t.Errorf("test mode response %+v", resp)
	}
	if after := f.srv.Snapshot(); !reflect.DeepEqual(before, after) {
		t.Errorf("testOnly changed the state:\nbefore %+v\nafter  %+v", before, after)
	}
	p, _ := f.page("/users/" + testOrg + "/0")
	if len(p.Users) != 4 {
		t.Errorf("listing after testOnly: %v", emails(p.Users))
	}
}
