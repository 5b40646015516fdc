package entrafake

import (
	"net/http"
	"slices"
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

// object returns the properties of a user.
func (u *User) object() object {
	o := object{"id": u.ID}
	for k, v := range u.Props {
		o[k] = v
	}
	return o
}

// object returns the properties of a group.
func (g *Group) object() object { return object{"id": g.ID, "displayName": g.DisplayName} }

// listUsers serves GET /users; a $select that names a property Graph
// does not know, or one it returns for a single user only, fails it.
func (s *Server) listUsers(w http.ResponseWriter, r *http.Request) {
	if msg := badUserSelect(r.URL.Query().Get("$select")); msg != "" {
		graphError(w, http.StatusBadRequest, "BadRequest", msg)
		return
	}
	s.serveList(w, r, s.userObjs)
}

// listGroups serves GET /groups.
func (s *Server) listGroups(w http.ResponseWriter, r *http.Request) { s.serveList(w, r, s.groupObjs) }

// group returns the group whose id is id; Graph's ids are GUIDs, in
// either case.
func (s *Server) group(id string) (*Group, bool) {
	if g, ok := s.groups[id]; ok {
		return g, true
	}
	for gid, g := range s.groups {
		if strings.EqualFold(gid, id) {
			return g, true
		}
	}
	return nil, false
}

// getGroup serves GET /groups/{id}.
func (s *Server) getGroup(w http.ResponseWriter, r *http.Request, id string) {
	g, ok := s.group(id)
	if !ok {
		graphError(w, http.StatusNotFound, "Request_ResourceNotFound", "Resource '"+id+"' does not exist or one of its queried reference-property objects are not present.")
		return
	}
	fakeapi.WriteJSON(w, http.StatusOK, selected(g.object(), r.URL.Query().Get("$select")))
}

// listMembers serves GET /groups/{id}/members and transitiveMembers;
// the members of a group whose membership is hidden need
// Member.Read.Hidden besides the permission to read groups.
func (s *Server) listMembers(w http.ResponseWriter, r *http.Request, id string, transitive bool, grants []string) {
	g, ok := s.group(id)
	if !ok {
		graphError(w, http.StatusNotFound, "Request_ResourceNotFound", "Resource '"+id+"' does not exist.")
		return
	}
	if g.HiddenMembership && !slices.Contains(grants, "Member.Read.Hidden") {
		graphError(w, http.StatusForbidden, "Authorization_RequestDenied", "Insufficient privileges to complete the operation.")
		return
	}
	s.serveList(w, r, s.members(g.ID, transitive))
}

// members returns the member objects of group id, through nested groups
// when transitive; computed once (the tenant does not change).
func (s *Server) members(id string, transitive bool) []object {
	key := memberKey{id, transitive}
	s.mu.Lock()
	defer s.mu.Unlock()
	if objs, ok := s.memberLists[key]; ok {
		return objs
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
			if o, ok := s.memberObjs[m]; ok {
				objs = append(objs, o)
			}
			if sub, ok := s.groups[m]; ok && transitive {
				add(sub)
			}
		}
	}
	add(s.groups[id])
	s.memberLists[key] = objs
	return objs
}

type memberKey struct {
	id         string
	transitive bool
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
		advanced := q.Get("$count") == "true" && strings.EqualFold(r.Header.Get("ConsistencyLevel"), "eventual")
		if objs, err = filter(objs, f, advanced); err != nil {
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
	fakeapi.WriteJSON(w, http.StatusOK, body)
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
