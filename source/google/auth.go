package google

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/orgsync/orgsync/source/diag"
)

// The sign-in modes: the values of auth.
const (
	// AuthKeyFile is domain-wide delegation with a service account's
	// JSON key file (credentials and subject).
	AuthKeyFile = "keyFile"
	// AuthSignJwt is domain-wide delegation without a key: the assertion
	// signed by IAM Credentials (subject; credentials an external
	// account, or the metadata server).
	AuthSignJwt = "signJwt"
	// AuthAdminRole is a service account with an admin role, without
	// delegation (customer; credentials an external account or a key,
	// or the metadata server).
	AuthAdminRole = "adminRole"
)

// AuthModes are the sign-in modes, in the order messages list them.
var AuthModes = []string{AuthKeyFile, AuthSignJwt, AuthAdminRole}

// CloudPlatformScope is the scope the ambient credential needs to call
// IAM Credentials.
const CloudPlatformScope = "https://www.googleapis.com/auth/cloud-platform"

// customerID is a Workspace customer's ID (Admin console > Account >
// Account settings: "C" and letters and digits).
var customerID = regexp.MustCompile(`^C[0-9A-Za-z]{4,}$`)

// mode returns the sign-in mode.
func (c *Config) mode() string {
	if c.Auth == "" {
		return AuthKeyFile
	}
	return c.Auth
}

// validateAuth reports the problems of the sign-in: the mode, the keys
// it needs and those it does not read.
func (c *Config) validateAuth() []diag.FieldError {
	var errs []diag.FieldError
	add := func(field, format string, args ...any) {
		errs = append(errs, diag.FieldError{Field: field, Reason: fmt.Sprintf(format, args...)})
	}
	mode := c.mode()
	if !slices.Contains(AuthModes, mode) {
		add("auth", "%q is not a sign-in mode: use keyFile (a JSON key with domain-wide delegation), signJwt (delegation without a key) or adminRole (a service account with an admin role)", c.Auth)
		return errs
	}
	if c.Credentials.IsSet() {
		if err := c.Credentials.Check(); err != nil {
			add("credentials", "%v", err)
		}
	} else if mode == AuthKeyFile {
		add("credentials", "required with auth: keyFile: where the service account's JSON key file is (file or env); "+
			"where the organization forbids keys (iam.disableServiceAccountKeyCreation), use auth: signJwt or adminRole")
	}
	delegated := mode != AuthAdminRole
	switch name, dom, ok := strings.Cut(c.Subject, "@"); {
	case delegated && (!ok || name == "" || dom == ""):
		add("subject", "required with auth: %s: the email address of the administrator the service account acts for (domain-wide delegation)", mode)
	case !delegated && c.Subject != "":
		add("subject", "auth: adminRole acts for no one (no delegation): remove subject")
	}
	switch {
	case c.ServiceAccount != "" && mode != AuthSignJwt:
		add("serviceAccount", "belongs to auth: signJwt (the service account it signs as): remove it")
	case c.ServiceAccount != "" && !strings.HasSuffix(c.ServiceAccount, ".gserviceaccount.com"):
		add("serviceAccount", "%q is not a service account's email (name@project.iam.gserviceaccount.com)", c.ServiceAccount)
	}
	if !delegated && !customerID.MatchString(c.Customer) {
		add("customer", "required with auth: adminRole: the account's customer ID (Admin console > Account > Account settings, e.g. C01234abc); "+
			"my_customer names the impersonated administrator's account, and a service account acting as itself has none")
	}
	return errs
}
