// Package planjson is a plan and its changes as orgsync's formats write
// them: the JSON plan (plan --output json), the saved plan, the approvals
// and /api/runs hold plans and changes in this form. Its types are the
// formats' own, converted from and to reconcile's, so that the core can
// change without changing what is stored or printed. Changes and Users
// are the core's lists read and written in this form one item at a time
// (no second copy of a large plan); Plan is a plan with its lists so.
//
// A change to a type here changes every format that holds it: each of
// those has golden files of every version, which its tests read.
package planjson

import (
	"github.com/orgsync/orgsync/reconcile"
)

// User is a user: its identity and, for a user to create or an unmatched
// one, its attributes and groups.
type User struct {
	Type      string   `json:"type"` // vendorID, enterpriseID, federatedID, unknown
	Email     string   `json:"email,omitempty"`
	Username  string   `json:"username,omitempty"`
	Domain    string   `json:"domain,omitempty"`
	FirstName string   `json:"firstname,omitempty"`
	LastName  string   `json:"lastname,omitempty"`
	Country   string   `json:"country,omitempty"`
	Groups    []string `json:"groups,omitempty"`
}

// Attrs are the new values of an update; an absent one stays unchanged.
type Attrs struct {
	FirstName *string `json:"firstname,omitempty"`
	LastName  *string `json:"lastname,omitempty"`
	Email     *string `json:"email,omitempty"`
	Username  *string `json:"username,omitempty"`
}

// Change is one planned change: its kind (create-group, create, update,
// resend-invite, invite-groups, remove, delete, revoke-invite), the user
// it is about (or the group of a create-group), the attributes an update
// sets and the memberships it adds and removes.
type Change struct {
	Kind   string   `json:"kind"`
	User   User     `json:"user,omitzero"`
	Group  string   `json:"group,omitempty"`
	Set    *Attrs   `json:"set,omitempty"`
	Add    []string `json:"add,omitempty"`
	Remove []string `json:"remove,omitempty"`
}

// UserOf is u in this form.
func UserOf(u *reconcile.User) User {
	return User{Type: string(u.Type), Email: u.Email, Username: u.Username, Domain: u.Domain,
		FirstName: u.FirstName, LastName: u.LastName, Country: u.Country, Groups: u.Groups}
}

// core is u as the core holds it.
func (u *User) core() reconcile.User {
	return reconcile.User{Type: reconcile.IdentityType(u.Type), Email: u.Email, Username: u.Username, Domain: u.Domain,
		FirstName: u.FirstName, LastName: u.LastName, Country: u.Country, Groups: u.Groups}
}

// changeOf is c in this form.
func changeOf(c *reconcile.Change) Change {
	out := Change{Kind: string(c.Kind), User: UserOf(&c.User), Group: c.Group, Add: c.Add, Remove: c.Remove}
	if c.Set != nil {
		out.Set = &Attrs{FirstName: c.Set.FirstName, LastName: c.Set.LastName, Email: c.Set.Email, Username: c.Set.Username}
	}
	return out
}

// core is c as the core holds it; a kind the core does not know is kept
// (reconcile.Plan.Check refuses it before anything is shown or sent).
func (c *Change) core() reconcile.Change {
	out := reconcile.Change{Kind: reconcile.Kind(c.Kind), User: c.User.core(), Group: c.Group, Add: c.Add, Remove: c.Remove}
	if c.Set != nil {
		out.Set = &reconcile.Attrs{FirstName: c.Set.FirstName, LastName: c.Set.LastName, Email: c.Set.Email, Username: c.Set.Username}
	}
	return out
}

// Changes are the core's changes, written and read as a list of Change.
type Changes []reconcile.Change

// MarshalJSON writes the changes as a list of Change (null when nil).
func (cs Changes) MarshalJSON() ([]byte, error) { return marshalEach(cs, changeOf) }

// UnmarshalJSON reads a list of Change.
func (cs *Changes) UnmarshalJSON(b []byte) error {
	return unmarshalEach(b, (*[]reconcile.Change)(cs), (*Change).core)
}

// Users are the core's users, written and read as a list of User.
type Users []reconcile.User

// MarshalJSON writes the users as a list of User (null when nil).
func (us Users) MarshalJSON() ([]byte, error) { return marshalEach(us, UserOf) }

// UnmarshalJSON reads a list of User.
func (us *Users) UnmarshalJSON(b []byte) error {
	return unmarshalEach(b, (*[]reconcile.User)(us), (*User).core)
}
