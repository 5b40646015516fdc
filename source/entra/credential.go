package entra

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/orgsync/orgsync/source/diag"
)

// The sign-in modes: the values of auth.
const (
	AuthClientSecret     = "clientSecret"
	AuthCertificate      = "certificate"
	AuthWorkloadIdentity = "workloadIdentity"
	AuthManagedIdentity  = "managedIdentity"
)

// AuthModes are the sign-in modes, in the order messages list them.
var AuthModes = []string{AuthClientSecret, AuthCertificate, AuthWorkloadIdentity, AuthManagedIdentity}

// The environment that AKS workload identity sets on a pod (and
// azidentity reads), and that App Service and Container Apps set for
// their managed identity endpoint.
const (
	EnvTenantID           = "AZURE_TENANT_ID"
	EnvClientID           = "AZURE_CLIENT_ID"
	EnvFederatedTokenFile = "AZURE_FEDERATED_TOKEN_FILE"
	EnvIdentityEndpoint   = "IDENTITY_ENDPOINT"
	EnvIdentityHeader     = "IDENTITY_HEADER"
	// EnvAuthorityHost is the Microsoft identity platform's host of the
	// cloud (AKS workload identity sets it; azidentity reads it): the
	// default of loginURL.
	EnvAuthorityHost = "AZURE_AUTHORITY_HOST"
)

// nationalGraph is Microsoft Graph's root in the national clouds, by
// the host of their identity platform: graphURL's default when loginURL
// (or AZURE_AUTHORITY_HOST) names one.
var nationalGraph = map[string]string{
	"login.microsoftonline.us": "https://graph.microsoft.us",
	"login.chinacloudapi.cn":   "https://microsoftgraph.chinacloudapi.cn",
}

// DefaultIMDS is the token endpoint of Azure's instance metadata service
// (virtual machines, scale sets, AKS nodes).
const DefaultIMDS = "http://169.254.169.254/metadata/identity/oauth2/token"

// modeKeys are the credential keys each mode reads; a key of another
// mode is refused.
var modeKeys = map[string][]string{
	AuthClientSecret:     {"clientSecret"},
	AuthCertificate:      {"certificate", "privateKey"},
	AuthWorkloadIdentity: {"federatedTokenFile"},
	AuthManagedIdentity:  {"identityEndpoint"},
}

// mode returns the sign-in mode: auth, else the credential set.
func (c *Config) mode() string {
	switch {
	case c.Auth != "":
		return c.Auth
	case c.ClientSecret.IsSet() && !c.Certificate.IsSet():
		return AuthClientSecret
	case c.Certificate.IsSet() && !c.ClientSecret.IsSet():
		return AuthCertificate
	}
	return ""
}

// set reports whether the credential key is set.
func (c *Config) set(key string) bool {
	switch key {
	case "clientSecret":
		return c.ClientSecret.IsSet()
	case "certificate":
		return c.Certificate.IsSet()
	case "privateKey":
		return c.PrivateKey.IsSet()
	case "federatedTokenFile":
		return c.FederatedTokenFile != ""
	}
	return c.IdentityEndpoint != ""
}

// validateCredential reports the problems of the sign-in: the mode, the
// keys it needs, and the keys of other modes.
func (c *Config) validateCredential() []diag.FieldError {
	var errs []diag.FieldError
	add := func(field, format string, args ...any) {
		errs = append(errs, diag.FieldError{Field: field, Reason: fmt.Sprintf(format, args...)})
	}
	mode := c.mode()
	c.validateIDs(mode, add)
	switch {
	case c.Auth != "" && !slices.Contains(AuthModes, c.Auth):
		add("auth", "%q is not a sign-in mode: use %s", c.Auth, strings.Join(AuthModes, ", "))
		return errs
	case c.ClientSecret.IsSet() && c.Certificate.IsSet() && c.Auth == "":
		add("clientSecret", "set clientSecret or certificate, not both (or say which with auth)")
		return errs
	case mode == "":
		add("clientSecret", "required: set clientSecret (env or file) or certificate (a PEM file with the app's certificate), "+
			"or sign in without a secret with auth: workloadIdentity (AKS, federated token file) or auth: managedIdentity (Azure VM, App Service, Container Apps)")
		return errs
	}
	for _, m := range AuthModes {
		for _, key := range modeKeys[m] {
			if m != mode && c.set(key) {
				add(key, "belongs to auth: %s, not %s: remove it", m, mode)
			}
		}
	}
	switch mode {
	case AuthClientSecret:
		check(add, "clientSecret", c.ClientSecret.IsSet(), c.ClientSecret.Check, "required with auth: clientSecret (env or file)")
	case AuthCertificate:
		check(add, "certificate", c.Certificate.IsSet(), c.Certificate.Check, "required with auth: certificate (a PEM file with the app's certificate)")
		if c.PrivateKey.IsSet() {
			check(add, "privateKey", true, c.PrivateKey.Check, "")
		}
	case AuthWorkloadIdentity:
		if c.FederatedTokenFile == "" && os.Getenv(EnvFederatedTokenFile) == "" {
			add("federatedTokenFile", "required with auth: workloadIdentity: the file of the federated token "+
				"(AKS sets %s on pods whose service account is annotated with the client id and labelled azure.workload.identity/use)", EnvFederatedTokenFile)
		}
	}
	return errs
}

// check adds the problem of a secret key: unset (missing, when it is
// required) or not readable.
func check(add func(field, format string, args ...any), key string, isSet bool, fn func() error, missing string) {
	if !isSet {
		add(key, "%s", missing)
		return
	}
	if err := fn(); err != nil {
		add(key, "%v", err)
	}
}

// validateIDs checks tenantId and clientId as mode needs them: from the
// environment too for workload identity; a managed identity needs neither
// (clientId names a user-assigned one).
func (c *Config) validateIDs(mode string, add func(field, format string, args ...any)) {
	tenant, client := c.TenantID, c.ClientID
	env := ""
	if mode == AuthWorkloadIdentity {
		tenant, client = cmp.Or(tenant, os.Getenv(EnvTenantID)), cmp.Or(client, os.Getenv(EnvClientID))
		env = " (or " + EnvTenantID + " in the environment, as AKS workload identity sets)"
	}
	switch {
	case tenant == "" && mode != AuthManagedIdentity:
		add("tenantId", "required: the directory (tenant) id, e.g. 00000000-0000-0000-0000-000000000000, or a domain of the tenant%s", env)
	case tenant != "" && !tenantPattern.MatchString(tenant):
		add("tenantId", "%q is neither a tenant id nor a domain", tenant)
	}
	if client == "" && mode != AuthManagedIdentity {
		add("clientId", "required: the application (client) id of the app registration%s", strings.ReplaceAll(env, EnvTenantID, EnvClientID))
	}
}

// fromEnvironment fills in, for workload identity, the tenant, the client
// and the token file that the pod's environment names.
func (c *Config) fromEnvironment() {
	if c.mode() != AuthWorkloadIdentity {
		return
	}
	c.TenantID = cmp.Or(c.TenantID, os.Getenv(EnvTenantID))
	c.ClientID = cmp.Or(c.ClientID, os.Getenv(EnvClientID))
	c.FederatedTokenFile = cmp.Or(c.FederatedTokenFile, os.Getenv(EnvFederatedTokenFile))
}
