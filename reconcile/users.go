package reconcile

import (
	"encoding/binary"
	"encoding/json"
	"iter"
	"maps"
	"slices"
	"strings"
)

// Users is a list of users held compactly, for organizations of hundreds
// of thousands: each user is a record of 40 bytes and one string holding
// its email, username (unless it is the email) and names; the domains,
// countries and group names are held once, and so is each distinct list
// of groups, which every user who has it shares.
//
// It is read like a slice through Len and At, and grown through Add. The
// User At returns shares its strings and its Groups with the list: it
// may be kept, but its Groups must not be written to (copy them first,
// as UnionGroups does). The zero Users is empty and ready to use. Like a
// slice, a copy of a Users shares its storage: grow only one of them (or
// Clone). A Users may be read from several goroutines at once, but not
// while one of them changes it.
type Users struct {
	recs  []userRec
	table *userTable
	// long holds, by index, the users a record cannot hold: a value over
	// maxLen bytes, or an identity type outside typeCodes.
	long map[int]User
}

// userRec is one user of a Users.
type userRec struct {
	text                    string // email, username (unless the email's), first name, last name
	domain, country, groups uint32 // indexes in the table's names (domain, country) and lists (groups)
	email, username, first  uint16 // lengths in text; username sameAsEmail when it is the email
	typ                     uint8  // index in typeCodes; longUser for a user held in Users.long
}

const (
	maxLen      = 1<<16 - 2 // the longest value a record holds
	sameAsEmail = 1<<16 - 1 // userRec.username of a user whose username is its email
	longUser    = 255       // userRec.typ of a user held in Users.long
)

// typeCodes are the identity types a record holds, by their code.
var typeCodes = [...]IdentityType{"", UnknownID, VendorID, EnterpriseID, FederatedID}

func typeCode(t IdentityType) (uint8, bool) {
	for i, c := range typeCodes {
		if c == t {
			return uint8(i), true
		}
	}
	return 0, false
}

// userTable holds each name (domain, country, group) and each list of
// groups once.
type userTable struct {
	names     []string
	nameIndex map[string]uint32
	lists     [][]string
	listIndex map[string]uint32 // the list's names, each after its length -> index in lists
	key       []byte            // reused to build listIndex keys
	// last and lastIndex are the name looked up last: users given one
	// after the other mostly share their domain and country.
	last      [2]string
	lastIndex [2]uint32
}

func newUserTable() *userTable {
	t := &userTable{nameIndex: map[string]uint32{}, listIndex: map[string]uint32{}}
	t.add("")                      // name 0, which last starts with
	t.lists = append(t.lists, nil) // list 0: no group
	return t
}

// name returns the index of s, adding it when new.
func (t *userTable) name(s string) uint32 {
	for j, l := range t.last {
		if l == s {
			return t.lastIndex[j]
		}
	}
	i, ok := t.nameIndex[s]
	if !ok {
		i = t.add(s)
	}
	t.last[1], t.lastIndex[1] = t.last[0], t.lastIndex[0]
	t.last[0], t.lastIndex[0] = t.names[i], i
	return i
}

// add adds name s.
func (t *userTable) add(s string) uint32 {
	s = strings.Clone(s) // not the caller's larger string, kept alive by a substring
	i := uint32(len(t.names))
	t.names = append(t.names, s)
	t.nameIndex[s] = i
	return i
}

// list returns the index of the list of groups, adding it when new (its
// names held once).
func (t *userTable) list(groups []string) uint32 {
	if len(groups) == 0 {
		return 0
	}
	t.key = t.key[:0]
	for _, g := range groups {
		t.key = append(binary.AppendUvarint(t.key, uint64(len(g))), g...)
	}
	if i, ok := t.listIndex[string(t.key)]; ok {
		return i
	}
	list := make([]string, len(groups))
	for j, g := range groups {
		list[j] = t.names[t.name(g)]
	}
	i := uint32(len(t.lists))
	t.lists = append(t.lists, list)
	t.listIndex[string(t.key)] = i
	return i
}

// clone is a copy of t that can grow apart from it.
func (t *userTable) clone() *userTable {
	return &userTable{names: slices.Clone(t.names), lists: slices.Clone(t.lists), nameIndex: maps.Clone(t.nameIndex),
		listIndex: maps.Clone(t.listIndex), last: t.last, lastIndex: t.lastIndex}
}

// UsersOf returns a Users holding list.
func UsersOf(list ...User) Users {
	var us Users
	us.Grow(len(list))
	for i := range list {
		us.Add(list[i])
	}
	return us
}

// Len is the number of users.
func (us Users) Len() int { return len(us.recs) }

// Grow makes room for n more users.
func (us *Users) Grow(n int) {
	if n > cap(us.recs)-len(us.recs) {
		recs := make([]userRec, len(us.recs), len(us.recs)+n)
		copy(recs, us.recs)
		us.recs = recs
	}
}

// At returns the user at index i.
func (us Users) At(i int) User {
	r := &us.recs[i]
	if r.typ == longUser {
		return us.long[i]
	}
	t := us.table
	text := r.text
	email := text[:r.email]
	text = text[r.email:]
	username := email
	if r.username != sameAsEmail {
		username, text = text[:r.username], text[r.username:]
	}
	return User{Type: typeCodes[r.typ], Email: email, Username: username, Domain: t.names[r.domain],
		FirstName: text[:r.first], LastName: text[r.first:], Country: t.names[r.country], Groups: t.lists[r.groups]}
}

// Key returns the key of the user at index i (User.Key).
func (us Users) Key(i int) string {
	u := us.At(i)
	return u.Key()
}

// Add appends u, holding copies of its strings.
func (us *Users) Add(u User) {
	us.recs = append(us.recs, userRec{})
	us.Set(len(us.recs)-1, u)
}

// AddOf appends the user at index i of src with groups instead of its
// own, sharing its strings with src.
func (us *Users) AddOf(src *Users, i int, groups []string) {
	r := src.recs[i]
	if r.typ == longUser {
		u := src.long[i]
		u.Groups = groups
		us.Add(u)
		return
	}
	if us.table == nil {
		us.table = newUserTable()
	}
	t, from := us.table, src.table
	r.domain, r.country, r.groups = t.name(from.names[r.domain]), t.name(from.names[r.country]), t.list(groups)
	us.recs = append(us.recs, r)
}

// Set replaces the user at index i with u.
func (us *Users) Set(i int, u User) {
	if us.table == nil {
		us.table = newUserTable()
	}
	if us.long != nil {
		delete(us.long, i)
	}
	typ, ok := typeCode(u.Type)
	username := uint16(sameAsEmail)
	if u.Username != u.Email {
		username = uint16(len(u.Username))
	}
	if !ok || max(len(u.Email), len(u.Username), len(u.FirstName)) > maxLen {
		us.setLong(i, u)
		return
	}
	var b strings.Builder
	if username == sameAsEmail {
		b.Grow(len(u.Email) + len(u.FirstName) + len(u.LastName))
		b.WriteString(u.Email)
	} else {
		b.Grow(len(u.Email) + len(u.Username) + len(u.FirstName) + len(u.LastName))
		b.WriteString(u.Email)
		b.WriteString(u.Username)
	}
	b.WriteString(u.FirstName)
	b.WriteString(u.LastName)
	t := us.table
	us.recs[i] = userRec{text: b.String(), domain: t.name(u.Domain), country: t.name(u.Country), groups: t.list(u.Groups),
		email: uint16(len(u.Email)), username: username, first: uint16(len(u.FirstName)), typ: typ}
}

// SetGroups replaces the groups of the user at index i.
func (us *Users) SetGroups(i int, groups []string) {
	if us.recs[i].typ == longUser {
		u := us.long[i]
		u.Groups = append([]string(nil), groups...)
		us.long[i] = u
		return
	}
	us.recs[i].groups = us.table.list(groups)
}

// setLong holds u, which a record cannot, at index i.
func (us *Users) setLong(i int, u User) {
	if us.long == nil {
		us.long = map[int]User{}
	}
	u.Groups = append([]string(nil), u.Groups...)
	us.long[i] = u
	us.recs[i] = userRec{typ: longUser}
}

// All yields each index and user, in order.
func (us Users) All() iter.Seq2[int, User] {
	return func(yield func(int, User) bool) {
		for i := range us.recs {
			if !yield(i, us.At(i)) {
				return
			}
		}
	}
}

// List returns the users as a slice.
func (us Users) List() []User {
	out := make([]User, len(us.recs))
	for i := range out {
		out[i] = us.At(i)
	}
	return out
}

// Clone returns a copy of us that can grow apart from it (the users'
// strings are shared: they never change).
func (us Users) Clone() Users {
	c := Users{recs: append([]userRec(nil), us.recs...)}
	if us.table != nil {
		c.table = us.table.clone()
	}
	for i, u := range us.long {
		c.setLong(i, u)
	}
	return c
}

// DeleteFunc removes the users for which del returns true, keeping the
// others in order.
func (us *Users) DeleteFunc(del func(i int, u User) bool) {
	kept := 0
	var long map[int]User
	for i := range us.recs {
		u := us.At(i)
		if del(i, u) {
			continue
		}
		if us.recs[i].typ == longUser {
			if long == nil {
				long = map[int]User{}
			}
			long[kept] = u
		}
		us.recs[kept] = us.recs[i]
		kept++
	}
	clear(us.recs[kept:])
	us.recs, us.long = us.recs[:kept], long
}

// IsZero reports whether there is no user (for omitzero).
func (us Users) IsZero() bool { return us.Len() == 0 }

// MarshalJSON writes the users as a JSON list.
func (us Users) MarshalJSON() ([]byte, error) { return json.Marshal(us.List()) }

// UnmarshalJSON reads a JSON list of users.
func (us *Users) UnmarshalJSON(b []byte) error {
	var list []User
	if err := json.Unmarshal(b, &list); err != nil {
		return err
	}
	*us = UsersOf(list...)
	return nil
}

// GroupNames returns the groups the users have, each exact name once, in
// the order they first come (user by user, each user's in its order).
func (us Users) GroupNames() []string {
	if us.table == nil {
		return nil
	}
	var out []string
	seenList := make([]bool, len(us.table.lists))
	seen := map[string]bool{}
	add := func(groups []string) {
		for _, g := range groups {
			if !seen[g] {
				seen[g] = true
				out = append(out, g)
			}
		}
	}
	for i := range us.recs {
		r := &us.recs[i]
		switch {
		case r.typ == longUser:
			add(us.long[i].Groups)
		case !seenList[r.groups]:
			seenList[r.groups] = true
			add(us.table.lists[r.groups])
		}
	}
	return out
}
