package umsim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/orgsync/orgsync/target/umwire"
)

// fixedAdminGroups exist in every organization.
var fixedAdminGroups = []string{umwire.GroupOrgAdmin, umwire.GroupDeploymentAdmin, umwire.GroupSupportAdmin}

// build checks st and turns it into an indexed store. st is not kept.
func build(st *State) (*store, problems) {
	s := newStore(len(st.Users))
	var probs problems
	if !umwire.IsOrgID(st.Org.ID) {
		probs.add(fmt.Sprintf("%q is not an organization id (want %s)", st.Org.ID, umwire.OrgIDForm), "org", "id")
	}
	s.orgID, s.migrating = st.Org.ID, st.Org.Migrating
	s.integrations = slices.Clone(st.Integrations)
	buildDomains(s, st, &probs)
	checkIntegrations(st, &probs)
	buildProducts(s, st, &probs)
	buildUserGroups(s, st, &probs)
	buildAdminGroups(s, st, &probs)
	collectIDs(s, st, &probs)
	groups := presizeMembers(s, st.Users)
	for i := range st.Users {
		if u := buildUser(s, &st.Users[i], &probs, "users", i); u != nil {
			s.addUser(u)
			addSeedGroups(groups, u, st.Users[i].Groups, &probs, "users", i)
		}
	}
	for i := range st.DirectoryUsers {
		u := buildUser(s, &st.DirectoryUsers[i], &probs, "directoryUsers", i)
		if u == nil {
			continue
		}
		if !u.orgOwned() {
			probs.add("only Enterprise and Federated IDs can be directory users", "directoryUsers", i, "type")
			continue
		}
		s.detached[strings.ToLower(u.email)] = u
	}
	buildInvites(s, st, &probs)
	return s, probs
}

// buildDomains indexes the organization's domains, reporting empty and
// repeated names.
func buildDomains(s *store, st *State, probs *problems) {
	for i, d := range st.Org.Domains {
		key := strings.ToLower(d.Name)
		switch {
		case d.Name == "":
			probs.add("name is required", "org", "domains", i, "name")
		case s.domains[key] != nil:
			probs.add(fmt.Sprintf("domain %q is listed twice", d.Name), "org", "domains", i, "name")
		default:
			dm := &domain{name: d.Name, directory: d.Directory, claimed: d.Claimed}
			s.domains[key] = dm
			s.domainOrder = append(s.domainOrder, dm)
		}
	}
}

// checkIntegrations reports integrations without a client id, secret or
// technical account, and client ids given twice.
func checkIntegrations(st *State, probs *problems) {
	seen := map[string]bool{}
	for i, in := range st.Integrations {
		for _, f := range []struct{ name, value string }{
			{"clientID", in.ClientID}, {"clientSecret", in.ClientSecret}, {"technicalAccountID", in.TechnicalAccountID},
		} {
			if f.value == "" {
				probs.add("is required", "integrations", i, f.name)
			}
		}
		if in.Certificate == "" {
			probs.add("certificate or certificateFile is required", "integrations", i, "certificate")
		}
		if seen[in.ClientID] {
			probs.add("client id is listed twice", "integrations", i, "clientID")
		}
		seen[in.ClientID] = true
	}
}

// buildProducts adds the products and their profiles as groups.
func buildProducts(s *store, st *State, probs *problems) {
	for i, p := range st.Products {
		if p.Name == "" {
			probs.add("name is required", "products", i, "name")
			continue
		}
		if s.product(p.Name) != nil {
			probs.add(fmt.Sprintf("product %q is listed twice", p.Name), "products", i, "name")
			continue
		}
		pr := &product{id: p.ID, code: p.Code, name: p.Name, quota: p.LicenseQuota}
		if pr.id == "" {
			pr.id = fmt.Sprintf("%X", i+1)
		}
		if pr.code == "" {
			pr.code = strings.ToUpper(strings.ReplaceAll(p.Name, " ", ""))
		}
		for j, name := range p.Profiles {
			if msg := checkGroupName(s, name); msg != "" {
				probs.add(msg, "products", i, "profiles", j)
				continue
			}
			g := &group{name: name, kind: kindProfile, product: pr}
			s.addGroup(g)
			pr.profiles = append(pr.profiles, g)
		}
		s.products = append(s.products, pr)
	}
}

// checkGroupName says what is wrong with a new user-group or profile name,
// or "".
func checkGroupName(s *store, name string) string {
	switch {
	case name == "":
		return "a group name is required"
	case strings.HasPrefix(name, "_"):
		return fmt.Sprintf("group name %q must not start with _", name)
	case len([]rune(name)) > umwire.MaxUserGroupName:
		return fmt.Sprintf("group name has more than %d characters", umwire.MaxUserGroupName)
	case s.group(name) != nil:
		return fmt.Sprintf("a group named %q exists already", name)
	}
	return ""
}

// buildUserGroups adds the user groups with the profiles they grant.
func buildUserGroups(s *store, st *State, probs *problems) {
	for i, ug := range st.UserGroups {
		if msg := checkGroupName(s, ug.Name); msg != "" {
			probs.add(msg, "userGroups", i, "name")
			continue
		}
		g := &group{name: ug.Name, kind: kindUserGroup, description: ug.Description}
		for j, name := range ug.Profiles {
			p := s.group(name)
			if p == nil || p.kind != kindProfile {
				probs.add(fmt.Sprintf("no product profile %q", name), "userGroups", i, "profiles", j)
				continue
			}
			if !slices.Contains(g.grants, p) {
				g.grants = append(g.grants, p)
			}
		}
		s.addGroup(g)
	}
}

// buildAdminGroups adds the fixed admin groups and the listed ones.
func buildAdminGroups(s *store, st *State, probs *problems) {
	for _, name := range fixedAdminGroups {
		s.addGroup(&group{name: name, kind: kindAdmin})
	}
	for i, name := range st.AdminGroups {
		if s.group(name) != nil {
			if !slices.Contains(fixedAdminGroups, name) {
				probs.add(fmt.Sprintf("group %q is listed twice", name), "adminGroups", i)
			}
			continue
		}
		if !s.adminTargetExists(name) {
			probs.add(fmt.Sprintf("%q is not an admin group of an existing product, group or profile (want _product_admin_<product>, _admin_<group>, _developer_<profile>)", name), "adminGroups", i)
			continue
		}
		s.addGroup(&group{name: name, kind: kindAdmin})
	}
}

func (s *store) product(name string) *product {
	for _, p := range s.products {
		if strings.EqualFold(p.name, name) {
			return p
		}
	}
	return nil
}

// adminTargetExists reports whether name is a prefixed admin group whose
// product, group or profile exists.
func (s *store) adminTargetExists(name string) bool {
	lower := strings.ToLower(name)
	switch {
	case strings.HasPrefix(lower, umwire.PrefixProductAdmin):
		return s.product(name[len(umwire.PrefixProductAdmin):]) != nil
	case strings.HasPrefix(lower, umwire.PrefixAdmin):
		g := s.group(name[len(umwire.PrefixAdmin):])
		return g != nil && g.kind != kindAdmin
	case strings.HasPrefix(lower, umwire.PrefixDeveloper):
		g := s.group(name[len(umwire.PrefixDeveloper):])
		return g != nil && g.kind == kindProfile
	}
	return false
}

// validTypes and validStatuses are the values a seeded user's type and
// status may take.
var validTypes = []string{umwire.TypeVendorID, umwire.TypeEnterpriseID, umwire.TypeFederatedID, umwire.TypeUnknown}
var validStatuses = []string{umwire.StatusActive, umwire.StatusDisabled, umwire.StatusLocked, umwire.StatusRemoved}

// buildUser checks one seeded user and fills in its defaults; nil when it
// has problems.
func buildUser(s *store, su *User, probs *problems, list string, i int) *user {
	n := len(*probs)
	u := &user{
		id: su.ID, email: su.Email, username: su.Username, domain: su.Domain,
		firstName: su.FirstName, lastName: su.LastName, country: su.Country,
		typ: su.Type, status: su.Status, technical: su.TechnicalAccount,
	}
	if err := umwire.CheckEmail(u.email); err != nil {
		probs.add(err.Error(), list, i, "email")
	}
	if !slices.Contains(validTypes, u.typ) {
		probs.add(fmt.Sprintf("type %q is not one of %s", u.typ, strings.Join(validTypes, ", ")), list, i, "type")
	}
	if u.status == "" {
		u.status = umwire.StatusActive
	} else if !slices.Contains(validStatuses, u.status) {
		probs.add(fmt.Sprintf("status %q is not one of %s", u.status, strings.Join(validStatuses, ", ")), list, i, "status")
	}
	if u.country != "" && !umwire.IsCountryCode(u.country) {
		probs.add(fmt.Sprintf("%q is not an ISO 3166 alpha-2 country code", u.country), list, i, "country")
	}
	for _, f := range []struct{ name, value string }{{"firstname", u.firstName}, {"lastname", u.lastName}} {
		if err := umwire.CheckName(f.value); err != nil {
			probs.add(err.Error(), list, i, f.name)
		}
	}
	if len(*probs) > n {
		return nil
	}
	fillUserDefaults(u)
	if msg := s.checkNewUser(u); msg != "" {
		probs.add(msg, list, i)
		return nil
	}
	if u.id == "" {
		u.id = s.newID()
	}
	return u
}

// fillUserDefaults sets username and domain from the email where absent.
func fillUserDefaults(u *user) {
	if u.username == "" || u.typ != umwire.TypeFederatedID {
		u.username = u.email
	}
	if u.domain == "" {
		u.domain = emailDomain(u.email)
	}
}

func emailDomain(email string) string {
	return email[strings.LastIndexByte(email, '@')+1:]
}

// checkNewUser says why u cannot join the organization, or "".
func (s *store) checkNewUser(u *user) string {
	key := strings.ToLower(u.email)
	switch {
	case u.typ == umwire.TypeVendorID && s.byVendor[key] != nil:
		return fmt.Sprintf("an independent ID %q exists already", u.email)
	case u.typ != umwire.TypeVendorID && s.byEmail[key] != nil:
		return fmt.Sprintf("a user with email %q exists already", u.email)
	case u.usernameKey() != "" && s.byUsername[u.usernameKey()] != nil:
		return fmt.Sprintf("a user with username %q in domain %q exists already", u.username, u.domain)
	case u.orgOwned() && s.claimed(u.domain) == nil:
		return fmt.Sprintf("domain %q is not a claimed domain of the organization", u.domain)
	case u.orgOwned() && s.detached[key] != nil:
		return fmt.Sprintf("a directory account with email %q exists already", u.email)
	}
	return ""
}

// claimed returns the organization's claimed domain of that name, or nil.
func (s *store) claimed(name string) *domain {
	if d := s.domains[strings.ToLower(name)]; d != nil && d.claimed {
		return d
	}
	return nil
}

// newID returns the next user id (24 hex digits @VendorID) that the seed
// did not already give a user.
func (s *store) newID() string {
	for {
		s.idSeq++
		hex := strings.ToUpper(strconv.FormatUint(s.idSeq, 16))
		id := strings.Repeat("0", max(0, 24-len(hex))) + hex + "@VendorID"
		if !s.givenIDs[id] {
			return id
		}
	}
}

// collectIDs records the ids the seed gives (each once), so that the ids
// generated for the other users differ from them.
func collectIDs(s *store, st *State, probs *problems) {
	s.givenIDs = map[string]bool{}
	for _, list := range []struct {
		name  string
		users []User
	}{{"users", st.Users}, {"directoryUsers", st.DirectoryUsers}} {
		for i, u := range list.users {
			if u.ID == "" {
				continue
			}
			if s.givenIDs[u.ID] {
				probs.add(fmt.Sprintf("id %q is used twice", u.ID), list.name, i, "id")
			}
			s.givenIDs[u.ID] = true
		}
	}
}

// presizeMembers counts the seeded memberships of every group and sizes
// its member set; it returns the groups by the exact names the seed uses,
// which spares a lower-casing per membership.
func presizeMembers(s *store, users []User) map[string]*group {
	count := map[string]int{}
	for i := range users {
		for _, name := range users[i].Groups {
			count[name]++
		}
	}
	byName := make(map[string]*group, len(count))
	for name, n := range count {
		if g := s.group(name); g != nil {
			byName[name] = g
			if len(g.members) == 0 {
				g.members = make(map[*user]struct{}, n)
			}
		}
	}
	return byName
}

// addSeedGroups gives a seeded user its direct memberships, reporting
// names that are no group.
func addSeedGroups(groups map[string]*group, u *user, names []string, probs *problems, list string, i int) {
	u.groups = make([]*group, 0, len(names))
	for j, name := range names {
		g := groups[name]
		if g == nil {
			probs.add(fmt.Sprintf("no group, profile or admin group %q", name), list, i, "groups", j)
			continue
		}
		if !slices.Contains(u.groups, g) { // cheaper than probing the large member set
			g.members[u] = struct{}{}
			u.groups = append(u.groups, g)
		}
	}
}

// buildInvites adds the seeded invites, reporting bad and repeated emails
// and unknown groups.
func buildInvites(s *store, st *State, probs *problems) {
	for i, si := range st.Invites {
		if err := umwire.CheckEmail(si.Email); err != nil {
			probs.add(err.Error(), "invites", i, "email")
			continue
		}
		key := strings.ToLower(si.Email)
		if s.invites[key] != nil {
			probs.add(fmt.Sprintf("%q is invited twice", si.Email), "invites", i, "email")
			continue
		}
		for j, name := range si.Groups {
			if s.group(name) == nil {
				probs.add(fmt.Sprintf("no group, profile or admin group %q", name), "invites", i, "groups", j)
			}
		}
		in := (&invite{
			email: si.Email, code: si.InviteCode, lastSent: si.LastSentDTS, invitedBy: s.seededInviter(si.InvitedBy),
			firstName: si.FirstName, lastName: si.LastName, country: si.Country, groups: si.Groups,
		}).clone()
		if in.code == "" {
			in.code = s.newInviteCode()
		}
		s.invites[key] = in
	}
}

func (s *store) newInviteCode() string {
	s.inviteSeq++
	return fmt.Sprintf("INV%013X", s.inviteSeq)
}

// snapshot converts the store back into a State (deep copy).
func (s *store) snapshot() *State {
	st := &State{Org: Org{ID: s.orgID, Migrating: s.migrating}, Integrations: slices.Clone(s.integrations)}
	for _, d := range s.domainOrder {
		st.Org.Domains = append(st.Org.Domains, Domain{Name: d.name, Directory: d.directory, Claimed: d.claimed})
	}
	for _, p := range s.products {
		sp := Product{ID: p.id, Code: p.code, Name: p.name, LicenseQuota: p.quota}
		for _, g := range p.profiles {
			sp.Profiles = append(sp.Profiles, g.name)
		}
		st.Products = append(st.Products, sp)
	}
	for _, g := range s.groupsInOrder() {
		switch {
		case g.kind == kindUserGroup:
			st.UserGroups = append(st.UserGroups, UserGroup{Name: g.name, Description: g.description, Profiles: groupNames(g.grants)})
		case g.kind == kindAdmin && !slices.Contains(fixedAdminGroups, g.name):
			st.AdminGroups = append(st.AdminGroups, g.name)
		}
	}
	st.Users = make([]User, 0, s.live)
	for i, u := range s.users {
		if s.listed(i, u) {
			st.Users = append(st.Users, u.state())
		}
	}
	for _, u := range sortedByEmail(s.detached) {
		st.DirectoryUsers = append(st.DirectoryUsers, u.state())
	}
	for _, in := range s.sortedInvites() {
		st.Invites = append(st.Invites, Invite{
			Email: in.email, InviteCode: in.code, LastSentDTS: in.lastSent, InvitedBy: in.invitedBy,
			FirstName: in.firstName, LastName: in.lastName, Country: in.country, Groups: slices.Clone(in.groups),
		})
	}
	return st
}

func (u *user) state() User {
	return User{
		ID: u.id, Email: u.email, Username: u.username, Domain: u.domain, FirstName: u.firstName,
		LastName: u.lastName, Country: u.country, Type: u.typ, Status: u.status,
		TechnicalAccount: u.technical, Groups: groupNames(u.groups),
	}
}

// groupNames returns the names of gs (nil for none).
func groupNames(gs []*group) []string {
	if len(gs) == 0 {
		return nil
	}
	out := make([]string, len(gs))
	for i, g := range gs {
		out[i] = g.name
	}
	return out
}

func (s *store) groupsInOrder() []*group {
	gs := make([]*group, 0, len(s.groups))
	for _, g := range s.groups {
		gs = append(gs, g)
	}
	slices.SortFunc(gs, func(a, b *group) int { return int(a.seq) - int(b.seq) })
	return gs
}

func sortedByEmail(m map[string]*user) []*user {
	out := make([]*user, 0, len(m))
	for _, u := range m {
		out = append(out, u)
	}
	slices.SortFunc(out, func(a, b *user) int { return strings.Compare(strings.ToLower(a.email), strings.ToLower(b.email)) })
	return out
}

func (s *store) sortedInvites() []*invite {
	out := make([]*invite, 0, len(s.invites))
	for _, in := range s.invites {
		out = append(out, in)
	}
	slices.SortFunc(out, func(a, b *invite) int { return strings.Compare(strings.ToLower(a.email), strings.ToLower(b.email)) })
	return out
}
