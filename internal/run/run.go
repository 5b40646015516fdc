// Package run is one run of orgsync over a loaded configuration: read the
// sources once, plan every organization side by side, and apply each plan
// (dry, test-only or real).
//
// A Job is made once (New) from a loaded, validated configuration and the
// run's Overrides (what the command line says); it resolves then, once,
// what each organization's run needs (its policy, its safety settings
// with the run's limit on removals over them), and reads the
// configuration no more. The daemon keeps one Job for all its runs, so
// that they share each organization's service client (its token and rate
// limiters). Plan returns each organization's plan (Plans); Apply applies
// one; Sync plans and applies every organization, each as soon as its own
// plan is ready. What fails one organization is that organization's Err
// (in its OrgPlan or Result); what fails the whole run (a source) is the
// error returned.
//
// A Job is made of parts: a reader of each organization's current state
// (in full, or from its snapshot with incremental runs), the safety gate,
// and the sending of what the gate lets through. Between a plan and its
// sending stands the gate, a step no entry point skips: Apply takes only
// what the gate made (Gated). The gate keeps the pending approvals of
// state.dir as a quarantine and does what safety.onLimit says. An answer
// that contradicts the snapshot an incremental run planned from ends its
// sending; the reader then reads the organization in full, and that plan
// goes through the gate like any other. An Observer, when given, hears
// each result as it comes; it only observes.
package run

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/source/mapping"
	"github.com/orgsync/orgsync/target/umapi"
)

// Mode says how far Apply goes.
type Mode int

const (
	Dry      Mode = iota // plan only: log what would be sent, send nothing
	TestOnly             // send with ?testOnly=true: validated, nothing changed
	Real                 // apply
)

// Overrides are what one run's command line says over the configuration.
// The zero value overrides nothing.
type Overrides struct {
	// Orgs names the organizations (targets[].name) to sync; none: all.
	Orgs []string
	// ExcludeUnmappedUsers, ScopeGroups and UsersFile set scope's
	// excludeUnmappedUsers, groups and usersFile for this run.
	ExcludeUnmappedUsers bool
	ScopeGroups          []string
	UsersFile            string
	// MaxRemovals, when set, is safety.maxRemovals of every organization.
	MaxRemovals *config.Limit
	// Explain names a user (email or username) whose groups the sources
	// trace (see Plans.Explain).
	Explain string
	// Full reads every organization in full, whatever its snapshot
	// (incremental runs; --full).
	Full bool
}

// Options are how a Job reports.
type Options struct {
	Log *zap.Logger // nil: none
	// Interactive is set when the logs go to a terminal: long reads and
	// sends log a progress line every few seconds.
	Interactive bool
	// PlansShown is set when the caller prints each plan (plan, sync,
	// demo): the planned changes are then logged at debug, else at info.
	PlansShown bool
	// Observer hears each plan and result as they come (nil: none).
	Observer Observer
	// Current, when set, is each organization's current state, taken
	// instead of reading the service: a plan made offline (orgsync test),
	// never to be applied.
	Current func(t *config.NamedTarget) *reconcile.Current
	// Faults is the state directory's store.Options.Faults: tests inject
	// a full disk or a crash at each step of a write.
	Faults func(step string) error
}

// StoreOptions are how the state directory s is opened: its bounds, and
// faults (Options.Faults; nil: none).
func StoreOptions(s config.State, faults func(step string) error) store.Options {
	return store.Options{MaxFileBytes: int64(s.MaxFileMB) << 20, Retention: time.Duration(s.Retention), Faults: faults}
}

// Job runs one configuration with one set of overrides. New takes what
// it needs of the configuration, once, and the Job reads it no more: the
// settings of the run and of each organization (its policy, its Safety,
// its report file), and its parts: the reader of each organization's
// current state, the safety gate, and the clients its plans are sent
// through.
type Job struct {
	settings
	orgs    []*config.NamedTarget // the organizations the run syncs
	scope   config.Scope          // the configuration's scope with the overrides over it
	explain string
	opts    Options
	log     *zap.Logger
	mapper  *mapping.Mapper
	reader  reader // how each organization's current state is read
	gate    *gate  // the safety gate, with each organization's Safety
	clients clientCache
}

// New checks the overrides against cfg (loaded by config.Load) and makes
// the Job.
func New(cfg *config.Config, ov Overrides, opts Options) (*Job, error) {
	if opts.Log == nil {
		opts.Log = zap.NewNop()
	}
	if opts.Observer == nil {
		opts.Observer = NopObserver{}
	}
	orgs, err := selectOrgs(cfg, ov.Orgs)
	if err != nil {
		return nil, err
	}
	j := &Job{settings: settingsOf(cfg), orgs: orgs, explain: strings.TrimSpace(ov.Explain), opts: opts, log: opts.Log,
		reader: readerOf(cfg, ov.Full)}
	if j.gate, err = j.resolveOrgs(cfg, ov.MaxRemovals); err != nil {
		return nil, err
	}
	if j.scope, err = runScopeConfig(cfg.Scope, ov); err != nil {
		return nil, err
	}
	if j.mapper, err = cfg.Mapper(); err != nil {
		return nil, err
	}
	return j, nil
}

// runPolicy is the policy of one organization's run: its base policy, and
// every group of the desired users managed (they all come from mapping
// rules, and pattern rules' targets cannot be listed in advance).
func (j *Job) runPolicy(t *config.NamedTarget, users *reconcile.Users) *reconcile.ValidPolicy {
	return j.byOrg[t.Name].policy.ManagingGroupsOf(users)
}

// MultiOrg reports whether the configuration names its organizations
// (targets:): the plans, results and messages then say which each is.
func (j *Job) MultiOrg() bool { return j.multiOrg }

// Orgs are the organizations the run syncs, in the configuration's order.
func (j *Job) Orgs() []*config.NamedTarget { return j.orgs }

// OrgNames are the names of Orgs.
func (j *Job) OrgNames() []string {
	names := make([]string, len(j.orgs))
	for i, t := range j.orgs {
		names[i] = t.Name
	}
	return names
}

// selectOrgs returns the targets named (all when none), in the
// configuration's order.
func selectOrgs(cfg *config.Config, names []string) ([]*config.NamedTarget, error) {
	want := map[string]bool{}
	for _, n := range names {
		if n = strings.TrimSpace(n); n != "" {
			want[n] = true
		}
	}
	all := len(want) == 0
	var out []*config.NamedTarget
	for i := range cfg.Targets {
		t := &cfg.Targets[i]
		if all || want[t.Name] {
			out = append(out, t)
			delete(want, t.Name)
		}
	}
	if len(want) > 0 {
		return nil, noSuchOrg(cfg, "--orgs", slices.Sorted(maps.Keys(want))[0])
	}
	return out, nil
}

// Target returns the organization named name, or the primary when name is
// empty; flag names the option that named it, for the error.
func Target(cfg *config.Config, flag, name string) (*config.NamedTarget, error) {
	if name == "" {
		return cfg.Primary(), nil
	}
	for i := range cfg.Targets {
		if cfg.Targets[i].Name == name {
			return &cfg.Targets[i], nil
		}
	}
	return nil, noSuchOrg(cfg, flag, name)
}

// noSuchOrg is the error of an option naming an organization the
// configuration does not have: it lists those it has.
func noSuchOrg(cfg *config.Config, flag, name string) error {
	if !cfg.MultiOrg() {
		return fmt.Errorf("%s: no organization %q in %s: it has a single target: (named %s); name organizations with targets:",
			flag, name, cfg.File, config.DefaultTargetName)
	}
	return fmt.Errorf("%s: no organization %q in %s; its organizations (targets[].name) are %s", flag, name, cfg.File, strings.Join(cfg.TargetNames(), ", "))
}

// orgLog is the logger of organization t: with an org field when the
// configuration has several.
func (j *Job) orgLog(t *config.NamedTarget) *zap.Logger {
	if !j.multiOrg {
		return j.log
	}
	return j.log.With(zap.String("org", t.Name))
}

// LimitsFolder is the folder of the state directory where the service
// clients of every orgsync process share what they spent of the
// service's rate limits (umapi.WithSharedLimits).
const LimitsFolder = "limits"

// clientCache keeps the last service client of each organization.
type clientCache struct {
	mu      sync.Mutex
	clients map[string]cachedClient
}

// cachedClient is a service client with the configuration it was built
// from.
type cachedClient struct {
	client *umapi.Client
	cfg    umapi.Config
}

// Client returns the service client of organization t, with rate limiters
// of its own, which share what they spend with every other orgsync
// process through the state directory (LimitsFolder) when there is one.
// The secrets are read again each time; while they (and the
// rest of the target) are unchanged, the client of the previous call is
// reused, so that a daemon's runs share its token and rate limiters
// instead of signing in again each run.
func (j *Job) Client(t *config.NamedTarget) (*umapi.Client, error) {
	cc, err := t.ClientConfig()
	if err != nil {
		return nil, err
	}
	j.clients.mu.Lock()
	defer j.clients.mu.Unlock()
	if last, ok := j.clients.clients[t.Name]; ok && last.cfg == cc {
		return last.client, nil
	}
	opts := []umapi.Option{umapi.WithLogger(j.orgLog(t).Named("service"))}
	if dir := j.stateDir; dir != "" {
		opts = append(opts, umapi.WithSharedLimits(filepath.Join(dir, LimitsFolder)))
	}
	c, err := umapi.New(cc, opts...)
	if err != nil {
		return nil, t.Hint(err)
	}
	if j.clients.clients == nil {
		j.clients.clients = map[string]cachedClient{}
	}
	j.clients.clients[t.Name] = cachedClient{client: c, cfg: cc}
	return c, nil
}
