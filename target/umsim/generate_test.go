package umsim

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/orgsync/orgsync/target/umwire"
)

func TestGenerateIsDeterministicAndValid(t *testing.T) {
	t.Parallel()
	a, b := Generate(GenOptions{Users: 2000, Seed: 7}), Generate(GenOptions{Users: 2000, Seed: 7})
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two generations with one seed differ")
	}
	srv, err := New(a, Options{PageSize: 500})
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]int{}
	for _, u := range srv.Snapshot().Users {
		types[u.Type]++
	}
	if types["enterpriseID"] != 1200 || types["federatedID"] != 600 || types["vendorID"] != 200 {
		t.Errorf("identity mix %v", types)
	}
	if reflect.DeepEqual(a, Generate(GenOptions{Users: 2000, Seed: 8})) {
		t.Error("the seed changes nothing")
	}
}

// TestConcurrentActionsAndListings runs actions and listings at once (run
// with -race); every entry must succeed and the final state must hold all
// changes.
func TestConcurrentActionsAndListings(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{PageSize: 3})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			e := fmt.Sprintf("c%d@example.com", i)
			r := f.do("POST", "/action/"+testOrg, `[{"user":"`+e+`","do":[{"createEnterpriseID":{"email":"`+e+`","firstname":"C","lastname":"D"}},{"add":{"group":["Writers"]}}]}]`)
			var resp umwire.ActionResponse
			if err := json.Unmarshal(r.body, &resp); err != nil || resp.Completed != 1 {
				t.Errorf("%s: %d %s", e, r.status, r.body)
			}
		}()
		go func() {
			defer wg.Done()
			if r := f.do("GET", "/users/"+testOrg+"/1?directOnly=false", ""); r.status != 200 {
				t.Errorf("listing: %d %s", r.status, r.body)
			}
		}()
	}
	wg.Wait()
	p, h := f.page("/users/" + testOrg + "/0/Writers")
	if h.Get("X-Total-Count") != "9" || len(p.Users) != 3 {
		t.Errorf("Writers: total %s, page %v", h.Get("X-Total-Count"), emails(p.Users))
	}
}
