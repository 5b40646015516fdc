package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/internal/demo"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/source/entra/entrafake"
	"github.com/orgsync/orgsync/source/ldap"
	"github.com/orgsync/orgsync/source/ldap/ldaptest"
	"github.com/orgsync/orgsync/source/okta/oktafake"
	"github.com/orgsync/orgsync/target/umsim"
)

// groupsOf returns the groups of the user with email in the simulator (of
// one organization).
func groupsOf(s interface{ Snapshot() *umsim.State }, email string) (groups []string, found bool) {
	for _, u := range s.Snapshot().Users {
		if strings.EqualFold(u.Email, email) {
			return u.Groups, true
		}
	}
	return nil, false
}

func hasFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}

// TestPlanSyncPlanConverges runs plan, sync and plan from each example
// against the simulator: the CSV and YAML files, and the OpenLDAP
// directory of examples/openldap/users.ldif served by a real slapd.
func TestPlanSyncPlanConverges(t *testing.T) {
	t.Parallel()
	for _, example := range []string{"csv", "yaml", "openldap"} {
		t.Run(example, func(t *testing.T) {
			dir := exampleDir(t)
			s := startSim(t, dir, umsim.Options{})
			var env, replace []string
			if example == "openldap" {
				env, replace = startExampleSlapd(t, dir)
			}
			cfg := configFor(t, dir, example, s.url, replace...)

			r := runBinary(t, env, "plan", "--config", cfg, "--detailed-exitcode")
			if r.code != exitChanges {
				t.Fatalf("first plan: exit %d, want %d\n%s\n%s", r.code, exitChanges, r.stdout, r.stderr)
			}
			for _, want := range []string{"dave@example.com", "bob@example.com", "mallory@example.com"} {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("first plan lacks %s:\n%s", want, r.stdout)
				}
			}
			if strings.Contains(r.stdout, "admin@example.com") {
				t.Errorf("the excluded administrator is in the plan:\n%s", r.stdout)
			}
			if _, found := groupsOf(s, "dave@example.com"); found {
				t.Fatal("plan changed the organization")
			}

			r = runBinary(t, env, "sync", "--config", cfg)
			if r.code != exitOK {
				t.Fatalf("sync: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			if g, found := groupsOf(s, "dave@example.com"); !found || !hasFold(g, "Engineering") || !hasFold(g, "Design") {
				t.Errorf("dave after sync: %v (found %v)", g, found)
			}
			if g, _ := groupsOf(s, "mallory@example.com"); hasFold(g, "Marketing") || hasFold(g, "All Apps") {
				t.Errorf("mallory kept managed groups: %v", g)
			}
			if g, _ := groupsOf(s, "admin@example.com"); !hasFold(g, "_org_admin") {
				t.Errorf("admin lost _org_admin: %v", g)
			}
			if !strings.Contains(r.stderr, `"msg":"summary"`) || !strings.Contains(r.stderr, `"peakMemory"`) {
				t.Errorf("no JSON summary line on stderr:\n%s", r.stderr)
			}
			if !strings.Contains(r.stderr, `"level":"info","ts":`) || !strings.Contains(r.stderr, `"msg":"sending request 1/1 (`) {
				t.Errorf("sync does not log the request it sends at info level:\n%s", r.stderr)
			}

			r = runBinary(t, env, "plan", "--config", cfg, "--detailed-exitcode")
			if r.code != exitOK {
				t.Errorf("second plan: exit %d, want 0\n%s\n%s", r.code, r.stdout, r.stderr)
			}
		})
	}
}

// startExampleSlapd serves examples/openldap/users.ldif from a real slapd
// and returns the environment and the configFor replacements that point the
// OpenLDAP example at it.
func startExampleSlapd(t *testing.T, dir string) (env, replace []string) {
	t.Helper()
	ldif, err := os.ReadFile(filepath.Join(dir, "openldap", "users.ldif"))
	if err != nil {
		t.Fatal(err)
	}
	url := ldaptest.StartSlapd(t, string(ldif))
	return []string{"LDAP_BIND_PASSWORD=" + ldap.OpenLDAPReaderPassword}, []string{"ldap://127.0.0.1:3890", url}
}

// TestLDAPAndCSVShareExactRules runs the OpenLDAP example with a CSV file
// as a second source and an exact rule for a group that only the file has:
// the run accepts it; a rule for a group that no source has fails the run.
func TestLDAPAndCSVShareExactRules(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	env, replace := startExampleSlapd(t, dir)
	if err := os.WriteFile(filepath.Join(dir, "openldap", "contractors.csv"), []byte("email,firstname,lastname,groups\nzoe@example.com,Zoe,Zimmer,contractors\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	withCSV := append(replace, "mapping:\n", "  - csv: {path: contractors.csv, defaultCountry: DE}\nmapping:\n  - directory: contractors\n    targets: [Design]\n")
	r := runBinary(t, env, "plan", "--config", configFor(t, dir, "openldap", s.url, withCSV...), "--detailed-exitcode")
	if r.code != exitChanges || !regexp.MustCompile(`\+ create zoe@example.com .*\+Design`).MatchString(r.stdout) {
		t.Fatalf("plan: exit %d, want %d with zoe created into Design\n%s\n%s", r.code, exitChanges, r.stdout, r.stderr)
	}
	// A rule whose group the directory lacks (renamed there) but the file
	// names: the directory's users keep its target (carol and bob are in
	// Design), with a warning; the file's user gets it.
	renamed := append(replace, "  - directory: cn=design,ou=groups,dc=example,dc=com\n", "  - directory: crew\n",
		"mapping:\n", "  - csv: {path: contractors.csv, defaultCountry: DE}\nmapping:\n")
	if err := os.WriteFile(filepath.Join(dir, "openldap", "contractors.csv"), []byte("email,firstname,lastname,groups\nzoe@example.com,Zoe,Zimmer,crew\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = runBinary(t, env, "plan", "--config", configFor(t, dir, "openldap", s.url, renamed...))
	if r.code != exitOK || strings.Contains(r.stdout, "-Design") || !strings.Contains(r.stdout, "carol@example.com keeps Design") ||
		!regexp.MustCompile(`\+ create zoe@example.com .*\+Design`).MatchString(r.stdout) || !strings.Contains(r.stderr, `mapped directory group \"crew\" not found`) {
		t.Errorf("renamed group: exit %d; want Design kept for the directory's users, zoe added, a warning\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	gone := append(replace, "mapping:\n", "  - csv: {path: contractors.csv, defaultCountry: DE}\nmapping:\n  - directory: renamed\n    targets: [Design]\n")
	r = runBinary(t, env, "plan", "--config", configFor(t, dir, "openldap", s.url, gone...))
	if r.code != exitError || !strings.Contains(r.stderr, `"renamed" not found under "ou=groups,dc=example,dc=com"`) || !strings.Contains(r.stderr, "no other source names them") {
		t.Errorf("a group no source has: exit %d, want %d naming it\n%s", r.code, exitError, r.stderr)
	}
}

func TestPlanJSONAndTestOnly(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	cfg := configFor(t, dir, "csv", s.url, "unmatchedUsers: remove-groups", "unmatchedUsers: remove-groups\n  reportFile: unmatched.csv")
	r := runBinary(t, nil, "plan", "--config", cfg, "--output", "json")
	if r.code != exitOK {
		t.Fatalf("plan: exit %d\n%s", r.code, r.stderr)
	}
	report, err := os.ReadFile(filepath.Join(dir, "csv", "unmatched.csv"))
	if err != nil || !strings.HasPrefix(string(report), "email,") || !strings.Contains(string(report), "mallory@example.com") {
		t.Errorf("unmatched-users report: %v\n%s", err, report)
	}
	var plan map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &plan); err != nil {
		t.Fatalf("plan --output json is not JSON: %v\n%s", err, r.stdout)
	}
	if !strings.Contains(r.stdout, "dave@example.com") {
		t.Errorf("JSON plan lacks dave:\n%s", r.stdout)
	}
	r = runBinary(t, nil, "sync", "--config", cfg, "--test-only")
	if r.code != exitOK || !strings.Contains(r.stdout, "test only") {
		t.Fatalf("sync --test-only: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if _, found := groupsOf(s, "dave@example.com"); found {
		t.Error("sync --test-only changed the organization")
	}
	if r := runBinary(t, nil, "plan", "--config", cfg, "--detailed-exitcode"); r.code != exitChanges {
		t.Errorf("plan after a test-only sync: exit %d, want %d", r.code, exitChanges)
	}
}

// TestTestOnlyCountsUnverifiedEntries: dave and bob join a user group the
// run creates; a test-only run creates nothing, so the entries that wait on
// the group's creation cannot be verified and the result says how many.
func TestTestOnlyCountsUnverifiedEntries(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	cfg := configFor(t, dir, "csv", s.url, "targets: [Engineering, Acrobat Pro]", "targets: [Engineering, Acrobat Pro, NewTeam]",
		"unmatchedUsers: remove-groups", "unmatchedUsers: remove-groups\n  userGroups: [NewTeam]\n  createUserGroups: true")
	r := runBinary(t, nil, "sync", "--config", cfg, "--test-only")
	if r.code != exitOK || !regexp.MustCompile(`\n  ([2-9]|[1-9][0-9]+) entries unverified|\n  1 entry unverified`).MatchString(r.stdout) {
		t.Errorf("sync --test-only: exit %d, want the unverified entries counted:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

func TestSourceFailureFailsTheRun(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	cfg := configFor(t, dir, "csv", s.url, "path: users.csv", "path: missing.csv")
	before := s.Snapshot()
	for _, cmd := range []string{"plan", "sync"} {
		r := runBinary(t, nil, cmd, "--config", cfg)
		if r.code != exitError || !strings.Contains(r.stderr, "missing.csv") {
			t.Errorf("%s with a missing source file: exit %d\n%s", cmd, r.code, r.stderr)
		}
	}
	if len(s.Snapshot().Users) != len(before.Users) {
		t.Error("a failed source changed the organization")
	}
}

// TestDemo runs `orgsync demo` with each of its example sources: plan,
// sync, and a second plan with nothing to do. The ldap example starts a
// real slapd, the activedirectory example a real Samba domain controller,
// the freeipa example a real 389 Directory Server (the test fails in CI
// when they cannot run).
func TestDemo(t *testing.T) {
	t.Parallel()
	for _, name := range slices.Sorted(maps.Keys(demo.Examples())) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			switch name {
			case "ldap":
				ldaptest.RequireSlapd(t)
			case "activedirectory":
				ldaptest.RequireSamba(t)
			case "freeipa":
				ldaptest.RequireDirsrv(t)
			}
			r := runBinary(t, nil, "demo", "--source", name, "--log-level", "debug")
			if r.code != exitOK {
				t.Fatalf("demo: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			for _, want := range []string{"examples/" + demo.Examples()[name].Dir + "/orgsync.yaml", "== 1. orgsync plan", "+ create dave@example.com",
				"== 2. orgsync sync", "== 3. orgsync plan again", "Plan: 0 to create, 0 to update", "In sync.", "0 of them 429"} {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("demo output lacks %q:\n%s", want, r.stdout)
				}
			}
			// The cloud demos sign in without a downloaded key or a secret.
			if keyless := map[string]string{"google": "Signing in without a key file", "entra": "Signing in without a secret"}[name]; !strings.Contains(r.stdout, keyless) {
				t.Errorf("demo output lacks %q:\n%s", keyless, r.stdout)
			}
			// At debug level too, no demo secret (the fakes' included, and
			// no private key such as the Google service account's) is printed.
			for _, secret := range []string{entrafake.DemoSecret, oktafake.DemoToken, "demo-client-secret-not-a-real-secret", "PRIVATE KEY"} {
				if strings.Contains(r.stdout+r.stderr, secret) {
					t.Errorf("the demo printed a secret (%.12s…)", secret)
				}
			}
		})
	}
	if r := runBinary(t, nil, "demo", "--source", "oracle"); r.code != exitError || !strings.Contains(r.stderr, "use one of "+demo.Names()) {
		t.Errorf("unknown demo source: exit %d\n%s", r.code, r.stderr)
	}
}

// TestSecretsNeverPrinted runs the commands at debug level, and with a
// wrong secret, and looks for the secrets in everything they printed.
func TestSecretsNeverPrinted(t *testing.T) {
	t.Parallel()
	for _, example := range []string{"csv", "multiorg"} {
		t.Run(example, func(t *testing.T) {
			dir := exampleDir(t)
			url := startSim(t, dir, umsim.Options{}).url
			if example == "multiorg" {
				url = startMultiSim(t, dir, "sim/orgs.yaml", umsim.Options{}).url
			}
			checkSecretsNeverPrinted(t, dir, configFor(t, dir, example, url))
		})
	}
}

// checkSecretsNeverPrinted runs the commands with cfg at debug level, and
// with a wrong secret, and looks for the secrets in everything they
// printed.
func checkSecretsNeverPrinted(t *testing.T, dir, cfg string) {
	key, err := os.ReadFile(filepath.Join(dir, "sim", "demo-private-key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	keyLines := strings.Split(strings.TrimSpace(string(key)), "\n")
	secrets := []string{"demo-client-secret-not-a-real-secret", "wrong-secret-value", keyLines[len(keyLines)-2]}
	var outputs []result
	for _, args := range [][]string{
		{"plan", "--log-level", "debug", "--output", "json"},
		{"sync", "--log-level", "debug"},
		{"validate", "--log-level", "debug", "--check-target"},
	} {
		outputs = append(outputs, runBinary(t, nil, append(args, "--config", cfg)...))
	}
	if err := os.WriteFile(filepath.Join(dir, "sim", "demo-client-secret"), []byte("wrong-secret-value\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runBinary(t, nil, "plan", "--log-level", "debug", "--config", cfg)
	if r.code != exitError {
		t.Errorf("plan with a wrong client secret: exit %d", r.code)
	}
	outputs = append(outputs, r)
	for _, out := range outputs {
		for _, sec := range secrets {
			if strings.Contains(out.stdout+out.stderr, sec) {
				t.Errorf("a secret (%.12s…) was printed:\n%s\n%s", sec, out.stdout, out.stderr)
			}
		}
	}
}

// TestBadRowWithholdsRemovals: a skipped bad record could be a user who
// should keep access, so the run adds what it must and takes nothing away.
func TestBadRowWithholdsRemovals(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	appendFile(t, filepath.Join(dir, "csv", "users.csv"), "Mallory,Left,mallory-at-example.com,US,marketing\n")
	cfg := configFor(t, dir, "csv", s.url)
	r := runBinary(t, nil, "sync", "--config", cfg)
	if r.code != exitError {
		t.Errorf("sync with a bad row: exit %d, want %d", r.code, exitError)
	}
	for _, want := range []string{"users.csv:8", "the sources reported problems"} {
		if !strings.Contains(r.stdout+r.stderr, want) {
			t.Errorf("output lacks %q:\n%s\n%s", want, r.stdout, r.stderr)
		}
	}
	if g, _ := groupsOf(s, "mallory@example.com"); !hasFold(g, "Marketing") {
		t.Errorf("mallory lost Marketing although a row was skipped: %v", g)
	}
	if _, found := groupsOf(s, "dave@example.com"); !found {
		t.Error("the additions were not applied")
	}
}

// TestPatternMappingTargetsAreManaged: the targets a pattern rule makes
// ("$1") cannot be listed in advance, yet they are managed: memberships are
// added and removed in them, and groups no rule produces stay untouched.
func TestPatternMappingTargetsAreManaged(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	rules := `  - directory: eng
    targets: [Engineering, Acrobat Pro]
  - directory: design
    targets: [Design]
  - directory: marketing
    targets: [Marketing, All Apps]
`
	cfg := configFor(t, dir, "csv", s.url, rules, "  - pattern: \"(design|marketing)\"\n    targets: [\"$1\"]\n")
	if r := runBinary(t, nil, "sync", "--config", cfg); r.code != exitOK {
		t.Fatalf("sync: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, c := range []struct {
		email, group string
		want         bool
	}{
		{"dave@example.com", "Design", true},        // added through the pattern
		{"erin@example.com", "Marketing", true},     // added through the pattern
		{"bob@example.com", "Design", false},        // removed: bob is not in design
		{"bob@example.com", "Engineering", true},    // no rule makes Engineering: untouched
		{"mallory@example.com", "Marketing", false}, // in no source: remove-groups
		{"mallory@example.com", "All Apps", true},   // no rule makes All Apps: untouched
	} {
		if g, _ := groupsOf(s, c.email); hasFold(g, c.group) != c.want {
			t.Errorf("%s in %s: %v, want %v (groups %v)", c.email, c.group, !c.want, c.want, g)
		}
	}
	if r := runBinary(t, nil, "plan", "--config", cfg, "--detailed-exitcode"); r.code != exitOK {
		t.Errorf("plan after sync: exit %d, want %d\n%s", r.code, exitOK, r.stdout)
	}
}

// TestDetailedExitCodeCountsWithheldChanges: removals withheld by a safety
// limit leave the organization out of step, so the plan still exits 2.
func TestDetailedExitCodeCountsWithheldChanges(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	cfg := configFor(t, dir, "csv", s.url, "maxRemovals: 50%", "maxRemovals: 1")
	if r := runBinary(t, nil, "sync", "--config", cfg); r.code != exitError {
		t.Fatalf("sync over the removal limit: exit %d, want %d\n%s", r.code, exitError, r.stderr)
	}
	r := runBinary(t, nil, "plan", "--config", cfg, "--detailed-exitcode")
	if r.code != exitChanges {
		t.Errorf("plan with only withheld removals left: exit %d, want %d\n%s", r.code, exitChanges, r.stdout)
	}
	if g, _ := groupsOf(s, "mallory@example.com"); !hasFold(g, "Marketing") {
		t.Errorf("a withheld removal was applied: mallory has %v", g)
	}
}

// TestPlanLogsWhatItWouldSend: plan goes the same way as sync up to the
// wire: it logs each request it would send and counts them, sending none.
func TestPlanLogsWhatItWouldSend(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	cfg := configFor(t, dir, "csv", s.url)
	r := runBinary(t, nil, "plan", "--config", cfg, "--log-level", "debug", "--log-format", "json")
	if r.code != exitOK {
		t.Fatalf("plan: exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"would send request 1/1", `"actionRequests":1`} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("plan's log lacks %q:\n%s", want, r.stderr)
		}
	}
	if n := s.Stats().Requests["action"]; len(n) != 0 {
		t.Errorf("plan sent action requests: %v", n)
	}
}

// TestBigSyncLogsProgressNotEachRequest: a sync of more than run.QuietAbove
// requests logs one line saying so and progress lines at info, not a line
// per request (those are at debug).
func TestBigSyncLogsProgressNotEachRequest(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	var more strings.Builder
	for u := range 10 * (run.QuietAbove + 5) {
		fmt.Fprintf(&more, "First%d,Last%d,new%04d@example.com,US,eng\n", u, u, u)
	}
	appendFile(t, filepath.Join(dir, "csv", "users.csv"), more.String())
	s := startSim(t, dir, umsim.Options{})
	cfg := configFor(t, dir, "csv", s.url)
	r := runBinary(t, nil, "sync", "--config", cfg)
	if r.code != exitOK {
		t.Fatalf("sync: exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, `"msg":"sending requests: progress lines follow`) || strings.Contains(r.stderr, `"msg":"sending request 1/`) {
		t.Errorf("a big sync logs each request at info, or does not say that it does not:\n%s", r.stderr)
	}
	r = runBinary(t, nil, "plan", "--config", cfg, "--detailed-exitcode")
	if r.code != exitOK {
		t.Errorf("plan after the sync: exit %d\n%s", r.code, r.stdout)
	}
}
