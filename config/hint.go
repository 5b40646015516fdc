package config

import (
	"errors"
	"fmt"
	"net/url"

	"github.com/orgsync/orgsync/internal/util/outbound"
	"github.com/orgsync/orgsync/target/umapi"
	"github.com/orgsync/orgsync/target/umwire"
)

// Hint adds to err, an error from organization t's service, the keys of
// the configuration file to check and what to do: the service client
// knows nothing of the file, its errors say what failed and where on the
// network (an address, the service's own field names). Other errors are
// returned as they are.
func (t *NamedTarget) Hint(err error) error {
	var ue *umapi.UnreachableError
	var ae *umapi.APIError
	var ce *umapi.ConfigError
	var re *outbound.RedirectError
	switch {
	case errors.As(err, &re):
		return fmt.Errorf("%w; check %s", err, t.redirectedKey(re))
	case errors.As(err, &ce):
		return errors.Join(t.clientProblems(ce)...)
	case errors.As(err, &ue):
		return fmt.Errorf("%w; %s", err, t.unreachableHint(ue))
	case umapi.IsAuthFailure(err) && errors.As(err, &ae):
		return fmt.Errorf("%w; %s", err, t.refusedHint(ae))
	}
	return err
}

// urlKey is the key of the address an endpoint's requests go to:
// authBaseURL for the token endpoint when it is set apart from baseURL.
func (t *NamedTarget) urlKey(endpoint string) string {
	if endpoint == umapi.EndpointToken && t.AuthBaseURL != t.BaseURL {
		return t.path + ".authBaseURL"
	}
	return t.path + ".baseURL"
}

// redirectedKey is the key of the address that answered with a redirect
// to another origin: authBaseURL when it is set apart and answered.
func (t *NamedTarget) redirectedKey(re *outbound.RedirectError) string {
	if u, err := url.Parse(t.AuthBaseURL); err == nil && t.AuthBaseURL != t.BaseURL && outbound.Origin(u) == re.From {
		return t.path + ".authBaseURL"
	}
	return t.path + ".baseURL"
}

// unreachableHint says what to check when an address cannot be used.
func (t *NamedTarget) unreachableHint(ue *umapi.UnreachableError) string {
	key := t.urlKey(ue.Endpoint)
	switch ue.Reason {
	case umapi.ReasonPlainHTTP:
		return fmt.Sprintf("check the scheme of %s: this server speaks plain HTTP, so its address starts with http://", key)
	case umapi.ReasonNotService:
		return fmt.Sprintf("check %s: it is the service's own address, as its administrator gives it, without the API path %s (orgsync adds it)", key, umwire.BasePath)
	case umapi.ReasonNoAnswer:
		return fmt.Sprintf("check %s, and that no proxy or firewall between this host and the service holds the connection; if the service is only slow, raise %s.timeouts.request (now %s)",
			key, t.path, t.Timeouts.Request)
	}
	return fmt.Sprintf("check %s and that the service is running and reachable from this host", key)
}

// refusedHint says what to check when the service refused the sign-in or
// the organization: the service's message names a field of its own
// request (client_id, iss, sub), the hint the keys of the file.
func (t *NamedTarget) refusedHint(ae *umapi.APIError) string {
	if ae.Endpoint == umapi.EndpointToken {
		return fmt.Sprintf("the service refused the sign-in: check %s.orgId (%s) and %[1]s.auth (clientId, clientSecret, technicalAccountId, privateKey): they must be those of that organization's integration",
			t.path, t.OrgID)
	}
	return fmt.Sprintf("check %s.orgId (%s) and that the integration %[1]s.auth.clientId may manage that organization's users", t.path, t.OrgID)
}
