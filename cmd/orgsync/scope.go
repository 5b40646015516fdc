package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/changecontrol/planfile"
	"github.com/orgsync/orgsync/internal/run"
)

// addScopeFlags defines the flags that override, for one run, the
// configuration's scope and its limit on removals (plan and sync), as a
// saved plan keeps them (scopeOverrides makes the run's overrides of
// them).
func addScopeFlags(fs *flag.FlagSet) *planfile.Flags {
	f := &planfile.Flags{}
	fs.BoolVar(&f.ExcludeUnmappedUsers, "exclude-unmapped-users", false, "leave out the source users that map to no managed group (scope.excludeUnmappedUsers)")
	fs.StringVar(&f.ScopeGroups, "scope-groups", "", "comma-separated directory groups: act only on their members, leave every other user alone (scope.groups)")
	fs.StringVar(&f.UsersFile, "users-file", "", "act only on the users this file lists, one email or username a line (scope.usersFile)")
	fs.StringVar(&f.MaxRemovals, "max-removals", "", `limit on removals for this run: a count or a percentage ("25", "20%"; 0: none) (safety.maxRemovals)`)
	return f
}

// scopeOverrides are the run's overrides that the scope flags f give, from
// the command line or a saved plan (run.New checks them against the
// configuration): the limit on removals parsed, the scope groups split.
// Orgs is not among them: the organizations run are the command line's,
// or a saved plan's.
func scopeOverrides(f planfile.Flags) (run.Overrides, error) {
	ov := run.Overrides{ExcludeUnmappedUsers: f.ExcludeUnmappedUsers, UsersFile: f.UsersFile}
	if f.ScopeGroups != "" {
		ov.ScopeGroups = strings.Split(f.ScopeGroups, ",")
	}
	if f.MaxRemovals != "" {
		l, err := config.ParseLimit(f.MaxRemovals)
		if err != nil {
			return ov, fmt.Errorf("--max-removals %q: %w", f.MaxRemovals, err)
		}
		ov.MaxRemovals = &l
	}
	return ov, nil
}
