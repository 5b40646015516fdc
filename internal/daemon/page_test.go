package daemon

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// TestPageWarnsWhenOpenBeyondThisMachine: a status page listening beyond
// loopback without authentication is warned of, in the log and on the
// page; on loopback, or with a token, it is not.
func TestPageWarnsWhenOpenBeyondThisMachine(t *testing.T) {
	t.Parallel()
	path := example(t, "")
	for _, tc := range []struct {
		listen, status string
		warned         bool
	}{
		{":9090", "", true},
		{"0.0.0.0:9090", "", true},
		{"127.0.0.1:9090", "", false},
		{"[::1]:9090", "", false},
		{"localhost:9090", "", false},
		{":9090", "status:\n  token: {file: " + tokenFile(t) + "}\n", false},
	} {
		data, _ := os.ReadFile(path)
		cfgPath := path + ".page.yaml"
		if err := os.WriteFile(cfgPath, append(data, tc.status...), 0o600); err != nil {
			t.Fatal(err)
		}
		core, logs := observer.New(zap.WarnLevel)
		s := setupOf(t, cfgPath, zap.New(core))
		s.Listen = tc.listen
		d := newTestDaemon(t, s)
		d.warnOpen()
		logged := logs.FilterMessageSnippet("without authentication").Len() == 1
		if shown := strings.Contains(d.status().Warning, "beyond this machine, without authentication"); shown != tc.warned || logged != tc.warned {
			t.Errorf("%s %q: shown %v, logged %v; want %v", tc.listen, tc.status, shown, logged, tc.warned)
		}
	}
}

// TestUnreadablePageSecretStopsTheStart: a status.token that cannot be
// read, or one too short to resist guessing, stops the daemon before it
// serves, naming the key and why: the page is never open by mistake, nor
// guarded by a guessable token.
func TestUnreadablePageSecretStopsTheStart(t *testing.T) {
	t.Parallel()
	short := filepath.Join(t.TempDir(), "short")
	if err := os.WriteFile(short, []byte("t0k3n\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for extra, want := range map[string]string{
		"status:\n  token: {env: ORGSYNC_TEST_UNSET_PAGE_TOKEN}\n": "status.token: environment variable ORGSYNC_TEST_UNSET_PAGE_TOKEN is not set",
		"status:\n  token: {file: " + short + "}\n":                "status.token (file " + short + "): 5 characters, fewer than 32",
	} {
		_, err := newDaemon(setupOf(t, example(t, extra), zap.NewNop()))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", extra, err, want)
		}
	}
}

// tokenFile is a file holding a page token long enough.
func tokenFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "status-token")
	if err := os.WriteFile(path, []byte(testToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// testToken is the page token of the tests.
const testToken = "0123456789abcdef0123456789abcdef"
