package ldap_test

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/ldap"
	"github.com/orgsync/orgsync/source/ldap/internal/slapdtest"
)

// TestGoLDAPClientReadsTheSame reads the fixture (paged past the size
// limit, every membership kind, two bad entries) once with the source's
// own decoder and once with each way of using go-ldap's client that
// BenchmarkRead100kGoLDAP times: the results must be the same, so the
// benchmark compares equal work.
func TestGoLDAPClientReadsTheSame(t *testing.T) {
	t.Parallel()
	srv := slapdtest.Start(t, slapdtest.Options{LDIF: fixture(), SizeLimit: 50})
	cfg := readerConfig(t, srv.URL)
	cfg.PageSize = 20
	src, err := cfg.Open("sources[0]", source.Options{Mapper: newMapper(t, testRules())})
	if err != nil {
		t.Fatal(err)
	}
	want, err := src.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want.Users.Len() != nUsers {
		t.Fatalf("source read %d users, want %d", want.Users.Len(), nUsers)
	}
	for name, mode := range map[string]ldap.GoLDAPMode{"Search": ldap.GoLDAPSearch, "SearchAsync": ldap.GoLDAPSearchAsync} {
		got, err := ldap.ReadWithGoLDAP(context.Background(), src, mode)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		assertSameResult(t, name, got, want)
	}
}

func assertSameResult(t *testing.T, name string, got, want *source.Result) {
	t.Helper()
	if got.Users.Len() != want.Users.Len() {
		t.Fatalf("%s: %d users, want %d", name, got.Users.Len(), want.Users.Len())
	}
	gotBy := byEmail(got.Users)
	for _, w := range want.Users.All() {
		g, ok := gotBy[w.Email]
		if !ok || !sameSet(g.Groups, w.Groups) {
			t.Errorf("%s: user %s = %+v, want %+v", name, w.Email, g, w)
			continue
		}
		g.Groups, w.Groups = nil, nil
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s: user %+v, want %+v", name, g, w)
		}
	}
	if !slices.Equal(got.Problems, want.Problems) {
		t.Errorf("%s: problems %v, want %v", name, got.Problems, want.Problems)
	}
}
