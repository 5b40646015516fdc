package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/run"
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

// overrides are the run's overrides the flags give (run.New checks them
// against the configuration).
func (f *scopeFlags) overrides() (run.Overrides, error) {
	ov := run.Overrides{ExcludeUnmappedUsers: f.excludeUnmapped, UsersFile: f.usersFile}
	if f.groups != "" {
		ov.ScopeGroups = strings.Split(f.groups, ",")
	}
	if f.maxRemovals != "" {
		l, err := config.ParseLimit(f.maxRemovals)
		if err != nil {
			return ov, fmt.Errorf("--max-removals %q: %w", f.maxRemovals, err)
		}
		ov.MaxRemovals = &l
	}
	return ov, nil
}
