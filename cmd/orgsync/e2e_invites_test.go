package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/orgsync/orgsync/target/umsim"
	"github.com/orgsync/orgsync/target/umsim/gate"
)

// TestPendingInvitesSettle: a source names independent IDs with a pending
// invite, an expired one and none yet. One sync invites the new one and
// the expired one again; the plan after it exits 0 with
// --detailed-exitcode, and a second sync sends no action request: a
// pending invite is left alone. (An expired invite beside a newer pending
// one of the same email is in the reconciler's tests.)
func TestPendingInvitesSettle(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	ms := func(ago time.Duration) int64 { return time.Now().Add(-ago).UnixMilli() }
	appendFile(t, filepath.Join(dir, "sim", "org.yaml"), fmt.Sprintf(`invites:
  - {email: pending@gmail.com, lastSentDTS: %d, groups: [Engineering]}
  - {email: lapsed@gmail.com, lastSentDTS: %d, groups: [Design]}
`, ms(24*time.Hour), ms(40*24*time.Hour)))
	csv := `firstname,lastname,email,country,groups,type
Alice,Anders,alice@example.com,US,eng,federatedID
Pat,Pending,pending@gmail.com,US,"eng,design",vendorID
Lee,Lapsed,lapsed@gmail.com,US,design,vendorID
Nia,New,new@gmail.com,US,marketing,vendorID
`
	if err := os.WriteFile(filepath.Join(dir, "csv", "users.csv"), []byte(csv), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startSim(t, dir, umsim.Options{})
	cfg := configFor(t, dir, "csv", s.url, "unmatchedUsers: remove-groups", "unmatchedUsers: preserve")
	if r := runBinary(t, nil, "sync", "--config", cfg); r.code != exitOK {
		t.Fatalf("sync: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if r := runBinary(t, nil, "plan", "--config", cfg, "--detailed-exitcode"); r.code != exitOK {
		t.Errorf("plan after the sync: exit %d, want 0\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	before := s.Stats()
	if r := runBinary(t, nil, "sync", "--config", cfg); r.code != exitOK {
		t.Fatalf("second sync: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	after := s.Stats()
	if n := after.Count(gate.EndpointAction, 200) - before.Count(gate.EndpointAction, 200); n != 0 {
		t.Errorf("the second sync sent %d action requests, want none", n)
	}
	invited := map[string]bool{}
	for _, in := range s.Snapshot().Invites {
		invited[in.Email] = time.Since(time.UnixMilli(in.LastSentDTS)) < 30*24*time.Hour
	}
	for _, e := range []string{"pending@gmail.com", "lapsed@gmail.com", "new@gmail.com"} {
		if !invited[e] {
			t.Errorf("%s has no pending invite after the sync (invites %v)", e, invited)
		}
	}
}
