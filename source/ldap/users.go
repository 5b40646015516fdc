package ldap

import (
	"context"
	"fmt"
	"strings"

	ldap3 "github.com/go-ldap/ldap/v3"

	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/internal/textenc"
)

// Default templates of the user fields.
const (
	DefaultEmail     = "{mail}"
	DefaultFirstName = "{givenName}"
	DefaultLastName  = "{sn}"
	DefaultCountry   = "{c}"
)

// fields are the parsed templates and defaults of the user fields.
type fields struct {
	email, username, domain, firstName, lastName, country, typ Template
	defaultType                                                reconcile.IdentityType
	defaultCountry, defaultDomain                              string
}

func parseFields(u *Users) (fields, error) {
	f := fields{defaultType: reconcile.FederatedID, defaultCountry: strings.ToUpper(u.DefaultCountry), defaultDomain: u.DefaultDomain}
	if t, ok := reconcile.ParseIdentityType(u.DefaultType); ok {
		f.defaultType = t
	}
	for _, x := range []struct {
		t    *Template
		text string
		def  string
		key  string
	}{
		{&f.email, u.Email, DefaultEmail, "email"}, {&f.username, u.Username, "", "username"},
		{&f.domain, u.Domain, "", "domain"}, {&f.firstName, u.FirstName, DefaultFirstName, "firstname"},
		{&f.lastName, u.LastName, DefaultLastName, "lastname"}, {&f.country, u.Country, DefaultCountry, "country"},
		{&f.typ, u.Type, "", "type"},
	} {
		text := x.text
		if text == "" {
			text = x.def
		}
		t, err := ParseTemplate(text)
		if err != nil {
			return fields{}, source.FieldErrors{{Field: "users." + x.key, Reason: "bad template: " + err.Error()}}
		}
		*x.t = t
	}
	return f, nil
}

// attributes are the attributes every template refers to.
func (f *fields) attributes() []string {
	var attrs []string
	for _, t := range []Template{f.email, f.username, f.domain, f.firstName, f.lastName, f.country, f.typ} {
		attrs = append(attrs, t.Attributes()...)
	}
	return uniqueFold(attrs)
}

// fieldProblem is one bad field of an entry.
type fieldProblem struct{ field, reason string }

// user builds the user of entry e and says which of its values are
// defaults. Multi-valued attributes give their first value. It returns
// every problem of the entry; the entry is usable only when there is none.
func (f *fields) user(e *ldap3.Entry) (reconcile.User, source.Defaulted, []fieldProblem) {
	get := func(attr string) string { return strings.TrimSpace(e.GetEqualFoldAttributeValue(attr)) }
	var probs []fieldProblem
	var defaulted source.Defaulted
	expand := func(t Template, def string) string {
		v, ok := t.Expand(get)
		if !ok || v == "" {
			return def
		}
		return v
	}
	u := reconcile.User{
		Email:     expand(f.email, ""),
		Username:  expand(f.username, ""),
		Domain:    expand(f.domain, f.defaultDomain),
		FirstName: expand(f.firstName, ""),
		LastName:  expand(f.lastName, ""),
		Country:   strings.ToUpper(expand(f.country, "")),
	}
	if probs := invalidText(&u); len(probs) > 0 {
		return u, defaulted, probs // the other checks of these values would only repeat it
	}
	if u.Country == "" && f.defaultCountry != "" {
		u.Country, defaulted = f.defaultCountry, source.DefaultedCountry
	}
	u.Type = f.defaultType
	if raw := expand(f.typ, ""); raw == "" {
		defaulted |= source.DefaultedType
	} else {
		t, ok := reconcile.ParseIdentityType(raw)
		if !ok {
			probs = append(probs, fieldProblem{"type", fmt.Sprintf("%q is not an identity type (federatedID, enterpriseID or vendorID)", raw)})
		}
		u.Type = t
	}
	if u.Email == "" {
		probs = append(probs, fieldProblem{"email", fmt.Sprintf("required, but the entry has no value for %s", f.email)})
	} else if err := reconcile.CheckEmail(u.Email); err != nil {
		probs = append(probs, fieldProblem{"email", err.Error()})
	}
	if u.Type == reconcile.FederatedID && u.Username != "" && !strings.Contains(u.Username, "@") && u.Domain == "" {
		probs = append(probs, fieldProblem{"domain", "required for a Federated ID whose username is not an email: set users.domain or users.defaultDomain"})
	}
	for _, n := range []struct{ field, v string }{{"firstname", u.FirstName}, {"lastname", u.LastName}} {
		if err := reconcile.CheckName(n.v); err != nil {
			probs = append(probs, fieldProblem{n.field, err.Error()})
		}
	}
	if u.Country != "" && !reconcile.IsCountryCode(u.Country) {
		probs = append(probs, fieldProblem{"country", fmt.Sprintf("%q is not an ISO 3166-1 alpha-2 country code", u.Country)})
	}
	return u, defaulted, probs
}

// invalidText returns a problem for each value of u that is not UTF-8
// (LDAP's strings are UTF-8, so a directory holding other bytes has stored
// them wrongly or the attribute is binary) and makes the value valid.
func invalidText(u *reconcile.User) []fieldProblem {
	var probs []fieldProblem
	for _, v := range []struct {
		field string
		v     *string
	}{{"email", &u.Email}, {"username", &u.Username}, {"domain", &u.Domain}, {"firstname", &u.FirstName}, {"lastname", &u.LastName}, {"country", &u.Country}} {
		if at := textenc.FirstInvalid(*v.v); at > 0 {
			probs = append(probs, fieldProblem{v.field, fmt.Sprintf(
				"not UTF-8 (an invalid byte at character %d of the value): LDAP values are UTF-8; fix the attribute in the directory, or map the field from a text attribute", at)})
			*v.v = strings.ToValidUTF8(*v.v, "\uFFFD")
		}
	}
	return probs
}

// invalidGroups returns a problem for a target group that is not UTF-8: a
// pattern rule made it from a directory group's name or DN that is not.
func invalidGroups(groups []string) []fieldProblem {
	for _, g := range groups {
		if at := textenc.FirstInvalid(g); at > 0 {
			return []fieldProblem{{"groups", fmt.Sprintf("the target group %q, which a pattern rule made from a directory group of the entry, is not UTF-8 (an invalid byte at character %d): fix the group's name in the directory",
				strings.ToValidUTF8(g, "\uFFFD"), at)}}
		}
	}
	return nil
}

// readUsers reads every user, builds it, attaches its target groups and
// collects the problems of bad entries, which are skipped. A search that
// finds no entry at all is an error.
func (s *Source) readUsers(ctx context.Context, sr *searcher, p *plan, memb *memberships) (*source.Result, error) {
	res := &source.Result{}
	seen := map[string]string{} // user key -> DN of the entry that gave it
	entries := 0
	err := sr.search(ctx, p.users, func(e *ldap3.Entry) {
		entries++
		u, defaulted, probs := s.fields.user(e)
		u.Groups = memb.targets(e, p)
		probs = append(probs, invalidGroups(u.Groups)...)
		if len(probs) == 0 {
			if first, dup := seen[u.Key()]; dup {
				probs = append(probs, fieldProblem{"email", fmt.Sprintf("%s is also the user of %s; this entry is skipped", u.Key(), first)})
			}
		}
		for _, pr := range probs {
			res.Problems = append(res.Problems, source.Problem{Source: s.name, File: sr.url, Record: e.DN, Field: pr.field, Reason: pr.reason})
		}
		if len(probs) > 0 {
			return
		}
		seen[u.Key()] = e.DN
		res.Users = append(res.Users, u)
		res.Defaulted = append(res.Defaulted, defaulted)
	})
	if err != nil {
		return nil, fmt.Errorf("users: %w", err)
	}
	if entries == 0 {
		// An empty answer is far likelier a wrong base DN or filter than
		// a company without staff; treating it as "nobody" would remove
		// every user.
		return nil, fmt.Errorf("users: no entry matches %s under %q: check users.baseDN and users.filter", p.users.filter, p.users.base)
	}
	return res, nil
}

// uniqueFold removes case-insensitive duplicates, keeping the first.
func uniqueFold(ss []string) []string {
	var out []string
	for _, s := range ss {
		if !containsFold(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func containsFold(ss []string, s string) bool {
	for _, x := range ss {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
