package reconcile

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Unmatched says what happens to users who are in the organization but in no
// source.
type Unmatched string

// The policies for unmatched users.
const (
	// Preserve leaves unmatched users alone (they are only reported).
	Preserve Unmatched = "preserve"
	// RemoveGroups removes their memberships of managed groups.
	RemoveGroups Unmatched = "remove-groups"
	// RemoveUsers removes them from the organization (removeFromOrg).
	RemoveUsers Unmatched = "remove"
	// DeleteUsers removes them from the organization and deletes the
	// accounts the organization owns (removeFromOrg with deleteAccount);
	// independent IDs are only removed.
	DeleteUsers Unmatched = "delete"
)

// parseUnmatched accepts "preserve", "remove-groups", "remove" or "delete".
func parseUnmatched(s string) (Unmatched, error) {
	switch u := Unmatched(strings.ToLower(strings.TrimSpace(s))); u {
	case Preserve, RemoveGroups, RemoveUsers, DeleteUsers:
		return u, nil
	}
	return "", fmt.Errorf("%q is not an unmatched-user policy (want preserve, remove-groups, remove or delete)", s)
}

// Limit caps a number of changes per run: at most Count, and at most Percent
// percent of the managed users. A zero field is no cap.
type Limit struct {
	Count   int     `json:"count,omitempty"`
	Percent float64 `json:"percent,omitempty"`
}

// Max is the cap for a run with managed users, or -1 when there is none.
func (l Limit) Max(managed int) int {
	limit := -1
	if l.Count > 0 {
		limit = l.Count
	}
	if l.Percent > 0 {
		p := int(l.Percent * float64(managed) / 100)
		if limit < 0 || p < limit {
			limit = p
		}
	}
	return limit
}

// explain tells where a cap max of Max(managed) came from when a
// percentage set it, e.g. " (10% of 8 managed users, rounded down)": a
// bare "maxRemovals 0" would read as "no limit".
func (l Limit) explain(max, managed int) string {
	if l.Percent <= 0 || (l.Count > 0 && l.Count == max) {
		return ""
	}
	return fmt.Sprintf(" (%s%% of %d managed users, rounded down)", strconv.FormatFloat(l.Percent, 'f', -1, 64), managed)
}

// Attributes says which user attributes orgsync may update on existing
// Enterprise and Federated IDs. Country is never updated (the service
// forbids it) and independent IDs are never updated.
type Attributes struct {
	FirstName bool `json:"firstname,omitempty"`
	LastName  bool `json:"lastname,omitempty"`
	Email     bool `json:"email,omitempty"`
	Username  bool `json:"username,omitempty"`
}

// Policy is what one run may change. The zero Policy manages no group,
// updates nothing and preserves unmatched users.
type Policy struct {
	// Managed lists the target groups whose memberships orgsync manages:
	// the literal targets of the mapping rules plus any listed explicitly
	// (manageGroupsOf adds the targets that pattern rules produced). The
	// UserGroups are managed too. Memberships of any other group are
	// never touched.
	Managed []string
	// UserGroups lists which target groups are user groups (as opposed
	// to product profiles and admin groups). Only user groups may be
	// created and changed group-rooted.
	UserGroups []string
	// CreateUserGroups creates, as user groups, the managed groups (the
	// targets of the mapping and the UserGroups) that do not exist yet,
	// except admin groups (named "_..."), which the service cannot create.
	// Without it a missing target is reported (Plan.MissingGroups) and no
	// membership of it is planned.
	CreateUserGroups bool
	// Update lists the attributes kept equal to the sources.
	Update Attributes
	// Unmatched is what happens to users in no source ("" is Preserve).
	Unmatched Unmatched
	// ExcludeTypes, ExcludeGroups and ExcludeUsernames name users that are
	// never touched at all: by identity type, by membership of any of the
	// groups, or by a username (the email when there is none) matching
	// any of the expressions.
	ExcludeTypes     []IdentityType
	ExcludeGroups    []string
	ExcludeUsernames []*regexp.Regexp
	// RevokeUnmatchedInvites revokes pending invites of users in no source.
	RevokeUnmatchedInvites bool
	// ResendExpiredInvites resends expired invites of users in a source.
	ResendExpiredInvites bool
	// RefreshInviteGroups sends the desired groups of every pending invite
	// of a desired user again on each real run (Plan.InviteGroups). Off by
	// default: the groups go with an invite when it is sent, a pending
	// invite is then left alone, and the user gets later group changes in
	// the first run after accepting it.
	RefreshInviteGroups bool
	// MaxRemovals caps the users losing a membership or their place in
	// the organization, plus revoked invites; MaxChanges caps all
	// changes. Over either, no destructive change is applied.
	MaxRemovals Limit
	MaxChanges  Limit
	// Names names the settings in the plan's words as the caller writes
	// them (nil: by their Setting words), so that a plan says what to
	// change where the policy came from.
	Names Names
}

// Validate reports the first inconsistency of the policy.
func (p *Policy) Validate() error {
	for _, g := range p.UserGroups {
		if strings.HasPrefix(g, "_") {
			return fmt.Errorf("userGroups: %q is an admin group, not a user group", g)
		}
	}
	if p.Unmatched != "" {
		if _, err := parseUnmatched(string(p.Unmatched)); err != nil {
			return fmt.Errorf("unmatched: %w", err)
		}
	}
	for _, l := range []Limit{p.MaxRemovals, p.MaxChanges} {
		if err := checkLimit(l); err != nil {
			return err
		}
	}
	return nil
}

// checkLimit reports a limit out of range.
func checkLimit(l Limit) error {
	if l.Count < 0 || l.Percent < 0 || l.Percent > 100 {
		return fmt.Errorf("limits: count must be >= 0 and percent within 0..100, have %+v", l)
	}
	return nil
}

// ValidPolicy is a Policy that Validate accepted. Valid is the only way to
// make one and it keeps a copy of its own, so that what takes one (Diff)
// trusts it without checking it again.
type ValidPolicy struct{ p Policy }

// Valid checks p and returns a copy of it as a ValidPolicy.
func (p *Policy) Valid() (*ValidPolicy, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &ValidPolicy{p: p.clone()}, nil
}

// clone is a copy of p that shares no list with it.
func (p *Policy) clone() Policy {
	c := *p
	c.Managed, c.UserGroups = slices.Clone(p.Managed), slices.Clone(p.UserGroups)
	c.ExcludeTypes, c.ExcludeGroups = slices.Clone(p.ExcludeTypes), slices.Clone(p.ExcludeGroups)
	c.ExcludeUsernames = slices.Clone(p.ExcludeUsernames)
	return c
}

// Policy returns a copy of the policy, to read.
func (v *ValidPolicy) Policy() Policy { return v.p.clone() }

// WithMaxRemovals returns v with l as its limit on removals, checked as
// Validate checks it; by names what set it (SettingMaxRemovals in the
// plan's words).
func (v *ValidPolicy) WithMaxRemovals(l Limit, by string) (*ValidPolicy, error) {
	if err := checkLimit(l); err != nil {
		return nil, err
	}
	out := &ValidPolicy{p: v.p.clone()}
	out.p.MaxRemovals = l
	out.p.Names = v.p.Names.With(SettingMaxRemovals, by)
	return out, nil
}

// ManagingGroupsOf returns v with every group of the users managed too
// (Policy.manageGroupsOf); the managed groups do not bear on validity.
func (v *ValidPolicy) ManagingGroupsOf(users *Users) *ValidPolicy {
	out := &ValidPolicy{p: v.p.clone()}
	out.p.manageGroupsOf(users)
	return out
}

// ReadNeedsFor is Policy.ReadNeedsFor of the policy.
func (v *ValidPolicy) ReadNeedsFor(desired *Users) ReadNeeds { return v.p.ReadNeedsFor(desired) }

// ReadNeeds tells a Reader what the policy needs to see of the
// organization: which groups' member listings may stand for the whole
// organization listing, which groups to check, and whether the invites
// matter. (Which users a run acts on is its Scope, a different thing.)
type ReadNeeds struct {
	// Groups are the groups whose members a reader may read instead of
	// the whole organization when AllUsers is false: the managed groups,
	// plus the excluding groups when the desired users are unknown (with
	// them known, a desired user in an excluding group only is looked up
	// and shows its groups; an unmatched one outside the managed groups
	// is left alone anyway).
	Groups []string
	// CheckGroups are the managed groups whose existence can change the
	// plan; the reader reports those that do not exist (Current.Missing),
	// so that Diff can create the missing user groups or report the
	// missing targets before any request is sent.
	CheckGroups []string
	// AllUsers is set when users outside Groups matter (unmatched users
	// are removed or deleted).
	AllUsers bool
	// Desired are the users the sources name, when DesiredKnown. A
	// reader that reads by group must also find those of them who exist
	// outside Groups (Diff would otherwise plan their creation on every
	// run), and needs the pending invites only when one of them is an
	// independent ID it did not find or RevokeInvites is set.
	Desired      Users
	DesiredKnown bool
	// RevokeInvites is set when the policy revokes the invites of users
	// in no source, so that every pending invite matters.
	RevokeInvites bool
	// ExpiredInvites is set when the policy does not invite again a user
	// whose invite expired (ResendExpiredInvites off): only then does an
	// expired invite change the plan, so that the reader lists them.
	// Otherwise a desired user with no pending invite is invited, expired
	// or never invited alike, and the pending invites are all it reads.
	ExpiredInvites bool
}

// ReadNeeds returns what a Reader must read for this policy when the
// desired users are not known: the reader then reads every pending invite
// and, reading by group, cannot find desired users outside the groups.
// Prefer ReadNeedsFor.
func (p *Policy) ReadNeeds() ReadNeeds {
	return ReadNeeds{
		Groups:         append(p.managedGroups(), p.ExcludeGroups...),
		CheckGroups:    p.managedGroups(),
		AllUsers:       p.Unmatched == RemoveUsers || p.Unmatched == DeleteUsers,
		RevokeInvites:  p.RevokeUnmatchedInvites,
		ExpiredInvites: !p.ResendExpiredInvites,
	}
}

// ReadNeedsFor returns what a Reader must read for this policy and the
// desired users: only what can change the plan. Desired users excluded by
// their identity type or username are left out of what is read: the plan
// leaves them alone whether they exist or not. Desired shares desired's
// storage when it leaves nobody out.
func (p *Policy) ReadNeedsFor(desired *Users) ReadNeeds {
	s := p.ReadNeeds()
	s.Groups = p.managedGroups()
	s.CheckGroups = p.groupsToCheck(desired)
	s.DesiredKnown = true
	excluded := func(_ int, u User) bool { return slices.Contains(p.ExcludeTypes, u.Type) || p.excludedName(&u) }
	s.Desired = *desired
	for i, u := range desired.All() {
		if excluded(i, u) {
			s.Desired = desired.Clone()
			s.Desired.DeleteFunc(excluded)
			break
		}
	}
	return s
}

// manageGroupsOf adds every group the users have to Managed, once each
// (compared case-insensitively). A caller whose desired users' groups all
// come from mapping rules, as the sources' do, calls it with them, so that
// the targets of pattern rules, which cannot be listed in advance, are
// managed as well.
func (p *Policy) manageGroupsOf(users *Users) {
	seen := foldSet(p.Managed)
	for _, g := range users.GroupNames() {
		if l := strings.ToLower(g); !seen[l] {
			seen[l] = true
			p.Managed = append(p.Managed, g)
		}
	}
}

// groupsToCheck are the managed groups whose existence matters for the
// desired users: those a desired user is to be in, and the UserGroups
// when CreateUserGroups creates them whether or not anyone is in them.
func (p *Policy) groupsToCheck(desired *Users) []string {
	wanted := map[string]bool{}
	for _, g := range desired.GroupNames() {
		wanted[strings.ToLower(g)] = true
	}
	if p.CreateUserGroups {
		for _, g := range p.UserGroups {
			wanted[strings.ToLower(g)] = true
		}
	}
	var out []string
	for _, g := range p.managedGroups() {
		if wanted[strings.ToLower(g)] {
			out = append(out, g)
		}
	}
	return out
}

// managedGroups returns Managed and the UserGroups not already in it.
func (p *Policy) managedGroups() []string {
	out := append([]string(nil), p.Managed...)
	seen := foldSet(p.Managed)
	for _, g := range p.UserGroups {
		if !seen[strings.ToLower(g)] {
			out = append(out, g)
		}
	}
	return out
}

// excludedName reports whether u's username (the email when there is
// none) matches an excluded expression.
func (p *Policy) excludedName(u *User) bool {
	name := u.Username
	if name == "" {
		name = u.Email
	}
	for _, re := range p.ExcludeUsernames {
		if re.MatchString(name) {
			return true
		}
	}
	return false
}

// foldSet is the set of the lower-cased names.
func foldSet(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[strings.ToLower(n)] = true
	}
	return m
}
