package config

import (
	"fmt"
	"regexp"

	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/source/mapping"
)

// ReconcilePolicy returns the reconciler's policy: the managed groups are
// the literal targets of the mapping rules (m) plus policy.managedGroups.
// The configuration was validated by Load, so an error here is a bug or a
// Config built by hand.
func (c *Config) ReconcilePolicy(m *mapping.Mapper) (*reconcile.Policy, error) {
	p := &c.Policy
	rp := &reconcile.Policy{
		Managed:               append(m.Targets(), p.ManagedGroups...),
		UserGroups:            append([]string(nil), p.UserGroups...),
		CreateUserGroups:      p.CreateUserGroups,
		Unlisted:              reconcile.Unlisted(p.UnmatchedUsers),
		ExcludeGroups:         append([]string(nil), p.Exclude.Groups...),
		RevokeUnlistedInvites: p.Invites.RevokeUnmatched,
		ResendExpiredInvites:  p.Invites.ResendExpired,
		MaxRemovals:           c.Safety.MaxRemovals.reconcile(),
		MaxChanges:            c.Safety.MaxChanges.reconcile(),
	}
	for _, a := range p.UpdateAttributes {
		switch a {
		case "firstname":
			rp.Update.FirstName = true
		case "lastname":
			rp.Update.LastName = true
		case "email":
			rp.Update.Email = true
		case "username":
			rp.Update.Username = true
		}
	}
	for _, s := range p.Exclude.IdentityTypes {
		t, ok := reconcile.ParseIdentityType(s)
		if !ok {
			return nil, fmt.Errorf("policy.exclude.identityTypes: %q is not an identity type", s)
		}
		rp.ExcludeTypes = append(rp.ExcludeTypes, t)
	}
	for _, s := range p.Exclude.Usernames {
		re, err := regexp.Compile(s)
		if err != nil {
			return nil, fmt.Errorf("policy.exclude.usernames: %w", err)
		}
		rp.ExcludeUsernames = append(rp.ExcludeUsernames, re)
	}
	if err := rp.Validate(); err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	return rp, nil
}

func (l Limit) reconcile() reconcile.Limit {
	if l.Percent {
		return reconcile.Limit{Percent: float64(l.N)}
	}
	return reconcile.Limit{Count: l.N}
}
