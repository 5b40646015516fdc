package config

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestExpressionsAndScopeAreCheckedAtLoad: a bad expression and a bad
// scope are configuration problems with their path and line, reported
// with the others.
func TestExpressionsAndScopeAreCheckedAtLoad(t *testing.T) {
	// Not parallel: the configuration's secrets are environment variables of the process (t.Setenv).
	text := strings.Replace(minimal, "  - csv: {path: users.csv}\n", `  - csv: {path: users.csv}
    filter: 'user.country'
    groups: '["ok"]'
    set:
      firstname: 'user.attributes.displayName.split(" ")[0]'
      nickname: '"x"'
      lastname: 'user.lastname +'
  - ldap:
      url: ldap://localhost
      users: {baseDN: "dc=example,dc=com", extraAttributes: [department, "bad attr"]}
`, 1) + "scope:\n  groups: [\"\"]\n  usersFile: missing.txt\n"
	dir := write(t, map[string]string{"c.yaml": text, "key.pem": "k"}, 0o600)
	t.Setenv("TEST_SECRET", "s")
	_, err := Load(filepath.Join(dir, "c.yaml"))
	var cerr *Error
	if !errors.As(err, &cerr) {
		t.Fatalf("err = %v, want *Error", err)
	}
	want := []string{
		"sources[0].filter (line 11): gives string, but bool is needed",
		`sources[0].set.nickname (line 15): "nickname" is not a user field`,
		"sources[0].set.lastname (line 16): not a valid expression",
		`sources[1].ldap.users.extraAttributes[1] (line 19): "bad attr" is not an attribute name`,
		"scope.groups[0] (line 24): empty group name",
		"scope.usersFile (line 25): cannot read the users file",
	}
	got := err.Error()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("error lacks %q:\n%s", w, got)
		}
	}
	if len(cerr.Problems) != len(want) {
		t.Errorf("%d problems, want %d:\n%s", len(cerr.Problems), len(want), got)
	}
}

func TestReadUsersFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		want       []string
		err        string
	}{
		{"one a line", "# users to remove\nAnn@example.com\n\n bo\n", []string{"ann@example.com", "bo"}, ""},
		{"report CSV", "email,username,domain,type\nann@example.com,,example.com,federatedID\n,bo,example.com,federatedID\n", []string{"ann@example.com", "bo"}, ""},
		{"user column", "user,note\ncy@example.com,left\n", []string{"cy@example.com"}, ""},
		{"empty", "# nobody\n\n", nil, "names no user"},
		{"broken CSV", "email\n\"ann\n", nil, "extraneous or missing"},
		{"bad lines skipped", "# leavers\nann@example.com\nbo smith\ncy@example.com, dee@example.com\nann@@example.com\n\"ed\"\n", []string{"ann@example.com", "ed"}, ""},
		{"bad rows of a CSV", "email,username\nann@example.com,\n,\nbad email@x.com,\n", []string{"ann@example.com"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := write(t, map[string]string{"u.csv": tt.text}, 0o600)
			got, err := ReadUsersFile(filepath.Join(dir, "u.csv"))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if keys := slices.Sorted(maps.Keys(got.Users)); !slices.Equal(keys, tt.want) {
				t.Errorf("got %q, want %q", keys, tt.want)
			}
		})
	}
}

// TestUsersFileBadLines: each bad line of a users file is reported with
// its line number and what is wrong, and skipped.
func TestUsersFileBadLines(t *testing.T) {
	t.Parallel()
	dir := write(t, map[string]string{"u.txt": "# leavers\nann@example.com\nbo smith\ncy@example.com, dee@example.com\n\nann@@example.com\n"}, 0o600)
	path := filepath.Join(dir, "u.txt")
	uf, err := ReadUsersFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		path + `:3: "bo smith" is not an email or username: it has a space or control character: this line is skipped, and the user it meant left alone`,
		path + ":4: more than one value on the line: list one email or username a line, or start the file with a header row naming an email, username or user column: this line is skipped",
		path + `:6: "ann@@example.com" is not a valid email address: this line is skipped`,
	}
	if len(uf.Problems) != len(want) {
		t.Fatalf("problems = %v, want %d", uf.Problems, len(want))
	}
	for i, w := range want {
		if got := uf.Problems[i].String(); !strings.HasPrefix(got, w) {
			t.Errorf("problem %d = %s\nwant     %s", i, got, w)
		}
	}
}

// TestDocsScopeExampleLoads: the scope example of docs/configuration.md
// is a valid configuration section, read as the manual says.
func TestDocsScopeExampleLoads(t *testing.T) {
	// Not parallel: the configuration's secrets are environment variables of the process (t.Setenv).
	doc, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)```yaml\n(scope:\n.*?)```").FindSubmatch(doc)
	if block == nil {
		t.Fatal("docs/configuration.md has no scope example")
	}
	dir := write(t, map[string]string{"c.yaml": minimal + string(block[1]), "key.pem": "k", "act-on.csv": "email\nann@example.com\n"}, 0o600)
	t.Setenv("TEST_SECRET", "s")
	cfg, err := Load(filepath.Join(dir, "c.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if sc := cfg.Scope; !sc.ExcludeUnmappedUsers || !slices.Equal(sc.Groups, []string{"Design", "Engineering"}) || filepath.Base(sc.UsersFile) != "act-on.csv" {
		t.Errorf("scope = %+v", sc)
	}
}
