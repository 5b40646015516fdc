package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestCommandLineMistakes runs commands in-process with flag and argument
// mistakes: each exits with its code and says what is wrong, prefixed
// with the command's name, before anything is read or sent.
func TestCommandLineMistakes(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	cfg := configFor(t, dir, "csv", "http://127.0.0.1:1") // never contacted
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"nope"}, exitError, `orgsync: unknown command "nope"`},
		{[]string{"validate", "--check-targets"}, exitError, "-check-target"},
		// --output is checked before the configuration is read.
		{[]string{"plan", "--config", "missing.yaml", "--output", "xml"}, exitError, `orgsync plan: --output "xml": use text or json`},
		{[]string{"users", "list", "--config", cfg, "--output", "xml"}, exitError, `orgsync users list: --output "xml": use text or json`},
		{[]string{"sync", "--config", cfg, "extra"}, exitError, `orgsync sync: unexpected argument "extra"`},
		{[]string{"users", "get", "--config", cfg}, exitError, "orgsync users get: give the user's email"},
		{[]string{"invites", "resend", "--config", cfg}, exitError, "orgsync invites resend: give the invited user's email"},
		{[]string{"invites", "revoke", "--config", cfg, "a@example.com", "b@example.com"}, exitError, `orgsync invites revoke: unexpected argument "b@example.com"`},
		{[]string{"validate", "--config", "missing.yaml"}, exitError, "missing.yaml"},
	}
	for _, tt := range tests {
		var out, errOut bytes.Buffer
		code := dispatch(context.Background(), tt.args, stdio{out: &out, err: &errOut})
		if code != tt.code || !strings.Contains(errOut.String(), tt.want) {
			t.Errorf("%v: exit %d, want %d; stderr lacks %q:\n%s", tt.args, code, tt.code, tt.want, errOut.String())
		}
	}
}
