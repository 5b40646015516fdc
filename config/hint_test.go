package config

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/util/outbound"
	"github.com/orgsync/orgsync/target/umapi"
)

// Hint names the key of the address that failed (baseURL, or authBaseURL
// when it is set apart), at the target's path, and what to do for each
// reason; other errors pass unchanged.
func TestHintNamesTheKeyToFix(t *testing.T) {
	t.Parallel()
	one := &NamedTarget{path: "target", Target: Target{BaseURL: "http://a", AuthBaseURL: "http://a", OrgID: "1@VendorOrg", Timeouts: Timeouts{Request: 5 * time.Second}}}
	two := &NamedTarget{path: "targets[1]", Target: Target{BaseURL: "http://a", AuthBaseURL: "http://b"}}
	unreachable := func(endpoint string, r umapi.Reason) error {
		return fmt.Errorf("reading: %w", &umapi.UnreachableError{Endpoint: endpoint, URL: "http://a", Attempts: 1, Reason: r, Err: errors.New("x")})
	}
	for _, c := range []struct {
		t    *NamedTarget
		err  error
		want []string
	}{
		{one, unreachable(umapi.EndpointToken, umapi.ReasonNoAnswer), []string{"check target.baseURL", "raise target.timeouts.request (now 5s)"}},
		{one, unreachable(umapi.EndpointUser, umapi.ReasonRefused), []string{"check target.baseURL and that the service is running"}},
		{one, unreachable(umapi.EndpointToken, umapi.ReasonPlainHTTP), []string{"check the scheme of target.baseURL", "http://"}},
		{two, unreachable(umapi.EndpointToken, umapi.ReasonUnknownHost), []string{"check targets[1].authBaseURL"}},
		{two, unreachable(umapi.EndpointOrgUsers, umapi.ReasonNoAnswer), []string{"check targets[1].baseURL", "targets[1].timeouts.request"}},
		{one, &umapi.APIError{Endpoint: umapi.EndpointToken, StatusCode: 400}, []string{"refused the sign-in", "target.auth"}},
		{one, &umapi.APIError{Endpoint: umapi.EndpointOrgUsers, StatusCode: 403}, []string{"target.orgId (1@VendorOrg)"}},
		{two, fmt.Errorf("sign-in: %w", &outbound.RedirectError{From: "http://b:80", To: "http://c:80", Status: 307}), []string{"check targets[1].authBaseURL"}},
		{two, &outbound.RedirectError{From: "http://a:80", To: "http://c:80", Status: 302}, []string{"check targets[1].baseURL"}},
	} {
		got := c.t.Hint(c.err).Error()
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("Hint(%v) = %q, want it to say %q", c.err, got, w)
			}
		}
	}
	plain := errors.New("boom")
	if one.Hint(plain) != plain {
		t.Error("Hint changed an error of another kind")
	}
}
