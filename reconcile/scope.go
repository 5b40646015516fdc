package reconcile

import "strings"

// Scope limits a run to part of the users. A user outside it, whether a
// source names it or the organization has it, is left alone: not created,
// changed or removed, and never counted as unmatched, whatever the policy
// for unmatched users says. The zero Scope is every user.
type Scope struct {
	// Out are users the sources know but left out of the run (a source's
	// filter, the mapped-only or directory-group scope). They are matched
	// to the organization's users as desired users are.
	Out []User
	// Only, when not nil, limits the run to the users it names, by email
	// or username in lower case (a file of users to act on). A named user
	// in no source is unmatched as in a whole run.
	Only map[string]bool
	// KeepUnmatched leaves alone every organization user that no source
	// names: a run scoped to some directory groups cannot tell whether a
	// user in no source would be in them.
	KeepUnmatched bool
}

// Limited reports whether the scope leaves some users out.
func (s *Scope) Limited() bool { return len(s.Out) > 0 || s.Only != nil || s.KeepUnmatched }

// names reports whether Only names u (true when there is no Only).
func (s *Scope) names(u *User) bool {
	return s.Only == nil || s.Only[strings.ToLower(u.Email)] || s.Only[strings.ToLower(u.Username)] && u.Username != ""
}

// markOut marks the current users that the scope's Out users stand for.
func (d *differ) markOut(s *Scope) {
	d.out = make([]bool, d.current.Users.Len())
	for i := range s.Out {
		if j, ok := d.lookup(&s.Out[i], s.Out[i].Key()); ok {
			d.out[j] = true
		}
	}
}

// outOfScope reports whether the current user at index j (an unmatched
// one) is outside the scope.
func (d *differ) outOfScope(j int) bool {
	s := &d.scope
	if d.out[j] || s.KeepUnmatched {
		return true
	}
	u := d.current.Users.At(j)
	return !s.names(&u)
}

// inviteOutOfScope reports whether the pending invite of u (a Vendor ID
// known by email) is outside the scope.
func (d *differ) inviteOutOfScope(u *User) bool {
	s := &d.scope
	if s.KeepUnmatched || !s.names(u) {
		return true
	}
	for i := range s.Out {
		if strings.EqualFold(s.Out[i].Email, u.Email) {
			return true
		}
	}
	return false
}
