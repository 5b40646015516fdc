package config

import (
	"fmt"
	"strings"

	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/target/umapi"
)

// ClientConfig returns the service client's configuration, with the
// secrets loaded from where the configuration says they are. Errors name
// the key and the variable or file, never the secret.
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
	var err error
	if c.ClientSecret, err = loadSecret(path+".auth.clientSecret", t.Auth.ClientSecret); err != nil {
		return umapi.Config{}, err
	}
	if t.Auth.Method == AuthJWT {
		if c.PrivateKeyPEM, err = loadSecret(path+".auth.privateKey", t.Auth.PrivateKey); err != nil {
			return umapi.Config{}, err
		}
		if t.Auth.PrivateKeyPassphrase.IsSet() {
			if c.PrivateKeyPassphrase, err = loadSecret(path+".auth.privateKeyPassphrase", t.Auth.PrivateKeyPassphrase); err != nil {
				return umapi.Config{}, err
			}
		}
	}
	return c, nil
}

func loadSecret(path string, r secret.Ref) (string, error) {
	v, err := r.Load()
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return v.Reveal(), nil
}
