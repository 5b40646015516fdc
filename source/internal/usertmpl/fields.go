// Package usertmpl builds desired users from directory records (LDAP
// entries, Entra ID and Okta users) by attribute templates such as
// "{mail}" or "{sAMAccountName}@example.com": it checks the templates of a
// source's users block, expands them for each record, checks every field
// and collects the users with the problems of the records it skips. The
// directory sources share it so that templates and defaults behave the
// same in each of them.
package usertmpl

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/diag"
	"github.com/orgsync/orgsync/source/expr"
	"github.com/orgsync/orgsync/source/internal/textenc"
	"github.com/orgsync/orgsync/target/umwire"
)

// Spec is the user fields' templates and defaults as a source's users
// block writes them; an empty template takes the source's default.
type Spec struct {
	source.Templates
	source.Defaults
}

// keyed is one template with its YAML key.
type keyed struct{ key, text string }

func (s *Spec) templates() []keyed {
	return []keyed{
		{"email", s.Email}, {"username", s.Username}, {"domain", s.Templates.Domain},
		{"firstname", s.FirstName}, {"lastname", s.LastName}, {"country", s.Templates.Country}, {"type", s.Templates.Type},
	}
}

// EachAttribute calls fn with the YAML key (prefix + key) and each
// attribute of every template that parses.
func (s *Spec) EachAttribute(prefix string, fn func(key, attr string)) {
	for _, f := range s.templates() {
		if t, err := ParseTemplate(f.text); err == nil {
			for _, a := range t.Attributes() {
				fn(prefix+f.key, a)
			}
		}
	}
}

// Validate reports every problem of the templates and defaults, each named
// by prefix and its YAML key ("users.email").
func (s *Spec) Validate(prefix string) []diag.FieldError {
	var errs []diag.FieldError
	add := func(key, format string, args ...any) {
		errs = append(errs, diag.FieldError{Field: prefix + key, Reason: fmt.Sprintf(format, args...)})
	}
	for _, f := range s.templates() {
		if _, err := ParseTemplate(f.text); err != nil {
			add(f.key, "bad template: %v", err)
		}
	}
	if t, err := ParseTemplate(s.Templates.Type); err == nil {
		if lit, ok := t.Literal(); ok && lit != "" {
			if _, ok := reconcile.ParseIdentityType(lit); !ok {
				add("type", "%q is not an identity type: use federatedID, enterpriseID or vendorID", lit)
			}
		}
	}
	for _, fe := range s.Defaults.Validate() {
		add(fe.Field, "%s", fe.Reason)
	}
	return errs
}

// ValidateExtra reports each of attrs (a users.extraAttributes list,
// named by prefix) that is not an attribute name; example shows good ones.
func ValidateExtra(prefix string, attrs []string, example string) []diag.FieldError {
	var errs []diag.FieldError
	for i, a := range attrs {
		if !IsAttributeName(a) {
			errs = append(errs, diag.FieldError{Field: fmt.Sprintf("%sextraAttributes[%d]", prefix, i),
				Reason: fmt.Sprintf("%q is not an attribute name (e.g. %s)", a, example)})
		}
	}
	return errs
}

// Fields are the parsed templates and defaults of the user fields.
type Fields struct {
	email, username, domain, firstName, lastName, country, typ Template
	defaultType                                                reconcile.IdentityType
	defaultCountry, defaultDomain                              string
}

// Parse parses spec; where spec leaves a template empty, the one of
// defaults (Email, FirstName, LastName, Country, ...) is used. spec must
// have passed Validate; an error names the field by prefix and key.
func Parse(spec, defaults Spec, prefix string) (Fields, error) {
	f := Fields{defaultType: source.DefaultType, defaultCountry: strings.ToUpper(spec.Defaults.Country), defaultDomain: spec.Defaults.Domain}
	if t, ok := reconcile.ParseIdentityType(spec.Defaults.Type); ok {
		f.defaultType = t
	}
	targets := []*Template{&f.email, &f.username, &f.domain, &f.firstName, &f.lastName, &f.country, &f.typ}
	defs := defaults.templates()
	for i, x := range spec.templates() {
		text := x.text
		if text == "" {
			text = defs[i].text
		}
		t, err := ParseTemplate(text)
		if err != nil {
			return Fields{}, diag.FieldErrors{{Field: prefix + x.key, Reason: "bad template: " + err.Error()}}
		}
		*targets[i] = t
	}
	return f, nil
}

// Attributes are the attributes the templates refer to, without
// case-insensitive duplicates.
func (f *Fields) Attributes() []string {
	var attrs []string
	for _, t := range []Template{f.email, f.username, f.domain, f.firstName, f.lastName, f.country, f.typ} {
		for _, a := range t.Attributes() {
			if !slices.ContainsFunc(attrs, func(x string) bool { return strings.EqualFold(x, a) }) {
				attrs = append(attrs, a)
			}
		}
	}
	return attrs
}

// Problem is one bad field of a record.
type Problem struct{ Field, Reason string }

// Raw expands the templates over a record whose attribute values get
// returns ("" when missing): the user's fields as the record gives them,
// before defaults and checks, indexed by expr.Field.
func (f *Fields) Raw(get func(attr string) string) [expr.NumFields]string {
	trimmed := func(attr string) string { return strings.TrimSpace(get(attr)) }
	var v [expr.NumFields]string
	for i, t := range [expr.NumFields]Template{
		expr.FirstName: f.firstName, expr.LastName: f.lastName, expr.Email: f.email, expr.Country: f.country,
		expr.Type: f.typ, expr.Username: f.username, expr.Domain: f.domain,
	} {
		if x, ok := t.Expand(trimmed); ok {
			v[i] = x
		}
	}
	return v
}

// User builds the user of a record whose attribute values get returns
// ("" when missing) and says which of its values are defaults. It returns
// every problem of the record; the user is usable only when there is none.
func (f *Fields) User(get func(attr string) string) (reconcile.User, source.Defaulted, []Problem) {
	return f.UserOf(f.Raw(get))
}

// UserOf builds the user of the raw field values v (see Raw; an
// expression may have changed them) as User does.
func (f *Fields) UserOf(v [expr.NumFields]string) (reconcile.User, source.Defaulted, []Problem) {
	var probs []Problem
	var defaulted source.Defaulted
	u := reconcile.User{
		Email:     v[expr.Email],
		Username:  v[expr.Username],
		Domain:    cmp.Or(v[expr.Domain], f.defaultDomain),
		FirstName: v[expr.FirstName],
		LastName:  v[expr.LastName],
		Country:   strings.ToUpper(v[expr.Country]),
	}
	if probs := invalidText(&u); len(probs) > 0 {
		return u, defaulted, probs // the other checks of these values would only repeat it
	}
	if u.Country == "" && f.defaultCountry != "" {
		u.Country, defaulted = f.defaultCountry, source.DefaultedCountry
	}
	u.Type = f.defaultType
	if raw := v[expr.Type]; raw == "" {
		defaulted |= source.DefaultedType
	} else {
		t, ok := reconcile.ParseIdentityType(raw)
		if !ok {
			probs = append(probs, Problem{"type", fmt.Sprintf("%q is not an identity type (federatedID, enterpriseID or vendorID)", raw)})
		}
		u.Type = t
	}
	return u, defaulted, append(probs, f.check(&u)...)
}

// invalidText returns a problem for each value of u that is not UTF-8
// (directory strings are UTF-8, so a directory holding other bytes has
// stored them wrongly or the attribute is binary) and makes the value
// valid.
func invalidText(u *reconcile.User) []Problem {
	var probs []Problem
	for _, v := range []struct {
		field string
		v     *string
	}{{"email", &u.Email}, {"username", &u.Username}, {"domain", &u.Domain}, {"firstname", &u.FirstName}, {"lastname", &u.LastName}, {"country", &u.Country}} {
		if at := textenc.FirstInvalid(*v.v); at > 0 {
			probs = append(probs, Problem{v.field, fmt.Sprintf(
				"not UTF-8 (an invalid byte at character %d of the value): directory values are UTF-8; fix the attribute in the directory, or map the field from a text attribute", at)})
			*v.v = strings.ToValidUTF8(*v.v, "\uFFFD")
		}
	}
	return probs
}

// invalidGroups returns a problem for a target group that is not UTF-8: a
// pattern rule made it from a directory group's name or DN that is not.
func invalidGroups(groups []string) []Problem {
	for _, g := range groups {
		if at := textenc.FirstInvalid(g); at > 0 {
			return []Problem{{"groups", fmt.Sprintf("the target group %q, which a pattern rule made from a directory group of the record, is not UTF-8 (an invalid byte at character %d): fix the group's name in the directory",
				strings.ToValidUTF8(g, "\uFFFD"), at)}}
		}
	}
	return nil
}

// check returns the problems of the fields of u other than its type.
func (f *Fields) check(u *reconcile.User) []Problem {
	var probs []Problem
	if u.Email == "" {
		who := "the record"
		if name := strings.TrimSpace(u.FirstName + " " + u.LastName); name != "" {
			who += " of " + name
		}
		probs = append(probs, Problem{"email", fmt.Sprintf("required, but %s has no value for %s: the record is skipped; fill in the email in the source", who, f.email)})
	} else if err := umwire.CheckEmail(u.Email); err != nil {
		probs = append(probs, Problem{"email", err.Error()})
	}
	if u.Type == reconcile.FederatedID && u.Username != "" && !strings.Contains(u.Username, "@") && u.Domain == "" {
		probs = append(probs, Problem{"domain", "required for a Federated ID whose username is not an email: set users.domain or users.defaultDomain"})
	}
	for _, n := range []struct{ field, v string }{{"firstname", u.FirstName}, {"lastname", u.LastName}} {
		if err := umwire.CheckName(n.v); err != nil {
			probs = append(probs, Problem{n.field, err.Error()})
		}
	}
	if u.Country != "" && !umwire.IsCountryCode(u.Country) {
		probs = append(probs, Problem{"country", fmt.Sprintf("%q is not an ISO 3166-1 alpha-2 country code", u.Country)})
	}
	return probs
}

// Collector gathers the users of one read: each record is built, checked
// and, unless it has a problem or repeats a user already collected,
// added with its target groups.
type Collector struct {
	source, where string
	fields        *Fields
	seen          map[string]string // user key -> record that gave it
	res           source.Result     // the users are collected into res.Users
	ids           []string          // the record of each user
	records       int
	b             builder // the expressions Build runs
}

// NewCollector returns a Collector for the named source reading from
// where (a server or API URL, for problems).
func NewCollector(sourceName, where string, f *Fields) *Collector {
	return &Collector{source: sourceName, where: where, fields: f, seen: map[string]string{}}
}

// Add builds the user of the record named id (a DN, a user id) of
// attributes a, without target groups (see AttachGroups).
func (c *Collector) Add(id string, a Attributes) {
	u, defaulted, probs := c.fields.User(a.Get)
	c.Collect(id, u, defaulted, probs)
}

// Collect adds u, the user built from the record named id with its
// problems probs (see Fields.User), unless it has a problem, a target
// group that is not UTF-8 or whose name is longer than the service
// allows, or repeats a user already collected. It reports the problems
// and returns them all.
func (c *Collector) Collect(id string, u reconcile.User, defaulted source.Defaulted, probs []Problem) []Problem {
	c.records++
	probs = append(probs, invalidGroups(u.Groups)...)
	if reason := source.GroupNamesProblem(u.Groups); reason != "" {
		probs = append(probs, Problem{"groups", reason + ": this record is skipped"})
	}
	if len(probs) == 0 {
		if first, dup := c.seen[u.Key()]; dup {
			probs = append(probs, Problem{"email", fmt.Sprintf("%s is also the user of %s; this record is skipped", u.Key(), first)})
		}
	}
	c.report(id, probs)
	if len(probs) > 0 {
		return probs
	}
	c.seen[u.Key()] = id
	c.ids = append(c.ids, id)
	c.res.Users.Add(u)
	c.res.Defaulted = append(c.res.Defaulted, defaulted)
	return nil
}

// Skip counts a record that gives no user and reports its problems.
func (c *Collector) Skip(id string, probs []Problem) {
	c.records++
	c.report(id, probs)
}

// LeaveOut counts a record that an expression left out of the run; its
// user's identity, when the record names one validly, goes to
// Result.Filtered (the run leaves that user alone).
func (c *Collector) LeaveOut(u reconcile.User, valid bool) {
	c.records++
	if valid {
		c.res.Filtered = append(c.res.Filtered, reconcile.User{Type: u.Type, Email: u.Email, Username: u.Username, Domain: u.Domain})
	}
}

// Trace adds how the record of an explained user was built.
func (c *Collector) Trace(t diag.Trace) { c.res.Traces = append(c.res.Traces, t) }

func (c *Collector) report(id string, probs []Problem) {
	for _, p := range probs {
		c.res.Problems = append(c.res.Problems, source.Problem{Source: c.source, File: c.where, Record: id, Field: p.Field, Reason: p.Reason})
	}
}

// AttachGroups gives each user collected the groups of its record's id.
func (c *Collector) AttachGroups(groupsOf func(id string) []string) {
	for i, id := range c.ids {
		c.res.Users.SetGroups(i, groupsOf(id))
	}
}

// Records returns how many records were added, good or bad.
func (c *Collector) Records() int { return c.records }

// Result returns the users and problems collected.
func (c *Collector) Result() *source.Result { return &c.res }
