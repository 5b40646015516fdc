package umapi

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"github.com/orgsync/orgsync/target/umsim"
	"github.com/orgsync/orgsync/target/umwire"
)

// A page that technical accounts fill holds no user but is not the last:
// the listing goes on to the users after it, against the simulator (which
// leaves technical accounts out of the body) with and without read-ahead.
func TestEmptyPageIsNotTheEnd(t *testing.T) {
	t.Parallel()
	st := testState(0)
	st.Users = nil
	for _, email := range []string{"a@example.com", "t1@techacct.example.com", "t2@techacct.example.com", "b@example.com"} {
		u := umsim.User{Email: email, FirstName: "F", LastName: "L", Country: "US", Type: umwire.TypeEnterpriseID}
		if email[0] == 't' {
			u = umsim.User{Email: email, Type: umwire.TypeUnknown, TechnicalAccount: true}
		}
		st.Users = append(st.Users, u)
	}
	e := newSimEnv(t, st, umsim.Options{PageSize: 1})
	for _, readAhead := range []int{-1, 4} {
		cfg := e.config(AuthOAuth)
		cfg.ReadAhead = readAhead
		c := mustClient(t, cfg)
		emails, pages := collect(t, c.OrgUsers(context.Background(), OrgUsersOptions{}))
		if !slices.Equal(emails, []string{"a@example.com", "b@example.com"}) || len(pages) != 4 {
			t.Errorf("read-ahead %d: %v in %d pages, want a and b in 4", readAhead, emails, len(pages))
		}
		if len(pages) > 1 && (len(pages[1].Users) != 0 || pages[1].LastPage) {
			t.Errorf("page 1 %+v: the test needs an empty page that is not the last", pages[1].PageInfo)
		}
	}
}

// The same without any paging header: only lastPage ends the listing.
func TestEmptyPageWithoutHeaders(t *testing.T) {
	t.Parallel()
	f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		switch pathPage(r) {
		case 0:
			pageOf(w, -1, -1, false, user("a"))
		case 1, 2:
			pageOf(w, -1, -1, false)
		default:
			pageOf(w, -1, -1, true, user("b"))
		}
	})
	if ids := readAll(t, f.client(t)); !slices.Equal(ids, []string{"a", "b"}) {
		t.Errorf("ids %v, want a and b", ids)
	}
}
