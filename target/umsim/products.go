package umsim

import (
	"net/http"

	"github.com/orgsync/orgsync/target/umwire"
)

// listProducts is endpoint 6 (deprecated): page is the 0-based start entry.
func (s *Server) listProducts(w http.ResponseWriter, r *http.Request) {
	start, err := parsePage(r.URL.Query().Get("page"))
	if err == nil {
		err = onlyParams(r, "page")
	}
	if err != nil {
		writeError(w, r, http.StatusBadRequest, umwire.ErrRequestMalformed, err.Error())
		return
	}
	s.mu.Lock()
	out := make([]umwire.Product, 0, len(s.st.products))
	for _, p := range s.st.products[min(start, len(s.st.products)):] {
		out = append(out, umwire.Product{
			ID: p.id, Code: p.code, Name: p.name, UserCount: s.st.productUsers(p),
			ConfigurationCount: len(p.profiles), LicenseQuota: p.quota,
		})
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

// productUsers counts the users holding any profile of p, directly or
// through a user group.
func (s *store) productUsers(p *product) int {
	seen := map[*user]struct{}{}
	for _, g := range p.profiles {
		for _, u := range s.groupMembers(g, true) {
			seen[u] = struct{}{}
		}
	}
	return len(seen)
}
