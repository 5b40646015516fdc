package okta_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
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
	"github.com/orgsync/orgsync/source/expr"
	"github.com/orgsync/orgsync/source/internal/clouddir"
	"github.com/orgsync/orgsync/source/internal/restapi/restapitest"
	"github.com/orgsync/orgsync/source/internal/sourcetest"
	"github.com/orgsync/orgsync/source/mapping"
	"github.com/orgsync/orgsync/source/okta"
	"github.com/orgsync/orgsync/source/okta/oktafake"
)

var rules = sourcetest.DemoRules()

// demoRead is how many users of the demo organization the default
// statuses read: all but gina (suspended); frank's password expired.
const demoRead = 6

func config(t *testing.T, s *oktafake.Server) okta.Config {
	return okta.Config{OrgURL: s.URL, APIToken: secrettest.File(t, oktafake.DemoToken)}
}

func open(t *testing.T, cfg okta.Config, rules []mapping.Rule) *okta.Source {
	t.Helper()
	return openWith(t, cfg, source.Options{Mapper: sourcetest.Mapper(t, rules)})
}

// openWith opens cfg with o, with short waits between retries and
// before a group search is sent again.
func openWith(t *testing.T, cfg okta.Config, o source.Options) *okta.Source {
	t.Helper()
	src, err := cfg.Open("okta-test", o)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	s := src.(*okta.Source)
	s.Retry.MinWait, s.Retry.MaxWait = time.Millisecond, 10*time.Millisecond
	s.SearchSettle = testSettle
	return s
}

// testSettle is the tests' wait before a group search is sent again.
const testSettle = 5 * time.Millisecond

func read(t *testing.T, cfg okta.Config, rules []mapping.Rule) (*source.Result, error) {
	t.Helper()
	return open(t, cfg, rules).Read(context.Background())
}

// readOn is read with the client's waits spent on clk, the fake's clock
// (oktafake.Options.Now): they cost the test nothing.
func readOn(t *testing.T, clk *restapitest.Clock, cfg okta.Config, rules []mapping.Rule) (*source.Result, error) {
	t.Helper()
	s := open(t, cfg, rules)
	s.Retry.Clock = clk
	return s.Read(context.Background())
}

// waitedAWindow fails t unless one of the waits slept on clk is a
// rate-limit window's (X-Rate-Limit-Reset: a second, and one more for
// the Date header's resolution).
func waitedAWindow(t *testing.T, clk *restapitest.Clock) {
	t.Helper()
	if slept := clk.Slept(); !slices.ContainsFunc(slept, func(d time.Duration) bool { return d >= time.Second }) {
		t.Errorf("waits %v, want the rate-limit window's reset waited for", slept)
	}
}

func startDemo(t *testing.T, o oktafake.Options) *oktafake.Server {
	s := oktafake.Start(oktafake.Demo(), o)
	t.Cleanup(s.Close)
	return s
}

func TestReadActiveUsers(t *testing.T) {
	t.Parallel()
	s := startDemo(t, oktafake.Options{})
	res, err := read(t, config(t, s), rules)
	if err != nil {
		t.Fatal(err)
	}
	got := sourcetest.GroupsByEmail(res.Users)
	want := map[string][]string{"alice@example.com": {"Engineering"}, "bob@example.com": {"Engineering"},
		"carol@example.com": {"Design", "Marketing"}, "dave@example.com": {"Design", "Engineering"}, "erin@example.com": {"Marketing"},
		"frank@example.com": nil}
	if len(got) != len(want) {
		t.Errorf("users %v, want %v (frank's password expired, gina is suspended)", got, want)
	}
	for e, g := range want {
		if !slices.Equal(got[e], g) {
			t.Errorf("%s: %v, want %v", e, got[e], g)
		}
	}
	for _, u := range res.Users.All() {
		if u.Email == "bob@example.com" && (u.FirstName != "Bob" || u.LastName != "Builder" || u.Country != "DE") {
			t.Errorf("bob = %+v", u)
		}
	}
}

func TestStatusesSearchPagingAndPatterns(t *testing.T) {
	t.Parallel()
	s := startDemo(t, oktafake.Options{})
	cfg := config(t, s)
	cfg.PageSize = 2
	cfg.Users.Statuses = []string{"ACTIVE", "password_expired"}
	res, err := read(t, cfg, []mapping.Rule{{Pattern: "(Mark.*)", Targets: []string{"All $1"}}})
	if err != nil {
		t.Fatal(err)
	}
	got := sourcetest.GroupsByEmail(res.Users)
	if _, ok := got["frank@example.com"]; !ok || len(got) != 6 || !slices.Equal(got["carol@example.com"], []string{"All Marketing"}) {
		t.Errorf("users %v", got)
	}
	if st := s.Stats(); st.Requests < 4 {
		t.Errorf("%d requests with pages of 2: paging not followed", st.Requests)
	}
	cfg.Users.Search = `profile.countryCode eq "US"`
	if res, err = read(t, cfg, nil); err != nil || res.Users.Len() != 2 {
		t.Errorf("search: %v, %v", err, res)
	}
	cfg.Users.Search = `profile.countryCode eq "ZZ"`
	if _, err = read(t, cfg, nil); err == nil || !strings.Contains(err.Error(), "no user") {
		t.Errorf("empty answer: %v, want it to fail the source", err)
	}
}

func TestRateLimitAndFaults(t *testing.T) {
	t.Parallel()
	clk := restapitest.NewClock()
	s := startDemo(t, oktafake.Options{WindowLimit: 3, ThrottleEvery: 5, Faults: map[int]int{2: 500, 3: 0}, Now: clk.Now})
	res, err := readOn(t, clk, config(t, s), rules)
	if err != nil {
		t.Fatal(err)
	}
	waitedAWindow(t, clk)
	if res.Users.Len() != demoRead {
		t.Errorf("%d users, want %d", res.Users.Len(), demoRead)
	}
	if st := s.Stats(); st.Throttled == 0 || st.Faults != 2 {
		t.Errorf("stats %+v: want throttled answers and 2 faults", st)
	}
}

func TestAuthFailures(t *testing.T) {
	t.Parallel()
	s := startDemo(t, oktafake.Options{})
	cfg := config(t, s)
	cfg.APIToken = secrettest.File(t, "wrong-token-value")
	_, err := read(t, cfg, rules)
	if err == nil || !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "E0000011") || strings.Contains(err.Error(), "wrong-token-value") {
		t.Errorf("wrong token: %v", err)
	}
}

func TestPrivateKeyJWT(t *testing.T) {
	t.Parallel()
	key, _ := rsa.GenerateKey(rand.Reader, 2048)
	org := oktafake.Demo()
	org.Apps = []oktafake.App{{ClientID: "0oa-orgsync", Key: &key.PublicKey, Scopes: okta.DefaultScopes}}
	s := oktafake.Start(org, oktafake.Options{})
	defer s.Close()
	path := filepath.Join(t.TempDir(), "key.pem")
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := okta.Config{OrgURL: s.URL, ClientID: "0oa-orgsync", PrivateKey: secret.Ref{File: path}, KeyID: "k1"}
	if res, err := read(t, cfg, rules); err != nil || res.Users.Len() != demoRead {
		t.Fatalf("private key: %v", err)
	}
	cfg.Scopes = []string{"okta.users.manage"}
	if _, err := read(t, cfg, rules); err == nil || !strings.Contains(err.Error(), "invalid_scope") {
		t.Errorf("scope not granted: %v", err)
	}
	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	der, _ = x509.MarshalPKCS8PrivateKey(other)
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg.Scopes = nil
	if _, err := read(t, cfg, rules); err == nil || !strings.Contains(err.Error(), "invalid_client") {
		t.Errorf("another key: %v, want the OAuth error", err)
	}
}

func TestMissingGroupAndMergeWithCSV(t *testing.T) {
	t.Parallel()
	s := startDemo(t, oktafake.Options{})
	// Group ids (00g and 17 more characters) are looked up by id.
	byID := []mapping.Rule{{Directory: "00g00000000000design", Targets: []string{"Design"}}}
	if res, err := read(t, config(t, s), byID); err != nil || !slices.Equal(sourcetest.GroupsByEmail(res.Users)["dave@example.com"], []string{"Design"}) {
		t.Errorf("a group mapped by id: %v", err)
	}
	byID = append(byID, mapping.Rule{Directory: "00gAAAAAAAAAAAAAAAAA", Targets: []string{"X"}})
	if _, err := read(t, config(t, s), byID); err == nil || !strings.Contains(err.Error(), `"00gAAAAAAAAAAAAAAAAA" not found`) {
		t.Errorf("a missing group id: %v", err)
	}
	withSales := append(slices.Clone(rules), mapping.Rule{Directory: "Sales", Targets: []string{"Sales"}})
	if _, err := read(t, config(t, s), withSales); err == nil || !strings.Contains(err.Error(), `"Sales"`) {
		t.Fatalf("missing group: %v", err)
	}
	// A CSV file that names Sales: the run goes on, the file's user gets
	// Sales, and Okta's and the file's records of carol merge.
	path := filepath.Join(t.TempDir(), "extra.csv")
	csv := "firstname,lastname,email,country,groups\nSam,Seller,sam@example.com,US,Sales\nCarol,Clark,carol@example.com,GB,Sales\n"
	if err := os.WriteFile(path, []byte(csv), 0o600); err != nil {
		t.Fatal(err)
	}
	m, _ := mapping.New(withSales)
	fileCfg := csvfile.Config{Path: path}
	file, err := fileCfg.Open("csv", source.Options{Mapper: m})
	if err != nil {
		t.Fatal(err)
	}
	src := openWith(t, config(t, s), source.Options{Mapper: m, CallerChecksGroups: true})
	var results []source.NamedResult
	for _, r := range []source.Source{src, file} {
		res, err := r.Read(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", r.Name(), err)
		}
		results = append(results, source.NamedResult{Name: r.Name(), Result: res})
	}
	accepted, err := source.CheckGroups(results)
	if err != nil || len(accepted) != 1 || accepted[0].Group != "Sales" {
		t.Fatalf("CheckGroups: %v, %v", accepted, err)
	}
	users, problems := source.Merge(results)
	got := sourcetest.GroupsByEmail(users)
	if len(problems) != 0 || len(got) != demoRead+1 || !slices.Equal(got["carol@example.com"], []string{"Design", "Marketing", "Sales"}) {
		t.Errorf("merged %v, problems %v", got, problems)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	c := okta.Config{OrgURL: "example.okta.com", APIToken: secret.Ref{Env: "T"}, ClientID: "x",
		Users:  okta.Users{Statuses: []string{"GONE"}, UserFields: clouddir.UserFields{Templates: source.Templates{Type: "robot"}}, Search: `(status ne "SUSPENDED")`},
		Groups: okta.Groups{Types: []string{"OKTA_GROUP", "TEAM"}}}
	c.PageSize = 500
	var fields []string
	reasons := map[string]string{}
	for _, fe := range c.Validate() {
		fields = append(fields, fe.Field)
		reasons[fe.Field] = fe.Reason
	}
	want := []string{"orgURL", "apiToken", "pageSize", "users.search", "groups.types[1]", "users.statuses[0]", "users.type"}
	if !slices.Equal(fields, want) {
		t.Errorf("problems in %v, want %v", fields, want)
	}
	if !strings.Contains(reasons["users.search"], "refuses the ne operator") {
		t.Errorf("users.search: %q, want the reason", reasons["users.search"])
	}
	c = okta.Config{OrgURL: "https://example.okta.com", APIToken: secret.Ref{Env: "T"}, Users: okta.Users{Search: `profile.title eq "Owner ne Manager"`}}
	if errs := c.Validate(); len(errs) != 0 {
		t.Errorf("ne inside a quoted value: %v", errs)
	}
}

// TestDefaultStatusesKeepTemporaryStates: by default the active people in
// a temporary state (locked out, password expired, in recovery) are read
// with their groups; suspended and deprovisioned ones are not.
func TestDefaultStatusesKeepTemporaryStates(t *testing.T) {
	t.Parallel()
	org := oktafake.Demo()
	for i, st := range []string{"LOCKED_OUT", "RECOVERY", "DEPROVISIONED"} {
		mail := fmt.Sprintf("temp%d@example.com", i)
		id := fmt.Sprintf("00u000000000000temp%d", i)
		org.Users = append(org.Users, oktafake.User{ID: id, Status: st, Profile: map[string]any{"login": mail, "email": mail,
			"firstName": "Temp", "lastName": st, "countryCode": "US"}})
		org.Groups[0].Members = append(org.Groups[0].Members, id)
	}
	s := oktafake.Start(org, oktafake.Options{})
	defer s.Close()
	res, err := read(t, config(t, s), rules)
	if err != nil {
		t.Fatal(err)
	}
	got := sourcetest.GroupsByEmail(res.Users)
	for _, mail := range []string{"temp0@example.com", "temp1@example.com"} {
		if !slices.Equal(got[mail], []string{"Engineering"}) {
			t.Errorf("%s: groups %v, want [Engineering]", mail, got[mail])
		}
	}
	if _, ok := got["frank@example.com"]; !ok {
		t.Error("frank (password expired) is not read")
	}
	for _, mail := range []string{"temp2@example.com", "gina@example.com"} {
		if _, ok := got[mail]; ok {
			t.Errorf("%s (deprovisioned or suspended) is read", mail)
		}
	}
}

// TestUserSearchWithNeIsRefused: Okta refuses ne in a user search, and so
// does the fake (the source's validation stops it before).
func TestUserSearchWithNeIsRefused(t *testing.T) {
	t.Parallel()
	s := startDemo(t, oktafake.Options{})
	req, _ := http.NewRequest(http.MethodGet, s.URL+`/api/v1/users?search=`+url.QueryEscape(`status ne "SUSPENDED"`), nil)
	req.Header.Set("Authorization", "SSWS "+oktafake.DemoToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a user search with ne: %s, want 400", resp.Status)
	}
	cfg := config(t, s)
	cfg.Users.Search = `status ne "SUSPENDED"`
	if _, err := cfg.Open("okta", source.Options{}); err == nil || !strings.Contains(err.Error(), "ne operator") {
		t.Errorf("Open with ne in users.search: %v", err)
	}
}

// TestGroupSearchRetriedOnce: a group created moments ago that a search
// by name misses once is found by the second search; one missed twice
// fails the read, saying that the search is eventually consistent.
func TestGroupSearchRetriedOnce(t *testing.T) {
	t.Parallel()
	for lag, found := range map[int]bool{1: true, 2: false} {
		org := oktafake.Demo()
		org.Groups[1].SearchLag = lag // Design
		s := oktafake.Start(org, oktafake.Options{})
		res, err := read(t, config(t, s), rules)
		s.Close()
		switch {
		case found && (err != nil || !slices.Equal(sourcetest.GroupsByEmail(res.Users)["dave@example.com"], []string{"Design", "Engineering"})):
			t.Errorf("missed once: %v", err)
		case !found && (err == nil || !strings.Contains(err.Error(), `"Design"`) || !strings.Contains(err.Error(), "eventually consistent")):
			t.Errorf("missed twice: %v, want Design missing and why it may be", err)
		}
	}
}

// TestBuiltInAndAppGroupsSkipped: reading every group (a pattern rule)
// leaves out Everyone (BUILT_IN) and groups imported from apps
// (APP_GROUP) unless groups.types asks for them.
func TestBuiltInAndAppGroupsSkipped(t *testing.T) {
	t.Parallel()
	s := startDemo(t, oktafake.Options{})
	cfg := config(t, s)
	res, err := read(t, cfg, sourcetest.Identity())
	if err != nil {
		t.Fatal(err)
	}
	if got := sourcetest.GroupsByEmail(res.Users)["alice@example.com"]; !slices.Equal(got, []string{"Engineering Staff"}) {
		t.Errorf("alice's groups %v, want only Engineering Staff", got)
	}
	cfg.Groups.Types = []string{"OKTA_GROUP", "APP_GROUP"}
	if res, err = read(t, cfg, sourcetest.Identity()); err != nil {
		t.Fatal(err)
	}
	if got := sourcetest.GroupsByEmail(res.Users)["alice@example.com"]; !slices.Equal(got, []string{"Engineering Staff", "Salesforce Users"}) {
		t.Errorf("alice's groups with APP_GROUP asked for: %v", got)
	}
}

// TestMistakesSayWhatToCheck: a refused API token, a scope the service
// app was not granted and an orgURL where nothing listens each fail the
// read, naming the key or the scope.
func TestMistakesSayWhatToCheck(t *testing.T) {
	t.Parallel()
	key, _ := rsa.GenerateKey(rand.Reader, 2048)
	org := oktafake.Demo()
	org.Apps = []oktafake.App{{ClientID: "0oa-orgsync", Key: &key.PublicKey, Scopes: []string{"okta.users.read"}}}
	s := oktafake.Start(org, oktafake.Options{})
	defer s.Close()
	path := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600); err != nil {
		t.Fatal(err)
	}
	usersOnly := okta.Config{OrgURL: s.URL, ClientID: "0oa-orgsync", PrivateKey: secret.Ref{File: path}, Scopes: []string{"okta.users.read"}}
	wrongToken := config(t, s)
	wrongToken.APIToken = secrettest.File(t, "wrong-token-value")
	dead := okta.Config{OrgURL: "http://127.0.0.1:1", APIToken: secrettest.File(t, oktafake.DemoToken)}
	site := httptest.NewServer(http.NotFoundHandler()) // a web site, not Okta
	defer site.Close()
	notOkta := okta.Config{OrgURL: site.URL, APIToken: secrettest.File(t, oktafake.DemoToken)}
	for name, c := range map[string]struct {
		cfg  okta.Config
		want []string
	}{
		"scope not granted": {usersOnly, []string{"403 Forbidden", "E0000006", "scopes okta.users.read and okta.groups.read"}},
		"wrong API token":   {wrongToken, []string{"401 Unauthorized", "check apiToken"}},
		"dead orgURL":       {dead, []string{"cannot connect to 127.0.0.1:1", "check orgURL (http://127.0.0.1:1)"}},
		"not Okta":          {notOkta, []string{"404 Not Found", "check orgURL (" + site.URL + ")"}},
	} {
		res, err := read(t, c.cfg, rules)
		for _, w := range c.want {
			if err == nil || res != nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v, want %q", name, err, w)
			}
		}
	}
}

// TestExpressions: a filter, a groups and a set expression over an extra
// profile attribute (cost_center) and each user's groups, an unmapped
// one (Everyone) included, and a run scoped to a directory group.
func TestExpressions(t *testing.T) {
	t.Parallel()
	org := oktafake.Demo()
	for i, u := range org.Users {
		u.Profile["cost_center"] = fmt.Sprintf("CC%d", i)
	}
	s := oktafake.Start(org, oktafake.Options{})
	defer s.Close()
	cfg := config(t, s)
	cfg.Users.ExtraAttributes = []string{"cost_center"}
	cfg.Groups.Types = []string{"okta_group", "BUILT_IN"} // Everyone is built in
	p, err := expr.Compile(expr.Config{
		Filter: `user.attributes.cost_center != "CC4"`, // erin
		Groups: `"Everyone" in directoryGroups && "Design" in directoryGroups ? ["All Designers"] : []`,
		Set:    map[string]string{"lastname": `user.lastname + " (" + user.attributes.cost_center + ")"`},
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := openWith(t, cfg, source.Options{Mapper: sourcetest.Mapper(t, rules), Expressions: p, Explain: "bob@example.com"}).Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Traces) != 1 || res.Traces[0].Set["lastname"] != "Builder (CC1)" || !slices.Equal(res.Traces[0].DirectoryGroups, []string{"Engineering Staff", "Everyone"}) {
		t.Errorf("traces %+v, want bob's with his computed last name and his two directory groups", res.Traces)
	}
	got := sourcetest.GroupsByEmail(res.Users)
	want := map[string][]string{"alice@example.com": {"Engineering"}, "bob@example.com": {"Engineering"},
		"carol@example.com": {"All Designers", "Design", "Marketing"}, "dave@example.com": {"All Designers", "Design", "Engineering"},
		"frank@example.com": nil}
	if len(got) != len(want) || len(res.Filtered) != 1 || res.Filtered[0].Email != "erin@example.com" {
		t.Errorf("users %v, filtered %v: want %v, erin left out", got, res.Filtered, want)
	}
	for e, g := range want {
		if !slices.Equal(got[e], g) {
			t.Errorf("%s: %v, want %v", e, got[e], g)
		}
	}
	for _, u := range res.Users.All() {
		if u.Email == "bob@example.com" && u.LastName != "Builder (CC1)" {
			t.Errorf("bob's last name %q, want it computed", u.LastName)
		}
	}
	// scope.groups: only Design's members take part; the others are left
	// alone (Filtered), and the read still succeeds.
	scoped := openWith(t, cfg, source.Options{Mapper: sourcetest.Mapper(t, rules), Expressions: p.WithScope([]string{"design"})})
	if res, err = scoped.Read(context.Background()); err != nil || res.Users.Len() != 2 {
		t.Errorf("scoped to Design: %v, %v", err, sourcetest.GroupsByEmail(res.Users))
	}
}

// TestAttributeValues: a string-array profile attribute named in
// extraAttributes gives the expressions all its values in
// user.attributeValues (its first in user.attributes), and a number
// attribute its decimal text.
func TestAttributeValues(t *testing.T) {
	t.Parallel()
	org := oktafake.Demo()
	for i, u := range org.Users {
		u.Profile["projects"] = []any{fmt.Sprintf("p%d, main", i), fmt.Sprintf("p%d-side", i)}
		u.Profile["level"] = float64(i) + 0.5
	}
	s := oktafake.Start(org, oktafake.Options{})
	defer s.Close()
	cfg := config(t, s)
	cfg.Users.ExtraAttributes = []string{"projects", "level"}
	p, err := expr.Compile(expr.Config{
		Filter: `double(user.attributeValues.level[0]) >= 1.0`,
		Groups: `user.attributeValues.projects.exists(p, p.endsWith("-side")) ? user.attributeValues.projects + ["first " + user.attributes.projects, user.attributes.level] : []`,
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := openWith(t, cfg, source.Options{Mapper: sourcetest.Mapper(t, nil), Expressions: p}).Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := sourcetest.GroupsByEmail(res.Users)
	if len(res.Filtered) != 1 || len(got) == 0 {
		t.Fatalf("users %v, filtered %v: want the user of level 0.5 left out", got, res.Filtered)
	}
	for i, u := range org.Users {
		if groups, ok := got[u.Profile["email"].(string)]; ok {
			want := []string{fmt.Sprintf("%d.5", i), fmt.Sprintf("first p%d, main", i), fmt.Sprintf("p%d, main", i), fmt.Sprintf("p%d-side", i)}
			if !slices.Equal(slices.Sorted(slices.Values(groups)), want) {
				t.Errorf("%s: %q, want %q", u.Profile["email"], groups, want)
			}
		}
	}
}
