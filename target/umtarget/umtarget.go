// Package umtarget connects the reconciler to the User Management Service:
// it implements reconcile.Reader (the current state, read through the
// organization listing or through the member listings of the policy's
// groups plus lookups of the desired users they do not show, whichever
// costs fewer requests) and reconcile.Sender (action requests and invite
// revokes) on top of a umapi client.
package umtarget

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"

	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umapi"
	"github.com/orgsync/orgsync/target/umwire"
)

// Client is what umtarget needs of *umapi.Client.
type Client interface {
	OrgUsersPage(ctx context.Context, page int, o umapi.OrgUsersOptions) (*umapi.UsersPage, error)
	OrgUsersFrom(ctx context.Context, first *umapi.UsersPage, o umapi.OrgUsersOptions) iter.Seq2[*umapi.UsersPage, error]
	GroupUsersPage(ctx context.Context, group string, page int, o umapi.GroupUsersOptions) (*umapi.UsersPage, error)
	GetUser(ctx context.Context, email, domain string) (*umwire.User, error)
	GroupsPageAt(ctx context.Context, page int) (*umapi.GroupsPage, error)
	Invites(ctx context.Context, q umapi.InviteQuery) iter.Seq2[[]umwire.Invite, error]
	Action(ctx context.Context, entries []umwire.Entry, o umapi.ActionOptions) (*umwire.ActionResponse, error)
	RevokeInvite(ctx context.Context, email string) error
}

// Target reads and changes one organization through a Client.
type Target struct {
	c Client
	// LastRead describes how the last ReadCurrent read the users.
	LastRead ReadReport
}

// ReadReport says how the current state was read and what it cost.
type ReadReport struct {
	ByGroup    bool // member listings of the ReadNeeds groups, not the organization listing
	OrgPages   int  // X-Page-Count of the organization listing
	GroupPages int  // sum of X-Page-Count of the group listings probed
	PagesRead  int  // listing pages requested in all (group listing included)
	// GroupListPages are the pages of the group listing read to learn
	// which groups exist.
	GroupListPages int
	Lookups        int // desired users read one by one (endpoint 3) in a read by group
	InviteBatches  int // invite listing calls (pending, then with the expired when needed); 0 when the invites could not change the plan
}

// New returns a Target over c.
func New(c Client) *Target { return &Target{c: c} }

// Send sends one request; testOnly adds ?testOnly=true. The failures are
// the entries the service reports failed; an error means the request as a
// whole failed (or may not have been applied). A request holding a step
// WireEntry cannot put on the wire is not sent at all.
func (t *Target) Send(ctx context.Context, req reconcile.Request, testOnly bool) ([]reconcile.EntryFailure, error) {
	entries := make([]umwire.Entry, len(req.Entries))
	for i := range req.Entries {
		w, err := WireEntry(&req.Entries[i])
		if err != nil {
			return nil, fmt.Errorf("request not sent: %w", err)
		}
		entries[i] = w
		entries[i].RequestID = strconv.Itoa(i)
	}
	resp, err := t.c.Action(ctx, entries, umapi.ActionOptions{TestOnly: testOnly})
	if err != nil {
		return nil, fmt.Errorf("action: %w", unanswered(err))
	}
	var out []reconcile.EntryFailure
	for _, e := range resp.Errors {
		idx := e.Index
		if n, err := strconv.Atoi(e.RequestID); err == nil {
			idx = n
		}
		if idx >= 0 && idx < len(req.Entries) && t.renamedBefore(ctx, &req.Entries[idx], e) {
			continue
		}
		out = append(out, reconcile.EntryFailure{Index: idx, Step: e.Step, Code: e.ErrorCode, Message: e.Message})
	}
	return out, nil
}

// renamedBefore reports whether a failure of entry e is the trace of an
// earlier attempt of the same request that was applied but whose answer
// was lost: the entry's update renames the user it is rooted at (its
// email, or the username of a Federated ID named by username), the retry
// found the old name gone (error.user.nonexistent at that step), and the
// user now has the new name and the memberships the entry's later steps
// add and remove. The check costs one lookup, made only for such a
// failure.
func (t *Target) renamedBefore(ctx context.Context, e *reconcile.Entry, f umwire.ActionError) bool {
	if f.ErrorCode != umwire.ErrUserNonexistent || e.User == nil || f.Step < 0 || f.Step >= len(e.Steps) {
		return false
	}
	s := &e.Steps[f.Step]
	if s.Kind != reconcile.StepUpdate || s.Set == nil {
		return false
	}
	name, domain := s.Set.Email, ""
	if root := rootOf(e.User, false); root.Domain != "" {
		name, domain = s.Set.Username, root.Domain
	}
	if name == nil {
		return false
	}
	u, err := t.c.GetUser(ctx, *name, domain)
	if err != nil {
		return false
	}
	for _, later := range e.Steps[f.Step+1:] {
		if later.Kind != reconcile.StepAdd && later.Kind != reconcile.StepRemove {
			return false
		}
		for _, g := range later.Groups {
			has := slices.ContainsFunc(u.Groups, func(h string) bool { return strings.EqualFold(g, h) })
			if has != (later.Kind == reconcile.StepAdd) {
				return false
			}
		}
	}
	return true
}

// RevokeInvite revokes the pending invite of email; the service's 404
// (no pending invite) wraps reconcile.ErrNoPendingInvite.
func (t *Target) RevokeInvite(ctx context.Context, email string) error {
	switch err := t.c.RevokeInvite(ctx, email); {
	case err == nil:
		return nil
	case umapi.IsNotFound(err):
		return fmt.Errorf("revoke invite: %w (%w)", reconcile.ErrNoPendingInvite, err)
	default:
		return fmt.Errorf("revoke invite: %w", unanswered(err))
	}
}

// unanswered marks err with reconcile.ErrUnanswered when the request was
// sent and no answer says what the service did (umapi.IsAmbiguous).
func unanswered(err error) error {
	if umapi.IsAmbiguous(err) {
		return fmt.Errorf("%w (%w)", reconcile.ErrUnanswered, err)
	}
	return err
}
