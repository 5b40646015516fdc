package reconcile

import "strings"

// Wanted indexes desired users so that a Reader can tell which current
// user stands for which desired one, by the rules Diff matches them by:
// the same key; for a desired user named by its email alone, the email of
// a Federated ID the service knows by a username; for a Federated ID named
// by username, the email of a Federated ID the service knows by another
// username (see renamedFederated).
type Wanted struct {
	users   *Users
	byKey   *Index         // the first desired user of each key
	byEmail map[string]int // lower-case email -> first desired Federated ID named by username with it
}

// NewWanted indexes users; a key listed twice keeps its first user, as Diff
// does.
func NewWanted(users *Users) *Wanted {
	w := &Wanted{users: users, byKey: NewIndex(users.Len(), users.Key), byEmail: make(map[string]int)}
	for i := range users.Len() {
		u := users.At(i)
		if k := u.Key(); k != "" {
			w.byKey.AddKey(i, k)
		}
		if e := strings.ToLower(u.Email); namedByUsername(&u) {
			if _, dup := w.byEmail[e]; !dup {
				w.byEmail[e] = i
			}
		}
	}
	return w
}

// Len is the number of distinct desired users.
func (w *Wanted) Len() int { return w.byKey.Len() }

// User returns the i-th desired user given to NewWanted.
func (w *Wanted) User(i int) User { return w.users.At(i) }

// Distinct calls f with the index of each distinct desired user, in the
// order given to NewWanted.
func (w *Wanted) Distinct(f func(i int)) {
	for i := range w.users.Len() {
		if j, ok := w.byKey.Find(w.users.Key(i)); ok && j == i {
			f(i)
		}
	}
}

// Match returns the index of the desired user that the current user c
// stands for.
func (w *Wanted) Match(c *User) (int, bool) {
	k := c.Key()
	if i, ok := w.byKey.Find(k); ok {
		return i, true
	}
	e := strings.ToLower(c.Email)
	if e == "" {
		return 0, false
	}
	if i, ok := w.byKey.Find(e); ok && e != k {
		if u := w.users.At(i); namedByEmail(&u) {
			return i, true
		}
	}
	if i, ok := w.byEmail[e]; ok && c.Type == FederatedID {
		return i, true
	}
	return 0, false
}

// namedByEmail reports whether a desired user is named by its email alone,
// so that it also matches a Federated ID with that email that the service
// knows by a username (the email is unique and identifies the account).
func namedByEmail(u *User) bool { return u.Username == "" && u.Email != "" }

// namedByUsername reports whether a desired user is a Federated ID with an
// email that a source names by a username: the service may know its
// account (found by the email, which is unique and identifies it) under
// another username, which then changed in the directory. Matching it by
// the email updates the username (Policy.Update) instead of
// creating the user (which the service answers by finding the account
// with that email) and removing the account as unmatched, on every run.
func namedByUsername(u *User) bool {
	return u.Type == FederatedID && u.Username != "" && u.Email != ""
}
