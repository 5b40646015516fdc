package umtarget

import (
	"strings"

	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umwire"
)

// WireEntry converts a planned entry to the service's command entry.
func WireEntry(e *reconcile.Entry) umwire.Entry {
	if e.User == nil {
		w := umwire.Entry{UserGroup: e.Group}
		for i := range e.Steps {
			w.Do = append(w.Do, groupStep(e.Group, &e.Steps[i]))
		}
		return w
	}
	creates := len(e.Steps) > 0 && e.Steps[0].Kind == reconcile.StepCreate
	w := rootOf(e.User, creates)
	for i := range e.Steps {
		w.Do = append(w.Do, userStep(&e.Steps[i]))
	}
	return w
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

func userStep(s *reconcile.Step) umwire.Step {
	switch s.Kind {
	case reconcile.StepCreate:
		c := &umwire.CreateUser{Email: s.Create.Email, Country: s.Create.Country, FirstName: s.Create.FirstName,
			LastName: s.Create.LastName, Option: umwire.OptionUpdateIfExists}
		switch s.Create.Type {
		case reconcile.VendorID:
			// An independent ID cannot be updated (rule 6): an existing one,
			// or a pending invite (contract 7), is left as it is (rule 4).
			c.Option = umwire.OptionIgnoreIfExists
			return umwire.Step{AddVendorID: c}
		case reconcile.FederatedID:
			return umwire.Step{CreateFederatedID: c}
		}
		return umwire.Step{CreateEnterpriseID: c}
	case reconcile.StepUpdate:
		return umwire.Step{Update: &umwire.Update{Email: s.Set.Email, FirstName: s.Set.FirstName, LastName: s.Set.LastName, Username: s.Set.Username}}
	case reconcile.StepAdd:
		return umwire.Step{Add: &umwire.Membership{Group: s.Groups}}
	case reconcile.StepRemove:
		return umwire.Step{Remove: &umwire.Membership{Group: s.Groups}}
	}
	return umwire.Step{RemoveFromOrg: &umwire.RemoveFromOrg{DeleteAccount: s.DeleteAccount}}
}

func groupStep(group string, s *reconcile.Step) umwire.Step {
	if s.Kind == reconcile.StepCreateUserGroup {
		return umwire.Step{CreateUserGroup: &umwire.UserGroupInfo{Name: group, Option: umwire.OptionIgnoreIfExists}}
	}
	users := make([]string, len(s.Users))
	for i := range s.Users {
		users[i] = s.Users[i].Email
	}
	if s.Kind == reconcile.StepRemove {
		return umwire.Step{Remove: &umwire.Membership{Users: users}}
	}
	return umwire.Step{Add: &umwire.Membership{Users: users}}
}
