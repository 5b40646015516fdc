package source

import (
	"fmt"
	"strings"

	"github.com/orgsync/orgsync/reconcile"
)

// NamedResult is what one source read, with the source's name for messages.
type NamedResult struct {
	Name   string
	Result *Result
}

// FieldConflict is one field on which two records of the same user both
// have a value and the values differ.
type FieldConflict struct {
	Field string // "type", "email", "username", "domain", "firstname", "lastname" or "country"
	Kept  string // the value of the record that wins
	Other string // the value that is ignored
}

// Merge combines the results of several sources given in precedence order.
// Users are matched by reconcile.User.Key (case-insensitive). For a user
// found more than once the earlier record wins field by field where it has
// a value, later records fill the fields it leaves empty, and the groups are
// the union (case-insensitive, first spelling kept). Each field on which two
// records disagree is reported as a Problem naming both sources; the
// earlier value is kept. The users come in order of first appearance; the
// problems are each source's own problems followed by the conflicts found
// when its users were merged, source by source. Merge does not change its
// input; with one source, which has each user once, the users returned
// are the source's own, not a copy.
func Merge(results []NamedResult) (users reconcile.Users, problems []Problem) {
	total, given := 0, []*Result{}
	for _, r := range results {
		if r.Result != nil {
			total += r.Result.Users.Len()
			given = append(given, r.Result)
		}
	}
	if len(given) == 1 { // each user once already (Result.Users)
		return given[0].Users, given[0].Problems
	}
	users.Grow(total)
	index := reconcile.NewIndex(total, func(i int) string { return users.Key(i) })
	owner := make([]int, 0, total)           // index of the result that gave each user first
	defaulted := make([]Defaulted, 0, total) // the merged users' fields that are still defaults
	for ri, r := range results {
		if r.Result == nil {
			continue
		}
		problems = append(problems, r.Result.Problems...)
		for j, u := range r.Result.Users.All() {
			key := u.Key()
			d := r.Result.DefaultedAt(j)
			i, seen := index.Find(key)
			if !seen {
				index.AddKey(users.Len(), key)
				users.Add(u)
				owner = append(owner, ri)
				defaulted = append(defaulted, d)
				continue
			}
			have := users.At(i)
			for _, c := range Conflicts(&have, &u, defaulted[i], d) {
				problems = append(problems, conflictProblem(results[owner[i]].Name, r.Name, key, c))
			}
			defaulted[i] = Fill(&have, &u, defaulted[i], d)
			users.Set(i, have)
		}
	}
	return users, problems
}

func conflictProblem(kept, other, key string, c FieldConflict) Problem {
	return Problem{
		Source: other,
		Record: key,
		Field:  c.Field,
		Reason: fmt.Sprintf("%s has %q but %s has %q; the value of %s, the earlier source, is kept", kept, c.Kept, other, c.Other, kept),
	}
}

// Conflicts returns the fields on which a and b both have a value of their
// own and the values differ; da and db say which of their values are only
// defaults, which never conflict. Emails, usernames and domains compare
// case-insensitively; names, country and identity type exactly.
func Conflicts(a, b *reconcile.User, da, db Defaulted) []FieldConflict {
	var out []FieldConflict
	if a.Type != "" && b.Type != "" && a.Type != b.Type && (da|db)&DefaultedType == 0 {
		out = append(out, FieldConflict{Field: "type", Kept: string(a.Type), Other: string(b.Type)})
	}
	fa, fb := stringFields(a), stringFields(b)
	for i, f := range fa {
		if *f.value == "" || *fb[i].value == "" || (da|db)&f.defaulted != 0 {
			continue
		}
		if f.fold && !strings.EqualFold(*f.value, *fb[i].value) || !f.fold && *f.value != *fb[i].value {
			out = append(out, FieldConflict{Field: f.name, Kept: *f.value, Other: *fb[i].value})
		}
	}
	return out
}

// Fill sets the fields dst leaves empty, or has only by default, from
// src's (a value of src's own beats a default of dst's), and adds src's
// groups that dst lacks (case-insensitively). dd and ds say which values
// of dst and src are defaults; Fill returns which of dst's still are. It
// never writes into the backing array of dst.Groups or src.Groups, which
// other users may share.
func Fill(dst, src *reconcile.User, dd, ds Defaulted) Defaulted {
	if givesWay(string(dst.Type), string(src.Type), dd, ds, DefaultedType) && sameKeyAs(dst, src.Type) {
		dst.Type = src.Type
		dd = dd&^DefaultedType | ds&DefaultedType
	}
	fd, fs := stringFields(dst), stringFields(src)
	for i, f := range fd {
		if givesWay(*f.value, *fs[i].value, dd, ds, f.defaulted) {
			*f.value = *fs[i].value
			dd = dd&^f.defaulted | ds&f.defaulted
		}
	}
	dst.Groups = UnionGroups(dst.Groups, src.Groups)
	return dd
}

// givesWay reports whether dst's value of a field yields to src's: src has
// one, and dst has none or only a default (flag, 0 for a field that has no
// default) where src's is its own.
func givesWay(dst, src string, dd, ds, flag Defaulted) bool {
	return src != "" && (dst == "" || dd&flag != 0 && ds&flag == 0)
}

// sameKeyAs reports whether u keeps its identity with identity type t (a
// Federated ID known by username would not as another type).
func sameKeyAs(u *reconcile.User, t reconcile.IdentityType) bool {
	v := *u
	v.Type = t
	return v.Key() == u.Key()
}

type userField struct {
	name      string
	value     *string
	fold      bool      // compare case-insensitively
	defaulted Defaulted // the flag of a value taken from a default, 0 if none
}

// stringFields lists the string fields of u, in a fixed order.
func stringFields(u *reconcile.User) [6]userField {
	return [6]userField{
		{"email", &u.Email, true, 0},
		{"username", &u.Username, true, 0},
		{"domain", &u.Domain, true, 0},
		{"firstname", &u.FirstName, false, 0},
		{"lastname", &u.LastName, false, 0},
		{"country", &u.Country, false, DefaultedCountry},
	}
}

// UnionGroups returns a followed by the groups of b it lacks, compared
// case-insensitively (a's spelling kept). It returns a itself when nothing
// is added, and otherwise a new slice: a's backing array is never written.
func UnionGroups(a, b []string) []string {
	var out []string
	for _, g := range b {
		cur := out
		if cur == nil {
			cur = a
		}
		if containsFold(cur, g) {
			continue
		}
		if out == nil {
			out = make([]string, len(a), len(a)+len(b))
			copy(out, a)
		}
		out = append(out, g)
	}
	if out == nil {
		return a
	}
	return out
}

func containsFold(list []string, s string) bool {
	for _, g := range list {
		if strings.EqualFold(g, s) {
			return true
		}
	}
	return false
}
