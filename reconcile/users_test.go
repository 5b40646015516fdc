package reconcile

import (
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// someUsers are users of every shape a Users holds: a username that is
// the email, another, none; no groups, shared groups; every identity type;
// values too long for a record; a type outside the known ones.
func someUsers() []User {
	long := strings.Repeat("x", maxLen+1)
	return []User{
		{Type: EnterpriseID, Email: "ann@example.com", Username: "ann@example.com", Domain: "example.com", FirstName: "Ann", LastName: "Ash", Country: "US", Groups: []string{"G1", "G2"}},
		{Type: FederatedID, Email: "bob@example.com", Username: "bob", Domain: "example.com", FirstName: "Bob", LastName: "Birch", Country: "DE", Groups: []string{"G1", "G2"}},
		{Type: VendorID, Email: "cy@other.example", LastName: "Cedar"},
		{},
		{Type: UnknownID, Email: "dee@example.com", Groups: []string{"g1"}},
		{Type: EnterpriseID, Email: "eve@example.com", FirstName: long, Groups: []string{"G2"}},
		{Type: EnterpriseID, Email: "fay@example.com", LastName: long},
		{Type: "robot", Email: "gus@example.com", Groups: []string{"G1"}},
		{Type: FederatedID, Username: strings.Repeat("u", 1<<16-1), Domain: "example.com"},
	}
}

func TestUsersHoldWhatTheyAreGiven(t *testing.T) {
	t.Parallel()
	in := someUsers()
	us := UsersOf(in...)
	if us.Len() != len(in) {
		t.Fatalf("Len %d, want %d", us.Len(), len(in))
	}
	for i := range in {
		if got := us.At(i); !reflect.DeepEqual(got, normalGroups(in[i])) {
			t.Errorf("user %d: %+v, want %+v", i, got, in[i])
		}
		if us.Key(i) != in[i].Key() {
			t.Errorf("key %d: %q, want %q", i, us.Key(i), in[i].Key())
		}
	}
	if got := us.List(); len(got) != len(in) || !reflect.DeepEqual(got[1], in[1]) {
		t.Errorf("List: %+v", got)
	}
	n := 0
	for i, u := range us.All() {
		if u.Email != in[i].Email {
			t.Errorf("All %d: %q", i, u.Email)
		}
		n++
	}
	if n != len(in) {
		t.Errorf("All yielded %d users", n)
	}
}

// normalGroups is u with no groups as nil, as a Users gives them back.
func normalGroups(u User) User {
	if len(u.Groups) == 0 {
		u.Groups = nil
	}
	return u
}

func TestUsersShareGroupListsAndNames(t *testing.T) {
	t.Parallel()
	var us Users
	for i := range 100 {
		us.Add(User{Type: EnterpriseID, Email: fmt.Sprintf("u%d@example.com", i), Domain: "example.com", Country: "US",
			Groups: []string{"Design", "Eng"}})
	}
	a, b := us.At(0), us.At(99)
	if &a.Groups[0] != &b.Groups[0] {
		t.Error("two users with the same groups hold two lists")
	}
	if len(us.table.lists) != 2 || len(us.table.names) != 5 { // "", example.com, US, Design, Eng
		t.Errorf("table: %d lists, names %q", len(us.table.lists), us.table.names)
	}
	// Lists are told apart by their names, whatever bytes these hold.
	odd := UsersOf(User{Groups: []string{"a\x00b"}}, User{Groups: []string{"a", "b"}}, User{Groups: []string{"a\x00", "b"}})
	if g0, g1, g2 := odd.At(0).Groups, odd.At(1).Groups, odd.At(2).Groups; len(g0) != 1 || len(g1) != 2 || g2[0] != "a\x00" {
		t.Errorf("groups %q %q %q", g0, g1, g2)
	}
	// A name given as part of a larger string is held apart from it.
	row := "Design,Eng,Ops"
	us.Add(User{Email: "x@example.com", Groups: []string{row[11:]}})
	if g := us.At(100).Groups[0]; g != "Ops" || strings.Contains(row, g) && &[]byte(row)[11] == &[]byte(g)[0] {
		t.Errorf("group %q", g)
	}
}

func TestUsersSetCloneDelete(t *testing.T) {
	t.Parallel()
	us := UsersOf(someUsers()...)
	c := us.Clone()
	c.Set(0, User{Type: FederatedID, Email: "new@example.com", Groups: []string{"Brand new"}})
	c.Add(User{Email: "added@example.com"})
	if got := us.At(0).Email; got != "ann@example.com" || us.Len() != len(someUsers()) {
		t.Errorf("the original changed with its clone: %q, %d users", got, us.Len())
	}
	if got := c.At(0); got.Email != "new@example.com" || got.Groups[0] != "Brand new" || c.At(c.Len()-1).Email != "added@example.com" {
		t.Errorf("clone: %+v", got)
	}
	// A long user set to a short one is no longer long.
	c.Set(5, User{Email: "short@example.com"})
	if c.At(5).FirstName != "" || c.long[5].Email != "" {
		t.Errorf("user 5 after Set: %+v", c.At(5))
	}
	us.DeleteFunc(func(i int, u User) bool { return i%2 == 0 })
	want := []string{"bob@example.com", "", "eve@example.com", "gus@example.com"}
	if us.Len() != len(want) {
		t.Fatalf("after DeleteFunc: %d users", us.Len())
	}
	for i, e := range want {
		if us.At(i).Email != e {
			t.Errorf("user %d after DeleteFunc: %q, want %q", i, us.At(i).Email, e)
		}
	}
	if us.At(2).FirstName != strings.Repeat("x", maxLen+1) {
		t.Error("the long user lost its first name in DeleteFunc")
	}
}

func TestUsersJSON(t *testing.T) {
	t.Parallel()
	us := UsersOf(someUsers()[:3]...)
	b, err := json.Marshal(us)
	if err != nil {
		t.Fatal(err)
	}
	list, _ := json.Marshal(someUsers()[:3])
	if string(b) != string(list) {
		t.Errorf("JSON %s, want %s", b, list)
	}
	var back Users
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back.List(), us.List()) {
		t.Errorf("read back: %+v, %v", back.List(), err)
	}
}

// TestUsersAreCompact: a user of a big organization (an email, names, a
// country, one or two of ten groups) takes under 100 bytes. (Not
// parallel: it measures the heap, which tests running beside it would
// fill.)
func TestUsersAreCompact(t *testing.T) {
	const n = 100_000
	before := heapInUse()
	var us Users
	us.Grow(n)
	for i := range n {
		us.Add(User{Type: EnterpriseID, Email: fmt.Sprintf("u%07d@example.com", i), Username: fmt.Sprintf("u%07d@example.com", i),
			Domain: "example.com", FirstName: fmt.Sprintf("First%d", i), LastName: fmt.Sprintf("Last%d", i), Country: "US",
			Groups: []string{fmt.Sprintf("Group %d", i%10), fmt.Sprintf("Group %d", (i+1)%10)}})
	}
	perUser := float64(heapInUse()-before) / n
	runtime.KeepAlive(us)
	if perUser > 100 {
		t.Errorf("%.0f bytes a user, want under 100", perUser)
	}
}

func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
