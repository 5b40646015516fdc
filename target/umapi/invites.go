package umapi

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"strconv"

	"github.com/orgsync/orgsync/target/umwire"
)

// InviteQuery holds the query options of the invite listings (deprecated
// API). Zero values take the service's defaults: expired invites
// included, sorted by LAST_SENT_DTS, DESC.
type InviteQuery struct {
	ExcludeExpired bool   // sends includeExpired=false
	SortColumn     string // umwire.SortEmail or umwire.SortLastSent
	SortOrder      string // umwire.SortAsc or umwire.SortDesc
}

// values returns the query parameters of q (none for the defaults).
func (q InviteQuery) values() url.Values {
	v := url.Values{}
	if q.ExcludeExpired {
		v.Set("includeExpired", "false")
	}
	if q.SortColumn != "" {
		v.Set("sortColumn", q.SortColumn)
	}
	if q.SortOrder != "" {
		v.Set("sortOrder", q.SortOrder)
	}
	return v
}

// InvitesFrom reads one call's worth of pending invites starting at entry
// start (0-based). No pending invites (the service's 404) is an empty list.
func (c *Client) InvitesFrom(ctx context.Context, start int, q InviteQuery) ([]umwire.Invite, error) {
	v := q.values()
	v.Set("page", strconv.Itoa(start))
	return c.inviteList(ctx, call{
		endpoint: EndpointInvites, class: limitApp, method: http.MethodGet,
		path: "/" + c.orgPath + "/invites/", query: v,
	})
}

// Invites streams the organization's pending invites, one call's batch at
// a time, until a call answers fewer than Config.InvitesPerCall (200) or
// none.
func (c *Client) Invites(ctx context.Context, q InviteQuery) iter.Seq2[[]umwire.Invite, error] {
	return entryPages(c, func(start int) ([]umwire.Invite, error) { return c.InvitesFrom(ctx, start, q) },
		func(in umwire.Invite) string { return in.Email + "\x00" + in.InviteCode }, c.cfg.InvitesPerCall)
}

// UserInvites reads the pending invites of one user (full email). None is
// an empty list.
func (c *Client) UserInvites(ctx context.Context, email string, q InviteQuery) ([]umwire.Invite, error) {
	return c.inviteList(ctx, call{
		endpoint: EndpointUserInvites, class: limitApp, method: http.MethodGet,
		path: "/organizations/" + c.orgPath + "/invites/" + url.PathEscape(email), query: q.values(),
	})
}

// ResendInvite sends a user's pending invite again. No pending invite is an
// *APIError with status 404 (IsNotFound). A retry after an ambiguous
// failure at worst sends the email twice.
func (c *Client) ResendInvite(ctx context.Context, email string) error {
	return c.inviteStatus(ctx, EndpointResendInvite, http.MethodPost, email)
}

// RevokeInvite revokes a user's pending invite. No pending invite is an
// *APIError with status 404 (IsNotFound): when a retry follows an
// ambiguous failure, that 404 means the first attempt revoked it.
func (c *Client) RevokeInvite(ctx context.Context, email string) error {
	return c.inviteStatus(ctx, EndpointRevokeInvite, http.MethodDelete, email)
}

// inviteList reads a list of invites; the service's 404 is no invites.
func (c *Client) inviteList(ctx context.Context, cl call) ([]umwire.Invite, error) {
	var out []umwire.Invite
	if _, err := c.getJSON(ctx, cl, &out); err != nil {
		if IsNotFound(err) {
			return nil, nil
		}
		return nil, err
	}
	return out, nil
}

// inviteStatus sends a resend or revoke and checks the status answered.
func (c *Client) inviteStatus(ctx context.Context, endpoint, method, email string) error {
	cl := call{endpoint: endpoint, class: limitApp, method: method,
		path: "/" + c.orgPath + "/invites/" + url.PathEscape(email)}
	var st umwire.InviteStatus
	resp, err := c.getJSON(ctx, cl, &st)
	if err != nil {
		return err
	}
	return resultError(endpoint, resp, st.Status, "")
}

// entryPages streams a listing whose page parameter is the first entry's
// index: it asks again from start+len(batch) until a batch is empty or
// shorter than full (when full > 0), and stops (logging it) when the
// service answers a batch that begins like the previous one, i.e. ignores
// the start.
func entryPages[T any](c *Client, read func(start int) ([]T, error), key func(T) string, full int) iter.Seq2[[]T, error] {
	return func(yield func([]T, error) bool) {
		prevFirst := ""
		for start := 0; ; {
			batch, err := read(start)
			if err != nil {
				yield(nil, err)
				return
			}
			if len(batch) == 0 {
				return
			}
			first := key(batch[0])
			if start > 0 && first == prevFirst {
				c.stats.pageRepeated()
				c.log.Warn("the service answered a batch already read; listing ends here")
				return
			}
			if !yield(batch, nil) || len(batch) < full {
				return
			}
			prevFirst, start = first, start+len(batch)
		}
	}
}
