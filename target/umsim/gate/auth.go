package gate

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/orgsync/orgsync/target/umwire"
)

// Endpoint names of Stats.Requests.
const (
	EndpointUsers      = "users"      // 1: GET /users/{orgId}/{page}
	EndpointGroupUsers = "groupUsers" // 2: GET /users/{orgId}/{page}/{groupName}
	EndpointUser       = "user"       // 3: GET /organizations/{orgId}/users/{userString}
	EndpointAction     = "action"     // 4: POST /action/{orgId}
	EndpointInvites    = "invites"    // 5: /{orgId}/invites/... and /organizations/{orgId}/invites/{email}
	EndpointProducts   = "products"   // 6: GET /{orgId}/products/
	EndpointAllUsers   = "allUsers"   // 7: GET /{orgId}/users
	EndpointGroups     = "groups"     // GET /groups/{orgId}/{page}: user groups and product profiles
	EndpointToken      = "token"      // both token endpoints
	EndpointOther      = "other"      // any other path under umwire.BasePath
)

// endpoint is a classified API request.
type endpoint struct {
	name string
	org  string // the orgId path segment; "" for EndpointOther
}

// limitedPerClient reports whether the endpoint counts against the
// per-token limit (endpoints 1-3, and the group listing, a read too).
func (e endpoint) limitedPerClient() bool {
	return e.name == EndpointUsers || e.name == EndpointGroupUsers || e.name == EndpointUser || e.name == EndpointGroups
}

// classify names the endpoint of a path under umwire.BasePath and extracts
// its orgId.
func classify(path string) endpoint {
	seg := strings.Split(strings.TrimPrefix(strings.TrimPrefix(path, umwire.BasePath), "/"), "/")
	n := len(seg)
	switch {
	case seg[0] == "users" && n >= 3:
		if n == 3 {
			return endpoint{EndpointUsers, seg[1]}
		}
		return endpoint{EndpointGroupUsers, seg[1]}
	case seg[0] == "groups" && n == 3:
		return endpoint{EndpointGroups, seg[1]}
	case seg[0] == "organizations" && n >= 4 && seg[2] == "users":
		return endpoint{EndpointUser, seg[1]}
	case seg[0] == "organizations" && n >= 4 && seg[2] == "invites":
		return endpoint{EndpointInvites, seg[1]}
	case seg[0] == "action" && n >= 2:
		return endpoint{EndpointAction, seg[1]}
	case n >= 2 && seg[1] == "invites":
		return endpoint{EndpointInvites, seg[0]}
	case n >= 2 && seg[1] == "products":
		return endpoint{EndpointProducts, seg[0]}
	case n == 2 && seg[1] == "users":
		return endpoint{EndpointAllUsers, seg[0]}
	}
	return endpoint{name: EndpointOther}
}

// OrgInPath returns the orgId segment of an API path under
// umwire.BasePath, or "" when the path names no endpoint with one.
func OrgInPath(path string) string { return classify(path).org }

// session is what an authorized request carries.
type session struct {
	token    string
	clientID string
}

// authorize runs checks 1-5 of the package comment. When one fails it
// writes the answer and reports false.
func (g *Gate) authorize(w http.ResponseWriter, r *http.Request, ep endpoint) (session, bool) {
	token, ok := bearerToken(r)
	if !ok {
		unauthorized(w)
		return session{}, false
	}
	now := g.clock()
	claims, err := g.tokens.verify(token, now)
	in := g.integrations[claims.Subject]
	if err != nil || in == nil {
		unauthorized(w)
		return session{}, false
	}
	switch {
	case in.expired(now):
		writeGateError(w, r, ep, http.StatusBadRequest, umwire.ResultError,
			"the integration's certificate has expired; upload a new certificate")
	case r.Header.Get(umwire.HeaderAPIKey) != in.ClientID:
		w.WriteHeader(http.StatusForbidden)
	case ep.name != EndpointOther && !umwire.IsOrgID(ep.org):
		writeGateError(w, r, ep, http.StatusBadRequest, umwire.ErrOrgInvalidID,
			"organization id must be "+umwire.OrgIDForm)
	case ep.name != EndpointOther && ep.org != claims.Org:
		unauthorized(w)
	case g.migrating:
		w.WriteHeader(http.StatusForbidden)
	default:
		return session{token: token, clientID: in.ClientID}, true
	}
	return session{}, false
}

// bearerToken returns the token of an "Authorization: Bearer" header.
func bearerToken(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimSpace(token)
	return token, ok && strings.EqualFold(scheme, "Bearer") && token != ""
}

// unauthorized writes the 401 of the specification: the WWW-Authenticate
// header and an empty body.
func unauthorized(w http.ResponseWriter) {
	w.Header().Set("WWW-Authenticate", umwire.WWWAuthenticateInvalid)
	w.WriteHeader(http.StatusUnauthorized)
}

// writeGateError writes an error the gate generates itself (not 401, 403
// or 429, whose shapes are the same everywhere) in the body shape of the
// endpoint: {status, statusMessage} on the invite endpoints (specification
// endpoint 5, contract 7), {result, message} on the others.
func writeGateError(w http.ResponseWriter, r *http.Request, ep endpoint, code int, result, msg string) {
	if ep.name == EndpointInvites {
		writeJSON(w, code, umwire.InviteError{Status: inviteStatus(r.Method, code), StatusMessage: msg})
		return
	}
	writeJSON(w, code, umwire.ErrorBody{Result: result, Message: msg})
}

// inviteStatus is the status code of an invite error body: the contract's
// codes for server errors while resending (POST) or revoking (DELETE).
func inviteStatus(method string, code int) string {
	switch {
	case code < http.StatusInternalServerError:
		return umwire.InviteBadRequest
	case method == http.MethodPost:
		return umwire.InviteResendError
	case method == http.MethodDelete:
		return umwire.InviteRevokeError
	}
	return umwire.InviteServerError
}

// writeJSON writes v as the JSON body of an answer with status code.
func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v) // the client may have left; nothing to do then
}
