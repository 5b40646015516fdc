package config

import (
	"fmt"
	"regexp"

	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/source/mapping"
)

// ReconcilePolicy returns the reconciler's policy of the primary
// organization (see TargetPolicy).
func (c *Config) ReconcilePolicy(m *mapping.Mapper) (*reconcile.Policy, error) {
	return c.TargetPolicy(c.Primary(), m)
}

// TargetPolicy returns the reconciler's policy for organization t: its own
// policy and safety limits when it has them, else the top-level ones. The
// managed groups are the literal targets of the mapping rules (m) that
// belong to t plus the policy's managedGroups; the group names of the
// top-level policy belong to the primary unless qualified (org::Group),
// except exclude.groups, whose unqualified names apply to every
// organization. It is not checked: Load checks it once and keeps it (see
// ValidPolicy).
func (c *Config) TargetPolicy(t *NamedTarget, m *mapping.Mapper) (*reconcile.Policy, error) {
	p, s := &c.Policy, &c.Safety
	own := func(names []string) []string { return c.groupsOf(t, names, false) }
	excluded := c.groupsOf(t, p.Exclude.Groups, true)
	if t.Policy != nil {
		p = t.Policy
		own = func(names []string) []string { return c.groupsOf(t, names, true) }
		excluded = own(p.Exclude.Groups)
	}
	if t.Safety != nil {
		s = t.Safety
	}
	rp := &reconcile.Policy{
		Managed:                append(c.groupsOf(t, m.Targets(), false), own(p.ManagedGroups)...),
		UserGroups:             own(p.UserGroups),
		CreateUserGroups:       p.CreateUserGroups,
		Unmatched:              reconcile.Unmatched(p.UnmatchedUsers),
		ExcludeGroups:          excluded,
		RevokeUnmatchedInvites: p.Invites.RevokeUnmatched,
		ResendExpiredInvites:   p.Invites.ResendExpired,
		RefreshInviteGroups:    p.Invites.RefreshGroups,
		MaxRemovals:            s.MaxRemovals.Reconcile(),
		MaxChanges:             s.MaxChanges.Reconcile(),
		Names:                  t.PolicyKey,
	}
	if err := p.fill(rp, t.PolicyKey(reconcile.SettingExclude)); err != nil {
		return nil, err
	}
	return rp, nil
}

// ValidPolicy returns organization t's policy (TargetPolicy) as Load
// checked it; a Config that Load did not make has none.
func (c *Config) ValidPolicy(t *NamedTarget) (*reconcile.ValidPolicy, error) {
	for i := range c.Targets {
		if c.Targets[i].Name == t.Name && i < len(c.valid) && c.valid[i] != nil {
			return c.valid[i], nil
		}
	}
	return nil, fmt.Errorf("%s: no checked policy: the configuration was not loaded", t.Path())
}

// PolicyOf returns the configuration's policy that applies to t: its own,
// or the top-level one.
func (c *Config) PolicyOf(t *NamedTarget) *Policy {
	if t.Policy != nil {
		return t.Policy
	}
	return &c.Policy
}

// groupsOf returns the names of names that belong to organization t,
// without their qualifier: those qualified with t's name, and the
// unqualified ones when t is the primary or everywhere is set (exclusions
// of the top-level policy, t's own policy).
func (c *Config) groupsOf(t *NamedTarget, names []string, everywhere bool) []string {
	var out []string
	for _, n := range names {
		org, g := SplitGroup(n)
		if org == t.Name || (org == "" && (everywhere || t == c.Primary())) {
			out = append(out, g)
		}
	}
	return out
}

// fill sets the attributes to update and the exclusions by identity type
// and username of rp from p; exclude is the key of p's exclusions, for the
// errors.
func (p *Policy) fill(rp *reconcile.Policy, exclude string) error {
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
			return fmt.Errorf("%s.identityTypes: %q is not an identity type", exclude, s)
		}
		rp.ExcludeTypes = append(rp.ExcludeTypes, t)
	}
	for _, s := range p.Exclude.Usernames {
		re, err := regexp.Compile(s)
		if err != nil {
			return fmt.Errorf("%s.usernames: %w", exclude, err)
		}
		rp.ExcludeUsernames = append(rp.ExcludeUsernames, re)
	}
	return nil
}

// Reconcile is the limit as the reconciler takes it.
func (l Limit) Reconcile() reconcile.Limit {
	if l.Percent {
		return reconcile.Limit{Percent: float64(l.N)}
	}
	return reconcile.Limit{Count: l.N}
}

// SafetyOf returns the safety settings that apply to t: its own, or the
// top-level ones. Its OnLimit is the top-level one when t's own leaves it
// out.
func (c *Config) SafetyOf(t *NamedTarget) Safety {
	if t.Safety == nil {
		return c.Safety
	}
	s := *t.Safety
	setDefault(&s.OnLimit, c.Safety.OnLimit)
	return s
}
