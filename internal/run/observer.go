package run

import "github.com/orgsync/orgsync/reconcile"

// Observer hears what a run does, as it happens: change control records
// the results (history, run records, notifications) without the run
// knowing of it. An Observer only observes: what is sent, held or stopped
// the safety gate decides (gate.decide), not an Observer. Its methods are called from each organization's own
// goroutine, so an Observer must be safe for concurrent use, and should
// return quickly (a slow one holds its organization's run back). Embed
// NopObserver to hear only some of it.
type Observer interface {
	// Read is called when an organization's users have been read, before
	// they are compared (p.Plan is not set yet): for a fingerprint of
	// what the plan is made against. current must not be changed.
	Read(p *OrgPlan, current *reconcile.Current)
	// Applied is called when an organization's run ended: its plan was
	// applied (in any mode), or could not be made, gated or applied
	// (Result.Err), or a source failed the whole run. It reports whether
	// it recorded r: the journal of an approval's apply is removed only
	// then (else the next orgsync that touches the approval recovers
	// what the record lacks from it).
	Applied(r *Result) (recorded bool)
}

// NopObserver hears nothing.
type NopObserver struct{}

func (NopObserver) Read(*OrgPlan, *reconcile.Current) {}
func (NopObserver) Applied(*Result) bool              { return false }
