package google

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/source/internal/clouddir"
	"github.com/orgsync/orgsync/source/internal/jsonpick"
	"github.com/orgsync/orgsync/source/internal/restapi"
	"github.com/orgsync/orgsync/source/internal/usertmpl"
)

// directory is the Directory API of one account (clouddir.Directory).
type directory struct {
	c        *restapi.Client
	cfg      *Config
	fields   string // the users' fields to ask for
	custom   []string
	full     bool // a template names customSchemas whole
	leftOut  int  // suspended and archived users left out
	basePath string
	x        *jsonpick.Extractor // reads the users' attributes
}

// newDirectory returns the directory that reads attrs of each user.
func newDirectory(c *restapi.Client, cfg *Config, attrs []string) *directory {
	d := &directory{c: c, cfg: cfg, basePath: cfg.APIURL + "/admin/directory/v1",
		x: jsonpick.New(append([]string{"id", "suspended", "archived"}, attrs...), customField)}
	d.fields = "nextPageToken,users(" + strings.Join(userFields(attrs), ",") + ")"
	for _, a := range attrs {
		switch parts := strings.Split(a, "."); {
		case parts[0] != "customSchemas":
		case len(parts) == 1:
			d.full = true
		case !slices.Contains(d.custom, parts[1]):
			d.custom = append(d.custom, parts[1])
		}
	}
	return d
}

// customField reports whether path is a custom schema field
// ("customSchemas.<schema>.<field>"), which may be multi-valued.
func customField(path string) bool {
	return strings.HasPrefix(path, "customSchemas.") && strings.Count(path, ".") == 2
}

// primaryLists are the user's lists whose elements may be marked
// primary: the extractor takes that one.
var primaryLists = []string{"addresses", "emails", "ims", "organizations", "phones", "posixAccounts", "websites"}

// userFields returns the selections of a partial response that hold the
// attributes attrs ("name.givenName": "name/givenName"), with id,
// suspended and archived, and the primary mark of the lists named.
func userFields(attrs []string) []string {
	out := []string{"id", "suspended", "archived"}
	add := func(f string) {
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	for _, a := range attrs {
		add(strings.ReplaceAll(a, ".", "/"))
		if top, _, nested := strings.Cut(a, "."); nested && slices.Contains(primaryLists, top) {
			add(top + "/primary")
		}
	}
	return out
}

// page is one page of a group or member listing (its nextPageToken is
// read by nextPageToken; a users page by the extractor).
type page[T any] struct {
	Groups  []T `json:"groups"`
	Members []T `json:"members"`
}

// walk reads every page of a listing with decode; pages follow
// nextPageToken, the next one requested while this one is decoded.
func walk(ctx context.Context, c *restapi.Client, path string, q url.Values, decode func(io.Reader) error) error {
	next := func(_ http.Header, data []byte) (string, error) {
		tok, err := nextPageToken(data)
		if tok == "" || err != nil {
			return "", err
		}
		q.Set("pageToken", tok)
		return path + "?" + q.Encode(), nil
	}
	return c.WalkAhead(ctx, path+"?"+q.Encode(), nil, next, decode)
}

// items decodes a page of groups or members, calling fn for each.
func items[T any](fn func(*T)) func(io.Reader) error {
	return func(r io.Reader) error {
		var p page[T]
		if err := restapi.Decode(r, &p); err != nil {
			return err
		}
		for _, items := range [][]T{p.Groups, p.Members} {
			for i := range items {
				fn(&items[i])
			}
		}
		return nil
	}
}

// nextPageToken returns the nextPageToken member of a page.
func nextPageToken(data []byte) (string, error) { return restapi.StringMember(data, "nextPageToken") }

// query returns the parameters of a listing of the customer (or
// domain) with the page size n and the fields asked for.
func (d *directory) query(n int, fields string) url.Values {
	q := url.Values{"maxResults": {strconv.Itoa(n)}, "fields": {fields}}
	if d.cfg.Domain != "" {
		q.Set("domain", d.cfg.Domain)
	} else {
		q.Set("customer", d.cfg.Customer)
	}
	return q
}

type apiGroup struct {
	ID      string   `json:"id"`
	Email   string   `json:"email"`
	Name    string   `json:"name"`
	Aliases []string `json:"aliases"`
}

// group is g for clouddir: its email is its id, so that a mapping rule
// names a group by name, email or alias.
func (g *apiGroup) group() clouddir.Group {
	return clouddir.Group{ID: g.Email, Name: g.Name, Aliases: g.Aliases}
}

const groupFields = "nextPageToken,groups(id,email,name,aliases)"

// FindGroups returns the group whose email or alias is name (groups.get,
// which answers for an alias with the group), or the groups named name
// (a search, which Google's index may lag for a new group).
func (d *directory) FindGroups(ctx context.Context, name string) ([]clouddir.Group, error) {
	name = strings.TrimSpace(name)
	if strings.Contains(name, "@") {
		var g apiGroup
		err := d.c.GetJSON(ctx, d.basePath+"/groups/"+url.PathEscape(name)+"?fields=id,email,name,aliases", nil, &g)
		if restapi.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return []clouddir.Group{g.group()}, nil
	}
	q := d.query(groupPageSize, groupFields)
	if !strings.Contains(name, "'") { // a query cannot quote a quote: list them all
		q.Set("query", "name='"+name+"'")
	}
	var out []clouddir.Group
	err := walk(ctx, d.c, d.basePath+"/groups", q, items(func(g *apiGroup) {
		if strings.EqualFold(g.Name, name) {
			out = append(out, g.group())
		}
	}))
	return out, err
}

// ListGroups lists the groups (of groups.query).
func (d *directory) ListGroups(ctx context.Context, fn func(clouddir.Group)) error {
	q := d.query(groupPageSize, groupFields)
	if d.cfg.Groups.Query != "" {
		q.Set("query", d.cfg.Groups.Query)
	}
	return walk(ctx, d.c, d.basePath+"/groups", q, items(func(g *apiGroup) { fn(g.group()) }))
}

// Members lists the users in a group: through nested groups too
// (includeDerivedMembership) unless groups.nested is false. The nested
// groups themselves are skipped, and so are external members (users of
// another domain: no id here, never read as users); the whole account
// as a member (type CUSTOMER) makes every user a member, and says so.
func (d *directory) Members(ctx context.Context, g clouddir.Group, fn func(string)) error {
	nested := d.cfg.Groups.Nested == nil || *d.cfg.Groups.Nested
	q := url.Values{"maxResults": {strconv.Itoa(groupPageSize)}, "fields": {"nextPageToken,members(id,type)"},
		"includeDerivedMembership": {strconv.FormatBool(nested)}}
	type member struct {
		ID   string `json:"id"`
		Type string `json:"type"`
	}
	return walk(ctx, d.c, d.basePath+"/groups/"+url.PathEscape(g.ID)+"/members", q, items(func(m *member) {
		switch {
		case m.Type == "USER" && m.ID != "":
			fn(m.ID)
		case m.Type == "CUSTOMER":
			d.c.Log().Info("the whole account is a member of this group (type CUSTOMER): every user read is in it", zap.String("group", g.ID))
			fn(clouddir.Everyone)
		}
	}))
}

// Users lists the users (of users.query), leaving out the suspended and
// the archived ones unless users.includeSuspended or includeArchived is
// set.
func (d *directory) Users(ctx context.Context, fn func(string, usertmpl.Attributes)) error {
	q := d.query(d.cfg.PageSize, d.fields)
	if d.cfg.Users.Query != "" {
		q.Set("query", d.cfg.Users.Query)
	}
	switch {
	case d.full:
		q.Set("projection", "full")
	case len(d.custom) > 0:
		q.Set("projection", "custom")
		q.Set("customFieldMask", strings.Join(d.custom, ","))
	}
	return walk(ctx, d.c, d.basePath+"/users", q, func(r io.Reader) error {
		return d.x.Records(r, "users", func(u *jsonpick.Record) {
			if u.Get("suspended") == "true" && !d.cfg.Users.IncludeSuspended || u.Get("archived") == "true" && !d.cfg.Users.IncludeArchived {
				d.leftOut++
				return
			}
			fn(u.Get("id"), u)
		})
	})
}

func (d *directory) LeftOut() int { return d.leftOut }

func (d *directory) Where() string { return d.basePath + "/users" }

func (d *directory) GroupsWhere() string {
	lag := "; Google's search finds a group by name up to 36 hours after it is made (most within an hour): name a new group by its email"
	if d.cfg.Groups.Query != "" {
		return fmt.Sprintf("in the account's groups with groups.query %q%s", d.cfg.Groups.Query, lag)
	}
	return "in the account's groups (by name, email or alias)" + lag
}

func (d *directory) UsersWhere() string {
	if d.cfg.Users.Query != "" {
		return fmt.Sprintf("with users.query %q", d.cfg.Users.Query)
	}
	return "(active users)"
}
