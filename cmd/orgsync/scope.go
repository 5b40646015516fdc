package main

import (
	"flag"

	"github.com/orgsync/orgsync/internal/changecontrol/planfile"
)

// addScopeFlags defines the flags that override, for one run, the
// configuration's scope and its limit on removals (plan and sync), as a
// saved plan keeps them (planfile.Flags.Overrides makes the run's
// overrides of them).
func addScopeFlags(fs *flag.FlagSet) *planfile.Flags {
	f := &planfile.Flags{}
	fs.BoolVar(&f.ExcludeUnmappedUsers, "exclude-unmapped-users", false, "leave out the source users that map to no managed group (scope.excludeUnmappedUsers)")
	fs.StringVar(&f.ScopeGroups, "scope-groups", "", "comma-separated directory groups: act only on their members, leave every other user alone (scope.groups)")
	fs.StringVar(&f.UsersFile, "users-file", "", "act only on the users this file lists, one email or username a line (scope.usersFile)")
	fs.StringVar(&f.MaxRemovals, "max-removals", "", `limit on removals for this run: a count or a percentage ("25", "20%"; 0: none) (safety.maxRemovals)`)
	return f
}
