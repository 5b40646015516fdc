package reconcile

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// The tests below check Batches against an independent model of the
// service's rules: a breadth-first search over "which changes are done",
// one request per step, finds the fewest requests; a validator replays the
// planner's requests under the same rules.

// op is one unit of work of a plan, as the oracle sees it.
type op struct {
	kind  string // create, update, rmorg, add, remove, group
	user  int    // index into the plan's user changes, -1 for group
	group string // lower-case group
}

type model struct {
	plan     *Plan
	l        Limits
	ops      []op
	users    []*Change   // user changes, by index
	newUser  map[int]int // user -> its create op
	newGroup map[string]int
	userGrp  map[string]bool
}

func newModel(p *Plan, l Limits) *model {
	m := &model{plan: p, l: l, newUser: map[int]int{}, newGroup: map[string]int{}, userGrp: foldSet(p.UserGroups)}
	for i := range p.Changes {
		c := &p.Changes[i]
		if c.Kind == KindCreateGroup {
			m.newGroup[strings.ToLower(c.Group)] = len(m.ops)
			m.ops = append(m.ops, op{kind: "group", user: -1, group: strings.ToLower(c.Group)})
			continue
		}
		u := len(m.users)
		m.users = append(m.users, c)
		switch c.Kind {
		case KindCreate:
			m.newUser[u] = len(m.ops)
			m.ops = append(m.ops, op{kind: "create", user: u})
		case KindRemove, KindDelete:
			m.ops = append(m.ops, op{kind: "rmorg", user: u})
		}
		if c.Set != nil {
			m.ops = append(m.ops, op{kind: "update", user: u})
		}
		for _, g := range c.Add {
			m.ops = append(m.ops, op{kind: "add", user: u, group: strings.ToLower(g)})
		}
		for _, g := range c.Remove {
			m.ops = append(m.ops, op{kind: "remove", user: u, group: strings.ToLower(g)})
		}
	}
	return m
}

// opSet is a set of op indexes.
type opSet interface{ has(i int) bool }

type mask uint32

func (s mask) has(i int) bool { return s&(1<<i) != 0 }

type boolSet []bool

func (s boolSet) has(i int) bool { return s[i] }

func (m *model) userExists(done opSet, u int) bool {
	c, ok := m.newUser[u]
	return !ok || done.has(c)
}

func (m *model) groupExists(done opSet, g string) bool {
	c, ok := m.newGroup[g]
	return !ok || done.has(c)
}

func (m *model) eligible(u int) bool {
	c := m.users[u]
	renames := c.Set != nil && (c.Set.Email != nil || c.Set.Username != nil)
	return c.User.Email != "" && strings.EqualFold(c.User.Key(), c.User.Email) && c.User.Type != VendorID && !renames
}

// invited reports whether user u is an independent ID the plan invites: it
// is not a member until it accepts, so only an entry that starts with its
// addVendorID (which finds the pending invite) may add memberships.
func (m *model) invited(u int) bool {
	c := m.users[u]
	return c.Kind == KindCreate && c.User.Type == VendorID
}

// fits reports whether the ops in set can be sent in one request when the
// ops in done are done, trying every user-rooted/group-rooted choice.
func (m *model) fits(done, set uint32) bool {
	var flexible []int
	for i := range m.ops {
		if set&(1<<i) == 0 {
			continue
		}
		o := m.ops[i]
		if (o.kind == "add" || o.kind == "remove") && m.userGrp[o.group] && m.eligible(o.user) && m.userExists(mask(done), o.user) {
			flexible = append(flexible, i)
		}
	}
	for choice := uint32(0); choice < 1<<len(flexible); choice++ {
		grouped := uint32(0)
		for j, i := range flexible {
			if choice&(1<<j) != 0 {
				grouped |= 1 << i
			}
		}
		if n, ok := m.entries(done, set, grouped); ok && n <= m.l.EntriesPerRequest {
			return true
		}
	}
	return false
}

// entries counts the entries of one request holding set, with the ops in
// grouped sent group-rooted; ok is false when the rules forbid it.
func (m *model) entries(done, set, grouped uint32) (int, bool) {
	type tally struct{ create, update, rmorg, add, remove int }
	users := map[int]*tally{}
	groups := map[string]*tally{}
	get := func(mp map[int]*tally, k int) *tally {
		if mp[k] == nil {
			mp[k] = &tally{}
		}
		return mp[k]
	}
	for i, o := range m.ops {
		if set&(1<<i) == 0 {
			continue
		}
		if o.kind == "group" {
			if groups[o.group] == nil {
				groups[o.group] = &tally{}
			}
			groups[o.group].create++
			continue
		}
		if !m.userExists(mask(done), o.user) && set&(1<<m.newUser[o.user]) == 0 {
			return 0, false
		}
		if grouped&(1<<i) != 0 {
			if groups[o.group] == nil {
				groups[o.group] = &tally{}
			}
			if o.kind == "add" {
				groups[o.group].add++
			} else {
				groups[o.group].remove++
			}
			continue
		}
		if o.kind == "add" && !m.groupExists(mask(done), o.group) {
			return 0, false
		}
		t := get(users, o.user)
		switch o.kind {
		case "create":
			t.create++
		case "update":
			t.update++
		case "rmorg":
			t.rmorg++
		case "add":
			t.add++
		case "remove":
			t.remove++
		}
	}
	n := 0
	mp := m.l.MembershipsPerEntry
	for _, t := range users {
		k := max(t.update+t.create+t.rmorg, ceilDiv(t.add, mp), ceilDiv(t.remove, mp))
		if t.create > 0 && k > 1 {
			return 0, false
		}
		n += k
	}
	for g, t := range groups {
		steps := ceilDiv(t.add, m.l.UsersPerGroupStep) + ceilDiv(t.remove, m.l.UsersPerGroupStep) + t.create
		if !m.groupExists(mask(done), g) && (t.create == 0 || steps > m.l.StepsPerEntry) {
			return 0, false
		}
		n += ceilDiv(steps, m.l.StepsPerEntry)
	}
	return n, true
}

// minRequests is the fewest requests that do every op (breadth-first).
func (m *model) minRequests() int {
	all := uint32(1)<<len(m.ops) - 1
	layer := map[uint32]bool{0: true}
	seen := map[uint32]bool{0: true}
	for depth := 0; ; depth++ {
		if layer[all] {
			return depth
		}
		next := map[uint32]bool{}
		for done := range layer {
			rest := all &^ done
			for set := rest; set != 0; set = (set - 1) & rest {
				if to := done | set; !seen[to] && m.fits(done, set) {
					seen[to], next[to] = true, true
				}
			}
		}
		if len(next) == 0 {
			panic("oracle: no progress")
		}
		layer = next
	}
}

// validate replays reqs under the rules and checks that they do every op
// exactly once.
func (m *model) validate(reqs []Request) error {
	done := make(boolSet, len(m.ops))
	key := func(u User) string { return u.Key() }
	userIdx := map[string]int{}
	for i, c := range m.users {
		userIdx[key(c.User)] = i
	}
	find := func(kind string, u int, g string) (int, error) {
		for i, o := range m.ops {
			if o.kind == kind && o.user == u && o.group == strings.ToLower(g) {
				return i, nil
			}
		}
		return 0, fmt.Errorf("no %s op for user %d group %q", kind, u, g)
	}
	for r, req := range reqs {
		if len(req.Entries) == 0 || len(req.Entries) > m.l.EntriesPerRequest {
			return fmt.Errorf("request %d has %d entries", r, len(req.Entries))
		}
		start, now := slices.Clone(done), make(boolSet, len(m.ops))
		mark := func(i int) error {
			if done[i] || now[i] {
				return fmt.Errorf("request %d: op %+v done twice", r, m.ops[i])
			}
			now[i] = true
			return nil
		}
		for _, e := range req.Entries {
			if len(e.Steps) == 0 || len(e.Steps) > m.l.StepsPerEntry {
				return fmt.Errorf("request %d: entry %s has %d steps", r, show(e), len(e.Steps))
			}
			if err := m.validateEntry(e, r, start, userIdx, find, mark); err != nil {
				return err
			}
		}
		for i := range now {
			done[i] = done[i] || now[i]
		}
	}
	for i, ok := range done {
		if !ok {
			return fmt.Errorf("op %+v not done", m.ops[i])
		}
	}
	return nil
}

func (m *model) validateEntry(e Entry, r int, start boolSet, userIdx map[string]int,
	find func(string, int, string) (int, error), mark func(int) error) error {
	if e.User != nil {
		u := userIdx[e.User.Key()]
		adds, removes := 0, 0
		for s, st := range e.Steps {
			switch st.Kind {
			case StepCreate:
				if s != 0 {
					return fmt.Errorf("request %d: %s: create not first", r, show(e))
				}
				if m.invited(u) && start.has(m.newUser[u]) {
					continue // the invite again: it adds this entry's memberships to it
				}
			case StepAdd, StepRemove:
				if m.invited(u) && e.Steps[0].Kind != StepCreate {
					return fmt.Errorf("request %d: %s: membership of an invited user without addVendorID", r, show(e))
				}
			case StepRemoveFromOrg:
				if s != len(e.Steps)-1 {
					return fmt.Errorf("request %d: %s: removeFromOrg not last", r, show(e))
				}
			}
			if s == 0 && st.Kind != StepCreate && !m.userExists(start, u) {
				return fmt.Errorf("request %d: %s: user does not exist yet", r, show(e))
			}
			kind := map[StepKind]string{StepCreate: "create", StepUpdate: "update", StepRemoveFromOrg: "rmorg", StepAdd: "add", StepRemove: "remove"}[st.Kind]
			groups := st.Groups
			if kind != "add" && kind != "remove" {
				groups = []string{""}
			}
			for _, g := range groups {
				if kind == "add" && !m.groupExists(start, strings.ToLower(g)) {
					return fmt.Errorf("request %d: %s: group %s does not exist yet", r, show(e), g)
				}
				i, err := find(kind, u, g)
				if err != nil {
					return fmt.Errorf("request %d: %s: %w", r, show(e), err)
				}
				if err := mark(i); err != nil {
					return err
				}
			}
			if kind == "add" {
				adds += len(groups)
			} else if kind == "remove" {
				removes += len(groups)
			}
		}
		if adds > m.l.MembershipsPerEntry || removes > m.l.MembershipsPerEntry {
			return fmt.Errorf("request %d: %s: %d adds, %d removes", r, show(e), adds, removes)
		}
		return nil
	}
	g := strings.ToLower(e.Group)
	if !m.userGrp[g] {
		return fmt.Errorf("request %d: %s: %s is not a user group", r, show(e), e.Group)
	}
	for s, st := range e.Steps {
		if st.Kind == StepCreateUserGroup {
			if s != 0 {
				return fmt.Errorf("request %d: %s: createUserGroup not first", r, show(e))
			}
			if err := mark(m.newGroup[g]); err != nil {
				return err
			}
			continue
		}
		if s == 0 && !m.groupExists(start, g) {
			return fmt.Errorf("request %d: %s: group does not exist yet", r, show(e))
		}
		if len(st.Users) > m.l.UsersPerGroupStep {
			return fmt.Errorf("request %d: %s: step with %d users", r, show(e), len(st.Users))
		}
		for _, id := range st.Users {
			u := userIdx[id.Key()]
			if !m.userExists(start, u) || !m.eligible(u) {
				return fmt.Errorf("request %d: %s: user %s cannot be named group-rooted now", r, show(e), id.Key())
			}
			i, err := find(string(st.Kind), u, e.Group)
			if err != nil {
				return fmt.Errorf("request %d: %s: %w", r, show(e), err)
			}
			if err := mark(i); err != nil {
				return err
			}
		}
	}
	return nil
}

// randomPlan makes a small plan: up to 4 users, two user groups and a
// product profile, sometimes a group to create, a Federated ID named by
// username (which cannot be named group-rooted) and an independent ID
// (which, when invited, cannot be named group-rooted either).
func randomPlan(rng *rand.Rand, maxOps int) *Plan {
	for {
		groups := []string{"G1", "G2", "P"}
		p := &Plan{UserGroups: []string{"G1", "G2"}}
		if rng.IntN(4) == 0 {
			p.Changes = append(p.Changes, Change{Kind: KindCreateGroup, Group: "G2"})
		}
		ops := len(p.Changes)
		for u := range 1 + rng.IntN(4) {
			id := User{Type: EnterpriseID, Email: fmt.Sprintf("u%d@x.com", u)}
			switch rng.IntN(6) {
			case 0:
				id = User{Type: FederatedID, Username: fmt.Sprintf("fed%d", u), Domain: "x.com"}
			case 1:
				id = User{Type: VendorID, Email: fmt.Sprintf("v%d@x.com", u)}
			}
			c := Change{Kind: KindUpdate, User: id}
			switch rng.IntN(6) {
			case 0, 1:
				c.Kind = KindCreate
				ops++
			case 2:
				p.Changes = append(p.Changes, Change{Kind: KindRemove, User: id})
				ops++
				continue
			}
			if c.Kind == KindUpdate && id.Type != VendorID && rng.IntN(3) == 0 {
				name := "N"
				c.Set = &Attrs{FirstName: &name}
				ops++
			}
			for _, g := range groups {
				switch rng.IntN(3) {
				case 0:
					c.Add = append(c.Add, g)
					ops++
				case 1:
					if c.Kind == KindUpdate && !(len(p.Changes) > 0 && p.Changes[0].Kind == KindCreateGroup && g == "G2") {
						c.Remove = append(c.Remove, g)
						ops++
					}
				}
			}
			if c.Kind == KindCreate || c.Set != nil || len(c.Add)+len(c.Remove) > 0 {
				p.Changes = append(p.Changes, c)
			}
		}
		if ops >= 1 && ops <= maxOps {
			return p
		}
	}
}

func TestBatchesMinimalAgainstExhaustiveSearch(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 1))
	for i := range 1000 {
		l := Limits{EntriesPerRequest: 1 + rng.IntN(3), MembershipsPerEntry: 1 + rng.IntN(2),
			StepsPerEntry: 4 + rng.IntN(2), UsersPerGroupStep: 1 + rng.IntN(2)}
		p := randomPlan(rng, 10)
		m := newModel(p, l)
		reqs := p.Batches(l)
		if err := m.validate(reqs); err != nil {
			t.Fatalf("case %d, limits %+v: %v\nplan: %v\nrequests: %s", i, l, err, p.Changes, dump(reqs))
		}
		if want := m.minRequests(); len(reqs) != want {
			t.Errorf("case %d, limits %+v: %d requests, the minimum is %d\nplan: %v\nrequests: %s", i, l, len(reqs), want, p.Changes, dump(reqs))
		}
	}
}

func dump(reqs []Request) string {
	var b strings.Builder
	for i, r := range reqs {
		fmt.Fprintf(&b, "\n request %d:", i+1)
		for _, e := range r.Entries {
			b.WriteString("\n   " + show(e))
		}
	}
	return b.String()
}

// FuzzBatches checks, for plans and limits drawn from the fuzzer's seeds,
// that the packing obeys every rule and needs no more requests than the
// exhaustive search.
func FuzzBatches(f *testing.F) {
	f.Add(uint64(1), uint64(2))
	f.Add(uint64(77), uint64(5))
	f.Fuzz(func(t *testing.T, a, b uint64) {
		rng := rand.New(rand.NewPCG(a, b))
		l := Limits{EntriesPerRequest: 1 + rng.IntN(3), MembershipsPerEntry: 1 + rng.IntN(2),
			StepsPerEntry: 4 + rng.IntN(2), UsersPerGroupStep: 1 + rng.IntN(2)}
		p := randomPlan(rng, 8)
		m := newModel(p, l)
		reqs := p.Batches(l)
		if err := m.validate(reqs); err != nil {
			t.Fatalf("limits %+v: %v\nplan: %v\nrequests: %s", l, err, p.Changes, dump(reqs))
		}
		if want := m.minRequests(); len(reqs) > want {
			t.Fatalf("limits %+v: %d requests, the minimum is %d\nplan: %v\nrequests: %s", l, len(reqs), want, p.Changes, dump(reqs))
		}
	})
}

// A user whose email changes is named by its old email in every entry but
// the last, which holds the update and goes in a later request; it is
// never named in a user-group step. Nor is an existing independent ID
// (only a user entry can say useVendorID).
func TestBatchesRenameAndIndependentIDs(t *testing.T) {
	t.Parallel()
	newEmail := "new@x.com"
	var groups []string
	for i := range 15 {
		groups = append(groups, fmt.Sprintf("G%02d", i))
	}
	p := &Plan{UserGroups: groups}
	p.Changes = append(p.Changes, Change{Kind: KindUpdate, User: User{Type: EnterpriseID, Email: "old@x.com"}, Set: &Attrs{Email: &newEmail}, Add: groups})
	for i := range 12 {
		p.Changes = append(p.Changes, Change{Kind: KindUpdate, User: User{Type: VendorID, Email: fmt.Sprintf("v%02d@x.com", i)}, Add: []string{"G00"}})
	}
	reqs := p.Batches(DefaultLimits())
	updateReq, lastAdd := -1, -1
	for r, req := range reqs {
		for _, e := range req.Entries {
			if e.User == nil {
				t.Fatalf("request %d: group-rooted entry %s: neither the renamed user nor independent IDs may be named there", r, show(e))
			}
			if e.User.Email != "old@x.com" {
				continue
			}
			if slices.ContainsFunc(e.Steps, func(s Step) bool { return s.Kind == StepUpdate }) {
				updateReq = r
			} else {
				lastAdd = max(lastAdd, r)
			}
		}
	}
	if updateReq < 0 || updateReq <= lastAdd {
		t.Errorf("update in request %d, adds up to request %d: the update must come after every other entry of the user", updateReq, lastAdd)
	}
}
