package daemon

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// TestPageWarnsWhenOpenBeyondThisMachine: a status page listening beyond
// loopback without authentication is warned of, in the log and on the
// page; on loopback, or with a token, it is not.
func TestPageWarnsWhenOpenBeyondThisMachine(t *testing.T) {
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
		{":9090", "status:\n  token: {env: HOME}\n", false},
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

// TestUnreadablePageSecretIsLogged: a status.token that cannot be read
// answers 500 and says why in the log, not only to the browser.
func TestUnreadablePageSecretIsLogged(t *testing.T) {
	core, logs := observer.New(zap.ErrorLevel)
	d := newTestDaemon(t, setupOf(t, example(t, "status:\n  token: {env: ORGSYNC_TEST_UNSET_PAGE_TOKEN}\n"), zap.New(core)))
	rec := httptest.NewRecorder()
	d.page().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	entries := logs.FilterMessageSnippet("the status page's secret cannot be read").All()
	if rec.Code != http.StatusInternalServerError || len(entries) != 1 || !strings.Contains(entries[0].ContextMap()["error"].(string), "ORGSYNC_TEST_UNSET_PAGE_TOKEN") {
		t.Errorf("page %d, logged %v", rec.Code, entries)
	}
}
