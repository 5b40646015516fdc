package changecontrol

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/changecontrol/notify"
	"github.com/orgsync/orgsync/internal/changecontrol/planfile"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/reconcile"
)

// The change control's own paths, failures first, against its state
// directory in the test's folder, whose writes fail where the test says
// (store.Options.Faults, as a full disk would), and a webhook the test
// hears. The outcomes here are given to the Control as a run would give
// them; the runs that plan and apply (approve, standings, saved plans)
// run against the simulator over loopback.

// hookServer is a webhook: it keeps every notification posted to it and
// answers status (200 until set).
type hookServer struct {
	url    string
	status atomic.Int32
	mu     sync.Mutex
	events []notify.Event
}

func startHookServer(t *testing.T) *hookServer {
	t.Helper()
	h := &hookServer{}
	h.status.Store(http.StatusOK)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ev notify.Event
		if err := json.NewDecoder(r.Body).Decode(&ev); err != nil {
			http.Error(w, "not an event", http.StatusBadRequest)
			return
		}
		h.mu.Lock()
		h.events = append(h.events, ev)
		h.mu.Unlock()
		w.WriteHeader(int(h.status.Load()))
	}))
	t.Cleanup(s.Close)
	h.url = s.URL + "/hook"
	return h
}

// heard returns the notifications posted so far.
func (h *hookServer) heard() []notify.Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]notify.Event(nil), h.events...)
}

// unit is a change control of the CSV example (a removal limit of 1,
// state.dir in the test's folder), notifying h (with every change
// applied, one retry at once), whose state directory's writes ask
// faults first (nil: none fails); logs hears its log.
type unit struct {
	c    *Control
	cfg  *config.Config
	path string // the configuration file
	logs *observer.ObservedLogs
}

func newUnit(t *testing.T, h *hookServer, faults func(step string) error) *unit {
	t.Helper()
	path, _ := csvExample(t, true)
	hookFile := filepath.Join(t.TempDir(), "hook-url")
	if err := os.WriteFile(hookFile, []byte(h.url), 0o600); err != nil {
		t.Fatal(err)
	}
	rewrite(t, path, "safety:", "notify:\n  onChanges: true\n  webhooks: [{url: {file: "+hookFile+"}}]\n  retries: {max: 1, minWait: 1ms, maxWait: 1ms}\n  timeout: 5s\nsafety:")
	cfg := load(t, path)
	core, logs := observer.New(zapcore.InfoLevel)
	return &unit{c: New(cfg, zap.New(core)).WithFaults(faults), cfg: cfg, path: path, logs: logs}
}

// failing fails every write whose step begins with one of prefixes, as a
// full disk does.
func failing(prefixes ...string) func(string) error {
	return func(step string) error {
		for _, p := range prefixes {
			if strings.HasPrefix(step, p) {
				return syscall.ENOSPC
			}
		}
		return nil
	}
}

// created is the result of a real run that created ann.
func created(t *testing.T, u *unit) *run.Result {
	t.Helper()
	start := time.Now()
	ch := reconcile.Change{Kind: reconcile.KindCreate, User: reconcile.User{Type: reconcile.FederatedID, Email: "ann@example.com", Country: "US"}}
	return &run.Result{Org: u.cfg.Primary(), Mode: run.Real, Run: run.RunID(start), Start: start,
		Plan: &reconcile.Plan{Changes: []reconcile.Change{ch}}, Applied: &reconcile.Result{Requests: 1, Entries: 1},
		ByKind: map[string]int{string(reconcile.KindCreate): 1}}
}

// TestAppliedIsRecordedAndNotified: a run that applied a change leaves a
// run record, a history entry and one notification.
func TestAppliedIsRecordedAndNotified(t *testing.T) {
	t.Parallel()
	h := startHookServer(t)
	u := newUnit(t, h, nil)
	if !u.c.Applied(created(t, u)) || u.c.Unrecorded() || u.c.Heard() != 1 {
		t.Fatalf("Applied: unrecorded %v, heard %d", u.c.Unrecorded(), u.c.Heard())
	}
	u.c.Wait()
	runs, _ := u.c.StateDir().Runs(0)
	entries, _ := u.c.StateDir().History(store.Filter{User: "ann@example.com"})
	if len(runs) != 1 || runs[0].Result != store.RunSuccess || runs[0].Mode != ModeSync || len(entries) != 1 || entries[0].Result != store.ResultApplied {
		t.Errorf("runs %+v, ann's history %+v", runs, entries)
	}
	if ev := h.heard(); len(ev) != 1 || ev[0].Kind != notify.Changes || ev[0].Summary != "1 change applied" || len(ev[0].Changes) != 1 {
		t.Errorf("notifications %+v, want the one change applied", ev)
	}
}

// TestHistoryThatCannotBeWrittenFailsTheRun: a run whose history cannot
// be written (a full disk) is recorded as failed in phase record, not as
// a success; the command learns that changes went unrecorded (exit 3),
// and the notification is that failure, with the changes sent. When the
// run record cannot be written either, the failure is still told.
func TestHistoryThatCannotBeWrittenFailsTheRun(t *testing.T) {
	t.Parallel()
	h := startHookServer(t)
	u := newUnit(t, h, failing("append history.jsonl"))
	if u.c.Applied(created(t, u)) || !u.c.Unrecorded() {
		t.Fatalf("a run whose history was not written was recorded (unrecorded %v)", u.c.Unrecorded())
	}
	u.c.Wait()
	runs, _ := u.c.StateDir().Runs(0)
	if len(runs) != 1 || runs[0].Result != store.RunFailure || runs[0].Phase != run.PhaseRecord ||
		!strings.Contains(runs[0].Error, "the history of its changes could not be written") {
		t.Errorf("run records %+v, want the run failed in phase record", runs)
	}
	ev := h.heard()
	if len(ev) != 1 || ev[0].Kind != notify.Failure || ev[0].Phase != run.PhaseRecord || !strings.Contains(ev[0].Summary, "could not record it") ||
		len(ev[0].Changes) != 1 || !strings.Contains(ev[0].Error, "no space left on device") {
		t.Errorf("notifications %+v, want the failure to record, with the change", ev)
	}
	if n := len(u.logs.FilterMessage("the outcome could not be recorded in the state directory").All()); n != 1 {
		t.Errorf("%d error lines for the unrecorded outcome, want 1", n)
	}

	h2 := startHookServer(t)
	full := newUnit(t, h2, failing("append"))
	if full.c.Applied(created(t, full)) || !full.c.Unrecorded() {
		t.Fatal("a run neither in the history nor in the run records was recorded")
	}
	full.c.Wait()
	if runs, _ := full.c.StateDir().Runs(0); len(runs) != 0 {
		t.Errorf("run records %+v on a full disk", runs)
	}
	if ev := h2.heard(); len(ev) != 1 || ev[0].Kind != notify.Failure || ev[0].Phase != run.PhaseRecord {
		t.Errorf("notifications %+v, want the failure to record", ev)
	}
}

// TestUnusableStateDirFailsTheRecord: a state.dir that cannot be opened
// (a file is in its place) is logged once, and every outcome is then
// unrecorded and told as such; without state.dir nothing is recorded and
// nothing is missing.
func TestUnusableStateDirFailsTheRecord(t *testing.T) {
	t.Parallel()
	h := startHookServer(t)
	u := newUnit(t, h, nil)
	if err := os.WriteFile(filepath.Join(filepath.Dir(u.path), "state"), []byte("not a folder"), 0o600); err != nil {
		t.Fatal(err)
	}
	if u.c.Applied(created(t, u)) || !u.c.Unrecorded() || u.c.StateDir() != nil {
		t.Fatal("an outcome was recorded in a state directory that cannot be opened")
	}
	u.c.Wait()
	if n := len(u.logs.FilterMessageSnippet("state directory unusable").All()); n != 1 {
		t.Errorf("%d log lines for the unusable state directory, want 1", n)
	}
	if ev := h.heard(); len(ev) != 1 || ev[0].Kind != notify.Failure || !strings.Contains(ev[0].Error, "cannot be used") {
		t.Errorf("notifications %+v", ev)
	}
	if _, err := u.c.Reject("0123abcd", alice); !errors.Is(err, ErrNoStateDir) {
		t.Errorf("Reject without a usable state directory: %v", err)
	}
	if got := u.c.PendingApprovals(); got != nil {
		t.Errorf("pending approvals %v without a state directory", got)
	}

	path, _ := csvExample(t, false)
	c := New(load(t, path), zap.NewNop())
	if !c.Applied(&run.Result{Org: &config.NamedTarget{Name: "default"}, Mode: run.Real}) || c.Unrecorded() {
		t.Error("without state.dir an outcome has nothing to miss")
	}
}

// TestNotificationThatFailsHoldsNothing: a webhook that answers 500 is
// tried again (notify.retries), logged when it gives up, and the run is
// recorded all the same; a notify section that cannot be built (a CA
// file that is not there) sends nothing and says why, and records all
// the same.
func TestNotificationThatFailsHoldsNothing(t *testing.T) {
	t.Parallel()
	h := startHookServer(t)
	h.status.Store(http.StatusInternalServerError)
	u := newUnit(t, h, nil)
	if !u.c.Applied(created(t, u)) {
		t.Fatal("a failed notification failed the record")
	}
	u.c.Wait()
	if n := len(h.heard()); n != 2 {
		t.Errorf("the webhook was tried %d times, want 2 (notify.retries.max 1)", n)
	}
	if n := len(u.logs.FilterMessage("notification not sent").All()); n != 1 {
		t.Errorf("%d log lines for the lost notification, want 1", n)
	}
	if runs, _ := u.c.StateDir().Runs(0); len(runs) != 1 || runs[0].Result != store.RunSuccess {
		t.Errorf("run records %+v", runs)
	}

	h2 := startHookServer(t)
	u2 := newUnit(t, h2, nil)
	u2.cfg.Notify.Email = &config.Email{Host: "127.0.0.1", Port: 25, From: "orgsync@example.com", To: []string{"ops@example.com"},
		CAFile: filepath.Join(t.TempDir(), "missing-ca.pem")}
	if !u2.c.Applied(created(t, u2)) {
		t.Fatal("a notify section that cannot be built failed the record")
	}
	u2.c.Wait()
	if len(h2.heard()) != 0 {
		t.Errorf("notified %v with a notify section that cannot be built", h2.heard())
	}
	if logged := u2.logs.FilterMessage("notifications not sent").All(); len(logged) != 1 ||
		!strings.Contains(logged[0].ContextMap()["error"].(string), "notify.email.caFile") {
		t.Errorf("log lines %v, want the notifications not sent, naming notify.email.caFile", u2.logs.All())
	}
	notPEM := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	u2.cfg.Notify.Email.CAFile = notPEM
	if _, err := Dispatcher(u2.cfg, zap.NewNop()); err == nil || !strings.Contains(err.Error(), "holds no PEM certificate") {
		t.Errorf("a CA file without a certificate: %v", err)
	}
}

// TestFailedToLoadIsRecordedUnlessItsSectionsAreBroken: a configuration
// that does not load (a misspelt policy value) is a failed run of phase
// configuration, recorded and told; one whose notify section is broken
// leaves nothing to trust (nil).
func TestFailedToLoadIsRecordedUnlessItsSectionsAreBroken(t *testing.T) {
	t.Parallel()
	h := startHookServer(t)
	u := newUnit(t, h, nil)
	rewrite(t, u.path, "unmatchedUsers: remove-groups", "unmatchedUsers: sometimes")
	_, err := config.Load(u.path)
	var cerr *config.Error
	if !errors.As(err, &cerr) {
		t.Fatalf("a misspelt policy value loaded: %v", err)
	}
	c := FailedToLoad(cerr, zap.NewNop(), ModeApply)
	if c == nil {
		t.Fatal("the failure to load was not recorded")
	}
	c.Wait()
	runs, _ := c.StateDir().Runs(0)
	if len(runs) != 1 || runs[0].Result != store.RunFailure || runs[0].Phase != run.PhaseConfig || runs[0].Mode != ModeApply ||
		!strings.Contains(runs[0].Error, "sometimes") {
		t.Errorf("run records %+v, want the apply failed in phase configuration", runs)
	}
	if ev := h.heard(); len(ev) != 1 || ev[0].Kind != notify.Failure || ev[0].Phase != run.PhaseConfig {
		t.Errorf("notifications %+v", ev)
	}

	rewrite(t, u.path, "onChanges: true", "onChanges: sometimes")
	_, err = config.Load(u.path)
	if !errors.As(err, &cerr) {
		t.Fatalf("a broken notify section loaded: %v", err)
	}
	if c := FailedToLoad(cerr, zap.NewNop(), ModeSync); c != nil {
		t.Error("a configuration whose notify section is broken was trusted to record its failure")
	}
}

// TestRejectIsRecordedAndToldOrFailsWhole: rejecting a pending approval
// closes it, records a run of mode reject and a history entry (rejected)
// of each change, and tells it; approving it then says who rejected it.
// A rejection the state directory cannot write is a failed run of phase
// gate, told as such, and the approval stays pending; an id of no
// pending approval is only an error.
func TestRejectIsRecordedAndToldOrFailsWhole(t *testing.T) {
	t.Parallel()
	for _, fails := range []bool{false, true} {
		h := startHookServer(t)
		path, _, id := heldFixture(t)
		hookFile := filepath.Join(t.TempDir(), "hook-url")
		if err := os.WriteFile(hookFile, []byte(h.url), 0o600); err != nil {
			t.Fatal(err)
		}
		rewrite(t, path, "safety:", "notify:\n  webhooks: [{url: {file: "+hookFile+"}}]\nsafety:")
		cfg := load(t, path)
		var faults func(string) error
		if fails {
			faults = failing("save " + id + " rejected")
		}
		c := New(cfg, zap.NewNop()).WithFaults(faults)
		auditor := store.Decider{By: "auditor", Via: "orgsync reject"}
		a, err := c.Reject(id, auditor)
		c.Wait()
		runs, _ := c.StateDir().Runs(0)
		last := runs[len(runs)-1]
		ev := h.heard()
		if !fails {
			entries, _ := c.StateDir().History(store.Filter{})
			rejected := 0
			for _, e := range entries {
				if e.Approval == id && e.Result == store.ResultRejected && e.DecidedBy == auditor.String() {
					rejected++
				}
			}
			if err != nil || a.Status != store.Rejected || last.Mode != ModeReject || last.Result != store.RunSuccess || last.Approval != id || rejected != 2 {
				t.Errorf("reject: %v, status %s, last run %+v, %d history entries rejected (want 2)", err, a.Status, last, rejected)
			}
			if len(ev) != 1 || ev[0].Kind != notify.Rejected || !strings.Contains(ev[0].Summary, "rejected by auditor") || len(ev[0].Changes) != 2 {
				t.Errorf("notifications %+v, want the rejection", ev)
			}
			j, jerr := run.New(cfg, run.Overrides{}, run.Options{Observer: c})
			if jerr != nil {
				t.Fatal(jerr)
			}
			if _, err := c.Approve(context.Background(), j, id, quietView{}, ApproveOptions{By: alice}); err == nil ||
				!strings.Contains(err.Error(), "approval "+id+" is rejected already, by auditor via orgsync reject at ") {
				t.Errorf("approving a rejected approval: %v", err)
			}
			if _, err := c.Reject(id, auditor); err == nil {
				t.Error("a rejected approval was rejected again")
			}
			continue
		}
		if err == nil || last.Mode != ModeReject || last.Result != store.RunFailure || last.Phase != run.PhaseGate ||
			!strings.Contains(last.Error, "rejecting approval "+id) {
			t.Errorf("reject on a full disk: %v, last run %+v; want a failure of phase gate", err, last)
		}
		if len(ev) != 1 || ev[0].Kind != notify.Failure || ev[0].Summary != "rejecting approval "+id+" failed: it could not be written" {
			t.Errorf("notifications %+v, want the failed rejection", ev)
		}
		pending, perr := New(cfg, zap.NewNop()).Pending()
		if perr != nil || len(pending) != 1 || pending[0].ID != id {
			t.Errorf("after a rejection that could not be written: pending %v, %v; want %s still pending", pending, perr, id)
		}
	}
	path, _ := csvExample(t, true)
	if _, err := New(load(t, path), zap.NewNop()).Reject("0123abcd", alice); err == nil {
		t.Error("a rejection of no approval succeeded")
	}
}

// TestStandingsSayWhatApprovingWouldApply: a fresh plan says of a pending
// approval how many of its changes the sources still ask for and how many
// they no longer do; nothing pending asks for no plan.
func TestStandingsSayWhatApprovingWouldApply(t *testing.T) {
	t.Parallel()
	path, _, id := heldFixture(t)
	cfg := load(t, path)
	c := New(cfg, zap.NewNop())
	j, err := run.New(cfg, run.Overrides{}, run.Options{Observer: c})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := c.Standings(context.Background(), j, nil); err != nil || len(got) != 0 {
		t.Errorf("standings of nothing: %v, %v", got, err)
	}
	pending := c.PendingApprovals()
	if got, err := c.Standings(context.Background(), j, pending); err != nil || got[id] != (Standing{Wanted: 2}) {
		t.Errorf("standings %v, %v; want %s: 2 wanted", got, err, id)
	}
	rewrite(t, filepath.Join(filepath.Dir(path), "users.csv"), "bob@example.com,DE,eng", `bob@example.com,DE,"eng,design"`)
	if got, err := c.Standings(context.Background(), j, pending); err != nil || got[id] != (Standing{Wanted: 1, Dropped: 1}) {
		t.Errorf("standings once bob is in design again: %v, %v; want 1 wanted, 1 dropped", got, err)
	}
}

// TestInvitesAndCommandFailuresAreRecorded: an invite resent outside a
// run is recorded (mode, history entry with its reason) and told; one
// that failed is a failed run of phase apply; a command that failed
// before it ran (FailedCommand) is recorded with its phase; a
// configuration that stopped loading is told.
func TestInvitesAndCommandFailuresAreRecorded(t *testing.T) {
	t.Parallel()
	h := startHookServer(t)
	u := newUnit(t, h, nil)
	c := u.c.For(ModeResend)
	org := u.cfg.Primary()
	c.Invited(org, reconcile.KindResendInvite, "ivy@example.com", time.Now(), nil)
	c.Invited(org, reconcile.KindResendInvite, "ivo@example.com", time.Now(), errors.New("the service refused it"))
	c.FailedCommand([]*config.NamedTarget{org}, run.InPhase(run.PhaseSavedPlan, errors.New("refused: the saved plan is old")))
	c.NotifyConfigError(u.path, []string{org.Name}, errors.New("policy.unmatchedUsers: sometimes"))
	c.Wait()
	runs, _ := c.StateDir().Runs(0)
	if len(runs) != 3 || runs[0].Mode != ModeResend || runs[0].Result != store.RunSuccess ||
		runs[1].Result != store.RunFailure || runs[1].Phase != run.PhaseApply || runs[2].Phase != run.PhaseSavedPlan {
		t.Errorf("run records %+v", runs)
	}
	entries, _ := c.StateDir().History(store.Filter{User: "ivy@example.com"})
	if len(entries) != 1 || entries[0].Kind != string(reconcile.KindResendInvite) || entries[0].Reason != "asked for with orgsync invites" {
		t.Errorf("ivy's history %+v", entries)
	}
	kinds := map[notify.Kind]int{}
	for _, ev := range h.heard() {
		kinds[ev.Kind]++
	}
	if kinds[notify.Changes] != 1 || kinds[notify.Failure] != 2 || kinds[notify.ConfigError] != 1 {
		t.Errorf("notifications by kind %v, want 1 changes, 2 failures, 1 config-error", kinds)
	}
}

// TestReportKeepsTheRunsHeard: with a report asked for, the changes
// applied are written to it, with the run; a report of another format is
// refused before the run; TakeRuns hands the runs heard over once, and a
// new daemon run starts an empty report.
func TestReportKeepsTheRunsHeard(t *testing.T) {
	t.Parallel()
	h := startHookServer(t)
	u := newUnit(t, h, nil)
	report := filepath.Join(t.TempDir(), "report.csv")
	if err := CheckReport(report); err != nil {
		t.Fatal(err)
	}
	if err := CheckReport("report.txt"); err == nil || !strings.Contains(err.Error(), "name a .csv or .html file") {
		t.Errorf("a .txt report: %v", err)
	}
	u.c.KeepReport(report)
	u.c.Applied(created(t, u))
	if err := u.c.WriteReport(report); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(report)
	if err != nil || !strings.Contains(string(data), "ann@example.com") {
		t.Errorf("the report (%v) lacks ann's creation:\n%s", err, data)
	}
	if runs := u.c.TakeRuns(); len(runs) != 1 || runs[0].Changes["create"] != 1 {
		t.Errorf("TakeRuns %+v", runs)
	}
	if runs := u.c.TakeRuns(); len(runs) != 0 {
		t.Errorf("the runs were handed over twice: %+v", runs)
	}
	u.c.BeginRun(u.cfg)
	u.c.Applied(created(t, u))
	html := filepath.Join(t.TempDir(), "report.html")
	if err := u.c.WriteReport(html); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(html); !strings.Contains(string(data), "ann@example.com") {
		t.Errorf("the HTML report of the next run lacks its change:\n%s", data)
	}
	if err := u.c.WriteReport(filepath.Join(t.TempDir(), "missing", "report.csv")); err == nil {
		t.Error("a report in a folder that is not there was written")
	}
}

// TestApproverIsWhoSaysSo: --by names the approver (trimmed); without it,
// the OS user does.
func TestApproverIsWhoSaysSo(t *testing.T) {
	t.Parallel()
	if d := Approver("  bob ", "orgsync approve"); d.By != "bob" || d.Via != "orgsync approve" {
		t.Errorf("Approver(bob) = %+v", d)
	}
	if d := Approver("", "orgsync approve"); d.By == "" || d.By != osUser() {
		t.Errorf("Approver() = %+v, want the OS user %q", d, osUser())
	}
}

// TestSavedPlanIsAppliedOnlyAsSaved: a plan saved and checked against a
// fresh plan of the same configuration is accepted; one older than
// --max-age, one made before the configuration changed, one the sources
// no longer give and one already applied are each refused, saying why,
// in phase saved-plan.
func TestSavedPlanIsAppliedOnlyAsSaved(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path, _ := csvExample(t, true)
	rewrite(t, path, "maxRemovals: 1", "maxRemovals: 50%")
	saved := filepath.Join(t.TempDir(), "plan.json")
	c := New(load(t, path), zap.NewNop())
	c.KeepFingerprints()
	if err := c.SavePlan(saved, "test", planWith(t, c), planfile.Flags{}); err != nil {
		t.Fatal(err)
	}
	check := func(maxAge time.Duration) (*run.Plans, *run.Job, error) {
		t.Helper()
		f, err := planfile.Read(saved)
		if err != nil {
			t.Fatal(err)
		}
		c := New(load(t, path), zap.NewNop())
		j, err := run.New(c.config(), run.Overrides{}, run.Options{Observer: c})
		if err != nil {
			t.Fatal(err)
		}
		plans, err := c.CheckSaved(ctx, j, f, maxAge)
		return plans, j, err
	}
	refused := func(what string, err error, want string) {
		t.Helper()
		if err == nil || run.PhaseOf(err) != run.PhaseSavedPlan || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want a refusal of phase saved-plan saying %q", what, err, want)
		}
	}
	_, _, err := check(time.Nanosecond)
	refused("a plan older than --max-age", err, "more than --max-age 1ns: make it again")
	users := filepath.Join(filepath.Dir(path), "users.csv")
	zed := "Bob,Builder,bob@example.com,DE,eng\nZed,Zero,zed@example.com,US,eng"
	rewrite(t, users, "Bob,Builder,bob@example.com,DE,eng", zed)
	_, _, err = check(time.Hour)
	refused("a plan the sources no longer give", err, "the saved plan is not what a fresh plan does")
	rewrite(t, users, zed, "Bob,Builder,bob@example.com,DE,eng")
	rewrite(t, path, "safety:", "# a comment\nsafety:")
	_, _, err = check(time.Hour)
	refused("a plan of a configuration changed since", err, "changed since the plan was made")
	rewrite(t, path, "# a comment\nsafety:", "safety:")
	fresh, j2, err := check(time.Hour)
	if err != nil {
		t.Fatalf("the plan as saved was refused: %v", err)
	}
	if _, err := j2.ApplyAll(ctx, fresh, run.Real); err != nil {
		t.Fatal(err)
	}
	_, _, err = check(time.Hour)
	refused("a plan applied already", err, "a fresh plan has nothing left to do")
}

// planWith plans c's configuration with c as the observer and runs the
// plans dry, as plan --out does before it saves them.
func planWith(t *testing.T, c *Control) *run.Plans {
	t.Helper()
	j, err := run.New(c.config(), run.Overrides{}, run.Options{Observer: c})
	if err != nil {
		t.Fatal(err)
	}
	plans, err := j.Plan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.ApplyAll(context.Background(), plans, run.Dry); err != nil {
		t.Fatal(err)
	}
	return plans
}
