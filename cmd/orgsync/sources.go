package main

import (
	"context"
	"fmt"
	"regexp"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/diag"
	"github.com/orgsync/orgsync/source/mapping"
)

// desired is the merged desired state of all sources.
type desired struct {
	users    []reconcile.User
	problems []source.Problem
	notices  []source.Problem
	held     map[string][]string // reconcile.Desired.Held
	filtered []reconcile.User    // users the sources left out (source.Result.Filtered)
	traces   []diag.Trace        // how the sources built the explained user
}

// maxNoticesLogged bounds the notices logged one by one (a file can name
// thousands of groups that no rule maps); the rest are counted.
const maxNoticesLogged = 20

// readSources reads every source of the configuration in order and merges
// them. A source that fails as a whole fails the read: a run must never
// treat a missing source as "nobody should have access".
func (e *env) readSources(ctx context.Context, m *mapping.Mapper) (*desired, error) {
	// With several sources, a mapping rule may name a group that only one
	// of them has: the sources report the groups they miss, and the run
	// checks across all of them (source.CheckGroups).
	srcs, err := e.cfg.OpenSources(source.Options{Mapper: m, Log: e.log.Named("source"), Explain: e.explain,
		CallerChecksGroups: len(e.cfg.Sources) > 1})
	if err != nil {
		return nil, err
	}
	results := make([]source.NamedResult, 0, len(srcs))
	var notices []source.Problem
	d := &desired{}
	for _, s := range srcs {
		r, err := s.Read(ctx)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Name(), err)
		}
		e.log.Info("source read", zap.String("source", s.Name()), zap.Int("users", len(r.Users)), zap.Int("problems", len(r.Problems)),
			zap.Int("leftOut", len(r.Filtered)))
		results = append(results, source.NamedResult{Name: s.Name(), Result: r})
		notices = append(notices, r.Notices...)
		d.filtered = append(d.filtered, r.Filtered...)
		d.traces = append(d.traces, r.Traces...)
	}
	accepted, err := source.CheckGroups(results)
	if err != nil {
		return nil, err
	}
	users, problems := source.Merge(results)
	for _, p := range problems {
		e.log.Warn("source problem: "+p.String(), zap.String("source", p.Source))
	}
	for i, n := range notices {
		if i == maxNoticesLogged {
			e.log.Warn(fmt.Sprintf("source notice: and %d more", len(notices)-i))
			break
		}
		e.log.Warn("source notice: "+n.String(), zap.String("source", n.Source))
	}
	d.users, d.problems, d.notices = users, problems, notices
	d.held = e.holdAccepted(accepted, results, m)
	return d, nil
}

// holdAccepted warns of each mapped directory group that a source did not
// find but another source names, and holds its target groups for the users
// of the source that missed it: if the group was renamed in the directory,
// its members must not lose access.
func (e *env) holdAccepted(accepted []source.AcceptedGroup, results []source.NamedResult, m *mapping.Mapper) map[string][]string {
	if len(accepted) == 0 {
		return nil
	}
	held := map[string][]string{}
	for _, a := range accepted {
		r := results[a.Result]
		targets := m.MapName(a.Group)
		e.log.Warn(fmt.Sprintf("%s: mapped directory group %q not found %s, but another source names it, so the run goes on; "+
			"the users of %s keep %q this run in case the group was renamed: map a group that only a file has with a pattern rule (pattern: %q)",
			r.Name, a.Group, a.Where, r.Name, targets, regexp.QuoteMeta(a.Group)))
		for i := range r.Result.Users {
			k := r.Result.Users[i].Key()
			held[k] = source.UnionGroups(held[k], targets)
		}
	}
	return held
}
