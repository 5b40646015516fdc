package umsim

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/orgsync/orgsync/target/umwire"
)

// inviteQuery holds the parsed query of the invite listings.
type inviteQuery struct {
	start          int
	includeExpired bool
	byEmail        bool
	desc           bool
}

// parseInviteQuery parses the invite listings' query; withPage allows (and
// reads) the page parameter, the first entry to answer.
func parseInviteQuery(r *http.Request, withPage bool) (inviteQuery, error) {
	q := inviteQuery{desc: true}
	allowed := []string{"includeExpired", "sortColumn", "sortOrder"}
	if withPage {
		allowed = append(allowed, "page")
		start, err := parsePage(r.URL.Query().Get("page"))
		if err != nil {
			return q, err
		}
		q.start = start
	}
	if err := onlyParams(r, allowed...); err != nil {
		return q, err
	}
	var err error
	if q.includeExpired, err = boolParam(r, "includeExpired", true); err != nil {
		return q, err
	}
	if q.byEmail, err = choiceParam(r, "sortColumn", umwire.SortLastSent, umwire.SortEmail); err != nil {
		return q, err
	}
	asc, err := choiceParam(r, "sortOrder", umwire.SortDesc, umwire.SortAsc)
	q.desc = !asc
	return q, err
}

// choiceParam reads the query parameter name, which may be empty or def
// (false) or alt (true); any other value is an error.
func choiceParam(r *http.Request, name, def, alt string) (bool, error) {
	switch v := r.URL.Query().Get(name); v {
	case "", def:
		return false, nil
	case alt:
		return true, nil
	default:
		return false, fmt.Errorf("%s %q: want %s or %s", name, v, alt, def)
	}
}

// expired reports whether in has expired at the server's clock.
func (s *Server) expired(in *invite) bool {
	return s.opts.Clock().UnixMilli() >= in.lastSent+s.opts.InviteExpiry.Milliseconds()
}

// selectInvites filters and sorts invites for q.
func (s *Server) selectInvites(ins []*invite, q inviteQuery) []umwire.Invite {
	out := make([]umwire.Invite, 0, len(ins))
	for _, in := range ins {
		if q.includeExpired || !s.expired(in) {
			out = append(out, umwire.Invite{Email: in.email, InviteCode: in.code, LastSentDTS: in.lastSent, InvitedBy: in.invitedBy})
		}
	}
	slices.SortStableFunc(out, func(a, b umwire.Invite) int {
		c := 0
		if q.byEmail {
			c = strings.Compare(strings.ToLower(a.Email), strings.ToLower(b.Email))
		} else if a.LastSentDTS != b.LastSentDTS {
			c = -1
			if a.LastSentDTS > b.LastSentDTS {
				c = 1
			}
		}
		if q.desc {
			c = -c
		}
		return c
	})
	return out
}

// listInvites is endpoint 5's listing: page is the 0-based start entry.
func (s *Server) listInvites(w http.ResponseWriter, r *http.Request) {
	q, err := parseInviteQuery(r, true)
	if err != nil {
		writeInviteError(w, http.StatusBadRequest, umwire.InviteBadRequest, err.Error())
		return
	}
	s.mu.Lock()
	list := s.selectInvites(s.st.sortedInvites(), q)
	s.mu.Unlock()
	if len(list) == 0 {
		writeInviteError(w, http.StatusNotFound, umwire.InviteNotFound, "the organization has no pending invites")
		return
	}
	from := min(q.start, len(list))
	writeJSON(w, http.StatusOK, list[from:min(from+s.opts.InvitePageSize, len(list))])
}

// queryInvites answers one user's invites.
func (s *Server) queryInvites(w http.ResponseWriter, r *http.Request, email string) {
	q, err := parseInviteQuery(r, false)
	if err != nil {
		writeInviteError(w, http.StatusBadRequest, umwire.InviteBadRequest, err.Error())
		return
	}
	s.mu.Lock()
	var list []umwire.Invite
	if in := s.st.invites[strings.ToLower(email)]; in != nil {
		list = s.selectInvites([]*invite{in}, q)
	}
	s.mu.Unlock()
	if len(list) == 0 {
		writeInviteError(w, http.StatusNotFound, umwire.InviteNotFound, "no pending invite for "+email)
		return
	}
	writeJSON(w, http.StatusOK, list)
}

// inviteRoute serves resend (POST) and revoke (DELETE) of one invite.
func (s *Server) inviteRoute(email string) route {
	return route{serve: func(w http.ResponseWriter, r *http.Request) {
		if len(r.URL.Query()) > 0 {
			writeInviteError(w, http.StatusBadRequest, umwire.InviteBadRequest, "resend and revoke take no query parameters")
			return
		}
		var ok bool
		switch r.Method {
		case http.MethodPost:
			ok = s.resend(email)
		case http.MethodDelete:
			ok = s.revoke(email)
		default:
			w.Header().Set("Allow", "POST, DELETE")
			writeInviteError(w, http.StatusMethodNotAllowed, umwire.InviteBadRequest, "use POST to resend or DELETE to revoke")
			return
		}
		if !ok {
			writeInviteError(w, http.StatusNotFound, umwire.InviteNotFound, "no pending invite for "+email)
			return
		}
		writeJSON(w, http.StatusOK, umwire.InviteStatus{Status: umwire.ResultSuccess})
	}}
}

// resend sends an invite again, which restarts its expiry.
func (s *Server) resend(email string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := strings.ToLower(email)
	in := s.pending(key)
	if in == nil {
		return false
	}
	c := in.clone()
	c.lastSent = s.opts.Clock().UnixMilli()
	s.st.putInvite(key, c)
	return true
}

// revoke deletes email's pending invite; false when there is none.
func (s *Server) revoke(email string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := strings.ToLower(email)
	if s.pending(key) == nil {
		return false
	}
	s.st.putInvite(key, nil)
	return true
}

// pending returns the invite of key that resend and revoke act on: a
// pending one, or with Options.ResendExpired an expired one too.
func (s *Server) pending(key string) *invite {
	in := s.st.invites[key]
	if in == nil || (s.expired(in) && !s.opts.ResendExpired) {
		return nil
	}
	return in
}

// ErrNoInvite is returned by AcceptInvite when the email has no pending
// invite; ErrInviteExpired when it has expired.
var (
	ErrNoInvite      = errors.New("umsim: no pending invite")
	ErrInviteExpired = errors.New("umsim: the invite has expired")
)

// AcceptInvite does what following the emailed link does: the independent
// ID becomes an active member of the organization with the memberships
// kept with the invite (those whose groups still exist).
func (s *Server) AcceptInvite(email string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := strings.ToLower(email)
	in := s.st.invites[key]
	switch {
	case in == nil:
		return fmt.Errorf("accept %s: %w", email, ErrNoInvite)
	case s.expired(in):
		return fmt.Errorf("accept %s: %w", email, ErrInviteExpired)
	}
	u := s.st.byVendor[key]
	if u == nil {
		u = &user{
			id: s.st.newID(), email: in.email, username: in.email, domain: emailDomain(in.email),
			firstName: in.firstName, lastName: in.lastName, country: in.country,
			typ: umwire.TypeVendorID, status: umwire.StatusActive,
		}
		s.st.addUser(u)
	}
	for _, name := range in.groups {
		if g := s.st.group(name); g != nil {
			s.st.addMember(u, g)
		}
	}
	s.st.putInvite(key, nil)
	return nil
}
