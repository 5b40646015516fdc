package reconcile

import (
	"errors"
	"fmt"
)

// Kind is the kind of one planned change.
type Kind string

// The kinds of changes. Everything that differs between them is one row
// of kindTable, below.
const (
	KindCreateGroup  Kind = "create-group"  // create a missing user group
	KindCreate       Kind = "create"        // create a user, with memberships
	KindUpdate       Kind = "update"        // attributes and/or memberships of an existing user
	KindResendInvite Kind = "resend-invite" // invite again a desired user whose invite expired
	KindInviteGroups Kind = "invite-groups" // send a pending invite's desired groups again (Plan.InviteGroups)
	KindRemove       Kind = "remove"        // removeFromOrg
	KindDelete       Kind = "delete"        // removeFromOrg with deleteAccount
	KindRevokeInvite Kind = "revoke-invite" // revoke the invite of a user in no source
)

// sendAs is how Apply sends a change.
type sendAs int

const (
	asGroupEntry sendAs = iota + 1 // a user-group entry: createUserGroup
	asUserEntry                    // user entries: the steps of kindRow.steps, plus the change's memberships
	asResend                       // the invite endpoint's resend, then addVendorID with the groups
	asRevoke                       // the invite endpoint's revoke
)

// kindRow is one change kind: where a plan lists it, its sign in the
// plan's text, whether it takes something away, which count of Counts it
// adds to, and how it is sent.
type kindRow struct {
	kind Kind
	sign string
	// destructive: the change takes something away whatever it holds
	// (removed memberships make any change destructive, see Destructive).
	destructive bool
	// count is the field of Counts the change adds to.
	count func(*Counts) *int
	send  sendAs
	// steps are, for a change sent as user entries, the steps the change
	// needs besides its added and removed memberships (StepAdd,
	// StepRemove) and its attribute update (StepUpdate, when Set).
	steps userSteps
	// rank is the row's place in kindTable: a plan lists its changes in
	// that order (then by key).
	rank int
}

// userSteps are the steps a user entry holds for its change's kind.
type userSteps struct {
	create        bool // StepCreate: the create step of the user's identity type (addVendorID for an independent ID)
	removeFromOrg bool // StepRemoveFromOrg
	deleteAccount bool // StepRemoveFromOrg with deleteAccount
}

// kindTable is the table of change kinds, in the order a plan lists them.
var kindTable = []kindRow{
	{kind: KindCreateGroup, sign: "+", count: func(c *Counts) *int { return &c.CreateGroup }, send: asGroupEntry},
	{kind: KindCreate, sign: "+", count: func(c *Counts) *int { return &c.Create }, send: asUserEntry, steps: userSteps{create: true}},
	{kind: KindUpdate, sign: "~", count: func(c *Counts) *int { return &c.Update }, send: asUserEntry},
	{kind: KindResendInvite, sign: "~", count: func(c *Counts) *int { return &c.ResendInvite }, send: asResend},
	{kind: KindInviteGroups, sign: "=", count: func(c *Counts) *int { return &c.InviteGroups }, send: asUserEntry, steps: userSteps{create: true}},
	{kind: KindRemove, sign: "-", destructive: true, count: func(c *Counts) *int { return &c.Remove }, send: asUserEntry, steps: userSteps{removeFromOrg: true}},
	{kind: KindDelete, sign: "-", destructive: true, count: func(c *Counts) *int { return &c.Delete }, send: asUserEntry, steps: userSteps{removeFromOrg: true, deleteAccount: true}},
	{kind: KindRevokeInvite, sign: "-", destructive: true, count: func(c *Counts) *int { return &c.RevokeInvite }, send: asRevoke},
}

// kinds indexes kindTable by kind.
var kinds = func() map[Kind]kindRow {
	m := make(map[Kind]kindRow, len(kindTable))
	for i, r := range kindTable {
		r.rank = i
		m[r.kind] = r
	}
	return m
}()

// rank is k's place in kindTable; an unknown kind comes last.
func (k Kind) rank() int {
	if r, ok := kinds[k]; ok {
		return r.rank
	}
	return len(kindTable)
}

// ErrUnknownKind is wrapped by the error of a plan holding a change of a
// kind this version does not know (a plan written by another version, or
// a change built by hand). Such a plan is neither rendered nor applied:
// nothing of it is sent.
var ErrUnknownKind = errors.New("unknown change kind")

// Check reports the changes of kinds the table does not know, and
// pending-invite groups (Plan.InviteGroups) of another kind. Render,
// RenderJSON and Apply check the plan first.
func (p *Plan) Check() error {
	var errs []error
	for _, list := range []struct {
		name    string
		changes []Change
	}{{"changes", p.Changes}, {"withheld", p.Withheld}, {"inviteGroups", p.InviteGroups}} {
		for i := range list.changes {
			c := &list.changes[i]
			if _, ok := kinds[c.Kind]; !ok {
				errs = append(errs, fmt.Errorf("plan: %s[%d] (%s): %w %q", list.name, i, c.Key(), ErrUnknownKind, c.Kind))
			} else if (list.name == "inviteGroups") != (c.Kind == KindInviteGroups) {
				errs = append(errs, fmt.Errorf("plan: %s[%d] (%s): kind %q does not belong there", list.name, i, c.Key(), c.Kind))
			}
		}
	}
	return errors.Join(errs...)
}

// Kinds returns every kind, in the order a plan lists them.
func Kinds() []Kind {
	out := make([]Kind, len(kindTable))
	for i, r := range kindTable {
		out[i] = r.kind
	}
	return out
}

// Steps returns what change c asks of the service, as the kinds table
// says, for the consumers that describe a change outside this package
// (the state store's history). A change sent through the invite
// endpoints (invite: the call is named by its kind, resend-invite or
// revoke-invite) sends its memberships after the call (StepAdd). Any other
// change's steps are those of its action entry, whole (Batches may split
// its memberships over entries and requests), in the order an entry holds
// them: a user group's StepCreateUserGroup (the group is c.Group), or a
// user's StepCreate, StepUpdate, StepAdd, StepRemove and
// StepRemoveFromOrg. A kind the table does not know has none (Plan.Check
// refuses it).
func (c *Change) Steps() (steps []Step, invite bool) {
	r, ok := kinds[c.Kind]
	if !ok {
		return nil, false
	}
	if r.send == asGroupEntry {
		return []Step{{Kind: StepCreateUserGroup}}, false
	}
	if r.steps.create {
		u := c.User
		steps = append(steps, Step{Kind: StepCreate, Create: &u})
	}
	if c.Set != nil {
		steps = append(steps, Step{Kind: StepUpdate, Set: c.Set})
	}
	if len(c.Add) > 0 {
		steps = append(steps, Step{Kind: StepAdd, Groups: c.Add})
	}
	if len(c.Remove) > 0 {
		steps = append(steps, Step{Kind: StepRemove, Groups: c.Remove})
	}
	if r.steps.removeFromOrg {
		steps = append(steps, Step{Kind: StepRemoveFromOrg, DeleteAccount: r.steps.deleteAccount})
	}
	return steps, r.send == asResend || r.send == asRevoke
}
