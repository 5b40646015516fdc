package umsim

import (
	"net/http"
	"strings"

	"github.com/orgsync/orgsync/target/umwire"
)

const adminPrefix = "/_sim/"

// serveAdmin answers the simulator's own endpoints.
func (s *Server) serveAdmin(w http.ResponseWriter, r *http.Request) {
	seg, _ := segments(r, strings.TrimSuffix(adminPrefix, "/"))
	switch {
	case len(seg) == 3 && seg[0] == "invites" && seg[2] == "accept" && r.Method == http.MethodPost:
		err := s.AcceptInvite(seg[1])
		if err != nil {
			writeInviteError(w, http.StatusNotFound, umwire.InviteNotFound, err.Error())
			return
		}
		writeJSON(w, http.StatusOK, umwire.InviteStatus{Status: umwire.ResultSuccess})
	case len(seg) == 1 && seg[0] == "state" && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, redacted(s.Snapshot()))
	default:
		writeError(w, r, http.StatusNotFound, umwire.ResultError, "no such simulator endpoint (POST /_sim/invites/{email}/accept, GET /_sim/state)")
	}
}

// redacted blanks the integrations' secrets of a state shown over HTTP.
func redacted(st *State) *State {
	for i := range st.Integrations {
		st.Integrations[i].ClientSecret = "[redacted]"
	}
	return st
}
