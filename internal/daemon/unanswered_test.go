package daemon

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/internal/demo"
	"github.com/orgsync/orgsync/target/umsim/gate"
)

// TestPageShowsUnansweredAsUnknown: a run whose requests the simulator
// applies without answering (it drops the connection or answers 500;
// retries off) shows on the status page, over loopback, as unknown: the
// user's history says unknown, never not-sent or failed, and the run's
// row says how many changes were sent without an answer.
func TestPageShowsUnansweredAsUnknown(t *testing.T) {
	t.Parallel()
	setup, err := demo.Start(context.Background(), demo.Examples()["csv"], io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(setup.Close)
	data, err := os.ReadFile(setup.Config)
	if err != nil || !strings.Contains(string(data), "target:\n") {
		t.Fatalf("%s: %v", setup.Config, err)
	}
	text := strings.Replace(string(data), "target:\n", "target:\n  retries: {max: -1}\n", 1) + opsPage(t)
	if err := os.WriteFile(setup.Config, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, s := range setup.Sim.Servers() {
		s.SetFaults(gate.Faults{Seed: 5, AmbiguousRate: 1})
	}
	d := newTestDaemon(t, setupOf(t, setup.Config, zap.NewNop()))
	d.runOnce(context.Background())
	hs := httptest.NewServer(d.mux())
	t.Cleanup(hs.Close)
	get := func(path string) string {
		req, _ := http.NewRequest(http.MethodGet, hs.URL+path, nil)
		req.SetBasicAuth("ops", opsPassword)
		resp, err := hs.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d\n%s", path, resp.StatusCode, b)
		}
		return string(b)
	}
	page := get("/history?user=dave@example.com")
	if !strings.Contains(page, `<td class="unknown">unknown: `) || !strings.Contains(page, "sent, no answer: the service may have applied it") ||
		strings.Contains(page, "not-sent") || strings.Contains(page, `class="failed"`) {
		t.Errorf("dave's history on the page:\n%s", page)
	}
	if main := get("/"); !strings.Contains(main, "sent without an answer: the service may have applied them; the next run&#39;s read tells") {
		t.Errorf("the run's row does not say what was sent without an answer:\n%s", main)
	}
}
