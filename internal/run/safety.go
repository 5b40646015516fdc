package run

import (
	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/run/approval"
	"github.com/orgsync/orgsync/reconcile"
)

// maxRemovalsFlag names the command line's limit on removals
// (Overrides.MaxRemovals) where a message names the limit.
const maxRemovalsFlag = "--max-removals"

// resolveSafety is the safety of organization t: s, the safety settings
// its configuration gives it (config.Config.SafetyOf), with the run's
// limit on removals over them when the command line sets one, each named
// as a message names it.
func resolveSafety(t *config.NamedTarget, s config.Safety, maxRemovals *config.Limit) approval.Safety {
	out := approval.Safety{MaxRemovals: s.MaxRemovals.Reconcile(), MaxChanges: s.MaxChanges.Reconcile(), Stop: s.OnLimit == config.OnLimitStop,
		MaxRemovalsBy: t.PolicyKey(reconcile.SettingMaxRemovals), OnLimitBy: t.PolicyKey(config.SettingOnLimit)}
	if maxRemovals != nil {
		out.MaxRemovals, out.MaxRemovalsBy = maxRemovals.Reconcile(), maxRemovalsFlag
	}
	return out
}
