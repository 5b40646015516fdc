package google

import (
	"fmt"
	"strings"
	"time"

	"github.com/orgsync/orgsync/internal/util/weburl"
	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/diag"
	"github.com/orgsync/orgsync/source/internal/usertmpl"
)

// Defaults of the configuration.
const (
	DefaultAPIURL   = "https://admin.googleapis.com"
	DefaultTokenURL = "https://oauth2.googleapis.com/token"
	DefaultCustomer = "my_customer"
	// DefaultPageSize is users.list's largest maxResults.
	DefaultPageSize = 500
	// groupPageSize is the largest maxResults of groups.list and
	// members.list.
	groupPageSize  = 200
	DefaultTimeout = time.Minute
)

// Scopes are the read-only Directory API scopes the source asks for: the
// ones domain-wide delegation must grant the service account.
var Scopes = []string{
	"https://www.googleapis.com/auth/admin.directory.user.readonly",
	"https://www.googleapis.com/auth/admin.directory.group.readonly",
	"https://www.googleapis.com/auth/admin.directory.group.member.readonly",
}

// Default templates of the user fields (Directory API user fields).
const (
	DefaultEmail     = "{primaryEmail}"
	DefaultFirstName = "{name.givenName}"
	DefaultLastName  = "{name.familyName}"
	DefaultCountry   = "{addresses.countryCode}"
)

// Config is one Google Workspace account, as written under
// sources[i].google.
type Config struct {
	// Credentials is where the service account's JSON key file is (env
	// or file).
	Credentials secret.Ref `yaml:"credentials"`
	// Subject is the administrator the service account acts for
	// (domain-wide delegation).
	Subject string `yaml:"subject"`
	// Customer is the account's customer id (default my_customer, the
	// subject's own); Domain reads one of its domains only.
	Customer string `yaml:"customer,omitempty"`
	Domain   string `yaml:"domain,omitempty"`
	// APIURL and TokenURL are the endpoints (tests); TokenURL defaults to
	// the key file's token_uri.
	APIURL   string        `yaml:"apiURL,omitempty"`
	TokenURL string        `yaml:"tokenURL,omitempty"`
	PageSize int           `yaml:"pageSize,omitempty"` // users a page, default 500
	Timeout  time.Duration `yaml:"timeout,omitempty"`  // per request, default 1m
	Users    Users         `yaml:"users,omitempty"`
	Groups   Groups        `yaml:"groups,omitempty"`
}

// Users says which users are read and how their fields are made from
// their Directory API fields.
type Users struct {
	// Query is a users.list query (e.g. "orgUnitPath='/Staff'").
	Query string `yaml:"query,omitempty"`
	// IncludeSuspended and IncludeArchived keep the suspended and the
	// archived users; they are left out by default.
	IncludeSuspended bool `yaml:"includeSuspended,omitempty"`
	IncludeArchived  bool `yaml:"includeArchived,omitempty"`
	source.Templates `yaml:",inline"`
	source.Defaults  `yaml:",inline"`
	// ExtraAttributes are more user fields for the source's expressions
	// (user.attributes.<name>), custom schema fields as
	// customSchemas.<schema>.<field>.
	ExtraAttributes []string `yaml:"extraAttributes,omitempty"`
}

// Groups says which groups are listed when a pattern rule or expressions
// need them all, and how members are read.
type Groups struct {
	// Query is a groups.list query (e.g. "email:eng*").
	Query string `yaml:"query,omitempty"`
	// Nested reads the members of nested groups too (default true).
	Nested *bool `yaml:"nested,omitempty"`
}

func (u *Users) spec() usertmpl.Spec {
	return usertmpl.Spec{Templates: u.Templates, Defaults: u.Defaults}
}

var defaultTemplates = usertmpl.Spec{Templates: source.Templates{Email: DefaultEmail, FirstName: DefaultFirstName, LastName: DefaultLastName, Country: DefaultCountry}}

// Validate reports every problem of the configuration at once, each named
// by its YAML key path inside the google block.
func (c *Config) Validate() []diag.FieldError {
	var errs []diag.FieldError
	add := func(field, format string, args ...any) {
		errs = append(errs, diag.FieldError{Field: field, Reason: fmt.Sprintf(format, args...)})
	}
	if !c.Credentials.IsSet() {
		add("credentials", "required: where the service account's JSON key file is (file or env)")
	} else if err := c.Credentials.Check(); err != nil {
		add("credentials", "%v", err)
	}
	if name, dom, ok := strings.Cut(c.Subject, "@"); !ok || name == "" || dom == "" {
		add("subject", "required: the email address of the administrator the service account acts for (domain-wide delegation)")
	}
	for _, u := range []struct{ key, val string }{{"apiURL", c.APIURL}, {"tokenURL", c.TokenURL}} {
		if _, err := weburl.Parse(u.val); u.val != "" && err != nil {
			add(u.key, "%v", err)
		}
	}
	if c.PageSize < 0 || c.PageSize > DefaultPageSize {
		add("pageSize", "must be between 1 and %d (leave it out for %d)", DefaultPageSize, DefaultPageSize)
	}
	if c.Timeout < 0 {
		add("timeout", "must not be negative")
	}
	spec := c.Users.spec()
	errs = append(errs, usertmpl.ValidateExtra("users.", c.Users.ExtraAttributes, "orgUnitPath, customSchemas.Employment.costCenter")...)
	return append(errs, spec.Validate("users.")...)
}

func (c *Config) applyDefaults() {
	c.APIURL = strings.TrimRight(c.APIURL, "/")
	if c.APIURL == "" {
		c.APIURL = DefaultAPIURL
	}
	if c.Customer == "" {
		c.Customer = DefaultCustomer
	}
	if c.PageSize == 0 {
		c.PageSize = DefaultPageSize
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
}
