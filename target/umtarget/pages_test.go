package umtarget

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umsim"
	"github.com/orgsync/orgsync/target/umsim/gate"
	"github.com/orgsync/orgsync/target/umwire"
)

// lastIndexPageCount serves h with X-Page-Count turned into the last
// page's index (one less), the other reading of the specification's "max
// pages for the criteria"; lastPage is left as h says it.
func lastIndexPageCount(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&pageCountWriter{ResponseWriter: w}, r)
	})
}

type pageCountWriter struct{ http.ResponseWriter }

func (w *pageCountWriter) WriteHeader(code int) {
	if n, err := strconv.Atoi(w.Header().Get(umwire.HeaderPageCount)); err == nil && n > 0 {
		w.Header().Set(umwire.HeaderPageCount, strconv.Itoa(n-1))
	}
	w.ResponseWriter.WriteHeader(code)
}

// TestReadWithPageCountAsLastIndex: against a service whose X-Page-Count
// is the last page's index, the organization listing and a group's
// member listing are still read to the page that says lastPage: every
// user is seen.
func TestReadWithPageCountAsLastIndex(t *testing.T) {
	t.Parallel()
	sim := newSim(t, plainOrg(25, func(i int) []string { return []string{"G1"} }), umsim.Options{PageSize: 10})
	tg := New(simClient(t, lastIndexPageCount(sim)))
	cur, err := tg.ReadCurrent(context.Background(), reconcile.ReadNeeds{AllUsers: true})
	if err != nil {
		t.Fatal(err)
	}
	if cur.Users.Len() != 25 {
		t.Errorf("organization listing: %d users, want 25", cur.Users.Len())
	}
	var members int
	for page := 0; ; page++ {
		p, err := tg.groupPage(context.Background(), "G1", page)
		if err != nil || p == nil {
			t.Fatalf("members of G1 page %d: %v", page, err)
		}
		members += len(p.Users)
		if p.IsLast() {
			break
		}
	}
	if members != 25 {
		t.Errorf("member listing: %d users, want 25", members)
	}
}

// TestReadWithoutEndMarks: a service whose answers carry neither lastPage
// nor the page headers, and that answers its last page for any index
// beyond it (as the specification says), is read to its end and no
// further: the page that repeats the last one ends the listing.
func TestReadWithoutEndMarks(t *testing.T) {
	t.Parallel()
	sim := newSim(t, plainOrg(25, func(int) []string { return nil }), umsim.Options{PageSize: 10})
	bare := rewriteAnswers(sim, "/users/", func(body map[string]any) { delete(body, "lastPage") })
	tg := New(simClient(t, bare))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cur, err := tg.ReadCurrent(ctx, reconcile.ReadNeeds{AllUsers: true})
	if err != nil {
		t.Fatal(err)
	}
	if cur.Users.Len() != 25 || sim.Stats().Count(gate.EndpointUsers, 200) != 4 {
		t.Errorf("%d users in %d pages, want 25 in 4 (the last one read twice)", cur.Users.Len(), sim.Stats().Count(gate.EndpointUsers, 200))
	}
}
