package gate

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/orgsync/orgsync/target/umwire"
)

// TestInviteEndpointsGetInviteErrorBodies checks that the errors the gate
// writes itself on the invite endpoints have the invite error shape
// {status, statusMessage} (contract 7), not {result, message}.
func TestInviteEndpointsGetInviteErrorBodies(t *testing.T) {
	t.Parallel()
	k := testKeys()
	expired := k[1].in
	expired.CertificateExpired = true
	e := newEnv(t, func(c *Config) { c.Integrations[1] = expired })
	tok, expiredTok := e.token(e.in), e.token(expired)
	b := umwire.BasePath
	tests := []struct {
		name, method, path, token, apiKey string
		faults                            Faults
		status                            int
		wantStatus                        string
	}{
		{"bad org id, list", http.MethodGet, b + "/acme/invites/", tok, e.in.ClientID, Faults{}, 400, umwire.InviteBadRequest},
		{"bad org id, query", http.MethodGet, b + "/organizations/acme/invites/jo@example.com", tok, e.in.ClientID, Faults{}, 400, umwire.InviteBadRequest},
		{"certificate expired", http.MethodGet, b + "/" + testOrg + "/invites/", expiredTok, expired.ClientID, Faults{}, 400, umwire.InviteBadRequest},
		{"injected error on resend", http.MethodPost, b + "/" + testOrg + "/invites/jo@example.com", tok, e.in.ClientID, Faults{ErrorRate: 1}, 0, umwire.InviteResendError},
		{"injected error on revoke", http.MethodDelete, b + "/" + testOrg + "/invites/jo@example.com", tok, e.in.ClientID, Faults{ErrorRate: 1}, 0, umwire.InviteRevokeError},
		{"injected error on list", http.MethodGet, b + "/" + testOrg + "/invites/", tok, e.in.ClientID, Faults{ErrorRate: 1}, 0, umwire.InviteServerError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.gate.SetFaults(tt.faults)
			resp := e.do(e.apiRequest(tt.method, tt.path, tt.token, tt.apiKey))
			if tt.status != 0 && resp.status != tt.status || tt.status == 0 && resp.status != 500 && resp.status != 503 {
				t.Fatalf("status %d, want %d (5xx when 0); body %q", resp.status, tt.status, resp.body)
			}
			var fields map[string]string
			if err := json.Unmarshal([]byte(resp.body), &fields); err != nil {
				t.Fatalf("body %q: %v", resp.body, err)
			}
			if len(fields) != 2 || fields["status"] != tt.wantStatus || fields["statusMessage"] == "" {
				t.Errorf("body %q, want exactly status %q and a statusMessage", resp.body, tt.wantStatus)
			}
		})
	}
	e.gate.SetFaults(Faults{})
	if e.calls.Load() != 0 {
		t.Errorf("API handler called %d times; the gate should have answered every request", e.calls.Load())
	}
}
