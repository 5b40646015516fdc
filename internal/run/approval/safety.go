package approval

import "github.com/orgsync/orgsync/reconcile"

// Safety is one organization's safety settings for a run, resolved once
// when the run's Job is made, the command line's flags included: the
// limits its plan is held to and what a run over one does, each with the
// name a message gives it (its key in the configuration, or the flag that
// set it). The limits go into the organization's policy (Limit), so that
// reconcile.Diff withholds what exceeds them; Decide does what a run over
// a limit does.
type Safety struct {
	MaxRemovals, MaxChanges reconcile.Limit
	// MaxRemovalsBy names the limit on removals: safety.maxRemovals, an
	// organization's own, or the flag that set it.
	MaxRemovalsBy string
	// Stop is set when a run over a limit sends nothing (onLimit: stop);
	// else it holds the destructive changes for approval (hold).
	Stop bool
	// OnLimitBy names the setting that says what a run over a limit does:
	// safety.onLimit, or an organization's own.
	OnLimitBy string
}

// Limit returns base, an organization's policy, held to the limits of s
// (named as s names them), checked as the configuration's policies are.
func (s Safety) Limit(base *reconcile.ValidPolicy) (*reconcile.ValidPolicy, error) {
	p := base.Policy()
	p.MaxRemovals, p.MaxChanges = s.MaxRemovals, s.MaxChanges
	p.Names = p.Names.With(reconcile.SettingMaxRemovals, s.MaxRemovalsBy)
	return p.Valid()
}
