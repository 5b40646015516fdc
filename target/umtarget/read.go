package umtarget

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umapi"
	"github.com/orgsync/orgsync/target/umwire"
)

// ReadCurrent reads the organization's users and, when they can change the
// plan, the pending invites. It reads the first page of the organization
// listing, whose X-Page-Count is the cost of the whole listing; unless the
// policy needs every user (ReadNeeds.AllUsers), it then reads by group while that can still cost
// fewer requests than the rest of the organization listing (see
// groupRead), and falls back to the organization listing as soon as it
// cannot. It also reports which of need.CheckGroups exist, probing
// only those no user read belongs to.
func (t *Target) ReadCurrent(ctx context.Context, need reconcile.ReadNeeds) (*reconcile.Current, error) {
	t.LastRead = ReadReport{}
	first, err := t.orgPage(ctx, 0)
	if err != nil {
		return nil, err
	}
	t.LastRead.OrgPages = pageCount(first.PageInfo)
	var want *reconcile.Wanted
	if need.DesiredKnown {
		want = reconcile.NewWanted(&need.Desired)
	}
	cur := &reconcile.Current{}
	probes := map[string]*umapi.UsersPage{}
	invitesRead := false
	if !need.AllUsers && t.LastRead.OrgPages > 1 {
		g := newGroupRead(t, want, need.Groups, probes)
		g.expired = need.ExpiredInvites
		if cur.ByGroup, err = g.read(ctx, first); err != nil {
			return nil, err
		}
		cur.Users, cur.Invites, invitesRead = g.users, g.invites, g.invitesRead
	}
	t.LastRead.ByGroup = cur.ByGroup
	if !cur.ByGroup {
		if cur.Users, err = t.readOrg(ctx, first); err != nil {
			return nil, err
		}
	}
	if cur.Missing, err = t.missingGroups(ctx, need.CheckGroups, &cur.Users, probes); err != nil {
		return nil, err
	}
	if invitesRead {
		return cur, nil
	}
	// The invites can change the plan when the policy revokes them, when
	// the desired users are unknown, or when a desired independent ID is
	// not among the users read (an invited user is not a member, and must
	// not be invited again).
	if unseen := unseenVendors(want, &cur.Users); need.RevokeInvites || want == nil || len(unseen) > 0 {
		if cur.Invites, err = t.readInvites(ctx, need.ExpiredInvites && want == nil, need.ExpiredInvites, unseen); err != nil {
			return nil, err
		}
	}
	return cur, nil
}

// unseenVendors returns the lower-case emails of the desired independent
// IDs that no user of users stands for (none when want is nil): each has
// a pending invite, an expired one, or none.
func unseenVendors(want *reconcile.Wanted, users *reconcile.Users) []string {
	if want == nil {
		return nil
	}
	vendors := map[int]bool{}
	want.Distinct(func(i int) {
		if want.User(i).Type == reconcile.VendorID {
			vendors[i] = true
		}
	})
	for i := 0; i < users.Len() && len(vendors) > 0; i++ {
		u := users.At(i)
		if j, ok := want.Match(&u); ok {
			delete(vendors, j)
		}
	}
	out := make([]string, 0, len(vendors))
	for i := range vendors {
		out = append(out, strings.ToLower(want.User(i).Email))
	}
	return out
}

// pageCount is the listing's X-Page-Count, 1 for a last page without it,
// and "very many" when unknown.
func pageCount(p umapi.PageInfo) int {
	switch {
	case p.PageCount > 0:
		return p.PageCount
	case p.LastPage:
		return 1
	}
	return math.MaxInt32
}

func (t *Target) orgPage(ctx context.Context, page int) (*umapi.UsersPage, error) {
	t.LastRead.PagesRead++
	p, err := t.c.OrgUsersPage(ctx, page, umapi.OrgUsersOptions{})
	if err != nil {
		return nil, fmt.Errorf("users page %d: %w", page, err)
	}
	return p, nil
}

// groupPage reads one page of a group's members; a group that does not
// exist gives nil and no error.
func (t *Target) groupPage(ctx context.Context, group string, page int) (*umapi.UsersPage, error) {
	t.LastRead.PagesRead++
	p, err := t.c.GroupUsersPage(ctx, group, page, umapi.GroupUsersOptions{})
	if umapi.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("members of %q page %d: %w", group, page, err)
	}
	return p, nil
}

// lookup reads one user (endpoint 3) by email (with the domain VendorID
// for an independent ID, as the specification recommends), or by username
// and domain for a Federated ID named without an email; nil when it does
// not exist.
func (t *Target) lookup(ctx context.Context, u *reconcile.User) (*umwire.User, error) {
	t.LastRead.Lookups++
	name, domain := u.Email, ""
	switch {
	case name == "":
		name, domain = u.Username, u.Domain
	case u.Type == reconcile.VendorID:
		domain = umwire.DomainVendorID
	}
	w, err := t.c.GetUser(ctx, name, domain)
	if umapi.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("user %s: %w", name, err)
	}
	return w, nil
}

// readOrg reads the organization listing on from its first page, with the
// client's guards against a service that never marks its last page. Each
// page's users go into the compact list as the page comes (at most the
// pages the client reads ahead are held decoded).
func (t *Target) readOrg(ctx context.Context, first *umapi.UsersPage) (reconcile.Users, error) {
	var users reconcile.Users
	if n := first.TotalCount; n > 0 {
		users.Grow(min(n, maxPresize))
	}
	for p, err := range t.c.OrgUsersFrom(ctx, first, umapi.OrgUsersOptions{}) {
		if err != nil {
			return reconcile.Users{}, fmt.Errorf("users: %w", err)
		}
		if p != first {
			t.LastRead.PagesRead++
		}
		for i := range p.Users {
			users.Add(ModelUser(&p.Users[i]))
		}
	}
	return users, nil
}

// maxPresize bounds the users a listing's X-Total-Count makes room for
// at once (the header is the service's word, not a promise).
const maxPresize = 4_000_000

// ModelUser converts a listed user to the reconciler's model.
func ModelUser(w *umwire.User) reconcile.User {
	typ, ok := reconcile.ParseIdentityType(w.Type)
	if !ok {
		typ = reconcile.UnknownID
	}
	return reconcile.User{Type: typ, Email: w.Email, Username: w.Username, Domain: w.Domain,
		FirstName: w.FirstName, LastName: w.LastName, Country: w.Country, Groups: w.Groups}
}

// MissingGroups reads the first page of the organization (which also
// proves that sign-in and reading work) and returns those of groups that
// do not exist in it, probing each one no user of that page belongs to.
func (t *Target) MissingGroups(ctx context.Context, groups []string) ([]string, error) {
	first, err := t.orgPage(ctx, 0)
	if err != nil {
		return nil, err
	}
	var users reconcile.Users
	for i := range first.Users {
		users.Add(reconcile.User{Groups: first.Users[i].Groups})
	}
	return t.missingGroups(ctx, groups, &users, map[string]*umapi.UsersPage{})
}

// CheckGroups returns those of groups that do not exist, reading no user:
// through the group listing, or a probe of a group's members where the
// listing cannot tell (see missingGroups).
func (t *Target) CheckGroups(ctx context.Context, groups []string) ([]string, error) {
	return t.missingGroups(ctx, groups, &reconcile.Users{}, map[string]*umapi.UsersPage{})
}

// missingGroups names the groups that do not exist. A group a listed user
// belongs to exists, and so does one whose member listing answered. The
// others are looked up in the group listing, read once (a few pages name
// every user group and product profile); an admin group, which that
// listing does not name, is probed through its member listing, and so is
// every group when the service answers the group listing 404 (it is
// outside the specification's endpoints).
func (t *Target) missingGroups(ctx context.Context, groups []string, users *reconcile.Users, probes map[string]*umapi.UsersPage) ([]string, error) {
	exists := memberOfAny(groups, users)
	var unknown []string
	for _, g := range groups {
		k := strings.ToLower(g)
		if p, probed := probes[k]; probed {
			exists[k] = exists[k] || p != nil
		} else if !exists[k] {
			unknown = append(unknown, g)
		}
	}
	listed, err := t.listedGroups(ctx, unknown)
	if err != nil {
		return nil, err
	}
	if !believable(listed, users) {
		listed = nil
	}
	for _, g := range unknown {
		k := strings.ToLower(g)
		if listed != nil && !strings.HasPrefix(g, "_") {
			exists[k] = listed[k]
			continue
		}
		p, err := t.groupPage(ctx, g, 0)
		if err != nil {
			return nil, err
		}
		exists[k] = p != nil
	}
	var missing []string
	for _, g := range groups {
		if !exists[strings.ToLower(g)] {
			missing = append(missing, g)
		}
	}
	return missing, nil
}

// listedGroups reads the group listing when more than one of groups is
// not an admin group (one is answered by a single probe, which the
// listing cannot beat), and returns the lower-cased names it lists; nil
// when it was not read or the service does not serve it. The listing is
// outside the specification's endpoints: a service may refuse it at its
// first page (umapi.IsNotServed), and the client then does not ask again.
func (t *Target) listedGroups(ctx context.Context, groups []string) (map[string]bool, error) {
	listable := 0
	for _, g := range groups {
		if !strings.HasPrefix(g, "_") {
			listable++
		}
	}
	if listable < 2 {
		return nil, nil
	}
	names := map[string]bool{}
	for page := 0; ; page++ {
		t.LastRead.PagesRead++
		t.LastRead.GroupListPages++
		p, err := t.c.GroupsPageAt(ctx, page)
		if page == 0 && umapi.IsNotServed(err) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("group listing page %d: %w", page, err)
		}
		for _, g := range p.Groups {
			names[strings.ToLower(g.GroupName)] = true
		}
		if p.IsLast() {
			return names, nil
		}
	}
}

// believable reports whether a group listing can be believed: it names
// no group with an empty name, and it names every user group and product
// profile (every group not starting with "_") that a user read belongs
// to. The listing's shape is not the specification's: read in another
// shape it would make existing groups look missing.
func believable(listed map[string]bool, users *reconcile.Users) bool {
	if listed == nil {
		return true
	}
	if listed[""] {
		return false
	}
	for _, g := range users.GroupNames() {
		if !strings.HasPrefix(g, "_") && !listed[strings.ToLower(g)] {
			return false
		}
	}
	return true
}

// memberOfAny is the set of the lower-cased groups that some user belongs
// to.
func memberOfAny(groups []string, users *reconcile.Users) map[string]bool {
	want := make(map[string]bool, len(groups))
	for _, g := range groups {
		want[strings.ToLower(g)] = false
	}
	for _, g := range users.GroupNames() {
		if k := strings.ToLower(g); !want[k] {
			if _, ok := want[k]; ok {
				want[k] = true
			}
		}
	}
	return want
}

// readInvites reads the pending invites (the listing with
// includeExpired=false) and, when expired is set (the policy holds back
// the users whose invite expired: ReadNeeds.ExpiredInvites) and all is
// set or an email of unseen (desired independent IDs that are not
// members) has no pending invite, the listing with the expired invites
// too: those of its invites that are not pending are Expired. The
// service's listing says which invites are pending; their lastSentDTS
// could not, since the specification does not give the expiry period.
// Without expired, a desired user with no pending invite is invited
// whether an invite of theirs expired or none was sent (the same
// addVendorID), and the second listing would cost a read for nothing.
func (t *Target) readInvites(ctx context.Context, all, expired bool, unseen []string) ([]reconcile.Invite, error) {
	var out []reconcile.Invite
	pending := map[string]bool{}
	err := t.eachInvite(ctx, umapi.InviteQuery{ExcludeExpired: true}, func(in *umwire.Invite) {
		pending[strings.ToLower(in.Email)] = true
		out = append(out, modelInvite(in, false))
	})
	if err != nil || !expired || !(all || slices.ContainsFunc(unseen, func(e string) bool { return !pending[e] })) {
		return out, err
	}
	err = t.eachInvite(ctx, umapi.InviteQuery{}, func(in *umwire.Invite) {
		if !pending[strings.ToLower(in.Email)] {
			out = append(out, modelInvite(in, true))
		}
	})
	return out, err
}

// eachInvite calls f with each invite of the listing q asks for, one call
// of the listing at a time.
func (t *Target) eachInvite(ctx context.Context, q umapi.InviteQuery, f func(*umwire.Invite)) error {
	for batch, err := range t.c.Invites(ctx, q) {
		if err != nil {
			if q.ExcludeExpired {
				return fmt.Errorf("pending invites: %w", err)
			}
			return fmt.Errorf("invites, expired ones included: %w", err)
		}
		t.LastRead.InviteBatches++
		for i := range batch {
			f(&batch[i])
		}
	}
	return nil
}

// modelInvite is the reconciler's view of an invite of the listing.
func modelInvite(in *umwire.Invite, expired bool) reconcile.Invite {
	return reconcile.Invite{Email: in.Email, LastSent: time.UnixMilli(in.LastSentDTS), Expired: expired}
}
