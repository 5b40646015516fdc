// Sharing one read of the sources among several organizations: the sources
// give each user target groups that may name an organization
// ("emea::Design"); splitUsers hands each organization its users with its own
// groups, unqualified.

package run

import (
	"context"
	"sync"

	"github.com/orgsync/orgsync/internal/util/crash"
	"github.com/orgsync/orgsync/reconcile"
)

// router returns the organization (an index) a target group belongs to and
// the group's name there; ok is false when the group names no known
// organization.
type router func(group string) (org int, name string, ok bool)

// Part is one organization's share of the desired state.
type Part struct {
	Users reconcile.Users
	Held  map[string][]string
	// Others are the source users mapped to none of the organization's
	// groups, without groups, when the organization takes only mapped
	// users: they are not to be added to it, but one who is a member
	// already is in a source and must lose the managed groups no rule
	// gives any more (see present).
	Others reconcile.Users
}

// splitUsers shares users (and the held groups, by user key) among len(all)
// organizations: each user goes to the organizations whose groups it has,
// and to every organization i with all[i] set, with the groups of that
// organization only. Groups that name no known organization are returned
// (once each) and given to nobody. The users' other fields are shared, not
// copied; one organization that takes every user under its groups' own
// names takes users itself.
func splitUsers(users *reconcile.Users, held map[string][]string, all []bool, route router) (parts []Part, unknown []string) {
	parts = make([]Part, len(all))
	if len(all) == 1 && all[0] && routesAsNamed(users, route) {
		parts[0].Users = *users
	} else {
		unknown = splitEach(users, all, route, parts)
	}
	for key, groups := range held {
		for _, g := range groups {
			if o, name, ok := route(g); ok {
				if parts[o].Held == nil {
					parts[o].Held = map[string][]string{}
				}
				parts[o].Held[key] = append(parts[o].Held[key], name)
			}
		}
	}
	return parts, unknown
}

// routesAsNamed reports whether every group of the users is the first
// organization's, under its own name.
func routesAsNamed(users *reconcile.Users, route router) bool {
	for _, g := range users.GroupNames() {
		if o, name, ok := route(g); !ok || o != 0 || name != g {
			return false
		}
	}
	return true
}

// splitEach is splitUsers user by user, into parts.
func splitEach(users *reconcile.Users, all []bool, route router, parts []Part) (unknown []string) {
	seen := map[string]bool{}
	byOrg := make([][]string, len(all))
	for i, u := range users.All() {
		for o := range byOrg {
			byOrg[o] = byOrg[o][:0]
		}
		for _, g := range u.Groups {
			o, name, ok := route(g)
			if !ok {
				if !seen[g] {
					seen[g] = true
					unknown = append(unknown, g)
				}
				continue
			}
			byOrg[o] = append(byOrg[o], name)
		}
		for o := range parts {
			if len(byOrg[o]) == 0 && !all[o] {
				parts[o].Others.AddOf(users, i, nil)
				continue
			}
			parts[o].Users.AddOf(users, i, byOrg[o])
		}
	}
	return unknown
}

// LeaveOutUnmapped returns p without the users that have none of the
// organization's groups (nor a held one), Others included, and those
// users: a run that excludes unmapped users leaves them alone in this
// organization, neither adding them nor taking its groups away. When it
// leaves none of p.Users out, in shares them.
func (p Part) LeaveOutUnmapped() (in Part, out []reconcile.User) {
	for _, u := range p.Users.All() {
		if len(u.Groups) == 0 && len(p.Held[u.Key()]) == 0 {
			out = append(out, u)
		}
	}
	in = Part{Held: p.Held, Users: p.Users}
	if len(out) > 0 {
		in.Users = reconcile.Users{}
		for i, u := range p.Users.All() {
			if len(u.Groups) > 0 || len(p.Held[u.Key()]) > 0 {
				in.Users.AddOf(&p.Users, i, u.Groups)
			}
		}
	}
	return in, append(out, p.Others.List()...)
}

// present returns users plus those of others that are members of the
// organization already (in current, by User.Key).
func present(users, others *reconcile.Users, current *reconcile.Users) reconcile.Users {
	if others.Len() == 0 {
		return *users
	}
	have := make(map[string]bool, current.Len())
	for i := range current.Len() {
		have[current.Key(i)] = true
	}
	var out reconcile.Users
	for i := range others.Len() {
		if !have[others.Key(i)] {
			continue
		}
		if out.Len() == 0 {
			out = users.Clone()
		}
		out.AddOf(others, i, nil)
	}
	if out.Len() == 0 {
		return *users
	}
	return out
}

// each runs job for 0 <= i < n, all at once, and returns when all are
// done: each organization is bound by the service's limits for it, not
// by this process, so together they take about as long as the slowest
// alone. A job keeps what it finds (its error too) in its own result. A
// job that panics stops no other; once all are done, the first panic is
// raised again in the caller's goroutine (as a *crash.Error with the
// job's stack), where the command or the daemon recovers it.
func each(ctx context.Context, n int, job func(ctx context.Context, i int)) {
	panics := make([]*crash.Error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			panics[i] = crash.Run(func() { job(ctx, i) })
		}()
	}
	wg.Wait()
	for _, p := range panics {
		crash.Rethrow(p)
	}
}
