package incremental

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/store/snapshot"
	"github.com/orgsync/orgsync/reconcile"
)

var (
	t0 = time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	fp = snapshot.Fingerprint("1234ABCD@VendorOrg", "https://um.example.com")
)

func settings(t *testing.T, st *snapshot.Store, now time.Time) Settings {
	t.Helper()
	return Settings{Store: st, Org: "main", OrgID: "1234ABCD@VendorOrg", Fingerprint: fp, Clock: func() time.Time { return now }}
}

// TestBeginDecides: every reason for a full read, and the incremental
// run's own, as Begin says them.
func TestBeginDecides(t *testing.T) {
	t.Parallel()
	good := func() *snapshot.Snapshot {
		return &snapshot.Snapshot{Fingerprint: fp, Org: "1234ABCD@VendorOrg", FullRead: t0, Saved: t0,
			Users: reconcile.UsersOf(reconcile.User{Type: reconcile.EnterpriseID, Email: "a@example.com", Groups: []string{"G1"}})}
	}
	need := reconcile.ReadNeeds{Groups: []string{"G1"}, DesiredKnown: true}
	tests := []struct {
		name    string
		prepare func(st *snapshot.Store, dir string)
		full    bool
		need    reconcile.ReadNeeds
		at      time.Duration // after t0
		kind    Kind
		reason  string
		warn    bool
	}{
		{name: "first run", kind: Full, reason: "first run with incremental runs: no snapshot of this organization yet"},
		{name: "fresh", prepare: save(good()), at: 3 * time.Hour, kind: Incremental, reason: "last full read 3h ago, next in 21h"},
		{name: "--full", prepare: save(good()), full: true, kind: Full, reason: "--full asks for it"},
		{name: "old", prepare: save(good()), at: 25 * time.Hour, kind: Full, reason: "last full read 25h ago; incremental.fullEvery is 24h"},
		{name: "clock went back", prepare: save(good()), at: -time.Hour, kind: Full, reason: "the last full read is dated later than now: the clock changed"},
		{name: "another organization", prepare: save(with(good(), func(s *snapshot.Snapshot) { s.Fingerprint, s.Org = "x", "9999@VendorOrg" })),
			kind: Full, reason: "the snapshot is of another organization or service (organization 9999@VendorOrg): the target's orgId or baseURL changed"},
		{name: "doubt", prepare: save(with(good(), func(s *snapshot.Snapshot) { s.Doubt = "the run of 08:00 had no answer for a@example.com" })),
			kind: Full, reason: "the run of 08:00 had no answer for a@example.com"},
		{name: "a run stopped while sending", prepare: func(st *snapshot.Store, dir string) {
			save(good())(st, dir)
			st.MarkSending("main", "run of pid 7, since 08:59")
		}, kind: Full, reason: "a run stopped between sending changes and recording them in the snapshot (run of pid 7, since 08:59)"},
		{name: "damaged", prepare: func(st *snapshot.Store, dir string) {
			save(good())(st, dir)
			path := filepath.Join(dir, snapshot.Folder, "org-main.snapshot")
			b, _ := os.ReadFile(path)
			b[len(b)/2] ^= 1
			os.WriteFile(path, b, 0o600)
		}, kind: Full, warn: true, reason: "the snapshot cannot be read (damaged: its checksum does not match its content); the full read makes a new one"},
		{name: "another format", prepare: func(st *snapshot.Store, dir string) {
			os.MkdirAll(filepath.Join(dir, snapshot.Folder), 0o700)
			os.WriteFile(filepath.Join(dir, snapshot.Folder, "org-main.snapshot"), []byte("orgsync snapshot\n\x07..."), 0o600)
		}, kind: Full, reason: "the snapshot is of another format version of orgsync (another format version: format 7, this version of orgsync reads format 1)"},
		{name: "read by group, every user needed", prepare: save(with(good(), byGroup("G1"))), need: reconcile.ReadNeeds{AllUsers: true},
			kind: Full, reason: "the last full read read only the managed groups' members, and the policy now needs every user of the organization"},
		{name: "read by group, another group", prepare: save(with(good(), byGroup("G1"))), need: reconcile.ReadNeeds{Groups: []string{"g1", "G2"}},
			kind: Full, reason: "the managed groups changed since the last full read, which read only the members of those it had"},
		{name: "read by group, the same groups", prepare: save(with(good(), byGroup("G1", "G2"))), need: reconcile.ReadNeeds{Groups: []string{"g2"}},
			kind: Incremental, reason: "last full read 0s ago, next in 24h"},
		{name: "invites to revoke", prepare: save(good()), need: reconcile.ReadNeeds{RevokeInvites: true},
			kind: Full, reason: "the policy now revokes invites, and the last full read did not read them"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			st := snapshot.Open(dir)
			if tc.prepare != nil {
				tc.prepare(st, dir)
			}
			s := settings(t, st, t0.Add(tc.at))
			s.Full = tc.full
			n := need
			if tc.need.Groups != nil || tc.need.AllUsers || tc.need.RevokeInvites {
				n = tc.need
			}
			r := Begin(s, n)
			if r.Kind() != tc.kind || r.Reason() != tc.reason || r.Warn() != tc.warn {
				t.Errorf("%s (%q, warn %v), want %s (%q, warn %v)", r.Kind(), r.Reason(), r.Warn(), tc.kind, tc.reason, tc.warn)
			}
		})
	}
}

func save(s *snapshot.Snapshot) func(*snapshot.Store, string) {
	return func(st *snapshot.Store, _ string) {
		if err := st.Save("main", s); err != nil {
			panic(err)
		}
	}
}

func with(s *snapshot.Snapshot, change func(*snapshot.Snapshot)) *snapshot.Snapshot {
	change(s)
	return s
}

func byGroup(groups ...string) func(*snapshot.Snapshot) {
	return func(s *snapshot.Snapshot) { s.ByGroup, s.ReadGroups = true, groups }
}

func TestApprox(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		0: "0s", 12*time.Second + 400*time.Millisecond: "12s", 59*time.Second + 600*time.Millisecond: "1m", 44*time.Minute + 31*time.Second: "45m", 3 * time.Hour: "3h", 3*time.Hour + 20*time.Minute: "3h20m",
		47 * time.Hour: "47h", 52 * time.Hour: "2d4h", -time.Hour: "0s",
	} {
		if got := Approx(d); got != want {
			t.Errorf("Approx(%v) = %q, want %q", d, got, want)
		}
	}
}
