package okta

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/orgsync/orgsync/source/internal/clouddir"
	"github.com/orgsync/orgsync/source/internal/jsonpick"
	"github.com/orgsync/orgsync/source/internal/restapi"
	"github.com/orgsync/orgsync/source/internal/usertmpl"
)

// api is the Management API of one organization (clouddir.Directory).
type api struct {
	c   *restapi.Client
	cfg *Config
	// settle is the wait before a search by name that found no group is
	// sent once more (Source.SearchSettle).
	settle time.Duration
	// x reads the users' id, status and profile attributes from each
	// page in one pass; profile is the path of each profile attribute.
	x       *jsonpick.Extractor
	profile map[string]string
}

// newAPI returns the API that reads the profile attributes attrs of each
// user, waiting settle before it searches again for a group not found.
func newAPI(c *restapi.Client, cfg *Config, attrs []string, settle time.Duration) *api {
	a := &api{c: c, cfg: cfg, settle: settle, profile: map[string]string{}}
	paths := []string{"id", "status"}
	for _, name := range attrs {
		a.profile[name] = "profile." + name
		paths = append(paths, a.profile[name])
	}
	a.x = jsonpick.New(paths, nil)
	return a
}

// walk reads every item of a listing, calling fn for each; pages follow
// the Link header's rel="next".
func walk[T any](ctx context.Context, c *restapi.Client, path string, q url.Values, fn func(*T)) error {
	return c.WalkLinked(ctx, path+"?"+q.Encode(), nil, func(r io.Reader) error {
		var items []T
		if err := restapi.Decode(r, &items); err != nil {
			return err
		}
		for i := range items {
			fn(&items[i])
		}
		return nil
	})
}

type oktaGroup struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	Profile struct {
		Name string `json:"name"`
	} `json:"profile"`
}

func (g *oktaGroup) group() clouddir.Group { return clouddir.Group{ID: g.ID, Name: g.Profile.Name} }

// quote returns s as a string of a search expression.
func quote(s string) string { return strconv.Quote(s) }

var groupIDPattern = regexp.MustCompile(`^00g[0-9A-Za-z]{17}$`)

// FindGroups returns the groups named name, or the group whose id it is.
func (a *api) FindGroups(ctx context.Context, name string) ([]clouddir.Group, error) {
	name = strings.TrimSpace(name)
	if groupIDPattern.MatchString(name) {
		var g oktaGroup
		err := a.c.GetJSON(ctx, "/api/v1/groups/"+name, nil, &g)
		if restapi.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return []clouddir.Group{g.group()}, nil
	}
	q := url.Values{"search": {"profile.name eq " + quote(name)}, "limit": {strconv.Itoa(groupPageSize)}}
	var out []clouddir.Group
	for try := 0; try < 2 && len(out) == 0; try++ {
		if try > 0 && !sleep(ctx, a.settle) {
			return nil, ctx.Err()
		}
		err := walk(ctx, a.c, "/api/v1/groups", q, func(g *oktaGroup) { out = append(out, g.group()) })
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// DefaultSearchSettle is how long a search by name that found no group
// waits before asking once more: Okta's search is eventually consistent,
// and a group created moments ago may not show yet.
const DefaultSearchSettle = 2 * time.Second

// sleep waits d; false when ctx ended first.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// ListGroups lists the groups (of groups.search).
func (a *api) ListGroups(ctx context.Context, fn func(clouddir.Group)) error {
	q := url.Values{"limit": {strconv.Itoa(groupPageSize)}}
	if a.cfg.Groups.Search != "" {
		q.Set("search", a.cfg.Groups.Search)
	}
	return walk(ctx, a.c, "/api/v1/groups", q, func(g *oktaGroup) {
		if slices.ContainsFunc(a.cfg.Groups.Types, func(t string) bool { return strings.EqualFold(t, g.Type) }) {
			fn(g.group())
		}
	})
}

// Members lists the users of a group (Okta groups do not nest).
func (a *api) Members(ctx context.Context, g clouddir.Group, fn func(string)) error {
	q := url.Values{"limit": {strconv.Itoa(groupPageSize)}}
	type member struct {
		ID string `json:"id"`
	}
	return walk(ctx, a.c, "/api/v1/groups/"+url.PathEscape(g.ID)+"/users", q, func(m *member) { fn(m.ID) })
}

// Users lists the users of the configured statuses (and users.search),
// each with its profile attributes, else its top-level id and status.
func (a *api) Users(ctx context.Context, fn func(string, usertmpl.Attributes)) error {
	q := url.Values{"limit": {strconv.Itoa(a.cfg.PageSize)}, "search": {a.userSearch()}}
	return a.c.WalkLinked(ctx, "/api/v1/users?"+q.Encode(), nil, func(r io.Reader) error {
		return a.x.Records(r, "", func(u *jsonpick.Record) { fn(u.Get("id"), user{u, a.profile}) })
	})
}

// user is a user's profile attributes, by name (usertmpl.Attributes), else
// its top-level id and status.
type user struct {
	*jsonpick.Record
	profile map[string]string // the path of each profile attribute
}

// Get returns the profile attribute name.
func (u user) Get(name string) string {
	if v := u.Record.Get(u.profile[name]); v != "" {
		return v
	}
	if name == "id" || name == "status" {
		return u.Record.Get(name)
	}
	return ""
}

// Values returns every value of the profile attribute name (of an array).
func (u user) Values(name string) []string { return u.Record.Values(u.profile[name]) }

// userSearch is the search expression of the users read.
func (a *api) userSearch() string {
	var st []string
	for _, s := range a.cfg.Users.Statuses {
		st = append(st, "status eq "+quote(strings.ToUpper(s)))
	}
	expr := strings.Join(st, " or ")
	if a.cfg.Users.Search == "" {
		return expr
	}
	return "(" + a.cfg.Users.Search + ") and (" + expr + ")"
}

// LeftOut is 0: the server leaves out the users of other statuses.
func (a *api) LeftOut() int { return 0 }

func (a *api) Where() string { return a.cfg.OrgURL + "/api/v1/users" }

func (a *api) GroupsWhere() string {
	if a.cfg.Groups.Search != "" {
		return fmt.Sprintf("in the organization's groups with groups.search %q", a.cfg.Groups.Search) + a.searchedTwice()
	}
	return "in the organization's groups (by name or id)" + a.searchedTwice()
}

// searchedTwice tells, in the error about a missing group, that the name
// was searched for twice (see DefaultSearchSettle).
func (a *api) searchedTwice() string {
	return fmt.Sprintf("; searched by name twice, %s apart, as Okta's group search is eventually consistent: a group created moments ago may need a minute to be found, so run again then", a.settle)
}

func (a *api) UsersWhere() string { return "with search " + strconv.Quote(a.userSearch()) }
