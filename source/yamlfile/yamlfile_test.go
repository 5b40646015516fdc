package yamlfile

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/internal/sourcetest"
	"github.com/orgsync/orgsync/source/mapping"
)

// identity maps every directory group to the target group of the same name.
var identity = sourcetest.Identity()

// readYAML writes content to a file, reads it with cfg (Path set) and rules.
func readYAML(t *testing.T, content string, cfg Config, rules []mapping.Rule) (*source.Result, string, error) {
	return sourcetest.Read(t, "users.yaml", content, rules, func(path string, m *mapping.Mapper) (source.Source, error) {
		cfg.Path = path
		return cfg.Open("sources[1] (yaml users.yaml)", source.Options{Mapper: m})
	})
}

func TestReadUsers(t *testing.T) {
	t.Parallel()
	const doc = `# people
users:
  - email: ann@example.com
    firstname: Ann
    lastname: Lee
    country: us
    type: enterpriseID
    groups: [design, Eng]
  - username: jdoe
    domain: corp.example.com
    groups: solo
  - Email: kim@example.com
    firstname: ~
  - &lu
    email: lu@example.com
groups:
  - name: eng
    members: [KIM@example.com, jdoe]
  - name: ops
    members:
      - ann@example.com
      - lu@example.com
`
	res, _, err := readYAML(t, doc, Config{Defaults: source.Defaults{Country: "DE"}}, identity)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if len(res.Problems) > 0 {
		t.Fatalf("problems: %v", res.Problems)
	}
	want := []reconcile.User{
		{Type: reconcile.EnterpriseID, Email: "ann@example.com", Domain: "example.com", FirstName: "Ann", LastName: "Lee", Country: "US", Groups: []string{"design", "Eng", "ops"}},
		{Type: reconcile.FederatedID, Username: "jdoe", Domain: "corp.example.com", Country: "DE", Groups: []string{"solo", "eng"}},
		{Type: reconcile.FederatedID, Email: "kim@example.com", Domain: "example.com", Country: "DE", Groups: []string{"eng"}},
		{Type: reconcile.FederatedID, Email: "lu@example.com", Domain: "example.com", Country: "DE", Groups: []string{"ops"}},
	}
	if !reflect.DeepEqual(res.Users.List(), want) {
		t.Fatalf("users\n got %+v\nwant %+v", res.Users.List(), want)
	}
}

func TestBadRecords(t *testing.T) {
	t.Parallel()
	doc := `users:
  - email: ann@example.com
    lastname: Lee
  - email: not-an-email
  - email: bob@example.com
    country: USA
    type: admin
  - just a string
  - email: cy@example.com
    emial: typo@example.com
  - email: di@example.com
    firstname: [a, b]
  - email: ANN@example.com
    lastname: Leigh
  - username: jdoe
  - email: ed@example.com
    firstname: ` + strings.Repeat("x", 251) + `
  - email: fay@example.com
    groups: {a: b}
  - email: gus@example.com
    firstname: Gus
    email: hal@example.com
groups:
  - name: eng
    members: [ann@example.com, ghost@example.com, [x]]
  - members: [ann@example.com]
  - name: ops
    members: ann@example.com
    extra: 1
  - plain
`
	res, path, err := readYAML(t, doc, Config{}, nil)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	want := []struct {
		line  int
		field string
		frag  string
	}{
		{4, "email", "not an email address"},
		{6, "country", `"USA" is not an ISO`},
		{7, "type", `unknown identity type "admin"`},
		{8, "", "a user must be a mapping"},
		{10, "emial", "unknown field"},
		{12, "firstname", "must be a single value, not a list"},
		{14, "lastname", `duplicate of the user on line 2 with a different value ("Lee" there, "Leigh" here)`},
		{15, "domain", "needs a domain"},
		{17, "firstname", "at most 250"},
		{19, "groups", "must be a list of group names, not a mapping"},
		// a second user written without its '-': one user with two emails
		{22, "email", "given twice for this user (first on line 20): if this starts another user, begin it with '- '"},
		{25, "groups[0].members[1]", `no user with the email or username "ghost@example.com"`},
		{25, "groups[0].members[2]", "must be an email or username, not a list"},
		{26, "groups[1]", "name is required"},
		{27, "groups[2]", "members must be a list"},
		{30, "groups[3]", "a group must be a mapping"},
	}
	if len(res.Problems) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%v", len(res.Problems), len(want), res.Problems)
	}
	for i, w := range want {
		p := res.Problems[i]
		if p.File != path || p.Line != w.line || p.Field != w.field || !strings.Contains(p.Reason, w.frag) {
			t.Errorf("problem %d = %s, want line %d field %q reason containing %q", i, p, w.line, w.field, w.frag)
		}
	}
	if !strings.Contains(res.Problems[14].Reason, `unknown key "extra"`) {
		t.Errorf("group problem %q does not name the unknown key", res.Problems[14].Reason)
	}
	if res.Users.Len() != 1 || res.Users.At(0).Email != "ann@example.com" || res.Users.At(0).LastName != "Lee" {
		t.Fatalf("users = %+v, want only ann with lastname Lee", res.Users.List())
	}
}

func TestWholeFileErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, doc, frag string }{
		{"empty", "", "the file is empty"},
		{"syntax", "users:\n  - email: a\n   bad: [\n", ":3: indented"},
		// the parser blames line 1; the second item is indented too far
		{"item indented too far", "users:\n  - {email: a@example.com}\n   - {email: c@example.com}\n", ":3: indented 3 spaces, which lines up with no key above it"},
		{"tab", "users:\n  - firstname: A\n\tlastname: B\n", ":3: a tab in the indentation"},
		{"not a mapping", "- a\n- b\n", ":1: want a mapping"},
		{"unknown top key", "users: []\npeople: []\n", `:2: unknown key "people"`},
		{"users not a list", "users: ann\n", ":1: users must be a list"},
		{"no users key", "groups: []\n", "no users: list"},
		{"empty users", "users: []\n", "no user records"},
		{"null users", "users:\n", "no user records"},
		{"no valid user", "users:\n  - email: bad\n", "none of its 1 user records is valid"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, path, err := readYAML(t, tc.doc, Config{}, nil)
			if err == nil || !strings.Contains(err.Error(), tc.frag) || !strings.Contains(err.Error(), path) {
				t.Fatalf("err = %v, want it to name %s and contain %q", err, path, tc.frag)
			}
		})
	}
}

func TestValidateAndOpen(t *testing.T) {
	t.Parallel()
	cfg := Config{Encoding: "klingon", Defaults: source.Defaults{Country: "xx"}}
	errs := cfg.Validate()
	if len(errs) != 3 || errs[0].Field != "path" || errs[1].Field != "encoding" || errs[2].Field != "defaultCountry" {
		t.Fatalf("Validate = %v, want path, encoding and defaultCountry", errs)
	}
	if _, err := cfg.Open("s", source.Options{}); err == nil {
		t.Fatal("Open accepted an invalid config")
	}
	missing := Config{Path: filepath.Join(t.TempDir(), "missing.yaml")}
	src, err := missing.Open("s", source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.Read(context.Background()); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Fatalf("err = %v, want one naming the file", err)
	}
}
