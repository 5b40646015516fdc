package run

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/examples"
	"github.com/orgsync/orgsync/internal/demo/simserver"
	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/target/umsim"
)

// tripped is the CSV example against a simulator of the example
// organizations over loopback HTTP, which counts what it is asked to
// change, with a removal limit of 1 (its plan removes bob's Design and
// mallory's groups: 2) and extra added to the safety section.
type tripped struct {
	path    string // the configuration
	csv     string // its users file
	changes *simserver.Changes
}

func newTripped(t *testing.T, extra string) *tripped {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, examples.FS); err != nil {
		t.Fatal(err)
	}
	sim, err := simserver.Load(filepath.Join(dir, "sim", "orgs.yaml"), umsim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h, changes := simserver.Count(sim)
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	tr := &tripped{path: filepath.Join(dir, "csv", "orgsync.yaml"), csv: filepath.Join(dir, "csv", "users.csv"), changes: changes}
	tr.edit(t, tr.path, "http://127.0.0.1:8080", hs.URL)
	tr.edit(t, tr.path, "maxRemovals: 50%", "maxRemovals: 1"+extra)
	return tr
}

// edit replaces old with new in the file at path.
func (tr *tripped) edit(t *testing.T, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(data), old) {
		t.Fatalf("%s lacks %q (%v)", path, old, err)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), old, new, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
}

// job is a Job of the configuration as it is now, made as every command
// makes one, without an observer (as internal/admin makes one).
func (tr *tripped) job(t *testing.T) *Job {
	t.Helper()
	cfg, err := config.Load(tr.path)
	if err != nil {
		t.Fatal(err)
	}
	j, err := New(cfg, Overrides{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// sync runs the configuration once (job).
func (tr *tripped) sync(t *testing.T, mode Mode) *Result {
	t.Helper()
	res, _ := tr.job(t).Sync(context.Background(), mode, nil)
	return res[0]
}

// TestGateStopSendsNothing: over the limit with onLimit stop, a Job with
// no observer at all sends nothing, and says so.
func TestGateStopSendsNothing(t *testing.T) {
	tr := newTripped(t, "\n  onLimit: stop")
	r := tr.sync(t, Real)
	if r.Err == nil || !strings.Contains(r.Err.Error(), "(safety.onLimit: stop): nothing sent, every change withheld") || !r.Decision.Stopped {
		t.Errorf("stopped run: %v, decision %+v", r.Err, r.Decision)
	}
	if n := tr.changes.Writes(); n != 0 {
		t.Errorf("a stopped run sent %d requests that change something, want 0", n)
	}
}

// TestGateHoldWithoutStateDir: hold with nowhere to keep an approval
// sends the safe changes, nothing destructive, and fails.
func TestGateHoldWithoutStateDir(t *testing.T) {
	tr := newTripped(t, "")
	r := tr.sync(t, Real)
	if r.Err == nil || tr.changes.Destructive() != 0 || tr.changes.Writes() == 0 {
		t.Errorf("hold without state.dir: %v, %d destructive steps of %d writes; want a failure, 0 destructive and the safe changes sent",
			r.Err, tr.changes.Destructive(), tr.changes.Writes())
	}
}

// TestGateQuarantine: held removals stay held after a run under the
// limit; the run narrows the approval (recorded in it); a new removal
// counts with the held one and is held in turn; a release sends the held
// changes still wanted and nothing else, and closes the approval with
// who decided.
func TestGateQuarantine(t *testing.T) {
	tr := newTripped(t, "\nstate:\n  dir: state")
	r := tr.sync(t, Real)
	if r.Err != nil || r.Decision.Created == nil || len(r.Decision.Created.Changes) != 2 || tr.changes.Destructive() != 0 {
		t.Fatalf("first run: %v, decision %+v, %d destructive; want the 2 removals held, nothing destructive sent", r.Err, r.Decision, tr.changes.Destructive())
	}
	first := r.Decision.Created.ID

	// Bob is in design again: one held change left, within the limit of 1.
	tr.edit(t, tr.csv, "bob@example.com,DE,eng", `bob@example.com,DE,"eng,design"`)
	r = tr.sync(t, Real)
	if r.Err != nil || tr.changes.Destructive() != 0 || len(r.Decision.Quarantined) != 1 || r.Decision.Created != nil {
		t.Fatalf("run under the limit: %v, decision %+v, %d destructive; want mallory's removal still held", r.Err, r.Decision, tr.changes.Destructive())
	}
	if len(r.Decision.Narrowed) != 1 || len(r.Decision.Narrowed[0].Dropped) != 1 || r.Decision.Held() != 1 {
		t.Errorf("narrowed %+v, held %d; want bob's change dropped and 1 still held", r.Decision.Narrowed, r.Decision.Held())
	}
	cfg, _ := config.Load(tr.path)
	dir, err := store.Open(cfg.State.Dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := dir.Approval(first)
	if err != nil || a.Status != store.Pending || len(a.Changes) != 1 || len(a.Narrowed) != 1 || a.Narrowed[0].Left != 1 {
		t.Fatalf("approval after the narrowing: %+v, %v", a, err)
	}

	// Carol loses marketing: 1 new removal with the 1 held is 2, over 1.
	tr.edit(t, tr.csv, `carol@example.com,GB,"design,marketing"`, "carol@example.com,GB,design")
	r = tr.sync(t, Real)
	if r.Err != nil || r.Decision.Created == nil || len(r.Decision.Created.Changes) != 1 || tr.changes.Destructive() != 0 {
		t.Fatalf("a new removal while one is held: %v, decision %+v, %d destructive; want it held in a new approval", r.Err, r.Decision, tr.changes.Destructive())
	}

	// Approve the first: mallory's removal (two groups), nothing of carol's.
	j, err := New(cfg, Overrides{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	plans, err := j.Plan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	by := store.Decider{By: "alice", Via: "test"}
	if _, err := j.Release(plans.Orgs[0], r.Decision.Created.ID+"0", by, Real); err == nil {
		t.Error("releasing an id that names no approval did not fail")
	}
	g, err := j.Release(plans.Orgs[0], first, by, Real)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Release(plans.Orgs[0], first, by, Real); err == nil {
		t.Error("an approval being applied was released twice")
	}
	res := j.Apply(context.Background(), g)
	if res.Err != nil || tr.changes.Destructive() != 1 || len(res.Plan.Changes) != 1 || res.Plan.Changes[0].Key() != "mallory@example.com" {
		t.Errorf("release: %v, %d destructive steps sent; want mallory's removal from her 2 groups (one step) only", res.Err, tr.changes.Destructive())
	}
	if a, _ = dir.Approval(first); a.Status != store.Approved || a.Decided.String() != "alice via test" || a.Closed.IsZero() {
		t.Errorf("released approval: %+v", a)
	}
}

// TestDryGateWritesNothing: a plan shows what the gate would hold and
// narrow, and leaves the approvals as they are.
func TestDryGateWritesNothing(t *testing.T) {
	tr := newTripped(t, "\nstate:\n  dir: state")
	first := tr.sync(t, Real).Decision.Created
	tr.edit(t, tr.csv, "bob@example.com,DE,eng", `bob@example.com,DE,"eng,design"`)
	cfg, _ := config.Load(tr.path)
	_, plans := planJob(t, cfg, Overrides{}, Options{})
	d := plans.Gated[0].Decision()
	if len(d.Narrowed) != 1 || len(d.Quarantined) != 1 || !strings.Contains(strings.Join(plans.Gated[0].OrgPlan().Plan.Notes, "\n"), "approval "+first.ID+" holds 1 change") {
		t.Errorf("dry gate: %+v, notes %q", d, plans.Gated[0].OrgPlan().Plan.Notes)
	}
	dir, _ := store.Open(cfg.State.Dir, store.Options{})
	if a, err := dir.Approval(first.ID); err != nil || len(a.Changes) != 2 || len(a.Narrowed) != 0 {
		t.Errorf("a dry gate changed the approval: %+v, %v", a, err)
	}
	if plans.Orgs[0].Err != nil || tr.changes.Destructive() != 0 {
		t.Errorf("plan: %v, %d destructive", plans.Orgs[0].Err, tr.changes.Destructive())
	}
}

// TestFailedRunsSayTheirPhase: a run that fails before it can apply says
// where: a secret that cannot be read, a sign-in that fails (credentials
// the authorization server refuses, or an authorization server that
// cannot be reached), a service that does not answer once signed in, a
// source that cannot be read.
func TestFailedRunsSayTheirPhase(t *testing.T) {
	const closed = "http://127.0.0.1:1"
	for _, tc := range []struct {
		name, old, new, phase string
	}{
		{"secret", "clientSecret: {file: ../sim/demo-client-secret}", "clientSecret: {env: ORGSYNC_TEST_UNSET_SECRET}", PhaseSecret},
		{"credentials refused", "clientId: orgsync-demo", "clientId: someone-else", PhaseSignIn},
		{"token endpoint unreachable", "target:\n", "target:\n  authBaseURL: " + closed + "\n", PhaseSignIn},
		{"service unreachable", "", "", PhaseRead},
		{"source", "path: users.csv", "path: missing.csv", PhaseSources},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTripped(t, "")
			tr.edit(t, tr.path, "target:\n", "target:\n  retries: {max: 0}\n")
			if tc.old != "" {
				tr.edit(t, tr.path, tc.old, tc.new)
			} else { // signed in at the service's address, which then is another
				data, _ := os.ReadFile(tr.path)
				url := strings.SplitN(strings.SplitN(string(data), "baseURL: ", 2)[1], "\n", 2)[0]
				tr.edit(t, tr.path, "baseURL: "+url, "baseURL: "+closed+"\n  authBaseURL: "+url)
			}
			if r := tr.sync(t, Real); r.Err == nil || r.Phase != tc.phase {
				t.Errorf("phase %q (%v), want %q", r.Phase, r.Err, tc.phase)
			}
		})
	}
}

// TestApprovalBeingAppliedStaysHeld: while orgsync approve applies an
// approval (claimed), a run beside it, under the limit, does not send its
// changes itself.
func TestApprovalBeingAppliedStaysHeld(t *testing.T) {
	tr := newTripped(t, "\nstate:\n  dir: state")
	a := tr.sync(t, Real).Decision.Created
	cfg, _ := config.Load(tr.path)
	dir, _ := store.Open(cfg.State.Dir, store.Options{})
	if _, _, _, err := dir.Claim(a.ID, store.NewClaimant("r1", store.Decider{By: "alice"}, nil)); err != nil {
		t.Fatal(err)
	}
	tr.edit(t, tr.csv, "bob@example.com,DE,eng", `bob@example.com,DE,"eng,design"`) // mallory's removal alone: within the limit
	if r := tr.sync(t, Real); r.Err != nil || tr.changes.Destructive() != 0 || len(r.Decision.Quarantined) != 1 {
		t.Errorf("a run beside an approval being applied: %v, %d destructive, quarantined %v", r.Err, tr.changes.Destructive(), r.Decision.Quarantined)
	}
}
