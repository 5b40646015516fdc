package reconcile

import (
	"cmp"
	"slices"
	"strings"
)

// Limits are the service's limits on action requests (specification rules
// 1, 3, 9, 10 and contract section 5). Tests shrink them to explore every
// packing.
type Limits struct {
	EntriesPerRequest   int // users or user groups per request (10)
	MembershipsPerEntry int // adds, and removes, per user entry (10 each)
	StepsPerEntry       int // steps per entry (10); at least 4, the most a user entry holds
	UsersPerGroupStep   int // users per add or remove step of a user-group entry (10)
}

// DefaultLimits are the limits of the specification.
func DefaultLimits() Limits {
	return Limits{EntriesPerRequest: 10, MembershipsPerEntry: 10, StepsPerEntry: 10, UsersPerGroupStep: 10}
}

// StepKind names one step of an entry.
type StepKind string

// The steps an entry may hold.
const (
	StepCreate          StepKind = "create" // create step for the user's identity type, updateIfAlreadyExists
	StepUpdate          StepKind = "update"
	StepAdd             StepKind = "add"
	StepRemove          StepKind = "remove"
	StepRemoveFromOrg   StepKind = "removeFromOrg"
	StepCreateUserGroup StepKind = "createUserGroup" // ignoreIfAlreadyExists
)

// Step is one step of an entry, as plain data.
type Step struct {
	Kind StepKind `json:"kind"`
	// Create holds the new user's attributes (its Type picks the step).
	Create *User  `json:"create,omitempty"`
	Set    *Attrs `json:"set,omitempty"`
	// Groups are the groups of an add or remove on a user entry; Users the
	// users of an add or remove on a user-group entry.
	Groups        []string `json:"groups,omitempty"`
	Users         []User   `json:"users,omitempty"`
	DeleteAccount bool     `json:"deleteAccount,omitempty"`
	// Strict makes a create step fail on a user that exists (or has a
	// pending invite) instead of updating it: a plan made from a
	// snapshot of the organization creates strictly, so that a user the
	// snapshot does not know shows.
	Strict bool `json:"strict,omitempty"`
}

// Entry is one command entry: rooted at a user (User set) or at a user
// group (Group set).
type Entry struct {
	User  *User  `json:"user,omitempty"`
	Group string `json:"group,omitempty"`
	Steps []Step `json:"steps"`
	// WaitsUser and WaitsGroup are set when the entry needs a user, or a
	// user group, that an earlier request creates; a test-only run, which
	// creates nothing, cannot verify that part of it.
	WaitsUser  bool `json:"waitsUser,omitempty"`
	WaitsGroup bool `json:"waitsGroup,omitempty"`
}

// Target is the entry's root: the user's key or the group's name.
func (e *Entry) Target() string {
	if e.User != nil {
		return e.User.Key()
	}
	return e.Group
}

// Request is one action request. Requests must be sent in order: an entry
// may depend on an earlier request (a user or group created there).
type Request struct {
	Entries []Entry `json:"entries"`
}

// Batches packs the plan's user and group changes, and its InviteGroups,
// into the fewest action requests the limits allow. Revokes of invites are
// not action entries and are not in the result; re-invites
// (KindResendInvite) are, like creates.
//
// The limits (docs/service.md: rules 1, 3, 9, 10, 12; contract 3 and 5):
// 10 entries a request; a user entry holds one create step (first), an
// update, at most 10 added and 10 removed memberships, removeFromOrg
// (last); a user-group entry holds up to 10 steps of 10 users; entries run
// in no guaranteed order within a request. So Batches:
//
//  1. Routes each membership (route). Memberships of product profiles and
//     admin groups, of Federated IDs named by username, of independent IDs,
//     of users whose email or username the plan changes, and of newly
//     invited independent IDs go in the user's own entries; a membership of
//     a user group may instead go in a group-rooted entry. Each user's
//     entries' free room takes its movable memberships of the least demanded
//     groups first; the rest goes group-rooted; a local search then keeps
//     every move that lowers the number of entries.
//  2. Builds the entries with their dependencies: a created user's other
//     entries wait for the request that creates it, additions to a created
//     group for its creation, a rename for the user's other entries.
//  3. Schedules them by list scheduling: each request takes, among the
//     entries whose dependencies are in earlier requests, those heading the
//     longest chain of dependents first.
//  4. Restarts, for plans of up to restartLimit changes, in four routing
//     orders and, when groups are created, with them early, late or early
//     with the first requests filled; the fewest requests win.
//
// A property test compares the count with an exhaustive search on small
// plans with shrunken limits, and FuzzBatches replays each packing against
// the rules: a heuristic, not a proof of optimality on large plans.
func (p *Plan) Batches(l Limits) []Request {
	var best []Request
	variants := []variant{{}}
	if slices.ContainsFunc(p.Changes, func(c Change) bool { return kinds[c.Kind].send == asGroupEntry }) {
		variants = append(variants, variant{lateGroups: true}, variant{fillRoom: true})
	}
	orders := 4
	if len(p.Changes) > restartLimit {
		orders = 1
	}
	for _, v := range variants {
		for order := range orders {
			if reqs := p.pack(l, v, order); best == nil || len(reqs) < len(best) {
				best = reqs
			}
		}
	}
	return best
}

// variant is how pack treats the groups the plan creates.
type variant struct {
	// lateGroups sends every membership of a created group group-rooted,
	// new users included, so the group's entry comes after their creates.
	lateGroups bool
	// fillRoom lets a request that has room take entries that wait only on
	// a createUserGroup entry of that request (see fillUp).
	fillRoom bool
}

// restartLimit is the largest plan Batches packs in every routing order
// and keeps the best; larger plans, where the orders differ by a few
// entries out of thousands, are packed in the first order only.
const restartLimit = 10_000

// pack batches the plan with created groups early (their createUserGroup
// entries first), late (after the users they get, who then join them in
// that entry) or early with fillUp, keeping the memberships of the least
// (order 0, 1) or most (2, 3) demanded groups in user entries first, ties
// broken by name ascending (0, 2) or descending (1, 3).
func (p *Plan) pack(l Limits, v variant, order int) []Request {
	b := newBatcher(p, l)
	b.variant = v
	b.order0 = order
	b.route()
	b.build()
	return b.schedule()
}

// work is what one user's entries must carry, and how route split it.
type work struct {
	id       *User // the change's user: entries name it by its identity
	create   *User
	set      *Attrs
	rmOrg    bool
	delete   bool
	adds     []string // user-rooted (all memberships until route)
	removes  []string // user-rooted
	gadds    []string // lower-case user groups joined group-rooted
	gremoves []string // lower-case user groups left group-rooted
	n        int      // user entries
	eligible bool     // may be named in a user-group step
	first    int      // index of the user's create entry once built
}

// groupOps is one user group the batcher may send group-rooted entries to.
type groupOps struct {
	name    string
	created bool // created in this plan
	entry   int  // index of the createUserGroup entry, -1 when none
}

type batcher struct {
	l      Limits
	users  []*work
	groups map[string]*groupOps // lower-case name
	order  []string             // group keys in first-seen order
	cnt    map[string][2]int    // group key -> group-rooted adds, removes
	variant
	order0  int // which order route keeps movable memberships in (see pack)
	entries []Entry
	deps    [][]int       // entry -> entries that must be in earlier requests
	owner   map[int]*work // user entry -> its user
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

func newBatcher(p *Plan, l Limits) *batcher {
	b := &batcher{l: l, groups: make(map[string]*groupOps), owner: make(map[int]*work)}
	for _, g := range p.UserGroups {
		b.group(g)
	}
	for _, list := range [][]Change{p.Changes, p.InviteGroups} {
		for i := range list {
			b.add(&list[i])
		}
	}
	return b
}

// add takes in one change: a group to create, or a user's work. A change
// sent through the invite endpoints, or of a kind the table does not know
// (Plan.Check reports it), makes no entry.
func (b *batcher) add(c *Change) {
	r, ok := kinds[c.Kind]
	if !ok {
		return
	}
	switch r.send {
	case asGroupEntry:
		b.group(c.Group).created = true
	case asUserEntry:
		b.users = append(b.users, newWork(c, r.steps))
	case asRevoke:
	}
}

func newWork(c *Change, s userSteps) *work {
	w := &work{id: &c.User, set: c.Set, rmOrg: s.removeFromOrg,
		delete: s.deleteAccount, adds: slices.Clone(c.Add), removes: slices.Clone(c.Remove)}
	if s.create {
		w.create = &c.User // the plan's, not a copy: nothing changes it
	}
	// A user-group step names users by email alone: not an independent ID
	// (only a user entry can say useVendorID, and an invited one is no
	// member until it accepts), nor a user whose email or username the
	// plan changes (the name would be stale or not yet valid, depending on
	// the order the service runs the entries in).
	k := w.id.Key()
	w.eligible = w.id.Email != "" && strings.EqualFold(k, w.id.Email) && w.id.Type != VendorID && !w.renames()
	return w
}

// renames reports whether w's update changes the email or username that
// identifies the user in requests.
func (w *work) renames() bool { return w.set != nil && (w.set.Email != nil || w.set.Username != nil) }

func (b *batcher) group(name string) *groupOps {
	k := strings.ToLower(name)
	g, ok := b.groups[k]
	if !ok {
		g = &groupOps{name: name, entry: -1}
		b.groups[k] = g
		b.order = append(b.order, k)
	}
	return g
}

// isNew is 1 for a user created by the plan, else 0.
func (w *work) isNew() int {
	if w.create != nil {
		return 1
	}
	return 0
}

// base is the number of user entries a user needs whatever is routed
// group-rooted.
func (w *work) base() int {
	if w.create != nil || w.set != nil || w.rmOrg {
		return 1
	}
	return 0
}

// route decides, for each membership of a user group, whether it goes in
// the user's own entries or in a group-rooted entry (see Batches).
func (b *batcher) route() {
	demand := make(map[string]int)
	for _, w := range b.users {
		for _, g := range w.adds {
			if b.movable(w, g) {
				demand[strings.ToLower(g)]++
			}
		}
		for _, g := range w.removes {
			if b.movable(w, g) {
				demand[strings.ToLower(g)]++
			}
		}
	}
	b.cnt = make(map[string][2]int)
	for _, w := range b.users {
		b.split(w, demand)
	}
	for b.improve() {
	}
}

// split gives w the entries its create, update, removeFromOrg and
// non-movable memberships need, fills their free room with movable
// memberships of the least demanded groups, and routes the rest
// group-rooted.
func (b *batcher) split(w *work, demand map[string]int) {
	fixA, movA := b.partition(w, w.adds, demand)
	fixR, movR := b.partition(w, w.removes, demand)
	m := b.l.MembershipsPerEntry
	w.n = max(w.base(), ceilDiv(len(fixA), m), ceilDiv(len(fixR), m))
	w.adds, w.gadds = b.fill(w, fixA, movA, w.n*m, 0)
	w.removes, w.gremoves = b.fill(w, fixR, movR, w.n*m, 1)
}

// partition splits groups into the ones w must send itself and the
// movable ones, in the order route keeps them.
func (b *batcher) partition(w *work, groups []string, demand map[string]int) (fixed, movable []string) {
	for _, g := range groups {
		if b.movable(w, g) {
			movable = append(movable, g)
		} else {
			fixed = append(fixed, g)
		}
	}
	slices.SortStableFunc(movable, func(x, y string) int {
		kx, ky := strings.ToLower(x), strings.ToLower(y)
		c := cmp.Compare(demand[kx], demand[ky])
		if c == 0 {
			c = strings.Compare(kx, ky)
			if b.order0%2 == 1 {
				c = -c
			}
		} else if b.order0 >= 2 {
			c = -c
		}
		return c
	})
	return fixed, movable
}

// fill keeps as many movable groups as room allows with the fixed ones and
// returns the rest as group keys, counted in b.cnt[key][side].
func (b *batcher) fill(w *work, fixed, movable []string, room, side int) (user, group []string) {
	user = fixed
	for _, g := range movable {
		if len(user) < room && b.mayTakeBack(w, strings.ToLower(g)) {
			user = append(user, g)
			continue
		}
		k := strings.ToLower(g)
		group = append(group, k)
		c := b.cnt[k]
		c[side]++
		b.cnt[k] = c
	}
	return user, group
}

// mayTakeBack reports whether w may send its membership of group key in
// its own entries. An existing user's membership of a group the plan
// creates stays group-rooted: it rides in the createUserGroup entry, where a
// user entry would have to wait for a later request.
func (b *batcher) mayTakeBack(w *work, key string) bool {
	return !b.groups[key].created || (w.create != nil && !b.lateGroups)
}

// groupEntries is the number of entries group g needs for a adds and r
// removes sent group-rooted.
func (b *batcher) groupEntries(key string, c [2]int) int {
	steps := ceilDiv(c[0], b.l.UsersPerGroupStep) + ceilDiv(c[1], b.l.UsersPerGroupStep)
	if b.groups[key].created {
		steps++
	}
	return ceilDiv(steps, b.l.StepsPerEntry)
}

// improve tries three moves and keeps each that lowers the number of
// entries: taking all of one group's group-rooted memberships back into
// their users' entries, giving one user one more entry that takes
// memberships back, and swapping a user-rooted membership for a
// group-rooted one. It reports whether anything improved.
func (b *batcher) improve() bool {
	improved := false
	keys := slices.Clone(b.order)
	slices.SortStableFunc(keys, func(x, y string) int {
		return cmp.Compare(b.cnt[x][0]+b.cnt[x][1], b.cnt[y][0]+b.cnt[y][1])
	})
	// Moves below only take memberships back, so members stays a superset.
	members := make(map[string][]*work)
	for _, w := range b.users {
		for _, k := range w.gadds {
			members[k] = append(members[k], w)
		}
		for _, k := range w.gremoves {
			if !slices.Contains(w.gadds, k) {
				members[k] = append(members[k], w)
			}
		}
	}
	for _, k := range keys {
		if b.cnt[k] != [2]int{} && b.try(members[k], k, 0) {
			improved = true
		}
	}
	for _, w := range b.users {
		if len(w.gadds)+len(w.gremoves) > 0 && b.try([]*work{w}, "", w.n+1) {
			improved = true
		}
	}
	for _, w := range b.users {
		if b.swap(w, w.adds, w.gadds, 0) || b.swap(w, w.removes, w.gremoves, 1) {
			improved = true
		}
	}
	return improved
}

// swap exchanges one of w's user-rooted memberships of a user group with
// one of its group-rooted memberships (same side) when that lowers the
// group entries, e.g. to empty a group that only w still needs. It
// reports whether it swapped.
func (b *batcher) swap(w *work, user, group []string, side int) bool {
	for i, name := range user {
		a := strings.ToLower(name)
		if !b.movable(w, name) || !b.mayTakeBack(w, a) {
			continue
		}
		for j, k := range group {
			if k == a || !b.mayTakeBack(w, k) {
				continue
			}
			ca, ck := b.cnt[a], b.cnt[k]
			before := b.groupEntries(a, ca) + b.groupEntries(k, ck)
			ca[side]++
			ck[side]--
			if b.groupEntries(a, ca)+b.groupEntries(k, ck) < before {
				b.cnt[a], b.cnt[k] = ca, ck
				user[i], group[j] = b.groups[k].name, a
				return true
			}
		}
	}
	return false
}

// try takes the memberships of group key (none when "") of the users ws
// back into their entries, gives each at least n entries, lets the new
// room take more memberships back, and keeps the result only when the
// total number of entries drops.
func (b *batcher) try(ws []*work, key string, n int) bool {
	saved := make([]work, len(ws))
	touched := make(map[string][2]int) // the groups the move can change, with their counts
	for i, w := range ws {
		saved[i] = *w
		saved[i].adds, saved[i].removes = slices.Clone(w.adds), slices.Clone(w.removes)
		saved[i].gadds, saved[i].gremoves = slices.Clone(w.gadds), slices.Clone(w.gremoves)
		for _, k := range append(slices.Clone(w.gadds), w.gremoves...) {
			touched[k] = b.cnt[k]
		}
	}
	cost := func() int {
		total := 0
		for k := range touched {
			total += b.groupEntries(k, b.cnt[k])
		}
		return total
	}
	before := cost()
	grown := 0
	for _, w := range ws {
		old := w.n
		b.takeBack(w, key, n)
		grown += w.n - old
	}
	if grown+cost() < before {
		return true
	}
	for i, w := range ws {
		*w = saved[i]
	}
	for k, c := range touched {
		b.cnt[k] = c
	}
	return false
}

// takeBack moves w's group-rooted memberships of key into its entries,
// grows them to at least n, and fills their room with more group-rooted
// memberships, those of the smallest groups first.
func (b *batcher) takeBack(w *work, key string, n int) {
	m := b.l.MembershipsPerEntry
	w.adds, w.gadds = b.moveKey(w, w.adds, w.gadds, key, 0)
	w.removes, w.gremoves = b.moveKey(w, w.removes, w.gremoves, key, 1)
	w.n = max(w.n, n, ceilDiv(len(w.adds), m), ceilDiv(len(w.removes), m))
	w.adds, w.gadds = b.absorb(w, w.adds, w.gadds, w.n*m, 0, "")
	w.removes, w.gremoves = b.absorb(w, w.removes, w.gremoves, w.n*m, 1, "")
}

func (b *batcher) moveKey(w *work, user, group []string, key string, side int) ([]string, []string) {
	if key == "" {
		return user, group
	}
	return b.absorb(w, user, group, -1, side, key)
}

// absorb moves group-rooted memberships (only those of key when key is not
// "", else those of the smallest groups first) back to the user-rooted
// list while it is shorter than room (room < 0: no bound).
func (b *batcher) absorb(w *work, user, group []string, room, side int, key string) ([]string, []string) {
	if key == "" {
		slices.SortStableFunc(group, func(x, y string) int {
			return cmp.Compare(b.cnt[x][0]+b.cnt[x][1], b.cnt[y][0]+b.cnt[y][1])
		})
	}
	var rest []string
	for _, k := range group {
		if (key != "" && k != key) || (room >= 0 && len(user) >= room) || !b.mayTakeBack(w, k) {
			rest = append(rest, k)
			continue
		}
		user = append(user, b.groups[k].name)
		c := b.cnt[k]
		c[side]--
		b.cnt[k] = c
	}
	return user, rest
}

// movable reports whether w's membership of g may be sent group-rooted.
func (b *batcher) movable(w *work, g string) bool {
	_, ok := b.groups[strings.ToLower(g)]
	return ok && w.eligible
}

// build turns the routing into entries and their dependencies.
func (b *batcher) build() {
	for _, k := range b.order {
		if g := b.groups[k]; g.created {
			g.entry = b.addEntry(Entry{Group: g.name, Steps: []Step{{Kind: StepCreateUserGroup}}}, nil)
		}
	}
	for _, w := range b.users {
		b.userEntries(w)
	}
	members := make(map[string][2][]*work)
	for _, w := range b.users {
		for _, k := range w.gadds {
			m := members[k]
			m[0] = append(m[0], w)
			members[k] = m
		}
		for _, k := range w.gremoves {
			m := members[k]
			m[1] = append(m[1], w)
			members[k] = m
		}
	}
	for _, k := range b.order {
		b.groupRooted(b.groups[k], members[k])
	}
}

func (b *batcher) addEntry(e Entry, deps []int) int {
	b.entries = append(b.entries, e)
	b.deps = append(b.deps, deps)
	return len(b.entries) - 1
}

// userEntries builds w's entries: the first holds the create and update
// steps, removeFromOrg is alone in its entry; later entries of a created
// user depend on its first. An invited independent ID is not a member
// until it accepts, so each of its later entries repeats the create step
// (addVendorID with an option finds the pending invite and adds the
// entry's memberships to it, contract section 7). An update that changes
// the email or username goes in the last entry, which waits for the
// others: they name the user as it is before the change.
func (b *batcher) userEntries(w *work) {
	m := b.l.MembershipsPerEntry
	n := max(w.base(), ceilDiv(len(w.adds), m), ceilDiv(len(w.removes), m))
	updateAt := 0
	if w.renames() {
		updateAt = n - 1
	}
	var mine []int
	slices.SortStableFunc(w.adds, func(x, y string) int { // created groups last: the first entry need not wait
		return cmp.Compare(b.createdIndex(x), b.createdIndex(y))
	})
	for i := range n {
		e := Entry{User: w.id} // the plan's user, shared: nothing changes it
		var deps []int
		if w.create != nil && (i == 0 || w.create.Type == VendorID) {
			e.Steps = append(e.Steps, Step{Kind: StepCreate, Create: w.create})
		}
		if i == updateAt && w.set != nil {
			e.Steps = append(e.Steps, Step{Kind: StepUpdate, Set: w.set})
			if w.renames() {
				deps = append(deps, mine...)
			}
		}
		if i > 0 && w.create != nil {
			deps = append(deps, w.first)
		}
		if add := chunk(w.adds, i, m); len(add) > 0 {
			e.Steps = append(e.Steps, Step{Kind: StepAdd, Groups: add})
			for _, g := range add {
				if ge := b.groups[strings.ToLower(g)]; ge != nil && ge.entry >= 0 {
					deps = append(deps, ge.entry)
				}
			}
		}
		if rm := chunk(w.removes, i, m); len(rm) > 0 {
			e.Steps = append(e.Steps, Step{Kind: StepRemove, Groups: rm})
		}
		if w.rmOrg {
			e.Steps = append(e.Steps, Step{Kind: StepRemoveFromOrg, DeleteAccount: w.delete})
		}
		idx := b.addEntry(e, deps)
		b.owner[idx] = w
		mine = append(mine, idx)
		if i == 0 {
			w.first = idx
		}
	}
}

// createdIndex is 1 for a group the plan creates, else 0.
func (b *batcher) createdIndex(name string) int {
	if g := b.groups[strings.ToLower(name)]; g != nil && g.created {
		return 1
	}
	return 0
}

// chunk is the i-th slice of at most n elements of s.
func chunk[T any](s []T, i, n int) []T {
	if i*n >= len(s) {
		return nil
	}
	return s[i*n : min(len(s), (i+1)*n)]
}

// groupRooted builds the user-group entries of g: add and remove steps of
// at most UsersPerGroupStep users, existing users first; steps without a
// created user fill g's createUserGroup entry, the rest go in entries of
// StepsPerEntry steps that depend on the creates they name.
func (b *batcher) groupRooted(g *groupOps, members [2][]*work) {
	type step struct {
		s    Step
		deps []int
	}
	var steps []step
	for side, kind := range []StepKind{StepAdd, StepRemove} {
		ws := slices.Clone(members[side])
		slices.SortStableFunc(ws, func(x, y *work) int { return cmp.Compare(x.isNew(), y.isNew()) })
		for i := 0; i*b.l.UsersPerGroupStep < len(ws); i++ {
			st := step{s: Step{Kind: kind}}
			for _, w := range chunk(ws, i, b.l.UsersPerGroupStep) {
				st.s.Users = append(st.s.Users, identity(w.id))
				if w.create != nil {
					st.deps = append(st.deps, w.first)
				}
			}
			steps = append(steps, st)
		}
	}
	if g.entry >= 0 {
		e := &b.entries[g.entry]
		for len(steps) > 0 && (b.lateGroups || len(steps[0].deps) == 0) && len(e.Steps) < b.l.StepsPerEntry {
			e.Steps = append(e.Steps, steps[0].s)
			b.deps[g.entry] = append(b.deps[g.entry], steps[0].deps...)
			steps = steps[1:]
		}
	}
	for i := 0; i*b.l.StepsPerEntry < len(steps); i++ {
		e := Entry{Group: g.name}
		var deps []int
		if g.entry >= 0 {
			deps = append(deps, g.entry)
		}
		for _, st := range chunk(steps, i, b.l.StepsPerEntry) {
			e.Steps = append(e.Steps, st.s)
			deps = append(deps, st.deps...)
		}
		b.addEntry(e, deps)
	}
}

// schedule packs the entries into requests by list scheduling: each
// request takes, among the entries whose dependencies are all in earlier
// requests, those with the longest chain of dependents first.
func (b *batcher) schedule() []Request {
	s := newScheduler(b)
	var reqs []Request
	for s.ready.Len() > 0 {
		var placed []int
		for len(placed) < b.l.EntriesPerRequest && s.ready.Len() > 0 {
			placed = append(placed, s.ready.pop())
		}
		if b.fillRoom && len(placed) < b.l.EntriesPerRequest {
			placed = b.fillUp(s, placed)
		}
		reqs = append(reqs, b.request(placed))
		s.release(placed)
	}
	return reqs
}

// scheduler is the state of schedule: dependents, unmet dependencies,
// levels and the entries ready to place.
type scheduler struct {
	succ    [][]int
	waiting []int
	done    []bool // placed in a request
	ready   *entryHeap
}

func newScheduler(b *batcher) *scheduler {
	n := len(b.entries)
	s := &scheduler{succ: make([][]int, n), waiting: make([]int, n), done: make([]bool, n)}
	for i, ds := range b.deps {
		for _, d := range ds {
			s.succ[d] = append(s.succ[d], i)
		}
		s.waiting[i] = len(ds)
	}
	s.ready = &entryHeap{level: levels(s.succ, s.waiting)}
	for i := range n {
		if s.waiting[i] == 0 {
			s.ready.push(i)
		}
	}
	return s
}

// release marks the entries of a request placed and readies the entries
// that waited only on them.
func (s *scheduler) release(placed []int) {
	for _, i := range placed {
		s.done[i] = true
	}
	for _, i := range placed {
		for _, d := range s.succ[i] {
			if s.waiting[d]--; s.waiting[d] == 0 && !s.done[d] {
				s.ready.push(d)
			}
		}
	}
}

// add records a new entry whose dependencies are placed in earlier
// requests or in the request being filled: it is ready for the next one.
func (s *scheduler) add(deps []int) {
	i, waiting := len(s.waiting), 0
	for _, d := range deps {
		if !s.done[d] {
			s.succ[d] = append(s.succ[d], i)
			waiting++
		}
	}
	s.succ = append(s.succ, nil)
	s.waiting = append(s.waiting, waiting)
	s.done = append(s.done, false)
	s.ready.level = append(s.ready.level, 1)
}

// request builds the request of the placed entries, marking the entries
// that wait on a user or group created by an earlier request.
func (b *batcher) request(placed []int) Request {
	req := Request{Entries: make([]Entry, len(placed))}
	for j, i := range placed {
		req.Entries[j] = b.entries[i]
		for _, d := range b.deps[i] {
			if b.entries[d].User != nil {
				req.Entries[j].WaitsUser = true
			} else {
				req.Entries[j].WaitsGroup = true
			}
		}
	}
	return req
}

// fillUp fills a request that has room with user entries that wait only on
// createUserGroup entries placed in it: their memberships of those groups
// leave the entry for new group-rooted entries, which wait for this
// request. One more entry can save a whole request when every entry left
// waits on a group the first request creates.
func (b *batcher) fillUp(s *scheduler, placed []int) []int {
	here := make(map[int]bool, len(placed))
	for _, i := range placed {
		here[i] = true
	}
	moved := map[int][]*work{} // createUserGroup entry -> users moved to group-rooted
	var order []int
	for i := range b.entries {
		if len(placed) >= b.l.EntriesPerRequest {
			break
		}
		w := b.owner[i]
		if w == nil || s.done[i] || here[i] || !w.eligible {
			continue
		}
		groups, ok := b.groupsWaitedOn(s, here, i)
		if !ok || !b.strip(i, groups) {
			continue
		}
		placed = append(placed, i)
		here[i] = true
		for _, g := range groups {
			if len(moved[g]) == 0 {
				order = append(order, g)
			}
			moved[g] = append(moved[g], w)
		}
	}
	for _, g := range order {
		b.movedEntries(s, g, moved[g])
	}
	return placed
}

// groupsWaitedOn returns the unplaced dependencies of entry i when all are
// createUserGroup entries of the request being filled (here).
func (b *batcher) groupsWaitedOn(s *scheduler, here map[int]bool, i int) ([]int, bool) {
	var groups []int
	for _, d := range b.deps[i] {
		switch {
		case s.done[d]:
		case here[d] && b.entries[d].Group != "":
			groups = append(groups, d)
		default:
			return nil, false
		}
	}
	return groups, len(groups) > 0
}

// strip takes the memberships of the groups created by the entries groups
// out of user entry i and drops those dependencies. It reports false, and
// changes nothing, when no other step would be left.
func (b *batcher) strip(i int, groups []int) bool {
	e := &b.entries[i]
	created := func(g string) bool {
		ge := b.groups[strings.ToLower(g)]
		return ge != nil && slices.Contains(groups, ge.entry)
	}
	var steps []Step
	for _, st := range e.Steps {
		if st.Kind == StepAdd {
			st.Groups = slices.DeleteFunc(slices.Clone(st.Groups), created)
			if len(st.Groups) == 0 {
				continue
			}
		}
		steps = append(steps, st)
	}
	if len(steps) == 0 {
		return false
	}
	e.Steps = steps
	b.deps[i] = slices.DeleteFunc(b.deps[i], func(d int) bool { return slices.Contains(groups, d) })
	return true
}

// movedEntries adds the group-rooted entries that add users to the group
// created by entry g, after this request: steps of UsersPerGroupStep users,
// StepsPerEntry steps an entry.
func (b *batcher) movedEntries(s *scheduler, g int, users []*work) {
	var steps []Step
	for i := 0; i*b.l.UsersPerGroupStep < len(users); i++ {
		st := Step{Kind: StepAdd}
		for _, w := range chunk(users, i, b.l.UsersPerGroupStep) {
			st.Users = append(st.Users, identity(w.id))
		}
		steps = append(steps, st)
	}
	for i := 0; i*b.l.StepsPerEntry < len(steps); i++ {
		deps := []int{g}
		for _, w := range chunk(users, i, b.l.StepsPerEntry*b.l.UsersPerGroupStep) {
			if w.create != nil {
				deps = append(deps, w.first)
			}
		}
		s.add(deps)
		b.addEntry(Entry{Group: b.entries[g].Group, Steps: chunk(steps, i, b.l.StepsPerEntry)}, deps)
	}
}

// levels is, for each entry, the length of the longest chain of entries
// that depend on it, itself included (Kahn's order, walked backwards).
func levels(succ [][]int, waiting []int) []int {
	n := len(succ)
	left := slices.Clone(waiting)
	order := make([]int, 0, n)
	for i := range n {
		if left[i] == 0 {
			order = append(order, i)
		}
	}
	for k := 0; k < len(order); k++ {
		for _, s := range succ[order[k]] {
			if left[s]--; left[s] == 0 {
				order = append(order, s)
			}
		}
	}
	level := make([]int, n)
	for k := len(order) - 1; k >= 0; k-- {
		i := order[k]
		level[i] = 1
		for _, s := range succ[i] {
			level[i] = max(level[i], level[s]+1)
		}
	}
	return level
}
