package run

import (
	"context"
	"strings"

	"github.com/orgsync/orgsync/config"
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
func (j *Job) MissingGroups(ctx context.Context, t *config.NamedTarget, users []reconcile.User) ([]MissingGroup, error) {
	c, err := j.Client(t)
	if err != nil {
		return nil, err
	}
	needs := j.runPolicy(t, users).ReadNeedsFor(users)
	names, err := newTarget(c).MissingGroups(ctx, needs.CheckGroups)
	if err != nil {
		return nil, WithSettingHint(err, t)
	}
	create := j.cfg.PolicyOf(t).CreateUserGroups
	out := make([]MissingGroup, len(names))
	for i, g := range names {
		out[i] = MissingGroup{Name: g, Created: create && !strings.HasPrefix(g, "_")}
	}
	return out, nil
}
