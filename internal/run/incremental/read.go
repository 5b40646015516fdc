package incremental

import (
	"context"
	"slices"
	"strings"

	"github.com/orgsync/orgsync/internal/store/snapshot"
	"github.com/orgsync/orgsync/reconcile"
)

// GroupChecker tells which groups do not exist, reading no user (the
// group listing, or a probe of a group's members).
type GroupChecker interface {
	CheckGroups(ctx context.Context, groups []string) (missing []string, err error)
}

// Read gives the run its current state. A full run reads it through full
// and keeps it as the next snapshot's start. An incremental run answers
// from the snapshot, reading nothing but, through groups, whether the
// groups of need.CheckGroups that the snapshot does not know exist.
// The users returned are the snapshot's own, which the run's Sending
// updates in place once the plan is sent: the caller must not keep them.
func (r *Run) Read(ctx context.Context, full reconcile.Reader, groups GroupChecker) (*reconcile.Current, error) {
	if r.kind == Full {
		return r.readFull(ctx, full)
	}
	s := r.snap
	cur := &reconcile.Current{Users: s.Users, ByGroup: s.ByGroup, Invites: s.Invites}
	if unknown := unknownGroups(r.need.CheckGroups, s.Groups); len(unknown) > 0 {
		missing, err := groups.CheckGroups(ctx, unknown)
		if err != nil {
			return nil, err
		}
		cur.Missing = missing
		s.Groups = append(s.Groups, without(unknown, missing)...)
	}
	return cur, nil
}

// Switch is the run that follows r once an answer to its sending
// contradicted the snapshot it planned from (c): it reads the whole
// organization, for the same needs, and says why. r's Sending is to be
// finished first (it records the doubt and releases the snapshot); the
// new run's own Sending records what it sends from its full read.
func (r *Run) Switch(c *Contradiction) *Run {
	out := &Run{s: r.s, need: r.need, kind: Full, reason: "switched to a full read: " + c.String()}
	out.stamp, _ = r.s.Store.Stamp(r.s.Org)
	return out
}

// readFull reads the whole organization (or, when cheaper and the policy
// allows, its managed groups' members) through full, and keeps what it
// read as the next snapshot.
func (r *Run) readFull(ctx context.Context, full reconcile.Reader) (*reconcile.Current, error) {
	start := r.s.Clock()
	cur, err := full.ReadCurrent(ctx, r.need)
	if err != nil {
		return nil, err
	}
	r.snap = &snapshot.Snapshot{Fingerprint: r.s.Fingerprint, Org: r.s.OrgID, FullRead: start.UTC(),
		ByGroup: cur.ByGroup, InvitesKnown: r.need.RevokeInvites || !r.need.DesiredKnown,
		Users: cur.Users, Invites: cur.Invites, Groups: without(r.need.CheckGroups, cur.Missing)}
	if cur.ByGroup {
		r.snap.ReadGroups = slices.Clone(r.need.Groups)
	}
	return cur, nil
}

// unknownGroups are the groups of check that known does not name (letter
// case aside).
func unknownGroups(check, known []string) []string {
	if len(check) == 0 {
		return nil
	}
	set := make(map[string]bool, len(known))
	for _, g := range known {
		set[strings.ToLower(g)] = true
	}
	var out []string
	for _, g := range check {
		if !set[strings.ToLower(g)] {
			out = append(out, g)
		}
	}
	return out
}

// without is list without the names of drop (letter case aside).
func without(list, drop []string) []string {
	var out []string
	for _, g := range list {
		if !slices.ContainsFunc(drop, func(d string) bool { return strings.EqualFold(d, g) }) {
			out = append(out, g)
		}
	}
	return out
}
