package umapi

import (
	"crypto/rsa"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/orgsync/orgsync/internal/util/outbound"
	"github.com/orgsync/orgsync/target/umwire"
)

// Authentication methods of Config.AuthMethod.
const (
	AuthJWT   = "jwt"   // JWT exchange signed with the integration's private key
	AuthOAuth = "oauth" // OAuth client credentials
)

// Defaults applied by New to zero fields of Config. They are the only
// defaults of these settings: orgsync's configuration applies the same.
const (
	DefaultAuthMethod     = AuthJWT
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

// Config configures a Client. The caller has checked its settings (orgsync
// checks them where it reads its configuration file, and names the keys
// there): New trusts them, and checks only what needs the secrets and
// files themselves, the private key and the CA bundle (see Check). The
// secrets (ClientSecret, PrivateKeyPEM, PrivateKeyPassphrase) are set by
// the caller, which loads them; every printed form of a Config redacts
// them, and its JSON leaves them out.
type Config struct {
	// BaseURL is the service's base address, e.g. https://um.example.com;
	// the endpoints are under {BaseURL}/v2/usermanagement.
	BaseURL string
	// AuthBaseURL is the authorization server's base address (contract 1);
	// it also forms the JWT's audience and meta-scope claim.
	AuthBaseURL string
	// OrgID is the organization id, "<hex>@VendorOrg".
	OrgID string
	// ClientID is the integration's client id, sent as X-Api-Key.
	ClientID string
	// AuthMethod is AuthJWT or AuthOAuth; default AuthJWT.
	AuthMethod string
	// TechAccountID is the technical account id, the JWT's subject.
	TechAccountID string
	// Scope is the OAuth scope (comma-separated); default DefaultScope.
	Scope string

	// ClientSecret is the integration's client secret (secret).
	ClientSecret string `json:"-"`
	// PrivateKeyPEM is the integration's RSA private key in PEM, PKCS#1 or
	// PKCS#8, or encrypted PKCS#8 (secret); needed for AuthJWT.
	PrivateKeyPEM string `json:"-"`
	// PrivateKeyPassphrase decrypts an encrypted PKCS#8 PrivateKeyPEM
	// (secret).
	PrivateKeyPassphrase string `json:"-"`

	// Timeout bounds one HTTP attempt (connect, send, headers, body).
	Timeout time.Duration
	// ProxyURL is the HTTP(S) proxy; empty means HTTPS_PROXY/HTTP_PROXY/NO_PROXY.
	ProxyURL string
	// CAFile is a PEM bundle of extra root certificates to trust.
	CAFile string
	// InsecureSkipVerify turns TLS certificate verification off. Never use
	// it outside a test installation.
	InsecureSkipVerify bool

	// ReadLimit is the number of requests to endpoints 1-3 allowed per
	// LimitWindow for one access token; default 25.
	ReadLimit int
	// AppLimit is the number of requests allowed per LimitWindow for the
	// whole application; default 100.
	AppLimit int
	// LimitWindow is the length of the server's sliding window; default 1m.
	LimitWindow time.Duration
	// RateMargin holds a long run of requests this fraction below the
	// limits' rate (a window's allowance may still go at once; the
	// sliding-window guard rules out a 429 either way); default 0.03. A
	// negative value means no margin.
	RateMargin float64

	// ReadAhead is the number of listing pages requested ahead of the one
	// being handed over (they still wait on the rate limiters), so that
	// slow answers do not leave the limit unused; default 4. A negative
	// value reads one page at a time.
	ReadAhead int

	// InvitesPerCall is the most invites the service answers per call
	// (200); a call answering fewer ends the invite listing without asking
	// for more. Lower it if the service lowers its maximum.
	InvitesPerCall int

	// MaxRetries bounds the retries of one request; default 8. A negative
	// value means no retries.
	MaxRetries int
	// RetryWaitMin and RetryWaitMax bound the exponential back-off.
	RetryWaitMin time.Duration
	RetryWaitMax time.Duration
	// TokenRefreshMargin: a token is refreshed this long before it expires
	// (at most a tenth of its lifetime); default 5m.
	TokenRefreshMargin time.Duration
	// UsertypeUnknown sends X-UMAPI-Usertype-Unknown: true, allowing the
	// service to return type "unknown".
	UsertypeUnknown bool
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
	setDefault(&c.AuthMethod, DefaultAuthMethod)
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
// name in Config ("PrivateKeyPEM", "CAFile"); the caller, which knows
// where the field comes from in its own configuration, can name it there.
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

// Check reports, as a *ConfigError, every problem of the secrets and
// files c gives that New would refuse, without sending anything: the
// private key (parsed and, when encrypted, decrypted) and the CA bundle.
// A secret c leaves empty is not checked: the caller reports why it has
// none.
func (c Config) Check() error {
	_, _, err := c.withDefaults().build()
	return err
}

// build checks the given secrets and files of a defaulted configuration
// and returns its private key (for AuthJWT) and the options of its HTTP
// transport; the error is a *ConfigError.
func (c Config) build() (*rsa.PrivateKey, outbound.Options, error) {
	var problems []*FieldError
	var key *rsa.PrivateKey
	if c.AuthMethod == AuthJWT && c.PrivateKeyPEM != "" {
		k, err := parsePrivateKey(c.PrivateKeyPEM, c.PrivateKeyPassphrase)
		if err != nil {
			problems = append(problems, &FieldError{Field: "PrivateKeyPEM", Err: err})
		}
		key = k
	}
	o, err := outboundOptions(c)
	var fe *FieldError
	if errors.As(err, &fe) {
		problems = append(problems, fe)
	}
	if len(problems) > 0 {
		return nil, o, &ConfigError{Problems: problems}
	}
	return key, o, nil
}

// errNoKey is New's answer to AuthJWT without a private key.
var errNoKey = &ConfigError{Problems: []*FieldError{{Field: "PrivateKeyPEM", Err: errors.New("required for AuthJWT")}}}
