package mappingtest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExamplesMappingTests runs the mapping tests every example ships:
// each example configuration has one, and all its expectations are met.
func TestExamplesMappingTests(t *testing.T) {
	t.Parallel()
	var configs []string
	err := filepath.WalkDir(filepath.Join("..", "..", "..", "examples"), func(path string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "orgsync.yaml" {
			configs = append(configs, path)
		}
		return err
	})
	if err != nil || len(configs) < 8 {
		t.Fatalf("examples: %v (%d configurations)", err, len(configs))
	}
	for _, cfg := range configs {
		file := filepath.Join(filepath.Dir(cfg), "orgsync.test.yaml")
		t.Run(filepath.Dir(cfg), func(t *testing.T) {
			var out strings.Builder
			r, err := Run(context.Background(), file, &out)
			if err != nil || r.Failed > 0 || r.Passed < 3 {
				t.Errorf("%s: %+v, %v\n%s", file, r, err, out.String())
			}
		})
	}
}

// csvExample copies the CSV example (and the demo credentials it names)
// to a directory and writes a test file there.
func csvExample(t *testing.T, test string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"csv/orgsync.yaml", "csv/users.csv", "sim/demo-client-secret", "sim/demo-private-key.pem"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "csv", "mapping.test.yaml")
	if err := os.WriteFile(path, []byte(test), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestFailureShowsDifferenceAndRule: an expectation that is not met is
// reported on its line with the difference and the explanation plan
// --explain gives (the rule behind each group); a bad stand-in record is
// reported on its line of the test file; the others still run.
func TestFailureShowsDifferenceAndRule(t *testing.T) {
	t.Parallel()
	path := csvExample(t, `sources:
  - records:
      - {email: dave@example.com, firstname: Dave, lastname: Doe, country: US, groups: [eng, design]}
      - {email: zed@example.com, firstname: Zed, lastname: Z, country: XX, groups: [eng]}
      - {email: una@example.com, firstname: Una, lastname: U, country: US, groups: [design]}
expect:
  - user: dave@example.com
    groups: [Engineering, Design]
  - user: una@example.com
    groups: [Design]
  - user: una@example.com
    leftOut: true
  - user: nobody@example.com
    groups: []
`)
	var out strings.Builder
	r, err := Run(context.Background(), path, &out)
	if err != nil {
		t.Fatal(err)
	}
	if r.Passed != 1 || r.Failed != 3 {
		t.Errorf("result %+v, want 1 met and 3 not", r)
	}
	for _, want := range []string{
		path + ":4 zed@example.com: country",
		"FAIL " + path + ":7: dave@example.com: groups differ",
		"  want: Engineering, Design\n  got:  Engineering, Acrobat Pro, Design\n  missing: (none)\n  extra:   Acrobat Pro",
		`directory group "eng": mapping[0] (directory "eng") gives Engineering, Acrobat Pro`,
		"planned: + create dave@example.com",
		"FAIL " + path + ":11: una@example.com: want left out, but the configuration gives the user the groups Design",
		"FAIL " + path + ":13: nobody@example.com: no source has a record with this email or username",
		"1 expectations met, 3 not",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestExplanationOfAUserInNoGroup: the explanation of a failed
// expectation for a user in no directory group says so after the
// record's line, never ends with a bare "users.csv:7:".
func TestExplanationOfAUserInNoGroup(t *testing.T) {
	t.Parallel()
	path := csvExample(t, `expect:
  - user: frank@example.com
    groups: [Design]
`)
	var out strings.Builder
	if _, err := Run(context.Background(), path, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "users.csv:7:\n      in no directory group: no mapping rule gives it a group\n") {
		t.Errorf("the explanation of frank (users.csv:7, no group):\n%s", out.String())
	}
	lines := strings.Split(out.String(), "\n")
	indent := func(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }
	for i, line := range lines[:len(lines)-1] {
		if strings.HasSuffix(line, ":") && indent(lines[i+1]) <= indent(line) {
			t.Errorf("a line ends with a colon and nothing it introduces follows: %q", line)
		}
	}
}

// TestFileMistakes: mistakes in a test file are reported with their line,
// all at once, and a directory source without a stand-in is refused
// (nothing is read from a server).
func TestFileMistakes(t *testing.T) {
	t.Parallel()
	path := csvExample(t, `sources:
  - recrods: []
organisation: []
expect:
  - user: a@example.com
    groups: [A]
    leftOut: true
  - groups: [B]
`)
	_, err := Run(context.Background(), path, &strings.Builder{})
	for _, want := range []string{
		path + `:2: unknown key "recrods" (did you mean "records"?)`,
		path + `:3: unknown key "organisation" (did you mean "organization"?)`,
		path + ":5: expect[0]: give one of groups",
		path + ":8: expect[1]: user: required",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}

	dir := filepath.Dir(path)
	ldap := strings.Replace(mustRead(t, filepath.Join(dir, "orgsync.yaml")), "  - csv:\n      path: users.csv\n",
		"  - csv:\n      path: users.csv\n  - ldap:\n      url: ldaps://dir.test.example\n      users: {baseDN: 'dc=example,dc=com'}\n", 1)
	if err := os.WriteFile(filepath.Join(dir, "orgsync.yaml"), []byte(ldap), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("expect:\n  - {user: alice@example.com, groups: [Engineering, Acrobat Pro]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), path, &strings.Builder{})
	if err == nil || !strings.Contains(err.Error(), "sources[1] (ldap) is read from a server, which orgsync test never does: give sources[1] records") {
		t.Errorf("a directory source without stand-in: %v", err)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
