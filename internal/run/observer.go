package run

import "github.com/orgsync/orgsync/reconcile"

// Observer hears what a run does, as it happens: change control records
// plans and results (history, approvals, notifications) without the run
// knowing of it. Its methods are called from each organization's own
// goroutine, so an Observer must be safe for concurrent use, and should
// return quickly (a slow one holds its organization's run back). Embed
// NopObserver to hear only some of it.
type Observer interface {
	// Read is called when an organization's users have been read, before
	// they are compared (p.Plan is not set yet): for a fingerprint of
	// what the plan is made against. current must not be changed.
	Read(p *OrgPlan, current *reconcile.Current)
	// Planned is called when an organization's plan is ready, or failed
	// (OrgPlan.Err), before it is shown or applied.
	Planned(p *OrgPlan)
	// Applied is called when an organization's plan was applied (in any
	// mode), or could not be (Result.Err).
	Applied(r *Result)
}

// NopObserver hears nothing.
type NopObserver struct{}

func (NopObserver) Read(*OrgPlan, *reconcile.Current) {}
func (NopObserver) Planned(*OrgPlan)                  {}
func (NopObserver) Applied(*Result)                   {}
