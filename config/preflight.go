package config

import (
	"errors"

	"github.com/orgsync/orgsync/target/umapi"
)

// Preflight returns what would stop a run and can be known without the
// network and that Load does not check, every problem at once, each
// naming its key: a secret that cannot be loaded (an unset environment
// variable, a command that fails) and what the service client refuses (a
// private key that is not one, a wrong passphrase). Load leaves them to
// the run, which reads the secrets again each time.
func (c *Config) Preflight() []error {
	var out []error
	for i := range c.Targets {
		out = append(out, c.Targets[i].preflight()...)
	}
	return append(out, c.Notify.preflight()...)
}

// preflight is Preflight for one target.
func (t *NamedTarget) preflight() []error {
	cc, err := t.ClientConfig()
	var out []error
	if err != nil {
		out = err.(interface{ Unwrap() []error }).Unwrap() // ClientConfig joins its errors
	}
	var ce *umapi.ConfigError
	if errors.As(cc.Check(), &ce) {
		for i, p := range t.configProblems(ce) {
			// A required field unset is Load's to report, a secret not
			// loaded ClientConfig's.
			if !errors.Is(ce.Problems[i].Err, umapi.ErrRequired) {
				out = append(out, p)
			}
		}
	}
	return out
}
