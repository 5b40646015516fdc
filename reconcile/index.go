package reconcile

import "hash/maphash"

// Index finds the users of a Users by key (User.Key, or another key of
// the caller's), the first user of each key. It holds 8 bytes a slot, at
// most twice as many slots as users, and no key: a map of a million
// strings holds five to six times as much. It is not safe for concurrent
// use.
type Index struct {
	key   func(i int) string // the key of user i
	seed  maphash.Seed
	slots []uint64 // 0: empty; else the key's hash's top 32 bits << 32 | index+1
	n     int
}

// NewIndex returns an empty index of the users whose keys key gives, with
// room for about n of them.
func NewIndex(n int, key func(i int) string) *Index {
	x := &Index{key: key, seed: maphash.MakeSeed()}
	x.slots = make([]uint64, slotsFor(n))
	return x
}

// KeyIndex indexes every user of users by User.Key.
func KeyIndex(users *Users) *Index {
	x := NewIndex(users.Len(), users.Key)
	for i := range users.Len() {
		x.Add(i)
	}
	return x
}

// slotsFor is the number of slots (a power of two) that holds n keys at
// most half full.
func slotsFor(n int) int {
	s := 16
	for s < 2*n {
		s *= 2
	}
	return s
}

// Len is the number of keys indexed.
func (x *Index) Len() int { return x.n }

// Find returns the first user with key k.
func (x *Index) Find(k string) (int, bool) {
	h := maphash.String(x.seed, k)
	for s := x.start(h); ; s = (s + 1) & uint64(len(x.slots)-1) {
		v := x.slots[s]
		if v == 0 {
			return 0, false
		}
		if i := int(uint32(v)) - 1; v>>32 == h>>32 && x.key(i) == k {
			return i, true
		}
	}
}

// Add indexes user i under its key, unless a user has that key already:
// then it returns that user's index and false.
func (x *Index) Add(i int) (first int, added bool) {
	return x.AddKey(i, x.key(i))
}

// AddKey is Add with user i's key, k, known.
func (x *Index) AddKey(i int, k string) (first int, added bool) {
	if 2*(x.n+1) > len(x.slots) {
		x.grow()
	}
	h := maphash.String(x.seed, k)
	s := x.start(h)
	for ; x.slots[s] != 0; s = (s + 1) & uint64(len(x.slots)-1) {
		v := x.slots[s]
		if j := int(uint32(v)) - 1; v>>32 == h>>32 && x.key(j) == k {
			return j, false
		}
	}
	x.slots[s] = h>>32<<32 | uint64(i+1)
	x.n++
	return i, true
}

func (x *Index) start(h uint64) uint64 { return h & uint64(len(x.slots)-1) }

// grow doubles the slots, placing every user again (its key is read
// again: the slots keep only part of its hash).
func (x *Index) grow() {
	old := x.slots
	x.slots = make([]uint64, 2*len(old))
	for _, v := range old {
		if v == 0 {
			continue
		}
		h := maphash.String(x.seed, x.key(int(uint32(v))-1))
		s := x.start(h)
		for x.slots[s] != 0 {
			s = (s + 1) & uint64(len(x.slots)-1)
		}
		x.slots[s] = v
	}
}
