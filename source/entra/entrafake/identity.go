package entrafake

import (
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/orgsync/orgsync/source/internal/fakeapi"
)

// The paths of the managed identity endpoints the fake serves: the
// instance metadata service's (at http://169.254.169.254 on Azure) and
// App Service's (IDENTITY_ENDPOINT, here on the fake's own address).
const (
	IMDSPath       = "/metadata/identity/oauth2/token"
	AppServicePath = "/msi/token"
)

// The API versions of the managed identity endpoints.
const (
	IMDSVersion       = "2018-02-01"
	AppServiceVersion = "2019-08-01"
)

// identity serves a managed identity's token, as the instance metadata
// service and App Service document it: a GET with the header each checks
// ("Metadata: true"; X-IDENTITY-HEADER) and its API version, never one
// relayed by a proxy (the instance metadata service refuses
// X-Forwarded-For), the resource, and the identity: the user-assigned one
// of client_id, else the system-assigned one, else the only one. The
// instance metadata service answers Options.IMDSUpdating first.
func (s *Server) identity(w http.ResponseWriter, r *http.Request, header string) {
	q := r.URL.Query()
	imds := r.URL.Path == IMDSPath
	if status := s.updating(imds); status != 0 {
		http.Error(w, http.StatusText(status), status)
		return
	}
	switch {
	case r.Method != http.MethodGet:
		fakeapi.OAuthError(w, http.StatusMethodNotAllowed, "invalid_request", "Only GET is allowed.")
		return
	case imds && r.Header.Get("Metadata") != "true":
		fakeapi.OAuthError(w, http.StatusBadRequest, "invalid_request", "Required metadata header not specified")
		return
	case imds && r.Header.Get("X-Forwarded-For") != "":
		fakeapi.OAuthError(w, http.StatusBadRequest, "invalid_request", "Request contains X-Forwarded-For header")
		return
	case !imds && (header == "" || r.Header.Get("X-IDENTITY-HEADER") != header):
		fakeapi.OAuthError(w, http.StatusUnauthorized, "invalid_request", "The X-IDENTITY-HEADER is missing or does not match.")
		return
	case q.Get("api-version") == "":
		fakeapi.OAuthError(w, http.StatusBadRequest, "invalid_request", "Required query variable 'api-version' is missing")
		return
	case imds && q.Get("api-version") != IMDSVersion, !imds && q.Get("api-version") != AppServiceVersion:
		fakeapi.OAuthError(w, http.StatusBadRequest, "invalid_request", "Invalid API version "+q.Get("api-version"))
		return
	case q.Get("resource") != s.URL && q.Get("resource") != "https://graph.microsoft.com":
		fakeapi.OAuthError(w, http.StatusBadRequest, "invalid_resource", "AADSTS500011: The resource principal named "+q.Get("resource")+" was not found in the tenant.")
		return
	}
	id, desc := s.managedIdentity(q.Get("client_id"))
	if id == nil {
		fakeapi.OAuthError(w, http.StatusBadRequest, "invalid_request", desc)
		return
	}
	tok, life := s.tokens.Issue(id.Permissions...)
	expires := strconv.FormatInt(time.Now().Unix()+int64(life), 10)
	fakeapi.WriteJSON(w, http.StatusOK, map[string]any{"access_token": tok, "expires_in": strconv.Itoa(life), "expires_on": expires,
		"resource": q.Get("resource"), "token_type": "Bearer", "client_id": id.ClientID})
}

// updating returns the status the instance metadata service answers
// while it updates (Options.IMDSUpdating), 0 once it is done; imds says
// whether the request is the service's.
func (s *Server) updating(imds bool) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !imds {
		return 0
	}
	s.imdsRequests++
	if len(s.imdsUpdating) == 0 {
		return 0
	}
	status := s.imdsUpdating[0]
	s.imdsUpdating = s.imdsUpdating[1:]
	return status
}

// IMDSRequests returns how many requests the instance metadata service
// was sent.
func (s *Server) IMDSRequests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.imdsRequests
}

// managedIdentity returns the identity a token request names, or why
// there is none.
func (s *Server) managedIdentity(clientID string) (*ManagedIdentity, string) {
	ids := s.tenant.Identities
	if clientID != "" {
		if i := slices.IndexFunc(ids, func(m ManagedIdentity) bool { return !m.SystemAssigned && m.ClientID == clientID }); i >= 0 {
			return &ids[i], ""
		}
		return nil, "Identity not found"
	}
	if i := slices.IndexFunc(ids, func(m ManagedIdentity) bool { return m.SystemAssigned }); i >= 0 {
		return &ids[i], ""
	}
	switch len(ids) {
	case 0:
		return nil, "Identity not found"
	case 1:
		return &ids[0], ""
	}
	return nil, "Multiple user assigned identities exist, please specify the clientId / resourceId of the identity in the token request"
}
