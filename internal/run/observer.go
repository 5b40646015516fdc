package run

import "github.com/orgsync/orgsync/reconcile"

// Observer hears what a run does, as it happens: change control records
// plans and results (history, approvals, notifications) without the run
// knowing of it. Its methods are called from each organization's own
// goroutine, so an Observer must be safe for concurrent use, and should
// return quickly (a slow one holds its organization's run back).
type Observer interface {
	// Planned is called when an organization's plan is ready, or failed
	// (OrgPlan.Err), before it is shown or applied.
	Planned(p *OrgPlan)
	// Applied is called when an organization's plan was applied (in any
	// mode), or could not be (Result.Err).
	Applied(r *Result)
}

// CurrentObserver is an Observer that also hears each organization's
// state as read, before it is planned (a saved plan keeps its fingerprint).
type CurrentObserver interface {
	ReadCurrent(p *OrgPlan, cur *reconcile.Current)
}

// nopObserver hears nothing.
type nopObserver struct{}

func (nopObserver) Planned(*OrgPlan) {}
func (nopObserver) Applied(*Result)  {}
