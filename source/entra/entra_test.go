package entra_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/secret/secrettest"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/csvfile"
	"github.com/orgsync/orgsync/source/entra"
	"github.com/orgsync/orgsync/source/entra/entrafake"
	"github.com/orgsync/orgsync/source/expr"
	"github.com/orgsync/orgsync/source/internal/clouddir"
	"github.com/orgsync/orgsync/source/internal/restapi/restapitest"
	"github.com/orgsync/orgsync/source/internal/sourcetest"
	"github.com/orgsync/orgsync/source/mapping"
)

var rules = sourcetest.DemoRules()

// config returns a configuration for the fake s, signing in with the demo
// secret from a file.
func config(t *testing.T, s *entrafake.Server) entra.Config {
	return entra.Config{TenantID: entrafake.DemoTenantID, ClientID: entrafake.DemoClientID,
		ClientSecret: secrettest.File(t, entrafake.DemoSecret), LoginURL: s.URL, GraphURL: s.URL}
}

func read(t *testing.T, cfg entra.Config, rules []mapping.Rule, callerChecks bool) (*source.Result, error) {
	t.Helper()
	return open(t, cfg, source.Options{Mapper: sourcetest.Mapper(t, rules), CallerChecksGroups: callerChecks}).Read(context.Background())
}

// open opens cfg with o, with short waits between retries.
func open(t *testing.T, cfg entra.Config, o source.Options) source.Source {
	t.Helper()
	src, err := cfg.Open("entra-test", o)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	s := src.(*entra.Source)
	s.Retry.MinWait, s.Retry.MaxWait = time.Millisecond, 10*time.Millisecond
	return s
}

func startDemo(t *testing.T, o entrafake.Options) *entrafake.Server {
	s := entrafake.Start(entrafake.Demo(), o)
	t.Cleanup(s.Close)
	return s
}

func TestReadNestedGroupsAndDisabledUsers(t *testing.T) {
	t.Parallel()
	s := startDemo(t, entrafake.Options{})
	res, err := read(t, config(t, s), rules, false)
	if err != nil {
		t.Fatal(err)
	}
	got := sourcetest.GroupsByEmail(res.Users)
	want := map[string][]string{
		"alice@example.com": {"Engineering"}, "bob@example.com": {"Engineering"},
		"carol@example.com": {"Design", "Marketing"}, "dave@example.com": {"Design", "Engineering"}, // Engineering through Platform Team
		"erin@example.com": {"Marketing"}, "frank@example.com": nil,
	}
	if len(got) != len(want) {
		t.Errorf("users %v, want %v (gina is disabled)", got, want)
	}
	for email, g := range want {
		if gg, ok := got[email]; !ok || !slices.Equal(gg, g) {
			t.Errorf("%s: groups %v, want %v", email, gg, g)
		}
	}
	for _, u := range res.Users.All() {
		if u.Email == "bob@example.com" && (u.FirstName != "Bob" || u.LastName != "Builder" || u.Country != "DE") {
			t.Errorf("bob = %+v", u)
		}
	}
}

func TestIncludeDisabledAndDirectMembersOnly(t *testing.T) {
	t.Parallel()
	s := startDemo(t, entrafake.Options{})
	cfg := config(t, s)
	cfg.Users.IncludeDisabled = true
	direct := false
	cfg.Groups.Nested = &direct
	res, err := read(t, cfg, rules, false)
	if err != nil {
		t.Fatal(err)
	}
	got := sourcetest.GroupsByEmail(res.Users)
	if !slices.Equal(got["gina@example.com"], []string{"Engineering"}) {
		t.Errorf("disabled gina: %v, want her with Engineering", got["gina@example.com"])
	}
	if !slices.Equal(got["dave@example.com"], []string{"Design"}) {
		t.Errorf("dave with direct members only: %v, want [Design]", got["dave@example.com"])
	}
}

func TestPagingFilterAndPatterns(t *testing.T) {
	t.Parallel()
	s := startDemo(t, entrafake.Options{})
	cfg := config(t, s)
	cfg.PageSize = 2
	cfg.Groups.Filter = "startswith(displayName,'Mark')"
	res, err := read(t, cfg, []mapping.Rule{{Pattern: "(Mark.*)", Targets: []string{"All $1"}}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := sourcetest.GroupsByEmail(res.Users); len(got) != 6 || !slices.Equal(got["erin@example.com"], []string{"All Marketing"}) {
		t.Errorf("users %v", got)
	}
	if st := s.Stats(); st.Requests < 5 {
		t.Errorf("%d Graph requests with pages of 2: paging not followed", st.Requests)
	}
	// An exact rule's group outside groups.filter is looked up by name.
	res, err = read(t, cfg, []mapping.Rule{{Pattern: "(Mark.*)", Targets: []string{"All $1"}}, {Directory: "Design", Targets: []string{"Design"}}}, false)
	if err != nil {
		t.Fatalf("pattern and exact rules with groups.filter: %v", err)
	}
	if got := sourcetest.GroupsByEmail(res.Users); !slices.Equal(got["carol@example.com"], []string{"All Marketing", "Design"}) {
		t.Errorf("pattern and exact rules with groups.filter: %v", got)
	}
	cfg.Users.Filter = "usageLocation eq 'US'"
	res, err = read(t, cfg, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := sourcetest.GroupsByEmail(res.Users); len(got) != 2 { // alice and dave; gina is disabled
		t.Errorf("users with usageLocation US: %v", got)
	}
	// ne and endswith are advanced queries: the fake, as Graph, refuses
	// them without $count=true and ConsistencyLevel: eventual.
	cfg.Users.Filter = "endswith(mail,'@EXAMPLE.com') and usageLocation ne 'US'"
	if res, err = read(t, cfg, nil, false); err != nil || res.Users.Len() != 3 { // bob, carol, erin (frank has no mailbox)
		t.Errorf("users not in the US: %v %v", err, res)
	}
	cfg.Users.Filter = "usageLocation eq 'ZZ'"
	if _, err = read(t, cfg, nil, false); err == nil || !strings.Contains(err.Error(), "no user") {
		t.Errorf("empty answer: err %v, want it to fail the source", err)
	}
}

func TestThrottlingAndFaults(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		opts   entrafake.Options
		faults int64
		clock  *restapitest.Clock // the client waits on it, not on the wall clock
	}{
		"429 and faults": {entrafake.Options{ThrottleEvery: 4, RetryAfter: 1, Faults: map[int]int{1: 503, 2: 0, 6: 500}}, 3, restapitest.NewClock()},
		// Tokens live 1 s: the read outlasts its first token (on the wall
		// clock, where tokens expire).
		"503 and short tokens": {entrafake.Options{ThrottleEvery: 3, ThrottleStatus: http.StatusServiceUnavailable, RetryAfter: 1, TokenLifetime: time.Second}, 0, nil},
	} {
		s := startDemo(t, c.opts)
		src := open(t, config(t, s), source.Options{Mapper: sourcetest.Mapper(t, rules)}).(*entra.Source)
		if c.clock != nil {
			src.Retry.Clock = c.clock
		}
		start := time.Now()
		res, err := src.Read(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.Users.Len() != 6 {
			t.Errorf("%s: %d users, want 6", name, res.Users.Len())
		}
		if st := s.Stats(); st.Throttled == 0 || st.Faults != c.faults {
			t.Errorf("%s: stats %+v: want throttled answers and %d faults", name, st, c.faults)
		}
		waited := time.Since(start)
		if c.clock != nil {
			waited = slices.Max(append(c.clock.Slept(), 0))
		}
		if waited < time.Second {
			t.Errorf("%s: waited %s at most: Retry-After: 1 not waited", name, waited)
		}
	}
}

func TestServerErrorsFailTheSource(t *testing.T) {
	t.Parallel()
	faults := map[int]int{}
	for i := 1; i < 100; i++ {
		faults[i] = http.StatusInternalServerError
	}
	s := startDemo(t, entrafake.Options{Faults: faults})
	res, err := read(t, config(t, s), rules, false)
	if err == nil || res != nil || !strings.Contains(err.Error(), "500") {
		t.Fatalf("persistent 500s: res %v, err %v; want an error and no result", res, err)
	}
}

func TestAuthFailure(t *testing.T) {
	t.Parallel()
	s := startDemo(t, entrafake.Options{})
	cfg := config(t, s)
	cfg.ClientSecret = secrettest.File(t, "wrong-secret-value")
	_, err := read(t, cfg, rules, false)
	if err == nil || !strings.Contains(err.Error(), "invalid_client") || !strings.Contains(err.Error(), "AADSTS7000215") {
		t.Fatalf("wrong secret: %v, want the OAuth error", err)
	}
	if strings.Contains(err.Error(), "wrong-secret-value") {
		t.Errorf("the error shows the secret: %v", err)
	}
	if st := s.Stats(); st.Requests != 0 {
		t.Errorf("%d Graph requests without a token", st.Requests)
	}
}

func TestMissingGroup(t *testing.T) {
	t.Parallel()
	s := startDemo(t, entrafake.Options{})
	cfg := config(t, s)
	withMissing := append(slices.Clone(rules), mapping.Rule{Directory: "Sales", Targets: []string{"Sales"}},
		mapping.Rule{Directory: "00000000-0000-0000-0000-0000000000aa", Targets: []string{"X"}})
	_, err := read(t, cfg, withMissing, false)
	if err == nil || !strings.Contains(err.Error(), `"Sales"`) || !strings.Contains(err.Error(), "0000000000aa") {
		t.Fatalf("missing groups: %v", err)
	}
	res, err := read(t, cfg, withMissing, true)
	if err != nil || len(res.MissingGroups) != 2 || len(res.FoundGroups) != 3 {
		t.Fatalf("caller checks: err %v, missing %v, found %v", err, res.MissingGroups, res.FoundGroups)
	}
	res, err = read(t, cfg, []mapping.Rule{{Directory: "g-design", Targets: []string{"Design"}}}, false)
	if err == nil { // g-design is an id but not a GUID: looked up as a name
		t.Errorf("a non-GUID id as a display name: %v", sourcetest.GroupsByEmail(res.Users))
	}
}

func TestCertificate(t *testing.T) {
	t.Parallel()
	key, _ := rsa.GenerateKey(rand.Reader, 2048)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "orgsync"}, NotAfter: time.Now().Add(time.Hour)}
	der, _ := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	cert, _ := x509.ParseCertificate(der)
	tenant := entrafake.Demo()
	tenant.Apps = []entrafake.App{{ClientID: entrafake.DemoClientID, Certificate: cert}}
	s := entrafake.Start(tenant, entrafake.Options{})
	defer s.Close()
	dir := t.TempDir()
	both := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	both = append(both, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})...)
	path := filepath.Join(dir, "app.pem")
	if err := os.WriteFile(path, both, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := entra.Config{TenantID: entrafake.DemoTenantID, ClientID: entrafake.DemoClientID, Certificate: secret.Ref{File: path}, LoginURL: s.URL, GraphURL: s.URL}
	if res, err := read(t, cfg, rules, false); err != nil || res.Users.Len() != 6 {
		t.Fatalf("certificate: %v", err)
	}
	// The tenant named by a verified domain: the token URL and the
	// assertion's audience follow it, and the fake checks both.
	cfg.TenantID = strings.ToUpper(entrafake.DemoDomain)
	if res, err := read(t, cfg, rules, false); err != nil || res.Users.Len() != 6 {
		t.Fatalf("certificate, tenantId %s: %v", cfg.TenantID, err)
	}
	cfg.TenantID = "contoso.onmicrosoft.com"
	if _, err := read(t, cfg, rules, false); err == nil || !strings.Contains(err.Error(), "AADSTS90002") || !strings.Contains(err.Error(), "check tenantId") {
		t.Fatalf("certificate, a domain of no tenant: %v", err)
	}
	cfg.TenantID = entrafake.DemoTenantID
	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	keyPath := filepath.Join(dir, "other.pem")
	if err := os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(other)}), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg.PrivateKey = secret.Ref{File: keyPath}
	if _, err := read(t, cfg, rules, false); err == nil || !strings.Contains(err.Error(), "AADSTS700027") {
		t.Fatalf("another key: %v, want the signature error", err)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	c := entra.Config{ClientSecret: secret.Ref{Env: "X"}, Certificate: secret.Ref{File: "y"}, GraphURL: "ftp://x",
		Users: entra.Users{MailFallback: "bad name", UserFields: clouddir.UserFields{Templates: source.Templates{Email: "{mail", FirstName: "{preferredName}"},
			ExtraAttributes: []string{"department", "hireDate"}}}}
	c.PageSize = 1000
	var fields []string
	reasons := map[string]string{}
	for _, fe := range c.Validate() {
		fields = append(fields, fe.Field)
		reasons[fe.Field] = fe.Reason
	}
	want := []string{"tenantId", "clientId", "clientSecret", "graphURL", "pageSize", "users.mailFallback", "users.email", "users.firstname", "users.extraAttributes[1]"}
	if !slices.Equal(fields, want) {
		t.Errorf("problems in %v, want %v", fields, want)
	}
	if r := reasons["users.extraAttributes[1]"]; !strings.Contains(r, "hireDate only when one user is read") {
		t.Errorf("hireDate: %q, want the reason", r)
	}
}

// TestSelectGraphRefuses: Graph fails a user listing whose $select names
// a property it does not know, or one it returns for a single user only
// (hireDate, aboutMe, skills), with 400; so does the fake.
func TestSelectGraphRefuses(t *testing.T) {
	t.Parallel()
	s := startDemo(t, entrafake.Options{})
	form := "grant_type=client_credentials&client_id=" + entrafake.DemoClientID + "&client_secret=" + entrafake.DemoSecret + "&scope=" + s.URL + "/.default"
	resp, err := http.Post(s.URL+"/"+entrafake.DemoTenantID+"/oauth2/v2.0/token", "application/x-www-form-urlencoded", strings.NewReader(form))
	if err != nil {
		t.Fatal(err)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil || tok.AccessToken == "" {
		t.Fatalf("token: %v", err)
	}
	resp.Body.Close()
	for sel, want := range map[string]int{"id,mail": 200, "id,hireDate": 400, "id,aboutMe": 400, "skills": 400, "id,noSuchProperty": 400, "id,extension_abc_costCenter": 200} {
		req, _ := http.NewRequest(http.MethodGet, s.URL+"/v1.0/users?$select="+sel, nil)
		req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("$select=%s: %s, want %d", sel, resp.Status, want)
		}
	}
}

// TestGuestsAndUsersWithoutMail: by default guests (userType Guest) are
// left out and a user without a mailbox gets userPrincipalName as mail;
// includeGuests reads the guests, mailFallback none leaves the user
// without a mailbox with no email (reported, skipped).
func TestGuestsAndUsersWithoutMail(t *testing.T) {
	t.Parallel()
	s := startDemo(t, entrafake.Options{})
	cfg := config(t, s)
	res, err := read(t, cfg, rules, false)
	if err != nil {
		t.Fatal(err)
	}
	got := sourcetest.GroupsByEmail(res.Users)
	if _, ok := got["pat@agency.example"]; ok {
		t.Error("the guest is read by default")
	}
	if _, ok := got["frank@example.com"]; !ok {
		t.Errorf("frank (no mailbox) is not read with his user principal name: %v", got)
	}
	cfg.Users.IncludeGuests = true
	if res, err = read(t, cfg, rules, false); err != nil || !slices.Equal(sourcetest.GroupsByEmail(res.Users)["pat@agency.example"], []string{"Design"}) {
		t.Errorf("includeGuests: %v, %v", err, sourcetest.GroupsByEmail(res.Users))
	}
	cfg.Users.IncludeGuests, cfg.Users.MailFallback = false, entra.NoMailFallback
	if res, err = read(t, cfg, rules, false); err != nil || len(res.Problems) != 1 || !strings.Contains(res.Problems[0].String(), "u-frank") {
		t.Errorf("mailFallback none: %v, problems %v; want frank reported", err, res.Problems)
	}
}

// TestHiddenMembership: the members of a group whose membership is hidden
// need Member.Read.Hidden: without it the read fails, and the advice
// names it; with it the read succeeds.
func TestHiddenMembership(t *testing.T) {
	t.Parallel()
	for _, hidden := range []bool{false, true} {
		tenant := entrafake.Demo()
		tenant.Groups[2].HiddenMembership = true // Design
		if hidden {
			tenant.Apps[0].Permissions = append(slices.Clone(entrafake.DefaultPermissions), "Member.Read.Hidden")
		}
		s := entrafake.Start(tenant, entrafake.Options{})
		_, err := read(t, config(t, s), rules, false)
		s.Close()
		switch {
		case hidden && err != nil:
			t.Errorf("with Member.Read.Hidden: %v", err)
		case !hidden && (err == nil || !strings.Contains(err.Error(), "403") || !strings.Contains(err.Error(), "Member.Read.Hidden")):
			t.Errorf("without Member.Read.Hidden: %v, want a 403 naming it", err)
		}
	}
}

func TestRefusedTokenAndMissingPermissionFailTheSource(t *testing.T) {
	t.Parallel()
	s := startDemo(t, entrafake.Options{Faults: map[int]int{3: http.StatusUnauthorized}})
	res, err := read(t, config(t, s), rules, false)
	if err == nil || res != nil || !strings.Contains(err.Error(), "401 Unauthorized") || !strings.Contains(err.Error(), "refused the access token") {
		t.Errorf("a 401 during the read: res %v, err %v; want the read to fail", res, err)
	}
	for perm, want := range map[string]string{"User.Read.All": "permission GroupMember.Read.All", "GroupMember.Read.All": "permission User.Read.All"} {
		tenant := entrafake.Demo()
		tenant.Apps[0].Permissions = []string{perm}
		s := entrafake.Start(tenant, entrafake.Options{})
		res, err := read(t, config(t, s), rules, false)
		s.Close()
		if err == nil || res != nil || !strings.Contains(err.Error(), "Authorization_RequestDenied") || !strings.Contains(err.Error(), want) {
			t.Errorf("app with %s only: err %v, want it to name %s", perm, err, want)
		}
	}
}

func TestSignInMistakes(t *testing.T) {
	t.Parallel()
	s := startDemo(t, entrafake.Options{})
	for name, c := range map[string]struct {
		change func(*entra.Config)
		want   []string
	}{
		"tenant typo":          {func(c *entra.Config) { c.TenantID = "contoso-typo.onmicrosoft.com" }, []string{"AADSTS90002", "check tenantId"}},
		"unknown app":          {func(c *entra.Config) { c.ClientID = "99999999-2222-3333-4444-555555555555" }, []string{"AADSTS700016", "check clientId"}},
		"wrong secret":         {func(c *entra.Config) { c.ClientSecret = secrettest.File(t, "wrong") }, []string{"AADSTS7000215", "check clientSecret"}},
		"graphURL with a path": {func(c *entra.Config) { c.GraphURL += "/v1.0" }, []string{"400 Bad Request", "check graphURL (http://"}},
		"dead graphURL": {func(c *entra.Config) { c.GraphURL = "http://127.0.0.1:1" },
			[]string{"cannot connect to 127.0.0.1:1", "check graphURL (http://127.0.0.1:1)"}},
	} {
		cfg := config(t, s)
		c.change(&cfg)
		_, err := read(t, cfg, rules, false)
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v, want %q", name, err, w)
			}
		}
	}
}

// TestGroupsByIDAndMergeWithCSV: real group ids are GUIDs, looked up
// by id (and not by display name); the tenant's users merge with a CSV
// file's.
func TestGroupsByIDAndMergeWithCSV(t *testing.T) {
	t.Parallel()
	const designID = "3f2c5e1a-9b7d-4c2e-8f1a-2b3c4d5e6f70"
	tenant := entrafake.Demo()
	for i := range tenant.Groups {
		if tenant.Groups[i].DisplayName == "Design" {
			tenant.Groups[i].ID = designID
		}
	}
	s := entrafake.Start(tenant, entrafake.Options{})
	defer s.Close()
	byID := []mapping.Rule{{Directory: strings.ToUpper(designID), Targets: []string{"Design"}}, {Directory: "Sales", Targets: []string{"Sales"}}}
	src := open(t, config(t, s), source.Options{Mapper: sourcetest.Mapper(t, byID), CallerChecksGroups: true})
	csv := "firstname,lastname,email,country,groups\nSam,Seller,sam@example.com,US,Sales\nCarol,Clark,carol@example.com,GB,Sales\n"
	file, _, err := sourcetest.Read(t, "extra.csv", csv, byID, func(path string, m *mapping.Mapper) (source.Source, error) {
		cfg := csvfile.Config{Path: path}
		return cfg.Open("csv", source.Options{Mapper: m})
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := src.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	results := []source.NamedResult{{Name: "entra", Result: res}, {Name: "csv", Result: file}}
	if accepted, err := source.CheckGroups(results); err != nil || len(accepted) != 1 || accepted[0].Group != "Sales" {
		t.Fatalf("CheckGroups: %v, %v", accepted, err)
	}
	users, problems := source.Merge(results)
	got := sourcetest.GroupsByEmail(users)
	if len(problems) != 0 || len(got) != 7 || !slices.Equal(got["carol@example.com"], []string{"Design", "Sales"}) ||
		!slices.Equal(got["dave@example.com"], []string{"Design"}) || !slices.Equal(got["sam@example.com"], []string{"Sales"}) {
		t.Errorf("merged %v, problems %v", got, problems)
	}
}

// TestExpressions reads the demo tenant through a filter, a groups and
// set expressions over an extra property (department) and each user's
// directory groups: every group's, nested and unmapped ones included.
func TestExpressions(t *testing.T) {
	t.Parallel()
	tenant := entrafake.Demo()
	for i := range tenant.Users {
		tenant.Users[i].Props["department"] = map[bool]string{true: "R&D", false: "Sales"}[i%2 == 0]
		tenant.Users[i].Props["onPremisesExtensionAttributes"] = map[string]any{"extensionAttribute1": "x" + tenant.Users[i].ID}
	}
	s := entrafake.Start(tenant, entrafake.Options{})
	defer s.Close()
	cfg := config(t, s)
	cfg.Users.ExtraAttributes = []string{"department", "onPremisesExtensionAttributes.extensionAttribute1"}
	p, err := expr.Compile(expr.Config{
		Filter: `user.attributes["onPremisesExtensionAttributes.extensionAttribute1"] != "xu-frank"`,
		Groups: `"Platform Team" in directoryGroups ? ["Platform"] : []`,
		Set:    map[string]string{"country": `user.attributes.department == "R&D" ? "DE" : user.country`},
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := open(t, cfg, source.Options{Mapper: sourcetest.Mapper(t, rules), Expressions: p, Explain: "DAVE@example.com"}).Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := sourcetest.GroupsByEmail(res.Users)
	if _, ok := got["frank@example.com"]; ok || len(got) != 5 || len(res.Filtered) != 1 || res.Filtered[0].Email != "frank@example.com" {
		t.Errorf("users %v, filtered %v: want frank left out by the filter", got, res.Filtered)
	}
	if want := []string{"Design", "Engineering", "Platform"}; !slices.Equal(got["dave@example.com"], want) {
		t.Errorf("dave: %v, want %v (Platform from his nested group)", got["dave@example.com"], want)
	}
	// R&D (alice, carol, erin) is in DE; the others keep their own.
	countries := map[string]string{"alice@example.com": "DE", "bob@example.com": "DE", "carol@example.com": "DE", "dave@example.com": "US", "erin@example.com": "DE"}
	for _, u := range res.Users.All() {
		if u.Country != countries[u.Email] {
			t.Errorf("%s: country %s, want %s", u.Email, u.Country, countries[u.Email])
		}
	}
	if len(res.Traces) != 1 || !slices.Equal(slices.Sorted(slices.Values(res.Traces[0].DirectoryGroups)), []string{"Design", "Engineering Staff", "Platform Team"}) ||
		!slices.Equal(res.Traces[0].ExprGroups, []string{"Platform"}) {
		t.Errorf("traces %+v, want dave's with his three directory groups", res.Traces)
	}
	// A filter that leaves every user out fails the source.
	none, err := expr.Compile(expr.Config{Filter: `false`})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := open(t, cfg, source.Options{Mapper: sourcetest.Mapper(t, rules), Expressions: none}).Read(context.Background()); err == nil || !strings.Contains(err.Error(), "left none of the 6 users") {
		t.Errorf("a filter that leaves everybody out: %v, %v", err, res)
	}
}

// TestAttributeValues: an array property (proxyAddresses) named in
// extraAttributes gives the expressions all its values in
// user.attributeValues (its first in user.attributes), and a numeric
// directory extension its decimal text.
func TestAttributeValues(t *testing.T) {
	t.Parallel()
	tenant := entrafake.Demo()
	const level = "extension_0123456789abcdef0123456789abcdef_level"
	for i := range tenant.Users {
		u := &tenant.Users[i]
		u.Props["proxyAddresses"] = []any{"SMTP:" + u.ID + "@example.com", "smtp:" + u.ID + "@old.example.com"}
		u.Props[level] = i
	}
	s := entrafake.Start(tenant, entrafake.Options{})
	defer s.Close()
	cfg := config(t, s)
	cfg.Users.ExtraAttributes = []string{"proxyAddresses", level}
	p, err := expr.Compile(expr.Config{
		Filter: `int(user.attributeValues["` + level + `"][0]) >= 1`,
		Groups: `user.attributeValues.proxyAddresses.exists(a, a.endsWith("@old.example.com")) ? [string(size(user.attributeValues.proxyAddresses)), user.attributes.proxyAddresses] : []`,
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := open(t, cfg, source.Options{Mapper: sourcetest.Mapper(t, nil), Expressions: p}).Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := sourcetest.GroupsByEmail(res.Users)
	if len(res.Filtered) != 1 || len(got) != 5 {
		t.Errorf("users %v, filtered %v: want the user of level 0 left out", got, res.Filtered)
	}
	checked := 0
	for _, u := range tenant.Users[1:] {
		if groups, ok := got[u.Props["userPrincipalName"].(string)]; ok {
			checked++
			if !slices.Equal(groups, []string{"2", "SMTP:" + u.ID + "@example.com"}) {
				t.Errorf("%s: %q, want both addresses counted and the first", u.ID, groups)
			}
		}
	}
	if checked != 5 {
		t.Errorf("%d users checked, want 5", checked)
	}
}
