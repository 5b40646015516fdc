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
		"x":                     "token): 1 character, fewer than 32",
		strings.Repeat("a", 31): "31 characters, fewer than 32: the token guards a page that approves removals",
		strings.Repeat("a", 32): "",
		strings.Repeat("ä", 32): "",
	} {
		if got := statusProblem(t, "status:\n  token: {file: token}\n", "token", token); (want == "") != (got == "") || !strings.Contains(got, want) ||
			(got != "" && !strings.Contains(got, "openssl rand -hex 32")) {
			t.Errorf("a token of %d characters: %q, want %q", len([]rune(token)), got, want)
		}
	}
}

// statusProblem is the problem Preflight finds in a configuration with
// the status section, whose secret is the file named file holding value;
// "" when it finds none.
func statusProblem(t *testing.T, section, file, value string) string {
	t.Helper()
	dir := write(t, map[string]string{"c.yaml": minimal + section, "key.pem": "KEY", "users.csv": "email\n", file: value + "\n"}, 0o600)
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
	return got
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

// TestStatusPasswordTooShort: a status.password under 15 characters is
// refused as a short token is (the page guarded by basic authentication
// alone), saying why and how to make one; 15 pass.
func TestStatusPasswordTooShort(t *testing.T) {
	t.Parallel()
	for pw, want := range map[string]string{
		"a":                     "pw): 1 character, fewer than 15",
		"pa55-word":             "9 characters, fewer than 15: the password alone guards a page that approves removals",
		strings.Repeat("a", 15): "",
	} {
		if got := statusProblem(t, "status:\n  username: ops\n  password: {file: pw}\n", "pw", pw); (want == "") != (got == "") ||
			!strings.Contains(got, want) || (got != "" && !strings.Contains(got, "openssl rand -base64 18")) {
			t.Errorf("a password of %d characters: %q, want %q", len(pw), got, want)
		}
	}
}
