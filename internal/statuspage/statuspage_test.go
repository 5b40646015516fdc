package statuspage

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/state"
	"github.com/orgsync/orgsync/reconcile"
)

func sample() Status {
	t0 := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	var runs []state.Run
	for i := range 40 {
		runs = append(runs, state.Run{ID: "r", Org: "<emea>", Start: t0.Add(time.Duration(i) * time.Hour),
			End: t0.Add(time.Duration(i)*time.Hour + time.Duration(i+1)*time.Second), Mode: "sync", Result: state.RunSuccess,
			Changes: map[string]int{"create": i}})
	}
	runs[39].Result, runs[39].Approval = state.RunHeld, "0123abcd"
	return Status{Now: t0, NextRun: t0.Add(2 * time.Hour), Runs: runs, ConfigProblem: "mapping[0].targets (line 9): required",
		Pending: []state.Approval{{ID: "0123abcd", Org: "<emea>", Reason: "3 removals exceed maxRemovals 1", Status: state.Pending,
			Changes: []reconcile.Change{{Kind: reconcile.KindRemove, User: reconcile.User{Type: reconcile.FederatedID, Email: "mallory@example.com"}}}}}}
}

func get(t *testing.T, h http.Handler, path string, header ...string) (int, string) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	b, _ := io.ReadAll(rec.Body)
	return rec.Code, string(b)
}

func TestPageShowsRunsApprovalsChartAndProblem(t *testing.T) {
	code, body := get(t, Handler(sample), "/")
	if code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	for _, want := range []string{"- remove mallory@example.com (federatedID)", "orgsync approve 0123abcd", "&lt;emea&gt;",
		"mapping[0].targets (line 9): required", "2026-11-25 12:00:00Z", `<td class="held">held</td>`, "create=39"} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if n := strings.Count(body, `class="bar"`); n != chartRuns {
		t.Errorf("%d bars, want the last %d runs", n, chartRuns)
	}
	if n := strings.Count(body, "<tr><td>2026"); n != maxRunsListed {
		t.Errorf("%d runs listed, want %d", n, maxRunsListed)
	}
	for _, bad := range []string{"<script", "src=", "<emea>", "stylesheet"} {
		if strings.Contains(body, bad) {
			t.Errorf("page has %q: it must be self-contained and escaped", bad)
		}
	}
	if code, _ := get(t, Handler(sample), "/other"); code != http.StatusNotFound {
		t.Errorf("/other: %d, want 404", code)
	}
}

func TestAPIRuns(t *testing.T) {
	_, body := get(t, Handler(sample), "/api/runs")
	var s Status
	if err := json.Unmarshal([]byte(body), &s); err != nil || len(s.Runs) != 40 || len(s.Pending) != 1 || s.Pending[0].ID != "0123abcd" {
		t.Errorf("api/runs: %v\n%.300s", err, body)
	}
}

func TestChartWithoutRuns(t *testing.T) {
	if svg := string(Chart(nil)); !strings.Contains(svg, "no run yet") || !strings.HasPrefix(svg, "<svg") {
		t.Errorf("empty chart: %s", svg)
	}
}

func TestProtect(t *testing.T) {
	secrets := func(token, user, pw string, err error) func() (string, string, string, error) {
		return func() (string, string, string, error) { return token, user, pw, err }
	}
	h := Handler(sample)
	for _, tc := range []struct {
		name   string
		load   func() (string, string, string, error)
		header []string
		want   int
	}{
		{"open", secrets("", "", "", nil), nil, 200},
		{"token missing", secrets("t0k", "", "", nil), nil, 401},
		{"token right", secrets("t0k", "", "", nil), []string{"Authorization", "Bearer t0k"}, 200},
		{"token any case scheme", secrets("t0k", "", "", nil), []string{"Authorization", "bearer t0k"}, 200},
		{"token wrong", secrets("t0k", "", "", nil), []string{"Authorization", "Bearer t0K"}, 401},
		{"basic right", secrets("", "ops", "pw", nil), []string{"Authorization", "Basic b3BzOnB3"}, 200},
		{"basic wrong", secrets("", "ops", "pw", nil), []string{"Authorization", "Basic b3BzOnB4"}, 401},
		{"secret unreadable", secrets("", "", "", errors.New("no file")), nil, 500},
	} {
		if code, _ := get(t, Protect(h, tc.load), "/", tc.header...); code != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, code, tc.want)
		}
	}
}
