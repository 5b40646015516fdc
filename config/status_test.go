package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestStatusTokenTooShort: a status.token under 32 characters is refused
// by Preflight (what validate and the daemon's start report), saying how
// long it is, why that matters and how to make one; 32 pass.
func TestStatusTokenTooShort(t *testing.T) {
	t.Parallel()
	for token, want := range map[string]string{
		"x":                     "status.token (file ",
		strings.Repeat("a", 31): "31 characters, fewer than 32: the token guards a page that approves removals",
		strings.Repeat("a", 32): "",
		strings.Repeat("ä", 32): "",
	} {
		dir := write(t, map[string]string{"c.yaml": minimal + "status:\n  token: {file: token}\n", "key.pem": "KEY", "users.csv": "email\n", "token": token + "\n"}, 0o600)
		cfg, err := Load(filepath.Join(dir, "c.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		var got string
		for _, e := range cfg.Preflight() {
			if strings.Contains(e.Error(), "status.") {
				got = e.Error()
			}
		}
		if (want == "") != (got == "") || !strings.Contains(got, want) || (got != "" && !strings.Contains(got, "openssl rand -hex 32")) {
			t.Errorf("a token of %d characters: %q, want %q", len([]rune(token)), got, want)
		}
	}
}

// TestStatusAllowedHostsAreNames: status.allowedHosts takes host names,
// not URLs or ports.
func TestStatusAllowedHostsAreNames(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ host, want string }{
		{"orgsync.example.com", ""},
		{"https://orgsync.example.com", "without a scheme"},
		{"orgsync.example.com:9090", "without a port"},
		{"", "empty"},
	} {
		if err := checkHostName(tc.host); (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%q: %v, want %q", tc.host, err, tc.want)
		}
	}
}
