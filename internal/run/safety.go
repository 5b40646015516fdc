package run

import (
	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/reconcile"
)

// maxRemovalsFlag names the command line's limit on removals
// (Overrides.MaxRemovals) where a message names the limit.
const maxRemovalsFlag = "--max-removals"

// safety is one organization's safety settings for a run, resolved once
// when the Job is made: the limits its plan is held to and what a run
// over one does, each with the name a message gives it (its key in the
// configuration, or the flag that set it). The limits go into the
// organization's policy (reconcile.Diff withholds what exceeds them); the
// gate does what onLimit says.
type safety struct {
	maxRemovals   reconcile.Limit
	maxChanges    reconcile.Limit
	maxRemovalsBy string // safety.maxRemovals, an organization's own, or maxRemovalsFlag
	// stop is set when a run over a limit sends nothing (onLimit: stop);
	// else it holds the destructive changes for approval (hold).
	stop       bool
	onLimitKey string // safety.onLimit, or an organization's own
}

// resolveSafety is the safety of organization t: s, the safety settings
// its configuration gives it (config.Config.SafetyOf), with the run's
// limit on removals over them when the command line sets one.
func resolveSafety(t *config.NamedTarget, s config.Safety, maxRemovals *config.Limit) safety {
	out := safety{maxRemovals: s.MaxRemovals.Reconcile(), maxChanges: s.MaxChanges.Reconcile(), stop: s.OnLimit == config.OnLimitStop,
		maxRemovalsBy: t.PolicyKey(reconcile.SettingMaxRemovals), onLimitKey: t.PolicyKey(config.SettingOnLimit)}
	if maxRemovals != nil {
		out.maxRemovals, out.maxRemovalsBy = maxRemovals.Reconcile(), maxRemovalsFlag
	}
	return out
}

// limit returns base, an organization's policy, held to the limits of s
// (named as s names them), checked as Load checks a policy.
func (s safety) limit(base *reconcile.ValidPolicy) (*reconcile.ValidPolicy, error) {
	p := base.Policy()
	p.MaxRemovals, p.MaxChanges = s.maxRemovals, s.maxChanges
	p.Names = p.Names.With(reconcile.SettingMaxRemovals, s.maxRemovalsBy)
	return p.Valid()
}
