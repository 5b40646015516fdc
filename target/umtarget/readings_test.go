package umtarget

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umsim"
	"github.com/orgsync/orgsync/target/umsim/gate"
)

// refuseGroupListing serves h, answering the group listing (outside the
// specification's endpoints) 405 as a service that does not serve it may.
func refuseGroupListing(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/groups/") {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// TestOneRunAgainstOtherReadings: one run, against a service that reads
// the specification otherwise than the simulator where it may (the group
// listing refused, X-Page-Count the last page's index, partial action
// results answered 207 gzip-encoded) and fails as it may (5xx, dropped
// connections, action requests applied whose answer is lost, answers cut
// mid-body), applies the whole plan without a failure, touches nothing
// outside the policy, and converges.
func TestOneRunAgainstOtherReadings(t *testing.T) {
	t.Parallel()
	for seed := range 4 {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			st, want := driftedOrg(seed, 11)
			sim := newSim(t, st, umsim.Options{PageSize: 7})
			h := lastIndexPageCount(reshapeActionAnswer(refuseGroupListing(sim)))
			e := &env{sim: sim, target: New(simClient(t, h))}
			pol := policy(reconcile.RemoveGroups)
			before := sim.Snapshot()
			sim.SetFaults(gate.Faults{Seed: int64(seed), ErrorRate: 0.1, DropRate: 0.05, AmbiguousRate: 0.2, CutRate: 0.15})
			first, err := e.run(t, want, pol)
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			faults := 0
			for _, n := range sim.Stats().Faults {
				faults += n
			}
			t.Logf("first plan: %+v; %d faults injected", first.Counts(), faults)
			if st := sim.Stats().Faults; st[gate.FaultCut] == 0 || st[gate.FaultAmbiguous500]+st[gate.FaultAmbiguousDrop] == 0 {
				t.Fatalf("faults %v: no answer cut or no action answer lost; the test would prove little", st)
			}
			sim.SetFaults(gate.Faults{})
			if again := e.plan(t, want, pol); !again.Empty() {
				t.Errorf("not converged after one run:\n%s", render(again))
			}
			checkUntouched(t, before, sim.Snapshot(), pol)
		})
	}
}

// noneListedWithoutPending serves h, answering the invite listing 404
// whenever no invite is pending, expired ones asked for or not: the
// specification's "404 when the organization has no pending invites" read
// for both listings.
func noneListedWithoutPending(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/invites/") && r.URL.Query().Get("includeExpired") != "false" {
			pending := r.Clone(r.Context())
			pending.URL.RawQuery = "includeExpired=false"
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, pending)
			if rec.Code == http.StatusNotFound {
				w.WriteHeader(http.StatusNotFound)
				_, _ = w.Write(rec.Body.Bytes())
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// TestExpiredInvitesUnlisted: against a service that answers 404 for the
// listing with the expired invites when none is pending, the expired
// invite cannot be seen, so its user is invited as a new one: the same
// addVendorID, in one request, and the next plan is in sync.
func TestExpiredInvitesUnlisted(t *testing.T) {
	t.Parallel()
	st := randomOrg(nil, 0)
	st.Invites = []umsim.Invite{{Email: "lapsed@gmail.com", LastSentDTS: time.Now().Add(-40 * 24 * time.Hour).UnixMilli()}}
	sim := newSim(t, st, umsim.Options{})
	e := &env{sim: sim, target: New(simClient(t, noneListedWithoutPending(sim)))}
	want := []reconcile.User{{Type: reconcile.VendorID, Email: "lapsed@gmail.com", Groups: []string{"G1"}}}
	pol := policy(reconcile.Preserve)
	pol.ResendExpiredInvites = true
	plan, err := e.run(t, want, pol)
	if err != nil {
		t.Fatal(err)
	}
	if c := plan.Counts(); c.Of(reconcile.KindCreate) != 1 || c.Of(reconcile.KindResendInvite) != 0 {
		t.Errorf("plan: %+v; want lapsed@gmail.com invited as a new user", c)
	}
	if n := sim.Stats().Requests[gate.EndpointAction][http.StatusOK]; n != 1 {
		t.Errorf("%d action requests, want 1", n)
	}
	if again := e.plan(t, want, pol); !again.Empty() {
		t.Errorf("plan after the sync is not empty:\n%s", render(again))
	}
}
