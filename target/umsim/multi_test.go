package umsim

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/target/umsim/gate"
	"github.com/orgsync/orgsync/target/umwire"
)

const otherOrg = "0FEDCBA9@VendorOrg"

// twoStates returns testdata/org.yaml and a second organization like it
// with its own id, client id and one user.
func twoStates(t *testing.T) []SeedOrg {
	t.Helper()
	a, err := LoadState("testdata/org.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b, err := LoadState("testdata/org.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b.Org.ID = otherOrg
	b.Integrations[0].ClientID = "other-client"
	b.Users = b.Users[:1]
	b.Invites = nil
	return []SeedOrg{{State: *a}, {State: *b}}
}

// multiToken gets an access token for client from the multi-organization
// simulator at base.
func multiToken(t *testing.T, base, client string) string {
	t.Helper()
	form := url.Values{umwire.FormGrantType: {umwire.GrantClientCredentials}, umwire.FormClientID: {client},
		umwire.FormClientSecret: {"sim-secret"}}
	resp, err := http.PostForm(base+umwire.PathClientCredentials, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tr umwire.TokenResponse
	if err := json.NewDecoder(resp.Body).Decode(&tr); err != nil || tr.AccessToken == "" {
		t.Fatalf("token for %s: status %d, %v", client, resp.StatusCode, err)
	}
	return tr.AccessToken
}

// get sends an authenticated GET and returns the status and body.
func get(t *testing.T, url, token, client string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set(umwire.HeaderAPIKey, client)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	_, _ = io.Copy(&b, resp.Body)
	return resp.StatusCode, b.String()
}

func TestMultiRoutesByOrgAndClient(t *testing.T) {
	t.Parallel()
	seed := twoStates(t)
	seed[1].Limits = &gate.Limits{Read: 1} // its own, instead of the Options'
	m, err := NewMulti(seed, Options{Limits: gate.Limits{Read: 2}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(m)
	defer hs.Close()
	tokA, tokB := multiToken(t, hs.URL, testClient), multiToken(t, hs.URL, "other-client")
	status, body := get(t, hs.URL+umwire.BasePath+"/users/"+otherOrg+"/0", tokB, "other-client")
	if status != http.StatusOK || strings.Count(body, `"email"`) != 1 {
		t.Fatalf("other org's listing with its token: %d %s", status, body)
	}
	if status, _ := get(t, hs.URL+umwire.BasePath+"/users/"+otherOrg+"/0", tokA, testClient); status != http.StatusUnauthorized {
		t.Errorf("other org with the first org's token: %d, want 401", status)
	}
	if status, _ := get(t, hs.URL+umwire.BasePath+"/users/"+testOrg+"/0", tokA, testClient); status != http.StatusOK {
		t.Errorf("first org: %d", status)
	}
	// Each organization has its own limits: the other's read limit of 1
	// (from its seed) answers 429 while the first org's 2 still admit.
	if status, _ := get(t, hs.URL+umwire.BasePath+"/users/"+otherOrg+"/0", tokB, "other-client"); status != http.StatusTooManyRequests {
		t.Errorf("other org's second read: %d, want 429 (its own limit of 1)", status)
	}
	if status, _ := get(t, hs.URL+umwire.BasePath+"/users/"+testOrg+"/0", tokA, testClient); status != http.StatusOK {
		t.Errorf("first org's second read: %d, want 200 (limits are per organization)", status)
	}
	st := m.Stats()
	if st[testOrg].Count(gate.EndpointUsers, 200) != 2 || st[otherOrg].Count(gate.EndpointUsers, 200) != 1 ||
		st[otherOrg].TooManyRequests != 1 || st[testOrg].TooManyRequests != 0 || st[otherOrg].Count(gate.EndpointToken, 200) != 1 {
		t.Errorf("statistics per organization: %+v", st)
	}
	if status, body := get(t, hs.URL+"/_sim/orgs/"+otherOrg+"/state", "", ""); status != 200 || !strings.Contains(body, otherOrg) || strings.Contains(body, testOrg) {
		t.Errorf("/_sim/orgs/{orgId}/state: %d %s", status, body)
	}
	if status, _ := get(t, hs.URL+"/_sim/orgs/0BAD@VendorOrg/state", "", ""); status != http.StatusNotFound {
		t.Errorf("unknown organization's admin endpoint: %d", status)
	}
}

func TestLoadSeedOfSeveralOrganizations(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"integration-cert.pem"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	org := func(id, client string) string {
		return "  - org: {id: " + id + "}\n    integrations:\n      - {clientID: " + client +
			", clientSecret: s, technicalAccountID: t@techacct.example.com, certificateFile: integration-cert.pem}\n"
	}
	good := filepath.Join(dir, "good.yaml")
	if err := os.WriteFile(good, []byte("orgs:\n"+org("0A@VendorOrg", "a")+org("0B@VendorOrg", "b")+"    limits: {read: 5, app: 20, window: 5s}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	states, err := LoadSeed(good)
	if err != nil || len(states) != 2 || states[1].Org.ID != "0B@VendorOrg" || states[1].Integrations[0].Certificate == "" {
		t.Fatalf("LoadSeed = %v, %v", states, err)
	}
	if l := states[1].Limits; states[0].Limits != nil || l == nil || *l != (gate.Limits{Read: 5, App: 20, Window: 5 * time.Second}) {
		t.Errorf("limits = %v, %v", states[0].Limits, l)
	}
	// Saved and loaded again, the organizations and their limits stay.
	m, err := NewMulti(states, Options{})
	if err != nil {
		t.Fatal(err)
	}
	saved := filepath.Join(dir, "saved.yaml")
	if err := m.SaveState(saved); err != nil {
		t.Fatal(err)
	}
	if again, err := LoadSeed(saved); err != nil || len(again) != 2 || again[1].Limits == nil || again[1].Limits.App != 20 {
		t.Errorf("saved seed loads as %v, %v", again, err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("orgs:\n"+org("0A@VendorOrg", "a")+org("0a@VendorOrg", "a")+org("nope", "c")), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = LoadSeed(bad)
	for _, want := range []string{
		"bad.yaml:5: orgs[1].org.id: organization 0a@VendorOrg is already orgs[0]",
		"bad.yaml:7: orgs[1].integrations[0].clientID: client id is already an integration of orgs[0]",
		`bad.yaml:8: orgs[2].org.id: "nope" is not an organization id`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("LoadSeed(bad): want %q in %v", want, err)
		}
	}
	single, err := LoadSeed("testdata/org.yaml")
	if err != nil || len(single) != 1 || single[0].Org.ID != testOrg {
		t.Errorf("LoadSeed of one organization = %v, %v", single, err)
	}
}
