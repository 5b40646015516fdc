package umtarget

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

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
	for seed := range 4 {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			st, want := driftedOrg(seed, 11)
			sim := newSim(t, st, umsim.Options{PageSize: 7})
			h := lastIndexPageCount(reshapeActionAnswer(refuseGroupListing(sim)))
			e := &env{sim: sim, target: New(simClient(t, h), Options{})}
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
