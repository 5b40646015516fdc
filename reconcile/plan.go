package reconcile

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Attrs are the new values of an update; nil fields stay unchanged.
type Attrs struct {
	FirstName *string `json:"firstname,omitempty"`
	LastName  *string `json:"lastname,omitempty"`
	Email     *string `json:"email,omitempty"`
	Username  *string `json:"username,omitempty"`
}

func (a *Attrs) empty() bool {
	return a.FirstName == nil && a.LastName == nil && a.Email == nil && a.Username == nil
}

// Change is one planned change, as plain data. User holds the identity
// (type, email, username, domain) and, for a create, every attribute;
// for invites only the email. Group names the group of a create-group.
type Change struct {
	Kind   Kind     `json:"kind"`
	User   User     `json:"user,omitzero"`
	Group  string   `json:"group,omitempty"`
	Set    *Attrs   `json:"set,omitempty"`
	Add    []string `json:"add,omitempty"`
	Remove []string `json:"remove,omitempty"`
}

// Key is what the change is about: the user's key, or the group's name.
func (c *Change) Key() string {
	if kinds[c.Kind].send == asGroupEntry {
		return c.Group
	}
	return c.User.Key()
}

// Destructive reports whether the change takes something away. A change
// of an unknown kind counts as destructive, so that the safety rules hold
// it back with the others.
func (c *Change) Destructive() bool {
	r, known := kinds[c.Kind]
	return len(c.Remove) > 0 || r.destructive || !known
}

// Plan is the set of changes that makes the current state equal to the
// desired one under a policy.
type Plan struct {
	Changes []Change `json:"changes"`
	// Withheld are destructive changes not applied because a safety rule
	// stopped them; Safety says which.
	Withheld []Change     `json:"withheld,omitempty"`
	Safety   *SafetyError `json:"safety,omitempty"`
	// Unmatched reports every user in the organization (or, when the state
	// was read by group, in the groups read) who is in no source, whatever
	// the policy does with them.
	// They share the current state's strings.
	Unmatched Users `json:"unmatched,omitzero"`
	// Excluded counts the users left alone by the policy's exclusions.
	Excluded int `json:"excluded"`
	// OutOfScope counts the users (of the sources and of the
	// organization) a scoped run left alone (Desired.Scope).
	OutOfScope int `json:"outOfScope,omitempty"`
	// Notes are remarks on skipped input (e.g. a protected group).
	Notes []string `json:"notes,omitempty"`
	// UserGroups are the policy's user groups, which Batches may change
	// group-rooted.
	UserGroups []string `json:"userGroups,omitempty"`
	// InviteGroups holds, under Policy.RefreshInviteGroups, for each
	// desired independent ID with a pending invite, its desired groups
	// (kind KindInviteGroups): an addVendorID
	// with an option and an add, which puts them with the invite (contract
	// 7) and changes nothing when they are there already. The service does
	// not show the memberships kept with an invite, so they cannot be
	// compared: they are sent on every real run and are not changes (a
	// plan with only these is in sync).
	InviteGroups []Change `json:"inviteGroups,omitempty"`
	// MissingGroups are the managed groups (targets of the mapping) that do
	// not exist in the organization and that the plan does not create: no
	// membership of them is planned, and Apply fails after applying the
	// rest (see MissingGroupsError).
	MissingGroups []MissingGroup `json:"missingGroups,omitempty"`
	// Names names the settings in the plan's words: the policy's Names.
	// The plan's views name them so.
	Names Names `json:"-"`
}

// MissingGroup is a target group that does not exist in the organization.
type MissingGroup struct {
	Name  string `json:"name"`
	Users int    `json:"users"` // source users who would have been added to it
}

// Hint says what to do about the missing group, naming the settings by
// names. A user group is missing only when the policy does not create user
// groups (SettingCreateUserGroups); an admin group ("_...") the service
// cannot create.
func (g MissingGroup) Hint(names Names) string {
	if strings.HasPrefix(g.Name, "_") {
		return "an admin group, which the service cannot create: create the product or role it belongs to in the organization, or fix the mapping rule that names it"
	}
	return fmt.Sprintf("create it in the organization (a product profile or a user group), set %s: true to have orgsync create it as a user group, or fix the mapping rule that names it",
		names.Of(SettingCreateUserGroups))
}

// Describe says that the group is missing, how many users wanted it, and
// what to do (Hint).
func (g MissingGroup) Describe(names Names) string {
	users := fmt.Sprintf("%d source users would be added to it", g.Users)
	if g.Users == 1 {
		users = "1 source user would be added to it"
	}
	return fmt.Sprintf("target group %q does not exist in the organization (%s; none is): %s", g.Name, users, g.Hint(names))
}

// MissingGroupsError reports the plan's missing targets after the rest of
// the plan was applied, naming the settings by Names (the plan's).
type MissingGroupsError struct {
	Groups []MissingGroup
	Names  Names
}

func (e *MissingGroupsError) Error() string {
	msgs := make([]string, len(e.Groups))
	for i, g := range e.Groups {
		msgs[i] = g.Describe(e.Names)
	}
	return strings.Join(msgs, "; ")
}

// Empty reports whether the plan changes nothing.
func (p *Plan) Empty() bool { return len(p.Changes) == 0 }

// InSync reports whether the organization already equals the desired state:
// nothing to change, nothing withheld by a safety rule, no target missing.
func (p *Plan) InSync() bool { return p.Empty() && len(p.Withheld) == 0 && len(p.MissingGroups) == 0 }

// SafetyError says why the destructive changes of a plan were withheld.
type SafetyError struct {
	Reason    string  `json:"reason"`
	Withheld  int     `json:"withheld"`  // destructive changes withheld
	Removals  int     `json:"removals"`  // destructive changes planned
	Changes   int     `json:"changes"`   // all changes planned
	Managed   int     `json:"managed"`   // managed users in the organization
	Limit     int     `json:"limit"`     // the limit exceeded, -1 when none applies
	LimitName Setting `json:"limitName"` // SettingMaxRemovals or SettingMaxChanges when a limit stopped the run
	// Stopped is set when every change was withheld, not only the
	// destructive ones: nothing is sent.
	Stopped bool `json:"stopped,omitempty"`
}

func (e *SafetyError) Error() string {
	if e.Stopped {
		return fmt.Sprintf("safety: %s: nothing sent, every change withheld (%d removals and %d changes planned, %d managed users)",
			e.Reason, e.Removals, e.Changes, e.Managed)
	}
	return fmt.Sprintf("safety: %s: %d destructive changes withheld (%d removals and %d changes planned, %d managed users); nothing destructive applied",
		e.Reason, e.Withheld, e.Removals, e.Changes, e.Managed)
}

// protectedAdd cannot be assigned (rule 11); protectedRemove cannot be removed.
var protectedAdd = map[string]bool{"_org_admin": true, "_compartment_admin": true, "_compartment_viewer": true}

const protectedRemove = "_org_admin"

// Diff computes the plan that makes current equal to desired under the
// policy (checked when it was made: see Policy.Valid).
func Diff(desired Desired, current *Current, valid *ValidPolicy) (*Plan, error) {
	policy := &valid.p
	if current.ByGroup && policy.ReadNeeds().AllUsers {
		return nil, fmt.Errorf("current state: read by group, but policy %q needs every user of the organization", policy.Unmatched)
	}
	d := newDiffer(policy, current)
	d.held = desired.Held
	d.scope = desired.Scope
	d.markOut(&d.scope)
	plan := &Plan{UserGroups: append([]string(nil), policy.UserGroups...), Names: policy.Names}
	d.desiredChanges(&desired.Users, plan)
	d.unmatchedChanges(plan)
	d.inviteChanges(plan)
	d.groupChanges(plan)
	slices.SortStableFunc(plan.Changes, func(a, b Change) int {
		if c := cmp.Compare(a.Kind.rank(), b.Kind.rank()); c != 0 {
			return c
		}
		return cmp.Compare(a.Key(), b.Key())
	})
	d.applySafety(desired, plan)
	return plan, nil
}

// differ holds the indexes one Diff needs.
type differ struct {
	policy   *Policy
	current  *Current
	have     *Index          // current users by key
	dupCur   []bool          // current user listed twice: the later record
	matched  []bool          // current user named by a source
	created  *Index          // desired users not in current, by key
	invited  map[string]bool // invites of users named by a source (lower-case email)
	managed  map[string]string
	userGrp  map[string]bool
	exclGrp  map[string]bool
	exclType map[IdentityType]bool
	fold     map[string]string // exact group name -> lower case
	byEmail  map[string]int    // lower-case email -> current user keyed by username
	invites  map[string]Invite
	held     map[string][]string // Desired.Held
	scope    Scope               // Desired.Scope
	out      []bool              // current user that a Scope.Out user stands for
	nManaged int
	// create and missing are the managed groups (lower case) that do not
	// exist: those the plan creates, and the others with the number of
	// users who want them.
	create  map[string]bool
	missing map[string]int
}

func newDiffer(p *Policy, cur *Current) *differ {
	n := cur.Users.Len()
	d := &differ{policy: p, current: cur, have: NewIndex(n, cur.Users.Key),
		managed: make(map[string]string), userGrp: foldSet(p.UserGroups), exclGrp: foldSet(p.ExcludeGroups),
		exclType: make(map[IdentityType]bool), fold: make(map[string]string), invites: make(map[string]Invite),
		dupCur: make([]bool, n), matched: make([]bool, n), invited: make(map[string]bool), byEmail: make(map[string]int)}
	for _, g := range p.managedGroups() {
		d.managed[strings.ToLower(g)] = g
	}
	for _, t := range p.ExcludeTypes {
		d.exclType[t] = true
	}
	d.missingGroups()
	for i := range n {
		u := cur.Users.At(i)
		k := u.Key()
		if _, added := d.have.AddKey(i, k); !added {
			d.dupCur[i] = true
		}
		if e := strings.ToLower(u.Email); e != "" && e != k {
			d.byEmail[e] = i
		}
		if !d.excluded(&u) {
			d.nManaged++
		}
	}
	for _, inv := range cur.Invites {
		k := strings.ToLower(inv.Email)
		if have, ok := d.invites[k]; !ok || supersedes(inv, have) {
			d.invites[k] = inv
		}
	}
	return d
}

// supersedes reports whether invite a stands for its email rather than b:
// the listing holds expired invites beside a newer pending one of the
// same email (after a re-invite), and the email is then invited; a pending
// invite wins, then the one sent last.
func supersedes(a, b Invite) bool {
	if a.Expired != b.Expired {
		return !a.Expired
	}
	return a.LastSent.After(b.LastSent)
}

// missingGroups sorts the groups that do not exist into those to create
// (user groups, under CreateUserGroups) and those missing.
func (d *differ) missingGroups() {
	d.create, d.missing = map[string]bool{}, map[string]int{}
	for _, g := range d.current.Missing {
		l := strings.ToLower(g)
		if d.policy.CreateUserGroups && !strings.HasPrefix(g, "_") {
			d.create[l] = true
		} else {
			d.missing[l] = 0
		}
	}
}

func (d *differ) lower(group string) string {
	if l, ok := d.fold[group]; ok {
		return l
	}
	l := strings.ToLower(group)
	d.fold[group] = l
	return l
}

// excluded reports whether the policy leaves u alone.
func (d *differ) excluded(u *User) bool {
	if d.exclType[u.Type] {
		return true
	}
	for _, g := range u.Groups {
		if len(d.exclGrp) > 0 && d.exclGrp[d.lower(g)] {
			return true
		}
	}
	return d.policy.excludedName(u)
}

// desiredChanges plans the changes of the users the sources name. A user
// named twice keeps the first record, with a note.
func (d *differ) desiredChanges(users *Users, plan *Plan) {
	d.created = NewIndex(0, users.Key)
	for i := range users.Len() {
		want := users.At(i)
		u := &want
		k := u.Key()
		j, exists := d.lookup(u, k)
		dup := exists && d.matched[j]
		if !exists {
			_, dup = d.created.Find(k)
		}
		if dup {
			plan.Notes = append(plan.Notes, fmt.Sprintf("desired user %s is listed twice (record %d); the first record is used", k, i+1))
			continue
		}
		if !d.scope.names(u) {
			if exists {
				d.matched[j] = true
			}
			plan.OutOfScope++
			continue
		}
		if u.Type == VendorID {
			d.invited[strings.ToLower(u.Email)] = true
		}
		if !exists {
			d.created.AddKey(i, k)
			if d.excluded(u) {
				plan.Excluded++
				continue
			}
			d.createChange(u, plan)
			continue
		}
		d.matched[j] = true
		if d.excluded(u) {
			plan.Excluded++
			continue
		}
		have := d.current.Users.At(j)
		c := &have
		if d.excluded(c) {
			plan.Excluded++
			continue
		}
		if ch, ok := d.updateChange(u, c, plan); ok {
			plan.Changes = append(plan.Changes, ch)
		}
	}
}

// lookup finds the current user a desired user u (key k) stands for: the
// one with the same key; for a u named by its email alone, the Federated ID
// with that email that the service knows by a username (a source without a
// username template still names the same account: the email is unique and
// identifies it in requests); for a Federated ID named by username, the
// Federated ID with its email under another username (namedByUsername).
func (d *differ) lookup(u *User, k string) (int, bool) {
	if j, ok := d.have.Find(k); ok {
		return j, true
	}
	switch {
	case namedByEmail(u):
		j, ok := d.byEmail[k]
		return j, ok
	case namedByUsername(u):
		e := strings.ToLower(u.Email)
		j, ok := d.have.Find(e)
		if !ok {
			j, ok = d.byEmail[e]
		}
		return j, ok && d.current.Users.At(j).Type == FederatedID
	}
	return 0, false
}

func (d *differ) createChange(u *User, plan *Plan) {
	if inv, ok := d.invites[strings.ToLower(u.Email)]; ok && u.Type == VendorID {
		d.invitedChange(u, inv, plan)
		return
	}
	if !u.Type.OrgOwned() && u.Type != VendorID {
		plan.Notes = append(plan.Notes, fmt.Sprintf("desired user %s has no identity type; not created", u.Key()))
		return
	}
	if missing := missingForCreate(u); len(missing) > 0 {
		plan.Notes = append(plan.Notes, fmt.Sprintf("desired user %s is not in the organization and cannot be created: the service needs %s for a %s; add it to the source",
			u.Key(), strings.Join(missing, ", "), u.Type))
		return
	}
	nu := *u
	nu.Groups = nil
	add := d.addGroups(u, nil, plan)
	if len(add) == 0 && d.onlyMissingGroups(u) {
		plan.Notes = append(plan.Notes, fmt.Sprintf("desired user %s is not created: the groups it is mapped to here (%s) do not exist in the organization (see above)",
			u.Key(), strings.Join(u.Groups, ", ")))
		return
	}
	plan.Changes = append(plan.Changes, Change{Kind: KindCreate, User: nu, Add: add})
}

// onlyMissingGroups reports whether u has managed groups and every one of
// them is missing from the organization: nothing there maps u, so u is not
// created in it (with no groups) until a group exists.
func (d *differ) onlyMissingGroups(u *User) bool {
	seen := false
	for _, g := range u.Groups {
		if _, ok := d.managed[d.lower(g)]; !ok {
			continue
		}
		if _, missing := d.missing[d.lower(g)]; !missing {
			return false
		}
		seen = true
	}
	return seen
}

// invitedChange plans for a desired independent ID with an invite: after
// an expired one the user is invited again (KindResendInvite: addVendorID
// with the desired groups, packed in the batches like a create; with no
// pending invite the service sends a new one), unless the policy says not
// to. A pending one is left alone: its groups went
// with it when it was sent, and the service does not list them; under
// Policy.RefreshInviteGroups they are sent again (Plan.InviteGroups).
func (d *differ) invitedChange(u *User, inv Invite, plan *Plan) {
	nu := *u
	nu.Groups = nil
	switch {
	case inv.Expired && d.policy.ResendExpiredInvites:
		plan.Changes = append(plan.Changes, Change{Kind: KindResendInvite, User: nu, Add: d.addGroups(u, nil, plan)})
	case inv.Expired:
		plan.Notes = append(plan.Notes, fmt.Sprintf("desired user %s: the invite sent %s has expired and the user is not invited again; set %s to invite them again",
			u.Key(), inv.LastSent.UTC().Format(time.DateOnly), d.policy.Names.Of(SettingResendExpiredInvites)))
	case d.policy.RefreshInviteGroups:
		if add := d.addGroups(u, nil, plan); len(add) > 0 {
			plan.InviteGroups = append(plan.InviteGroups, Change{Kind: KindInviteGroups, User: nu, Add: add})
		}
	}
}

// missingForCreate lists the fields the service requires to create u that
// u lacks (specification, create steps): an email for every type, first and
// last name for Enterprise and Federated IDs, a country for Federated IDs.
// A source may name a Federated ID by username alone: enough to match an
// existing user, not to create one.
func missingForCreate(u *User) []string {
	var missing []string
	if u.Email == "" {
		missing = append(missing, "email")
	}
	if u.Type.OrgOwned() {
		if u.FirstName == "" {
			missing = append(missing, "firstname")
		}
		if u.LastName == "" {
			missing = append(missing, "lastname")
		}
	}
	if u.Type == FederatedID && u.Country == "" {
		missing = append(missing, "country")
	}
	return missing
}

// addGroups are the managed groups of want that have lacks, protected
// groups left out with a note.
func (d *differ) addGroups(want, have *User, plan *Plan) []string {
	var add []string
	for _, g := range want.Groups {
		canon, ok := d.managed[d.lower(g)]
		if !ok || (have != nil && d.hasGroup(have, g)) || slices.Contains(add, canon) {
			continue
		}
		if protectedAdd[d.lower(g)] {
			plan.Notes = append(plan.Notes, fmt.Sprintf("user %s: group %s cannot be assigned through the service; skipped", want.Key(), g))
			continue
		}
		if n, missing := d.missing[d.lower(g)]; missing {
			d.missing[d.lower(g)] = n + 1
			continue
		}
		add = append(add, canon)
	}
	return add
}

// removeGroups are the managed groups of have that want lacks (want nil:
// every managed group), _org_admin left out.
func (d *differ) removeGroups(want, have *User) []string {
	var rm []string
	for _, g := range have.Groups {
		l := d.lower(g)
		if _, ok := d.managed[l]; !ok || l == protectedRemove || (want != nil && d.hasGroup(want, g)) {
			continue
		}
		rm = append(rm, g)
	}
	return rm
}

// holdBack returns the removals rm from desired user want without the
// groups held for want (Desired.Held), noting each one it keeps.
func (d *differ) holdBack(want *User, rm []string, plan *Plan) []string {
	if len(d.held) == 0 || len(rm) == 0 {
		return rm
	}
	k := want.Key()
	held := d.held[k]
	out := rm[:0:0]
	for _, g := range rm {
		if slices.ContainsFunc(held, func(h string) bool { return strings.EqualFold(h, g) }) {
			plan.Notes = append(plan.Notes, fmt.Sprintf("%s keeps %s: a source could not confirm the directory group that gives it (see the warnings)", k, g))
			continue
		}
		out = append(out, g)
	}
	return out
}

func (d *differ) hasGroup(u *User, g string) bool {
	for _, h := range u.Groups {
		if strings.EqualFold(h, g) {
			return true
		}
	}
	return false
}

func (d *differ) updateChange(want, have *User, plan *Plan) (Change, bool) {
	ch := Change{Kind: KindUpdate, User: identity(have)}
	if set := d.attrChanges(want, have); !set.empty() {
		ch.Set = &set
	}
	if !sameGroups(want.Groups, have.Groups) {
		ch.Add = d.addGroups(want, have, plan)
		ch.Remove = d.holdBack(want, d.removeGroups(want, have), plan)
	}
	return ch, ch.Set != nil || len(ch.Add) > 0 || len(ch.Remove) > 0
}

// sameGroups reports, cheaply, that a and b hold the same names in the
// same order (ignoring case); false means "maybe different".
func sameGroups(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !strings.EqualFold(a[i], b[i]) {
			return false
		}
	}
	return true
}

// attrChanges are the attribute updates the policy allows: names and
// email of Enterprise and Federated IDs, usernames of Federated IDs.
func (d *differ) attrChanges(want, have *User) Attrs {
	var a Attrs
	if !have.Type.OrgOwned() {
		return a
	}
	allow := d.policy.Update
	if allow.FirstName && want.FirstName != "" && want.FirstName != have.FirstName {
		a.FirstName = ptr(want.FirstName)
	}
	if allow.LastName && want.LastName != "" && want.LastName != have.LastName {
		a.LastName = ptr(want.LastName)
	}
	if allow.Email && want.Email != "" && !strings.EqualFold(want.Email, have.Email) {
		a.Email = ptr(want.Email)
	}
	if allow.Username && have.Type == FederatedID && want.Username != "" && !strings.EqualFold(want.Username, have.Username) {
		a.Username = ptr(want.Username)
	}
	return a
}

// ptr is a pointer to a copy of s (never to a field of a user, which
// would keep the whole user on the heap).
func ptr(s string) *string { return &s }

// identity is u without attributes and groups.
func identity(u *User) User {
	return User{Type: u.Type, Email: u.Email, Username: u.Username, Domain: u.Domain}
}

func (d *differ) unmatchedChanges(plan *Plan) {
	for i := range d.current.Users.Len() {
		if d.matched[i] || d.dupCur[i] {
			continue
		}
		have := d.current.Users.At(i)
		c := &have
		if d.excluded(c) {
			plan.Excluded++
			continue
		}
		if d.outOfScope(i) {
			plan.OutOfScope++
			continue
		}
		plan.Unmatched.AddOf(&d.current.Users, i, c.Groups)
		policy := d.policy.Unmatched
		if (policy == RemoveUsers || policy == DeleteUsers) && d.hasGroup(c, protectedRemove) {
			plan.Notes = append(plan.Notes, fmt.Sprintf("user %s is a system administrator (%s) in no source: not removed from the organization (only its managed memberships); remove it by hand if it must go",
				c.Key(), protectedRemove))
			policy = RemoveGroups
		}
		switch policy {
		case RemoveGroups:
			if rm := d.removeGroups(nil, c); len(rm) > 0 {
				plan.Changes = append(plan.Changes, Change{Kind: KindUpdate, User: identity(c), Remove: rm})
			}
		case RemoveUsers:
			plan.Changes = append(plan.Changes, Change{Kind: KindRemove, User: identity(c)})
		case DeleteUsers:
			k := KindDelete
			if !c.Type.OrgOwned() {
				k = KindRemove
			}
			plan.Changes = append(plan.Changes, Change{Kind: k, User: identity(c)})
		}
	}
}

func (d *differ) inviteChanges(plan *Plan) {
	if !d.policy.RevokeUnmatchedInvites {
		return
	}
	for _, inv := range d.current.Invites {
		u := User{Type: VendorID, Email: inv.Email}
		// Revoke is defined on a pending invite (an expired one cannot be
		// accepted, and a service may answer 404 to revoking it).
		if inv.Expired || d.invited[strings.ToLower(inv.Email)] || d.excluded(&u) || d.inviteOutOfScope(&u) {
			continue
		}
		plan.Changes = append(plan.Changes, Change{Kind: KindRevokeInvite, User: u})
	}
}

// groupChanges creates the groups to create and reports the missing ones
// that some desired user was to be added to, in the order of the managed
// groups.
func (d *differ) groupChanges(plan *Plan) {
	for _, g := range d.policy.managedGroups() {
		l := strings.ToLower(g)
		if d.create[l] {
			plan.Changes = append(plan.Changes, Change{Kind: KindCreateGroup, Group: g})
			delete(d.create, l) // once, however often it is listed
		}
		if n := d.missing[l]; n > 0 {
			plan.MissingGroups = append(plan.MissingGroups, MissingGroup{Name: g, Users: n})
			delete(d.missing, l)
		}
	}
}

// applySafety moves every destructive change to Withheld when the sources
// were incomplete or empty or a limit is exceeded.
func (d *differ) applySafety(desired Desired, plan *Plan) {
	removals := 0
	for i := range plan.Changes {
		if plan.Changes[i].Destructive() {
			removals++
		}
	}
	if removals == 0 {
		return
	}
	e := &SafetyError{Removals: removals, Changes: len(plan.Changes), Managed: d.nManaged, Limit: -1}
	maxRm, maxCh := d.policy.MaxRemovals.Max(d.nManaged), d.policy.MaxChanges.Max(d.nManaged)
	switch {
	case desired.Users.Len() == 0:
		e.Reason = "the sources returned no user"
	case !desired.Complete:
		e.Reason = "the sources reported problems (a skipped record, a disagreement between sources): fix them to let removals through"
	case maxRm >= 0 && removals > maxRm:
		e.Limit, e.LimitName = maxRm, SettingMaxRemovals
		e.Reason = fmt.Sprintf("%d removals exceed %s %d%s", removals, d.policy.Names.Of(e.LimitName), maxRm, d.policy.MaxRemovals.explain(maxRm, d.nManaged))
	case maxCh >= 0 && len(plan.Changes) > maxCh:
		e.Limit, e.LimitName = maxCh, SettingMaxChanges
		e.Reason = fmt.Sprintf("%d changes exceed %s %d%s", len(plan.Changes), d.policy.Names.Of(e.LimitName), maxCh, d.policy.MaxChanges.explain(maxCh, d.nManaged))
	default:
		return
	}
	kept := plan.Changes[:0]
	for _, c := range plan.Changes {
		if !c.Destructive() {
			kept = append(kept, c)
			continue
		}
		if c.Kind.Info().TakesAway || (c.Set == nil && len(c.Add) == 0) {
			plan.Withheld = append(plan.Withheld, c)
			continue
		}
		plan.Withheld = append(plan.Withheld, Change{Kind: KindUpdate, User: c.User, Remove: c.Remove})
		c.Remove = nil
		kept = append(kept, c)
	}
	plan.Changes = kept
	e.Withheld = len(plan.Withheld)
	plan.Safety = e
}
