package ldap

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	ldap3 "github.com/go-ldap/ldap/v3"

	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/expr"
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

// raw expands the templates of entry e: the user's fields as the entry
// gives them, before defaults and checks. Multi-valued attributes give
// their first value.
func (f *fields) raw(e *ldap3.Entry) [expr.NumFields]string {
	get := func(attr string) string { return strings.TrimSpace(e.GetEqualFoldAttributeValue(attr)) }
	var v [expr.NumFields]string
	for i, t := range [expr.NumFields]Template{
		expr.FirstName: f.firstName, expr.LastName: f.lastName, expr.Email: f.email, expr.Country: f.country,
		expr.Type: f.typ, expr.Username: f.username, expr.Domain: f.domain,
	} {
		if x, ok := t.Expand(get); ok {
			v[i] = x
		}
	}
	return v
}

// user builds the user of the raw values v (computed says which a set
// expression gave) and says which of its values are defaults. It returns
// every problem of the entry; the entry is usable only when there is none.
func (f *fields) user(v [expr.NumFields]string, computed [expr.NumFields]bool, p *expr.Program) (reconcile.User, source.Defaulted, []fieldProblem) {
	var probs []fieldProblem
	var defaulted source.Defaulted
	problem := func(fld expr.Field, format string, args ...any) {
		name, reason := fld.Name(), fmt.Sprintf(format, args...)
		if computed[fld] {
			name = "set." + name
			reason += " (computed by the expression " + p.Expression(name) + ")"
		}
		probs = append(probs, fieldProblem{name, reason})
	}
	u := reconcile.User{
		Email: v[expr.Email], Username: v[expr.Username], Domain: cmp.Or(v[expr.Domain], f.defaultDomain),
		FirstName: v[expr.FirstName], LastName: v[expr.LastName], Country: strings.ToUpper(v[expr.Country]),
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
			problem(expr.Type, "%q is not an identity type (federatedID, enterpriseID or vendorID)", raw)
		}
		u.Type = t
	}
	if u.Email == "" {
		problem(expr.Email, "required, but the entry has no value for %s", f.email)
	} else if err := reconcile.CheckEmail(u.Email); err != nil {
		problem(expr.Email, "%v", err)
	}
	if u.Type == reconcile.FederatedID && u.Username != "" && !strings.Contains(u.Username, "@") && u.Domain == "" {
		problem(expr.Domain, "required for a Federated ID whose username is not an email: set users.domain or users.defaultDomain")
	}
	for _, n := range []expr.Field{expr.FirstName, expr.LastName} {
		if err := reconcile.CheckName(v[n]); err != nil {
			problem(n, "%v", err)
		}
	}
	if u.Country != "" && !reconcile.IsCountryCode(u.Country) {
		problem(expr.Country, "%q is not an ISO 3166-1 alpha-2 country code", u.Country)
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
// finds no entry at all is an error, and so is one whose every entry the
// filter expression leaves out.
func (s *Source) readUsers(ctx context.Context, sr *searcher, p *plan, memb *memberships) (*source.Result, error) {
	rd := &userReader{s: s, url: sr.url, p: p, memb: memb, res: &source.Result{}, seen: map[string]string{}}
	err := sr.search(ctx, p.users, rd.entry)
	if err != nil {
		return nil, fmt.Errorf("users: %w", err)
	}
	if rd.entries == 0 {
		// An empty answer is far likelier a wrong base DN or filter than
		// a company without staff; treating it as "nobody" would remove
		// every user.
		return nil, fmt.Errorf("users: no entry matches %s under %q: check users.baseDN and users.filter", p.users.filter, p.users.base)
	}
	if len(rd.res.Users) == 0 && rd.leftByFilter > 0 {
		return nil, fmt.Errorf("users: the filter expression left none of the %d entries (%d were left out, the others were bad); an empty source would remove every user, so it is refused: check the filter", rd.entries, rd.leftByFilter)
	}
	return rd.res, nil
}

// userReader turns the user entries of one read into users.
type userReader struct {
	s            *Source
	url          string
	p            *plan
	memb         *memberships
	res          *source.Result
	seen         map[string]string // user key -> DN of the entry that gave it
	entries      int
	leftByFilter int
	xr           expr.Record // reused for each entry
}

// entry builds the user of one entry, or reports why it is skipped.
func (rd *userReader) entry(e *ldap3.Entry) {
	rd.entries++
	s := rd.s
	targets, groups := splitNames(rd.memb.targets(e, rd.p))
	v := s.fields.raw(e)
	var out expr.Outcome
	if s.prog != nil {
		var err error
		if out, err = rd.evaluate(e, &v, groups); err != nil {
			rd.problems(e, []fieldProblem{{expr.KeyOf(err), err.Error() + ": this entry is skipped"}})
			rd.trace(e, v, groups, nil, err.Error())
			return
		}
	} else {
		out.Keep = true
	}
	u, defaulted, probs := s.fields.user(v, out.Set, s.prog)
	if !out.Keep {
		rd.leaveOut(e, u, probs, out)
		rd.trace(e, v, groups, &out, "")
		return
	}
	u.Groups = source.UnionGroups(targets, out.Groups)
	probs = append(probs, invalidGroups(u.Groups)...)
	if len(probs) == 0 {
		if first, dup := rd.seen[u.Key()]; dup {
			probs = append(probs, fieldProblem{"email", fmt.Sprintf("%s is also the user of %s; this entry is skipped", u.Key(), first)})
		}
	}
	if s.explain != "" {
		rd.trace(e, v, groups, &out, joinProblems(probs))
	}
	if len(probs) > 0 {
		rd.problems(e, probs)
		return
	}
	rd.seen[u.Key()] = e.DN
	rd.res.Users = append(rd.res.Users, u)
	rd.res.Defaulted = append(rd.res.Defaulted, defaulted)
}

// evaluate runs the source's expressions over the entry's raw values v
// (which it updates with the computed ones) and directory groups.
func (rd *userReader) evaluate(e *ldap3.Entry, v *[expr.NumFields]string, groups []string) (expr.Outcome, error) {
	x := &rd.xr
	x.Fields, x.DirectoryGroups = *v, groups
	if x.Attributes == nil {
		x.Attributes = make(map[string]string, len(rd.s.cfg.Users.ExtraAttributes))
	}
	for _, a := range rd.s.cfg.Users.ExtraAttributes {
		x.Attributes[a] = strings.TrimSpace(e.GetEqualFoldAttributeValue(a))
	}
	out, err := rd.s.prog.Run(x)
	if err == nil {
		*v = x.Fields
	}
	return out, err
}

// leaveOut notes an entry the filter or the scope left out: its user,
// when the entry names one validly, is left alone by the run.
func (rd *userReader) leaveOut(e *ldap3.Entry, u reconcile.User, probs []fieldProblem, out expr.Outcome) {
	if !out.OutOfScope {
		rd.leftByFilter++
	}
	if len(probs) == 0 {
		rd.res.Filtered = append(rd.res.Filtered, reconcile.User{Type: u.Type, Email: u.Email, Username: u.Username, Domain: u.Domain})
	}
}

func (rd *userReader) problems(e *ldap3.Entry, probs []fieldProblem) {
	for _, pr := range probs {
		rd.res.Problems = append(rd.res.Problems, source.Problem{Source: rd.s.name, File: rd.url, Record: e.DN, Field: pr.field, Reason: pr.reason})
	}
}

// trace notes how the entry of the explained user was built (out is nil
// when an expression failed; skipped says why it was skipped, if it was).
func (rd *userReader) trace(e *ldap3.Entry, v [expr.NumFields]string, groups []string, out *expr.Outcome, skipped string) {
	if !source.Explains(rd.s.explain, v[expr.Email], v[expr.Username]) {
		return
	}
	t := source.Trace{Source: rd.s.name, File: rd.url, Record: e.DN, DirectoryGroups: groups, Skipped: skipped}
	if out != nil {
		out.Trace(&t, &rd.xr)
	}
	rd.res.Traces = append(rd.res.Traces, t)
}

func joinProblems(probs []fieldProblem) string {
	msgs := make([]string, len(probs))
	for i, p := range probs {
		msgs[i] = p.field + ": " + p.reason
	}
	return strings.Join(msgs, "; ")
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
