package planjson

import "github.com/orgsync/orgsync/reconcile"

// Plan is a plan: the changes that make an organization what the sources
// say, those a safety limit withheld and why, the users in no source,
// how many users were left alone, notes, the pending invites' groups sent
// again, and the target groups missing from the organization.
type Plan struct {
	Changes       Changes        `json:"changes"`
	Withheld      Changes        `json:"withheld,omitempty"`
	Safety        *Safety        `json:"safety,omitempty"`
	Unmatched     Users          `json:"unmatched,omitempty"`
	Excluded      int            `json:"excluded"`
	OutOfScope    int            `json:"outOfScope,omitempty"`
	Notes         []string       `json:"notes,omitempty"`
	UserGroups    []string       `json:"userGroups,omitempty"`
	InviteGroups  Changes        `json:"inviteGroups,omitempty"`
	MissingGroups []MissingGroup `json:"missingGroups,omitempty"`
}

// Safety says why the destructive changes of a plan were withheld.
type Safety struct {
	Reason    string `json:"reason"`
	Withheld  int    `json:"withheld"`
	Removals  int    `json:"removals"`
	Changes   int    `json:"changes"`
	Managed   int    `json:"managed"`
	Limit     int    `json:"limit"`
	LimitName string `json:"limitName"`
	Stopped   bool   `json:"stopped,omitempty"`
}

// MissingGroup is a target group the organization lacks, and how many
// source users it would have.
type MissingGroup struct {
	Name  string `json:"name"`
	Users int    `json:"users"`
}

// FromPlan is p in this form (sharing p's lists but its unmatched users,
// listed).
func FromPlan(p *reconcile.Plan) *Plan {
	out := &Plan{Changes: p.Changes, Withheld: p.Withheld, Unmatched: p.Unmatched.List(), Excluded: p.Excluded, OutOfScope: p.OutOfScope,
		Notes: p.Notes, UserGroups: p.UserGroups, InviteGroups: p.InviteGroups}
	if s := p.Safety; s != nil {
		out.Safety = &Safety{Reason: s.Reason, Withheld: s.Withheld, Removals: s.Removals, Changes: s.Changes, Managed: s.Managed,
			Limit: s.Limit, LimitName: string(s.LimitName), Stopped: s.Stopped}
	}
	for _, g := range p.MissingGroups {
		out.MissingGroups = append(out.MissingGroups, MissingGroup{Name: g.Name, Users: g.Users})
	}
	return out
}

// Core is the plan as the core holds it (sharing its lists), its
// settings named in the core's words (reconcile.Plan.Names unset).
func (p *Plan) Core() *reconcile.Plan {
	out := &reconcile.Plan{Changes: p.Changes, Withheld: p.Withheld, Unmatched: reconcile.UsersOf(p.Unmatched...), Excluded: p.Excluded, OutOfScope: p.OutOfScope,
		Notes: p.Notes, UserGroups: p.UserGroups, InviteGroups: p.InviteGroups}
	if s := p.Safety; s != nil {
		out.Safety = &reconcile.SafetyError{Reason: s.Reason, Withheld: s.Withheld, Removals: s.Removals, Changes: s.Changes, Managed: s.Managed,
			Limit: s.Limit, LimitName: reconcile.Setting(s.LimitName), Stopped: s.Stopped}
	}
	for _, g := range p.MissingGroups {
		out.MissingGroups = append(out.MissingGroups, reconcile.MissingGroup{Name: g.Name, Users: g.Users})
	}
	return out
}
