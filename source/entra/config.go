package entra

import (
	"cmp"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/orgsync/orgsync/internal/util/weburl"
	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/diag"
	"github.com/orgsync/orgsync/source/internal/clouddir"
	"github.com/orgsync/orgsync/source/internal/usertmpl"
)

// Defaults of the configuration.
const (
	DefaultLoginURL = "https://login.microsoftonline.com"
	DefaultGraphURL = "https://graph.microsoft.com"
	// DefaultPageSize is Microsoft Graph's largest $top for users and groups.
	DefaultPageSize = 999
	// DefaultMailFallback is the property read as mail when a user has no
	// mailbox; NoMailFallback turns the fallback off.
	DefaultMailFallback = "userPrincipalName"
	NoMailFallback      = "none"
)

// singleUserProperties are the user properties Microsoft Graph returns
// only when one user is read: a listing whose $select names one fails
// with 400.
var singleUserProperties = []string{"aboutMe", "birthday", "hireDate", "interests", "mailboxSettings", "mySite",
	"pastProjects", "preferredName", "responsibilities", "schools", "skills"}

// Default templates of the user fields (Microsoft Graph user properties).
const (
	DefaultEmail     = "{mail}"
	DefaultFirstName = "{givenName}"
	DefaultLastName  = "{surname}"
	DefaultCountry   = "{usageLocation}"
)

// Config is one Entra ID tenant, as written under sources[i].entra.
type Config struct {
	// TenantID is the directory (tenant) id or one of its domains
	// (workloadIdentity: default $AZURE_TENANT_ID).
	TenantID string `yaml:"tenantId"`
	// ClientID is the application (client) id of the app registration
	// (workloadIdentity: default $AZURE_CLIENT_ID), or the client id of a
	// user-assigned managed identity (managedIdentity; none: the
	// system-assigned identity).
	ClientID string `yaml:"clientId"`
	// Auth is how the source signs in (AuthModes); default the
	// credential set: clientSecret or certificate.
	Auth string `yaml:"auth,omitempty"`
	// ClientSecret is where the app's client secret is (env or file).
	ClientSecret secret.Ref `yaml:"clientSecret,omitempty"`
	// Certificate is where the app's certificate is (PEM); its private key
	// is in PrivateKey, or in the same PEM when PrivateKey is not set.
	Certificate secret.Ref `yaml:"certificate,omitempty"`
	PrivateKey  secret.Ref `yaml:"privateKey,omitempty"`
	// FederatedTokenFile is the file whose token the app's federated
	// credential trusts (workloadIdentity; default
	// $AZURE_FEDERATED_TOKEN_FILE, which AKS sets): read anew for each
	// token request, as it rotates.
	FederatedTokenFile string `yaml:"federatedTokenFile,omitempty"`
	// IdentityEndpoint is the managed identity's token endpoint
	// (managedIdentity; default $IDENTITY_ENDPOINT with $IDENTITY_HEADER
	// on App Service and Container Apps, else the instance metadata
	// service, DefaultIMDS).
	IdentityEndpoint string `yaml:"identityEndpoint,omitempty"`
	// LoginURL and GraphURL are the endpoints (national clouds, tests).
	// LoginURL defaults to $AZURE_AUTHORITY_HOST (which AKS workload
	// identity sets), else Microsoft's global cloud; GraphURL to the
	// Graph of a national cloud that LoginURL names, else the global one.
	LoginURL string `yaml:"loginURL,omitempty"`
	GraphURL string `yaml:"graphURL,omitempty"`
	// Requests: pageSize ($top, default 999) and timeout.
	clouddir.Requests `yaml:",inline"`
	Users             Users  `yaml:"users,omitempty"`
	Groups            Groups `yaml:"groups,omitempty"`
}

// Users says which users are read and how their fields are made from
// their Microsoft Graph properties.
type Users struct {
	// Filter is an OData $filter on users (e.g. "department eq 'Sales'"),
	// sent as an advanced query ($count=true, ConsistencyLevel: eventual).
	Filter string `yaml:"filter,omitempty"`
	// IncludeDisabled keeps the accounts whose accountEnabled is false;
	// they are left out by default.
	IncludeDisabled bool `yaml:"includeDisabled,omitempty"`
	// IncludeGuests keeps the guests (userType Guest, invited from other
	// tenants, user principal names with #EXT#); they are left out by
	// default.
	IncludeGuests bool `yaml:"includeGuests,omitempty"`
	// MailFallback is the property read as mail for a user without a
	// mailbox (mail null): DefaultMailFallback unless set; "none" reads
	// no other property.
	MailFallback string `yaml:"mailFallback,omitempty"`
	// UserFields are the templates of the user fields (Graph user
	// properties), their defaults and extraAttributes (more properties
	// to $select).
	clouddir.UserFields `yaml:",inline"`
}

// Groups says which groups are read and how membership is resolved.
type Groups struct {
	// Filter is an OData $filter on groups, used when a pattern rule makes
	// the source list the groups (e.g. "startswith(displayName,'app-')").
	Filter string `yaml:"filter,omitempty"`
	// Nested counts the members of nested groups (transitiveMembers,
	// the default); false counts direct members only.
	Nested *bool `yaml:"nested,omitempty"`
}

var defaultTemplates = usertmpl.Spec{Templates: source.Templates{Email: DefaultEmail, FirstName: DefaultFirstName, LastName: DefaultLastName, Country: DefaultCountry}}

// tenantPattern accepts a GUID or a domain name.
var tenantPattern = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$`)

// Validate reports every problem of the configuration at once, each named
// by its YAML key path inside the entra block.
func (c *Config) Validate() []diag.FieldError {
	var errs []diag.FieldError
	add := func(field, format string, args ...any) {
		errs = append(errs, diag.FieldError{Field: field, Reason: fmt.Sprintf(format, args...)})
	}
	errs = append(errs, c.validateCredential()...)
	errs = append(errs, clouddir.CheckURLs("loginURL", c.LoginURL, "graphURL", c.GraphURL, "identityEndpoint", c.IdentityEndpoint)...)
	if h := os.Getenv(EnvAuthorityHost); c.LoginURL == "" && h != "" {
		if _, err := weburl.Parse(h); err != nil {
			add("loginURL", "not set, so %s is the login URL, and %v: fix the variable, or set loginURL", EnvAuthorityHost, err)
		}
	}
	errs = append(errs, c.Requests.Validate(DefaultPageSize)...)
	if f := c.Users.MailFallback; f != "" && f != NoMailFallback && !usertmpl.IsAttributeName(f) {
		add("users.mailFallback", "%q is not a property name: use a user property such as userPrincipalName, or none", f)
	}
	errs = append(errs, c.Users.Validate("department, employeeType, onPremisesExtensionAttributes.extensionAttribute1")...)
	return append(errs, c.unlistable()...)
}

// unlistable reports the properties named by the templates, the extra
// attributes and mailFallback that Graph does not return in a user
// listing (the whole read would fail with 400).
func (c *Config) unlistable() []diag.FieldError {
	var errs []diag.FieldError
	check := func(key, attr string) {
		top, _, _ := strings.Cut(attr, ".")
		if i := slices.IndexFunc(singleUserProperties, func(p string) bool { return strings.EqualFold(p, top) }); i >= 0 {
			errs = append(errs, diag.FieldError{Field: key, Reason: fmt.Sprintf(
				"Microsoft Graph returns %s only when one user is read, and fails a user listing that selects it (400): use another property", singleUserProperties[i])})
		}
	}
	spec := c.Users.Spec()
	spec.EachAttribute("users.", check)
	for i, a := range c.Users.ExtraAttributes {
		check(fmt.Sprintf("users.extraAttributes[%d]", i), a)
	}
	check("users.mailFallback", c.Users.MailFallback)
	return errs
}

// applyDefaults fills in the defaults.
func (c *Config) applyDefaults() {
	c.fromEnvironment()
	if c.LoginURL == "" {
		c.LoginURL = cmp.Or(strings.TrimRight(os.Getenv(EnvAuthorityHost), "/"), DefaultLoginURL)
	}
	if c.GraphURL == "" {
		c.GraphURL = DefaultGraphURL
		if u, err := weburl.Parse(c.LoginURL); err == nil && nationalGraph[strings.ToLower(u.Hostname())] != "" {
			c.GraphURL = nationalGraph[strings.ToLower(u.Hostname())]
		}
	}
	c.Requests.SetDefaults(DefaultPageSize)
	if c.Users.MailFallback == "" {
		c.Users.MailFallback = DefaultMailFallback
	}
}
