package okta_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/source/internal/restapi/restapitest"
	"github.com/orgsync/orgsync/source/internal/sourcetest"
	"github.com/orgsync/orgsync/source/okta"
	"github.com/orgsync/orgsync/source/okta/oktafake"
)

// dpopOrg starts the demo organization with a service app (that requires
// DPoP when require is set), and returns it and a configuration signing
// in as that app.
func dpopOrg(t *testing.T, o oktafake.Options, require bool) (*oktafake.Server, okta.Config) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	org := oktafake.Demo()
	org.Apps = []oktafake.App{{ClientID: "0oa-dpop", Key: &key.PublicKey, Scopes: okta.DefaultScopes, RequireDPoP: require}}
	s := oktafake.Start(org, o)
	t.Cleanup(s.Close)
	path := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600); err != nil {
		t.Fatal(err)
	}
	return s, okta.Config{OrgURL: s.URL, ClientID: "0oa-dpop", PrivateKey: secret.Ref{File: path}}
}

// TestDPoPReadWithPagingAndRetries: an app that requires DPoP is read in
// full with pages of 2, a server error, a 429, a dropped connection and
// the API asking for a new nonce every 3 requests: the token endpoint's nonce round trip
// happens once, each request (page, retry) carries a fresh proof the
// fake accepts. auto first asks without a proof (refused once), always
// does not.
func TestDPoPReadWithPagingAndRetries(t *testing.T) {
	t.Parallel()
	for mode, wantRefused := range map[string]int{"": 1, "auto": 1, "always": 0} {
		s, cfg := dpopOrg(t, oktafake.Options{DPoPNonceEvery: 3, Faults: map[int]int{2: 500, 4: 429, 6: 0}}, true)
		cfg.DPoP, cfg.PageSize = mode, 2
		res, err := read(t, cfg, rules)
		if err != nil {
			t.Fatalf("dpop %q: %v", mode, err)
		}
		got := sourcetest.GroupsByEmail(res.Users)
		if len(got) != demoRead || !slices.Equal(got["carol@example.com"], []string{"Design", "Marketing"}) {
			t.Errorf("dpop %q: users %v", mode, got)
		}
		st, d := s.Stats(), s.DPoPStats()
		if st.Requests < 9 || st.Faults != 3 {
			t.Errorf("dpop %q: API stats %+v: want pages and 3 faults", mode, st)
		}
		if d.TokenChallenges != 1 || d.APIChallenges == 0 || d.Refused != wantRefused || d.Proofs < 6 {
			t.Errorf("dpop %q: DPoP stats %+v: want 1 token nonce challenge, API challenges, %d refused", mode, d, wantRefused)
		}
	}
}

// TestEachTokenRequestSignsANewAssertion: the token endpoint answers the
// first token requests 429 and 503 after reading their assertion, then
// asks for DPoP and a nonce: every attempt carries an assertion with a
// jti of its own (the fake refuses a jti seen before), so sign-in
// succeeds.
func TestEachTokenRequestSignsANewAssertion(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"auto", "always"} {
		clk := restapitest.NewClock()
		_, cfg := dpopOrg(t, oktafake.Options{TokenFaults: map[int]int{1: 429, 2: 503}, Now: clk.Now}, true)
		cfg.DPoP = mode
		res, err := readOn(t, clk, cfg, rules)
		if err != nil {
			t.Fatalf("dpop %s: %v", mode, err)
		}
		waitedAWindow(t, clk)
		if res.Users.Len() != demoRead {
			t.Errorf("dpop %s: %d users, want %d", mode, res.Users.Len(), demoRead)
		}
	}
}

// TestDPoPNever: with dpop never, an app that requires DPoP fails the
// read with Okta's error and the setting to change, and no proof, key or
// assertion in the message.
func TestDPoPNever(t *testing.T) {
	t.Parallel()
	_, cfg := dpopOrg(t, oktafake.Options{}, true)
	cfg.DPoP = "never"
	_, err := read(t, cfg, rules)
	if err == nil || !strings.Contains(err.Error(), "invalid_dpop_proof") || !strings.Contains(err.Error(), "set dpop to auto or always") {
		t.Fatalf("read: %v, want invalid_dpop_proof and the setting", err)
	}
	if strings.Contains(err.Error(), "eyJ") || strings.Contains(err.Error(), "PRIVATE KEY") {
		t.Errorf("the error shows a JWT or a key: %v", err)
	}
}

// TestDPoPNotRequired: auto and never sign in to an app that does not
// require DPoP with Bearer tokens and no proof.
func TestDPoPNotRequired(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"auto", "never"} {
		s, cfg := dpopOrg(t, oktafake.Options{}, false)
		cfg.DPoP = mode
		if res, err := read(t, cfg, rules); err != nil || res.Users.Len() != demoRead {
			t.Errorf("dpop %q: %v", mode, err)
		}
		if d := s.DPoPStats(); d != (oktafake.DPoPStats{}) {
			t.Errorf("dpop %q: DPoP stats %+v, want no proof", mode, d)
		}
	}
}

func TestValidateDPoP(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cfg  okta.Config
		want bool
	}{
		{okta.Config{OrgURL: "https://x.okta.com", ClientID: "c", PrivateKey: secret.Ref{Env: "K"}, DPoP: "always"}, true},
		{okta.Config{OrgURL: "https://x.okta.com", ClientID: "c", PrivateKey: secret.Ref{Env: "K"}, DPoP: "sometimes"}, false},
		{okta.Config{OrgURL: "https://x.okta.com", APIToken: secret.Ref{Env: "T"}, DPoP: "always"}, false},
	} {
		errs := c.cfg.Validate()
		if ok := len(errs) == 0; ok != c.want || !ok && errs[0].Field != "dpop" {
			t.Errorf("dpop %q: %v", c.cfg.DPoP, errs)
		}
	}
}
