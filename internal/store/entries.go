package store

import (
	"strings"
	"time"

	"github.com/orgsync/orgsync/reconcile"
)

// Applied says which run applied changes, and how.
type Applied struct {
	Run, Org string
	Time     time.Time
	// TestOnly is set when the changes were sent with testOnly.
	TestOnly bool
	// Approval is the approval the changes were held in, if any, and
	// DecidedBy who approved it ("alice (orgsync approve)").
	Approval, DecidedBy string
	// Unmatched are the keys of the users in no source (Plan.Unmatched).
	Unmatched map[string]bool
	// Rules names, by target group (lower case), the mapping rules that
	// give it ("mapping[0] (directory \"eng\")"), for the reason of a
	// membership added or removed.
	Rules map[string]string
	// Unsent are the targets a stopped run did not send
	// (reconcile.Result.Unsent).
	Unsent []string
}

// Entries turns the changes a run sent, and the failures the service
// answered, into history entries: one a change, failed where a failure
// names its user or group, not-sent where the run stopped before it.
func (a Applied) Entries(changes []reconcile.Change, failures []reconcile.Failure) []Entry {
	failed := make(map[string]reconcile.Failure, len(failures))
	for _, f := range failures {
		failed[strings.ToLower(f.Target)] = f
	}
	unsent := make(map[string]bool, len(a.Unsent))
	for _, k := range a.Unsent {
		unsent[strings.ToLower(k)] = true
	}
	out := make([]Entry, 0, len(changes))
	for i := range changes {
		c := &changes[i]
		e := Entry{Run: a.Run, Time: a.Time, Org: a.Org, User: c.Key(), Kind: string(c.Kind), Steps: steps(c),
			Result: ResultApplied, Reason: a.reason(c), Approval: a.Approval, DecidedBy: a.DecidedBy}
		if a.TestOnly {
			e.Result = ResultTestOnly
		}
		if f, ok := failed[strings.ToLower(c.Key())]; ok {
			e.Result, e.Code, e.Message = ResultFailed, f.Code, f.Message
		} else if unsent[strings.ToLower(c.Key())] {
			e.Result = ResultNotSent
		}
		out = append(out, e)
	}
	return out
}

// Dropped turns the changes a run took out of approval id (the sources no
// longer ask for them) into history entries: nothing was sent.
func (a Applied) Dropped(id string, changes []reconcile.Change) []Entry {
	out := make([]Entry, 0, len(changes))
	for i := range changes {
		c := &changes[i]
		out = append(out, Entry{Run: a.Run, Time: a.Time, Org: a.Org, User: c.Key(), Kind: string(c.Kind), Steps: steps(c),
			Result: ResultDropped, Reason: "held for approval; the sources no longer ask for it", Approval: id})
	}
	return out
}

// steps lists what a change asks of the service, one item a step.
func steps(c *reconcile.Change) []string {
	var out []string
	switch c.Kind {
	case reconcile.KindCreateGroup:
		out = append(out, "createUserGroup "+c.Group)
	case reconcile.KindCreate:
		out = append(out, "create "+string(c.User.Type))
	case reconcile.KindRemove:
		out = append(out, "removeFromOrg")
	case reconcile.KindDelete:
		out = append(out, "removeFromOrg deleteAccount")
	case reconcile.KindResendInvite, reconcile.KindRevokeInvite, reconcile.KindInviteGroups:
		out = append(out, string(c.Kind))
	}
	if c.Set != nil {
		out = append(out, "update "+strings.Join(setFields(c.Set), ","))
	}
	for _, g := range c.Add {
		out = append(out, "add "+g)
	}
	for _, g := range c.Remove {
		out = append(out, "remove "+g)
	}
	return out
}

// setFields names the attributes an update sets (not their values).
func setFields(s *reconcile.Attrs) []string {
	var out []string
	for _, f := range []struct {
		name string
		v    *string
	}{{"firstname", s.FirstName}, {"lastname", s.LastName}, {"email", s.Email}, {"username", s.Username}} {
		if f.v != nil {
			out = append(out, f.name)
		}
	}
	return out
}

// reason says what asked for a change: the sources and the mapping rules
// of the groups added or removed, or for a user in no source the
// unmatched-users policy.
func (a Applied) reason(c *reconcile.Change) string {
	var why string
	switch {
	case c.Kind == reconcile.KindCreateGroup:
		return "a mapping rule names the group and policy.createUserGroups is on" + a.rulesOf([]string{c.Group})
	case a.Unmatched[c.Key()]:
		why = "unmatched (in the organization, in no source): policy.unmatchedUsers"
	case c.Kind == reconcile.KindRevokeInvite:
		return "invited, in no source: policy.invites.revokeUnmatched"
	case len(c.Remove) > 0 && len(c.Add) == 0:
		why = "the sources no longer give these groups"
	default:
		why = "the sources"
	}
	return why + a.rulesOf(c.Add) + a.rulesOf(c.Remove)
}

// rulesOf names the mapping rules of each group, "; Design: mapping[1]
// (directory \"design\")", or a pattern rule's when no exact rule names it.
func (a Applied) rulesOf(groups []string) string {
	var b strings.Builder
	for _, g := range groups {
		rule := a.Rules[strings.ToLower(g)]
		if rule == "" {
			rule = "a pattern rule or policy.managedGroups"
		}
		b.WriteString("; " + g + ": " + rule)
	}
	return b.String()
}
