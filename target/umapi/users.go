package umapi

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"strconv"

	"github.com/orgsync/orgsync/target/umwire"
)

// PageInfo describes one page of a user listing. The header fields are -1
// when the service did not send the header.
type PageInfo struct {
	Page        int    // the page index requested
	CurrentPage int    // X-Current-Page: the page the service answered (0-based)
	TotalCount  int    // X-Total-Count: users matching the criteria
	PageCount   int    // X-Page-Count: pages for the criteria
	PageSize    int    // X-Page-Size: entries in this page
	LastPage    bool   // the body's lastPage
	RequestID   string // X-Request-Id of the answer
	// lastPageSent: the body carried lastPage (true or false).
	lastPageSent bool
}

// IsLast reports whether no page follows this one: the body's lastPage
// says so; or, when the body has no lastPage, X-Page-Count says that this
// page is the last. The specification calls X-Page-Count "max pages for
// the criteria", which a service may count as the last page's index: when
// lastPage says more follow, the page at index X-Page-Count is read too,
// and the listing ends there whatever it says.
func (p PageInfo) IsLast() bool {
	switch {
	case p.LastPage:
		return true
	case p.PageCount < 0:
		return false
	case !p.lastPageSent:
		return p.Page+1 >= p.PageCount
	}
	return p.Page >= p.PageCount
}

// usersBody is the body of a users page with lastPage told apart from
// its absence (the outer field hides the embedded one).
type usersBody struct {
	umwire.UsersPage
	LastPage *bool `json:"lastPage"`
}

// UsersPage is one decoded page of endpoint 1, 2 or 7.
type UsersPage struct {
	PageInfo
	GroupName string // endpoint 2 only
	Users     []umwire.User
}

// OrgUsersOptions are the query options of endpoint 1.
type OrgUsersOptions struct {
	// Domain restricts the listing to users of a trusted-linked domain.
	Domain string
	// IncludeIndirect sends directOnly=false: groups then include product
	// profiles reached through user groups.
	IncludeIndirect bool
}

// GroupUsersOptions are the query options of endpoint 2.
type GroupUsersOptions struct {
	// IncludeIndirect sends directOnly=false (see OrgUsersOptions).
	IncludeIndirect bool
	// Status, for product profiles: "active" or "inactive"; empty lists all.
	Status string
	// ExcludeGroups omits every user's groups from the answer.
	ExcludeGroups bool
}

// query returns the query parameters of endpoint 1.
func (o OrgUsersOptions) query() url.Values {
	q := url.Values{}
	if o.Domain != "" {
		q.Set("domain", o.Domain)
	}
	if o.IncludeIndirect {
		q.Set("directOnly", "false")
	}
	return q
}

// query returns the query parameters of endpoint 2.
func (o GroupUsersOptions) query() url.Values {
	q := url.Values{}
	if o.IncludeIndirect {
		q.Set("directOnly", "false")
	}
	if o.Status != "" {
		q.Set("status", o.Status)
	}
	if o.ExcludeGroups {
		q.Set("excludeGroups", "true")
	}
	return q
}

// OrgUsersPage reads one page of the organization's users (endpoint 1).
func (c *Client) OrgUsersPage(ctx context.Context, page int, o OrgUsersOptions) (*UsersPage, error) {
	return c.usersPage(ctx, page, call{
		endpoint: EndpointOrgUsers, class: limitRead, method: http.MethodGet,
		path: "/users/" + c.orgPath + "/" + strconv.Itoa(page), query: o.query(),
	})
}

// OrgUsers streams the organization's users page by page (endpoint 1), in
// page order. Once page 0 has given X-Page-Count, up to Config.ReadAhead
// pages are requested ahead (still paced by the rate limiters), so a slow
// answer does not leave the rate limit unused; at most ReadAhead+1 pages
// are held at once, never the whole organization. Stop early by breaking
// out of the loop. An error ends the sequence.
func (c *Client) OrgUsers(ctx context.Context, o OrgUsersOptions) iter.Seq2[*UsersPage, error] {
	return c.pages(ctx, func(ctx context.Context, page int) (*UsersPage, error) { return c.OrgUsersPage(ctx, page, o) })
}

// OrgUsersFrom continues a listing whose first page the caller read with
// OrgUsersPage (to choose a strategy from its headers, say): it hands over
// first, then reads the following pages as OrgUsers does, so no page is
// asked for twice.
func (c *Client) OrgUsersFrom(ctx context.Context, first *UsersPage, o OrgUsersOptions) iter.Seq2[*UsersPage, error] {
	return c.pagesFrom(ctx, first, func(ctx context.Context, page int) (*UsersPage, error) { return c.OrgUsersPage(ctx, page, o) })
}

// GroupUsersPage reads one page of the members of a user group, product
// profile or admin group (endpoint 2). A missing group is an *APIError
// with status 404 and code error.group.not_found.
func (c *Client) GroupUsersPage(ctx context.Context, group string, page int, o GroupUsersOptions) (*UsersPage, error) {
	return c.usersPage(ctx, page, call{
		endpoint: EndpointGroupUsers, class: limitRead, method: http.MethodGet,
		path:  "/users/" + c.orgPath + "/" + strconv.Itoa(page) + "/" + url.PathEscape(group),
		query: o.query(),
	})
}

// GroupUsers streams the members of a group page by page (endpoint 2).
func (c *Client) GroupUsers(ctx context.Context, group string, o GroupUsersOptions) iter.Seq2[*UsersPage, error] {
	return c.pages(ctx, func(ctx context.Context, page int) (*UsersPage, error) {
		return c.GroupUsersPage(ctx, group, page, o)
	})
}

// GroupUsersFrom continues a group listing from a page the caller read
// with GroupUsersPage, as OrgUsersFrom does.
func (c *Client) GroupUsersFrom(ctx context.Context, group string, first *UsersPage, o GroupUsersOptions) iter.Seq2[*UsersPage, error] {
	return c.pagesFrom(ctx, first, func(ctx context.Context, page int) (*UsersPage, error) {
		return c.GroupUsersPage(ctx, group, page, o)
	})
}

// AllUsersPage reads one page of the deprecated all-users endpoint
// (endpoint 7, GET /{orgId}/users?page=N); prefer OrgUsersPage.
func (c *Client) AllUsersPage(ctx context.Context, page int) (*UsersPage, error) {
	return c.usersPage(ctx, page, call{
		endpoint: EndpointAllUsers, class: limitApp, method: http.MethodGet,
		path: "/" + c.orgPath + "/users", query: url.Values{"page": {strconv.Itoa(page)}},
	})
}

// AllUsers streams the deprecated all-users endpoint page by page.
func (c *Client) AllUsers(ctx context.Context) iter.Seq2[*UsersPage, error] {
	return c.pages(ctx, func(ctx context.Context, page int) (*UsersPage, error) { return c.AllUsersPage(ctx, page) })
}

// usersPage sends a listing request and decodes the page as it streams in.
func (c *Client) usersPage(ctx context.Context, page int, cl call) (*UsersPage, error) {
	var body usersBody
	resp, err := c.getJSON(ctx, cl, &body)
	if err != nil {
		return nil, err
	}
	if err := resultError(cl.endpoint, resp, body.Result, body.Message); err != nil {
		return nil, err
	}
	return &UsersPage{PageInfo: pageInfo(resp, page, body.LastPage), GroupName: body.GroupName, Users: body.Users}, nil
}

// pageInfo reads the page headers of a listing's answer.
func pageInfo(resp *http.Response, page int, lastPage *bool) PageInfo {
	h := resp.Header
	return PageInfo{
		lastPageSent: lastPage != nil,
		Page:         page,
		CurrentPage:  headerInt(h, umwire.HeaderCurrentPage),
		TotalCount:   headerInt(h, umwire.HeaderTotalCount),
		PageCount:    headerInt(h, umwire.HeaderPageCount),
		PageSize:     headerInt(h, umwire.HeaderPageSize),
		LastPage:     lastPage != nil && *lastPage,
		RequestID:    requestIDOf(resp),
	}
}

// headerInt returns the integer value of header name, -1 when it is
// missing or not a number.
func headerInt(h http.Header, name string) int {
	n, err := strconv.Atoi(h.Get(name))
	if err != nil {
		return -1
	}
	return n
}
