package userrec

import (
	"github.com/orgsync/orgsync/target/umwire"
	"testing"
)

func TestPlainEmail(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"a@b", true},
		{"john.smith+tag@mail.example.com", true},
		{"o'neil@example.com", true},
		{"", false},
		{"@example.com", false},
		{"a@", false},
		{"a@@b", false},
		{".a@b", false},
		{"a.@b", false},
		{"a..b@c", false},
		{"a@.b", false},
		{"a@b.", false},
		{"a@b..c", false},
		{"a b@c", false},
		{"a@b_c", false},
		{"jörg@example.com", false},
		{"\"quoted\"@example.com", false},
		{"a@" + string(make([]byte, 60)), false},
	} {
		if got := plainEmail(tc.in); got != tc.want {
			t.Errorf("plainEmail(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// FuzzPlainEmail checks that the fast path accepts only addresses that
// umwire.CheckEmail accepts.
func FuzzPlainEmail(f *testing.F) {
	for _, s := range []string{"a@b", "x.y+z@example.com", "a..b@c", "a@b.", "-@-", "a@1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if plainEmail(s) {
			if err := umwire.CheckEmail(s); err != nil {
				t.Fatalf("plainEmail(%q) but CheckEmail: %v", s, err)
			}
		}
	})
}
