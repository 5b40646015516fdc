package run

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/run/approval"
	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/mapping"
)

// settings are what a Job takes of its configuration, once, when it is
// made (New): nothing reads the configuration after.
type settings struct {
	file     string // the configuration's path, for messages
	multiOrg bool   // the organizations are named (targets:)
	// targets are every organization's name, in the file's order, and
	// takesAll whether it takes every source user (members: all): what
	// the sources are shared among.
	targets  []string
	takesAll []bool
	rules    []mapping.Rule // the mapping rules, which explain names
	sources  int            // how many sources the configuration has
	stateDir string
	// openSources opens the configuration's sources (each run reads them
	// again); preflight finds what would stop a run that Load does not
	// check (validate).
	openSources func(source.Options) ([]source.Source, error)
	preflight   func() []error
	byOrg       map[string]orgSettings // those of each organization of the run, by name
}

// orgSettings are one organization's settings for the run.
type orgSettings struct {
	// policy is the organization's policy as Load checked it, held to its
	// Safety, before the run's groups (runPolicy).
	policy *reconcile.ValidPolicy
	// reportFile is where its unmatched users are written (reportPath),
	// "" for nowhere.
	reportFile string
	// createsGroups is policy.createUserGroups: a sync creates the user
	// groups the organization lacks.
	createsGroups bool
}

// settingsOf are the run's settings of cfg; New adds each organization's
// (resolveOrgs).
func settingsOf(cfg *config.Config) settings {
	s := settings{file: cfg.File, multiOrg: cfg.MultiOrg(), targets: cfg.TargetNames(), rules: cfg.Mapping, sources: len(cfg.Sources),
		stateDir: cfg.State.Dir, openSources: cfg.OpenSources, preflight: cfg.Preflight}
	for i := range cfg.Targets {
		s.takesAll = append(s.takesAll, cfg.Targets[i].Members == config.MembersAll)
	}
	return s
}

// resolveOrgs resolves the settings of each organization of the run
// (j.byOrg) and its safety, with the run's limit on removals (maxRemovals,
// nil when the command line sets none), and returns the safety gate that
// holds each organization's safety.
func (j *Job) resolveOrgs(cfg *config.Config, maxRemovals *config.Limit) (*gate, error) {
	g := &gate{byOrg: make(map[string]approval.Safety, len(j.orgs)), quarantine: newQuarantine(cfg.State, j.opts.Faults)}
	j.byOrg = make(map[string]orgSettings, len(j.orgs))
	for _, t := range j.orgs {
		s := resolveSafety(t, cfg.SafetyOf(t), maxRemovals)
		o, err := orgSettingsOf(cfg, t, s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.Path(), err)
		}
		g.byOrg[t.Name], j.byOrg[t.Name] = s, o
	}
	return g, nil
}

// orgSettingsOf are organization t's settings for a run held to s.
func orgSettingsOf(cfg *config.Config, t *config.NamedTarget, s approval.Safety) (orgSettings, error) {
	base, err := cfg.ValidPolicy(t)
	if err != nil {
		return orgSettings{}, err
	}
	policy, err := s.Limit(base)
	return orgSettings{policy: policy, reportFile: reportPath(cfg, t), createsGroups: cfg.PolicyOf(t).CreateUserGroups}, err
}

// route is the router of the targets: the organization a target group
// names ("org::Group", or the primary when unqualified) and the group
// without its qualifier.
func (s *settings) route(group string) (org int, name string, ok bool) {
	o, name := config.SplitGroup(group)
	if o == "" {
		return 0, name, true
	}
	i := slices.Index(s.targets, o)
	return max(i, 0), name, i >= 0
}

// reportPath is where organization t's unmatched users are written: its
// policy's reportFile, with the organization's name before the extension
// when it is the top-level policy's and t is not the primary (so that
// organizations sharing the top-level policy do not overwrite each
// other's file).
func reportPath(cfg *config.Config, t *config.NamedTarget) string {
	path := cfg.PolicyOf(t).ReportFile
	if path == "" || t.Policy != nil || t == cfg.Primary() {
		return path
	}
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "-" + t.Name + ext
}
