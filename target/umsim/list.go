package umsim

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/orgsync/orgsync/target/umwire"
)

// listQuery holds the parsed query of the listing endpoints.
type listQuery struct {
	page          int
	domain        string // lower case, "" for all
	indirect      bool   // directOnly=false
	status        string // profiles: active, inactive or ""
	excludeGroups bool
	unknownType   bool // X-UMAPI-Usertype-Unknown: true
}

// boolParam reads the boolean query parameter name: "true" or "false" in
// any letter case (the vendor's Python client sends "True"), def when
// absent; anything else is an error.
func boolParam(r *http.Request, name string, def bool) (bool, error) {
	switch v := r.URL.Query().Get(name); strings.ToLower(v) {
	case "":
		return def, nil
	case "true":
		return true, nil
	case "false":
		return false, nil
	default:
		return false, fmt.Errorf("query parameter %s=%q: want true or false", name, v)
	}
}

// parsePage parses a 0-based page (or start entry) written in decimal
// digits; "" is 0.
func parsePage(v string) (int, error) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || strings.Trim(v, "0123456789") != "" {
		return 0, fmt.Errorf("page %q: want a number from 0", v)
	}
	return n, nil
}

// parseListQuery parses the page and query of a listing, whose endpoint
// understands only the query parameters allowed; inPath says the page is a
// path segment (endpoints 1 and 2), which must not be empty.
func parseListQuery(r *http.Request, page string, inPath bool, allowed ...string) (listQuery, error) {
	var q listQuery
	var err error
	if inPath && page == "" {
		return q, fmt.Errorf("the page is missing from the path")
	}
	if q.page, err = parsePage(page); err != nil {
		return q, err
	}
	direct, err := boolParam(r, "directOnly", true)
	if err != nil {
		return q, err
	}
	q.indirect = !direct
	if q.excludeGroups, err = boolParam(r, "excludeGroups", false); err != nil {
		return q, err
	}
	q.status = r.URL.Query().Get("status")
	if q.status != "" && q.status != "active" && q.status != "inactive" {
		return q, fmt.Errorf("query parameter status=%q: want active or inactive", q.status)
	}
	q.domain = strings.ToLower(r.URL.Query().Get("domain"))
	q.unknownType = strings.EqualFold(r.Header.Get(umwire.HeaderUsertypeUnknown), "true")
	return q, onlyParams(r, allowed...)
}

// listOrgUsers is endpoint 1.
func (s *Server) listOrgUsers(w http.ResponseWriter, r *http.Request, page string) {
	q, err := parseListQuery(r, page, true, "domain", "directOnly")
	if err != nil {
		writeError(w, r, http.StatusBadRequest, umwire.ErrRequestMalformed, err.Error())
		return
	}
	s.serveOrgPage(w, r, q)
}

// listAllUsers is endpoint 7 (deprecated): endpoint 1 with ?page=N.
func (s *Server) listAllUsers(w http.ResponseWriter, r *http.Request) {
	q, err := parseListQuery(r, r.URL.Query().Get("page"), false, "page", "domain", "directOnly")
	if err != nil {
		writeError(w, r, http.StatusBadRequest, umwire.ErrRequestMalformed, err.Error())
		return
	}
	s.serveOrgPage(w, r, q)
}

// onlyParams refuses query parameters the endpoint does not take.
func onlyParams(r *http.Request, allowed ...string) error {
	for name := range r.URL.Query() {
		ok := false
		for _, a := range allowed {
			ok = ok || name == a
		}
		if !ok {
			return fmt.Errorf("query parameter %q is not understood here (allowed: %s)", name, strings.Join(allowed, ", "))
		}
	}
	return nil
}

// serveOrgPage answers one page of the organization's users (endpoint 1),
// or a 404 for a domain the organization does not have.
func (s *Server) serveOrgPage(w http.ResponseWriter, r *http.Request, q listQuery) {
	s.mu.Lock()
	if q.domain != "" && s.st.domains[q.domain] == nil {
		s.mu.Unlock()
		writeError(w, r, http.StatusNotFound, umwire.ErrDomainNotFound, "domain "+r.URL.Query().Get("domain")+" is not a domain of the organization")
		return
	}
	body, hdr := s.page(s.st.active(q.domain), q)
	s.mu.Unlock()
	hdr.write(w)
	writeJSON(w, http.StatusOK, body)
}

// pageHeaders are the four X- headers of a listing.
type pageHeaders struct{ total, pages, current, size int }

func (h pageHeaders) write(w http.ResponseWriter) {
	w.Header().Set(umwire.HeaderTotalCount, strconv.Itoa(h.total))
	w.Header().Set(umwire.HeaderPageCount, strconv.Itoa(h.pages))
	w.Header().Set(umwire.HeaderCurrentPage, strconv.Itoa(h.current))
	w.Header().Set(umwire.HeaderPageSize, strconv.Itoa(h.size))
}

// page cuts page q.page out of list (past the end: the last page) and
// renders it; technical accounts are counted but left out of the body.
func (s *Server) page(list []*user, q listQuery) (umwire.UsersPage, pageHeaders) {
	size := s.opts.PageSize
	pages := max(1, (len(list)+size-1)/size)
	cur := min(q.page, pages-1)
	from, to := cur*size, min((cur+1)*size, len(list))
	body := umwire.UsersPage{LastPage: cur == pages-1, Result: umwire.ResultSuccess, Users: make([]umwire.User, 0, to-from)}
	for _, u := range list[from:to] {
		if u.technical {
			continue
		}
		body.Users = append(body.Users, wireUser(u, q))
	}
	return body, pageHeaders{total: len(list), pages: pages, current: cur, size: len(body.Users)}
}

// wireUser renders a user as the listings show it.
func wireUser(u *user, q listQuery) umwire.User {
	wu := umwire.User{
		ID: u.id, Email: u.email, Username: u.username, Domain: u.domain,
		FirstName: u.firstName, LastName: u.lastName, Country: u.country,
		Status: u.status, Type: u.typ,
	}
	if wu.Type == umwire.TypeUnknown && !q.unknownType {
		wu.Type = umwire.TypeVendorID
	}
	if !q.excludeGroups {
		wu.Groups = groupNames(effectiveGroups(u, q.indirect))
	}
	return wu
}

// listGroupUsers is endpoint 2.
func (s *Server) listGroupUsers(w http.ResponseWriter, r *http.Request, page, name string) {
	q, err := parseListQuery(r, page, true, "directOnly", "status", "excludeGroups")
	if err != nil {
		writeError(w, r, http.StatusBadRequest, umwire.ErrRequestMalformed, err.Error())
		return
	}
	s.mu.Lock()
	g := s.st.group(name)
	if g == nil && !s.st.adminTargetExists(name) {
		s.mu.Unlock()
		f := false
		w.Header().Set(umwire.HeaderCanonical, r.URL.EscapedPath())
		writeJSON(w, http.StatusNotFound, umwire.ErrorBody{LastPage: &f, Result: umwire.ErrGroupNotFound, Message: "group " + name + " not found"})
		return
	}
	if q.status != "" && (g == nil || g.kind != kindProfile) {
		s.mu.Unlock()
		writeError(w, r, http.StatusBadRequest, umwire.ErrRequestMalformed, "query parameter status applies to product profiles only")
		return
	}
	var list []*user
	groupName := name
	if g != nil {
		groupName = g.name
		list = s.st.groupMembers(g, q.indirect)
		if q.status != "" {
			list = s.st.byLicense(g, list, q.status == "active")
		}
	}
	body, hdr := s.page(list, q)
	s.mu.Unlock()
	body.GroupName = groupName
	hdr.write(w)
	writeJSON(w, http.StatusOK, body)
}

// groupMembers returns g's members in listing order: direct members, plus
// (indirect, profiles only) the members of user groups granting g.
func (s *store) groupMembers(g *group, indirect bool) []*user {
	if !indirect || g.kind != kindProfile {
		return g.sortedMembers()
	}
	seen := make(map[*user]struct{}, len(g.members))
	out := make([]*user, 0, len(g.members))
	add := func(us map[*user]struct{}) {
		for u := range us {
			if _, ok := seen[u]; !ok {
				seen[u] = struct{}{}
				out = append(out, u)
			}
		}
	}
	add(g.members)
	for _, ug := range s.groups {
		if ug.kind == kindUserGroup && containsGroup(ug.grants, g) {
			add(ug.members)
		}
	}
	sortUsers(out)
	return out
}

func containsGroup(gs []*group, g *group) bool {
	for _, x := range gs {
		if x == g {
			return true
		}
	}
	return false
}

// licensed returns the users holding an active license of p: the first
// LicenseQuota members (direct or through a user group) of its profiles in
// listing order (all when the quota is 0).
func (s *store) licensed(p *product) map[*user]bool {
	var all []*user
	seen := map[*user]bool{}
	for _, g := range p.profiles {
		for _, u := range s.groupMembers(g, true) {
			if !seen[u] {
				seen[u] = true
				all = append(all, u)
			}
		}
	}
	if p.quota <= 0 || len(all) <= p.quota {
		return seen
	}
	sortUsers(all)
	out := make(map[*user]bool, p.quota)
	for _, u := range all[:p.quota] {
		out[u] = true
	}
	return out
}

// byLicense keeps the members of profile g whose license is active (or,
// with active false, those without one).
func (s *store) byLicense(g *group, list []*user, active bool) []*user {
	lic := s.licensed(g.product)
	out := make([]*user, 0, len(list))
	for _, u := range list {
		if lic[u] == active {
			out = append(out, u)
		}
	}
	return out
}

// getUser is endpoint 3.
func (s *Server) getUser(w http.ResponseWriter, r *http.Request, userString string) {
	if err := onlyParams(r, "domain"); err != nil {
		writeError(w, r, http.StatusBadRequest, umwire.ErrRequestMalformed, err.Error())
		return
	}
	q := listQuery{unknownType: strings.EqualFold(r.Header.Get(umwire.HeaderUsertypeUnknown), "true")}
	s.mu.Lock()
	u := s.st.lookup(userString, r.URL.Query().Get("domain"))
	var wu umwire.User
	if u != nil {
		wu = wireUser(u, q)
	}
	s.mu.Unlock()
	if u == nil {
		writeError(w, r, http.StatusNotFound, umwire.ErrUserNotFound, "user "+userString+" not found")
		return
	}
	writeJSON(w, http.StatusOK, umwire.UserInfo{Result: umwire.ResultSuccess, User: &wu})
}

// lookup finds an active member for endpoint 3: userString is an email (any
// case) or, with a domain, a Federated ID's username. domain "VendorID"
// (exactly) selects independent IDs; another domain must be the user's
// domain or one of the same directory.
func (s *store) lookup(userString, dom string) *user {
	key := strings.ToLower(userString)
	var u *user
	switch {
	case dom == umwire.DomainVendorID:
		u = s.byVendor[key]
	case !strings.Contains(userString, "@"):
		if dom != "" {
			u = s.byUsername[usernameKey(userString, dom)]
		}
	default:
		u = s.byEmail[key]
		if u != nil && dom != "" && !s.sameDirectory(u.domain, dom) {
			u = nil
		}
		if u == nil && dom == "" {
			u = s.byVendor[key]
		}
	}
	if u == nil || u.status != umwire.StatusActive {
		return nil
	}
	return u
}

// sameDirectory reports whether domains a and b are equal or both the
// organization's and in one directory.
func (s *store) sameDirectory(a, b string) bool {
	if strings.EqualFold(a, b) {
		return true
	}
	da, db := s.domains[strings.ToLower(a)], s.domains[strings.ToLower(b)]
	return da != nil && db != nil && da.directory != "" && da.directory == db.directory
}
