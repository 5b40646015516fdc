package run

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/orgsync/orgsync/reconcile"
)

// route knows the organizations main (0, also unqualified) and emea (1).
func route(g string) (int, string, bool) {
	org, name, ok := strings.Cut(g, "::")
	switch {
	case !ok:
		return 0, g, true
	case org == "main":
		return 0, name, true
	case org == "emea":
		return 1, name, true
	}
	return 0, name, false
}

func TestSplit(t *testing.T) {
	t.Parallel()
	users := reconcile.UsersOf([]reconcile.User{
		{Email: "a@x", Groups: []string{"Eng", "emea::Design"}},
		{Email: "b@x", Groups: []string{"Eng"}},
		{Email: "c@x", Groups: []string{"emea::Design", "apac::Ops", "apac::Ops"}},
		{Email: "d@x"},
	}...)
	held := map[string][]string{"a@x": {"emea::Old", "Older"}}
	for _, tc := range []struct {
		name       string
		all        []bool
		main       []string // email:groups
		emea       []string
		emeaHeld   []string
		unknownGs  []string
		emeaOthers []string
	}{
		{"primary all, secondary mapped", []bool{true, false},
			[]string{"a@x:Eng", "b@x:Eng", "c@x:", "d@x:"}, []string{"a@x:Design", "c@x:Design"}, []string{"Old"}, []string{"apac::Ops"},
			[]string{"b@x:", "d@x:"}},
		{"all users everywhere", []bool{true, true},
			[]string{"a@x:Eng", "b@x:Eng", "c@x:", "d@x:"}, []string{"a@x:Design", "b@x:", "c@x:Design", "d@x:"}, []string{"Old"}, []string{"apac::Ops"},
			nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parts, unknown := splitUsers(&users, held, tc.all, route)
			flat := func(us reconcile.Users) []string {
				var out []string
				for _, u := range us.All() {
					out = append(out, u.Email+":"+strings.Join(u.Groups, ","))
				}
				return out
			}
			if got := flat(parts[0].Users); !reflect.DeepEqual(got, tc.main) {
				t.Errorf("main = %v, want %v", got, tc.main)
			}
			if got := flat(parts[1].Users); !reflect.DeepEqual(got, tc.emea) {
				t.Errorf("emea = %v, want %v", got, tc.emea)
			}
			if got := parts[1].Held["a@x"]; !reflect.DeepEqual(got, tc.emeaHeld) || parts[0].Held["a@x"][0] != "Older" {
				t.Errorf("held = %v / %v", parts[0].Held, parts[1].Held)
			}
			if got := flat(parts[1].Others); !reflect.DeepEqual(got, tc.emeaOthers) || parts[0].Others.Len() != 0 {
				t.Errorf("emea others = %v, want %v (main: %v)", got, tc.emeaOthers, parts[0].Others.List())
			}
			if !reflect.DeepEqual(unknown, tc.unknownGs) {
				t.Errorf("unknown = %v, want %v", unknown, tc.unknownGs)
			}
		})
	}
	if users.At(0).Groups[1] != "emea::Design" {
		t.Error("splitUsers changed its input")
	}
}

// TestSplitOneOrganizationSharesTheUsers: one organization that takes
// every user, each group under its own name, takes the users as they are
// (no copy); a group named with the organization is renamed in a copy.
func TestSplitOneOrganizationSharesTheUsers(t *testing.T) {
	t.Parallel()
	users := reconcile.UsersOf(reconcile.User{Email: "a@x", Groups: []string{"Eng"}}, reconcile.User{Email: "b@x"})
	parts, _ := splitUsers(&users, nil, []bool{true}, route)
	if got := parts[0].Users; got.Len() != 2 || &got.At(0).Groups[0] != &users.At(0).Groups[0] {
		t.Errorf("one organization: %+v (a copy?)", got.List())
	}
	users.SetGroups(1, []string{"main::Ops"})
	parts, _ = splitUsers(&users, nil, []bool{true}, route)
	if got := parts[0].Users; got.Len() != 2 || got.At(1).Groups[0] != "Ops" || users.At(1).Groups[0] != "main::Ops" {
		t.Errorf("one organization, a group named with it: %+v", got.List())
	}
}

func TestPresentAddsOnlyMembers(t *testing.T) {
	t.Parallel()
	users := reconcile.UsersOf(reconcile.User{Email: "a@x", Groups: []string{"Design"}})
	others := reconcile.UsersOf(reconcile.User{Email: "B@x"}, reconcile.User{Email: "c@x"})
	current := reconcile.UsersOf(reconcile.User{Email: "b@X", Groups: []string{"Design"}}, reconcile.User{Email: "z@x"})
	got := present(&users, &others, &current)
	if got.Len() != 2 || got.At(0).Email != "a@x" || got.At(1).Email != "B@x" || users.Len() != 1 {
		t.Errorf("present = %+v, want a@x and B@x (a member already), not c@x; users unchanged", got.List())
	}
}

func TestLeaveOutUnmapped(t *testing.T) {
	t.Parallel()
	p := Part{
		Users:  reconcile.UsersOf(reconcile.User{Email: "a@x", Groups: []string{"Design"}}, reconcile.User{Email: "b@x"}, reconcile.User{Email: "c@x"}),
		Held:   map[string][]string{"c@x": {"Old"}},
		Others: reconcile.UsersOf(reconcile.User{Email: "d@x"}),
	}
	in, out := p.LeaveOutUnmapped()
	var got []string
	for _, u := range in.Users.All() {
		got = append(got, u.Email)
	}
	got = append(got, "|")
	for _, u := range out {
		got = append(got, u.Email)
	}
	if strings.Join(got, ",") != "a@x,c@x,|,b@x,d@x" || in.Others.Len() != 0 || in.Held["c@x"] == nil {
		t.Errorf("in %+v, out %+v: want a@x and c@x (a held group) in, b@x and d@x (another organization's) out", in, out)
	}
}

// TestEachRunsSideBySide: each job waits until all three have started;
// run one after another, they would never all start.
func TestEachRunsSideBySide(t *testing.T) {
	t.Parallel()
	var started sync.WaitGroup
	started.Add(3)
	allStarted := make(chan struct{})
	go func() { started.Wait(); close(allStarted) }()
	calls := make([]int, 3)
	var alone atomic.Int32
	each(context.Background(), 3, func(_ context.Context, i int) {
		started.Done()
		select {
		case <-allStarted:
		case <-time.After(10 * time.Second):
			alone.Add(1)
		}
		calls[i]++
	})
	if alone.Load() != 0 {
		t.Errorf("%d jobs waited in vain for the others to start: they did not run side by side", alone.Load())
	}
	if !slices.Equal(calls, []int{1, 1, 1}) {
		t.Errorf("calls by index = %v, want each once", calls)
	}
}
