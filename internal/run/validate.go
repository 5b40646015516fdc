package run

import (
	"context"
	"fmt"
	"strings"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/internal/util/logs"
	"github.com/orgsync/orgsync/internal/util/plural"
	"github.com/orgsync/orgsync/reconcile"
)

// MissingGroup is a target group an organization does not have.
type MissingGroup struct {
	Name string
	// Created is set when sync creates it (policy.createUserGroups, and
	// not an admin group or product profile, whose names start with "_").
	Created bool
}

// MissingGroups signs in to organization t and returns the target groups
// the users (t's part of the sources) are to be in that t does not have.
func (j *Job) MissingGroups(ctx context.Context, t *config.NamedTarget, users reconcile.Users) ([]MissingGroup, error) {
	c, err := j.Client(t)
	if err != nil {
		return nil, err
	}
	needs := j.runPolicy(t, &users).ReadNeedsFor(&users)
	names, err := newTarget(c).MissingGroups(ctx, needs.CheckGroups)
	if err != nil {
		return nil, t.Hint(err)
	}
	create := j.byOrg[t.Name].createsGroups
	out := make([]MissingGroup, len(names))
	for i, g := range names {
		out[i] = MissingGroup{Name: g, Created: create && !strings.HasPrefix(g, "_")}
	}
	return out, nil
}

// Validation is what `orgsync validate` found, as the lines to show in
// order ("problem: ...", "notice: ...", and what was checked), with the
// counts of its summary.
type Validation struct {
	Lines    []string
	Problems int
	Notices  int
	file     string
	users    int // desired users
	leftOut  int // left out by a filter or the scope
	sources  int
}

// problem adds a problem line.
func (v *Validation) problem(format string, args ...any) {
	v.Lines = append(v.Lines, "problem: "+fmt.Sprintf(format, args...))
	v.Problems++
}

// problemOf adds err as a problem line, then the detail it has for this
// machine only (logs.DetailOf: what a failing secret command wrote on
// standard error), which no record or notification gets.
func (v *Validation) problemOf(err error) {
	v.problem("%v", err)
	if d := logs.DetailOf(err); d != "" {
		v.Lines = append(v.Lines, "  "+d)
	}
}

// notice adds a notice line.
func (v *Validation) notice(format string, args ...any) {
	v.Lines = append(v.Lines, "notice: "+fmt.Sprintf(format, args...))
	v.Notices++
}

// Validate checks the configuration and reads the sources, collecting
// every problem; with checkTarget it also signs in to each organization,
// reads one page of users and checks that the target groups the sources'
// users are mapped to exist. The error is what stopped the check; the
// lines found until then are kept.
func (j *Job) Validate(ctx context.Context, checkTarget bool) (*Validation, error) {
	v := &Validation{file: j.file, sources: j.sources}
	for _, err := range j.preflight() {
		v.problemOf(err)
	}
	if dir := j.stateDir; dir != "" {
		if err := store.Check(dir); err != nil {
			v.problem("state.dir %s: %v: no run could be recorded, nor changes held for approval", dir, err)
		}
	}
	d, err := j.checkSources(ctx, v)
	if err != nil {
		return v, err
	}
	parts := j.Split(d)
	if j.multiOrg {
		for _, t := range j.orgs {
			v.Lines = append(v.Lines, fmt.Sprintf("organization %s (%s): %d desired user(s)", t.Name, t.OrgID, parts[t.Name].Users.Len()))
		}
	}
	if checkTarget {
		for _, t := range j.orgs {
			j.checkTarget(ctx, v, t, parts[t.Name].Users)
		}
	}
	return v, nil
}

// ValidateUnloaded is Validate for a configuration that does not load
// (cerr) when its problems leave the sources, the mapping and the scope
// alone (config.Error.SalvageSources): a target not yet filled in. It
// reads the sources and collects their problems, counting the
// configuration's own in the summary; nil when the problems concern the
// sources.
func ValidateUnloaded(ctx context.Context, cerr *config.Error, log *zap.Logger) (*Validation, error) {
	cfg := cerr.SalvageSources()
	if cfg == nil {
		return nil, nil
	}
	j, err := New(cfg, Overrides{}, Options{Log: log})
	if err != nil {
		return nil, err
	}
	v := &Validation{file: cfg.File, sources: len(cfg.Sources), Problems: len(cerr.Problems)}
	_, err = j.checkSources(ctx, v)
	return v, err
}

// checkSources reads the sources and adds their problems and notices to
// v, with the bad lines of scope.usersFile; it returns what they gave (no
// user when a source failed).
func (j *Job) checkSources(ctx context.Context, v *Validation) (*Sources, error) {
	d, err := j.ReadSources(ctx)
	if err != nil { // every source that failed, one problem each
		for _, err := range unjoin(err) {
			v.problemOf(err)
		}
		d = &Sources{}
	}
	if f := j.scope.UsersFile; f != "" {
		uf, err := config.ReadUsersFile(f) // readable: Load checked it
		if err != nil {
			return nil, fmt.Errorf("scope.usersFile: %w", err)
		}
		d.Problems = append(d.Problems, uf.Problems...)
	}
	for _, p := range d.Problems {
		v.problem("%s", p)
	}
	for _, n := range d.Notices {
		v.notice("%s", n)
	}
	v.users, v.leftOut = d.Users.Len(), len(d.Filtered)
	return d, nil
}

// checkTarget signs in to organization t and adds a line for each target
// group the users are to be in that t does not have: a notice for one
// that sync creates, otherwise a problem saying what to do. A failure is a
// problem too; the other organizations are checked all the same.
func (j *Job) checkTarget(ctx context.Context, v *Validation, t *config.NamedTarget, users reconcile.Users) {
	missing, err := j.MissingGroups(ctx, t, users)
	if err != nil {
		v.problemOf(fmt.Errorf("%s: %w", t.Path(), err))
		return
	}
	v.Lines = append(v.Lines, t.Path()+": signed in and read the first page of users")
	where := "the organization"
	if j.multiOrg {
		where = "organization " + t.Name
	}
	for _, g := range missing {
		if g.Created {
			v.notice("target group %q does not exist in %s yet: sync creates it as a user group (%s)", g.Name, where, t.PolicyKey(reconcile.SettingCreateUserGroups))
		} else {
			v.problem("target group %q does not exist in %s: %s", g.Name, where, reconcile.MissingGroup{Name: g.Name}.Hint(t.PolicyKey))
		}
	}
}

// Summary is the validation's last line: the verdict and what was read.
func (v *Validation) Summary() string {
	leftOut := ""
	if v.leftOut > 0 {
		leftOut = fmt.Sprintf(" (%d more left out by a filter or the scope)", v.leftOut)
	}
	verdict := "configuration valid"
	if v.Problems > 0 {
		verdict = plural.Of(v.Problems, "problem", "problems") + " to fix"
	}
	return fmt.Sprintf("%s: %s; %s%s from %s; %s", v.file, verdict, plural.Of(v.users, "desired user", "desired users"), leftOut,
		plural.Of(v.sources, "source", "sources"), plural.Of(v.Notices, "notice", "notices"))
}

// unjoin returns the errors errors.Join joined, or err alone.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
