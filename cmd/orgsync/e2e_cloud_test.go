package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/util/testenv"
	"github.com/orgsync/orgsync/source/entra/entrafake"
	"github.com/orgsync/orgsync/source/okta/oktafake"
	"github.com/orgsync/orgsync/target/umsim"
)

// cloudMistake is one wrong configuration of a cloud source: the
// replacements (old, new pairs) that make it, and what the error must say.
type cloudMistake struct {
	name    string
	replace []string
	want    []string
}

// TestCloudSourceMistakes runs plan at debug level against the fake
// tenant and organization with the mistakes a new administrator makes:
// each fails in seconds with an error that names the source, what is
// wrong and the key to check, and no secret is printed.
func TestCloudSourceMistakes(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	sim := startSim(t, dir, umsim.Options{})
	dead := deadURL(t)
	writeFile(t, filepath.Join(dir, "entra", "wrong-secret"), "wrong-entra-secret-value")
	writeFile(t, filepath.Join(dir, "okta", "wrong-secret"), "wrong-okta-token-value")
	secrets := []string{entrafake.DemoSecret, oktafake.DemoToken, "wrong-entra-secret-value", "wrong-okta-token-value"}

	entra := entrafake.Start(entrafake.Demo(), entrafake.Options{})
	t.Cleanup(entra.Close)
	usersOnly := entrafake.Demo()
	usersOnly.Apps[0].Permissions = []string{"User.Read.All"}
	noGroups := entrafake.Start(usersOnly, entrafake.Options{})
	t.Cleanup(noGroups.Close)
	writeFile(t, filepath.Join(dir, "entra", "demo-secret"), entrafake.DemoSecret)
	good, demo := entrafake.DemoTenantID, "demo-secret"
	for _, m := range []cloudMistake{
		{"wrong client secret", entraAt(entra.URL, entra.URL, good, "wrong-secret"), []string{"AADSTS7000215", "check clientSecret"}},
		{"tenant typo", entraAt(entra.URL, entra.URL, "contoso-typo.onmicrosoft.com", demo), []string{"AADSTS90002", "check tenantId"}},
		{"dead loginURL", entraAt(dead, entra.URL, good, demo), []string{"cannot connect", "check loginURL (" + dead + ")"}},
		{"dead graphURL", entraAt(entra.URL, dead, good, demo), []string{"cannot connect", "check graphURL (" + dead + ")"}},
		{"missing permission", entraAt(noGroups.URL, noGroups.URL, good, demo),
			[]string{"403 Forbidden", "Authorization_RequestDenied", "application permission GroupMember.Read.All"}},
		{"missing group", append(entraAt(entra.URL, entra.URL, good, demo), "directory: Design", "directory: Desgin"),
			[]string{`"Desgin" not found`, "fix the mapping rule"}},
	} {
		t.Run("entra/"+m.name, func(t *testing.T) {
			checkMistake(t, configFor(t, dir, "entra", sim.url, m.replace...), "sources[0] (entra ", m.want, secrets)
		})
	}

	okta := oktafake.Start(oktafake.Demo(), oktafake.Options{})
	t.Cleanup(okta.Close)
	writeFile(t, filepath.Join(dir, "okta", "demo-secret"), oktafake.DemoToken)
	oktaAt := func(org, tokenFile string) []string {
		return []string{"orgURL: https://example.okta.com", "orgURL: " + org, "apiToken: {env: OKTA_API_TOKEN}", "apiToken: {file: " + tokenFile + "}"}
	}
	for _, m := range []cloudMistake{
		{"wrong API token", oktaAt(okta.URL, "wrong-secret"), []string{"401 Unauthorized", "E0000011", "check apiToken"}},
		{"dead orgURL", oktaAt(dead, demo), []string{"cannot connect", "check orgURL (" + dead + ")"}},
		{"missing group", append(oktaAt(okta.URL, demo), "directory: Design", "directory: Desgin"), []string{`"Desgin" not found`}},
	} {
		t.Run("okta/"+m.name, func(t *testing.T) {
			checkMistake(t, configFor(t, dir, "okta", sim.url, m.replace...), "sources[0] (okta ", m.want, secrets)
		})
	}
}

// entraAt returns the replacements that point the entra example at the
// endpoints, with the tenant and the secret file given.
func entraAt(login, graph, tenant, secretFile string) []string {
	return []string{"tenantId: contoso.onmicrosoft.com",
		fmt.Sprintf("tenantId: %s\n      loginURL: %s\n      graphURL: %s", tenant, login, graph),
		"clientId: 00000000-0000-0000-0000-000000000000", "clientId: " + entrafake.DemoClientID,
		"clientSecret: {env: ENTRA_CLIENT_SECRET}", "clientSecret: {file: " + secretFile + "}"}
}

// checkMistake runs plan with cfg and checks that it fails within
// seconds, saying where and want, without printing any of secrets.
func checkMistake(t *testing.T, cfg, where string, want, secrets []string) {
	t.Helper()
	start := time.Now()
	r := runBinary(t, nil, "plan", "--config", cfg, "--log-level", "debug")
	elapsed := time.Since(start)
	out := r.stdout + r.stderr
	if r.code != exitError || elapsed > 15*time.Second {
		t.Errorf("exit %d after %s, want 1 within seconds\n%s", r.code, elapsed, out)
	}
	for _, w := range append([]string{where}, want...) {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("the error lacks %q:\n%s", w, r.stderr)
		}
	}
	for _, s := range secrets {
		if strings.Contains(out, s) {
			t.Errorf("a secret was printed (%.12s…):\n%s", s, out)
		}
	}
}

// deadURL returns an http URL where connections are refused.
func deadURL(t *testing.T) string {
	return "http://" + testenv.RefusedAddr(t)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestCloudSourceExpressions: an entra source with a filter, a groups
// expression over its directory groups (a nested, unmapped one) and an
// extra attribute plans, and --explain shows how dave was built.
func TestCloudSourceExpressions(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	sim := startSim(t, dir, umsim.Options{})
	tenant := entrafake.Demo()
	for i := range tenant.Users {
		tenant.Users[i].Props["department"] = "R&D"
	}
	entra := entrafake.Start(tenant, entrafake.Options{})
	t.Cleanup(entra.Close)
	writeFile(t, filepath.Join(dir, "entra", "demo-secret"), entrafake.DemoSecret)
	at := entraAt(entra.URL, entra.URL, entrafake.DemoTenantID, "demo-secret")
	cfg := configFor(t, dir, "entra", sim.url, append(at,
		"      users:\n", "      users:\n        extraAttributes: [department]\n",
		"\nmapping:", "\n    filter: 'user.email != \"erin@example.com\"'\n    groups: '\"Platform Team\" in directoryGroups ? [user.attributes.department] : []'\nmapping:")...)
	r := runBinary(t, nil, "plan", "--config", cfg, "--explain", "dave@example.com")
	if r.code != exitOK {
		t.Fatalf("plan: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{`directory group "Platform Team": no mapping rule`, "groups expression gives R&D", "+ create dave@example.com"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("plan output lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "erin@example.com") {
		t.Errorf("erin, left out by the filter, is in the plan:\n%s", r.stdout)
	}
	// Without expressions too, --explain shows the user's record.
	plain := configFor(t, dir, "entra", sim.url, at...)
	r = runBinary(t, nil, "plan", "--config", plain, "--explain", "dave@example.com")
	if r.code != exitOK || !strings.Contains(r.stdout, "u-dave:") || !strings.Contains(r.stdout, `directory group "Platform Team": no mapping rule`) {
		t.Errorf("plan --explain without expressions: exit %d\n%s", r.code, r.stdout)
	}
}
