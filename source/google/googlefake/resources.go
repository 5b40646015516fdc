package googlefake

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

func (u *User) render(p projection) resource {
	ou := u.OrgUnitPath
	if ou == "" {
		ou = "/"
	}
	r := resource{"kind": "admin#directory#user", "id": u.ID, "primaryEmail": u.PrimaryEmail,
		"name":    resource{"givenName": u.GivenName, "familyName": u.FamilyName, "fullName": u.GivenName + " " + u.FamilyName},
		"isAdmin": u.IsAdmin, "suspended": u.Suspended, "archived": u.Archived, "orgUnitPath": ou}
	if u.Country != "" {
		r["addresses"] = []any{resource{"type": "work", "countryCode": u.Country, "primary": true}}
	}
	cs := resource{}
	for name, fields := range u.CustomSchemas {
		if p.all || containsFold(p.schemas, name) {
			cs[name] = fields
		}
	}
	if len(cs) > 0 {
		r["customSchemas"] = cs
	}
	return r
}

func (g *Group) render(projection) resource {
	r := resource{"kind": "admin#directory#group", "id": g.ID, "email": g.Email, "name": g.Name,
		"directMembersCount": strconv.Itoa(len(g.Members))}
	if len(g.Aliases) > 0 {
		r["aliases"] = g.Aliases
	}
	return r
}

// userItems are the users that match query.
func (s *Server) userItems(query string) ([]item, error) {
	match, err := parseQuery(query, userTerms)
	if err != nil {
		return nil, err
	}
	var out []item
	for i := range s.dom.Users {
		if u := &s.dom.Users[i]; match(func(t string) string { return userTerms[t](u) }) {
			out = append(out, u)
		}
	}
	return out, nil
}

// groupItems are the groups that match query.
func (s *Server) groupItems(query string) ([]item, error) {
	match, err := parseQuery(query, groupTerms)
	if err != nil {
		return nil, err
	}
	var out []item
	for i := range s.dom.Groups {
		if g := &s.dom.Groups[i]; match(func(t string) string { return groupTerms[t](g) }) {
			out = append(out, g)
		}
	}
	return out, nil
}

// member is one member of a group: a user, a group, the customer or an
// external address, with its role in the group.
type member struct {
	user     *User
	group    *Group
	customer string // the customer's ID
	external string // an address of another domain
	role     string
}

func (m member) render(projection) resource {
	r := resource{"kind": "admin#directory#member", "role": m.role, "status": "ACTIVE"}
	switch {
	case m.user != nil:
		r["id"], r["email"], r["type"] = m.user.ID, m.user.PrimaryEmail, "USER"
		if m.user.Suspended {
			r["status"] = "SUSPENDED"
		}
	case m.group != nil:
		r["id"], r["email"], r["type"] = m.group.ID, m.group.Email, "GROUP"
	case m.customer != "":
		r["id"], r["type"] = m.customer, "CUSTOMER"
	default:
		r["email"], r["type"] = m.external, "USER" // an external user: an email, no id of this account
	}
	return r
}

// role returns the role of member id in g.
func (g *Group) role(id string) string {
	switch {
	case slices.Contains(g.Owners, id):
		return "OWNER"
	case slices.Contains(g.Managers, id):
		return "MANAGER"
	}
	return "MEMBER"
}

// memberItems are g's members; with derived, the users of its nested
// groups too (each once, through any depth, cycles included).
func (s *Server) memberItems(g *Group, derived bool) []item {
	var out []item
	seen := map[string]bool{g.ID: true}
	var walk func(g *Group)
	walk = func(g *Group) {
		for _, id := range g.Members {
			if seen[id] {
				continue
			}
			seen[id] = true
			role := g.role(id)
			if u, ok := s.users[id]; ok {
				out = append(out, member{user: u, role: role})
			} else if sub, ok := s.groups[id]; ok {
				out = append(out, member{group: sub, role: role})
				if derived {
					walk(sub)
				}
			} else if id == Customer {
				out = append(out, member{customer: s.dom.CustomerID, role: role})
			} else if strings.Contains(id, "@") {
				out = append(out, member{external: id, role: role})
			}
		}
	}
	walk(g)
	return out
}

// The search terms of the users' and groups' query parameter that the
// fake knows.
var (
	userTerms = map[string]func(*User) string{
		"email":       func(u *User) string { return u.PrimaryEmail },
		"givenName":   func(u *User) string { return u.GivenName },
		"familyName":  func(u *User) string { return u.FamilyName },
		"orgUnitPath": func(u *User) string { return u.OrgUnitPath },
		"isAdmin":     func(u *User) string { return strconv.FormatBool(u.IsAdmin) },
		"isSuspended": func(u *User) string { return strconv.FormatBool(u.Suspended) },
	}
	groupTerms = map[string]func(*Group) string{
		"email": func(g *Group) string { return g.Email },
		"name":  func(g *Group) string { return g.Name },
	}
)

// parseQuery parses a query of clauses separated by spaces, all of which
// must hold: term=value (exact, ignoring case; orgUnitPath also matches
// the units below) or term:prefix* (starts with); a value with spaces is
// quoted in single quotes. terms are the terms known.
func parseQuery[T any](q string, terms map[string]T) (func(get func(string) string) bool, error) {
	type clause struct{ term, op, value string }
	var cs []clause
	for rest := strings.TrimSpace(q); rest != ""; rest = strings.TrimSpace(rest) {
		i := strings.IndexAny(rest, "=:")
		if i <= 0 {
			return nil, fmt.Errorf("%s", q)
		}
		c := clause{term: rest[:i], op: rest[i : i+1]}
		if _, ok := terms[c.term]; !ok {
			return nil, fmt.Errorf("%s", q)
		}
		rest = rest[i+1:]
		if v, ok := strings.CutPrefix(rest, "'"); ok {
			end := strings.IndexByte(v, '\'')
			if end < 0 {
				return nil, fmt.Errorf("%s", q)
			}
			c.value, rest = v[:end], v[end+1:]
		} else {
			end := strings.IndexByte(rest, ' ')
			if end < 0 {
				end = len(rest)
			}
			c.value, rest = rest[:end], rest[end:]
		}
		cs = append(cs, c)
	}
	return func(get func(string) string) bool {
		for _, c := range cs {
			if !matches(c.term, c.op, c.value, get(c.term)) {
				return false
			}
		}
		return true
	}, nil
}

func matches(term, op, want, have string) bool {
	if p, ok := strings.CutSuffix(want, "*"); ok && op == ":" {
		return strings.HasPrefix(strings.ToLower(have), strings.ToLower(p))
	}
	if term == "orgUnitPath" && strings.HasPrefix(strings.ToLower(have), strings.ToLower(strings.TrimSuffix(want, "/"))+"/") {
		return true
	}
	return strings.EqualFold(have, want)
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
