package google_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/expr"
	"github.com/orgsync/orgsync/source/google"
	"github.com/orgsync/orgsync/source/google/googlefake"
	"github.com/orgsync/orgsync/source/internal/clouddir"
	"github.com/orgsync/orgsync/source/internal/sourcetest"
	"github.com/orgsync/orgsync/source/mapping"
)

var rules = sourcetest.DemoRules()

// demo is a running fake domain and a configuration that reads it.
type demo struct {
	s   *googlefake.Server
	key *googlefake.Key
	cfg google.Config
}

// startDemo starts the demo domain, changed by edit (when not nil), and
// writes the service account's key file.
func startDemo(t *testing.T, o googlefake.Options, edit func(*googlefake.Domain)) *demo {
	t.Helper()
	key, err := googlefake.NewKey("orgsync@orgsync-fake.iam.gserviceaccount.com", "108000000000000000001")
	if err != nil {
		t.Fatal(err)
	}
	dom := googlefake.Demo(key.Account)
	if edit != nil {
		edit(&dom)
	}
	s := googlefake.Start(dom, o)
	t.Cleanup(s.Close)
	return &demo{s: s, key: key, cfg: google.Config{Credentials: secret.Ref{File: writeKey(t, key, s)},
		Subject: googlefake.DemoSubject, APIURL: s.URL}}
}

// writeKey writes key's file for the token endpoint of s.
func writeKey(t *testing.T, key *googlefake.Key, s *googlefake.Server) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "key.json")
	if err := os.WriteFile(path, key.File(s.TokenURL()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func open(t *testing.T, cfg google.Config, rules []mapping.Rule) *google.Source {
	t.Helper()
	return openWith(t, cfg, source.Options{Mapper: sourcetest.Mapper(t, rules)})
}

// openWith opens cfg with o, with short waits between retries.
func openWith(t *testing.T, cfg google.Config, o source.Options) *google.Source {
	t.Helper()
	src, err := cfg.Open("google-test", o)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	s := src.(*google.Source)
	s.Retry.MinWait, s.Retry.MaxWait = time.Millisecond, 10*time.Millisecond
	return s
}

func read(t *testing.T, cfg google.Config, rules []mapping.Rule) (*source.Result, error) {
	t.Helper()
	return open(t, cfg, rules).Read(context.Background())
}

// demoGroups are the demo's active users' target groups: frank is
// archived and gina suspended; dave is in Engineering Staff through
// Platform Team.
var demoGroups = map[string][]string{"alice@example.com": {"Engineering"}, "bob@example.com": {"Engineering"},
	"carol@example.com": {"Design", "Marketing"}, "dave@example.com": {"Design", "Engineering"}, "erin@example.com": {"Marketing"}}

func checkGroups(t *testing.T, got, want map[string][]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("users %v, want %v", got, want)
	}
	for e, g := range want {
		if !slices.Equal(got[e], g) {
			t.Errorf("%s: %v, want %v", e, got[e], g)
		}
	}
}

func TestReadActiveUsersWithNestedGroups(t *testing.T) {
	t.Parallel()
	d := startDemo(t, googlefake.Options{}, nil)
	res, err := read(t, d.cfg, rules)
	if err != nil {
		t.Fatal(err)
	}
	checkGroups(t, sourcetest.GroupsByEmail(res.Users), demoGroups)
	for _, u := range res.Users.All() {
		if u.Email == "bob@example.com" && (u.FirstName != "Bob" || u.LastName != "Builder" || u.Country != "DE") {
			t.Errorf("bob = %+v", u)
		}
	}
}

func TestSuspendedArchivedAndDirectMembers(t *testing.T) {
	t.Parallel()
	d := startDemo(t, googlefake.Options{}, nil)
	d.cfg.Users.IncludeSuspended, d.cfg.Users.IncludeArchived = true, true
	direct := false
	d.cfg.Groups.Nested = &direct
	res, err := read(t, d.cfg, rules)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"alice@example.com": {"Engineering"}, "bob@example.com": {"Engineering"},
		"carol@example.com": {"Design", "Marketing"}, "dave@example.com": {"Design"}, "erin@example.com": {"Marketing"},
		"frank@example.com": nil, "gina@example.com": {"Engineering"}}
	checkGroups(t, sourcetest.GroupsByEmail(res.Users), want)
}

func TestPagingQueriesAndGroupsByEmail(t *testing.T) {
	t.Parallel()
	d := startDemo(t, googlefake.Options{}, nil)
	d.cfg.PageSize = 2
	byEmail := []mapping.Rule{{Directory: "design@example.com", Targets: []string{"Design"}}, {Pattern: "(Mark.*)", Targets: []string{"All $1"}}}
	res, err := read(t, d.cfg, byEmail)
	if err != nil {
		t.Fatal(err)
	}
	got := sourcetest.GroupsByEmail(res.Users)
	if len(got) != 5 || !slices.Equal(got["carol@example.com"], []string{"All Marketing", "Design"}) {
		t.Errorf("users %v", got)
	}
	if st := d.s.Stats(); st.Requests < 6 {
		t.Errorf("%d requests with pages of 2: paging not followed", st.Requests)
	}
	d.cfg.Users.Query = "givenName=Carol"
	if res, err = read(t, d.cfg, nil); err != nil || res.Users.Len() != 1 {
		t.Errorf("users.query: %v, %v", err, res)
	}
	d.cfg.Users.Query = "givenName=Nobody"
	if _, err = read(t, d.cfg, nil); err == nil || !strings.Contains(err.Error(), "no user") {
		t.Errorf("empty answer: %v, want it to fail the source", err)
	}
	d.cfg.Users.Query = ""
	missing := []mapping.Rule{{Directory: "sales@example.com", Targets: []string{"Sales"}}, {Directory: "Sales", Targets: []string{"Sales"}}}
	if _, err = read(t, d.cfg, missing); err == nil || !strings.Contains(err.Error(), `"sales@example.com"`) || !strings.Contains(err.Error(), `"Sales"`) {
		t.Errorf("missing groups: %v", err)
	}
}

// TestThrottlingAndFaults: 429 rateLimitExceeded, 403 userRateLimitExceeded,
// a 500 and a dropped connection are each waited out and retried.
func TestThrottlingAndFaults(t *testing.T) {
	t.Parallel()
	d := startDemo(t, googlefake.Options{ThrottleEvery: 3, Faults: map[int]int{2: 500, 4: 0}}, nil)
	res, err := read(t, d.cfg, rules)
	if err != nil {
		t.Fatal(err)
	}
	checkGroups(t, sourcetest.GroupsByEmail(res.Users), demoGroups)
	if st := d.s.Stats(); st.Throttled < 2 || st.Faults != 2 {
		t.Errorf("stats %+v: want a 429, a 403 rate limit and 2 faults", st)
	}
}

// TestMistakesSayWhatToCheck: each refusal fails the read with Google's
// answer and what to fix, and no secret.
func TestMistakesSayWhatToCheck(t *testing.T) {
	t.Parallel()
	noDelegation := startDemo(t, googlefake.Options{}, func(d *googlefake.Domain) { d.Delegation = nil })
	usersOnly := startDemo(t, googlefake.Options{}, func(d *googlefake.Domain) {
		for id := range d.Delegation {
			d.Delegation[id] = googlefake.ReadOnlyScopes[:1]
		}
	})
	d := startDemo(t, googlefake.Options{}, nil)
	with := func(edit func(*google.Config)) google.Config {
		c := d.cfg
		edit(&c)
		return c
	}
	other, err := googlefake.NewKey(d.key.Account.Email, d.key.Account.ClientID) // a key the account does not have
	if err != nil {
		t.Fatal(err)
	}
	badFile := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(badFile, []byte(`{"type":"service_account","client_email":"a@b","private_key":"-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	textFile := filepath.Join(t.TempDir(), "key.txt")
	if err := os.WriteFile(textFile, []byte("not JSON"), 0o600); err != nil {
		t.Fatal(err)
	}
	delegation := []string{"unauthorized_client", "Manage Domain Wide Delegation", "108000000000000000001", "admin.directory.group.member.readonly"}
	for name, c := range map[string]struct {
		cfg  google.Config
		want []string
	}{
		"no delegation":         {noDelegation.cfg, delegation},
		"a scope not delegated": {usersOnly.cfg, delegation},
		"subject not a user":    {with(func(c *google.Config) { c.Subject = "nobody@example.com" }), []string{"invalid_grant", "Invalid email or User ID", "check subject (nobody@example.com)"}},
		"subject not an admin":  {with(func(c *google.Config) { c.Subject = "bob@example.com" }), []string{"403", "Not Authorized to access this resource/api", "check subject (bob@example.com): it must be an administrator"}},
		"another key":           {with(func(c *google.Config) { c.Credentials = secret.Ref{File: writeKey(t, other, d.s)} }), []string{"Invalid JWT Signature", "check credentials"}},
		"bad field":             {with(func(c *google.Config) { c.Users.FirstName = "{department}" }), []string{"400", "Invalid field selection users/department", "check the fields"}},
		"unknown schema":        {with(func(c *google.Config) { c.Users.ExtraAttributes = []string{"customSchemas.HR.level"} }), []string{"400", "custom schema HR not found", "customSchemas.<schema>"}},
		"wrong customer":        {with(func(c *google.Config) { c.Customer = "C999" }), []string{"400", "check customer (C999)"}},
		"not a key file":        {with(func(c *google.Config) { c.Credentials = secret.Ref{File: textFile} }), []string{"credentials: not a JSON credentials file"}},
		"a bad private key":     {with(func(c *google.Config) { c.Credentials = secret.Ref{File: badFile} }), []string{"credentials: the key file's private_key is not a PEM RSA private key"}},
		"dead apiURL":           {with(func(c *google.Config) { c.APIURL = "http://127.0.0.1:1" }), []string{"cannot connect to 127.0.0.1:1", "check apiURL (http://127.0.0.1:1)"}},
	} {
		res, err := read(t, c.cfg, rules)
		for _, w := range c.want {
			if err == nil || res != nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v, want %q", name, err, w)
			}
		}
		if err != nil && strings.Contains(err.Error(), "PRIVATE KEY") {
			t.Errorf("%s: the error shows the key: %v", name, err)
		}
	}
}

// TestExpressionsAndCustomSchemas: a filter over a custom schema field
// (extraAttributes), a groups expression over each user's directory
// groups (nested Platform Team included) and a set expression.
func TestExpressionsAndCustomSchemas(t *testing.T) {
	t.Parallel()
	d := startDemo(t, googlefake.Options{}, nil)
	d.cfg.Users.ExtraAttributes = []string{"customSchemas.Employment.costCenter", "orgUnitPath"}
	p, err := expr.Compile(expr.Config{
		Filter: `user.attributes["customSchemas.Employment.costCenter"] != "CC-Erin"`,
		Groups: `"Platform Team" in directoryGroups ? ["Platform"] : []`,
		Set:    map[string]string{"lastname": `user.lastname + " (" + user.attributes.orgUnitPath + ")"`},
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := openWith(t, d.cfg, source.Options{Mapper: sourcetest.Mapper(t, rules), Expressions: p}).Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"alice@example.com": {"Engineering"}, "bob@example.com": {"Engineering"},
		"carol@example.com": {"Design", "Marketing"}, "dave@example.com": {"Design", "Engineering", "Platform"}}
	checkGroups(t, sourcetest.GroupsByEmail(res.Users), want)
	if len(res.Filtered) != 1 || res.Filtered[0].Email != "erin@example.com" {
		t.Errorf("filtered %v, want erin", res.Filtered)
	}
	for _, u := range res.Users.All() {
		if u.Email == "bob@example.com" && u.LastName != "Builder (/Staff)" {
			t.Errorf("bob's last name %q, want it computed", u.LastName)
		}
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	c := google.Config{Subject: "admin", APIURL: "admin.googleapis.com",
		Users: google.Users{UserFields: clouddir.UserFields{Templates: source.Templates{Type: "robot"}, ExtraAttributes: []string{"a b"}}}}
	c.PageSize = 501
	var fields []string
	for _, fe := range c.Validate() {
		fields = append(fields, fe.Field)
	}
	want := []string{"credentials", "subject", "apiURL", "pageSize", "users.extraAttributes[0]", "users.type"}
	if !slices.Equal(fields, want) {
		t.Errorf("problems in %v, want %v", fields, want)
	}
	if _, err := c.Open("g", source.Options{}); err == nil || !strings.Contains(err.Error(), "subject") {
		t.Errorf("Open: %v", err)
	}
}
