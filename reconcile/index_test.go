package reconcile

import (
	"fmt"
	"testing"
)

func TestIndexFindsTheFirstOfEachKey(t *testing.T) {
	t.Parallel()
	var us Users
	for i := range 1000 {
		us.Add(User{Type: EnterpriseID, Email: fmt.Sprintf("U%d@Example.com", i%700)}) // 300 keys twice, in other case
	}
	x := NewIndex(0, us.Key) // grows from its smallest
	for i := range us.Len() {
		first, added := x.Add(i)
		if want := i < 700; added != want || !added && first != i-700 {
			t.Fatalf("Add(%d) = %d, %v", i, first, added)
		}
	}
	if x.Len() != 700 {
		t.Errorf("Len %d, want 700", x.Len())
	}
	for i := range 700 {
		if j, ok := x.Find(fmt.Sprintf("u%d@example.com", i)); !ok || j != i {
			t.Errorf("Find(u%d) = %d, %v", i, j, ok)
		}
	}
	if _, ok := x.Find("nobody@example.com"); ok {
		t.Error("found a key never added")
	}
	if k := KeyIndex(&us); k.Len() != 700 {
		t.Errorf("KeyIndex holds %d keys", k.Len())
	}
}

// TestIndexWithCollidingHashes: keys whose hashes share a slot (a table
// of 16 slots, many keys) are told apart by the keys themselves.
func TestIndexWithCollidingHashes(t *testing.T) {
	t.Parallel()
	keys := make([]string, 5)
	for i := range keys {
		keys[i] = fmt.Sprintf("k%d", i)
	}
	x := NewIndex(len(keys), func(i int) string { return keys[i] })
	for i := range keys {
		if _, added := x.AddKey(i, keys[i]); !added {
			t.Fatalf("key %d not added", i)
		}
	}
	for i, k := range keys {
		if j, ok := x.Find(k); !ok || j != i {
			t.Errorf("Find(%s) = %d, %v", k, j, ok)
		}
	}
}
