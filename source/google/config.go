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
	DefaultIAMURL   = "https://iamcredentials.googleapis.com"
	// DefaultRateLimit is the most requests a minute the source sends by
	// default: under the Directory API's 2,400 a minute per user.
	DefaultRateLimit = 2200
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
	// Auth is how the source signs in (AuthModes): keyFile (the
	// default), signJwt or adminRole.
	Auth string `yaml:"auth,omitempty"`
	// Credentials is where the credentials file is (env or file):
	// keyFile, the service account's JSON key; signJwt and adminRole, an
	// external account's configuration (workload identity federation),
	// or none for the metadata server.
	Credentials secret.Ref `yaml:"credentials,omitempty"`
	// Subject is the administrator the service account acts for
	// (domain-wide delegation: keyFile and signJwt).
	Subject string `yaml:"subject,omitempty"`
	// ServiceAccount is the service account with domain-wide delegation
	// that signJwt signs as (its email); default the ambient
	// credential's own.
	ServiceAccount string `yaml:"serviceAccount,omitempty"`
	// Customer is the account's customer id (default my_customer, the
	// subject's own); Domain reads one of its domains only.
	Customer string `yaml:"customer,omitempty"`
	Domain   string `yaml:"domain,omitempty"`
	// APIURL, TokenURL, IAMURL and MetadataURL are the endpoints (a
	// proxy, tests); TokenURL defaults to the key file's token_uri. The
	// assertions' audience is Google's token URI wherever they are sent.
	APIURL      string `yaml:"apiURL,omitempty"`
	TokenURL    string `yaml:"tokenURL,omitempty"`
	IAMURL      string `yaml:"iamURL,omitempty"`
	MetadataURL string `yaml:"metadataURL,omitempty"`
	// RateLimit is the most API requests the source sends a minute
	// (DefaultRateLimit, under the Directory API's quota of 2,400 a
	// minute per user, which other tools of the project share).
	RateLimit int `yaml:"rateLimit,omitempty"`
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
	errs = append(errs, c.validateAuth()...)
	if c.RateLimit < 0 {
		add("rateLimit", "must not be negative (leave it out for %d a minute)", DefaultRateLimit)
	}
	errs = append(errs, clouddir.CheckURLs("apiURL", c.APIURL, "tokenURL", c.TokenURL, "iamURL", c.IAMURL, "metadataURL", c.MetadataURL)...)
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
	if c.IAMURL == "" {
		c.IAMURL = DefaultIAMURL
	}
	if c.RateLimit == 0 {
		c.RateLimit = DefaultRateLimit
	}
	c.Requests.SetDefaults(DefaultPageSize)
}
