package migrate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// connectorFlags select, for each published connector file, the
// connector the incumbent runs with, so that the file's options are the
// ones translated.
var connectorFlags = map[string][]string{
	"user-sync-config.yml":        nil,
	"connector-umapi.yml":         nil,
	"connector-ldap.yml":          nil,
	"connector-csv.yml":           {"--connector", "csv", "users.csv"},
	"connector-okta.yml":          {"--connector", "okta"},
	"connector-adobe-console.yml": {"--connector", "adobe_console"},
	"extension-config.yml":        nil,
}

// TestPublishedExamplesEachOption migrates the incumbent's published
// example configuration with every commented-out option of each of its
// files turned on in turn (and as published): the migrated configuration
// loads, every setting of the input is in the report (none unknown), each
// line of the configuration says where it came from, and no secret is
// copied anywhere.
func TestPublishedExamplesEachOption(t *testing.T) {
	t.Parallel()
	for name, flags := range connectorFlags {
		published, err := os.ReadFile(filepath.Join("testdata/published", name))
		if err != nil {
			t.Fatal(err)
		}
		text := filled.Replace(string(published))
		cases := append([]variant{{name: "as published", text: text}}, variants(text)...)
		if len(cases) < 2 && name != "extension-config.yml" {
			t.Errorf("%s: no commented-out option found", name)
		}
		for _, v := range cases {
			t.Run(name+"/"+v.name, func(t *testing.T) {
				dir := fixtureDir(t, true)
				writeFile(t, filepath.Join(dir, name), v.text)
				if name == "extension-config.yml" || name == "connector-csv.yml" || name == "connector-okta.yml" || name == "connector-adobe-console.yml" {
					enableInMain(t, dir, name)
				}
				res, _ := migrateIn(t, dir, flags...)
				checkReport(t, res)
				loads := name != "connector-adobe-console.yml" // orgsync has no source for it: the report says so
				if c := res.Report.Check; c.Loads != loads || loads && !c.OK() {
					t.Errorf("loads %v, want %v; problems: %q\n%s", c.Loads, loads, c.Problems, res.Config)
				}
			})
		}
	}
}

// enableInMain names the connector or extension file in the main file
// (the published main file has them commented out).
func enableInMain(t *testing.T, dir, file string) {
	t.Helper()
	p := filepath.Join(dir, "user-sync-config.yml")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	key := map[string]string{"extension-config.yml": "extension: extension-config.yml", "connector-csv.yml": `csv: "connector-csv.yml"`,
		"connector-okta.yml": `okta: "connector-okta.yml"`, "connector-adobe-console.yml": `adobe_console: "connector-adobe-console.yml"`}[file]
	text := strings.Replace(string(data), "# "+key, key, 1)
	if text == string(data) {
		t.Fatalf("%s not found commented out in the main file", key)
	}
	writeFile(t, p, text)
}

// checkReport checks what every migration must give: no unknown setting,
// a comment on every line of the configuration, each difference to accept
// named at its top, no secret anywhere.
func checkReport(t *testing.T, res *Result) {
	t.Helper()
	for _, e := range res.Report.Entries {
		if e.Outcome == Unknown {
			t.Errorf("unknown setting in a published example: %+v", e)
		}
	}
	for i, l := range strings.Split(strings.TrimSpace(string(res.Config)), "\n") {
		if trimmed := strings.TrimSpace(l); !strings.HasPrefix(trimmed, "#") && !strings.Contains(l, "  # ") && !bareKey(trimmed) {
			t.Errorf("line %d has no comment: %s", i+1, l)
		}
	}
	report := reportText(res.Report)
	for _, e := range res.Report.Blocking() { // each difference to accept is named at the top
		if !strings.Contains(string(res.Config), "#   - "+e.Where+": ") || !strings.Contains(report, "- "+e.Where+": ") {
			t.Errorf("the difference to accept %s is not named in the configuration's header and the report", e.Where)
		}
	}
	if blocked := len(res.Report.Blocking()) > 0; blocked != res.Report.Blocked() || blocked != strings.Contains(string(res.Config), "# NOT READY") {
		t.Errorf("blocked %v, %d differences to accept", res.Report.Blocked(), len(res.Report.Blocking()))
	}
	for _, s := range secretValues {
		if strings.Contains(string(res.Config), s) || strings.Contains(report, s) {
			t.Errorf("the secret %q was copied", s)
		}
	}
}

// bareKey reports whether a line only opens a block of keys (policy:,
// users:), which the keys under it explain.
func bareKey(l string) bool {
	return strings.HasSuffix(l, ":") && !strings.Contains(strings.TrimSuffix(l, ":"), " ")
}

// TestPublishedVerbatim migrates the published example as it is, with
// its placeholders ("Org ID goes here"): the configuration does not load,
// and its only problems are those placeholders, each of which the report
// names as the example's.
func TestPublishedVerbatim(t *testing.T) {
	t.Parallel()
	dir := fixtureDir(t, false)
	res, _ := migrateIn(t, dir)
	checkReport(t, res)
	c := res.Report.Check
	if c.Loads || len(c.Problems) != 3 {
		t.Fatalf("problems %q", c.Problems)
	}
	for i, want := range []string{`target.orgId (line 6): "Org ID goes here" is not an organization id`, `sources[0].ldap.url (line 15): "ldaps://ldap.example.com" is the placeholder`,
		`sources[0].ldap.bindDN (line 16): "LDAP or Credential Manager username goes here"`} {
		if !strings.HasPrefix(c.Problems[i], want) {
			t.Errorf("problem %d: %q, want %q…", i, c.Problems[i], want)
		}
	}
	for _, where := range []string{"enterprise.org_id", "enterprise.client_id", "connector-ldap.yml:17 host", "connector-ldap.yml:15 username"} {
		if e := entry(t, res.Report, where); !strings.Contains(e.Note, "placeholder of the incumbent's example") {
			t.Errorf("%s: %q", where, e.Note)
		}
	}
}
