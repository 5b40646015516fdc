package umapi

import (
	"crypto/rsa"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/orgsync/orgsync/internal/util/weburl"
	"github.com/orgsync/orgsync/target/umwire"
)

// Authentication methods of Config.AuthMethod.
const (
	AuthJWT   = "jwt"   // JWT exchange signed with the integration's private key
	AuthOAuth = "oauth" // OAuth client credentials
)

// Defaults applied by New to zero fields of Config.
const (
	DefaultReadLimit      = 25          // requests per window, endpoints 1-3, per access token
	DefaultAppLimit       = 100         // requests per window, whole application
	DefaultLimitWindow    = time.Minute // the specification's limits are per minute
	DefaultRateMargin     = 0.03        // requests are spaced 3% wider than the limit allows
	DefaultTimeout        = 2 * time.Minute
	DefaultMaxRetries     = 8
	DefaultRetryWaitMin   = time.Second
	DefaultRetryWaitMax   = time.Minute
	DefaultRefreshMargin  = 5 * time.Minute
	DefaultJWTLifetime    = 10 * time.Minute
	DefaultScope          = "openid,VendorID,user_management_sdk"
	DefaultReadAhead      = 4
	DefaultInvitesPerCall = umwire.MaxInvitesPerCall
)

// Config configures a Client. Its plain fields map one to one to YAML; the
// two secrets (ClientSecret and PrivateKeyPEM) are never read from YAML by
// this package: the caller loads them (from an environment variable or a
// file) and sets them. Every printed form of a Config redacts them.
type Config struct {
	// BaseURL is the service's base address, e.g. https://um.example.com;
	// the endpoints are under {BaseURL}/v2/usermanagement.
	BaseURL string `yaml:"baseURL" json:"baseURL"`
	// AuthBaseURL is the authorization server's base address (contract 1);
	// it also forms the JWT's audience and meta-scope claim.
	AuthBaseURL string `yaml:"authBaseURL" json:"authBaseURL"`
	// OrgID is the organization id, "<hex>@VendorOrg".
	OrgID string `yaml:"orgID" json:"orgID"`
	// ClientID is the integration's client id, sent as X-Api-Key.
	ClientID string `yaml:"clientID" json:"clientID"`
	// AuthMethod is AuthJWT or AuthOAuth; empty means AuthJWT when
	// PrivateKeyPEM is set and AuthOAuth otherwise.
	AuthMethod string `yaml:"authMethod,omitempty" json:"authMethod,omitempty"`
	// TechAccountID is the technical account id, the JWT's subject.
	TechAccountID string `yaml:"techAccountID,omitempty" json:"techAccountID,omitempty"`
	// Scope is the OAuth scope (comma-separated); default DefaultScope.
	Scope string `yaml:"scope,omitempty" json:"scope,omitempty"`

	// ClientSecret is the integration's client secret (secret).
	ClientSecret string `yaml:"-" json:"-"`
	// PrivateKeyPEM is the integration's RSA private key in PEM, PKCS#1 or
	// PKCS#8, or encrypted PKCS#8 (secret); needed for AuthJWT.
	PrivateKeyPEM string `yaml:"-" json:"-"`
	// PrivateKeyPassphrase decrypts an encrypted PKCS#8 PrivateKeyPEM
	// (secret).
	PrivateKeyPassphrase string `yaml:"-" json:"-"`

	// Timeout bounds one HTTP attempt (connect, send, headers, body).
	Timeout time.Duration `yaml:"timeout,omitempty" json:"timeout,omitempty"`
	// ProxyURL is the HTTP(S) proxy; empty means HTTPS_PROXY/HTTP_PROXY/NO_PROXY.
	ProxyURL string `yaml:"proxyURL,omitempty" json:"proxyURL,omitempty"`
	// CAFile is a PEM bundle of extra root certificates to trust.
	CAFile string `yaml:"caFile,omitempty" json:"caFile,omitempty"`
	// InsecureSkipVerify turns TLS certificate verification off. Never use
	// it outside a test installation.
	InsecureSkipVerify bool `yaml:"insecureSkipVerify,omitempty" json:"insecureSkipVerify,omitempty"`

	// ReadLimit is the number of requests to endpoints 1-3 allowed per
	// LimitWindow for one access token; default 25.
	ReadLimit int `yaml:"readLimit,omitempty" json:"readLimit,omitempty"`
	// AppLimit is the number of requests allowed per LimitWindow for the
	// whole application; default 100.
	AppLimit int `yaml:"appLimit,omitempty" json:"appLimit,omitempty"`
	// LimitWindow is the length of the server's sliding window; default 1m.
	LimitWindow time.Duration `yaml:"limitWindow,omitempty" json:"limitWindow,omitempty"`
	// RateMargin holds a long run of requests this fraction below the
	// limits' rate (a window's allowance may still go at once; the
	// sliding-window guard rules out a 429 either way); default 0.03. A
	// negative value means no margin.
	RateMargin float64 `yaml:"rateMargin,omitempty" json:"rateMargin,omitempty"`

	// ReadAhead is the number of listing pages requested ahead of the one
	// being handed over (they still wait on the rate limiters), so that
	// slow answers do not leave the limit unused; default 4. A negative
	// value reads one page at a time.
	ReadAhead int `yaml:"readAhead,omitempty" json:"readAhead,omitempty"`

	// InvitesPerCall is the most invites the service answers per call
	// (200); a call answering fewer ends the invite listing without asking
	// for more. Lower it if the service lowers its maximum.
	InvitesPerCall int `yaml:"invitesPerCall,omitempty" json:"invitesPerCall,omitempty"`

	// MaxRetries bounds the retries of one request; default 8. A negative
	// value means no retries.
	MaxRetries int `yaml:"maxRetries,omitempty" json:"maxRetries,omitempty"`
	// RetryWaitMin and RetryWaitMax bound the exponential back-off.
	RetryWaitMin time.Duration `yaml:"retryWaitMin,omitempty" json:"retryWaitMin,omitempty"`
	RetryWaitMax time.Duration `yaml:"retryWaitMax,omitempty" json:"retryWaitMax,omitempty"`
	// TokenRefreshMargin: a token is refreshed this long before it expires
	// (at most a tenth of its lifetime); default 5m.
	TokenRefreshMargin time.Duration `yaml:"tokenRefreshMargin,omitempty" json:"tokenRefreshMargin,omitempty"`
	// UsertypeUnknown sends X-UMAPI-Usertype-Unknown: true, allowing the
	// service to return type "unknown".
	UsertypeUnknown bool `yaml:"usertypeUnknown,omitempty" json:"usertypeUnknown,omitempty"`
}

// String describes the configuration without its secrets.
func (c Config) String() string {
	return fmt.Sprintf("umapi.Config{BaseURL:%q AuthBaseURL:%q OrgID:%q ClientID:%q AuthMethod:%q ClientSecret:%s PrivateKeyPEM:%s PrivateKeyPassphrase:%s}",
		c.BaseURL, c.AuthBaseURL, c.OrgID, c.ClientID, c.AuthMethod, redact(c.ClientSecret), redact(c.PrivateKeyPEM), redact(c.PrivateKeyPassphrase))
}

// GoString is String, so that %#v redacts the secrets too.
func (c Config) GoString() string { return c.String() }

// redact stands in for a secret in printed forms: whether it is set,
// never its value.
func redact(s string) string {
	if s == "" {
		return "[unset]"
	}
	return "[redacted]"
}

// withDefaults returns c with zero fields set to their defaults.
func (c Config) withDefaults() Config {
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	c.AuthBaseURL = strings.TrimRight(c.AuthBaseURL, "/")
	if c.AuthMethod == "" {
		c.AuthMethod = AuthOAuth
		if c.PrivateKeyPEM != "" {
			c.AuthMethod = AuthJWT
		}
	}
	setDefault(&c.Scope, DefaultScope)
	setDefault(&c.Timeout, DefaultTimeout)
	setDefault(&c.ReadLimit, DefaultReadLimit)
	setDefault(&c.AppLimit, DefaultAppLimit)
	setDefault(&c.LimitWindow, DefaultLimitWindow)
	setDefault(&c.RateMargin, DefaultRateMargin)
	setDefault(&c.MaxRetries, DefaultMaxRetries)
	setDefault(&c.ReadAhead, DefaultReadAhead)
	setDefault(&c.InvitesPerCall, DefaultInvitesPerCall)
	setDefault(&c.RetryWaitMin, DefaultRetryWaitMin)
	setDefault(&c.RetryWaitMax, DefaultRetryWaitMax)
	setDefault(&c.TokenRefreshMargin, DefaultRefreshMargin)
	c.RateMargin = max(c.RateMargin, 0)
	c.MaxRetries = max(c.MaxRetries, 0)
	c.ReadAhead = max(c.ReadAhead, 0)
	return c
}

// setDefault sets *field to def when it is the zero value.
func setDefault[T comparable](field *T, def T) {
	var zero T
	if *field == zero {
		*field = def
	}
}

// FieldError is a problem of one field of a Config, named by the field's
// YAML name ("baseURL", "privateKey"); the caller, which knows where the
// field is in its own configuration, can name it there.
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Err.Error() }

// Unwrap returns the problem.
func (e *FieldError) Unwrap() error { return e.Err }

// ConfigError is every problem New (or Config.Check) found in a Config.
type ConfigError struct{ Problems []*FieldError }

func (e *ConfigError) Error() string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.Error()
	}
	return strings.Join(msgs, "; ")
}

// Check reports every problem of c that New would refuse, as a
// *ConfigError, without sending anything: required fields, addresses,
// bounds, the private key (parsed and, when encrypted, decrypted) and the
// CA file.
func (c Config) Check() error {
	_, _, err := c.withDefaults().build()
	return err
}

// build checks a defaulted configuration and returns its private key (for
// AuthJWT) and HTTP transport; the error is a *ConfigError.
func (c Config) build() (*rsa.PrivateKey, *http.Transport, error) {
	var problems []*FieldError
	bad := func(field string, err error) { problems = append(problems, &FieldError{Field: field, Err: err}) }
	c.validate(bad)
	var key *rsa.PrivateKey
	if c.AuthMethod == AuthJWT && c.PrivateKeyPEM != "" {
		k, err := parsePrivateKey(c.PrivateKeyPEM, c.PrivateKeyPassphrase)
		if err != nil {
			bad("privateKey", err)
		}
		key = k
	}
	tr, err := baseTransport(c)
	var fe *FieldError
	if errors.As(err, &fe) {
		problems = append(problems, fe)
	}
	if len(problems) > 0 {
		return nil, nil, &ConfigError{Problems: problems}
	}
	return key, tr, nil
}

// validate reports each problem of a defaulted configuration to bad.
func (c Config) validate(bad func(field string, err error)) {
	c.validateAccess(bad)
	c.validateBounds(bad)
}

// validateAccess checks the addresses and credentials.
func (c Config) validateAccess(bad func(field string, err error)) {
	checkURL := func(field, v string) {
		if v == "" {
			bad(field, ErrRequired)
		} else if _, err := weburl.Parse(v); err != nil {
			bad(field, err)
		}
	}
	checkURL("baseURL", c.BaseURL)
	checkURL("authBaseURL", c.AuthBaseURL)
	if c.ProxyURL != "" {
		checkURL("proxyURL", c.ProxyURL)
	}
	if c.OrgID == "" {
		bad("orgID", ErrRequired)
	}
	if c.ClientID == "" {
		bad("clientID", ErrRequired)
	}
	if c.ClientSecret == "" {
		bad("clientSecret", ErrRequired)
	}
	switch c.AuthMethod {
	case AuthJWT:
		if c.TechAccountID == "" {
			bad("techAccountID", errRequiredForJWT)
		}
		if c.PrivateKeyPEM == "" {
			bad("privateKey", errRequiredForJWT)
		}
	case AuthOAuth:
	default:
		bad("authMethod", fmt.Errorf("%q is not %q or %q", c.AuthMethod, AuthJWT, AuthOAuth))
	}
}

// ErrRequired is the problem of a field that must be set.
var ErrRequired = errors.New("required")

// errRequiredForJWT is the problem of a field AuthJWT needs.
var errRequiredForJWT = fmt.Errorf("%w for authMethod jwt", ErrRequired)

// validateBounds checks the limits, timeouts and waits.
func (c Config) validateBounds(bad func(field string, err error)) {
	positive := []struct {
		field string
		v     int64
	}{
		{"readLimit", int64(c.ReadLimit)}, {"appLimit", int64(c.AppLimit)},
		{"limitWindow", int64(c.LimitWindow)}, {"timeout", int64(c.Timeout)},
		{"retryWaitMin", int64(c.RetryWaitMin)}, {"retryWaitMax", int64(c.RetryWaitMax)},
		{"tokenRefreshMargin", int64(c.TokenRefreshMargin)},
	}
	for _, p := range positive {
		if p.v < 0 {
			bad(p.field, errors.New("must be positive"))
		}
	}
	if c.RetryWaitMax < c.RetryWaitMin {
		bad("retryWaitMax", fmt.Errorf("%s is below retryWaitMin %s", c.RetryWaitMax, c.RetryWaitMin))
	}
}
