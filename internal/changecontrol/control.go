// Package changecontrol is what surrounds a run so that it can run
// unattended. As a run.Observer it hears the results of a Job's runs
// (what the safety gate of internal/run sent, held or stopped, and the
// runs that failed) and records the history and the run record in the
// state directory (internal/store), collects the report and sends the
// notifications. It also lists, shows, approves (through the gate's
// Release) and rejects approvals, and saves and checks saved plans
// (internal/changecontrol/planfile).
package changecontrol

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/changecontrol/planfile"
	"github.com/orgsync/orgsync/internal/changecontrol/runreport"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/internal/util/atomicfile"
	"github.com/orgsync/orgsync/reconcile"
)

// Control hears the runs of one command (or of a daemon, run after run).
// It is safe for concurrent use: the organizations of a run report from
// their own goroutines.
type Control struct {
	log *zap.Logger

	once   sync.Once
	dir    *store.Dir
	dirErr error // why the state directory cannot be used

	sending sync.WaitGroup // notifications under way

	mu      sync.Mutex
	cfg     *config.Config
	current map[string]string // the fingerprint of each organization's users as read
	done    runreport.Report
	// report is set when a report is to be written (KeepReport): only then
	// are the changes applied kept, in a file beside it.
	report bool
	// prints asks for the fingerprints of the organizations' users (a
	// saved plan's).
	prints bool
	// unrecorded is set when changes were applied that the state
	// directory could not record.
	unrecorded bool
	// command is the mode of the run records of the runs heard (For).
	command string
	// heard counts the outcomes heard.
	heard int
	// faults is the state directory's store.Options.Faults (WithFaults).
	faults func(step string) error
}

// New returns the change control of cfg's runs.
func New(cfg *config.Config, log *zap.Logger) *Control {
	if log == nil {
		log = zap.NewNop()
	}
	return &Control{cfg: cfg, log: log, current: map[string]string{}, command: ModeSync}
}

// WithFaults sets the state directory's store.Options.Faults, before its
// first use: tests inject a full disk or a crash at each step of a write
// (the Jobs c hears take the same, run.Options.Faults).
func (c *Control) WithFaults(faults func(step string) error) *Control {
	c.faults = faults
	return c
}

// For sets the command whose runs c hears (ModeSync, ModeApply ...): the
// mode of their run records.
func (c *Control) For(command string) *Control {
	c.command = command
	return c
}

// BeginRun starts the next run of a daemon with cfg, its configuration
// now; the report keeps the last run only.
func (c *Control) BeginRun(cfg *config.Config) {
	c.mu.Lock()
	defer c.mu.Unlock()
	_ = c.done.Close()
	c.cfg, c.done = cfg, runreport.Report{SpoolDir: c.done.SpoolDir}
}

// KeepReport asks for the changes the runs apply to be kept for a report
// to be written to path (WriteReport): they are kept in a temporary file
// in path's folder, as they are applied, not in memory.
func (c *Control) KeepReport(path string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.report, c.done.SpoolDir = true, filepath.Dir(path)
}

// StateDir returns the open state directory, or nil when state.dir is not
// set or cannot be opened; either is logged once, with what is not kept.
func (c *Control) StateDir() *store.Dir {
	c.once.Do(func() {
		s := c.config().State
		if s.Dir == "" {
			c.log.Warn("state.dir is not set: no history of applied changes and no run records are kept, " +
				"and changes a safety limit holds cannot wait for approval (the run fails instead)")
			return
		}
		dir, err := store.Open(s.Dir, run.StoreOptions(s, c.faults))
		if err != nil {
			c.log.Error("state directory unusable: no history, run records or approvals are kept", zap.Error(err))
			c.dirErr = err
			return
		}
		c.dir = dir
	})
	return c.dir
}

func (c *Control) config() *config.Config {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cfg
}

// Read keeps the fingerprint of the organization's users as read,
// when a saved plan asks for it.
func (c *Control) Read(p *run.OrgPlan, cur *reconcile.Current) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.prints {
		c.current[p.Org.Name] = planfile.UsersFingerprint(cur.Users)
	}
}

// Applied records organization r.Org's run (history, run record, report)
// and notifies about it (see end), and reports whether it recorded it. A
// dry run records nothing.
func (c *Control) Applied(r *run.Result) bool {
	if r.Mode == run.Dry {
		return false
	}
	for i := range r.Decision.Recovered {
		c.recovered(&r.Decision.Recovered[i])
	}
	rec, entries := record(r, rulesOf(c.config(), r.Org), settingsOf(r.Org), c.modeName(r))
	return c.end(outcome{rec: rec, entries: entries, event: runEvent(r, c.config().Notify.OnChanges), changed: sent(r)})
}

// Failed records and tells the run of organizations orgs that failed
// before it could plan (err, marked with its phase), as Applied does for
// any other.
func (c *Control) Failed(orgs []*config.NamedTarget, mode run.Mode, err error) {
	for _, r := range run.FailedRun(orgs, mode, time.Now(), err) {
		c.Applied(r)
	}
}

// FailedToLoad records and tells the failed run of command (as For
// names it) whose configuration does not load (cerr), in its state directory and to the notifications
// it names, when no problem concerns them (config.Error.Salvage); it
// returns the Control that heard it (for its report; Wait for the
// notifications), nil where they cannot be trusted.
func FailedToLoad(cerr *config.Error, log *zap.Logger, command string) *Control {
	cfg := cerr.Salvage()
	if cfg == nil {
		return nil
	}
	c := New(cfg, log).For(command)
	c.Failed(cfg.TargetsNamed(nil), run.Real, run.InPhase(run.PhaseConfig, fmt.Errorf("the configuration does not load: %s", cerr.Error())))
	return c
}

// store appends the history entries and the run record to the state
// directory, when state.dir is set. A run whose history cannot be
// written is recorded as failed in phase record (what it applied is not
// in the history), never as a success; one that failed before keeps its
// phase.
func (c *Control) store(rec *store.Run, entries []store.Entry) error {
	dir := c.StateDir()
	if dir == nil && c.config().State.Dir == "" {
		return nil
	}
	if dir == nil {
		return fmt.Errorf("state.dir %s cannot be used: %w", c.config().State.Dir, c.dirErr)
	}
	herr := dir.AppendHistory(entries)
	if herr != nil {
		msg := "the history of its changes could not be written: " + herr.Error()
		if rec.Result == store.RunFailure { // it failed before: its phase stays
			msg = rec.Error + "; " + msg
		} else {
			rec.Result, rec.Phase = store.RunFailure, run.PhaseRecord
		}
		rec.Error = msg
	}
	return errors.Join(herr, dir.AppendRun(rec))
}

// sent reports whether r's run sent changes.
func sent(r *run.Result) bool {
	return r.Mode == run.Real && r.Applied != nil && r.Applied.Requests+r.Applied.Invites > 0
}

// Heard counts the outcomes heard (runs, decisions), failed ones
// included.
func (c *Control) Heard() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.heard
}

// Unrecorded reports whether a run heard applied changes that the state
// directory could not record.
func (c *Control) Unrecorded() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.unrecorded
}

// record is the run record of r and its history entries, whose reasons
// name the mapping rules and the settings that asked for each change.
func record(r *run.Result, rules map[string]string, settings store.Settings, mode string) (*store.Run, []store.Entry) {
	end := time.Now().UTC()
	d := &r.Decision
	rec := &store.Run{ID: r.Run, Org: r.Org.Name, Start: r.Start.UTC(), End: end, Mode: mode,
		Result: store.RunSuccess, Changes: r.ByKind, Requests: r.Stats.Total(), Status429: r.Stats.TooManyRequests,
		Approval: strings.Join(d.PendingIDs(), ","), Held: d.Held(), Read: string(r.Read.Kind), ReadReason: r.Read.Reason,
		PeakMemoryMiB: int(r.Memory.Peak >> 20), MemoryLimitMiB: int(r.Memory.Bound >> 20), NearMemoryLimit: r.Memory.Near()}
	if d.Released != nil {
		rec.Approval = d.Released.ID
	}
	if len(d.Pending) > 0 {
		rec.Result = store.RunHeld
	}
	if r.Err != nil {
		rec.Result, rec.Error, rec.Phase = store.RunFailure, r.Err.Error(), r.Phase
	}
	a := store.Applied{Run: rec.ID, Org: r.Org.Name, Time: end, TestOnly: r.Mode == run.TestOnly, Settings: settings}
	var entries []store.Entry
	for _, n := range d.Narrowed {
		entries = append(entries, a.Dropped(n.Approval.ID, n.Dropped)...)
	}
	if r.Applied == nil || r.Plan == nil {
		return rec, entries
	}
	rec.Failures = len(r.Applied.Failures)
	for _, f := range r.Applied.Failures {
		if f.Unknown {
			rec.Unknown++
		}
	}
	a.Unmatched, a.Rules, a.Unsent = unmatchedKeys(r.Plan), rules, r.Applied.Unsent
	if d.Released != nil {
		a.Approval, a.DecidedBy = d.Released.ID, d.Released.Decided.String()
	}
	return rec, append(entries, a.Entries(r.Plan.Changes, r.Applied.Failures)...)
}

// rulesOf names, by target group of organization t (lower case), the
// mapping rules that give it: the exact rules, and the pattern rules
// whose target is a name, not a substitution.
func rulesOf(cfg *config.Config, t *config.NamedTarget) map[string]string {
	out := map[string]string{}
	for i, r := range cfg.Mapping {
		what := fmt.Sprintf("mapping[%d] (directory %q)", i, r.Directory)
		if r.Pattern != "" {
			what = fmt.Sprintf("mapping[%d] (pattern %q)", i, r.Pattern)
		}
		for _, target := range r.Targets {
			org, g := config.SplitGroup(target)
			if strings.Contains(g, "$") || !(org == t.Name || (org == "" && t.Name == cfg.Primary().Name)) {
				continue
			}
			if k := strings.ToLower(g); out[k] == "" {
				out[k] = what
			} else {
				out[k] += ", " + what
			}
		}
	}
	return out
}

// settingsOf names, by their keys in the configuration file, the policy
// settings of organization t that ask for changes no source asks for.
func settingsOf(t *config.NamedTarget) store.Settings {
	return store.Settings{Unmatched: t.PolicyKey(reconcile.SettingUnmatched), CreateGroups: t.PolicyKey(reconcile.SettingCreateUserGroups),
		RevokeInvites: t.PolicyKey(config.SettingRevokeUnmatched), ManagedGroups: t.PolicyKey(config.SettingManagedGroups)}
}

// modeName is a run record's mode: approve for a release, test-only,
// else the command's (For).
func (c *Control) modeName(r *run.Result) string {
	switch {
	case r.Decision.Released != nil:
		return ModeApprove
	case r.Mode == run.TestOnly:
		return ModeTestOnly
	}
	return c.command
}

// unmatchedKeys are the keys of the plan's unmatched users.
func unmatchedKeys(p *reconcile.Plan) map[string]bool {
	out := make(map[string]bool, p.Unmatched.Len())
	for i := range p.Unmatched.Len() {
		out[p.Unmatched.Key(i)] = true
	}
	return out
}

// CheckReport checks a --report path before the run.
func CheckReport(path string) error {
	if path == "" {
		return nil
	}
	_, err := runreport.Format(path)
	return err
}

// WriteReport writes what the runs heard did to path, as CSV or HTML by
// its extension: the changes applied when KeepReport asked for them. The
// changes kept are let go once written.
func (c *Control) WriteReport(path string) error {
	format, err := runreport.Format(path)
	if err != nil {
		return err
	}
	held := c.heldNow()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.done.Generated, c.done.Config, c.done.Host, c.done.Held = time.Now().UTC(), c.cfg.File, host(), held
	err = atomicfile.Write(path, func(w io.Writer) error { return c.done.Write(w, format) })
	return errors.Join(err, c.done.Close())
}

// PendingApprovals lists the pending approvals (none without a state
// directory, or when they cannot be read: that is logged).
func (c *Control) PendingApprovals() []store.Approval {
	dir := c.StateDir()
	if dir == nil {
		return nil
	}
	list, err := dir.Approvals("", store.Pending)
	if err != nil {
		c.log.Warn("the pending approvals could not be read", zap.Error(err))
	}
	return list
}

// heldNow lists the approvals pending now of the organizations of the
// runs heard.
func (c *Control) heldNow() []store.Approval {
	pending := c.PendingApprovals()
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.DeleteFunc(pending, func(a store.Approval) bool {
		return !slices.ContainsFunc(c.done.Runs, func(r store.Run) bool { return r.Org == a.Org })
	})
}

// TakeRuns returns the run records heard since the last call.
func (c *Control) TakeRuns() []store.Run {
	c.mu.Lock()
	defer c.mu.Unlock()
	runs := c.done.Runs
	_ = c.done.Close()
	c.done = runreport.Report{SpoolDir: c.done.SpoolDir}
	return runs
}
