package clouddir_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/expr"
	"github.com/orgsync/orgsync/source/internal/clouddir"
	"github.com/orgsync/orgsync/source/internal/sourcetest"
	"github.com/orgsync/orgsync/source/internal/usertmpl"
)

// directory is a Directory of n users (u<i>, u<i>@example.com), user i
// in group g<i%3>, and u0 also in a group whose member is Everyone. Its
// members are given once release is closed; listing fails with
// usersErr after user failAt (-1: never), members with membersErr.
type directory struct {
	n, failAt            int
	release              chan struct{}
	afterUser            func(i int) // called once user i is given
	usersErr, membersErr error
}

var errListing = errors.New("the listing failed")

func (d *directory) FindGroups(context.Context, string) ([]clouddir.Group, error) { return nil, nil }

func (d *directory) ListGroups(_ context.Context, fn func(clouddir.Group)) error {
	for _, name := range []string{"g0", "g1", "g2", "all"} {
		fn(clouddir.Group{ID: "id-" + name, Name: name})
	}
	return nil
}

func (d *directory) Members(ctx context.Context, g clouddir.Group, fn func(string)) error {
	select {
	case <-d.release:
	case <-ctx.Done():
		return ctx.Err()
	}
	if d.membersErr != nil {
		return d.membersErr
	}
	if g.Name == "all" {
		fn(clouddir.Everyone)
		return nil
	}
	for i := range d.n {
		if fmt.Sprintf("g%d", i%3) == g.Name {
			fn(fmt.Sprint("u", i))
		}
	}
	return nil
}

func (d *directory) Users(ctx context.Context, fn func(string, usertmpl.Attributes)) error {
	for i := range d.n {
		if i == d.failAt {
			return d.usersErr
		}
		mail := fmt.Sprintf("u%d@example.com", i)
		fn(fmt.Sprint("u", i), attributes{"mail": mail, "c": "US"})
		d.afterUser(i)
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return nil
}

// attributes are a user's, one value each.
type attributes map[string]string

func (a attributes) Get(attr string) string      { return a[attr] }
func (a attributes) Values(attr string) []string { return nil }

func (d *directory) LeftOut() int        { return 0 }
func (d *directory) Where() string       { return "here" }
func (d *directory) GroupsWhere() string { return "in the groups" }
func (d *directory) UsersWhere() string  { return "of the directory" }

// read reads d with expressions whose groups expression gives each
// user's directory groups as target groups.
func read(t *testing.T, d *directory) (*source.Result, error) {
	t.Helper()
	fields, err := usertmpl.Parse(usertmpl.Spec{Templates: source.Templates{Email: "{mail}", FirstName: "{mail}", LastName: "{mail}", Country: "{c}"}},
		usertmpl.Spec{}, "users.")
	if err != nil {
		t.Fatal(err)
	}
	p, err := expr.Compile(expr.Config{Groups: `directoryGroups`})
	if err != nil {
		t.Fatal(err)
	}
	return clouddir.Read(context.Background(), d, clouddir.Options{Name: "test", Mapper: sourcetest.Mapper(t, nil), Fields: &fields,
		Expressions: usertmpl.Expressions{Program: p}})
}

// TestUsersBuiltWhenTheGroupsAreKnown: with expressions, the users listed
// before, while and after the groups become known are all built, in the
// order listed, each with its directory groups (those of Everyone
// included), whenever the groups come.
func TestUsersBuiltWhenTheGroupsAreKnown(t *testing.T) {
	t.Parallel()
	const n = 3000
	for _, known := range []int{-1, 0, 1, n / 2, n - 1} { // the user after which the members are given (-1: before any)
		d := &directory{n: n, failAt: -1, release: make(chan struct{})}
		var once sync.Once
		if known < 0 {
			close(d.release)
		}
		d.afterUser = func(i int) {
			if i == known {
				once.Do(func() { close(d.release) })
			}
		}
		res, err := read(t, d)
		if err != nil {
			t.Fatalf("members given after user %d: %v", known, err)
		}
		if res.Users.Len() != n || len(res.Problems) != 0 {
			t.Fatalf("members given after user %d: %d users, problems %v", known, res.Users.Len(), res.Problems)
		}
		for i, u := range res.Users.All() {
			want := []string{fmt.Sprint("g", i%3), "all"}
			if u.Email != fmt.Sprintf("u%d@example.com", i) || !slices.Equal(u.Groups, want) {
				t.Fatalf("members given after user %d: user %d is %s with %v, want u%d@example.com with %v", known, i, u.Email, u.Groups, i, want)
			}
		}
	}
}

// TestFailedHalfFailsTheRead: with expressions, a listing of members or
// of users that fails while users wait for the groups fails the read
// with its error, whichever half fails, and ends the other.
func TestFailedHalfFailsTheRead(t *testing.T) {
	t.Parallel()
	for name, d := range map[string]*directory{
		"members": {n: 100, failAt: -1, release: make(chan struct{}), membersErr: errListing},
		"users":   {n: 100, failAt: 60, release: make(chan struct{}), usersErr: errListing},
		// the members are never given: they wait until the read ends
		"users, before the groups": {n: 100, failAt: 10, release: make(chan struct{}), usersErr: errListing},
	} {
		d.afterUser = func(i int) {
			if i == 50 {
				close(d.release)
			}
		}
		res, err := read(t, d)
		if !errors.Is(err, errListing) || !strings.Contains(err.Error(), map[bool]string{true: "members of group", false: "users:"}[name == "members"]) {
			t.Errorf("%s failing: %v, %v; want the listing's error", name, res, err)
		}
	}
}
