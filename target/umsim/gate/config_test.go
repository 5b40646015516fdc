package gate

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestNewRejectsBadConfig(t *testing.T) {
	t.Parallel()
	good := testKeys()[0].in
	noCert := good
	noCert.ClientID, noCert.CertificatePEM = "other", "not a certificate"
	noSecret := good
	noSecret.ClientID, noSecret.ClientSecret = "third", ""
	tests := []struct {
		name  string
		cfg   Config
		wants []string // substrings of the error, all reported at once
	}{
		{"org id", Config{OrgID: "acme"}, []string{`OrgID "acme": must be <hex>@VendorOrg`}},
		{"integrations", Config{OrgID: testOrg, Integrations: []Integration{good, good, noCert, noSecret}}, []string{
			`Integrations[1].ClientID "` + good.ClientID + `": duplicate`,
			"Integrations[2].CertificatePEM: no PEM block",
			"Integrations[3].ClientSecret: required",
		}},
		{"numbers", Config{OrgID: testOrg, TokenLifetime: -time.Second, Limits: Limits{Read: -1},
			Faults: Faults{ErrorRate: 1.5, DropRate: 0.5, Latency: -1}}, []string{
			"TokenLifetime -1s: must not be negative",
			"Limits",
			"ErrorRate 1.5: must lie in [0, 1]",
			"DropRate+ErrorRate+AmbiguousRate 2: must not exceed 1",
			"Latency -1ns: must not be negative",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.cfg, http.NotFoundHandler())
			if err == nil {
				t.Fatal("New accepted a bad config")
			}
			for _, w := range tt.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), good.ClientSecret) {
				t.Errorf("error echoes a client secret: %q", err)
			}
		})
	}
}

func TestNewAcceptsDefaults(t *testing.T) {
	t.Parallel()
	g, err := New(Config{OrgID: testOrg}, http.NotFoundHandler())
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if g.tokens.lifetime != 24*time.Hour || g.limiter.limits.Window != time.Minute || g.clock == nil {
		t.Errorf("defaults: lifetime %v, window %v; want 24h, 1m and a clock", g.tokens.lifetime, g.limiter.limits.Window)
	}
}
