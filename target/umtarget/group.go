package umtarget

import (
	"context"
	"strings"

	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umapi"
	"github.com/orgsync/orgsync/target/umwire"
)

// groupRead reads the current state through the member listings of the
// groups of ReadNeeds plus, one by one (endpoint 3), the desired users no
// listing showed: they may exist outside the groups, and a plan that did
// not see them would create them again on every run.
//
// The read-cost decision: the first organization page told the cost of the
// rest of the organization listing (orgRest = X-Page-Count - 1) and the
// page size; before each request the read by group compares the least it
// can still cost (leastCost),
//
//	unread pages of the probed groups
//	+ the desired users not seen that their unmatched members cannot be,
//	  each a lookup; or, while some groups are unprobed, at least one page
//	  for each of those groups and at least one page a page size of them
//
// with orgRest, and gives up (the caller reads the organization listing)
// as soon as it is not smaller. Once every group page is read the lookups
// left are known exactly and are made only while fewer than orgRest. Each
// decision weighs only what is still to be read: pages already read are
// spent either way. The first organization page's users that are desired
// count as seen (they cost no lookup).
type groupRead struct {
	t      *Target
	want   *reconcile.Wanted // nil: desired users unknown, nothing is looked up
	groups []string
	probes map[string]*umapi.UsersPage // lower-case group -> first page, nil when absent

	pageSize int // users a listing page holds, from the first organization page
	users    reconcile.Users
	seen     map[string]bool // keys in users
	found    map[int]bool    // distinct desired users seen
	notFound int             // distinct desired users not seen
	// pagesLeft counts the unread pages of the probed groups; unmatched
	// the members they have not listed yet (-1: unknown).
	pagesLeft, unmatched int
	// invites are the invites, read before the lookups when a desired
	// independent ID is still unseen (invitesRead).
	invites     []reconcile.Invite
	invitesRead bool
	// expired says whether the expired invites are read too
	// (ReadNeeds.ExpiredInvites).
	expired bool
}

func newGroupRead(t *Target, want *reconcile.Wanted, groups []string, probes map[string]*umapi.UsersPage) *groupRead {
	g := &groupRead{t: t, want: want, probes: probes, seen: map[string]bool{}, found: map[int]bool{}}
	named := map[string]bool{}
	for _, name := range groups { // a group both managed and excluding is read once
		if k := strings.ToLower(name); !named[k] {
			named[k] = true
			g.groups = append(g.groups, name)
		}
	}
	if want != nil {
		g.notFound = want.Len()
	}
	return g
}

// read reads by group and reports whether it did; false means the
// organization listing is cheaper (g.users is then incomplete).
func (g *groupRead) read(ctx context.Context, first *umapi.UsersPage) (bool, error) {
	orgRest := pageCount(first.PageInfo) - 1
	g.pageSize = max(1, len(first.Users))
	for i := range first.Users {
		if u := ModelUser(&first.Users[i]); g.desired(&u) {
			g.add(u)
		}
	}
	for i, name := range g.groups {
		if g.leastCost(len(g.groups)-i) >= orgRest {
			return false, nil
		}
		p, err := g.t.groupPage(ctx, name, 0)
		if err != nil {
			return false, err
		}
		g.probed(name, p)
	}
	for _, name := range g.groups {
		if ok, err := g.readGroup(ctx, name, orgRest); !ok || err != nil {
			return false, err
		}
	}
	if g.notFound >= orgRest {
		return false, nil
	}
	return true, g.lookUp(ctx)
}

// probed records a group's first page.
func (g *groupRead) probed(name string, p *umapi.UsersPage) {
	g.probes[strings.ToLower(name)] = p
	if p == nil {
		return
	}
	g.t.LastRead.GroupPages += pageCount(p.PageInfo)
	if !p.IsLast() {
		g.pagesLeft += pageCount(p.PageInfo) - 1
	}
	switch {
	case g.unmatched < 0:
	case p.TotalCount < 0:
		g.unmatched = -1
	default:
		g.unmatched += p.TotalCount
	}
	g.list(p)
}

// list adds a page's users.
func (g *groupRead) list(p *umapi.UsersPage) {
	if g.unmatched >= 0 {
		g.unmatched = max(0, g.unmatched-len(p.Users))
	}
	for i := range p.Users {
		u := ModelUser(&p.Users[i])
		if !g.seen[u.Key()] {
			g.desired(&u)
			g.add(u)
		}
	}
}

// readGroup reads the pages after the first of one group while reading by
// group can still cost less than orgRest.
func (g *groupRead) readGroup(ctx context.Context, name string, orgRest int) (bool, error) {
	p := g.probes[strings.ToLower(name)]
	if p == nil || p.IsLast() {
		return true, nil
	}
	left := pageCount(p.PageInfo) - 1 // this group's share of pagesLeft
	for page := 1; p != nil && !p.IsLast(); page++ {
		if g.leastCost(0) >= orgRest {
			return false, nil
		}
		var err error
		if p, err = g.t.groupPage(ctx, name, page); err != nil {
			return false, err
		}
		left--
		g.pagesLeft--
		if p != nil {
			g.list(p)
		}
	}
	g.pagesLeft -= left // the listing ended before its X-Page-Count said
	return true, nil
}

// leastCost is the fewest requests the read by group still needs with
// unprobed groups not read yet. The desired users that no member still to
// be listed by a probed group can be are uncovered: each costs a lookup,
// unless unprobed groups list it, at most pageSize a page (a page is never
// dearer than the lookups it spares).
func (g *groupRead) leastCost(unprobed int) int {
	uncovered := 0
	if g.unmatched >= 0 {
		uncovered = max(0, g.notFound-g.unmatched)
	}
	if unprobed == 0 {
		return g.pagesLeft + uncovered
	}
	return g.pagesLeft + max(unprobed, (uncovered+g.pageSize-1)/g.pageSize)
}

// desired reports whether u stands for a desired user, and counts that
// user as seen.
func (g *groupRead) desired(u *reconcile.User) bool {
	if g.want == nil {
		return false
	}
	i, ok := g.want.Match(u)
	if ok && !g.found[i] {
		g.found[i] = true
		g.notFound--
	}
	return ok
}

func (g *groupRead) add(u reconcile.User) {
	if k := u.Key(); !g.seen[k] {
		g.seen[k] = true
		g.users.Add(u)
	}
}

// lookUp reads, one by one, the desired users no listing showed; those
// that exist are added. An independent ID with an invite, pending or
// expired, is not a member (contract 7) and is not looked up: when an
// unseen desired user is an independent ID, the invite listings (which the
// plan then needs anyway, unless every such user is a member) are read
// first.
func (g *groupRead) lookUp(ctx context.Context) error {
	if g.want == nil {
		return nil
	}
	invited, err := g.readInvites(ctx)
	if err != nil {
		return err
	}
	g.want.Distinct(func(i int) {
		u := g.want.User(i)
		if err != nil || g.found[i] || (u.Type == reconcile.VendorID && invited[strings.ToLower(u.Email)]) {
			return
		}
		var w *umwire.User
		if w, err = g.t.lookup(ctx, &u); err != nil || w == nil {
			return
		}
		c := ModelUser(w)
		if j, ok := g.want.Match(&c); ok && j == i { // another account with that email is out of scope
			g.add(c)
		}
	})
	return err
}

// readInvites reads the invites when an unseen desired user is an
// independent ID, and returns their lower-case emails, those of expired
// invites included when they are read (such a user is not a member
// either; without them, one is looked up).
func (g *groupRead) readInvites(ctx context.Context) (map[string]bool, error) {
	unseen := unseenVendors(g.want, &g.users)
	if len(unseen) == 0 {
		return nil, nil
	}
	var err error
	if g.invites, err = g.t.readInvites(ctx, false, g.expired, unseen); err != nil {
		return nil, err
	}
	g.invitesRead = true
	invited := make(map[string]bool, len(g.invites))
	for _, in := range g.invites {
		invited[strings.ToLower(in.Email)] = true
	}
	return invited, nil
}
