// Package secret reads secrets (passwords, client secrets, private keys) from
// where the configuration says they are: an environment variable, a file
// (a Kubernetes secret volume, for example), the output of a command (a
// secret manager's command-line client) or, on Windows, a generic
// credential of Credential Manager. A loaded secret is a Value whose
// every printed form is redacted, so it cannot leak into logs, plans or
// errors by accident.
package secret

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// Ref says where a secret is: in the environment variable Env, in File, on
// the standard output of the command Exec (its program and arguments, run
// without a shell; Timeout bounds it, default DefaultTimeout), or in the
// generic credential of Windows Credential Manager named WinCred (of the
// user User, when set: see loadCredential). Exactly one of Env, File,
// Exec and WinCred is set. A secret is read again each
// time it is loaded, so a rotated secret is picked up without a restart.
type Ref struct {
	Env     string        `yaml:"env,omitempty" json:"env,omitempty"`
	File    string        `yaml:"file,omitempty" json:"file,omitempty"`
	Exec    []string      `yaml:"exec,omitempty" json:"exec,omitempty"`
	Timeout time.Duration `yaml:"timeout,omitempty" json:"timeout,omitempty"`
	WinCred string        `yaml:"wincred,omitempty" json:"wincred,omitempty"`
	User    string        `yaml:"user,omitempty" json:"user,omitempty"`
	// Dir is the folder the command runs in: the configuration's, where
	// its relative file paths are too ("" runs it in orgsync's own).
	Dir string `yaml:"-" json:"-"`
}

// IsSet reports whether the reference names a place.
func (r Ref) IsSet() bool { return r.Env != "" || r.File != "" || len(r.Exec) > 0 || r.WinCred != "" }

// Check returns an error when the reference is empty or names two places.
func (r Ref) Check() error {
	places := 0
	for _, set := range []bool{r.Env != "", r.File != "", len(r.Exec) > 0, r.WinCred != ""} {
		if set {
			places++
		}
	}
	switch {
	case places > 1:
		return errors.New("set one of env, file, exec and wincred, not several")
	case places == 0:
		return errors.New("required: set env (an environment variable), file (a path), exec (a command and its arguments) or wincred (a Windows Credential Manager target)")
	case len(r.Exec) > 0 && r.Exec[0] == "":
		return errors.New("exec: the first element must be the program to run")
	case r.Timeout < 0:
		return errors.New("timeout must not be negative")
	case r.Timeout > 0 && len(r.Exec) == 0:
		return errors.New("timeout applies to exec only")
	case r.User != "" && r.WinCred == "":
		return errors.New("user applies to wincred only")
	}
	return nil
}

// String says where the secret is, for messages: never its value.
func (r Ref) String() string {
	switch {
	case r.Env != "":
		return "environment variable " + r.Env
	case r.File != "":
		return "file " + r.File
	case len(r.Exec) > 0:
		return "the output of " + r.Exec[0]
	case r.WinCred != "" && r.User != "":
		return "Windows credential " + r.WinCred + " of user " + r.User
	case r.WinCred != "":
		return "Windows credential " + r.WinCred
	}
	return "no secret"
}

// Load reads the secret. A trailing newline is dropped. The error names
// the variable, file or command, never the value.
func (r Ref) Load() (Value, error) {
	if err := r.Check(); err != nil {
		return "", err
	}
	if len(r.Exec) > 0 {
		return r.run()
	}
	if r.WinCred != "" {
		return r.loadCredential(readCredential)
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
