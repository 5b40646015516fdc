package umapi

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"strconv"

	"go.uber.org/zap"

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

// OrgUsers streams the organization's users page by page (endpoint 1).
// Only the page being handed over is held; stop early by breaking out of
// the loop. An error ends the sequence.
func (c *Client) OrgUsers(ctx context.Context, o OrgUsersOptions) iter.Seq2[*UsersPage, error] {
	return c.pages(func(page int) (*UsersPage, error) { return c.OrgUsersPage(ctx, page, o) })
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
	return c.pages(func(page int) (*UsersPage, error) { return c.GroupUsersPage(ctx, group, page, o) })
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
	return c.pages(func(page int) (*UsersPage, error) { return c.AllUsersPage(ctx, page) })
}

// usersPage sends a listing request and decodes the page as it streams in.
func (c *Client) usersPage(ctx context.Context, page int, cl call) (*UsersPage, error) {
	var body umwire.UsersPage
	resp, err := c.getJSON(ctx, cl, &body)
	if err != nil {
		return nil, err
	}
	if err := resultError(cl.endpoint, resp, body.Result, body.Message); err != nil {
		return nil, err
	}
	h := resp.Header
	return &UsersPage{
		PageInfo: PageInfo{
			Page:        page,
			CurrentPage: headerInt(h, umwire.HeaderCurrentPage),
			TotalCount:  headerInt(h, umwire.HeaderTotalCount),
			PageCount:   headerInt(h, umwire.HeaderPageCount),
			PageSize:    headerInt(h, umwire.HeaderPageSize),
			LastPage:    body.LastPage,
			RequestID:   requestIDOf(resp),
		},
		GroupName: body.GroupName,
		Users:     body.Users,
	}, nil
}

func headerInt(h http.Header, name string) int {
	n, err := strconv.Atoi(h.Get(name))
	if err != nil {
		return -1
	}
	return n
}

// pages turns a page reader into a sequence. It stops after the page that
// says lastPage, after page X-Page-Count-1, and, without handing it over,
// at a page the service already answered: one whose X-Current-Page is
// below the index asked for or equal to the previous page's, or (without
// that header) whose first user is the previous page's first user. A
// server that keeps answering its last page therefore cannot make the
// listing loop.
func (c *Client) pages(read func(page int) (*UsersPage, error)) iter.Seq2[*UsersPage, error] {
	return func(yield func(*UsersPage, error) bool) {
		var prev pageMark
		for page := 0; ; page++ {
			p, err := read(page)
			if err != nil {
				yield(nil, err)
				return
			}
			mark := markOf(p)
			if page > 0 && mark.repeats(prev) {
				c.stats.pageRepeated()
				c.log.Warn("umapi: the service answered a page already read; listing ends here",
					zap.Int("page", page), zap.Int("currentPage", p.CurrentPage),
					zap.Int("pageCount", p.PageCount), zap.String("requestID", p.RequestID))
				return
			}
			if !yield(p, nil) || p.LastPage || (p.PageCount >= 0 && page+1 >= p.PageCount) {
				return
			}
			prev = mark
		}
	}
}

// pageMark is what pages remembers of the previous page.
type pageMark struct {
	asked, current int
	firstID        string
	size           int
}

func markOf(p *UsersPage) pageMark {
	m := pageMark{asked: p.Page, current: p.CurrentPage, size: len(p.Users)}
	if len(p.Users) > 0 {
		m.firstID = p.Users[0].ID + "\x00" + p.Users[0].Email
	}
	return m
}

// repeats reports whether m (the page just read) is a page already read.
func (m pageMark) repeats(prev pageMark) bool {
	if m.current >= 0 {
		return m.current < m.asked || (prev.current >= 0 && m.current == prev.current)
	}
	return m.size > 0 && m.size == prev.size && m.firstID == prev.firstID
}
