package ldap

import (
	"context"
	"fmt"
	"strings"

	ldap3 "github.com/go-ldap/ldap/v3"

	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/expr"
	"github.com/orgsync/orgsync/source/internal/usertmpl"
)

// Default templates of the user fields.
const (
	DefaultEmail     = "{mail}"
	DefaultFirstName = "{givenName}"
	DefaultLastName  = "{sn}"
	DefaultCountry   = "{c}"
)

// defaultTemplates are the templates of the fields users leaves empty.
var defaultTemplates = usertmpl.Spec{Templates: source.Templates{Email: DefaultEmail, FirstName: DefaultFirstName, LastName: DefaultLastName, Country: DefaultCountry}}

// spec returns the templates and defaults of the user fields.
func (u *Users) spec() usertmpl.Spec {
	return usertmpl.Spec{
		Templates: source.Templates{Email: u.Email, Username: u.Username, Domain: u.Domain, FirstName: u.FirstName,
			LastName: u.LastName, Country: u.Country, Type: u.Type},
		Defaults: source.Defaults{Type: u.DefaultType, Country: u.DefaultCountry, Domain: u.DefaultDomain},
	}
}

// readUsers reads every user, builds it, attaches its target groups and
// collects the problems of bad entries, which are skipped. A search that
// finds no entry at all is an error, and so is one whose every entry the
// filter expression leaves out.
func (s *Source) readUsers(ctx context.Context, sr *searcher, p *plan, memb *memberships) (*source.Result, error) {
	rd := &userReader{s: s, p: p, memb: memb, c: usertmpl.NewCollector(s.name, sr.url, &s.fields)}
	err := sr.search(ctx, p.users, rd.entry)
	if err != nil {
		return nil, fmt.Errorf("users: %w", err)
	}
	if rd.c.Records() == 0 {
		// An empty answer is far likelier a wrong base DN or filter than
		// a company without staff; treating it as "nobody" would remove
		// every user.
		return nil, fmt.Errorf("users: no entry matches %s under %q: check users.baseDN and users.filter", p.users.filter, p.users.base)
	}
	res := rd.c.Result()
	if len(res.Users) == 0 && rd.leftByFilter > 0 {
		return nil, fmt.Errorf("users: the filter expression left none of the %d entries (%d were left out, the others were bad); an empty source would remove every user, so it is refused: check the filter", rd.c.Records(), rd.leftByFilter)
	}
	return res, nil
}

// userReader turns the user entries of one read into users.
type userReader struct {
	s            *Source
	p            *plan
	memb         *memberships
	c            *usertmpl.Collector
	leftByFilter int
	xr           expr.Record // reused for each entry
}

// entry builds the user of one entry, or reports why it is skipped.
func (rd *userReader) entry(e *ldap3.Entry) {
	s := rd.s
	targets, groups := splitNames(rd.memb.targets(e, rd.p))
	v := s.fields.Raw(func(attr string) string { return e.GetEqualFoldAttributeValue(attr) })
	out := expr.Outcome{Keep: true}
	if s.prog != nil {
		var err error
		if out, err = rd.evaluate(e, &v, groups); err != nil {
			rd.c.Skip(e.DN, []usertmpl.Problem{{Field: expr.KeyOf(err), Reason: err.Error() + ": this entry is skipped"}})
			rd.trace(e, v, groups, nil, err.Error())
			return
		}
	}
	u, defaulted, probs := s.fields.UserOf(v)
	computed(probs, out.Set, s.prog)
	if !out.Keep {
		if !out.OutOfScope {
			rd.leftByFilter++
		}
		rd.c.LeaveOut(u, len(probs) == 0)
		rd.trace(e, v, groups, &out, "")
		return
	}
	u.Groups = source.UnionGroups(targets, out.Groups)
	probs = rd.c.Collect(e.DN, u, defaulted, probs)
	rd.trace(e, v, groups, &out, joinProblems(probs))
}

// computed marks the problems of fields a set expression gave (set says
// which), naming the expression.
func computed(probs []usertmpl.Problem, set [expr.NumFields]bool, p *expr.Program) {
	for i := range probs {
		for f := range expr.Field(expr.NumFields) {
			if set[f] && probs[i].Field == f.Name() {
				probs[i].Field = "set." + f.Name()
				probs[i].Reason += " (computed by the expression " + p.Expression(probs[i].Field) + ")"
			}
		}
	}
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

// trace notes how the entry of the explained user was built (out is nil
// when an expression failed; skipped says why it was skipped, if it was).
func (rd *userReader) trace(e *ldap3.Entry, v [expr.NumFields]string, groups []string, out *expr.Outcome, skipped string) {
	if rd.s.explain == "" || !source.Explains(rd.s.explain, v[expr.Email], v[expr.Username]) {
		return
	}
	t := source.Trace{Source: rd.s.name, File: rd.c.Where(), Record: e.DN, DirectoryGroups: groups, Skipped: skipped}
	if out != nil {
		out.Trace(&t, &rd.xr)
	}
	rd.c.Trace(t)
}

func joinProblems(probs []usertmpl.Problem) string {
	msgs := make([]string, len(probs))
	for i, p := range probs {
		msgs[i] = p.Field + ": " + p.Reason
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
