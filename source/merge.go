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
// input.
func Merge(results []NamedResult) (users []reconcile.User, problems []Problem) {
	total := 0
	for _, r := range results {
		if r.Result != nil {
			total += len(r.Result.Users)
		}
	}
	users = make([]reconcile.User, 0, total)
	index := make(map[string]int, total)
	owner := make([]int, 0, total) // index of the result that gave each user first
	for ri, r := range results {
		if r.Result == nil {
			continue
		}
		problems = append(problems, r.Result.Problems...)
		for _, u := range r.Result.Users {
			key := u.Key()
			i, seen := index[key]
			if !seen {
				index[key] = len(users)
				users = append(users, u)
				owner = append(owner, ri)
				continue
			}
			for _, c := range Conflicts(&users[i], &u) {
				problems = append(problems, conflictProblem(results[owner[i]].Name, r.Name, key, c))
			}
			Fill(&users[i], &u)
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

// Conflicts returns the fields on which a and b both have a value and the
// values differ. Emails, usernames and domains compare case-insensitively;
// names, country and identity type exactly.
func Conflicts(a, b *reconcile.User) []FieldConflict {
	var out []FieldConflict
	if a.Type != "" && b.Type != "" && a.Type != b.Type {
		out = append(out, FieldConflict{Field: "type", Kept: string(a.Type), Other: string(b.Type)})
	}
	fa, fb := stringFields(a), stringFields(b)
	for i, f := range fa {
		if *f.value == "" || *fb[i].value == "" {
			continue
		}
		if f.fold && !strings.EqualFold(*f.value, *fb[i].value) || !f.fold && *f.value != *fb[i].value {
			out = append(out, FieldConflict{Field: f.name, Kept: *f.value, Other: *fb[i].value})
		}
	}
	return out
}

// Fill sets the fields dst leaves empty from src and adds src's groups
// that dst lacks (case-insensitively). It never writes into the backing
// array of dst.Groups or src.Groups, which other users may share.
func Fill(dst, src *reconcile.User) {
	if dst.Type == "" {
		dst.Type = src.Type
	}
	fd, fs := stringFields(dst), stringFields(src)
	for i, f := range fd {
		if *f.value == "" {
			*f.value = *fs[i].value
		}
	}
	dst.Groups = UnionGroups(dst.Groups, src.Groups)
}

type userField struct {
	name  string
	value *string
	fold  bool // compare case-insensitively
}

// stringFields lists the string fields of u, in a fixed order.
func stringFields(u *reconcile.User) [6]userField {
	return [6]userField{
		{"email", &u.Email, true},
		{"username", &u.Username, true},
		{"domain", &u.Domain, true},
		{"firstname", &u.FirstName, false},
		{"lastname", &u.LastName, false},
		{"country", &u.Country, false},
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
