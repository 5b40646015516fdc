package entrafake

import (
	"net/http"
	"strings"

	"github.com/orgsync/orgsync/source/internal/fakeapi"
)

// Page sizes of Graph: $top defaults to 100 and goes up to 999.
const (
	defaultTop = 100
	maxTop     = 999
)

// object is one directory object as a property list.
type object map[string]any

// props returns the properties of a user, a group or a member reference.
func (u *User) object() object {
	o := object{"id": u.ID}
	for k, v := range u.Props {
		o[k] = v
	}
	return o
}

func (g *Group) object() object { return object{"id": g.ID, "displayName": g.DisplayName} }

// listUsers serves GET /users.
func (s *Server) listUsers(w http.ResponseWriter, r *http.Request) {
	objs := make([]object, 0, len(s.tenant.Users))
	for i := range s.tenant.Users {
		objs = append(objs, s.tenant.Users[i].object())
	}
	s.serveList(w, r, objs)
}

// listGroups serves GET /groups.
func (s *Server) listGroups(w http.ResponseWriter, r *http.Request) {
	objs := make([]object, 0, len(s.tenant.Groups))
	for i := range s.tenant.Groups {
		objs = append(objs, s.tenant.Groups[i].object())
	}
	s.serveList(w, r, objs)
}

// getGroup serves GET /groups/{id}.
func (s *Server) getGroup(w http.ResponseWriter, r *http.Request, id string) {
	g, ok := s.groups[id]
	if !ok {
		graphError(w, http.StatusNotFound, "Request_ResourceNotFound", "Resource '"+id+"' does not exist or one of its queried reference-property objects are not present.")
		return
	}
	writeJSON(w, http.StatusOK, selected(g.object(), r.URL.Query().Get("$select")))
}

// listMembers serves GET /groups/{id}/members and transitiveMembers.
func (s *Server) listMembers(w http.ResponseWriter, r *http.Request, id string, transitive bool) {
	g, ok := s.groups[id]
	if !ok {
		graphError(w, http.StatusNotFound, "Request_ResourceNotFound", "Resource '"+id+"' does not exist.")
		return
	}
	var objs []object
	seen := map[string]bool{id: true}
	var add func(*Group)
	add = func(g *Group) {
		for _, m := range g.Members {
			if seen[m] {
				continue
			}
			seen[m] = true
			if u, ok := s.users[m]; ok {
				objs = append(objs, typed(u.object(), "user"))
			} else if sub, ok := s.groups[m]; ok {
				objs = append(objs, typed(sub.object(), "group"))
				if transitive {
					add(sub)
				}
			}
		}
	}
	add(g)
	s.serveList(w, r, objs)
}

func typed(o object, kind string) object {
	o["@odata.type"] = "#microsoft.graph." + kind
	return o
}

// serveList answers one page of objs after $filter, with $select.
func (s *Server) serveList(w http.ResponseWriter, r *http.Request, objs []object) {
	q := r.URL.Query()
	top, err := fakeapi.Size(r, "$top", defaultTop, maxTop)
	if err != nil {
		graphError(w, http.StatusBadRequest, "Request_BadRequest", "Invalid value for $top: "+err.Error())
		return
	}
	if f := q.Get("$filter"); f != "" {
		if objs, err = filter(objs, f); err != nil {
			graphError(w, http.StatusBadRequest, "Request_UnsupportedQuery", "Unsupported or invalid query filter clause specified: "+err.Error())
			return
		}
	}
	start, end, next, err := fakeapi.Page(r, "$skiptoken", len(objs), top)
	if err != nil {
		graphError(w, http.StatusBadRequest, "Request_BadRequest", "Invalid $skiptoken.")
		return
	}
	page := make([]object, 0, end-start)
	for _, o := range objs[start:end] {
		page = append(page, selected(o, q.Get("$select")))
	}
	body := map[string]any{"value": page}
	if next != "" {
		body["@odata.nextLink"] = next
	}
	if q.Get("$count") == "true" {
		body["@odata.count"] = len(objs)
	}
	writeJSON(w, http.StatusOK, body)
}

// selected returns the properties of o that sel ($select) names, with id
// and @odata.type always.
func selected(o object, sel string) object {
	if sel == "" {
		return o
	}
	out := object{"id": o["id"]}
	if t, ok := o["@odata.type"]; ok {
		out["@odata.type"] = t
	}
	for _, p := range strings.Split(sel, ",") {
		if v, ok := o[strings.TrimSpace(p)]; ok {
			out[strings.TrimSpace(p)] = v
		}
	}
	return out
}
