package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/target/umapi"
)

// write puts files into a fresh directory and returns the path of the
// first one.
func write(t *testing.T, files map[string]string, mode os.FileMode) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const minimal = `target:
  orgId: 12AB@VendorOrg
  baseURL: https://um.example.com
  auth:
    clientId: cid
    clientSecret: {env: TEST_SECRET}
    technicalAccountId: tech@techacct.example.com
    privateKey: {file: key.pem}
sources:
  - csv: {path: users.csv}
mapping:
  - directory: eng
    targets: [Engineering]
`

func TestLoadMinimalAppliesDefaults(t *testing.T) {
	t.Parallel()
	dir := write(t, map[string]string{"c.yaml": minimal, "key.pem": "KEY", "users.csv": "email\n"}, 0o600)
	cfg, err := Load(filepath.Join(dir, "c.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tg := cfg.Target
	if tg.AuthBaseURL != tg.BaseURL || tg.Auth.Method != AuthJWT {
		t.Errorf("auth defaults: %+v", tg)
	}
	if tg.Limits != (Limits{Reads: 25, Requests: 100, Window: time.Minute}) {
		t.Errorf("limits = %+v", tg.Limits)
	}
	if tg.Retries.Max != umapi.DefaultMaxRetries || tg.Timeouts.Request != umapi.DefaultTimeout {
		t.Errorf("retries/timeouts = %+v %+v", tg.Retries, tg.Timeouts)
	}
	if cfg.Policy.UnmatchedUsers != UnmatchedPreserve || strings.Join(cfg.Policy.UpdateAttributes, ",") != "firstname,lastname" {
		t.Errorf("policy = %+v", cfg.Policy)
	}
	if cfg.Safety.MaxRemovals != (Limit{N: 10, Percent: true}) || cfg.Safety.MaxChanges.IsSet() {
		t.Errorf("safety = %+v", cfg.Safety)
	}
	if cfg.Schedule.Cron != DefaultCron || cfg.Logging.Format != FormatAuto || cfg.Logging.Level != "info" {
		t.Errorf("schedule/logging = %+v %+v", cfg.Schedule, cfg.Logging)
	}
	if src := cfg.Sources[0]; src.Kind() != "csv" || *src.settings.Uses().Files[0] != filepath.Join(dir, "users.csv") {
		t.Errorf("source = %s %q, want csv %q (relative to the config file)", src.Kind(), *src.settings.Uses().Files[0], filepath.Join(dir, "users.csv"))
	}
	if len(cfg.Warnings) != 0 {
		t.Errorf("warnings = %v", cfg.Warnings)
	}
}

func TestLoadReportsEveryProblemWithLines(t *testing.T) {
	t.Parallel()
	const bad = `target:
  orgId: not-an-org
  baseURL: ftp://um.example.com
  auth:
    clientId: cid
    clientSecret: hunter2-inline
    technicalAccountId: t
    privateKey: {env: K, file: k.pem}
  limits:
    reads: many
  timeout: 3s
sources:
  - csv: {path: users.csv, delimiter: "|"}
  - ldap:
      url: ldap://localhost
      users: {}
  - {}
mapping:
  - directory: eng
policy:
  unmatchedUsers: nuke
  exclude:
    usernames: ["("]
safety:
  maxRemovals: lots
schedule:
  cron: "*/30 * * * *"
logging: {format: xml}
`
	cerr := loadProblems(t, map[string]string{"c.yaml": bad})
	want := []string{
		"target.orgId (line 2): ",
		"target.baseURL (line 3): ",
		"target.auth.clientSecret (line 6): secrets are never written in the file",
		"target.auth.privateKey (line 8): set one of env, file, exec and wincred, not several",
		"target.limits.reads (line 10): must be a whole number",
		"target.timeout (line 11): unknown key",
		"sources[0].csv.delimiter (line 13): ",
		"sources[1].ldap.users.baseDN (line 16): required",
		"sources[2] (line 17): set exactly one of",
		"mapping[0].targets (line 19): ",
		"policy.unmatchedUsers (line 21): ",
		"policy.exclude.usernames[0] (line 23): not a valid regular expression",
		"safety.maxRemovals (line 25): must be a whole number (50) or a percentage",
		"schedule.cron (line 27): runs every 30m0s",
		"logging.format (line 28): ",
	}
	got := wantProblems(t, cerr, want)
	if len(got) != len(want) {
		t.Errorf("got %d problems, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	if strings.Contains(cerr.Error(), "hunter2") {
		t.Errorf("the inline secret leaked into the error: %v", cerr)
	}
}

// wantProblems reports each of want (a prefix) that no problem of cerr
// has, and returns the problems.
func wantProblems(t *testing.T, cerr *Error, want []string) []string {
	t.Helper()
	var got []string
	for _, p := range cerr.Problems {
		got = append(got, p.String())
	}
	for _, w := range want {
		if !containsPrefix(got, w) {
			t.Errorf("missing problem %q in:\n%s", w, strings.Join(got, "\n"))
		}
	}
	return got
}

func containsPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

func TestLoadWarnings(t *testing.T) {
	t.Parallel()
	cfgText := minimal + "schedule:\n  cron: \"@every 1m\"\n  allowFrequentSchedule: true\n"
	dir := write(t, map[string]string{"c.yaml": cfgText, "key.pem": "KEY", "users.csv": "email\n"}, 0o644)
	cfg, err := Load(filepath.Join(dir, "c.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range cfg.Warnings {
		got = append(got, w.String())
	}
	for _, w := range []string{"target.auth.privateKey.file (line 8): ", "schedule.cron (line 15): runs every 1m0s"} {
		if !containsPrefix(got, w) {
			t.Errorf("missing warning %q in %v", w, got)
		}
	}
}

func TestParseRejectsEmptyAndMultiDocument(t *testing.T) {
	t.Parallel()
	for name, text := range map[string]string{
		"empty":     "",
		"two docs":  "target: {}\n---\ntarget: {}\n",
		"bad yaml":  "target: [\n",
		"not a map": "- a\n- b\n",
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Parse([]byte(text), "c.yaml"); err == nil {
				t.Fatal("no error")
			}
		})
	}
}

func TestLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    Limit
		of1000  int
		wantErr bool
	}{
		{in: "50", want: Limit{N: 50}, of1000: 50},
		{in: "10%", want: Limit{N: 10, Percent: true}, of1000: 100},
		{in: " 5 % ", want: Limit{N: 5, Percent: true}, of1000: 50},
		{in: "101%", wantErr: true},
		{in: "-1", wantErr: true},
		{in: "ten", wantErr: true},
		{in: "0%", wantErr: true}, // reads as "none allowed", but 0 means no limit
		{in: "0", want: Limit{}, of1000: 0},
	}
	for _, tt := range tests {
		got, err := ParseLimit(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseLimit(%q) err = %v", tt.in, err)
			continue
		}
		if err == nil && (got != tt.want || got.Of(1000) != tt.of1000 || got.String() != strings.ReplaceAll(strings.TrimSpace(tt.in), " ", "")) {
			t.Errorf("ParseLimit(%q) = %+v (of 1000: %d, %s)", tt.in, got, got.Of(1000), got)
		}
	}
}

// TestShortestInterval: the shortest time between two runs over the whole
// calendar, where it differs across the year: month lengths, leap days,
// a day of the month or of the week; not a daylight saving change.
func TestShortestInterval(t *testing.T) {
	t.Parallel()
	day := 24 * time.Hour
	tests := map[string]time.Duration{
		"0 */2 * * *":  2 * time.Hour,
		"*/30 * * * *": 30 * time.Minute,
		"0 1,2 * * *":  time.Hour,
		"@every 90m":   90 * time.Minute,
		"@daily":       day,
		// Every month's 31st: July's to August's (31 days), not
		// January's to March's.
		"0 12 31 * *": 31 * day,
		// Odd days of February and March at midnight and 23:00: 25 hours
		// apart but from a leap year's February 29 to March 1 (the first
		// in 2028); 200 runs from 2025 ended before it.
		"0 0,23 1-31/2 2-3 *": time.Hour,
		// Fridays or the 13th (cron's either-day rule): Thursday the 13th.
		"0 0 13 * 5": day,
		// Leap days, four years apart (eight across 2100).
		"0 0 29 2 *": 1461 * day,
		// A daylight saving change moves the clock, not the schedule.
		"CRON_TZ=Europe/Berlin 30 2 * * *":        day,
		"CRON_TZ=Australia/Sydney 0 1-23/2 * * *": 2 * time.Hour,
		// A day that never comes.
		"0 0 30 2 *": never,
	}
	for expr, want := range tests {
		s, err := ParseSchedule(expr)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		if got := ShortestInterval(s); got != want {
			t.Errorf("%s: %s, want %s", expr, got, want)
		}
	}
}

// TestFrequentOnceAYearIsRefused: a schedule whose runs come closer than
// two hours on one day in four years is refused like one that always does.
func TestFrequentOnceAYearIsRefused(t *testing.T) {
	t.Parallel()
	cerr := loadProblems(t, map[string]string{"c.yaml": minimal + "schedule:\n  cron: \"0 0,23 1-31/2 2-3 *\"\n", "key.pem": "KEY", "users.csv": "email\n"})
	wantProblems(t, cerr, []string{"schedule.cron (line 15): runs every 1h0m0s"})
}

func TestClientConfigLoadsSecrets(t *testing.T) {
	// Not parallel: the configuration's secrets are environment variables of the process (t.Setenv).
	dir := write(t, map[string]string{"c.yaml": minimal, "key.pem": "PEM\n", "users.csv": "email\n"}, 0o600)
	cfg, err := Load(filepath.Join(dir, "c.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cfg.Target.ClientConfig(); err == nil || !strings.Contains(err.Error(), "target.auth.clientSecret: environment variable TEST_SECRET") {
		t.Errorf("unset variable: err = %v", err)
	}
	t.Setenv("TEST_SECRET", "s3cret")
	c, err := cfg.Target.ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	if c.ClientSecret != "s3cret" || c.PrivateKeyPEM != "PEM" || c.ReadLimit != 25 || c.OrgID != "12AB@VendorOrg" {
		t.Errorf("client config = %#v", c)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(minimal))
	f.Add([]byte(twoOrgs))
	f.Add([]byte("targets: [{name: a, orgId: 1@VendorOrg}, {name: a, <<: {orgId: 1@vendororg}, policy: {}}]\nmapping: [{directory: x, targets: ['b::X', '::Y', 'a::']}]\n"))
	f.Add([]byte("sources: [{csv: {path: [1]}}]\nsafety: {maxRemovals: '5%'}\n"))
	f.Add([]byte("a: &x {b: 1}\nc: *x\ntarget: {<<: *x}\n"))
	f.Add([]byte("target: {? {a: 1} : 2, <<: {orgId: x}}\n"))
	f.Add([]byte("x: &s {csv: {path: a.csv}, filter: 'true'}\nsources: [{<<: *s, ldap: ~}, {<<: [*s, {yaml: *s}]}, {okta: {users: [1]}, entra: 3}, {csv: {? [a] : 1}}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse(data, "fuzz.yaml")
		if (cfg == nil) == (err == nil) {
			t.Fatalf("Parse returned cfg=%v err=%v", cfg, err)
		}
	})
}

func TestStrictWalkerDetails(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, extra string
		want        string
	}{
		{"letter case suggestion", "logging: {Level: debug}\n", `logging.Level (line 14): unknown key (did you mean "level"?)`},
		{"list where a mapping belongs", "policy: [a]\n", "policy (line 14): must be a mapping with the keys"},
		{"scalar where a list belongs", "policy: {managedGroups: Sales}\n", "policy.managedGroups (line 14): must be a list"},
		{"unknown top-level key", "target2: x\n", "target2 (line 14): unknown key"},
		{"typo suggestion", "policy: {unmatchedUser: remove}\n", `policy.unmatchedUser (line 14): unknown key (did you mean "unmatchedUsers"?)`},
		{"no suggestion for a stranger", "policy: {colour: red}\n", "policy.colour (line 14): unknown key; known keys here"},
		{"zero percent", "safety: {maxRemovals: 0%}\n", `safety.maxRemovals (line 14): "0%" is ambiguous: write 0 for no limit`},
		{"merge key checked too", "x-defaults: &d {level: debug, colour: red}\nlogging: {<<: *d}\n", "logging.colour (line 14): unknown key"},
		// yaml.v3 panics merging into a mapping with a complex key (found by FuzzParse).
		{"mapping as a key beside a merge", "logging: {? {a: 1} : 2, <<: {level: debug}}\n", "logging (line 14): a key must be a plain name, not a mapping"},
		{"list as a key", "policy: {? [a] : 1}\n", "policy (line 14): a key must be a plain name, not a list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := write(t, map[string]string{"c.yaml": minimal + tt.extra, "key.pem": "K", "users.csv": "email\n"}, 0o600)
			_, err := Load(filepath.Join(dir, "c.yaml"))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v\nwant it to contain %q", err, tt.want)
			}
		})
	}
	dir := write(t, map[string]string{"c.yaml": strings.Replace(minimal, "  orgId: 12AB@VendorOrg\n", "  orgId: 12AB@VendorOrg\n  timeouts: {request: soon}\n", 1), "key.pem": "K", "users.csv": "email\n"}, 0o600)
	if _, err := Load(filepath.Join(dir, "c.yaml")); err == nil || !strings.Contains(err.Error(), "target.timeouts.request (line 3): must be a duration") {
		t.Errorf("bad duration: err = %v", err)
	}
}

// maxRemovals defaults to 10% when the file does not set it, also when the
// safety block sets something else; an explicit 0 means no limit.
func TestMaxRemovalsDefaultAndExplicitZero(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		safety string
		want   Limit
	}{
		{"", Limit{N: DefaultMaxRemovalsPercent, Percent: true}},
		{"safety:\n  maxChanges: 5\n", Limit{N: DefaultMaxRemovalsPercent, Percent: true}},
		{"safety:\n  maxRemovals: 0\n", Limit{}},
		{"safety:\n  maxRemovals: 25\n", Limit{N: 25}},
	} {
		dir := write(t, map[string]string{"c.yaml": minimal + tc.safety, "key.pem": "K", "users.csv": "email\n"}, 0o600)
		cfg, err := Load(filepath.Join(dir, "c.yaml"))
		if err != nil {
			t.Fatalf("%q: %v", tc.safety, err)
		}
		if cfg.Safety.MaxRemovals != tc.want {
			t.Errorf("%q: maxRemovals = %+v, want %+v", tc.safety, cfg.Safety.MaxRemovals, tc.want)
		}
	}
}

// TestUnlistedExtraAttribute: an expression of a directory source that
// reads an attribute users.extraAttributes does not list is a problem at
// load, with the expression's line, not a bad record per user at run time.
func TestUnlistedExtraAttribute(t *testing.T) {
	// Not parallel: the configuration's secrets are environment variables of the process (t.Setenv).
	for _, v := range []string{"S", "K", "T"} {
		t.Setenv(v, "set")
	}
	const cfg = `target:
  orgId: 12AB@VendorOrg
  baseURL: https://um.example.com
  auth: {clientId: cid, clientSecret: {env: S}, technicalAccountId: t@techacct.example.com, privateKey: {env: K}}
sources:
  - ldap:
      url: ldap://ldap.example.org
      users: {baseDN: "ou=people,dc=example,dc=com", extraAttributes: [department]}
    filter: user.attributes.department != "Sales"
    groups: 'user.attributes.departement == "Design" ? ["Design"] : []'
  - okta:
      orgURL: https://example.okta.com
      apiToken: {env: T}
    set:
      country: user.attributes.country
  - ldap:
      url: ldap://ldap.example.org
      users: {baseDN: "ou=people,dc=example,dc=com", extraAttributes: [mail]}
    groups: 'user.attributeValues.mails.map(m, m.split("@")[1])'
mapping:
  - directory: eng
    targets: [Engineering, Design]
`
	cerr := loadProblems(t, map[string]string{"c.yaml": cfg})
	got := wantProblems(t, cerr, []string{
		"sources[0].groups (line 10): reads user.attributes.departement, but ldap.users.extraAttributes does not list it (it lists department)",
		"sources[1].set.country (line 15): reads user.attributes.country, but okta.users.extraAttributes does not list it (it lists none)",
		"sources[2].groups (line 19): reads user.attributeValues.mails, but ldap.users.extraAttributes does not list it (it lists mail)",
	})
	if len(got) != 3 {
		t.Errorf("want 3 problems, got:\n%s", strings.Join(got, "\n"))
	}
}

// TestCloudSourcesProblemsWithLines: the entra and okta blocks are checked
// like the others, every problem with its key path and line.
func TestCloudSourcesProblemsWithLines(t *testing.T) {
	t.Parallel()
	const bad = `target:
  orgId: 12AB@VendorOrg
  baseURL: https://um.example.com
  auth: {clientId: cid, clientSecret: {env: S}, technicalAccountId: t@techacct.example.com, privateKey: {env: K}}
sources:
  - entra:
      clientId: app
      clientSecret: inline-secret-value
      users:
        email: "{mail"
        colour: blue
  - okta:
      apiToken: {env: T}
      dpop: always
      users:
        statuses: [GONE]
  - entra:
      tenantId: contoso.onmicrosoft.com
      clientId: app
      certificate: {file: missing.pem}
  - okta:
      orgURL: https://example.okta.com
      apiToken: {env: T}
      users: {extraAttributes: [cost center]}
    filter: 'user.attributes.costCenter =='
mapping:
  - directory: eng
    targets: [Engineering]
scope: {groups: [eng]}
`
	cerr := loadProblems(t, map[string]string{"c.yaml": bad})
	want := []string{
		"sources[0].entra.tenantId (line 6): required",
		"sources[0].entra.clientSecret (line 8): secrets are never written in the file",
		"sources[0].entra.users.email (line 10): bad template",
		"sources[0].entra.users.colour (line 11): unknown key",
		"sources[1].okta.orgURL (line 12): required",
		"sources[1].okta.dpop (line 14): applies to clientId and privateKey only",
		"sources[1].okta.users.statuses[0] (line 16): \"GONE\" is not a user status",
		"sources[2].entra.certificate.file (line 20): cannot read the secret file",
		// The cloud sources run expressions too: checked like the others'.
		"sources[3].okta.users.extraAttributes[0] (line 24): \"cost center\" is not an attribute name",
		"sources[3].filter (line 25): ",
	}
	wantProblems(t, cerr, want)
	if strings.Contains(cerr.Error(), "inline-secret-value") {
		t.Errorf("the inline secret leaked into the error: %v", cerr)
	}
}

// loadProblems writes files (c.yaml and what it names) and returns the
// configuration problems Load reports for c.yaml, failing when it reports
// none.
func loadProblems(t *testing.T, files map[string]string) *Error {
	t.Helper()
	dir := write(t, files, 0o600)
	_, err := Load(filepath.Join(dir, "c.yaml"))
	var cerr *Error
	if !errors.As(err, &cerr) {
		t.Fatalf("err = %v, want *Error", err)
	}
	return cerr
}

// A required key written with a typo is one mistake: the unknown key with
// its suggestion, not also "required" for the key it was meant to be.
func TestMisspeltRequiredKeyIsOneProblem(t *testing.T) {
	// Not parallel: the configuration's secrets are environment variables of the process (t.Setenv).
	t.Setenv("TEST_SECRET", "set")
	for _, c := range []struct{ from, to, want string }{
		{"  orgId: 12AB", "  orgID: 12AB", `target.orgID (line 2): unknown key (did you mean "orgId"?)`},
		{"    clientId: cid", "    clientID: cid", `target.auth.clientID (line 5): unknown key (did you mean "clientId"?)`},
		{"csv: {path: users.csv}", "csv: {pth: users.csv}", `sources[0].csv.pth (line 10): unknown key (did you mean "path"?)`},
	} {
		cerr := loadProblems(t, map[string]string{"c.yaml": strings.Replace(minimal, c.from, c.to, 1), "key.pem": "K", "users.csv": "email\n"})
		if len(cerr.Problems) != 1 || !strings.HasPrefix(cerr.Problems[0].String(), c.want) {
			t.Errorf("%s: %v\nwant one problem: %s", c.to, cerr, c.want)
		}
	}
}

// A file with problems to fix reports its unset secret variables with
// them (validate then lists everything at once); one without other
// problems loads, leaving the variables to the run, which reads the
// secrets afresh each time.
func TestUnsetVariablesReportedWithTheOtherProblems(t *testing.T) {
	t.Parallel()
	files := map[string]string{"c.yaml": strings.Replace(minimal, "12AB@VendorOrg", "not-an-org", 1), "key.pem": "K", "users.csv": "email\n"}
	cerr := loadProblems(t, files)
	got := wantProblems(t, cerr, []string{"target.orgId (line 2): ", "target.auth.clientSecret (line 6): environment variable TEST_SECRET is not set"})
	if len(got) != 2 {
		t.Errorf("got %d problems, want 2:\n%s", len(got), strings.Join(got, "\n"))
	}
	dir := write(t, map[string]string{"c.yaml": minimal, "key.pem": "K", "users.csv": "email\n"}, 0o600)
	if _, err := Load(filepath.Join(dir, "c.yaml")); err != nil {
		t.Errorf("a file without other problems: %v", err)
	}
}
