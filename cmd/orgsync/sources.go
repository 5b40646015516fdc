package main

import (
	"context"
	"fmt"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/mapping"
)

// desired is the merged desired state of all sources.
type desired struct {
	users    []reconcile.User
	problems []source.Problem
	notices  []source.Problem
}

// maxNoticesLogged bounds the notices logged one by one (a file can name
// thousands of groups that no rule maps); the rest are counted.
const maxNoticesLogged = 20

// groupChecker is a source (LDAP) that checks that the groups of exact
// mapping rules exist, and can leave that check to the run.
type groupChecker interface{ CallerChecksGroups() }

// leaveGroupChecksToRun makes the sources that check groups report the
// missing ones instead of failing: with several sources, a rule may name a
// group that only one of them has, and the run checks across all of them.
func leaveGroupChecksToRun(srcs []source.Source) {
	for _, s := range srcs {
		if gc, ok := s.(groupChecker); ok {
			gc.CallerChecksGroups()
		}
	}
}

// readSources reads every source of the configuration in order and merges
// them. A source that fails as a whole fails the read: a run must never
// treat a missing source as "nobody should have access".
func (e *env) readSources(ctx context.Context, m *mapping.Mapper) (*desired, error) {
	srcs, err := e.cfg.OpenSources(m, e.log.Named("source"))
	if err != nil {
		return nil, err
	}
	if len(srcs) > 1 {
		leaveGroupChecksToRun(srcs)
	}
	results := make([]source.NamedResult, 0, len(srcs))
	var notices []source.Problem
	for _, s := range srcs {
		r, err := s.Read(ctx)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Name(), err)
		}
		e.log.Info("source read", zap.String("source", s.Name()), zap.Int("users", len(r.Users)), zap.Int("problems", len(r.Problems)))
		results = append(results, source.NamedResult{Name: s.Name(), Result: r})
		notices = append(notices, r.Notices...)
	}
	if err := source.CheckGroups(results); err != nil {
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
	return &desired{users: users, problems: problems, notices: notices}, nil
}
