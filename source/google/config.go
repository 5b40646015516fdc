package google

import (
	"fmt"
	"strings"

	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/diag"
	"github.com/orgsync/orgsync/source/internal/clouddir"
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
	groupPageSize = 200
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
	APIURL   string `yaml:"apiURL,omitempty"`
	TokenURL string `yaml:"tokenURL,omitempty"`
	// Requests: pageSize (users a page, default 500) and timeout.
	clouddir.Requests `yaml:",inline"`
	Users             Users  `yaml:"users,omitempty"`
	Groups            Groups `yaml:"groups,omitempty"`
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
	// UserFields are the templates of the user fields (Directory API
	// user fields), their defaults and extraAttributes (custom schema
	// fields as customSchemas.<schema>.<field>).
	clouddir.UserFields `yaml:",inline"`
}

// Groups says which groups are listed when a pattern rule or expressions
// need them all, and how members are read.
type Groups struct {
	// Query is a groups.list query (e.g. "email:eng*").
	Query string `yaml:"query,omitempty"`
	// Nested reads the members of nested groups too (default true).
	Nested *bool `yaml:"nested,omitempty"`
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
	errs = append(errs, clouddir.CheckURLs("apiURL", c.APIURL, "tokenURL", c.TokenURL)...)
	errs = append(errs, c.Requests.Validate(DefaultPageSize)...)
	return append(errs, c.Users.Validate("orgUnitPath, customSchemas.Employment.costCenter")...)
}

func (c *Config) applyDefaults() {
	c.APIURL = strings.TrimRight(c.APIURL, "/")
	if c.APIURL == "" {
		c.APIURL = DefaultAPIURL
	}
	if c.Customer == "" {
		c.Customer = DefaultCustomer
	}
	c.Requests.SetDefaults(DefaultPageSize)
}
