package umtarget

import (
	"errors"
	"fmt"
	"strings"

	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umwire"
)

// ErrUnknownStep is wrapped by the error of an entry holding a step, or a
// create step of an identity type, that this package cannot put on the
// wire. No request holding such an entry is sent.
var ErrUnknownStep = errors.New("unknown step")

// wireStep puts one step of an entry on the wire.
type wireStep func(root string, s *reconcile.Step) (umwire.Step, error)

// userSteps and groupSteps are the steps a user entry and a user-group
// entry can hold; any other step is an error, never a default action.
var (
	userSteps = map[reconcile.StepKind]wireStep{
		reconcile.StepCreate: createStep,
		reconcile.StepUpdate: func(_ string, s *reconcile.Step) (umwire.Step, error) {
			return umwire.Step{Update: &umwire.Update{Email: s.Set.Email, FirstName: s.Set.FirstName, LastName: s.Set.LastName, Username: s.Set.Username}}, nil
		},
		reconcile.StepAdd: func(_ string, s *reconcile.Step) (umwire.Step, error) {
			return umwire.Step{Add: &umwire.Membership{Group: s.Groups}}, nil
		},
		reconcile.StepRemove: func(_ string, s *reconcile.Step) (umwire.Step, error) {
			return umwire.Step{Remove: &umwire.Membership{Group: s.Groups}}, nil
		},
		reconcile.StepRemoveFromOrg: func(_ string, s *reconcile.Step) (umwire.Step, error) {
			return umwire.Step{RemoveFromOrg: &umwire.RemoveFromOrg{DeleteAccount: s.DeleteAccount}}, nil
		},
	}
	groupSteps = map[reconcile.StepKind]wireStep{
		reconcile.StepCreateUserGroup: func(group string, _ *reconcile.Step) (umwire.Step, error) {
			return umwire.Step{CreateUserGroup: &umwire.UserGroupInfo{Name: group, Option: umwire.OptionIgnoreIfExists}}, nil
		},
		reconcile.StepAdd: func(_ string, s *reconcile.Step) (umwire.Step, error) {
			return umwire.Step{Add: &umwire.Membership{Users: emails(s.Users)}}, nil
		},
		reconcile.StepRemove: func(_ string, s *reconcile.Step) (umwire.Step, error) {
			return umwire.Step{Remove: &umwire.Membership{Users: emails(s.Users)}}, nil
		},
	}
)

// WireEntry converts a planned entry to the service's command entry. A
// step the entry's root cannot hold is an error.
func WireEntry(e *reconcile.Entry) (umwire.Entry, error) {
	var w umwire.Entry
	steps := userSteps
	if e.User == nil {
		w, steps = umwire.Entry{UserGroup: e.Group}, groupSteps
	} else {
		creates := len(e.Steps) > 0 && e.Steps[0].Kind == reconcile.StepCreate
		w = rootOf(e.User, creates)
	}
	for i := range e.Steps {
		s := &e.Steps[i]
		put, ok := steps[s.Kind]
		if !ok {
			return umwire.Entry{}, fmt.Errorf("%s: step %d: %w %q", e.Target(), i+1, ErrUnknownStep, s.Kind)
		}
		ws, err := put(e.Group, s)
		if err != nil {
			return umwire.Entry{}, fmt.Errorf("%s: step %d: %w", e.Target(), i+1, err)
		}
		w.Do = append(w.Do, ws)
	}
	return w, nil
}

// rootOf names a user the way the service identifies it: the email, or the
// username plus domain for a Federated ID whose username is not an email
// and whose email is not in its domain (rule 7: a username never identifies
// a Federated ID whose email is in the organization's domain), or which
// the entry creates (the root is the only way to give a new account its
// username); independent IDs set useVendorID.
func rootOf(u *reconcile.User, creates bool) umwire.Entry {
	byUsername := u.Type == reconcile.FederatedID && u.Username != "" && !strings.Contains(u.Username, "@")
	if byUsername && (creates || u.Email == "" || !emailInDomain(u)) {
		return umwire.Entry{User: u.Username, Domain: u.Domain}
	}
	w := umwire.Entry{User: u.Email, UseVendorID: u.Type == reconcile.VendorID}
	if w.User == "" {
		w.User = u.Username
	}
	return w
}

// emailInDomain reports whether u's email is in u's domain (rule 12: a
// user given by email has the email's domain as its account's domain).
func emailInDomain(u *reconcile.User) bool {
	at := strings.LastIndexByte(u.Email, '@')
	return at >= 0 && strings.EqualFold(u.Email[at+1:], u.Domain)
}

// createStep is the create step of the new user's identity type. An
// independent ID cannot be updated (rule 6): an existing one, or a pending
// invite (contract 7), is left as it is (rule 4); the others are updated
// to the create step's names. A strict step has no option: it fails on a
// user that exists (rule 4).
func createStep(_ string, s *reconcile.Step) (umwire.Step, error) {
	c := &umwire.CreateUser{Email: s.Create.Email, Country: s.Create.Country, FirstName: s.Create.FirstName,
		LastName: s.Create.LastName, Option: umwire.OptionUpdateIfExists}
	if s.Strict {
		c.Option = ""
	}
	switch s.Create.Type {
	case reconcile.VendorID:
		if !s.Strict {
			c.Option = umwire.OptionIgnoreIfExists
		}
		return umwire.Step{AddVendorID: c}, nil
	case reconcile.EnterpriseID:
		return umwire.Step{CreateEnterpriseID: c}, nil
	case reconcile.FederatedID:
		return umwire.Step{CreateFederatedID: c}, nil
	case reconcile.UnknownID:
	}
	return umwire.Step{}, fmt.Errorf("%w: create of identity type %q", ErrUnknownStep, s.Create.Type)
}

// emails are the users of a user-group step, named by email.
func emails(us []reconcile.User) []string {
	out := make([]string, len(us))
	for i := range us {
		out[i] = us[i].Email
	}
	return out
}
