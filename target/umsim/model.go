package umsim

import (
	"cmp"
	"slices"
	"strings"

	"github.com/orgsync/orgsync/target/umwire"
)

type groupKind int

const (
	kindUserGroup groupKind = iota
	kindProfile
	kindAdmin
)

// group is a user group, a product profile or an admin group.
type group struct {
	seq         uint64 // creation order, for stable snapshots
	name        string // as created; looked up case-insensitively
	kind        groupKind
	description string
	product     *product // profiles only
	grants      []*group // user groups: the profiles they grant
	members     map[*user]struct{}
	sorted      []*user // members in listing order; nil when stale
}

// product is a product and its profiles.
type product struct {
	id, code, name string
	quota          int
	profiles       []*group
}

// user is one account. groups are its direct memberships, in the order
// they were granted.
type user struct {
	seq       uint64 // listing order
	pos       int    // index in store.users of its live entry
	gone      bool   // removed from the organization (its entry is a tombstone)
	technical bool
	id        string
	email     string
	username  string
	domain    string
	firstName string
	lastName  string
	country   string
	typ       string
	status    string
	groups    []*group
}

// fields are the scalar fields of a user, saved and restored by updates.
type fields struct {
	email, username, domain, firstName, lastName, country string
}

func (u *user) fields() fields {
	return fields{u.email, u.username, u.domain, u.firstName, u.lastName, u.country}
}

func (u *user) setFields(f fields) {
	u.email, u.username, u.domain, u.firstName, u.lastName, u.country = f.email, f.username, f.domain, f.firstName, f.lastName, f.country
}

func (u *user) orgOwned() bool {
	return u.typ == umwire.TypeEnterpriseID || u.typ == umwire.TypeFederatedID
}

// usernameKey is the index key of a Federated ID whose username is not an
// email address, or "".
func (u *user) usernameKey() string {
	if u.typ != umwire.TypeFederatedID || u.username == "" || strings.Contains(u.username, "@") {
		return ""
	}
	return usernameKey(u.username, u.domain)
}

func usernameKey(username, domain string) string {
	return strings.ToLower(username) + "@" + strings.ToLower(domain)
}

// invite is a pending invitation of an independent ID.
type invite struct {
	email       string
	code        string
	lastSent    int64 // ms since the epoch
	invitedBy   umwire.InvitedBy
	firstName   string
	lastName    string
	country     string
	groups      []string
	lowerGroups map[string]bool
}

// clone returns a copy of in that can be changed without touching in; it
// rebuilds lowerGroups from groups.
func (in *invite) clone() *invite {
	c := *in
	c.groups = slices.Clone(in.groups)
	c.lowerGroups = make(map[string]bool, len(in.groups))
	for _, g := range in.groups {
		c.lowerGroups[strings.ToLower(g)] = true
	}
	return &c
}

type domain struct {
	name, directory string
	claimed         bool
}

// store is the simulator's indexed state. It is not safe for concurrent
// use; Server guards it with a mutex. Every mutation goes through a method
// that records its inverse while a journal is open (testOnly requests are
// rolled back).
type store struct {
	orgID        string
	migrating    bool
	domains      map[string]*domain // lower-case name
	domainOrder  []*domain
	integrations []Integration
	products     []*product
	groups       map[string]*group // lower-case name
	users        []*user           // listing order, with tombstones
	live         int               // users not gone
	byEmail      map[string]*user  // org-owned and unknown-type users, lower-case email
	byVendor     map[string]*user  // independent IDs, lower-case email
	byUsername   map[string]*user  // Federated IDs with non-email usernames
	givenIDs     map[string]bool   // ids the seed gave; generated ids avoid them
	detached     map[string]*user  // org-owned accounts not in the org, lower-case email
	invites      map[string]*invite
	userSeq      uint64
	groupSeq     uint64
	idSeq        uint64
	inviteSeq    uint64
	gen          uint64 // bumped when users join, leave or change domain
	lists        listCache
	journal      *[]func()
}

// listCache holds the active users in listing order, per domain filter
// ("" for all), valid while gen matches the store's.
type listCache struct {
	gen      uint64
	byDomain map[string][]*user
}

// newStore makes an empty store sized for about users users.
func newStore(users int) *store {
	return &store{
		domains:    map[string]*domain{},
		groups:     map[string]*group{},
		byEmail:    make(map[string]*user, users),
		byVendor:   map[string]*user{},
		byUsername: map[string]*user{},
		users:      make([]*user, 0, users),
		detached:   map[string]*user{},
		invites:    map[string]*invite{},
		gen:        1,
	}
}

// record remembers how to undo a mutation while a journal is open.
func (s *store) record(undo func()) {
	if s.journal != nil {
		*s.journal = append(*s.journal, undo)
	}
}

// begin opens a journal; rollback undoes everything recorded since.
func (s *store) begin() { s.journal = &[]func(){} }

func (s *store) rollback() {
	j := *s.journal
	s.journal = nil
	for i := len(j) - 1; i >= 0; i-- {
		j[i]()
	}
}

func (s *store) group(name string) *group { return s.groups[strings.ToLower(name)] }

func (s *store) bump() {
	s.gen++
	s.record(func() { s.gen++ })
}

// index makes u findable by email (or independent ID email) and username.
func (s *store) index(u *user) {
	if u.typ == umwire.TypeVendorID {
		s.byVendor[strings.ToLower(u.email)] = u
	} else {
		s.byEmail[strings.ToLower(u.email)] = u
	}
	if k := u.usernameKey(); k != "" {
		s.byUsername[k] = u
	}
}

// unindex undoes index.
func (s *store) unindex(u *user) {
	if u.typ == umwire.TypeVendorID {
		delete(s.byVendor, strings.ToLower(u.email))
	} else {
		delete(s.byEmail, strings.ToLower(u.email))
	}
	if k := u.usernameKey(); k != "" {
		delete(s.byUsername, k)
	}
}

// addUser appends u to the organization (at the end of the listing).
func (s *store) addUser(u *user) {
	s.userSeq++
	u.seq = s.userSeq
	u.gone = false
	u.pos = len(s.users)
	s.users = append(s.users, u)
	s.live++
	s.index(u)
	s.bump()
	s.record(func() {
		s.unindex(u)
		u.gone = true
		s.live--
	})
}

// reattach brings a detached organization-owned account back.
func (s *store) reattach(u *user) {
	key := strings.ToLower(u.email)
	delete(s.detached, key)
	s.record(func() { s.detached[key] = u })
	s.addUser(u)
}

// removeUser removes u from the organization and all its groups. A
// detached org-owned account is kept unless deleteAccount is set.
func (s *store) removeUser(u *user, deleteAccount bool) {
	for len(u.groups) > 0 {
		s.removeMember(u, u.groups[len(u.groups)-1])
	}
	s.unindex(u)
	u.gone = true
	s.live--
	s.bump()
	s.record(func() {
		u.gone = false
		s.live++
		s.index(u)
	})
	if u.orgOwned() && !deleteAccount {
		key := strings.ToLower(u.email)
		s.detached[key] = u
		s.record(func() { delete(s.detached, key) })
	}
}

// updateFields changes a user's scalar fields and re-indexes it.
func (s *store) updateFields(u *user, f fields) {
	old := u.fields()
	s.unindex(u)
	u.setFields(f)
	s.index(u)
	if !strings.EqualFold(old.domain, f.domain) {
		s.bump()
	}
	s.record(func() {
		s.unindex(u)
		u.setFields(old)
		s.index(u)
	})
}

func (s *store) hasMember(u *user, g *group) bool {
	_, ok := g.members[u]
	return ok
}

// addMember makes u a direct member of g; a no-op when it is one.
func (s *store) addMember(u *user, g *group) {
	if s.hasMember(u, g) {
		return
	}
	g.members[u] = struct{}{}
	g.sorted = nil
	u.groups = append(u.groups, g)
	s.record(func() { s.dropMember(u, g) })
}

// removeMember ends u's direct membership of g; a no-op without one.
func (s *store) removeMember(u *user, g *group) {
	if !s.hasMember(u, g) {
		return
	}
	at := slices.Index(u.groups, g)
	s.dropMember(u, g)
	s.record(func() {
		g.members[u] = struct{}{}
		g.sorted = nil
		u.groups = slices.Insert(u.groups, at, g)
	})
}

func (s *store) dropMember(u *user, g *group) {
	delete(g.members, u)
	g.sorted = nil
	if at := slices.Index(u.groups, g); at >= 0 {
		u.groups = slices.Delete(u.groups, at, at+1)
	}
}

// addGroup registers a new group.
func (s *store) addGroup(g *group) {
	s.groupSeq++
	g.seq = s.groupSeq
	if g.members == nil {
		g.members = map[*user]struct{}{}
	}
	key := strings.ToLower(g.name)
	s.groups[key] = g
	s.record(func() { delete(s.groups, key) })
}

// deleteGroup removes a group with all its memberships and grants.
func (s *store) deleteGroup(g *group) {
	for _, u := range g.sortedMembers() {
		s.removeMember(u, g)
	}
	for _, other := range s.groups {
		if at := slices.Index(other.grants, g); at >= 0 {
			s.setGrants(other, slices.Delete(slices.Clone(other.grants), at, at+1))
		}
	}
	key := strings.ToLower(g.name)
	delete(s.groups, key)
	s.record(func() { s.groups[key] = g })
}

// renameGroup changes a group's name (its key changes with it).
func (s *store) renameGroup(g *group, name string) {
	old := g.name
	delete(s.groups, strings.ToLower(old))
	g.name = name
	s.groups[strings.ToLower(name)] = g
	s.record(func() {
		delete(s.groups, strings.ToLower(name))
		g.name = old
		s.groups[strings.ToLower(old)] = g
	})
}

func (s *store) setDescription(g *group, d string) {
	old := g.description
	g.description = d
	s.record(func() { g.description = old })
}

func (s *store) setGrants(g *group, grants []*group) {
	old := g.grants
	g.grants = grants
	s.record(func() { g.grants = old })
}

// putInvite stores (or replaces) an invite; nil deletes it.
func (s *store) putInvite(key string, in *invite) {
	old, had := s.invites[key]
	if in == nil {
		delete(s.invites, key)
	} else {
		s.invites[key] = in
	}
	s.record(func() {
		if had {
			s.invites[key] = old
		} else {
			delete(s.invites, key)
		}
	})
}

// sortedMembers returns g's direct members in listing order (cached).
func (g *group) sortedMembers() []*user {
	if g.sorted == nil {
		g.sorted = make([]*user, 0, len(g.members))
		for u := range g.members {
			g.sorted = append(g.sorted, u)
		}
		sortUsers(g.sorted)
	}
	return g.sorted
}

// sortUsers puts us in listing order (by seq).
func sortUsers(us []*user) {
	slices.SortFunc(us, func(a, b *user) int { return cmp.Compare(a.seq, b.seq) })
}

// active returns the active members of the organization in listing order,
// only those of domainFilter when it is set (lower case). The lists are
// rebuilt lazily after users joined or left.
func (s *store) active(domainFilter string) []*user {
	if s.lists.gen != s.gen || s.lists.byDomain == nil {
		s.compact()
		s.lists = listCache{gen: s.gen, byDomain: map[string][]*user{}}
	}
	if l, ok := s.lists.byDomain[domainFilter]; ok {
		return l
	}
	l := make([]*user, 0, s.live)
	for i, u := range s.users {
		if s.listed(i, u) && u.status == umwire.StatusActive && (domainFilter == "" || strings.ToLower(u.domain) == domainFilter) {
			l = append(l, u)
		}
	}
	s.lists.byDomain[domainFilter] = slices.Clip(l)
	return l
}

// compact drops tombstones from the listing order; never while a journal
// is open, whose undo steps may revive them.
func (s *store) compact() {
	if s.journal != nil || s.live == len(s.users) {
		return
	}
	kept := s.users[:0]
	for i, u := range s.users {
		if s.listed(i, u) {
			u.pos = len(kept)
			kept = append(kept, u)
		}
	}
	clear(s.users[len(kept):])
	s.users = kept
}

// listed reports whether entry i of s.users is u's live entry: a user
// removed and re-attached has a tombstone entry too.
func (s *store) listed(i int, u *user) bool { return !u.gone && u.pos == i }

// effectiveGroups returns u's groups as the listings show them: direct
// memberships, plus (when indirect) the profiles granted through u's user
// groups.
func effectiveGroups(u *user, indirect bool) []*group {
	if !indirect {
		return u.groups
	}
	out := slices.Clone(u.groups)
	for _, g := range u.groups {
		for _, p := range g.grants {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}
