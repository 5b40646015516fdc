package okta

import (
	"fmt"
	"slices"
	"strings"

	"github.com/orgsync/orgsync/internal/util/weburl"
	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/diag"
	"github.com/orgsync/orgsync/source/internal/clouddir"
	"github.com/orgsync/orgsync/source/internal/restapi"
	"github.com/orgsync/orgsync/source/internal/usertmpl"
)

// Defaults of the configuration.
const (
	// DefaultPageSize is the largest limit of Okta's user listing.
	DefaultPageSize = 200
	// groupPageSize is the limit of group and member listings.
	groupPageSize = 1000
	StatusActive  = "ACTIVE"
)

// DPoPModes are the values of dpop; the first is the default.
var DPoPModes = []string{"auto", "always", "never"}

// DefaultScopes are the OAuth 2.0 scopes asked for with a private key.
var DefaultScopes = []string{"okta.users.read", "okta.groups.read"}

// DefaultStatuses are the user statuses read by default: active people,
// including those in a temporary state (locked out, password expired, in
// password recovery), who must keep their groups.
var DefaultStatuses = []string{StatusActive, "LOCKED_OUT", "PASSWORD_EXPIRED", "RECOVERY"}

// GroupTypes are Okta's group types; DefaultGroupTypes those listed by
// default when every group is read: BUILT_IN (Everyone) and APP_GROUP
// (imported from an app) are not the organization's own groups.
var (
	GroupTypes        = []string{"OKTA_GROUP", "APP_GROUP", "BUILT_IN"}
	DefaultGroupTypes = []string{"OKTA_GROUP"}
)

// Statuses are Okta's user statuses.
var Statuses = []string{"STAGED", "PROVISIONED", StatusActive, "RECOVERY", "PASSWORD_EXPIRED", "LOCKED_OUT", "SUSPENDED", "DEPROVISIONED"}

// Default templates of the user fields (Okta profile attributes).
const (
	DefaultEmail     = "{email}"
	DefaultFirstName = "{firstName}"
	DefaultLastName  = "{lastName}"
	DefaultCountry   = "{countryCode}"
)

// Config is one Okta organization, as written under sources[i].okta.
type Config struct {
	// OrgURL is the organization's URL, e.g. https://example.okta.com.
	OrgURL string `yaml:"orgURL"`
	// APIToken is where an API token is (env or file): sent as
	// "Authorization: SSWS <token>".
	APIToken secret.Ref `yaml:"apiToken,omitempty"`
	// ClientID and PrivateKey are an API service app signing in with
	// OAuth 2.0 (private_key_jwt); KeyID is the key's kid in the app's
	// JWKS, when it has several; Scopes default to DefaultScopes.
	ClientID   string     `yaml:"clientId,omitempty"`
	PrivateKey secret.Ref `yaml:"privateKey,omitempty"`
	KeyID      string     `yaml:"keyId,omitempty"`
	Scopes     []string   `yaml:"scopes,omitempty"`
	// DPoP says when the sign-in with a private key proves possession of
	// an ephemeral key (RFC 9449), as service apps that require DPoP
	// want: auto (default: once the token endpoint asks), always, never.
	DPoP string `yaml:"dpop,omitempty"`
	// Requests: pageSize (users a page, default 200) and timeout.
	clouddir.Requests `yaml:",inline"`
	Users             Users  `yaml:"users,omitempty"`
	Groups            Groups `yaml:"groups,omitempty"`
}

// Users says which users are read and how their fields are made from
// their profile attributes.
type Users struct {
	// Statuses are the user statuses read (default DefaultStatuses).
	Statuses []string `yaml:"statuses,omitempty"`
	// Search is an Okta search expression that users must also match,
	// e.g. profile.department eq "Engineering".
	Search string `yaml:"search,omitempty"`
	// UserFields are the templates of the user fields (profile
	// attributes), their defaults and extraAttributes.
	clouddir.UserFields `yaml:",inline"`
}

// Groups says which groups are listed when a pattern rule or an
// expression needs them all.
type Groups struct {
	// Search is an Okta search expression on groups, e.g.
	// profile.name sw "eng-".
	Search string `yaml:"search,omitempty"`
	// Types are the group types listed (default DefaultGroupTypes); a
	// group named by an exact rule is read whatever its type.
	Types []string `yaml:"types,omitempty"`
}

var defaultTemplates = usertmpl.Spec{Templates: source.Templates{Email: DefaultEmail, FirstName: DefaultFirstName, LastName: DefaultLastName, Country: DefaultCountry}}

// Validate reports every problem of the configuration at once, each named
// by its YAML key path inside the okta block.
func (c *Config) Validate() []diag.FieldError {
	var errs []diag.FieldError
	add := func(field, format string, args ...any) {
		errs = append(errs, diag.FieldError{Field: field, Reason: fmt.Sprintf(format, args...)})
	}
	if _, err := weburl.Parse(c.OrgURL); err != nil {
		add("orgURL", "required: the organization's URL, e.g. https://example.okta.com")
	}
	switch {
	case c.APIToken.IsSet() && (c.ClientID != "" || c.PrivateKey.IsSet()):
		add("apiToken", "set apiToken, or clientId with privateKey, not both")
	case c.APIToken.IsSet():
		if err := c.APIToken.Check(); err != nil {
			add("apiToken", "%v", err)
		}
	case c.ClientID == "" && !c.PrivateKey.IsSet():
		add("apiToken", "required: set apiToken (env or file), or clientId and privateKey of an API service app")
	case c.ClientID == "":
		add("clientId", "required with privateKey: the API service app's client id")
	default:
		if err := c.PrivateKey.Check(); err != nil {
			add("privateKey", "%v", err)
		}
	}
	switch {
	case c.DPoP == "":
	case c.APIToken.IsSet():
		add("dpop", "applies to clientId and privateKey only: an API token is not bound to a key")
	case !slices.Contains(DPoPModes, c.DPoP):
		add("dpop", "%q is not a DPoP mode: use %s", c.DPoP, strings.Join(DPoPModes, ", "))
	}
	errs = append(errs, c.Requests.Validate(DefaultPageSize)...)
	if restapi.UsesOperator(c.Users.Search, "ne") {
		add("users.search", "Okta refuses the ne operator in a user search: use eq, sw, gt, lt (or pr) with and/or, e.g. status eq \"ACTIVE\" instead of status ne \"SUSPENDED\"")
	}
	for i, t := range c.Groups.Types {
		if !slices.Contains(GroupTypes, strings.ToUpper(t)) {
			add(fmt.Sprintf("groups.types[%d]", i), "%q is not a group type: use %s", t, strings.Join(GroupTypes, ", "))
		}
	}
	for i, s := range c.Users.Statuses {
		if !slices.Contains(Statuses, strings.ToUpper(s)) {
			add(fmt.Sprintf("users.statuses[%d]", i), "%q is not a user status: use %s", s, strings.Join(Statuses, ", "))
		}
	}
	return append(errs, c.Users.Validate("department, costCenter, employeeNumber")...)
}

func (c *Config) applyDefaults() {
	c.OrgURL = strings.TrimRight(c.OrgURL, "/")
	c.Requests.SetDefaults(DefaultPageSize)
	if len(c.Scopes) == 0 {
		c.Scopes = DefaultScopes
	}
	if c.DPoP == "" {
		c.DPoP = DPoPModes[0]
	}
	if len(c.Users.Statuses) == 0 {
		c.Users.Statuses = DefaultStatuses
	}
	if len(c.Groups.Types) == 0 {
		c.Groups.Types = DefaultGroupTypes
	}
}
