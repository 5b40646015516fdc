package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/util/testenv"
	"github.com/orgsync/orgsync/target/umsim"
	"github.com/orgsync/orgsync/target/umsim/gate"
)

// Retries that outlast the access token go on with a valid one: against a
// simulator whose tokens live 1 s and which answers 60% of requests with
// 500/503, one sync converges and the next plan (still under faults) finds
// nothing to do.
func TestShortTokensAndServerErrorsConverge(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{TokenLifetime: time.Second, Faults: gate.Faults{Seed: 1, ErrorRate: 0.6}})
	cfg := configFor(t, dir, "csv", s.url, "target:\n", "target:\n  retries: {max: 30, minWait: 300ms, maxWait: 1200ms}\n")
	r := runBinary(t, nil, "sync", "--config", cfg)
	if r.code != exitOK {
		t.Fatalf("sync: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = runBinary(t, nil, "plan", "--config", cfg, "--detailed-exitcode")
	if r.code != exitOK {
		t.Errorf("plan after sync: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	st := s.Stats()
	t.Logf("faults %v, tokens %v", st.Faults, st.Requests[gate.EndpointToken])
	if st.Faults[gate.FaultError500]+st.Faults[gate.FaultError503] == 0 || st.Count(gate.EndpointToken, 200) < 3 {
		t.Errorf("the test proves nothing: faults %v, token answers %v", st.Faults, st.Requests[gate.EndpointToken])
	}
}

// A service address with nothing listening fails plan and validate
// --check-target in seconds, naming the address and what to check, and
// each retry says which attempt it was (of the 3 such an address gets) and
// how long until the next, without an internal package's name.
func TestDeadAddressFailsFast(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	url := "http://" + testenv.RefusedAddr(t)
	cfg := configFor(t, dir, "csv", url)
	for _, args := range [][]string{{"plan", "--config", cfg}, {"validate", "--check-target", "--config", cfg}} {
		start := time.Now()
		r := runBinary(t, nil, args...)
		elapsed := time.Since(start)
		out := r.stdout + r.stderr
		if r.code != exitError || elapsed > 15*time.Second {
			t.Errorf("%s: exit %d after %s, want 1 within seconds\n%s", args[0], r.code, elapsed, out)
		}
		for _, want := range []string{url, "connection refused", "target.baseURL", "attempt 1 of 3", "next attempt in"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: output does not say %q:\n%s", args[0], want, out)
			}
		}
		if strings.Contains(out, "umapi") || strings.Contains(out, "of 9") {
			t.Errorf("%s: output names an internal package or counts attempts the address does not get:\n%s", args[0], out)
		}
	}
}

// A desired independent ID whose invite expired is invited again by one
// sync, whether the service resends expired invites or answers 404, and
// the next plan exits 0.
func TestExpiredInviteInvitedAgain(t *testing.T) {
	t.Parallel()
	for _, resendable := range []bool{false, true} {
		name := "expired invites answer 404"
		if resendable {
			name = "expired invites can be resent"
		}
		t.Run(name, func(t *testing.T) {
			dir := exampleDir(t)
			sent := time.Now().Add(-40 * 24 * time.Hour).UnixMilli()
			appendFile(t, filepath.Join(dir, "sim", "org.yaml"),
				"invites:\n  - {email: gina@gmail.com, lastSentDTS: "+strconv.FormatInt(sent, 10)+", groups: [Engineering]}\n")
			csv := filepath.Join(dir, "csv", "users.csv")
			if err := os.WriteFile(csv, []byte("firstname,lastname,email,country,groups,type\nGina,Green,gina@gmail.com,IT,\"eng,design\",vendorID\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			s := startSim(t, dir, umsim.Options{ResendExpired: resendable})
			cfg := configFor(t, dir, "csv", s.url, "unmatchedUsers: remove-groups", "unmatchedUsers: preserve")
			if r := runBinary(t, nil, "sync", "--config", cfg); r.code != exitOK {
				t.Fatalf("sync: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			var invite *umsim.Invite
			for _, in := range s.Snapshot().Invites {
				if in.Email == "gina@gmail.com" {
					invite = &in
				}
			}
			if invite == nil || invite.LastSentDTS <= sent || !hasFold(invite.Groups, "Design") {
				t.Fatalf("invite after sync: %+v; want it sent again with Design", invite)
			}
			if r := runBinary(t, nil, "plan", "--config", cfg, "--detailed-exitcode"); r.code != exitOK {
				t.Errorf("plan after sync: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
		})
	}
}
