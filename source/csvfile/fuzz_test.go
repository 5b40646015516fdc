package csvfile

import (
	"bytes"
	"context"
	"testing"

	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/mapping"
)

// FuzzRead checks that any input is read without panicking, and that it
// yields either an error or at least one user, with a line for every problem.
func FuzzRead(f *testing.F) {
	f.Add([]byte(header + "Ann,Lee,ann@example.com,US,\"a,b\",,,\n,,bad,,,,,\n"))
	f.Add([]byte("\xef\xbb\xbfemail;groups\r\na@b.c;x\r\na@b.c;y\r\n"))
	f.Add([]byte("username\tdomain\tcountry\njdoe\texample.com\tus\n"))
	f.Add([]byte("email\n\"a\"\"@x\n"))
	m, err := mapping.New(identity)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := &Source{name: "fuzz", cfg: Config{Path: "fuzz.csv", GroupSeparator: DefaultGroupSeparator}, opts: source.Options{Mapper: m}}
		res, err := s.read(context.Background(), bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		if res.Users.Len() == 0 {
			t.Fatalf("no error and no users")
		}
		for _, p := range res.Problems {
			if p.Line <= 0 || p.File != "fuzz.csv" || p.Reason == "" {
				t.Fatalf("problem without a location or reason: %+v", p)
			}
		}
		for _, u := range res.Users.All() {
			if u.Key() == "" {
				t.Fatalf("user without a key: %+v", u)
			}
		}
	})
}
