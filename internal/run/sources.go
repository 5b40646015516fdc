package run

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/diag"
	"github.com/orgsync/orgsync/source/mapping"
)

// Sources is the merged desired state of all sources, read once a run.
type Sources struct {
	Users    reconcile.Users
	Problems []source.Problem    // bad records skipped, with where they are
	Notices  []source.Problem    // what the user may want to know (groups no rule maps)
	Held     map[string][]string // reconcile.Desired.Held: target groups kept this run, by user key
	Filtered []reconcile.User    // users the sources left out (source.Result.Filtered)
	Traces   []diag.Trace        // how the sources built the explained user
}

// maxNoticesLogged bounds the notices logged one by one (a file can name
// thousands of groups that no rule maps); the rest are counted.
const maxNoticesLogged = 20

// ReadSources reads every source of the configuration in order and merges
// them. A source that fails as a whole fails the read (after the others
// are read, so that every failure is reported at once): a run must never
// treat a missing source as "nobody should have access".
func (j *Job) ReadSources(ctx context.Context) (*Sources, error) {
	// With several sources, a mapping rule may name a group that only one
	// of them has: the sources report the groups they miss, and the run
	// checks across all of them (source.CheckGroups).
	srcs, err := j.openSources(source.Options{Mapper: j.mapper, Log: j.log.Named("source"), Explain: j.explain,
		CallerChecksGroups: j.sources > 1, ScopeGroups: j.scope.Groups})
	if err != nil {
		return nil, err
	}
	results := make([]source.NamedResult, 0, len(srcs))
	d := &Sources{}
	var failed []error
	for _, s := range srcs {
		r, err := s.Read(ctx)
		if err != nil { // the others are read all the same, so that every failure is reported at once
			failed = append(failed, fmt.Errorf("%s: %w", s.Name(), err))
			continue
		}
		j.log.Info("source read", zap.String("source", s.Name()), zap.Int("users", r.Users.Len()), zap.Int("problems", len(r.Problems)),
			zap.Int("leftOut", len(r.Filtered)))
		results = append(results, source.NamedResult{Name: s.Name(), Result: r})
		d.Notices = append(d.Notices, r.Notices...)
		d.Filtered = append(d.Filtered, r.Filtered...)
		d.Traces = append(d.Traces, r.Traces...)
	}
	if len(failed) > 0 {
		return nil, errors.Join(failed...)
	}
	accepted, err := source.CheckGroups(results)
	if err != nil {
		return nil, err
	}
	d.Users, d.Problems = source.Merge(results)
	d.Held = j.holdAccepted(accepted, results, j.mapper)
	return d, nil
}

// logProblems warns of each problem and of the first notices (validate,
// which prints them, does not).
func (j *Job) logProblems(d *Sources) {
	for _, p := range d.Problems {
		j.log.Warn("source problem: "+p.String(), zap.String("source", p.Source))
	}
	for i, n := range d.Notices {
		if i == maxNoticesLogged {
			j.log.Warn(fmt.Sprintf("source notice: and %d more", len(d.Notices)-i))
			break
		}
		j.log.Warn("source notice: "+n.String(), zap.String("source", n.Source))
	}
}

// holdAccepted warns of each mapped directory group that a source did not
// find but another source names, and holds its target groups for the users
// of the source that missed it: if the group was renamed in the directory,
// its members must not lose access.
func (j *Job) holdAccepted(accepted []source.AcceptedGroup, results []source.NamedResult, m *mapping.Mapper) map[string][]string {
	if len(accepted) == 0 {
		return nil
	}
	held := map[string][]string{}
	for _, a := range accepted {
		r := results[a.Result]
		targets := m.MapName(a.Group)
		j.log.Warn(fmt.Sprintf("%s: mapped directory group %q not found %s, but another source names it, so the run goes on; "+
			"the users of %s keep %q this run in case the group was renamed: map a group that only a file has with a pattern rule (pattern: %q)",
			r.Name, a.Group, a.Where, r.Name, targets, regexp.QuoteMeta(a.Group)))
		for i := range r.Result.Users.Len() {
			k := r.Result.Users.Key(i)
			held[k] = source.UnionGroups(held[k], targets)
		}
	}
	return held
}
