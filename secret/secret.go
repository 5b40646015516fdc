// Package secret reads secrets (passwords, client secrets, private keys) from
// where the configuration says they are: an environment variable or a file
// (a Kubernetes secret volume, for example). A loaded secret is a Value whose
// every printed form is redacted, so it cannot leak into logs, plans or
// errors by accident.
package secret

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// Ref says where a secret is: in the environment variable Env or in File.
// Exactly one of them is set.
type Ref struct {
	Env  string `yaml:"env,omitempty" json:"env,omitempty"`
	File string `yaml:"file,omitempty" json:"file,omitempty"`
}

// IsSet reports whether the reference names a place.
func (r Ref) IsSet() bool { return r.Env != "" || r.File != "" }

// Check returns an error when the reference is empty or names two places.
func (r Ref) Check() error {
	switch {
	case r.Env != "" && r.File != "":
		return errors.New("set either env or file, not both")
	case !r.IsSet():
		return errors.New("required: set env (an environment variable) or file (a path)")
	}
	return nil
}

// Load reads the secret. A file's trailing newline is dropped. The error
// names the variable or file, never the value.
func (r Ref) Load() (Value, error) {
	if err := r.Check(); err != nil {
		return "", err
	}
	if r.Env != "" {
		v, ok := os.LookupEnv(r.Env)
		if !ok || v == "" {
			return "", fmt.Errorf("environment variable %s is not set or empty", r.Env)
		}
		return Value(v), nil
	}
	b, err := os.ReadFile(r.File)
	if err != nil {
		return "", fmt.Errorf("reading secret file: %w", err)
	}
	v := strings.TrimRight(string(b), "\r\n")
	if v == "" {
		return "", fmt.Errorf("secret file %s is empty", r.File)
	}
	return Value(v), nil
}

// Value is a loaded secret. Only Reveal returns its content.
type Value string

const redacted = "[redacted]"

// Reveal returns the secret itself, for the one place that must send it.
func (v Value) Reveal() string { return string(v) }

// String redacts the secret in %s and %v.
func (v Value) String() string { return redacted }

// GoString redacts the secret in %#v.
func (v Value) GoString() string { return redacted }

// MarshalText redacts the secret in JSON, YAML and text encoders.
func (v Value) MarshalText() ([]byte, error) { return []byte(redacted), nil }
