package umapi

import (
	"context"
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
// product profiles (GET /groups/{orgId}/{page}); it counts as a read.
func (c *Client) GroupsPageAt(ctx context.Context, page int) (*GroupsPage, error) {
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
