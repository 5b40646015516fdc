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
	// DecidedBy who approved it ("alice via orgsync approve").
	Approval, DecidedBy string
	// Unmatched are the keys of the users in no source (Plan.Unmatched).
	Unmatched map[string]bool
	// Rules names, by target group (lower case), the mapping rules that
	// give it ("mapping[0] (directory \"eng\")"), for the reason of a
	// membership added or removed.
	Rules map[string]string
	// Settings names the settings that ask for the changes no source asks
	// for.
	Settings Settings
	// Unsent are the targets a stopped run did not send
	// (reconcile.Result.Unsent).
	Unsent []string
}

// Settings names, in the caller's words (the keys of the organization's
// policy in the configuration file), the settings that ask for the
// changes no source asks for; the history's reasons name them as given.
type Settings struct {
	Unmatched     string // what is done with the users in no source
	CreateGroups  string // creating the user groups that do not exist
	RevokeInvites string // revoking the invites of users in no source
	ManagedGroups string // the groups managed besides the mapping rules' targets
}

// Entries turns the changes a run sent, and the failures the service
// answered, into history entries: one a change, failed where a failure
// names its user or group (unknown where it was sent without an answer),
// not-sent where the run stopped before it.
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
		e := Entry{Run: a.Run, Time: a.Time, Org: a.Org, User: c.Key(), Kind: string(c.Kind), Steps: Steps(c),
			Result: ResultApplied, Reason: a.reason(c), Approval: a.Approval, DecidedBy: a.DecidedBy}
		if a.TestOnly {
			e.Result = ResultTestOnly
		}
		if f, ok := failed[strings.ToLower(c.Key())]; ok && f.Unknown {
			e.Result, e.Message = ResultUnknown, f.Message
		} else if ok {
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
		out = append(out, Entry{Run: a.Run, Time: a.Time, Org: a.Org, User: c.Key(), Kind: string(c.Kind), Steps: Steps(c),
			Result: ResultDropped, Reason: "held for approval; the sources no longer ask for it", Approval: id})
	}
	return out
}

// Steps lists what a change asks of the service, one item a step, as the
// change kinds' table says (reconcile.Change.Steps): the invite call named
// by the kind, then the steps of its entry.
func Steps(c *reconcile.Change) []string {
	steps, invite := c.Steps()
	var out []string
	if invite {
		out = append(out, string(c.Kind))
	}
	for i := range steps {
		out = append(out, stepWords(c, &steps[i])...)
	}
	return out
}

// stepWords names one step of change c: its kind, and what it acts on
// ("create federatedID", "add Design"), never an attribute's value.
func stepWords(c *reconcile.Change, s *reconcile.Step) []string {
	switch s.Kind {
	case reconcile.StepCreateUserGroup:
		return []string{string(s.Kind) + " " + c.Group}
	case reconcile.StepCreate:
		return []string{string(s.Kind) + " " + string(s.Create.Type)}
	case reconcile.StepUpdate:
		return []string{string(s.Kind) + " " + strings.Join(setFields(s.Set), ",")}
	case reconcile.StepAdd, reconcile.StepRemove:
		out := make([]string, len(s.Groups))
		for i, g := range s.Groups {
			out[i] = string(s.Kind) + " " + g
		}
		return out
	case reconcile.StepRemoveFromOrg:
		if s.DeleteAccount {
			return []string{string(s.Kind) + " deleteAccount"}
		}
	}
	return []string{string(s.Kind)}
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
// of the groups added or removed, or the setting that did (a user in no
// source, a group created, an invite revoked).
func (a Applied) reason(c *reconcile.Change) string {
	var why string
	_, invite := c.Steps()
	switch {
	case c.Kind.Info().OfGroup:
		return "a mapping rule names the group and " + a.Settings.CreateGroups + " is on" + a.rulesOf([]string{c.Group})
	case a.Unmatched[c.Key()]:
		why = "unmatched (in the organization, in no source): " + a.Settings.Unmatched
	case invite:
		return "invited, in no source: " + a.Settings.RevokeInvites
	case len(c.Remove) > 0 && len(c.Add) == 0:
		why = "the sources no longer give these groups"
	default:
		why = "the sources"
	}
	return why + a.rulesOf(c.Add) + a.rulesOf(c.Remove)
}

// rulesOf names the mapping rules of each group, "; Design: mapping[1]
// (directory \"design\")", or when no exact rule names it a pattern rule
// or the managed groups.
func (a Applied) rulesOf(groups []string) string {
	var b strings.Builder
	for _, g := range groups {
		rule := a.Rules[strings.ToLower(g)]
		if rule == "" {
			rule = "a pattern rule or " + a.Settings.ManagedGroups
		}
		b.WriteString("; " + g + ": " + rule)
	}
	return b.String()
}
