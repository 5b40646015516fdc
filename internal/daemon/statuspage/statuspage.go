// Package statuspage is the daemon's status page: "/" is one HTML page
// (html/template, styles inline, the chart drawn here as SVG; no script,
// no external asset) with a banner (the last success; since when and why
// it fails), the last runs, the next run, the pending approvals and their
// changes, the approvals decided lately, and a problem with the
// configuration; "/api/runs" is the same as JSON. Protect wraps them with
// a bearer token or a basic-auth password; behind it, the page's forms
// approve and reject (POST /approvals/{id}/approve or /reject), guarded
// against forgery.
package statuspage

import (
	"embed"
	"encoding/json"
	"html/template"
	"io"
	"net/http"
	"time"

	"github.com/orgsync/orgsync/internal/changecontrol/runreport"
	"github.com/orgsync/orgsync/internal/store"
)

// Status is what the page shows.
type Status struct {
	Now     time.Time        `json:"now"`
	NextRun time.Time        `json:"nextRun"`
	Runs    []store.Run      `json:"runs"` // oldest first
	Pending []store.Approval `json:"pendingApprovals"`
	// Resolved are the approvals decided (approved, rejected, dropped)
	// or narrowed lately, the latest first.
	Resolved []store.Approval `json:"resolvedApprovals"`
	// ConfigProblem says why the configuration in use is not the file's
	// current content (it no longer loads); empty when it is.
	ConfigProblem string `json:"configProblem,omitempty"`
	// StateNote says what is not kept (no state directory).
	StateNote string `json:"stateNote,omitempty"`
	// Warning says what is unsafe about how the page is served (beyond
	// this machine without authentication).
	Warning string `json:"warning,omitempty"`
	// Location is the time zone the page shows times in
	// (schedule.timezone); nil: UTC. The JSON is in UTC.
	Location *time.Location `json:"-"`
}

// csp is the pages' Content-Security-Policy: nothing loaded, no script,
// forms posted to the page itself only.
const csp = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'"

// server serves the page.
type server struct {
	status func() Status
	decide Decide // nil: nothing is decided on the page
	forms  *forms
}

// Handler serves "/" and "/api/runs" from what status returns at each
// request, and, when decide is set, the forms that approve and reject
// (for requests Protect authenticated).
func Handler(status func() Status, decide Decide) http.Handler {
	s := &server{status: status, decide: decide, forms: newForms()}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", csp)
		_ = s.write(w, r)
	})
	mux.HandleFunc("GET /api/runs", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(status())
	})
	mux.Handle("POST /approvals/{id}/{action}", http.NewCrossOriginProtection().Handler(http.HandlerFunc(s.decision)))
	return mux
}

// write writes the page for request r: with the forms that decide
// approvals when r is authenticated and the page decides.
func (s *server) write(w io.Writer, r *http.Request) error {
	v := newView(s.status())
	if who, ok := Who(r); ok && s.decide != nil {
		v.Forms = func(id, action string) string { return s.forms.token(who, id, action) }
		v.Who = who.String()
	}
	return page.Execute(w, v)
}

// Write writes the page of s, without forms: a snapshot to keep.
func Write(w io.Writer, s Status) error {
	return page.Execute(w, newView(s))
}

// maxRunsListed is how many runs the page's table lists.
const maxRunsListed = 20

// view is what the template renders.
type view struct {
	Status
	Chart  template.HTML
	Recent []store.Run
	Banner []BannerLine
	// Forms, when set, gives the anti-forgery token of a form (approval
	// id, action); Who is who the page is shown to.
	Forms func(id, action string) string
	Who   string
}

func newView(s Status) view {
	if s.Location == nil {
		s.Location = time.UTC
	}
	return view{Status: s, Chart: Chart(s.Runs, s.Location), Recent: newestFirst(s.Runs, maxRunsListed), Banner: Banner(s.Runs)}
}

// newestFirst returns the last n runs, the newest first.
func newestFirst(runs []store.Run, n int) []store.Run {
	out := make([]store.Run, 0, min(n, len(runs)))
	for i := len(runs) - 1; i >= 0 && len(out) < n; i-- {
		out = append(out, runs[i])
	}
	return out
}

//go:embed page.html
var files embed.FS

var page = template.Must(template.New("page.html").Funcs(template.FuncMap{
	"details": runreport.Details,
	"isZero":  func(t time.Time) bool { return t.IsZero() },
	"clock":   clock,
}).ParseFS(files, "page.html"))

// clock is t in loc, to the second, with the zone's abbreviation.
func clock(t time.Time, loc *time.Location) string {
	return t.In(loc).Format("2006-01-02 15:04:05 MST")
}
