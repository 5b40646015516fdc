package view

import (
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/store/planjson"
	"github.com/orgsync/orgsync/reconcile"
)

// planJSON is the JSON plan of one organization (format
// PlanFormatVersion): its counts, how the organization was read (with
// incremental runs on), and the plan in planjson's form.
type planJSON struct {
	FormatVersion int       `json:"formatVersion"`
	Counts        counts    `json:"counts"`
	Read          *readJSON `json:"read,omitempty"`
	*planjson.Plan
}

// plansJSON is the JSON plan of several organizations, each in the
// configuration's order.
type plansJSON struct {
	FormatVersion int           `json:"formatVersion"`
	Organizations []orgPlanJSON `json:"organizations"`
}

// orgPlanJSON is one organization's part of plansJSON: its name and id,
// then the fields of its plan (planJSON's) or the error that stopped it.
type orgPlanJSON struct {
	Name   string    `json:"name"`
	OrgID  string    `json:"orgId"`
	Error  string    `json:"error,omitempty"`
	Counts *counts   `json:"counts,omitempty"`
	Read   *readJSON `json:"read,omitempty"`
	*planjson.Plan
}

// counts are a plan's changes counted by kind, its memberships added and
// removed, its pending invites whose groups are sent again, and its
// withheld, unmatched, excluded and out-of-scope users.
type counts struct {
	CreateGroup       int `json:"createGroup"`
	Create            int `json:"create"`
	Update            int `json:"update"`
	Remove            int `json:"remove"`
	Delete            int `json:"delete"`
	ResendInvite      int `json:"resendInvite"`
	RevokeInvite      int `json:"revokeInvite"`
	AddMemberships    int `json:"addMemberships"`
	RemoveMemberships int `json:"removeMemberships"`
	InviteGroups      int `json:"inviteGroups"`
	Withheld          int `json:"withheld"`
	Unmatched         int `json:"unmatched"`
	Excluded          int `json:"excluded"`
	OutOfScope        int `json:"outOfScope,omitempty"`
}

// countsOf is p's counts in the JSON plan's form.
func countsOf(p *reconcile.Plan) *counts {
	c := p.Counts()
	return &counts{CreateGroup: c.Of(reconcile.KindCreateGroup), Create: c.Of(reconcile.KindCreate), Update: c.Of(reconcile.KindUpdate),
		Remove: c.Of(reconcile.KindRemove), Delete: c.Of(reconcile.KindDelete), ResendInvite: c.Of(reconcile.KindResendInvite),
		RevokeInvite: c.Of(reconcile.KindRevokeInvite), AddMemberships: c.AddMemberships, RemoveMemberships: c.RemoveMemberships,
		InviteGroups: c.Of(reconcile.KindInviteGroups), Withheld: c.Withheld, Unmatched: c.Unmatched, Excluded: c.Excluded, OutOfScope: c.OutOfScope}
}

// readJSON is how the organization was read: full or incremental, and
// why.
type readJSON struct {
	Kind   string `json:"kind"`
	Reason string `json:"reason,omitempty"`
}

// readJSONOf is r in the JSON plan's form, nil when r is.
func readJSONOf(r *run.Reading) *readJSON {
	if r == nil {
		return nil
	}
	return &readJSON{Kind: string(r.Kind), Reason: r.Reason}
}

// newPlanJSON is the JSON plan of p, read as read says.
func newPlanJSON(p *reconcile.Plan, read *run.Reading) planJSON {
	return planJSON{FormatVersion: PlanFormatVersion, Counts: *countsOf(p), Read: readJSONOf(read), Plan: planjson.FromPlan(p)}
}

// newOrgPlanJSON is p's part of the JSON plan of several organizations;
// a plan that fails reconcile.Plan.Check is an error.
func newOrgPlanJSON(p *run.OrgPlan) (orgPlanJSON, error) {
	o := orgPlanJSON{Name: p.Org.Name, OrgID: p.Org.OrgID, Read: readJSONOf(readingOf(p))}
	if p.Err != nil {
		o.Error = p.Err.Error()
		return o, nil
	}
	if err := p.Plan.Check(); err != nil {
		return o, err
	}
	o.Counts, o.Plan = countsOf(p.Plan), planjson.FromPlan(p.Plan)
	return o, nil
}
