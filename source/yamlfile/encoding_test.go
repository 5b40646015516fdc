package yamlfile

import (
	"strings"
	"testing"
)

// latin1Doc is a YAML document saved in Latin-1: "Jürgen Müller" and a
// group "Vertrieb Süd".
const latin1Doc = "users:\n" +
	"  - email: ann@example.com\n" + // 2
	"    firstname: Ann\n" +
	"  - email: juergen@example.com\n" + // 4
	"    firstname: J\xfcrgen\n" + // 5
	"    lastname: M\xfcller\n" + // 6
	"  - email: bo@example.com\n" + // 7
	"    groups: [eng, Vertrieb S\xfcd]\n" + // 8
	"# a comment in Latin-1: gr\xfc\xdfe, which is nobody's value\n" +
	"groups:\n" +
	"  - name: Caf\xe9\n" + // 11
	"    members: [ann@example.com]\n"

// A value that is not UTF-8 in a file read as UTF-8 is a bad value of its
// user (or group definition), with its line; the rest is read.
func TestInvalidUTF8IsABadRecord(t *testing.T) {
	t.Parallel()
	res, path, err := readYAML(t, latin1Doc, Config{}, identity)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	want := []struct {
		line       int
		field, msg string
	}{
		{5, "firstname", "not UTF-8 (an invalid byte at character 2 of the value); set encoding"},
		{6, "lastname", "not UTF-8 (an invalid byte at character 2 of the value); set encoding"},
		{8, "groups", "not UTF-8 (an invalid byte at character 11 of the value); set encoding"},
		{11, "groups[0]", "name is not UTF-8"},
	}
	if len(res.Problems) != len(want) {
		t.Fatalf("problems %v, want %d", res.Problems, len(want))
	}
	for i, w := range want {
		p := res.Problems[i]
		if p.File != path || p.Line != w.line || p.Field != w.field || !strings.Contains(p.Reason, w.msg) {
			t.Errorf("problem %d = %s, want line %d field %s %q", i, p, w.line, w.field, w.msg)
		}
	}
	if res.Users.Len() != 1 || res.Users.At(0).Email != "ann@example.com" || len(res.Users.At(0).Groups) != 0 {
		t.Fatalf("users = %+v, want Ann only, in no group", res.Users.List())
	}
}

// With encoding: latin1 the same file is read as meant.
func TestLatin1(t *testing.T) {
	t.Parallel()
	res, _, err := readYAML(t, latin1Doc, Config{Encoding: "latin1"}, identity)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if len(res.Problems) != 0 || res.Users.Len() != 3 {
		t.Fatalf("got %d users and problems %v, want 3 users", res.Users.Len(), res.Problems)
	}
	if u := res.Users.At(1); u.FirstName != "Jürgen" || u.LastName != "Müller" {
		t.Errorf("user %q %q, want Jürgen Müller", u.FirstName, u.LastName)
	}
	if g := res.Users.At(2).Groups; len(g) != 2 || g[1] != "Vertrieb Süd" {
		t.Errorf("groups %q, want eng and Vertrieb Süd", g)
	}
	if g := res.Users.At(0).Groups; len(g) != 1 || g[0] != "Café" {
		t.Errorf("groups %q, want Café", g)
	}
}

// A bad byte on a later line of a value that spans lines is found too.
func TestInvalidUTF8InAMultiLineValue(t *testing.T) {
	t.Parallel()
	doc := "users:\n  - email: ann@example.com\n  - email: jo@example.com\n    lastname: \"M\n      \xfcller\"\n"
	res, _, err := readYAML(t, doc, Config{}, nil)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if res.Users.Len() != 1 || len(res.Problems) != 1 || res.Problems[0].Line != 4 || res.Problems[0].Field != "lastname" ||
		!strings.Contains(res.Problems[0].Reason, "not UTF-8 (an invalid byte at character 3 of the value)") {
		t.Fatalf("users %+v, problems %v; want jo@example.com's lastname (line 4) reported", res.Users.List(), res.Problems)
	}
}
