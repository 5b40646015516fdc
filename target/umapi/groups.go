package umapi

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/orgsync/orgsync/target/umwire"
)

// GroupsPage is one page of the group listing.
type GroupsPage struct {
	PageInfo
	Groups []umwire.Group
}

// groupsBody is the body of a group listing page (see usersBody).
type groupsBody struct {
	umwire.GroupsPage
	LastPage *bool `json:"lastPage"`
}

// GroupsPageAt reads one page of the organization's user groups and
// product profiles (GET /groups/{orgId}/{page}); it counts as a read. The
// listing is outside the specification's endpoints: once the service has
// refused its first page (IsNotServed), the client answers every later
// call with that refusal without asking again.
func (c *Client) GroupsPageAt(ctx context.Context, page int) (*GroupsPage, error) {
	if refusal := c.groupsRefused.Load(); refusal != nil {
		return nil, refusal
	}
	p, err := c.groupsPage(ctx, page)
	var ae *APIError
	if page == 0 && IsNotServed(err) && errors.As(err, &ae) {
		c.groupsRefused.CompareAndSwap(nil, ae)
	}
	return p, err
}

// IsNotServed reports whether err is an answer by which a service says
// that it does not serve an endpoint: a 4xx other than 429 (404, but also
// 400 for a path it does not understand, 401, 403 or 405), or 501.
func IsNotServed(err error) bool {
	s := StatusOf(err)
	return s >= 400 && s < 500 && s != http.StatusTooManyRequests || s == http.StatusNotImplemented
}

// groupsPage reads one page of the group listing.
func (c *Client) groupsPage(ctx context.Context, page int) (*GroupsPage, error) {
	var body groupsBody
	cl := call{endpoint: EndpointGroups, class: limitRead, method: http.MethodGet,
		path: "/groups/" + c.orgPath + "/" + strconv.Itoa(page)}
	resp, err := c.getJSON(ctx, cl, &body)
	if err != nil {
		return nil, err
	}
	if err := resultError(cl.endpoint, resp, body.Result, body.Message); err != nil {
		return nil, err
	}
	return &GroupsPage{PageInfo: pageInfo(resp, page, body.LastPage), Groups: body.Groups}, nil
}
