package oktafake

import (
	"net/http"

	"github.com/orgsync/orgsync/source/internal/fakeapi"
	"github.com/orgsync/orgsync/source/internal/restapi"
)

// object is one API object as a property list.
type object = map[string]any

func (u *User) object() object {
	return object{"id": u.ID, "status": u.Status, "profile": u.Profile}
}

func (g *Group) object() object {
	typ := g.Type
	if typ == "" {
		typ = "OKTA_GROUP"
	}
	return object{"id": g.ID, "type": typ, "profile": map[string]any{"name": g.Name}}
}

func (s *Server) userObjects(string) []object {
	out := make([]object, 0, len(s.org.Users))
	for i := range s.org.Users {
		out = append(out, s.org.Users[i].object())
	}
	return out
}

func (s *Server) groupObjects(string) []object {
	out := make([]object, 0, len(s.org.Groups))
	for i := range s.org.Groups {
		out = append(out, s.org.Groups[i].object())
	}
	return out
}

// getGroup serves GET /api/v1/groups/{id}.
func (s *Server) getGroup(w http.ResponseWriter, id string) {
	g, ok := s.groups[id]
	if !ok {
		oktaError(w, http.StatusNotFound, "E0000007", "Not found: Resource not found: "+id+" (UserGroup)")
		return
	}
	fakeapi.WriteJSON(w, http.StatusOK, g.object())
}

// groupUsers serves GET /api/v1/groups/{id}/users.
func (s *Server) groupUsers(w http.ResponseWriter, r *http.Request, id string) {
	g, ok := s.groups[id]
	if !ok {
		oktaError(w, http.StatusNotFound, "E0000007", "Not found: Resource not found: "+id+" (UserGroup)")
		return
	}
	s.list(w, r, func(string) []object {
		var objs []object
		for _, m := range g.Members {
			if u, ok := s.users[m]; ok {
				objs = append(objs, u.object())
			}
		}
		return objs
	}, 1000)
}

// list answers one page of the objects all returns, after search, linking
// the next page. Users without a search are those not DEPROVISIONED, as in
// Okta.
func (s *Server) list(w http.ResponseWriter, r *http.Request, all func(string) []object, maxLimit int) {
	q := r.URL.Query()
	limit, err := fakeapi.Size(r, "limit", maxLimit, maxLimit)
	if err != nil {
		oktaError(w, http.StatusBadRequest, "E0000001", "Api validation failed: "+err.Error())
		return
	}
	expr := q.Get("search")
	users := r.URL.Path == "/api/v1/users"
	if users && restapi.UsesOperator(expr, "ne") {
		oktaError(w, http.StatusBadRequest, "E0000031", "Invalid search criteria: the ne operator is not supported in a user search.")
		return
	}
	if expr == "" && users {
		expr = `status ne "DEPROVISIONED"`
	}
	objs, err := s.listing(r.URL.Path, expr, all)
	if err != nil {
		oktaError(w, http.StatusBadRequest, "E0000031", "Invalid search: "+err.Error())
		return
	}
	if expr != "" && r.URL.Path == "/api/v1/groups" {
		objs = s.lagging(objs)
	}
	start, end, next, err := fakeapi.Page(r, "after", len(objs), limit)
	if err != nil {
		oktaError(w, http.StatusBadRequest, "E0000001", "Api validation failed: after")
		return
	}
	// One Link header a link, as Okta sends them.
	w.Header().Add("Link", `<`+selfURL(r)+`>; rel="self"`)
	if next != "" {
		w.Header().Add("Link", `<`+next+`>; rel="next"`)
	}
	page := objs[start:end]
	if page == nil {
		page = []object{} // Okta answers an empty list as [], never null
	}
	fakeapi.WriteJSON(w, http.StatusOK, page)
}

// lagging leaves out of a group search the groups that it does not show
// yet (Group.SearchLag), counting this search.
func (s *Server) lagging(objs []object) []object {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []object
	for _, o := range objs {
		if g := s.groups[o["id"].(string)]; g != nil && g.SearchLag > 0 {
			g.SearchLag--
			continue
		}
		out = append(out, o)
	}
	return out
}

func selfURL(r *http.Request) string { return "http://" + r.Host + r.URL.RequestURI() }

// listing returns the objects of path that match expr, computed once.
func (s *Server) listing(path, expr string, all func(string) []object) ([]object, error) {
	key := path + "?" + expr
	s.mu.Lock()
	defer s.mu.Unlock()
	if objs, ok := s.lists[key]; ok {
		return objs, nil
	}
	objs := all(path)
	if expr != "" {
		match, err := parseSearch(expr)
		if err != nil {
			return nil, err
		}
		var kept []object
		for _, o := range objs {
			if match(o) {
				kept = append(kept, o)
			}
		}
		objs = kept
	}
	s.lists[key] = objs
	return objs, nil
}
