package umtarget

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umapi"
	"github.com/orgsync/orgsync/target/umwire"
)

// ReadCurrent reads the organization's users and pending invites. Unless
// the scope needs every user, it compares the page counts of the first
// pages: the organization listing's X-Page-Count against the member
// listings of the scope's groups, probed one by one and given up as soon as
// they would cost as much as the rest of the organization listing, and
// reads the cheaper. When the scope asks for group creation, it also
// reports which of its user groups exist.
func (t *Target) ReadCurrent(ctx context.Context, scope reconcile.ReadScope) (*reconcile.Current, error) {
	t.LastRead = ReadReport{}
	first, err := t.orgPage(ctx, 0)
	if err != nil {
		return nil, err
	}
	t.LastRead.OrgPages = pageCount(first)
	probes := map[string]*umapi.UsersPage{}
	byGroup := false
	if !scope.AllUsers {
		byGroup, err = t.probeGroups(ctx, scope.Groups, probes)
		if err != nil {
			return nil, err
		}
	}
	cur := &reconcile.Current{Scoped: byGroup}
	t.LastRead.ByGroup = byGroup
	if byGroup {
		cur.Users, err = t.readGroups(ctx, scope.Groups, probes)
	} else {
		cur.Users, err = t.readOrg(ctx, first)
	}
	if err != nil {
		return nil, err
	}
	if scope.CreateGroups {
		if cur.Groups, err = t.existingGroups(ctx, scope.UserGroups, probes); err != nil {
			return nil, err
		}
	}
	if cur.Invites, err = t.readInvites(ctx); err != nil {
		return nil, err
	}
	return cur, nil
}

// pageCount is the listing's X-Page-Count, 1 for a last page without it,
// and "very many" when unknown.
func pageCount(p *umapi.UsersPage) int {
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
		return nil, fmt.Errorf("umtarget: organization users page %d: %w", page, err)
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
		return nil, fmt.Errorf("umtarget: members of %q page %d: %w", group, page, err)
	}
	return p, nil
}

// probeGroups reads the first page of each group while reading the groups
// still costs fewer requests than the rest of the organization listing,
// and reports whether reading by group is cheaper.
func (t *Target) probeGroups(ctx context.Context, groups []string, probes map[string]*umapi.UsersPage) (bool, error) {
	orgRest := t.LastRead.OrgPages - 1
	groupRest := len(groups) // each unprobed group costs at least its first page
	for _, g := range groups {
		if groupRest >= orgRest {
			return false, nil
		}
		p, err := t.groupPage(ctx, g, 0)
		if err != nil {
			return false, err
		}
		probes[strings.ToLower(g)] = p
		groupRest--
		if p != nil {
			n := pageCount(p)
			t.LastRead.GroupPages += n
			groupRest += n - 1
		}
	}
	return groupRest < orgRest, nil
}

func (t *Target) readOrg(ctx context.Context, first *umapi.UsersPage) ([]reconcile.User, error) {
	var users []reconcile.User
	for p, page := first, 0; ; {
		users = appendUsers(users, p.Users, nil)
		if p.LastPage || page+1 >= pageCount(p) {
			return users, nil
		}
		page++
		var err error
		if p, err = t.orgPage(ctx, page); err != nil {
			return nil, err
		}
	}
}

// readGroups reads every page of the groups' member listings; a user in
// several groups is kept once.
func (t *Target) readGroups(ctx context.Context, groups []string, probes map[string]*umapi.UsersPage) ([]reconcile.User, error) {
	var users []reconcile.User
	seen := map[string]bool{}
	for _, g := range groups {
		p := probes[strings.ToLower(g)]
		for page := 0; p != nil; {
			users = appendUsers(users, p.Users, seen)
			if p.LastPage || page+1 >= pageCount(p) {
				break
			}
			page++
			var err error
			if p, err = t.groupPage(ctx, g, page); err != nil {
				return nil, err
			}
		}
	}
	return users, nil
}

// appendUsers converts the listed users, skipping keys in seen (when not
// nil) and adding the new ones to it.
func appendUsers(users []reconcile.User, page []umwire.User, seen map[string]bool) []reconcile.User {
	for i := range page {
		u := ModelUser(&page[i])
		if seen != nil {
			if seen[u.Key()] {
				continue
			}
			seen[u.Key()] = true
		}
		users = append(users, u)
	}
	return users
}

// ModelUser converts a listed user to the reconciler's model.
func ModelUser(w *umwire.User) reconcile.User {
	typ, ok := reconcile.ParseIdentityType(w.Type)
	if !ok {
		typ = reconcile.UnknownID
	}
	return reconcile.User{Type: typ, Email: w.Email, Username: w.Username, Domain: w.Domain,
		FirstName: w.FirstName, LastName: w.LastName, Country: w.Country, Groups: w.Groups}
}

// existingGroups names the user groups that exist, probing those not
// probed yet.
func (t *Target) existingGroups(ctx context.Context, groups []string, probes map[string]*umapi.UsersPage) ([]string, error) {
	exist := []string{}
	for _, g := range groups {
		p, probed := probes[strings.ToLower(g)]
		if !probed {
			var err error
			if p, err = t.groupPage(ctx, g, 0); err != nil {
				return nil, err
			}
		}
		if p != nil {
			exist = append(exist, g)
		}
	}
	return exist, nil
}

func (t *Target) readInvites(ctx context.Context) ([]reconcile.Invite, error) {
	var out []reconcile.Invite
	now := t.opts.Clock()
	for batch, err := range t.c.Invites(ctx, umapi.InviteQuery{}) {
		if err != nil {
			return nil, fmt.Errorf("umtarget: pending invites: %w", err)
		}
		t.LastRead.InviteBatches++
		for _, in := range batch {
			sent := time.UnixMilli(in.LastSentDTS)
			out = append(out, reconcile.Invite{Email: in.Email, LastSent: sent, Expired: now.Sub(sent) > t.opts.InviteExpiry})
		}
	}
	return out, nil
}
