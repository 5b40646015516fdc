package ldap

import (
	"context"
	"fmt"
	"strings"

	ldap3 "github.com/go-ldap/ldap/v3"
	"go.uber.org/zap"

	"github.com/orgsync/orgsync/source"
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
// collects the problems of bad entries, which are skipped. With FreeIPA's
// layout, staged and preserved users are left out. A search that finds no
// entry at all is an error, and so is one whose every entry the filter
// expression leaves out.
func (s *Source) readUsers(ctx context.Context, sr *searcher, p *plan, memb *memberships) (*source.Result, error) {
	c := usertmpl.NewCollector(s.name, sr.url, &s.fields)
	c.Run(usertmpl.Expressions{Program: s.prog, ExtraAttributes: s.cfg.Users.ExtraAttributes, Explain: s.explain})
	provisioning := 0 // FreeIPA's staged and preserved users, never read
	err := sr.search(ctx, p.users, func(e *ldap3.Entry) {
		if p.flavor.ipa && provisioned(e.DN) {
			provisioning++
			return
		}
		targets, groups := splitNames(memb.targets(e, p))
		c.Build(e.DN, entry{e}, targets, groups)
	})
	if err != nil {
		return nil, fmt.Errorf("users: %w", err)
	}
	if provisioning > 0 {
		s.log.Debug("left out FreeIPA's staged and preserved users", zap.Int("entries", provisioning))
	}
	if c.Records() == 0 {
		// An empty answer is far likelier a wrong base DN or filter, or an
		// account that may not read the users, than a company without
		// staff; treating it as "nobody" would remove every user.
		return nil, fmt.Errorf("users: no entry matches %s under %q: check users.baseDN and users.filter, and that %s may read the entries there%s (the server shows an account nothing it may not read, without an error)",
			p.users.filter, p.users.base, bindAccount(s.cfg.BindDN), p.lockRights())
	}
	res := c.Result()
	if res.Users.Len() == 0 && c.LeftByFilter() > 0 {
		return nil, fmt.Errorf("users: the filter expression left none of the %d entries (%d were left out, the others were bad); an empty source would remove every user, so it is refused: check the filter", c.Records(), c.LeftByFilter())
	}
	return res, nil
}

// entry is an entry's attributes (usertmpl.Attributes): an attribute's
// first value, or all of them, by its name in any letter case.
type entry struct{ *ldap3.Entry }

// Get returns the first value of attr.
func (e entry) Get(attr string) string { return e.GetEqualFoldAttributeValue(attr) }

// Values returns every value of attr, in the server's order.
func (e entry) Values(attr string) []string { return e.GetEqualFoldAttributeValues(attr) }

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
