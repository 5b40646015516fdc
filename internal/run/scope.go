package run

import (
	"fmt"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/reconcile"
)

// scopeOf returns the scope of this run (reconcile.Desired.Scope) and
// takes the users it leaves out of d.Users: the users the sources' filters
// or the scope groups left out (unless another source keeps them), and,
// with scope.excludeUnmappedUsers, those with no group of any
// organization (orgScope leaves out, per organization, those with no
// group of that one). The users file's problems join d.Problems.
func scopeOf(sc config.Scope, d *Sources, log *zap.Logger) (reconcile.Scope, error) {
	var kept map[string]bool // the keys of the users kept, when some were left out
	if len(d.Filtered) > 0 {
		kept = make(map[string]bool, d.Users.Len())
		for i := range d.Users.Len() {
			kept[d.Users.Key(i)] = true
		}
	}
	var s reconcile.Scope
	for _, u := range d.Filtered {
		if !kept[u.Key()] {
			s.Out = append(s.Out, u)
		}
	}
	if sc.ExcludeUnmappedUsers {
		in, out := Part{Users: d.Users, Held: d.Held}.LeaveOutUnmapped()
		d.Users, s.Out = in.Users, append(s.Out, out...)
	}
	if len(sc.Groups) > 0 {
		s.KeepUnmatched = true
		if d.Users.Len() == 0 {
			return s, fmt.Errorf("scope: no source user is in the scope groups %q: check their names", sc.Groups)
		}
	}
	if sc.UsersFile != "" {
		uf, err := config.ReadUsersFile(sc.UsersFile)
		if err != nil {
			return s, fmt.Errorf("scope.usersFile: %w", err)
		}
		for _, p := range uf.Problems {
			log.Warn("users file problem: "+p.String(), zap.String("file", p.File))
		}
		s.Only, d.Problems = uf.Users, append(d.Problems, uf.Problems...)
	}
	switch {
	case s.Limited() && len(sc.Groups) == 0 && sc.UsersFile == "" && !sc.ExcludeUnmappedUsers:
		log.Info("users a source's filter left out are left alone", zap.Int("leftOut", len(s.Out)))
	case s.Limited():
		log.Info("scoped run: users outside the scope are left alone", zap.Int("leftOut", len(s.Out)),
			zap.Strings("groups", sc.Groups), zap.Int("listed", len(s.Only)), zap.Bool("excludeUnmappedUsers", sc.ExcludeUnmappedUsers))
	}
	return s, nil
}

// orgScope returns one organization's part and scope: with
// scope.excludeUnmappedUsers, the users with no group of this organization
// are left out of it (unmapped is per organization).
func orgScope(sc config.Scope, part Part, run reconcile.Scope) (Part, reconcile.Scope) {
	if !sc.ExcludeUnmappedUsers {
		return part, run
	}
	in, out := part.LeaveOutUnmapped()
	run.Out = slices.Concat(run.Out, out)
	return in, run
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
