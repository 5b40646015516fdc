package main

import (
	"flag"
	"fmt"
	"strings"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/cmd/orgsync/internal/fanout"
	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/reconcile"
)

// scopeFlags override, for one run, the configuration's scope and its
// limit on removals (plan and sync).
type scopeFlags struct {
	excludeUnmapped bool
	groups          string
	usersFile       string
	maxRemovals     string
}

func addScopeFlags(fs *flag.FlagSet) *scopeFlags {
	f := &scopeFlags{}
	fs.BoolVar(&f.excludeUnmapped, "exclude-unmapped-users", false, "leave out the source users that map to no managed group (scope.excludeUnmappedUsers)")
	fs.StringVar(&f.groups, "scope-groups", "", "comma-separated directory groups: act only on their members, leave every other user alone (scope.groups)")
	fs.StringVar(&f.usersFile, "users-file", "", "act only on the users this file lists, one email or username a line (scope.usersFile)")
	fs.StringVar(&f.maxRemovals, "max-removals", "", `limit on removals for this run: a count or a percentage ("25", "20%"; 0: none) (safety.maxRemovals)`)
	return f
}

// apply writes the flags that were given over cfg, checking them as the
// configuration's own values are checked.
func (f *scopeFlags) apply(cfg *config.Config) error {
	if f.excludeUnmapped {
		cfg.Scope.ExcludeUnmappedUsers = true
	}
	if f.groups != "" {
		cfg.Scope.Groups = nil
		for _, g := range strings.Split(f.groups, ",") {
			if g = strings.TrimSpace(g); g != "" {
				cfg.Scope.Groups = append(cfg.Scope.Groups, g)
			}
		}
		if len(cfg.Scope.Groups) == 0 {
			return fmt.Errorf("--scope-groups %q names no group", f.groups)
		}
	}
	if f.usersFile != "" {
		if _, err := config.ReadUsersFile(f.usersFile); err != nil {
			return fmt.Errorf("--users-file: %w", err)
		}
		cfg.Scope.UsersFile = f.usersFile
	}
	if f.maxRemovals != "" {
		l, err := config.ParseLimit(f.maxRemovals)
		if err != nil {
			return fmt.Errorf("--max-removals %q: %w", f.maxRemovals, err)
		}
		cfg.Safety.MaxRemovals = l
		for i := range cfg.Targets {
			if s := cfg.Targets[i].Safety; s != nil {
				s.MaxRemovals = l // an organization's own limit is overridden too
			}
		}
	}
	return nil
}

// runScope returns the scope of this run (reconcile.Desired.Scope) and
// takes the users it leaves out of d.users: the users the sources' filters
// or the scope groups left out (unless another source keeps them), and,
// with scope.excludeUnmappedUsers, those with no managed group.
func (e *env) runScope(d *desired) (reconcile.Scope, error) {
	sc := &e.cfg.Scope
	kept := make(map[string]bool, len(d.users))
	for i := range d.users {
		kept[d.users[i].Key()] = true
	}
	var s reconcile.Scope
	for _, u := range d.filtered {
		if !kept[u.Key()] {
			s.Out = append(s.Out, u)
		}
	}
	if sc.ExcludeUnmappedUsers { // with no group of any organization; see eachPlan for each one's
		in, out := fanout.Part{Users: d.users, Held: d.held}.LeaveOutUnmapped()
		d.users, s.Out = in.Users, append(s.Out, out...)
	}
	if len(sc.Groups) > 0 {
		s.KeepUnmatched = true
		if len(d.users) == 0 {
			return s, fmt.Errorf("scope: no source user is in the scope groups %q: check their names", sc.Groups)
		}
	}
	if sc.UsersFile != "" {
		uf, err := config.ReadUsersFile(sc.UsersFile)
		if err != nil {
			return s, fmt.Errorf("scope.usersFile: %w", err)
		}
		for _, p := range uf.Problems {
			e.log.Warn("users file problem: "+p.String(), zap.String("file", p.File))
		}
		s.Only, d.problems = uf.Users, append(d.problems, uf.Problems...)
	}
	if s.Limited() {
		e.log.Info("scoped run: users outside the scope are left alone", zap.Int("leftOut", len(s.Out)),
			zap.Strings("groups", sc.Groups), zap.Int("listed", len(s.Only)), zap.Bool("excludeUnmappedUsers", sc.ExcludeUnmappedUsers))
	}
	return s, nil
}
