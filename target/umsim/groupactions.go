package umsim

import (
	"slices"
	"strings"

	"github.com/orgsync/orgsync/target/umwire"
)

// groupRun executes the steps of one user-group entry (contract 5); g is
// the user group the entry acts on, nil when there is none.
type groupRun struct {
	srv *Server
	st  *store
	e   *entry
	g   *group
}

func (r *groupRun) resolve() {
	if g := r.st.group(r.e.usergroup); g != nil && g.kind == kindUserGroup {
		r.g = g
	}
}

// exec runs one step of a user-group entry.
func (r *groupRun) exec(st step) *stepError {
	if st.name == umwire.StepCreateUserGroup {
		return r.create(st.groupInfo)
	}
	if r.g == nil {
		return stepErr(0, umwire.ErrUserGroupNotFound, "user group %s not found", r.e.usergroup)
	}
	switch st.name {
	case umwire.StepUpdateUserGroup:
		return r.update(st.groupInfo)
	case umwire.StepDeleteUserGroup:
		r.st.deleteGroup(r.g)
		if admin := r.st.group(umwire.PrefixAdmin + r.g.name); admin != nil {
			r.st.deleteGroup(admin)
		}
		r.g = nil
		return nil
	default: // add, remove
		return r.members(st.members, st.name == umwire.StepAdd)
	}
}

// checkName says what is wrong with a user group's new name, or nil.
func (r *groupRun) checkName(name string) *stepError {
	switch {
	case name == "" || strings.HasPrefix(name, "_"):
		return stepErr(0, umwire.ErrGroupInvalidName, "user group name %q must not be empty or start with _", name)
	case len([]rune(name)) > umwire.MaxUserGroupName:
		return stepErr(0, umwire.ErrGroupInvalidName, "user group name has more than %d characters", umwire.MaxUserGroupName)
	}
	if g := r.st.group(name); g != nil && g != r.g {
		return stepErr(0, umwire.ErrUserGroupExists, "a group named %s exists already", g.name)
	}
	return nil
}

// create is createUserGroup, with its ignore or update option.
func (r *groupRun) create(info *umwire.UserGroupInfo) *stepError {
	name := info.Name
	if name == "" {
		name = r.e.usergroup
	}
	if err := checkOption(info.Option); err != nil {
		return err
	}
	r.g = nil
	if g := r.st.group(name); g != nil && g.kind == kindUserGroup && info.Option != "" {
		r.g = g
		if info.Option == umwire.OptionUpdateIfExists && info.Description != "" {
			r.st.setDescription(g, info.Description)
		}
		return nil
	}
	if err := r.checkName(name); err != nil {
		return err
	}
	r.g = &group{name: name, kind: kindUserGroup, description: info.Description}
	r.st.addGroup(r.g)
	return nil
}

// update is updateUserGroup: a new name (its _admin_ group follows) or
// description.
func (r *groupRun) update(info *umwire.UserGroupInfo) *stepError {
	if info.Name != "" && info.Name != r.g.name {
		if err := r.checkName(info.Name); err != nil {
			return err
		}
		admin := r.st.group(umwire.PrefixAdmin + r.g.name)
		r.st.renameGroup(r.g, info.Name)
		if admin != nil {
			r.st.renameGroup(admin, umwire.PrefixAdmin+info.Name)
		}
	}
	if info.Description != "" {
		r.st.setDescription(r.g, info.Description)
	}
	return nil
}

// members adds or removes users and granted profiles.
func (r *groupRun) members(m *umwire.Membership, adding bool) *stepError {
	users := make([]*user, 0, len(m.Users))
	for _, email := range m.Users {
		u := r.st.byEmail[strings.ToLower(email)]
		if u == nil {
			u = r.st.byVendor[strings.ToLower(email)]
		}
		if u == nil {
			return stepErr(0, umwire.ErrUserNonexistent, "user %s is not a member of the organization", email)
		}
		users = append(users, u)
	}
	profiles := make([]*group, 0, len(m.ProductConfigurations))
	for _, name := range m.ProductConfigurations {
		p := r.st.group(name)
		if p == nil || p.kind != kindProfile {
			return stepErr(0, umwire.ErrGroupNotFound, "product profile %s not found", name)
		}
		profiles = append(profiles, p)
	}
	grants := slices.Clone(r.g.grants)
	for _, p := range profiles {
		at := slices.Index(grants, p)
		switch {
		case adding && at < 0:
			grants = append(grants, p)
		case !adding && at >= 0:
			grants = slices.Delete(grants, at, at+1)
		}
	}
	if len(profiles) > 0 {
		r.st.setGrants(r.g, grants)
	}
	for _, u := range users {
		if adding {
			r.st.addMember(u, r.g)
		} else {
			r.st.removeMember(u, r.g)
		}
	}
	return nil
}
