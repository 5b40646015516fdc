package migrate

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// filled replaces the placeholders of the incumbent's published examples
// ("Org ID goes here") with values of the right form, so that the
// migrated configuration can load: the examples with their values filled
// in, as an administrator has them.
var filled = strings.NewReplacer(
	`"Org ID goes here"`, `"1234ABCD5678EF90@AdobeOrg"`,
	`"Client ID goes here"`, `"0a1b2c3d4e5f60718293a4b5c6d7e8f9"`,
	`"Client secret goes here"`, `"p8e-not-a-real-secret-1"`,
	`"LDAP or Credential Manager username goes here"`, `"cn=reader,dc=example,dc=com"`,
	`"LDAP password goes here"`, `"reader-secret"`,
	`"ldaps://ldap.example.com"`, `"ldaps://dc1.corp.test"`,
)

// secretValues are the secrets of the fixtures: none may appear in a
// migrated configuration or a report.
var secretValues = []string{"p8e-not-a-real-secret-1", "reader-secret", "00R_KJEaIcgAswrlO_sample_ZdgxC5scYZn8IZ-zi", "Client secret goes here", "LDAP password goes here"}

// fixtureDir copies the published examples (placeholders filled in when
// fill is set) and the test directory's CSV file into a new directory,
// with the logs directory the incumbent's logging settings name, and
// returns it.
func fixtureDir(t *testing.T, fill bool) string {
	t.Helper()
	dir := t.TempDir()
	copyDir(t, "testdata/published", dir, fill)
	copyFile(t, "testdata/directory/users.csv", filepath.Join(dir, "users.csv"), false)
	if err := os.Mkdir(filepath.Join(dir, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func copyDir(t *testing.T, from, to string, fill bool) {
	t.Helper()
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		copyFile(t, filepath.Join(from, e.Name()), filepath.Join(to, e.Name()), fill)
	}
}

func copyFile(t *testing.T, from, to string, fill bool) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if fill {
		data = []byte(filled.Replace(string(data)))
	}
	writeFile(t, to, string(data))
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// variant is an incumbent file with one commented-out option (or block)
// turned on.
type variant struct {
	name, text string
}

// commentedOption is a commented-out line of an example that is an
// option: "# key: value", "#key:" or "# - item".
var commentedOption = regexp.MustCompile(`^(\s*)#\s*((- )?[a-z_]+:(\s.*)?|- [^ ].*)$`)

// variants returns text with each commented-out option turned on, one at
// a time: a key without a value with the commented lines under it (a
// block such as two_steps_lookup:). Prose comments are left alone: a line
// is an option only when the result still parses and holds more.
func variants(text string) []variant {
	lines := strings.Split(text, "\n")
	var out []variant
	block := -1 // the indentation of the commented block being passed, -1 outside one
	for i, l := range lines {
		if !commentedOption.MatchString(l) {
			block = -1
			continue
		}
		if block >= 0 && indentOf(uncomment(l)) > block {
			continue // a line of a commented block: turned on with its block
		}
		block = -1
		if strings.HasSuffix(strings.TrimSpace(l), ":") {
			block = indentOf(uncomment(l))
		}
		on := append([]string(nil), lines...)
		on[i] = uncomment(l)
		if strings.HasSuffix(strings.TrimSpace(on[i]), ":") {
			for j := i + 1; j < len(lines) && commentedOption.MatchString(lines[j]); j++ {
				u := uncomment(lines[j])
				if indentOf(u) <= indentOf(on[i]) {
					break
				}
				on[j] = u
			}
		}
		v := strings.Join(on, "\n")
		var before, after any
		if yaml.Unmarshal([]byte(text), &before) != nil || yaml.Unmarshal([]byte(v), &after) != nil {
			continue
		}
		if !yamlEqual(before, after) {
			out = append(out, variant{name: strings.TrimSpace(on[i]), text: v})
		}
	}
	return out
}

func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

// uncomment removes a line's # and the space after it.
func uncomment(l string) string {
	i := strings.Index(l, "#")
	rest := l[i+1:]
	return l[:i] + strings.TrimPrefix(rest, " ")
}

func yamlEqual(a, b any) bool {
	x, _ := yaml.Marshal(a)
	y, _ := yaml.Marshal(b)
	return string(x) == string(y)
}

// migrateIn migrates the main file in dir into dir/orgsync.yaml and checks
// it; it fails the test when the input cannot be read.
func migrateIn(t *testing.T, dir string, flags ...string) (*Result, string) {
	t.Helper()
	return migrateInWith(t, dir, Options{}, flags...)
}

// migrateInWith is migrateIn with options (Flags and Out are set).
func migrateInWith(t *testing.T, dir string, opt Options, flags ...string) (*Result, string) {
	t.Helper()
	out := filepath.Join(dir, "orgsync.yaml")
	opt.Flags, opt.Out = flags, out
	res, err := Migrate(filepath.Join(dir, "user-sync-config.yml"), opt)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, out, string(res.Config))
	res.Report.Check = CheckConfig(context.Background(), res.Config, out)
	return res, out
}

// reportText is the report as the command prints it.
func reportText(r *Report) string {
	var b strings.Builder
	r.WriteText(&b)
	return b.String()
}
