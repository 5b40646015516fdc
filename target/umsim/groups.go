package umsim

import (
	"cmp"
	"net/http"
	"slices"

	"github.com/orgsync/orgsync/target/umwire"
)

// listGroups is the group listing, GET /groups/{orgId}/{page}: the user
// groups and product profiles (not the admin groups) in creation order,
// as many a page as the user listings hold, with the same page headers.
// A page past the last answers the last, as the user listings do.
func (s *Server) listGroups(w http.ResponseWriter, r *http.Request, page string) {
	q, err := parseListQuery(r, page, true)
	if err != nil {
		writeError(w, r, http.StatusBadRequest, umwire.ErrRequestMalformed, err.Error())
		return
	}
	s.mu.Lock()
	list := s.st.listedGroups()
	size := s.opts.PageSize
	pages := max(1, (len(list)+size-1)/size)
	cur := min(q.page, pages-1)
	body := umwire.GroupsPage{LastPage: cur == pages-1, Result: umwire.ResultSuccess, Groups: []umwire.Group{}}
	for _, g := range list[cur*size : min((cur+1)*size, len(list))] {
		body.Groups = append(body.Groups, wireGroup(g))
	}
	s.mu.Unlock()
	pageHeaders{total: len(list), pages: pages, current: cur, size: len(body.Groups)}.write(w)
	writeJSON(w, http.StatusOK, body)
}

// listedGroups are the user groups and product profiles in creation order.
func (s *store) listedGroups() []*group {
	var list []*group
	for _, g := range s.groups {
		if g.kind != kindAdmin {
			list = append(list, g)
		}
	}
	slices.SortFunc(list, func(a, b *group) int { return cmp.Compare(a.seq, b.seq) })
	return list
}

// wireGroup renders a group as the group listing shows it.
func wireGroup(g *group) umwire.Group {
	wg := umwire.Group{GroupName: g.name, Type: umwire.GroupTypeUserGroup, MemberCount: len(g.members), AdminGroupName: "_admin_" + g.name}
	if g.kind == kindProfile {
		wg.Type = umwire.GroupTypeProductProfile
		if g.product != nil {
			wg.ProductName = g.product.name
		}
	}
	return wg
}
