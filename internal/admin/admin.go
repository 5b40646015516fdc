// Package admin is what the administrator's commands (users, invites,
// products) ask of one organization of the service: its client, made as a
// run makes it, and the calls, every error carrying the configuration's
// keys to check (config.NamedTarget.Hint).
package admin

import (
	"context"
	"fmt"
	"iter"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umapi"
	"github.com/orgsync/orgsync/target/umwire"
)

// Org is one organization of the configuration, signed in on first use.
type Org struct {
	c *umapi.Client
	t *config.NamedTarget
	j *run.Job // its run's: the quarantine of its pending approvals
}

// Open returns organization name of cfg (the primary when name is
// empty; flag is the option that named it, for the error).
func Open(cfg *config.Config, log *zap.Logger, flag, name string) (*Org, error) {
	t, err := run.Target(cfg, flag, name)
	if err != nil {
		return nil, err
	}
	o := &Org{t: t}
	if o.j, err = run.New(cfg, run.Overrides{}, run.Options{Log: log}); err != nil {
		return nil, run.InPhase(run.PhaseConfig, o.hint(err))
	}
	if o.c, err = o.j.Client(t); err != nil {
		return nil, run.InPhase(run.PhaseSecret, o.hint(err))
	}
	return o, nil
}

// Target is the organization's target in the configuration.
func (o *Org) Target() *config.NamedTarget { return o.t }

// hint adds the configuration's keys to check to err.
func (o *Org) hint(err error) error {
	if err == nil {
		return nil
	}
	return o.t.Hint(err)
}

// User looks up one user (domain: the user's domain, for independent IDs).
func (o *Org) User(ctx context.Context, email, domain string) (*umwire.User, error) {
	u, err := o.c.GetUser(ctx, email, domain)
	if umapi.IsNotFound(err) {
		return nil, fmt.Errorf("no user %s in the organization %s (a Federated ID known by a username: give the username and --domain)", email, o.t.OrgID)
	}
	return u, o.hint(err)
}

// Users lists the organization's users, or the members of group (a user
// group, product profile or admin group) when it is set.
func (o *Org) Users(ctx context.Context, group string) ([]umwire.User, error) {
	pages := o.c.OrgUsers(ctx, umapi.OrgUsersOptions{})
	if group != "" {
		pages = o.c.GroupUsers(ctx, group, umapi.GroupUsersOptions{})
	}
	users, err := collect(pages, func(p *umapi.UsersPage) []umwire.User { return p.Users }, o.hint)
	if group != "" && umapi.IsNotFound(err) {
		return nil, fmt.Errorf("no group %q in the organization %s: give a user group, product profile or admin group as the organization names it (orgsync users list shows each user's groups)", group, o.t.OrgID)
	}
	return users, err
}

// Invites lists the pending invites, without the expired ones when
// excludeExpired is set.
func (o *Org) Invites(ctx context.Context, excludeExpired bool) ([]umwire.Invite, error) {
	return collect(o.c.Invites(ctx, umapi.InviteQuery{ExcludeExpired: excludeExpired}),
		func(b []umwire.Invite) []umwire.Invite { return b }, o.hint)
}

// inviteActions are the actions on an invite, with what is said once done.
var inviteActions = map[string]string{"resend": "resent", "revoke": "revoked"}

// Invite resends or revokes (action, one of inviteActions) the invite of
// email and returns what was done. Its errors are marked with their
// phase (run.InPhase): the gate's when a pending approval holds the
// revoke, sign-in or apply.
func (o *Org) Invite(ctx context.Context, action, email string) (string, error) {
	done, ok := inviteActions[action]
	if !ok {
		return "", fmt.Errorf("unknown invite action %q", action)
	}
	act := o.c.ResendInvite
	if action == "revoke" {
		if err := o.notHeld(email); err != nil {
			return "", run.InPhase(run.PhaseGate, err)
		}
		act = o.c.RevokeInvite
	}
	if err := act(ctx, email); err != nil {
		if umapi.IsNotFound(err) {
			err = fmt.Errorf("%w; an expired invite is not pending and a service may refuse to %s it: `orgsync sync` invites a user of a source again", err, action)
		}
		return "", run.InPhase(run.ServicePhase(err, run.PhaseApply), o.hint(err))
	}
	return done, nil
}

// notHeld fails when a pending approval holds the revoke of email's
// invite: a revoke held for approval is decided by approving or rejecting
// it, not sent around it.
func (o *Org) notHeld(email string) error {
	c := reconcile.Change{Kind: reconcile.KindRevokeInvite, User: reconcile.User{Type: reconcile.VendorID, Email: email}}
	a, err := o.j.Holding(o.t, c)
	switch {
	case err != nil:
		return fmt.Errorf("not revoked: %w", err)
	case a != nil:
		return fmt.Errorf("not revoked: approval %s holds the revoke of %s's invite (%s): orgsync approve %[1]s applies it, orgsync reject %[1]s discards it",
			a.ID, email, a.Reason)
	}
	return nil
}

// Products lists the organization's products.
func (o *Org) Products(ctx context.Context) ([]umwire.Product, error) {
	p, err := o.c.Products(ctx)
	return p, o.hint(err)
}

// collect gathers the items of every page, stopping at the first error.
func collect[P, T any](pages iter.Seq2[P, error], items func(P) []T, hint func(error) error) ([]T, error) {
	var out []T
	for p, err := range pages {
		if err != nil {
			return nil, hint(err)
		}
		out = append(out, items(p)...)
	}
	return out, nil
}
