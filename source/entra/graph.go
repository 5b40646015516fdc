package entra

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/orgsync/orgsync/source/internal/clouddir"
	"github.com/orgsync/orgsync/source/internal/jsonpick"
	"github.com/orgsync/orgsync/source/internal/restapi"
	"github.com/orgsync/orgsync/source/internal/usertmpl"
)

// graph is the Microsoft Graph API of one tenant (clouddir.Directory).
type graph struct {
	c       *restapi.Client
	cfg     *Config
	attrs   []string            // user properties to $select
	x       *jsonpick.Extractor // reads each user's properties in one pass
	leftOut int                 // disabled accounts and guests left out
}

// newGraph returns the API that reads the user properties attrs (paths,
// such as onPremisesExtensionAttributes.extensionAttribute1).
func newGraph(c *restapi.Client, cfg *Config, attrs []string) *graph {
	return &graph{c: c, cfg: cfg, attrs: selectOf(attrs), x: jsonpick.New(append([]string{"id", "accountEnabled", "userType"}, attrs...), nil)}
}

// page is one page of a Graph collection (its @odata.nextLink is read
// by walk).
type page[T any] struct {
	Value []T `json:"value"`
}

// eventual is the header of advanced queries ($count, $filter beyond the
// basic operators, $search): Graph answers them from an index that may lag.
var eventual = http.Header{"Consistencylevel": {"eventual"}}

// nextLink reads a page's @odata.nextLink, "" on the last page.
func nextLink(_ http.Header, data []byte) (string, error) {
	return restapi.StringMember(data, "@odata.nextLink")
}

// walk reads every item of a collection, calling fn for each; the next
// page (@odata.nextLink) is requested while this one is decoded.
func walk[T any](ctx context.Context, c *restapi.Client, path string, q url.Values, hdr http.Header, fn func(*T)) error {
	return c.WalkAhead(ctx, path+"?"+q.Encode(), hdr, nextLink, func(r io.Reader) error {
		var p page[T]
		if err := restapi.Decode(r, &p); err != nil {
			return err
		}
		for i := range p.Value {
			fn(&p.Value[i])
		}
		return nil
	})
}

// query returns the $select and $top of a listing, with filter (the
// user's, which may use any operator) as an advanced query when set.
func (g *graph) query(sel, filter string) (url.Values, http.Header) {
	q := url.Values{"$select": {sel}, "$top": {strconv.Itoa(g.cfg.PageSize)}}
	if filter == "" {
		return q, nil
	}
	q.Set("$filter", filter)
	q.Set("$count", "true")
	return q, eventual
}

type graphGroup struct {
	ID          string `json:"id"`
	DisplayName string `json:"displayName"`
}

func (g *graph) path(p string) string { return strings.TrimRight(g.cfg.GraphURL, "/") + "/v1.0" + p }

var guidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// FindGroups returns the groups whose display name is name (display names
// need not be unique), or the group whose id it is.
func (g *graph) FindGroups(ctx context.Context, name string) ([]clouddir.Group, error) {
	name = strings.TrimSpace(name)
	if guidPattern.MatchString(name) {
		var gg graphGroup
		err := g.c.GetJSON(ctx, g.path("/groups/"+name)+"?$select=id,displayName", nil, &gg)
		if restapi.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return []clouddir.Group{{ID: gg.ID, Name: gg.DisplayName}}, nil
	}
	// displayName eq is a basic query: no ConsistencyLevel: eventual, so
	// that a group just made is found (the advanced index may lag).
	q, _ := g.query("id,displayName", "")
	q.Set("$filter", "displayName eq '"+strings.ReplaceAll(name, "'", "''")+"'")
	var out []clouddir.Group
	err := walk(ctx, g.c, g.path("/groups"), q, nil, func(gg *graphGroup) {
		out = append(out, clouddir.Group{ID: gg.ID, Name: gg.DisplayName})
	})
	return out, err
}

// ListGroups lists the groups (of groups.filter).
func (g *graph) ListGroups(ctx context.Context, fn func(clouddir.Group)) error {
	q, hdr := g.query("id,displayName", g.cfg.Groups.Filter)
	return walk(ctx, g.c, g.path("/groups"), q, hdr, func(gg *graphGroup) {
		fn(clouddir.Group{ID: gg.ID, Name: gg.DisplayName})
	})
}

// Members lists the users in a group: through nested groups too
// (transitiveMembers) unless groups.nested is false. Devices, service
// principals and the nested groups themselves are skipped.
func (g *graph) Members(ctx context.Context, grp clouddir.Group, fn func(string)) error {
	rel := "/transitiveMembers"
	if n := g.cfg.Groups.Nested; n != nil && !*n {
		rel = "/members"
	}
	type member struct {
		Type string `json:"@odata.type"`
		ID   string `json:"id"`
	}
	q, _ := g.query("id", "")
	return walk(ctx, g.c, g.path("/groups/"+url.PathEscape(grp.ID)+rel), q, nil, func(m *member) {
		if m.Type == userType {
			fn(m.ID)
		}
	})
}

const userType = "#microsoft.graph.user"

// Users lists the users (of users.filter), leaving out disabled accounts
// unless users.includeDisabled is set and guests unless
// users.includeGuests is; a user without mail gets the mailFallback
// property as mail.
func (g *graph) Users(ctx context.Context, fn func(string, usertmpl.Attributes)) error {
	q, hdr := g.query(strings.Join(g.attrs, ","), g.cfg.Users.Filter)
	return g.c.WalkAhead(ctx, g.path("/users")+"?"+q.Encode(), hdr, nextLink, func(r io.Reader) error {
		return g.x.Records(r, "value", func(u *jsonpick.Record) {
			disabled := u.Get("accountEnabled") == "false" && !g.cfg.Users.IncludeDisabled
			guest := strings.EqualFold(u.Get("userType"), "Guest") && !g.cfg.Users.IncludeGuests
			if disabled || guest {
				g.leftOut++
				return
			}
			fn(u.Get("id"), user{u, g.cfg.Users.MailFallback})
		})
	})
}

// user is a user's properties (usertmpl.Attributes): mail falls back to
// the property mailFallback names.
type user struct {
	*jsonpick.Record
	mailFallback string
}

// Get returns the user's property a.
func (u user) Get(a string) string {
	v := u.Record.Get(a)
	if v == "" && strings.EqualFold(a, "mail") && u.mailFallback != NoMailFallback {
		v = u.Record.Get(u.mailFallback)
	}
	return v
}

func (g *graph) LeftOut() int { return g.leftOut }

func (g *graph) Where() string { return g.path("/users") }

func (g *graph) GroupsWhere() string {
	if g.cfg.Groups.Filter != "" {
		return fmt.Sprintf("in the tenant's groups with groups.filter %q", g.cfg.Groups.Filter)
	}
	return "in the tenant's groups (by display name or id)"
}

func (g *graph) UsersWhere() string {
	if g.cfg.Users.Filter != "" {
		return fmt.Sprintf("with users.filter %q", g.cfg.Users.Filter)
	}
	return "(enabled accounts, guests left out)"
}

// selectOf returns the properties to $select for the template attributes
// (and the mail fallback): the top-level property of each
// ("onPremisesExtensionAttributes" for
// "onPremisesExtensionAttributes.extensionAttribute1"), with id,
// accountEnabled and userType.
func selectOf(attrs []string) []string {
	out := []string{"id", "accountEnabled", "userType"}
	for _, a := range attrs {
		top, _, _ := strings.Cut(a, ".")
		if !slices.ContainsFunc(out, func(x string) bool { return strings.EqualFold(x, top) }) {
			out = append(out, top)
		}
	}
	return out
}
