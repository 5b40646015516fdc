// Package approval decides what a tripped safety limit holds for
// approval, and what a held change still is against a fresh plan: a
// pending approval is a quarantine (no run sends what it holds), a later
// run drops from it what it no longer wants, and orgsync approve applies
// only what a fresh plan still wants.
package approval

import (
	"strings"

	"github.com/orgsync/orgsync/reconcile"
)

// LimitTripped reports whether a safety limit (maxRemovals, maxChanges)
// withheld the plan's destructive changes. Changes withheld because the
// sources failed or reported problems are not for approval: approving
// them would remove users on the word of a broken source.
func LimitTripped(p *reconcile.Plan) bool {
	return p.Safety != nil && p.Safety.LimitName != ""
}

// SourcesIncomplete reports whether the plan withheld its destructive
// changes because the sources were empty or reported problems.
func SourcesIncomplete(p *reconcile.Plan) bool {
	return p.Safety != nil && p.Safety.LimitName == ""
}

// wanted indexes the destructive parts of a plan: for each change kind
// and key, the groups removed (lower case) of an update, or an empty set
// for a change that is destructive as a whole.
type wanted map[string]map[string]bool

func index(key string, c *reconcile.Change) string { return string(c.Kind) + "\x00" + key }

// add records the destructive part of each change.
func (w wanted) add(changes []reconcile.Change) {
	for i := range changes {
		c := &changes[i]
		if !c.Destructive() {
			continue
		}
		k := index(c.Key(), c)
		if w[k] == nil {
			w[k] = map[string]bool{}
		}
		for _, g := range c.Remove {
			w[k][strings.ToLower(g)] = true
		}
	}
}

// destructiveOf indexes what plan p still wants to take away: the
// destructive parts of its changes and its withheld changes.
func destructiveOf(p *reconcile.Plan) wanted {
	w := wanted{}
	w.add(p.Changes)
	w.add(p.Withheld)
	return w
}

// keep returns the part of c that w holds, and whether there is any.
func (w wanted) keep(c reconcile.Change) (reconcile.Change, bool) {
	groups, ok := w[index(c.Key(), &c)]
	if !ok {
		return c, false
	}
	if c.Kind.Info().TakesAway {
		return c, true
	}
	var kept []string
	for _, g := range c.Remove {
		if groups[strings.ToLower(g)] {
			kept = append(kept, g)
		}
	}
	c.Remove, c.Set, c.Add = kept, nil, nil
	return c, len(kept) > 0
}

// Narrow splits held into the changes a fresh plan still wants and those
// it does not any more. A removal, deletion or revoked invite is still
// wanted when fresh plans it (applied or withheld); of a membership
// removal, the groups fresh still removes.
func Narrow(held []reconcile.Change, fresh *reconcile.Plan) (kept, dropped []reconcile.Change) {
	w := destructiveOf(fresh)
	for _, c := range held {
		k, ok := w.keep(c)
		if !ok {
			dropped = append(dropped, c)
			continue
		}
		kept = append(kept, k)
		if d, rest := minus(c, k); rest {
			dropped = append(dropped, d)
		}
	}
	return kept, dropped
}

// minus is what of c is not in k, a part of c, and whether there is any.
func minus(c, k reconcile.Change) (reconcile.Change, bool) {
	if c.Kind.Info().TakesAway {
		return c, false
	}
	have := foldSet(k.Remove)
	var rest []string
	for _, g := range c.Remove {
		if !have[strings.ToLower(g)] {
			rest = append(rest, g)
		}
	}
	c.Remove = rest
	return c, len(rest) > 0
}

// Quarantine splits changes into what may be sent and what the pending
// approvals hold: the held part of a change (a removal, or the held groups
// of a membership removal) is quarantined, the rest of it may be sent.
func Quarantine(changes []reconcile.Change, pending ...[]reconcile.Change) (send, quarantined []reconcile.Change) {
	w := wanted{}
	for _, held := range pending {
		w.add(held)
	}
	for _, c := range changes {
		k, ok := w.keep(c)
		if !c.Destructive() || !ok {
			send = append(send, c)
			continue
		}
		quarantined = append(quarantined, k)
		if rest, left := minus(c, k); left || (!c.Kind.Info().TakesAway && (c.Set != nil || len(c.Add) > 0)) {
			send = append(send, rest)
		}
	}
	return send, quarantined
}

// Count is the number of destructive changes of changes.
func Count(changes []reconcile.Change) int {
	n := 0
	for i := range changes {
		if changes[i].Destructive() {
			n++
		}
	}
	return n
}

// Uncovered returns the changes of withheld that none of the pending
// approvals holds yet: what a new approval is to hold.
func Uncovered(withheld []reconcile.Change, pending ...[]reconcile.Change) []reconcile.Change {
	var out []reconcile.Change
	for _, c := range withheld {
		rest, left := c, true
		for _, held := range pending {
			w := wanted{}
			w.add(held)
			k, ok := w.keep(rest)
			if !ok {
				continue
			}
			if rest, left = minus(rest, k); !left {
				break
			}
		}
		if left {
			out = append(out, rest)
		}
	}
	return out
}

// foldSet is the set of the lower-cased names.
func foldSet(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[strings.ToLower(n)] = true
	}
	return m
}
