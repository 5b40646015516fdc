// Package run is one run of orgsync over a loaded configuration: read the
// sources once, plan every organization side by side, and apply each plan
// (dry, test-only or real).
//
// A Job is made once (New) from a loaded, validated configuration, which
// it never changes, and the run's Overrides (what the command line says);
// the daemon keeps one Job for all its runs, so that they share each
// organization's service client (its token and rate limiters). Plan
// returns each organization's plan (Plans); Apply applies one; Sync plans
// and applies every organization, each as soon as its own plan is ready.
// What fails one organization is that organization's Err (in its OrgPlan
// or Result); what fails the whole run (a source) is the error returned.
//
// Between a plan and its sending stands the safety gate (Gate), a step no
// entry point skips: Apply takes only what the gate made (Gated). The gate
// keeps the pending approvals of state.dir as a quarantine and applies
// safety.onLimit. An Observer, when given, hears each result as it comes;
// it only observes.
package run

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/config"
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
}

// Job runs one configuration with one set of overrides.
type Job struct {
	cfg      *config.Config // as loaded; never changed nor copied
	scope    config.Scope   // the configuration's scope with the overrides over it
	explain  string
	opts     Options
	log      *zap.Logger
	mapper   *mapping.Mapper
	orgs     []*config.NamedTarget             // the organizations the run syncs
	policies map[string]*reconcile.ValidPolicy // each organization's, by name, before the run's groups
	clients  clientCache
	// quarantine is the gate's store of approvals: state.dir's.
	quarantine quarantine
	// full reads every organization in full, whatever its snapshot
	// (incremental runs).
	full bool
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
	scope, err := runScopeConfig(cfg.Scope, ov)
	if err != nil {
		return nil, err
	}
	j := &Job{cfg: cfg, scope: scope, explain: strings.TrimSpace(ov.Explain), opts: opts, log: opts.Log,
		quarantine: quarantine{path: cfg.State.Dir}, full: ov.Full}
	if j.orgs, err = selectOrgs(cfg, ov.Orgs); err != nil {
		return nil, err
	}
	if j.mapper, err = cfg.Mapper(); err != nil {
		return nil, err
	}
	j.policies = make(map[string]*reconcile.ValidPolicy, len(j.orgs))
	for _, t := range j.orgs {
		if j.policies[t.Name], err = basePolicy(cfg, t, ov.MaxRemovals); err != nil {
			return nil, fmt.Errorf("%s: %w", t.Path(), err)
		}
	}
	return j, nil
}

// runScopeConfig is the configuration's scope with the overrides over it,
// checked as the configuration's own values are.
func runScopeConfig(sc config.Scope, ov Overrides) (config.Scope, error) {
	if ov.ExcludeUnmappedUsers {
		sc.ExcludeUnmappedUsers = true
	}
	if ov.ScopeGroups != nil {
		sc.Groups = nil
		for _, g := range ov.ScopeGroups {
			if g = strings.TrimSpace(g); g != "" {
				sc.Groups = append(sc.Groups, g)
			}
		}
		if len(sc.Groups) == 0 {
			return sc, fmt.Errorf("--scope-groups %q names no group", strings.Join(ov.ScopeGroups, ","))
		}
	}
	if ov.UsersFile != "" {
		if _, err := config.ReadUsersFile(ov.UsersFile); err != nil {
			return sc, fmt.Errorf("--users-file: %w", err)
		}
		sc.UsersFile = ov.UsersFile
	}
	return sc, nil
}

// basePolicy is organization t's policy as Load checked it, with the run's
// limit on removals when it sets one (named by its flag in the plan).
func basePolicy(cfg *config.Config, t *config.NamedTarget, maxRemovals *config.Limit) (*reconcile.ValidPolicy, error) {
	p, err := cfg.ValidPolicy(t)
	if err != nil || maxRemovals == nil {
		return p, err
	}
	return p.WithMaxRemovals(maxRemovals.Reconcile(), "--max-removals")
}

// runPolicy is the policy of one organization's run: its base policy, and
// every group of the desired users managed (they all come from mapping
// rules, and pattern rules' targets cannot be listed in advance).
func (j *Job) runPolicy(t *config.NamedTarget, users *reconcile.Users) *reconcile.ValidPolicy {
	return j.policies[t.Name].ManagingGroupsOf(users)
}

// Config is the configuration the job runs, as loaded (the run's scope,
// with the overrides, is the Job's own).
func (j *Job) Config() *config.Config { return j.cfg }

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
		return nil, NoSuchOrg(cfg, "--orgs", slices.Sorted(maps.Keys(want))[0])
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
	return nil, NoSuchOrg(cfg, flag, name)
}

// NoSuchOrg is the error of an option naming an organization the
// configuration does not have: it lists those it has.
func NoSuchOrg(cfg *config.Config, flag, name string) error {
	if !cfg.MultiOrg() {
		return fmt.Errorf("%s: no organization %q in %s: it has a single target: (named %s); name organizations with targets:",
			flag, name, cfg.File, config.DefaultTargetName)
	}
	return fmt.Errorf("%s: no organization %q in %s; its organizations (targets[].name) are %s", flag, name, cfg.File, strings.Join(cfg.TargetNames(), ", "))
}

// orgLog is the logger of organization t: with an org field when the
// configuration has several.
func (j *Job) orgLog(t *config.NamedTarget) *zap.Logger {
	if !j.cfg.MultiOrg() {
		return j.log
	}
	return j.log.With(zap.String("org", t.Name))
}

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
// of its own. The secrets are read again each time; while they (and the
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
	c, err := umapi.New(cc, umapi.WithLogger(j.orgLog(t).Named("service")))
	if err != nil {
		return nil, t.Hint(err)
	}
	if j.clients.clients == nil {
		j.clients.clients = map[string]cachedClient{}
	}
	j.clients.clients[t.Name] = cachedClient{client: c, cfg: cc}
	return c, nil
}
