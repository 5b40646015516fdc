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
	KindResendInvite Kind = "resend-invite" // invite again a desired user whose invite expired (addVendorID, batched)
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
	asRevoke                       // the invite endpoint's revoke
)

// kindRow is one change kind: where a plan lists it, its sign in the
// plan's text, whether it takes something away, how it is counted and
// shown, and how it is sent.
type kindRow struct {
	kind Kind
	sign string
	// destructive: the change takes something away whatever it holds
	// (removed memberships make any change destructive, see Destructive).
	destructive bool
	// apart: the kind's changes are no changes of the organization; they
	// stand apart in Plan.InviteGroups, are sent on every real run and are
	// counted after the changes (a plan holding only these is in sync).
	apart bool
	// showsUser: the change's line shows the user's names and country
	// (what a create gives the user).
	showsUser bool
	count     countRow
	send      sendAs
	// steps are, for a change sent as user entries, the steps the change
	// needs besides its added and removed memberships (StepAdd,
	// StepRemove) and its attribute update (StepUpdate, when Set).
	steps userSteps
	// rank is the row's place in kindTable: a plan lists its changes in
	// that order (then by key).
	rank int
}

// countRow is how a kind's number is shown: the words that follow it in
// a plan's summary line, and its places there and among the JSON counts
// (Counts.MarshalJSON). The memberships' count stands at
// MembershipsLine in the summary line, after every kind's in JSON.
type countRow struct {
	words      string
	line, json int
}

// MembershipsLine is the place in a plan's summary line of the
// memberships' count, among the kinds' places (KindInfo.Line): the kinds
// of users' changes come before it, those of groups and invites after.
const MembershipsLine = 50

// userSteps are the steps a user entry holds for its change's kind.
type userSteps struct {
	create        bool // StepCreate: the create step of the user's identity type (addVendorID for an independent ID)
	removeFromOrg bool // StepRemoveFromOrg
	deleteAccount bool // StepRemoveFromOrg with deleteAccount
}

// kindTable is the table of change kinds, in the order a plan lists them.
// A kind is added here, and nowhere else: counts, the plan's lines and
// summary, the history and the approvals take every kind from it.
var kindTable = []kindRow{
	{kind: KindCreateGroup, sign: "+", count: countRow{"groups to create", 60, 10}, send: asGroupEntry},
	{kind: KindCreate, sign: "+", showsUser: true, count: countRow{"to create", 10, 20}, send: asUserEntry, steps: userSteps{create: true}},
	{kind: KindUpdate, sign: "~", count: countRow{"to update", 20, 30}, send: asUserEntry},
	{kind: KindResendInvite, sign: "~", count: countRow{"invites to resend", 70, 60}, send: asUserEntry, steps: userSteps{create: true}},
	{kind: KindInviteGroups, sign: "=", apart: true, count: countRow{"pending invites' groups sent again", 90, 80}, send: asUserEntry, steps: userSteps{create: true}},
	{kind: KindRemove, sign: "-", destructive: true, count: countRow{"to remove", 30, 40}, send: asUserEntry, steps: userSteps{removeFromOrg: true}},
	{kind: KindDelete, sign: "-", destructive: true, count: countRow{"to delete", 40, 50}, send: asUserEntry, steps: userSteps{removeFromOrg: true, deleteAccount: true}},
	{kind: KindRevokeInvite, sign: "-", destructive: true, count: countRow{"to revoke", 80, 70}, send: asRevoke},
}

// kinds indexes kindTable by kind.
var kinds = indexKinds()

func indexKinds() map[Kind]kindRow {
	m := make(map[Kind]kindRow, len(kindTable))
	for i, r := range kindTable {
		r.rank = i
		m[r.kind] = r
	}
	return m
}

// rank is k's place in kindTable; an unknown kind comes last.
func (k Kind) rank() int {
	if r, ok := kinds[k]; ok {
		return r.rank
	}
	return len(kindTable)
}

// KindInfo is what the table of kinds says of a kind, for the packages
// that show, count or hold changes: none of them names a kind.
type KindInfo struct {
	Kind Kind
	Sign string // the sign of its lines in a plan: + ~ - =, "?" for a kind the table does not know (Plan.Check refuses it)
	// Words follow the kind's number in a plan's summary line ("to
	// create"), at place Line (see MembershipsLine).
	Words string
	Line  int
	// TakesAway: a change of the kind takes something away as a whole
	// (a removal, a deletion, a revoked invite), whatever it holds; a
	// change of another kind takes away only its removed memberships
	// (Change.Remove). An unknown kind takes away, so that the safety
	// rules and the approvals hold it back whole.
	TakesAway bool
	// Apart: the kind's changes are no changes of the organization (they
	// are Plan.InviteGroups): a summary counts them after the changes,
	// when there are any.
	Apart bool
	// OfGroup: the change is about a user group (Change.Group), not a
	// user.
	OfGroup bool
	// ShowsUser: the change's line shows the user's names and country
	// (what a create gives the user).
	ShowsUser bool
	// DeleteAccount: the change deletes the user's account with its
	// removal (its line says so).
	DeleteAccount bool
}

// Info returns what the table says of k.
func (k Kind) Info() KindInfo {
	r, ok := kinds[k]
	if !ok {
		return KindInfo{Kind: k, Sign: "?", TakesAway: true}
	}
	return KindInfo{Kind: k, Sign: r.sign, Words: r.count.words, Line: r.count.line, TakesAway: r.destructive,
		Apart: r.apart, OfGroup: r.send == asGroupEntry, ShowsUser: r.showsUser, DeleteAccount: r.steps.deleteAccount}
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
			} else if (list.name == "inviteGroups") != kinds[c.Kind].apart {
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
// endpoint (invite: the call is named by its kind, revoke-invite) sends
// its memberships after the call (StepAdd). Any other
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
	return steps, r.send == asRevoke
}
