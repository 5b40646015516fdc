package umsim

import (
	"slices"
	"strings"

	"github.com/orgsync/orgsync/target/umwire"
)

// userRun executes the steps of one user entry. u is the member the entry
// acts on (nil when it is not one); inv the pending invite addVendorID
// created or found in this entry.
type userRun struct {
	srv      *Server
	st       *store
	e        *entry
	u        *user
	inv      *invite
	invKey   string
	clientID string // the integration that sent the request
}

// byUsername reports whether the entry names a Federated ID by a username
// that is not an email address.
func (r *userRun) byUsername() bool { return !strings.Contains(r.e.user, "@") }

// resolve finds the member the entry names (specification: domain,
// useVendorID).
func (r *userRun) resolve() *stepError {
	key := strings.ToLower(r.e.user)
	switch {
	case r.byUsername():
		if r.e.steps[0].create != nil && r.e.steps[0].name != umwire.StepCreateFederatedID {
			return stepErr(0, umwire.ErrUserEmailInvalid, "user %q is not an email address", r.e.user)
		}
		if r.e.domain == "" {
			return stepErr(0, umwire.ErrDomainMissing, "user %q is not an email address: a Federated ID named by username needs domain", r.e.user)
		}
		r.u = r.st.byUsername[usernameKey(r.e.user, r.e.domain)]
	case r.e.useVendorID:
		r.u = r.st.byVendor[key]
	default:
		r.u = r.st.byEmail[key]
		if r.u == nil {
			r.u = r.st.byVendor[key]
		}
	}
	return nil
}

// exec runs one step of a user entry.
func (r *userRun) exec(st step) *stepError {
	switch st.name {
	case umwire.StepAddVendorID:
		return r.addVendorID(st.create)
	case umwire.StepCreateEnterpriseID, umwire.StepCreateFederatedID:
		return r.createOrgOwned(st.name, st.create)
	case umwire.StepUpdate:
		return r.update(st.update, st.updateCountry)
	case umwire.StepAdd:
		return r.add(st.members.Group)
	case umwire.StepRemove:
		return r.remove(st.members)
	default: // removeFromOrg
		if r.u != nil {
			r.st.removeUser(r.u, st.removeFromOrg.DeleteAccount)
			r.u = nil
		}
		return nil
	}
}

// checkCreate validates the payload of a create step.
func (r *userRun) checkCreate(name string, c *umwire.CreateUser) *stepError {
	if err := umwire.CheckEmail(c.Email); err != nil {
		return stepErr(0, umwire.ErrUserEmailInvalid, "email: %v", err)
	}
	if !r.byUsername() && !strings.EqualFold(r.e.user, c.Email) {
		return stepErr(0, umwire.ErrUserEmailInvalid, "email %q differs from the entry's user %q", c.Email, r.e.user)
	}
	orgOwned := name != umwire.StepAddVendorID
	if orgOwned && c.FirstName == "" {
		return stepErr(0, umwire.ErrFirstnameMissing, "%s needs firstname", name)
	}
	if orgOwned && c.LastName == "" {
		return stepErr(0, umwire.ErrLastnameMissing, "%s needs lastname", name)
	}
	if err := checkNames(c.FirstName, c.LastName); err != nil {
		return err
	}
	switch {
	case c.Country == "" && name == umwire.StepCreateFederatedID:
		return stepErr(0, umwire.ErrCountryInvalid, "createFederatedID needs country")
	case c.Country != "" && !umwire.IsCountryCode(c.Country):
		return stepErr(0, umwire.ErrCountryInvalid, "country %q is not an ISO 3166 alpha-2 upper-case code", c.Country)
	}
	return checkOption(c.Option)
}

// checkOption accepts no option or one of the two create options.
func checkOption(option string) *stepError {
	if option != "" && option != umwire.OptionIgnoreIfExists && option != umwire.OptionUpdateIfExists {
		return stepErr(0, umwire.ErrOptionIllegal, "option %q: want %s or %s", option, umwire.OptionIgnoreIfExists, umwire.OptionUpdateIfExists)
	}
	return nil
}

// checkNames checks the lengths of a first and last name.
func checkNames(first, last string) *stepError {
	for _, n := range []struct{ field, value string }{{"firstname", first}, {"lastname", last}} {
		if err := umwire.CheckName(n.value); err != nil {
			return stepErr(0, umwire.ErrStringTooLong, "%s %v", n.field, err)
		}
	}
	return nil
}

// addVendorID adds an existing independent ID: a member already, or a
// pending invite (contract 7).
func (r *userRun) addVendorID(c *umwire.CreateUser) *stepError {
	if err := r.checkCreate(umwire.StepAddVendorID, c); err != nil {
		return err
	}
	key := strings.ToLower(c.Email)
	if u := r.st.byVendor[key]; u != nil {
		if c.Option == "" {
			return stepErr(0, umwire.ErrUserExists, "independent ID %s is a member already", c.Email)
		}
		r.u = u // independent IDs' names are the user's own: nothing to update
		return nil
	}
	r.u = nil
	r.invKey = key
	if in := r.st.invites[key]; in != nil && !r.srv.expired(in) {
		if c.Option == "" {
			return stepErr(0, umwire.ErrUserInvited, "%s has a pending invite already", c.Email)
		}
		r.inv = in
		return nil
	}
	r.inv = &invite{
		email: c.Email, code: r.st.newInviteCode(), lastSent: r.srv.opts.Clock().UnixMilli(),
		invitedBy: r.st.inviter(r.clientID), firstName: c.FirstName, lastName: c.LastName, country: c.Country,
		lowerGroups: map[string]bool{},
	}
	r.st.putInvite(key, r.inv)
	return nil
}

// inviter is the invitedBy of the invites that the integration clientID
// sends: its technical account, as Integration.InvitedBy describes it.
func (s *store) inviter(clientID string) umwire.InvitedBy {
	for i := range s.integrations {
		if in := &s.integrations[i]; in.ClientID == clientID {
			return in.InvitedBy()
		}
	}
	return umwire.InvitedBy{}
}

// seededInviter completes the invitedBy of a seeded invite that gives no
// email: the whole object of the integration whose technical account its
// id names (the first integration's when it names none).
func (s *store) seededInviter(by umwire.InvitedBy) umwire.InvitedBy {
	if by.Email != "" {
		return by
	}
	for i := range s.integrations {
		if in := &s.integrations[i]; by.ID == "" || by.ID == in.TechnicalAccountID {
			return in.InvitedBy()
		}
	}
	return by
}

// createOrgOwned is createEnterpriseID and createFederatedID.
func (r *userRun) createOrgOwned(name string, c *umwire.CreateUser) *stepError {
	if err := r.checkCreate(name, c); err != nil {
		return err
	}
	u := &user{
		email: c.Email, username: c.Email, domain: emailDomain(c.Email), firstName: c.FirstName,
		lastName: c.LastName, country: c.Country, typ: umwire.TypeEnterpriseID, status: umwire.StatusActive,
	}
	if name == umwire.StepCreateFederatedID {
		u.typ = umwire.TypeFederatedID
		if r.byUsername() {
			u.username, u.domain = r.e.user, r.e.domain
		}
	}
	existing := r.st.byEmail[strings.ToLower(c.Email)]
	if k := u.usernameKey(); existing == nil && k != "" {
		existing = r.st.byUsername[k]
	}
	if existing != nil {
		return r.createExisting(existing, c)
	}
	if r.st.claimed(u.domain) == nil {
		return stepErr(0, umwire.ErrDomainNotClaimed, "domain %q is not claimed by the organization", u.domain)
	}
	if d := r.st.detached[strings.ToLower(c.Email)]; d != nil {
		f := d.fields()
		f.firstName, f.lastName = c.FirstName, c.LastName
		r.st.reattach(d)
		r.st.updateFields(d, f)
		r.u = d
		return nil
	}
	u.id = r.st.newID()
	r.st.addUser(u)
	r.u = u
	return nil
}

// createExisting applies a create step's option to a user that exists
// (specification rule 4).
func (r *userRun) createExisting(u *user, c *umwire.CreateUser) *stepError {
	switch c.Option {
	case "":
		return stepErr(0, umwire.ErrUserExists, "user %s exists already", c.Email)
	case umwire.OptionUpdateIfExists:
		if u.orgOwned() {
			f := u.fields()
			f.firstName, f.lastName = c.FirstName, c.LastName
			r.st.updateFields(u, f)
		}
	}
	r.u = u
	return nil
}

// missing is the error of a step on a user who is not a member.
func (r *userRun) missing() *stepError {
	return stepErr(0, umwire.ErrUserNonexistent, "user %s is not a member of the organization", r.e.user)
}

// update is specification rules 6-8.
func (r *userRun) update(upd *umwire.Update, country bool) *stepError {
	switch {
	case r.u == nil && r.inv != nil:
		return stepErr(0, umwire.ErrUpdateVendorID, "independent IDs cannot be updated")
	case r.u == nil:
		return r.missing()
	case country:
		return stepErr(0, umwire.ErrCountryNoUpdate, "country cannot be changed once set")
	case !r.u.orgOwned():
		return stepErr(0, umwire.ErrUpdateVendorID, "only Enterprise and Federated IDs can be updated")
	}
	u, f := r.u, r.u.fields()
	if upd.FirstName != nil {
		f.firstName = *upd.FirstName
	}
	if upd.LastName != nil {
		f.lastName = *upd.LastName
	}
	if err := checkNames(f.firstName, f.lastName); err != nil {
		return err
	}
	if upd.Email != nil && *upd.Email != u.email {
		if err := r.newEmail(&f, *upd.Email); err != nil {
			return err
		}
	}
	if upd.Username != nil && *upd.Username != f.username {
		if err := r.newUsername(&f, *upd.Username); err != nil {
			return err
		}
	}
	r.st.updateFields(u, f)
	return nil
}

// newEmail changes f's email; username (and domain) follow it when the
// user signs in with the email (rule 8).
func (r *userRun) newEmail(f *fields, email string) *stepError {
	u := r.u
	if err := umwire.CheckEmail(email); err != nil {
		return stepErr(0, umwire.ErrUserEmailInvalid, "email: %v", err)
	}
	if strings.EqualFold(email, u.email) {
		return stepErr(0, umwire.ErrUpdateCaseOnly, "the email's letter case cannot be changed")
	}
	if err := r.checkDomainMove(emailDomain(u.email), emailDomain(email)); err != nil {
		return err
	}
	if other := r.st.byEmail[strings.ToLower(email)]; other != nil && other != u {
		return stepErr(0, umwire.ErrUserExists, "a user with email %s exists already", email)
	}
	if strings.EqualFold(u.username, u.email) {
		f.username = email
		f.domain = emailDomain(email)
	}
	f.email = email
	return nil
}

// checkDomainMove allows a change of domain only to a claimed domain of
// the same directory.
func (r *userRun) checkDomainMove(from, to string) *stepError {
	if strings.EqualFold(from, to) {
		return nil
	}
	if r.st.claimed(to) == nil || !r.st.sameDirectory(from, to) {
		return stepErr(0, umwire.ErrDomainNotClaimed, "domain %q is not a claimed domain in the directory of %q", to, from)
	}
	return nil
}

// newUsername changes a Federated ID's username (rule 7: only when its
// email is in a claimed domain of the organization).
func (r *userRun) newUsername(f *fields, username string) *stepError {
	u := r.u
	if u.typ != umwire.TypeFederatedID {
		return stepErr(0, umwire.ErrUsernameNoUpdate, "the username of an Enterprise ID always equals its email")
	}
	if r.st.claimed(emailDomain(f.email)) == nil {
		return stepErr(0, umwire.ErrUsernameNoUpdate, "the username of a Federated ID can be changed only when its email is in a claimed domain of the organization")
	}
	if strings.Contains(username, "@") {
		if err := umwire.CheckEmail(username); err != nil {
			return stepErr(0, umwire.ErrUserEmailInvalid, "username: %v", err)
		}
		if err := r.checkDomainMove(f.domain, emailDomain(username)); err != nil {
			return err
		}
	} else if username == "" || strings.ContainsAny(username, " \t\r\n") {
		return stepErr(0, umwire.ErrCommandMalformed, "username %q is empty or holds spaces", username)
	} else if other := r.st.byUsername[usernameKey(username, f.domain)]; other != nil && other != u {
		return stepErr(0, umwire.ErrUserExists, "username %s exists already in domain %s", username, f.domain)
	}
	f.username = username
	return nil
}

// groupsFor resolves the names of add or remove on a user entry.
func (r *userRun) groupsFor(names []string, adding bool) ([]*group, *stepError) {
	out := make([]*group, 0, len(names))
	verb := "removed"
	if adding {
		verb = "assigned"
	}
	for _, name := range names {
		if protected(name, adding) {
			return nil, stepErr(0, umwire.ErrProtectedGroup, "group %s cannot be %s through this API", name, verb)
		}
		g := r.st.group(name)
		if g == nil {
			return nil, stepErr(0, umwire.ErrGroupNotFound, "group %s not found", name)
		}
		out = append(out, g)
	}
	return out, nil
}

// protected reports whether rule 11 forbids adding (or removing) name.
func protected(name string, adding bool) bool {
	if strings.EqualFold(name, umwire.GroupOrgAdmin) {
		return true
	}
	return adding && (strings.EqualFold(name, umwire.GroupCompartmentAdmin) || strings.EqualFold(name, umwire.GroupCompartmentViewer))
}

// add is rule 9; on a pending invite it adds to the kept memberships.
func (r *userRun) add(names []string) *stepError {
	if r.u == nil && r.inv == nil {
		return r.missing()
	}
	gs, err := r.groupsFor(names, true)
	if err != nil {
		return err
	}
	if r.u != nil {
		for _, g := range gs {
			r.st.addMember(r.u, g)
		}
		return nil
	}
	in := r.inv.clone()
	for _, g := range gs {
		if !in.lowerGroups[strings.ToLower(g.name)] {
			in.lowerGroups[strings.ToLower(g.name)] = true
			in.groups = append(in.groups, g.name)
		}
	}
	r.setInvite(in)
	return nil
}

func (r *userRun) setInvite(in *invite) {
	r.inv = in
	r.st.putInvite(r.invKey, in)
}

// remove is rule 10: a list, or "all" (which keeps _org_admin).
func (r *userRun) remove(m *umwire.Membership) *stepError {
	if r.u == nil && r.inv == nil {
		return r.missing()
	}
	var gs []*group
	if m.All {
		if r.u != nil {
			gs = slices.DeleteFunc(slices.Clone(r.u.groups), func(g *group) bool { return g.name == umwire.GroupOrgAdmin })
		}
	} else {
		var err *stepError
		if gs, err = r.groupsFor(m.Group, false); err != nil {
			return err
		}
	}
	if r.u != nil {
		for _, g := range gs {
			r.st.removeMember(r.u, g)
		}
		return nil
	}
	in := r.inv.clone()
	in.groups = slices.DeleteFunc(in.groups, func(name string) bool {
		return m.All || slices.ContainsFunc(gs, func(g *group) bool { return strings.EqualFold(g.name, name) })
	})
	r.setInvite(in.clone()) // clone rebuilds lowerGroups
	return nil
}
