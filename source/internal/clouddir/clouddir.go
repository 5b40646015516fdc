// Package clouddir is the read that the cloud directory sources (Entra
// ID, Okta) share, given each directory's few API calls: find the groups
// the mapping rules name (each exactly named group must exist), read their
// members, then read the users and build each one with its target groups
// by the attribute templates. With expressions (filter, groups, set, scope
// groups), every group is read so that they see each user's directory
// groups, and the users are built once the groups are known. Any error
// fails the whole read, and so does a directory without users: never a
// partial or empty list.
package clouddir

import (
	"cmp"
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/orgsync/orgsync/internal/util/crash"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/internal/usertmpl"
	"github.com/orgsync/orgsync/source/mapping"
)

// Group is one directory group; Aliases are other names a mapping rule
// may give it (a Google group's other addresses), which map by exact
// rules only.
type Group struct {
	ID, Name string
	Aliases  []string
}

// Everyone is the member id that stands for every user of the directory
// (a Google group whose member is the whole account, type CUSTOMER):
// every user read is in the group.
const Everyone = "\x00everyone"

// Directory is one cloud directory's API.
type Directory interface {
	// FindGroups returns the groups whose name or id is name.
	FindGroups(ctx context.Context, name string) ([]Group, error)
	// ListGroups calls fn for every group the source may map.
	ListGroups(ctx context.Context, fn func(Group)) error
	// Members calls fn with the id of every user in g (through nested
	// groups too, where the directory has them and the source wants them).
	Members(ctx context.Context, g Group, fn func(userID string)) error
	// Users calls fn for every user to sync, with its id and its
	// attributes (fn may keep them); those left out by configuration
	// (disabled, inactive) are not given.
	Users(ctx context.Context, fn func(id string, attrs usertmpl.Attributes)) error
	// LeftOut counts the users that Users did not give (disabled,
	// inactive).
	LeftOut() int
	// Where names the API, for problems and messages.
	Where() string
	// GroupsWhere says where groups were looked for, for the error about
	// a missing group ("in Microsoft Graph groups").
	GroupsWhere() string
	// UsersWhere says which users were asked for, for the error about an
	// empty answer ("with users.filter ...").
	UsersWhere() string
}

// Options of one read.
type Options struct {
	Name   string          // the source's name, for problems
	Mapper *mapping.Mapper // may be empty
	Fields *usertmpl.Fields
	// CallerChecksGroups: a missing exactly mapped group goes into
	// Result.MissingGroups instead of failing the read.
	CallerChecksGroups bool
	// Expressions run over each user (with its directory groups).
	Expressions usertmpl.Expressions
}

// withGroups reports whether the users' directory groups are needed:
// when there are expressions, or a user to explain (plan --explain shows
// its directory groups, mapped or not).
func (o *Options) withGroups() bool {
	return o.Expressions.Program != nil || o.Expressions.Explain != ""
}

// Read reads the users of dir with their target groups. The users are
// listed while the groups' members are: the two are independent. With
// expressions, the users listed are built by a goroutine of its own once
// the groups are known (pending), so that the listing never waits for
// them.
func Read(ctx context.Context, dir Directory, o Options) (*source.Result, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var m membership
	done := make(chan struct{})
	go func() {
		defer close(done)
		err := crash.Call(func() (err error) {
			m, err = readMemberships(ctx, dir, o)
			return err
		})
		if err != nil {
			cancel(err)
		}
	}()
	c := usertmpl.NewCollector(o.Name, dir.Where(), o.Fields)
	c.Run(o.Expressions)
	add := c.Add
	var p *pending
	if o.withGroups() {
		p = startPending(ctx, cancel, c, &m, done)
		add = p.add
	}
	if err := dir.Users(ctx, add); err != nil {
		cancel(fmt.Errorf("users: %w", err))
	}
	if p != nil {
		p.end()
	}
	<-done
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	if c.Records() == 0 {
		// Far likelier a wrong filter or a missing permission than a
		// company without staff; "nobody" would remove every user.
		return nil, fmt.Errorf("users: the directory returned no user %s: check the filter and the application's permissions", dir.UsersWhere())
	}
	if p == nil {
		c.AttachGroups(func(id string) []string { return m.of(id).targets })
	}
	res := c.Result()
	if res.Users.Len() == 0 && c.LeftByFilter() > 0 {
		return nil, fmt.Errorf("users: the filter expression left none of the %d users (%d were left out, the others were bad); an empty source would remove every user, so it is refused: check the filter", c.Records(), c.LeftByFilter())
	}
	res.FoundGroups, res.MissingGroups = m.found, m.missing
	res.Problems = append(res.Problems, m.problems...)
	return res, nil
}

// pending builds the users listed with expressions, which need each
// user's groups, on a goroutine of its own: the users listed queue until
// the groups are known (known is closed after m is written), and are then
// built as they come, in the order listed, each batch's expressions on
// every core. The listing only queues them, so the next page is never
// waited for while users are built, and each page's records are freed
// early.
type pending struct {
	c      *usertmpl.Collector
	m      *membership
	mu     sync.Mutex
	queued []record
	ended  bool          // every user is listed
	wake   chan struct{} // (capacity 1) records queued, or the listing ended
	built  chan struct{} // closed when the builder returns
}

// startPending starts the builder; a panic in it cancels ctx.
func startPending(ctx context.Context, cancel context.CancelCauseFunc, c *usertmpl.Collector, m *membership, known <-chan struct{}) *pending {
	p := &pending{c: c, m: m, wake: make(chan struct{}, 1), built: make(chan struct{})}
	go func() {
		defer close(p.built)
		if err := crash.Call(func() error { p.build(ctx, known); return nil }); err != nil {
			cancel(err)
		}
	}()
	return p
}

// add queues a user listed.
func (p *pending) add(id string, attrs usertmpl.Attributes) {
	p.mu.Lock()
	p.queued = append(p.queued, record{id, attrs})
	p.mu.Unlock()
	p.signal()
}

// end says that every user is listed and waits for the builder.
func (p *pending) end() {
	p.mu.Lock()
	p.ended = true
	p.mu.Unlock()
	p.signal()
	<-p.built
}

func (p *pending) signal() {
	select {
	case p.wake <- struct{}{}:
	default: // a wake-up is already due
	}
}

// build waits for the groups, then builds the users queued until the
// listing ends; it stops early when ctx ends (a failed read).
func (p *pending) build(ctx context.Context, known <-chan struct{}) {
	select {
	case <-known:
	case <-ctx.Done():
	}
	if ctx.Err() != nil { // the groups failed, or the listing did
		return
	}
	for {
		select {
		case <-p.wake:
		case <-ctx.Done():
			return
		}
		p.mu.Lock()
		batch, ended := p.queued, p.ended
		p.queued = nil
		p.mu.Unlock()
		p.c.BuildAll(len(batch), runtime.GOMAXPROCS(0), func(i int) (string, usertmpl.Attributes, []string, []string) {
			r := &batch[i]
			g := p.m.of(r.id)
			return r.id, r.attrs, g.targets, g.names
		})
		if ended {
			return
		}
	}
}

// of returns what the groups say of user id, with what they say of
// everyone.
func (m *membership) of(id string) userGroups {
	var g userGroups
	if u := m.users[id]; u != nil {
		g = *u
	}
	if len(m.everyone.targets) > 0 {
		g.targets = source.UnionGroups(g.targets, m.everyone.targets)
	}
	if len(m.everyone.names) > 0 {
		g.names = source.UnionGroups(g.names, m.everyone.names)
	}
	return g
}

// record is a user listed, built once the groups are known.
type record struct {
	id    string
	attrs usertmpl.Attributes
}

// membership is what the groups say: of each user by id, of everyone
// (the members of groups whose member is Everyone), and the exactly
// mapped groups found and missing.
type membership struct {
	users    map[string]*userGroups
	everyone userGroups
	found    []string
	missing  []source.MissingGroup
	// problems are the groups mapped to a target group whose name is
	// longer than the service allows: their members do not get it.
	problems []source.Problem
}

// userGroups are the target groups of a user and, with expressions, the
// names of its directory groups.
type userGroups struct{ targets, names []string }

// user returns what the groups say of the member id, to add to.
func (m *membership) user(id string) *userGroups {
	if id == Everyone {
		return &m.everyone
	}
	u := m.users[id]
	if u == nil {
		u = &userGroups{}
		m.users[id] = u
	}
	return u
}

// Concurrency is how many groups' members are read at once.
const Concurrency = 4

// readMemberships finds the mapped groups and reads their members.
func readMemberships(ctx context.Context, dir Directory, o Options) (membership, error) {
	m := membership{users: map[string]*userGroups{}}
	if o.Mapper.Empty() && !o.withGroups() {
		return m, nil
	}
	groups, err := mappedGroups(ctx, dir, o.Mapper, o.withGroups())
	if err != nil {
		return m, fmt.Errorf("groups: %w", err)
	}
	m.found, m.missing = exactGroups(groups, o.Mapper, dir.GroupsWhere())
	if len(m.missing) > 0 && !o.CallerChecksGroups {
		return m, source.MissingGroupsError(m.missing, false)
	}
	var mapped []Group
	var targets [][]string
	for _, g := range groups {
		t := o.Mapper.MapGroup(g.Name, g.ID)
		for _, a := range g.Aliases {
			t = source.UnionGroups(t, o.Mapper.MapExact(a))
		}
		if reason := source.GroupNamesProblem(t); reason != "" {
			m.problems = append(m.problems, source.Problem{Source: o.Name, File: dir.Where(), Record: fmt.Sprintf("group %q (%s)", g.Name, g.ID),
				Field: "groups", Reason: reason + ": its members do not get it"})
			t = nil
		}
		if len(t) > 0 || o.withGroups() {
			mapped, targets = append(mapped, g), append(targets, t)
		}
	}
	members := make([][]string, len(mapped))
	err = forEach(ctx, len(mapped), Concurrency, func(i int) error {
		err := dir.Members(ctx, mapped[i], func(id string) { members[i] = append(members[i], id) })
		if err != nil {
			return fmt.Errorf("members of group %q (%s): %w", mapped[i].Name, mapped[i].ID, err)
		}
		return nil
	})
	if err != nil {
		return m, err
	}
	for i, ids := range members { // in group order: the same groups in the same order every run
		name := []string{mapped[i].Name}
		for _, id := range ids {
			u := m.user(id)
			if len(targets[i]) > 0 {
				u.targets = source.UnionGroups(u.targets, targets[i])
			}
			if o.withGroups() {
				u.names = source.UnionGroups(u.names, name)
			}
		}
	}
	return m, nil
}

// forEach runs fn(0..n-1), at most limit at once, and returns the first
// error; after one, no new call starts.
func forEach(ctx context.Context, n, limit int, fn func(int) error) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	failed := func() bool { mu.Lock(); defer mu.Unlock(); return first != nil }
	sem := make(chan struct{}, limit)
	for i := 0; i < n && !failed() && ctx.Err() == nil; i++ {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := crash.Call(func() error { return fn(i) }); err != nil {
				mu.Lock()
				first = cmp.Or(first, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if first == nil {
		return context.Cause(ctx)
	}
	return first
}

// mappedGroups returns the groups the rules may map: every group (of the
// directory's groups filter) when a rule is a pattern or all is set
// (expressions see every group), and each exact rule's group, looked up
// one by one when the listing does not have it (a tenant may have far more
// groups than the rules name).
func mappedGroups(ctx context.Context, dir Directory, m *mapping.Mapper, all bool) ([]Group, error) {
	var groups []Group
	seen := map[string]bool{}
	add := func(g Group) {
		if !seen[g.ID] {
			seen[g.ID] = true
			groups = append(groups, g)
		}
	}
	if all || m.HasPatterns() {
		if err := dir.ListGroups(ctx, add); err != nil {
			return nil, err
		}
	}
	for _, name := range m.ExactGroups() {
		if hasGroup(groups, name) {
			continue
		}
		gs, err := dir.FindGroups(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("looking up %q: %w", name, err)
		}
		for _, g := range gs {
			add(g)
		}
	}
	return groups, nil
}

// exactGroups splits the groups of exact rules into those among groups
// (by name or id, case-insensitively) and those missing.
func exactGroups(groups []Group, m *mapping.Mapper, where string) (found []string, missing []source.MissingGroup) {
	for _, want := range m.ExactGroups() {
		if hasGroup(groups, want) {
			found = append(found, want)
		} else {
			missing = append(missing, source.MissingGroup{Group: want, Where: where})
		}
	}
	return found, missing
}

func hasGroup(groups []Group, want string) bool {
	want = strings.TrimSpace(want)
	for _, g := range groups {
		if strings.EqualFold(g.Name, want) || strings.EqualFold(g.ID, want) || slices.ContainsFunc(g.Aliases, func(a string) bool { return strings.EqualFold(a, want) }) {
			return true
		}
	}
	return false
}
