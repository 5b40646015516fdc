package daemon

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/changecontrol"
	"github.com/orgsync/orgsync/internal/demo"
	"github.com/orgsync/orgsync/internal/run"
)

// example starts the demo of the CSV example (the simulator of the
// example organizations over loopback HTTP, until the test ends) with
// extra appended to its configuration, and returns the configuration's
// path.
func example(t *testing.T, extra string) string {
	t.Helper()
	d, err := demo.Start(context.Background(), demo.Examples()["csv"], io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	f, err := os.OpenFile(d.Config, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(extra); err != nil {
		t.Fatal(err)
	}
	return d.Config
}

// setupOf is the Setup of a daemon of the configuration at path, logging
// to log, its change control included.
func setupOf(t *testing.T, path string, log *zap.Logger) Setup {
	t.Helper()
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	c := changecontrol.New(cfg, log)
	return Setup{Config: cfg, RunOptions: run.Options{Log: log, Observer: c}, Control: c, Log: log}
}

// newTestDaemon is newDaemon of s, which must start.
func newTestDaemon(t *testing.T, s Setup) *daemon {
	t.Helper()
	d, err := newDaemon(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// setUnmatchedUsers sets policy.unmatchedUsers to value in the
// configuration file at path.
func setUnmatchedUsers(t *testing.T, path, value string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	key := regexp.MustCompile(`(?m)^(\s+unmatchedUsers:).*$`)
	if !key.Match(data) {
		t.Fatalf("%s lacks policy.unmatchedUsers", path)
	}
	if err := os.WriteFile(path, key.ReplaceAll(data, []byte("${1} "+value)), 0o600); err != nil {
		t.Fatal(err)
	}
}

// waitFor polls cond every 10 ms until it holds, or fails the test after
// 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// wantMetrics checks that the daemon's /metrics has each line of want.
func wantMetrics(t *testing.T, d *daemon, want ...string) {
	t.Helper()
	rec := httptest.NewRecorder()
	d.metrics.handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	for _, w := range want {
		if !strings.Contains(rec.Body.String(), w) {
			t.Errorf("metrics lack %s", w)
		}
	}
}
