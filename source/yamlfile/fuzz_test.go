package yamlfile

import (
	"testing"

	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/mapping"
)

// FuzzParse checks that any document is read without panicking, and that
// it yields either an error or at least one user, with a line for every
// problem.
func FuzzParse(f *testing.F) {
	f.Add([]byte("users:\n  - email: a@example.com\n    groups: [x, y]\n  - email: bad\ngroups:\n  - name: g\n    members: [a@example.com, z]\n"))
	f.Add([]byte("users:\n  - &u {username: jdoe, domain: example.com, country: us}\n  - *u\n"))
	f.Add([]byte("users: [{email: a@b.c, type: enterprise, firstname: [1]}, 3]\ngroups: [x, {members: 1}]\n"))
	m, err := mapping.New(identity)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := &Source{name: "fuzz", cfg: Config{Path: "fuzz.yaml"}, opts: source.Options{Mapper: m}}
		res, err := s.parse(data)
		if err != nil {
			return
		}
		if res.Users.Len() == 0 {
			t.Fatalf("no error and no users")
		}
		for _, p := range res.Problems {
			if p.Line <= 0 || p.File != "fuzz.yaml" || p.Reason == "" {
				t.Fatalf("problem without a location or reason: %+v", p)
			}
		}
	})
}
