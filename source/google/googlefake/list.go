package googlefake

import (
	"cmp"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/orgsync/orgsync/source/internal/fakeapi"
)

// resource is one API object as JSON members.
type resource = map[string]any

// item is one object of a listing, rendered as a resource at each
// request (p: the custom schemas a user listing includes), as a server
// does; the fake keeps its listings as items, whose memory holds few
// pointers.
type item interface{ render(p projection) resource }

// listing is one kind of listing: its item schema, the member holding
// the items, its kind, and its page sizes.
type listing struct {
	member, kind   string
	schema         schema
	defSize, limit int
}

var listings = map[string]listing{
	"users":   {"users", "admin#directory#users", userSchema, 100, 500},
	"groups":  {"groups", "admin#directory#groups", groupSchema, 200, 200},
	"members": {"members", "admin#directory#members", memberSchema, 200, 200},
}

// list serves users.list and groups.list of the customer or domain;
// my_customer names the impersonated administrator's account, so a
// service account reading as itself (not delegated) must name the
// customer by its ID.
func (s *Server) list(w http.ResponseWriter, r *http.Request, kind string, delegated bool) {
	q := r.URL.Query()
	cust, dom := q.Get("customer"), q.Get("domain")
	if cust == "" && dom == "" || cust == "my_customer" && !delegated || cust != "" && cust != "my_customer" && cust != s.dom.CustomerID || dom != "" && !strings.EqualFold(dom, s.dom.Name) {
		writeError(w, http.StatusBadRequest, "badRequest", "Bad Request")
		return
	}
	if kind == "groups" {
		s.page(w, r, kind, projection{}, func() ([]item, error) { return s.groupItems(q.Get("query")) })
		return
	}
	proj, err := projectionOf(q, s.dom.Schemas)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid", err.Error())
		return
	}
	s.page(w, r, kind, proj, func() ([]item, error) { return s.userItems(q.Get("query")) })
}

// group returns the group of key (its id, email or an alias), or
// answers as Google does: 403 for an address outside the account's
// domain, 404 for one in it that no group has.
func (s *Server) group(w http.ResponseWriter, key string) (*Group, bool) {
	g, ok := s.groups[strings.ToLower(key)]
	if ok {
		return g, true
	}
	if _, dom, isEmail := strings.Cut(key, "@"); isEmail && !strings.EqualFold(dom, s.dom.Name) {
		writeError(w, http.StatusForbidden, "forbidden", "Not Authorized to access this resource/api")
		return nil, false
	}
	writeError(w, http.StatusNotFound, "notFound", "Resource Not Found: groupKey")
	return nil, false
}

// getGroup serves groups.get by id, email or alias: the answer names
// the group by its primary email.
func (s *Server) getGroup(w http.ResponseWriter, r *http.Request, key string) {
	if g, ok := s.group(w, key); ok {
		s.write(w, r, groupSchema, g.render(projection{}))
	}
}

// members serves members.list: the direct members, or with
// includeDerivedMembership the members of nested groups too.
func (s *Server) members(w http.ResponseWriter, r *http.Request, key string) {
	g, ok := s.group(w, key)
	if !ok {
		return
	}
	derived := r.URL.Query().Get("includeDerivedMembership") == "true"
	s.page(w, r, "members", projection{}, func() ([]item, error) { return s.memberItems(g, derived), nil })
}

// page answers one page of a listing (computed once by all, for each
// path and query): at most maxResults items from the offset its
// pageToken holds, with the next page's token, and only the members the
// fields parameter selects.
func (s *Server) page(w http.ResponseWriter, r *http.Request, kind string, p projection, all func() ([]item, error)) {
	l := listings[kind]
	q := r.URL.Query()
	size, err := fakeapi.Size(r, "maxResults", l.defSize, l.limit)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid", fmt.Sprintf("Invalid value '%s'. Values must be within the range: [1, %d]", q.Get("maxResults"), l.limit))
		return
	}
	m, ok := s.mask(w, q.Get("fields"), listSchema(l.member, l.schema))
	if !ok {
		return
	}
	key := listingKey(r.URL)
	items, err := s.listing(key, all)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid", "Invalid Input: "+err.Error())
		return
	}
	start, issued, ok := offsetOf(q.Get("pageToken"), key, len(items))
	if !ok {
		writeError(w, http.StatusBadRequest, "invalid", "Invalid Input: pageToken")
		return
	}
	if life := cmp.Or(s.opts.PageTokenLifetime, time.Hour); !issued.IsZero() && time.Since(issued) > life {
		writeError(w, http.StatusServiceUnavailable, "backendError", "Service unavailable. Please try again")
		return
	}
	end := min(start+size, len(items))
	body := resource{"kind": l.kind, "etag": `"fake-etag"`}
	if end > start {
		page := make([]any, end-start)
		for i, it := range items[start:end] {
			page[i] = it.render(p)
		}
		body[l.member] = page
	}
	if end < len(items) {
		body["nextPageToken"] = tokenOf(end, key, time.Now())
	}
	fakeapi.WriteJSON(w, http.StatusOK, m.apply(body))
}

// write answers one resource, as the fields parameter selects.
func (s *Server) write(w http.ResponseWriter, r *http.Request, sc schema, res resource) {
	if m, ok := s.mask(w, r.URL.Query().Get("fields"), sc); ok {
		fakeapi.WriteJSON(w, http.StatusOK, m.apply(res))
	}
}

// mask parses and checks a fields parameter; an invalid one is answered
// 400, as Google does.
func (s *Server) mask(w http.ResponseWriter, fields string, sc schema) (mask, bool) {
	if fields == "" {
		return nil, true
	}
	m, err := parseMask(fields)
	bad := fields
	if err == nil {
		bad = m.check(sc)
	}
	if bad != "" {
		msg := "Invalid field selection " + bad
		fakeapi.WriteJSON(w, http.StatusBadRequest, resource{"error": resource{"code": 400, "message": msg,
			"errors": []any{resource{"message": msg, "domain": "global", "reason": "invalidParameter", "location": "fields", "locationType": "parameter"}}}})
		return nil, false
	}
	return m, true
}

// listingKey names a listing: its path and query without the page's
// own parameters.
func listingKey(u *url.URL) string {
	q := u.Query()
	for _, p := range []string{"pageToken", "maxResults", "fields"} {
		q.Del(p)
	}
	return u.Path + "?" + q.Encode()
}

// listing returns the listing of key, computing it once.
func (s *Server) listing(key string, all func() ([]item, error)) ([]item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if items, ok := s.lists[key]; ok {
		return items, nil
	}
	items, err := all()
	if err == nil {
		s.lists[key] = items
	}
	return items, err
}

// tokenOf is the opaque page token of offset in the listing key,
// issued at t: Google's page tokens expire (PageTokenLifetime).
func tokenOf(offset int, key string, t time.Time) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(offset) + "\x00" + strconv.FormatInt(t.UnixNano(), 10) + "\x00" + key))
}

// offsetOf returns the offset a page token holds and when it was
// issued; only a token of the same listing is good.
func offsetOf(token, key string, n int) (int, time.Time, bool) {
	if token == "" {
		return 0, time.Time{}, true
	}
	b, err := base64.RawURLEncoding.DecodeString(token)
	parts := strings.SplitN(string(b), "\x00", 3)
	if err != nil || len(parts) != 3 || parts[2] != key {
		return 0, time.Time{}, false
	}
	o, err := strconv.Atoi(parts[0])
	ns, err2 := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || err2 != nil || o < 0 || o > n {
		return 0, time.Time{}, false
	}
	return o, time.Unix(0, ns), true
}

// projection says which custom schemas a user listing includes.
type projection struct {
	all     bool
	schemas []string
}

// projectionOf reads projection and customFieldMask: basic (the
// default) includes no custom schema, full every one, custom those of
// customFieldMask, which only it takes.
func projectionOf(q url.Values, known []string) (projection, error) {
	fm := q.Get("customFieldMask")
	switch p := q.Get("projection"); {
	case p == "custom" && fm == "":
		return projection{}, fmt.Errorf("customFieldMask is required with projection=custom")
	case p == "custom":
		names := strings.Split(fm, ",")
		for _, n := range names {
			if !slices.Contains(known, n) {
				return projection{}, fmt.Errorf("Invalid Input: custom schema %s not found", n)
			}
		}
		return projection{schemas: names}, nil
	case fm != "":
		return projection{}, fmt.Errorf("customFieldMask is only allowed with projection=custom")
	case p == "" || p == "basic":
		return projection{}, nil
	case p == "full":
		return projection{all: true}, nil
	default:
		return projection{}, fmt.Errorf("Invalid value '%s'. Values must be one of: basic, custom, full", p)
	}
}
