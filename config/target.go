package config

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/target/umapi"
)

// The target's settings are described once: their keys, defaults and
// checks are here (Target, applyDefaults, validate), and the client tag of
// each names the field of the service client's configuration it sets.
// Those tags are the one table between the two: ClientConfig fills the
// client's configuration from them, and a problem the client finds in one
// of its fields (umapi.FieldError) is named by its key from them. The
// client trusts what Load checked and checks only the secrets and files
// themselves (umapi.Config.Check).

// clientSetting is one setting of a target that the client takes.
type clientSetting struct {
	key   string        // below the target: "limits.reads"
	field string        // the client's: "ReadLimit"
	value reflect.Value // the target's field
}

// clientSettings returns t's settings that the client takes, from the
// client tags of Target and the sections below it.
func (t *Target) clientSettings() []clientSetting {
	var out []clientSetting
	var walk func(v reflect.Value, prefix string)
	walk = func(v reflect.Value, prefix string) {
		for i := range v.NumField() {
			f := v.Type().Field(i)
			key := join(prefix, strings.Split(f.Tag.Get("yaml"), ",")[0])
			if field, ok := f.Tag.Lookup("client"); ok {
				out = append(out, clientSetting{key: key, field: field, value: v.Field(i)})
			} else if f.Type.Kind() == reflect.Struct {
				walk(v.Field(i), key)
			}
		}
	}
	walk(reflect.ValueOf(t).Elem(), "")
	return out
}

// ClientConfig returns the service client's configuration, with the
// secrets loaded from where the configuration says they are. Errors name
// the key and the variable or file, never the secret; every secret that
// cannot be loaded has its own (joined), and the configuration returned
// with them holds the secrets that could.
func (t *Target) ClientConfig() (umapi.Config, error) { return t.clientConfig("target") }

// ClientConfig is Target.ClientConfig with errors under the target's path.
func (t *NamedTarget) ClientConfig() (umapi.Config, error) { return t.Target.clientConfig(t.path) }

// clientConfig is ClientConfig for the target at path: each setting sets
// its field of the client's configuration; a secret that is set is
// loaded, and a list (the scopes) is joined with commas.
func (t *Target) clientConfig(path string) (umapi.Config, error) {
	var c umapi.Config
	cv := reflect.ValueOf(&c).Elem()
	var errs []error
	for _, s := range t.clientSettings() {
		to := cv.FieldByName(s.field)
		switch v := s.value.Interface().(type) {
		case secret.Ref:
			if v.IsSet() {
				text, err := loadSecret(join(path, s.key), v)
				to.SetString(text)
				errs = append(errs, err)
			}
		case []string:
			to.SetString(strings.Join(v, ","))
		default:
			to.Set(s.value)
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

// clientProblems names each problem the client found in t's settings by
// its key in the file, and a secret's by its file too, which is what to
// open and fix.
func (t *NamedTarget) clientProblems(ce *umapi.ConfigError) []error {
	errs := make([]error, len(ce.Problems))
	for i, p := range ce.Problems {
		errs[i] = fmt.Errorf("%s: %w", t.clientKey(p.Field), p.Err)
	}
	return errs
}

// clientKey is the key of t that sets the client's field.
func (t *NamedTarget) clientKey(field string) string {
	for _, s := range t.clientSettings() {
		if s.field != field {
			continue
		}
		if r, ok := s.value.Interface().(secret.Ref); ok && r.File != "" {
			return join(t.path, s.key) + " (the file " + r.File + ")"
		}
		return join(t.path, s.key)
	}
	return t.path + " (" + field + ")"
}

// Preflight returns what would stop a run and can be known without the
// network and that Load does not check, every problem at once, each
// naming its key: a secret that cannot be loaded (an unset environment
// variable, a command that fails) and what the service client refuses of
// the secrets and files (a private key that is not one, a wrong
// passphrase, a CA bundle without a certificate). Load leaves them to the
// run, which reads the secrets again each time.
func (c *Config) Preflight() []error {
	var out []error
	for i := range c.Targets {
		out = append(out, c.Targets[i].preflight()...)
	}
	out = append(out, c.Notify.preflight()...)
	return append(out, c.Status.preflight()...)
}

// preflight is Preflight for one target: the secrets that do not load,
// then the client's problems with those that do.
func (t *NamedTarget) preflight() []error {
	cc, err := t.ClientConfig()
	var out []error
	if err != nil {
		out = err.(interface{ Unwrap() []error }).Unwrap() // ClientConfig joins its errors
	}
	var ce *umapi.ConfigError
	if errors.As(cc.Check(), &ce) {
		out = append(out, t.clientProblems(ce)...)
	}
	return out
}
