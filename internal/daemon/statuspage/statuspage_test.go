package statuspage

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/reconcile"
)

func sample() Status {
	t0 := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	var runs []store.Run
	for i := range 40 {
		runs = append(runs, store.Run{ID: "r", Org: "<emea>", Start: t0.Add(time.Duration(i) * time.Hour),
			End: t0.Add(time.Duration(i)*time.Hour + time.Duration(i+1)*time.Second), Mode: "sync", Result: store.RunSuccess,
			Changes: map[string]int{"create": i}})
	}
	runs[39].Result, runs[39].Approval = store.RunHeld, "0123abcd"
	runs[39].Read, runs[39].ReadReason = "incremental", "last full read 3h ago, next in 21h"
	return Status{Now: t0, NextRun: t0.Add(2 * time.Hour), Runs: runs, ConfigProblem: "mapping[0].targets (line 9): required",
		Pending: []store.Approval{{ID: "0123abcd", Org: "<emea>", Reason: "3 removals exceed maxRemovals 1", Status: store.Pending,
			Changes: []reconcile.Change{{Kind: reconcile.KindRemove, User: reconcile.User{Type: reconcile.FederatedID, Email: "mallory@example.com"}}}}}}
}

func get(t *testing.T, h http.Handler, path string, header ...string) (int, string) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Host = "127.0.0.1:9090"
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	b, _ := io.ReadAll(rec.Body)
	return rec.Code, string(b)
}

func TestPageShowsRunsApprovalsChartAndProblem(t *testing.T) {
	code, body := get(t, Handler(sample, nil), "/")
	if code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	for _, want := range []string{"- remove mallory@example.com (federatedID)", "orgsync approve 0123abcd", "&lt;emea&gt;",
		"mapping[0].targets (line 9): required", "2026-11-25 12:00:00 UTC", `<td class="held">held</td>`, "create=39",
		`<td title="last full read 3h ago, next in 21h">incremental</td>`} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if n := strings.Count(body, `class="bar `); n != chartRuns {
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
	if code, _ := get(t, Handler(sample, nil), "/other"); code != http.StatusNotFound {
		t.Errorf("/other: %d, want 404", code)
	}
}

func TestAPIRuns(t *testing.T) {
	_, body := get(t, Handler(sample, nil), "/api/runs")
	var s Status
	if err := json.Unmarshal([]byte(body), &s); err != nil || len(s.Runs) != 40 || len(s.Pending) != 1 || s.Pending[0].ID != "0123abcd" {
		t.Errorf("api/runs: %v\n%.300s", err, body)
	}
}

func TestChartWithoutRuns(t *testing.T) {
	if svg := string(Chart(nil, time.UTC)); !strings.Contains(svg, "no run yet") || !strings.HasPrefix(svg, "<svg") {
		t.Errorf("empty chart: %s", svg)
	}
}

// protected is a page of sample whose access is a (an open page on
// loopback when a is nil), deciding with decide.
func protected(a *Access, decide Decide) *Page {
	if a == nil {
		a = &Access{Listen: "127.0.0.1:9090"}
	}
	return New(Options{Status: sample, Decide: decide, History: sampleHistory, Access: func() *Access { return a }})
}

// sampleHistory is the history of mallory@example.com (and of a hostile
// group name), none of anyone else.
func sampleHistory(user string) ([]store.Entry, error) {
	if !strings.EqualFold(user, "mallory@example.com") {
		return nil, nil
	}
	t0 := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	return []store.Entry{
		{Run: "r1", Time: t0, Org: "main", User: "mallory@example.com", Kind: "create", Steps: []string{"create federatedID", "add <b>Design</b>"},
			Result: store.ResultApplied, Reason: "the sources; Design: mapping[1] (directory \"design\")"},
		{Run: "r2", Time: t0.Add(time.Hour), Org: "main", User: "mallory@example.com", Kind: "remove", Steps: []string{"remove Marketing"},
			Result: store.ResultFailed, Code: "error.group.not_found", Reason: "the sources no longer give these groups", Approval: "0123abcd", DecidedBy: "ops via status page, basic authentication"},
	}, nil
}

// basicOps authenticates as ops:pw.
var basicOps = []string{"Authorization", "Basic b3BzOnB3"}

// theToken is a page token long enough.
const theToken = "0123456789abcdef0123456789abcdef"

func TestProtect(t *testing.T) {
	token := &Access{Credentials: Credentials{Token: theToken}}
	basic := &Access{Credentials: Credentials{User: "ops", Password: "pw"}}
	for _, tc := range []struct {
		name   string
		access *Access
		header []string
		want   int
	}{
		{"open", nil, nil, 200},
		{"token missing", token, nil, 401},
		{"token right", token, []string{"Authorization", "Bearer " + theToken}, 200},
		{"token any case scheme", token, []string{"Authorization", "bearer " + theToken}, 200},
		{"token wrong", token, []string{"Authorization", "Bearer " + strings.ToUpper(theToken)}, 401},
		{"basic right", basic, basicOps, 200},
		{"basic wrong", basic, []string{"Authorization", "Basic b3BzOnB4"}, 401},
		{"basic for a token page", token, basicOps, 401},
	} {
		if code, _ := get(t, protected(tc.access, nil), "/", tc.header...); code != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, code, tc.want)
		}
	}
}

// post posts the form values (name, value pairs) to path, with the
// header pairs, and returns the status and body.
func post(h http.Handler, path string, form []string, header ...string) (int, string) {
	v := url.Values{}
	for i := 0; i+1 < len(form); i += 2 {
		v.Set(form[i], form[i+1])
	}
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(v.Encode()))
	req.Host = "127.0.0.1:9090"
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

// formToken is the anti-forgery token of the form of the page body that
// posts to action.
func formToken(t *testing.T, body, action string) string {
	t.Helper()
	m := regexp.MustCompile(`action="` + regexp.QuoteMeta(action) + `"><input type="hidden" name="csrf" value="([0-9a-f]+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no form posts to %s:\n%s", action, body)
	}
	return m[1]
}

// recorder is a Decide that records the decisions and reviews with a
// fixed digest.
type recorder struct{ decided []string }

func (r *recorder) decide(_ context.Context, d Decision) (Outcome, error) {
	r.decided = append(r.decided, d.ID+" "+d.Action+" by "+d.Who.String())
	if d.Action == ActionReview {
		return Outcome{Text: "approving applies 1 change:\n  - remove mallory@example.com", Applies: true, Digest: "d1"}, nil
	}
	if d.Action == ActionApprove && d.Reviewed != "d1" {
		return Outcome{Text: "approving applies 2 changes", Applies: true, Digest: "d2"}, ErrReviewChanged
	}
	return Outcome{Text: "done"}, nil
}

// TestDecisionsNeedAuthenticationAndThePagesForm: the page approves and
// rejects only behind its authentication, only from its own form: a post
// without the form's token, or from another site, is refused; the
// decision is made for who authenticated.
func TestDecisionsNeedAuthenticationAndThePagesForm(t *testing.T) {
	rec := &recorder{}
	h := protected(&Access{Credentials: Credentials{User: "ops", Password: "pw"}}, rec.decide)
	_, body := get(t, h, "/", basicOps...)
	review := formToken(t, body, "approvals/0123abcd/review")
	if !strings.Contains(body, `id="reject-0123abcd"`) || !strings.Contains(body, "as ops via status page, basic authentication") {
		t.Fatalf("the authenticated page has no approve and reject forms:\n%s", body)
	}
	for _, tc := range []struct {
		name   string
		path   string
		token  string
		header []string
		want   int
	}{
		{"no authentication", "/approvals/0123abcd/review", review, nil, 401},
		{"no token", "/approvals/0123abcd/review", "", basicOps, 403},
		{"another form's token", "/approvals/0123abcd/reject", review, basicOps, 403},
		{"another approval's", "/approvals/0123abcc/review", review, basicOps, 403},
		{"another site", "/approvals/0123abcd/review", review, append([]string{"Sec-Fetch-Site", "cross-site"}, basicOps...), 403},
		{"an unknown action", "/approvals/0123abcd/delete", review, basicOps, 404},
		{"the page's form", "/approvals/0123abcd/review", review, append([]string{"Sec-Fetch-Site", "same-origin"}, basicOps...), 200},
	} {
		if code, _ := post(h, tc.path, []string{"csrf", tc.token}, tc.header...); code != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, code, tc.want)
		}
	}
	if len(rec.decided) != 1 || rec.decided[0] != "0123abcd review by ops via status page, basic authentication" {
		t.Errorf("decided %v, want the one review by ops", rec.decided)
	}
	open := Handler(sample, rec.decide)
	if _, body := get(t, open, "/"); strings.Contains(body, "<form") {
		t.Error("a page without authentication shows forms")
	}
	if code, _ := post(open, "/approvals/0123abcd/review", []string{"csrf", review}); code != http.StatusForbidden {
		t.Errorf("a decision on a page without authentication: %d, want 403", code)
	}
}

// TestBanner: each organization's last success, and since when and why
// it fails.
func TestBanner(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	runs := []store.Run{
		{Org: "main", Start: t0, End: t0.Add(time.Minute), Result: store.RunSuccess},
		{Org: "emea", Start: t0, End: t0.Add(time.Minute), Result: store.RunHeld},
		{Org: "main", Start: t0.Add(time.Hour), End: t0.Add(time.Hour), Result: store.RunFailure, Phase: "sources", Error: "users.csv: no such file"},
		{Org: "main", Start: t0.Add(2 * time.Hour), End: t0.Add(2 * time.Hour), Result: store.RunFailure, Phase: "sources", Error: "users.csv: gone"},
	}
	b := Banner(runs, nil)
	if len(b) != 2 || !b[0].Failing() || !b[0].FailingSince.Equal(t0.Add(time.Hour)) || !b[0].LastSuccess.Equal(t0.Add(time.Minute)) ||
		b[0].Why != "sources: users.csv: gone" || b[1].Failing() || b[1].Org != "emea" {
		t.Errorf("banner %+v", b)
	}
	s := sample()
	s.Runs, s.Location = runs, time.FixedZone("CET", 3600)
	var buf strings.Builder
	if err := Write(&buf, s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"main: failing since 2026-11-25 12:00:00 CET", "last success 2026-11-25 11:01:00 CET", "sources: users.csv: gone", "emea: in sync"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// TestChartAxisAndLegend: the chart labels its time axis, in the page's
// time zone, and its legend names only the results it draws.
func TestChartAxisAndLegend(t *testing.T) {
	runs := sample().Runs
	svg := string(Chart(runs, time.FixedZone("CET", 3600)))
	if n := strings.Count(svg, `class="tick"`); n != 3 || !strings.Contains(svg, "Nov 27 02:00 CET") {
		t.Errorf("time axis: %d ticks\n%s", n, svg)
	}
	if !strings.Contains(svg, "held for approval") || !strings.Contains(svg, ">success<") || strings.Contains(svg, ">failed<") {
		t.Errorf("the legend names results the runs do not have, or lacks theirs:\n%s", svg)
	}
}

// TestBannerAfterADecisionThatPlannedNothing: a rejection, or an invite
// resent, says nothing of whether the organization syncs: a failing one
// stays failing (red) through a rejection, and one whose held changes
// were rejected is not in sync (amber, the rejected approval named) until
// its next run, which settles it.
func TestBannerAfterADecisionThatPlannedNothing(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	at := func(h int) time.Time { return t0.Add(time.Duration(h) * time.Hour) }
	runs := []store.Run{
		{Org: "main", Start: at(0), End: at(0), Mode: "sync", Result: store.RunFailure, Phase: "sign-in", Error: "the service is down"},
		{Org: "main", Start: at(1), End: at(1), Mode: "reject", Result: store.RunSuccess, Approval: "0123abcd"},
		{Org: "main", Start: at(1), End: at(1), Mode: "resend-invite", Result: store.RunSuccess},
		{Org: "emea", Start: at(0), End: at(0), Mode: "sync", Result: store.RunHeld, Approval: "4567cdef"},
		{Org: "emea", Start: at(1), End: at(1), Mode: "reject", Result: store.RunSuccess, Approval: "4567cdef"},
		{Org: "apac", Start: at(0), End: at(0), Mode: "sync", Result: store.RunHeld, Approval: "89abcdef"},
		{Org: "apac", Start: at(1), End: at(1), Mode: "reject", Result: store.RunSuccess, Approval: "89abcdef"},
		{Org: "apac", Start: at(2), End: at(2), Mode: "sync", Result: store.RunSuccess},
	}
	b := Banner(runs, nil)
	if len(b) != 3 || b[0].State != StateFailing || b[0].Why != "sign-in: the service is down" || !b[0].LastSuccess.IsZero() {
		t.Errorf("a failing organization after a rejection and an invite resent: %+v", b[0])
	}
	if b[1].State != StateRejected || len(b[1].Rejected) != 1 || b[1].Rejected[0] != "4567cdef" {
		t.Errorf("an organization whose held changes were rejected: %+v", b[1])
	}
	if b[2].State != StateInSync || len(b[2].Rejected) != 0 {
		t.Errorf("an organization synced after a rejection: %+v", b[2])
	}
	s := sample()
	s.Runs, s.Pending = runs, nil
	var buf strings.Builder
	if err := Write(&buf, s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="banner-main"`, "main: failing since", `class="banner banner-held" id="rejected-emea"`,
		"emea: not in sync: approval 4567cdef rejected since its last run", `class="banner banner-in-sync" id="banner-apac"`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("the page lacks %q:\n%s", want, buf.String())
		}
	}
}
