package simserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// TestHostRunServesLogsAndSaves: Run refuses what is missing, serves the
// state file's organizations until the context ends, logs each one's
// requests and saves the state when asked.
func TestHostRunServesLogsAndSaves(t *testing.T) {
	t.Parallel()
	for _, h := range []Host{{}, {State: "x.yaml", TLSCert: "cert.pem"}} {
		if err := h.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "--") {
			t.Errorf("%+v: %v, want the flag to fix", h, err)
		}
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "..", "examples", "sim"))); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(dir, "orgs.yaml")
	data, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	core, logs := observer.New(zap.InfoLevel)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // serve, then stop at once
	h := Host{State: state, Listen: "127.0.0.1:0", Save: true, Log: zap.New(core)}
	if err := h.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(logs.FilterMessage("simulator stopped").All()); n != 2 {
		t.Errorf("%d organizations logged at the end, want 2", n)
	}
	if len(logs.FilterMessage("state saved").All()) != 1 {
		t.Error("the saving is not logged")
	}
	saved, err := os.ReadFile(state)
	if err != nil || !strings.Contains(string(saved), "1234ABCD@VendorOrg") || string(saved) == string(data) {
		t.Errorf("state not saved (%v):\n%.300s", err, saved)
	}
}
