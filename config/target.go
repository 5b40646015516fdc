package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/target/umapi"
)

// ClientConfig returns the service client's configuration, with the
// secrets loaded from where the configuration says they are. Errors name
// the key and the variable or file, never the secret; every secret that
// cannot be loaded has its own (joined), and the configuration returned
// with them holds the secrets that could.
func (t *Target) ClientConfig() (umapi.Config, error) { return t.clientConfig("target") }

// ClientConfig is Target.ClientConfig with errors under the target's path.
func (t *NamedTarget) ClientConfig() (umapi.Config, error) { return t.Target.clientConfig(t.path) }

// clientConfig is ClientConfig for the target at path.
func (t *Target) clientConfig(path string) (umapi.Config, error) {
	c := umapi.Config{
		BaseURL:            t.BaseURL,
		AuthBaseURL:        t.AuthBaseURL,
		OrgID:              t.OrgID,
		ClientID:           t.Auth.ClientID,
		AuthMethod:         t.Auth.Method,
		TechAccountID:      t.Auth.TechnicalAccountID,
		Scope:              strings.Join(t.Auth.Scopes, ","),
		Timeout:            t.Timeouts.Request,
		ProxyURL:           t.Proxy,
		CAFile:             t.TLS.CAFile,
		InsecureSkipVerify: t.TLS.InsecureSkipVerify,
		ReadLimit:          t.Limits.Reads,
		AppLimit:           t.Limits.Requests,
		LimitWindow:        t.Limits.Window,
		MaxRetries:         t.Retries.Max,
		RetryWaitMin:       t.Retries.MinWait,
		RetryWaitMax:       t.Retries.MaxWait,
	}
	var errs []error
	load := func(dst *string, key string, r secret.Ref) {
		v, err := loadSecret(path+key, r)
		*dst = v
		errs = append(errs, err)
	}
	load(&c.ClientSecret, ".auth.clientSecret", t.Auth.ClientSecret)
	if t.Auth.Method == AuthJWT {
		load(&c.PrivateKeyPEM, ".auth.privateKey", t.Auth.PrivateKey)
		if t.Auth.PrivateKeyPassphrase.IsSet() {
			load(&c.PrivateKeyPassphrase, ".auth.privateKeyPassphrase", t.Auth.PrivateKeyPassphrase)
		}
	}
	return c, errors.Join(errs...)
}

func loadSecret(path string, r secret.Ref) (string, error) {
	v, err := r.Load()
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return v.Reveal(), nil
}
