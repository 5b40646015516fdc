// Package statuspage is the daemon's status page: "/" is one HTML page
// (html/template, styles inline, the chart drawn here as SVG; no script,
// no external asset) with the last runs, the next run, the pending
// approvals and their changes, and a problem with the configuration;
// "/api/runs" is the same as JSON. Protect wraps them with a bearer token
// or a basic-auth password.
package statuspage

import (
	"crypto/subtle"
	"embed"
	"encoding/json"
	"html/template"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/orgsync/orgsync/internal/report"
	"github.com/orgsync/orgsync/internal/state"
)

// Status is what the page shows.
type Status struct {
	Now     time.Time        `json:"now"`
	NextRun time.Time        `json:"nextRun"`
	Runs    []state.Run      `json:"runs"` // oldest first
	Pending []state.Approval `json:"pendingApprovals"`
	// ConfigProblem says why the configuration in use is not the file's
	// current content (it no longer loads); empty when it is.
	ConfigProblem string `json:"configProblem,omitempty"`
	// StateNote says what is not kept (no state directory).
	StateNote string `json:"stateNote,omitempty"`
}

// Handler serves "/" and "/api/runs" from what status returns at each
// request.
func Handler(status func() Status) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:")
		_ = Write(w, status())
	})
	mux.HandleFunc("GET /api/runs", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(status())
	})
	return mux
}

// Write writes the page of s: what "/" serves, or a snapshot to keep.
func Write(w io.Writer, s Status) error {
	return page.Execute(w, view{Status: s, Chart: Chart(s.Runs), Recent: newestFirst(s.Runs, maxRunsListed)})
}

// maxRunsListed is how many runs the page's table lists.
const maxRunsListed = 20

// view is what the template renders.
type view struct {
	Status
	Chart  template.HTML
	Recent []state.Run
}

// newestFirst returns the last n runs, the newest first.
func newestFirst(runs []state.Run, n int) []state.Run {
	out := make([]state.Run, 0, min(n, len(runs)))
	for i := len(runs) - 1; i >= 0 && len(out) < n; i-- {
		out = append(out, runs[i])
	}
	return out
}

// Protect requires a bearer token (token) or HTTP basic authentication
// (user, password) of h's requests; with neither set it is h. The secrets
// are read by load at each request, so that rotated ones apply at once.
func Protect(h http.Handler, load func() (token, user, password string, err error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, user, password, err := load()
		if err != nil {
			http.Error(w, "the status page's secret cannot be read", http.StatusInternalServerError)
			return
		}
		if token == "" && user == "" {
			h.ServeHTTP(w, r)
			return
		}
		if allowed(r, token, user, password) {
			h.ServeHTTP(w, r)
			return
		}
		if user != "" {
			w.Header().Set("WWW-Authenticate", `Basic realm="orgsync", charset="UTF-8"`)
		} else {
			w.Header().Set("WWW-Authenticate", `Bearer realm="orgsync"`)
		}
		http.Error(w, "unauthorized", http.StatusUnauthorized)
	})
}

// allowed reports whether r carries the token or the user and password.
func allowed(r *http.Request, token, user, password string) bool {
	if token != "" {
		got, ok := bearer(r.Header.Get("Authorization"))
		if ok && subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1 {
			return true
		}
	}
	if user != "" {
		u, p, ok := r.BasicAuth()
		return ok && subtle.ConstantTimeCompare([]byte(u), []byte(user))&subtle.ConstantTimeCompare([]byte(p), []byte(password)) == 1
	}
	return false
}

// bearer is the token of an "Authorization: Bearer <token>" header.
func bearer(h string) (string, bool) {
	const prefix = "bearer "
	if len(h) <= len(prefix) || !strings.EqualFold(h[:len(prefix)], prefix) {
		return "", false
	}
	return h[len(prefix):], true
}

//go:embed page.html
var files embed.FS

var page = template.Must(template.New("page.html").Funcs(template.FuncMap{
	"details": report.Details,
	"time":    func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05Z") },
	"isZero":  func(t time.Time) bool { return t.IsZero() },
}).ParseFS(files, "page.html"))
