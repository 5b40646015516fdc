package ldap

import (
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	ldap3 "github.com/go-ldap/ldap/v3"

	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/source/diag"
	"github.com/orgsync/orgsync/source/internal/usertmpl"
)

// Binds: how the source authenticates.
const (
	BindSimple   = "simple"
	BindKerberos = "kerberos"
	BindNTLM     = "ntlm"
)

// Membership modes: where the source learns that a user is in a group.
const (
	MemberDN     = "member"       // group's member attribute holds user DNs
	UniqueMember = "uniqueMember" // group's uniqueMember attribute holds user DNs
	MemberUID    = "memberUid"    // posixGroup's memberUid holds the user's uid
	MemberOf     = "memberOf"     // user's memberOf attribute holds group DNs
	PrimaryGroup = "primaryGroup" // Active Directory's primaryGroupID
)

// Defaults of the configuration.
const (
	DefaultPageSize       = 1000
	DefaultConnectTimeout = 10 * time.Second
	DefaultSearchTimeout  = 2 * time.Minute
	// ADUserFilter selects enabled Active Directory user accounts: bit 2
	// (ACCOUNTDISABLE) of userAccountControl is clear.
	ADUserFilter = "(&(objectCategory=person)(objectClass=user)(!(userAccountControl:1.2.840.113556.1.4.803:=2)))"
	// OpenLDAPUserFilter selects inetOrgPerson entries.
	OpenLDAPUserFilter  = "(objectClass=inetOrgPerson)"
	ADGroupFilter       = "(objectClass=group)"
	OpenLDAPGroupFilter = "(|(objectClass=groupOfNames)(objectClass=groupOfUniqueNames)(objectClass=posixGroup))"
)

// PlaceholderHosts are the server host names of the starter
// configurations `orgsync init --source ldap|activedirectory|freeipa`
// writes: a run with any of them cannot work.
var PlaceholderHosts = []string{"ldap.example.com", "dc1.corp.example.com", "dc2.corp.example.com", "ipa.example.com"}

// Config is one LDAP or Active Directory source, as written under
// sources[i].ldap in the configuration file.
type Config struct {
	// Flavor is openldap, activedirectory, 389ds or freeipa; empty means
	// detect it from the server's root DSE (which tells 389ds, not
	// freeipa).
	Flavor string `yaml:"flavor,omitempty"`
	// URL is one server, e.g. ldaps://dc1.example.com; URLs are several,
	// tried in turn until one answers. Set either or both.
	URL  string   `yaml:"url,omitempty"`
	URLs []string `yaml:"urls,omitempty"`
	// StartTLS upgrades an ldap:// connection to TLS before binding.
	StartTLS bool `yaml:"startTLS,omitempty"`
	TLS      TLS  `yaml:"tls,omitempty"`
	// Bind is how to authenticate: simple (default; anonymous without
	// bindDN), kerberos or ntlm.
	Bind string `yaml:"bind,omitempty"`
	// BindDN is the account to bind as: a DN, or for Active Directory a
	// user principal name or DOMAIN\user; empty binds anonymously.
	BindDN string `yaml:"bindDN,omitempty"`
	// Password is where BindDN's password is (a secret reference), never
	// inline.
	Password secret.Ref `yaml:"password,omitempty"`
	// NTHash is where the NT hash of BindDN's password is, for bind: ntlm
	// instead of Password.
	NTHash secret.Ref `yaml:"ntHash,omitempty"`
	// Kerberos configures bind: kerberos.
	Kerberos       Kerberos      `yaml:"kerberos,omitempty"`
	ConnectTimeout time.Duration `yaml:"connectTimeout,omitempty"`
	SearchTimeout  time.Duration `yaml:"searchTimeout,omitempty"`
	// PageSize is the Simple Paged Results page size (default 1000).
	PageSize int    `yaml:"pageSize,omitempty"`
	Users    Users  `yaml:"users"`
	Groups   Groups `yaml:"groups,omitempty"`
}

// TLS configures ldaps:// and StartTLS. Certificates are verified unless
// InsecureSkipVerify is set.
type TLS struct {
	CAFile             string `yaml:"caFile,omitempty"`
	InsecureSkipVerify bool   `yaml:"insecureSkipVerify,omitempty"`
	ServerName         string `yaml:"serverName,omitempty"`
}

// Users says where the users are and how their fields are made from their
// attributes. Each field is a template such as "{mail}" or
// "{sAMAccountName}@example.com".
type Users struct {
	// BaseDN is required, but with flavor freeipa, where it defaults to
	// cn=users,cn=accounts under the server's suffix.
	BaseDN string `yaml:"baseDN,omitempty"`
	// Scope is sub (default), one or base.
	Scope string `yaml:"scope,omitempty"`
	// Filter defaults by flavor (ADUserFilter, OpenLDAPUserFilter).
	Filter string `yaml:"filter,omitempty"`
	// IncludeLocked reads the accounts 389 Directory Server and FreeIPA
	// lock (LockedFilter) too; they are left out by default.
	IncludeLocked bool   `yaml:"includeLocked,omitempty"`
	Email         string `yaml:"email,omitempty"`     // default "{mail}"
	Username      string `yaml:"username,omitempty"`  // default none
	Domain        string `yaml:"domain,omitempty"`    // default none
	FirstName     string `yaml:"firstname,omitempty"` // default "{givenName}"
	LastName      string `yaml:"lastname,omitempty"`  // default "{sn}"
	Country       string `yaml:"country,omitempty"`   // default "{c}"
	Type          string `yaml:"type,omitempty"`      // default none
	// Defaults used when a template gives an empty value.
	DefaultType    string `yaml:"defaultType,omitempty"` // default federatedID
	DefaultCountry string `yaml:"defaultCountry,omitempty"`
	DefaultDomain  string `yaml:"defaultDomain,omitempty"`
	// ExtraAttributes are read from each user entry as well, for the
	// source's expressions (user.attributes.<name>).
	ExtraAttributes []string `yaml:"extraAttributes,omitempty"`
}

// Groups says where the directory groups are and how membership is known.
type Groups struct {
	// BaseDN defaults to users.baseDN (freeipa: cn=groups,cn=accounts
	// under the server's suffix).
	BaseDN string `yaml:"baseDN,omitempty"`
	Scope  string `yaml:"scope,omitempty"`
	// Filter defaults by flavor (ADGroupFilter, OpenLDAPGroupFilter).
	Filter string `yaml:"filter,omitempty"`
	// NameAttribute holds a group's name (default cn).
	NameAttribute string `yaml:"nameAttribute,omitempty"`
	// Membership lists the modes used: member, uniqueMember, memberUid,
	// memberOf, primaryGroup. Default: member, uniqueMember, memberUid
	// (OpenLDAP; and memberOf for 389ds and freeipa); member, memberOf,
	// primaryGroup (Active Directory).
	Membership []string `yaml:"membership,omitempty"`
	// Nested resolves groups in groups (default true).
	Nested *bool `yaml:"nested,omitempty"`
	// UIDAttribute is the user attribute memberUid values name (default uid).
	UIDAttribute string `yaml:"uidAttribute,omitempty"`
}

// Validate reports every problem of the configuration at once, each named
// by its YAML key path inside the ldap block.
func (c *Config) Validate() []diag.FieldError {
	var errs []diag.FieldError
	add := func(field, format string, args ...any) {
		errs = append(errs, diag.FieldError{Field: field, Reason: fmt.Sprintf(format, args...)})
	}
	c.validateServer(add)
	c.Users.validate(add, c.Flavor)
	c.Groups.validate(add)
	return errs
}

type addFunc func(field, format string, args ...any)

func (c *Config) validateServer(add addFunc) {
	if _, ok := flavors[c.Flavor]; !ok && c.Flavor != "" {
		add("flavor", "%q is not a flavor: use %s, or leave it out to detect it", c.Flavor, flavorNames())
	}
	if len(c.urls()) == 0 {
		add("url", "required: set url (e.g. ldaps://ldap.example.com) or urls")
	}
	for i, u := range c.urls() {
		if reason := checkURL(u, c.StartTLS); reason != "" {
			add(c.urlKey(i), "%s", reason)
		}
	}
	if c.TLS.CAFile != "" {
		if _, err := os.Stat(c.TLS.CAFile); err != nil {
			add("tls.caFile", "cannot read the CA file: %v", err)
		}
	}
	c.validateBind(add)
	if c.ConnectTimeout < 0 {
		add("connectTimeout", "must not be negative")
	}
	if c.SearchTimeout < 0 {
		add("searchTimeout", "must not be negative")
	}
	if c.PageSize < 0 || c.PageSize > 1<<31-1 {
		add("pageSize", "must be between 1 and 2147483647 (leave it out for %d)", DefaultPageSize)
	}
}

// validateBind checks the bind method, the bind name and the secrets the
// method needs.
func (c *Config) validateBind(add addFunc) {
	var name bindName
	if c.BindDN != "" {
		var err error
		if name, err = parseBindName(c.BindDN); err != nil {
			add("bindDN", "%q: %v", c.BindDN, err)
		} else if !name.dn && c.Flavor != "" && c.Flavor != FlavorActiveDirectory {
			add("bindDN", "%q: flavor %s binds with a DN; user principal names and DOMAIN\\user are Active Directory's", c.BindDN, c.Flavor)
		}
	}
	switch c.Bind {
	case "", BindSimple:
		if c.Kerberos.isSet() {
			add("bind", "kerberos settings are given: set bind: kerberos (or remove them)")
		}
		if c.BindDN != "" {
			if err := c.Password.Check(); err != nil {
				add("password", "%v", err)
			}
		} else if c.Password.IsSet() {
			add("bindDN", "required when password is set (leave both out to bind anonymously)")
		}
	case BindNTLM:
		if c.BindDN == "" || name.dn {
			add("bindDN", `an NTLM bind names DOMAIN\\user (CORP\\svc-orgsync) or a user principal name`)
		}
		if c.Password.IsSet() == c.NTHash.IsSet() {
			add("password", "an NTLM bind needs exactly one of password and ntHash")
		}
		for field, ref := range map[string]secret.Ref{"password": c.Password, "ntHash": c.NTHash} {
			if ref.IsSet() {
				if err := ref.Check(); err != nil {
					add(field, "%v", err)
				}
			}
		}
	case BindKerberos:
		if c.Password.IsSet() {
			if err := c.Password.Check(); err != nil {
				add("password", "%v", err)
			}
		}
		c.Kerberos.validate(add, name, c.BindDN, c.Password, c.overTLS())
	default:
		add("bind", "%q is not a bind: use simple (the default), kerberos or ntlm", c.Bind)
	}
	if c.NTHash.IsSet() && c.Bind != BindNTLM {
		add("ntHash", "an NT hash is for bind: ntlm")
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// urlKey is the key of the i-th of urls(): url, or urls[n].
func (c *Config) urlKey(i int) string {
	if c.URL != "" && i == 0 {
		return "url"
	}
	return fmt.Sprintf("urls[%d]", i-boolInt(c.URL != ""))
}

// urls returns every server URL, URL first.
// overTLS reports whether every server is reached over TLS (ldaps:// or
// StartTLS).
func (c *Config) overTLS() bool {
	for _, u := range c.urls() {
		if !c.StartTLS && !strings.HasPrefix(strings.ToLower(u), "ldaps://") {
			return false
		}
	}
	return true
}

func (c *Config) urls() []string {
	var out []string
	if c.URL != "" {
		out = append(out, c.URL)
	}
	return append(out, c.URLs...)
}

// checkURL returns what is wrong with a server URL, or "".
func checkURL(raw string, startTLS bool) string {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Sprintf("not a URL: %v", err)
	}
	switch {
	case u.Scheme != "ldap" && u.Scheme != "ldaps":
		return fmt.Sprintf("%q: the scheme must be ldap:// or ldaps://", raw)
	case u.Host == "":
		return fmt.Sprintf("%q has no host", raw)
	case u.Scheme == "ldaps" && startTLS:
		return fmt.Sprintf("%q is ldaps:// (already TLS); startTLS needs ldap://", raw)
	case slices.Contains(PlaceholderHosts, strings.ToLower(u.Hostname())):
		return fmt.Sprintf("%q is the placeholder orgsync init writes: put your directory server's address there", raw)
	}
	return ""
}

func (u *Users) validate(add addFunc, flavor string) {
	checkDN(add, "users.baseDN", u.BaseDN, flavor != FlavorFreeIPA)
	if u.IncludeLocked && (flavor == FlavorOpenLDAP || flavor == FlavorActiveDirectory) {
		add("users.includeLocked", "applies to flavors 389ds and freeipa, which lock accounts with nsAccountLock (Active Directory's default filter leaves disabled accounts out: set users.filter to read them)")
	}
	checkScope(add, "users.scope", u.Scope)
	checkFilter(add, "users.filter", u.Filter)
	spec := u.spec()
	for _, fe := range spec.Validate("users.") {
		add(fe.Field, "%s", fe.Reason)
	}
	for _, fe := range usertmpl.ValidateExtra("users.", u.ExtraAttributes, "department, employeeType") {
		add(fe.Field, "%s", fe.Reason)
	}
}

func (g *Groups) validate(add addFunc) {
	checkDN(add, "groups.baseDN", g.BaseDN, false)
	checkScope(add, "groups.scope", g.Scope)
	checkFilter(add, "groups.filter", g.Filter)
	if g.NameAttribute != "" && !usertmpl.IsAttributeName(g.NameAttribute) {
		add("groups.nameAttribute", "%q is not an attribute name", g.NameAttribute)
	}
	if g.UIDAttribute != "" && !usertmpl.IsAttributeName(g.UIDAttribute) {
		add("groups.uidAttribute", "%q is not an attribute name", g.UIDAttribute)
	}
	for i, m := range g.Membership {
		switch m {
		case MemberDN, UniqueMember, MemberUID, MemberOf, PrimaryGroup:
		default:
			add(fmt.Sprintf("groups.membership[%d]", i), "%q is not a membership mode: use member, uniqueMember, memberUid, memberOf or primaryGroup", m)
		}
	}
}

func checkDN(add addFunc, field, dn string, required bool) {
	if dn == "" {
		if required {
			add(field, "required: the DN to search under, e.g. ou=people,dc=example,dc=com")
		}
		return
	}
	if _, err := ldap3.ParseDN(dn); err != nil {
		add(field, "not a DN: %v", err)
	}
}

func checkScope(add addFunc, field, scope string) {
	if _, ok := scopeOf(scope); !ok {
		add(field, "%q is not a scope: use sub (default), one or base", scope)
	}
}

// scopeOf returns the search scope a configuration word names.
func scopeOf(s string) (int, bool) {
	switch s {
	case "", "sub":
		return ldap3.ScopeWholeSubtree, true
	case "one":
		return ldap3.ScopeSingleLevel, true
	case "base":
		return ldap3.ScopeBaseObject, true
	}
	return 0, false
}

func checkFilter(add addFunc, field, filter string) {
	if filter == "" {
		return
	}
	if _, err := ldap3.CompileFilter(filter); err != nil {
		add(field, "not an LDAP filter (RFC 4515), e.g. (objectClass=person): %v", err)
	}
}
