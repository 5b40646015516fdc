// Package statuspage is the daemon's status page, built as a security
// boundary (it approves removals). "/" is one HTML page (html/template,
// styles inline, the chart drawn here as SVG; no script, no external
// asset) with a banner per organization (failing, changes held for
// approval, or in sync), the last runs, the next run, the pending
// approvals and their changes, the approvals decided lately, and a
// problem with the configuration; "/api/runs" is the same as JSON;
// "/history?user=" looks up what orgsync did to one user.
//
// Every request goes through one gate (protect): an open page answers
// only its own host names (against DNS rebinding); a protected one wants
// a bearer token, basic authentication or the session of a token login,
// counting and logging failed logins and locking out an address that
// fails too often. Behind it, approving takes a confirm step that shows
// what will be sent, and every form carries a token bound to who sees it,
// what it does and the page's current credentials. Headers puts the
// security headers (no framing, no sniffing, no referrer) on every
// response of the daemon.
package statuspage

import (
	"crypto/rand"
	"embed"
	"html/template"
	"io"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/internal/changecontrol/runreport"
	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/internal/util/oneline"
	"github.com/orgsync/orgsync/reconcile"
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

// Access is who may use the page, and by which names: the credentials
// (none: the page is open) and, for an open page, the host names it
// answers beside IP addresses and localhost (the listen address's host,
// status.allowedHosts).
type Access struct {
	Credentials
	Listen       string
	AllowedHosts []string
}

// History returns the history entries of one user (an email, or
// username@domain), oldest first.
type History func(user string) ([]store.Entry, error)

// Options make a Page.
type Options struct {
	Status func() Status // what the page shows now
	// Decide, when set, approves and rejects on the page, for requests
	// that authenticated; nil: nothing is decided on the page.
	Decide Decide
	// History, when set, serves the per-user lookup.
	History History
	// Access returns the page's current access (read by the daemon at
	// start and when it reads its configuration again); nil: open, on
	// loopback.
	Access func() *Access
	Log    *zap.Logger      // failed logins; nil: none
	Now    func() time.Time // nil: time.Now
}

// Page serves the status page.
type Page struct {
	Options
	handler     http.Handler
	forms       *forms
	sessions    *sessions
	throttle    *throttle
	crossOrigin *http.CrossOriginProtection
	log         *zap.Logger
}

// New makes the page of o.
func New(o Options) *Page {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Access == nil {
		open := &Access{Listen: "127.0.0.1:0"}
		o.Access = func() *Access { return open }
	}
	p := &Page{Options: o, forms: &forms{key: newKey()}, sessions: &sessions{key: newKey(), now: o.Now},
		throttle: newThrottle(o.Now), crossOrigin: http.NewCrossOriginProtection(), log: o.Log}
	if p.log == nil {
		p.log = zap.NewNop()
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", p.index)
	mux.HandleFunc("GET /api/runs", p.apiRuns)
	mux.HandleFunc("GET /history", p.history)
	mux.Handle("POST /logout", p.crossOrigin.Handler(http.HandlerFunc(p.logout)))
	mux.Handle("POST /approvals/{id}/{action}", p.crossOrigin.Handler(http.HandlerFunc(p.decision)))
	p.handler = p.protect(mux)
	return p
}

// Handler is the page of status, open (on loopback), deciding with
// decide (nil: nothing), with the security headers.
func Handler(status func() Status, decide Decide) http.Handler {
	return Headers(New(Options{Status: status, Decide: decide}))
}

// newKey is a fresh 32-byte key of this process.
func newKey() []byte {
	key := make([]byte, 32)
	_, _ = rand.Read(key) // never fails (Go 1.24)
	return key
}

// ServeHTTP serves the page's request r.
func (p *Page) ServeHTTP(w http.ResponseWriter, r *http.Request) { p.handler.ServeHTTP(w, r) }

// creds are the page's current credentials.
func (p *Page) creds() *Credentials { return &p.Access().Credentials }

// index serves the page.
func (p *Page) index(w http.ResponseWriter, r *http.Request) {
	htmlHeaders(w)
	v := newView(p.Status())
	if who, ok := Who(r); ok {
		v.Who, v.Session = who.String(), who.Via == viaSession
		if p.Decide != nil {
			c := p.creds()
			v.Forms = func(id, action string) string { return p.forms.token(c, who, id, action, "") }
		}
	}
	_ = page.Execute(w, v)
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
	// id, action); Who is who the page is shown to, Session whether by a
	// token login (the page then offers to log out).
	Forms   func(id, action string) string
	Who     string
	Session bool
}

func newView(s Status) view {
	if s.Location == nil {
		s.Location = time.UTC
	}
	return view{Status: s, Chart: Chart(s.Runs, s.Location), Recent: newestFirst(s.Runs, maxRunsListed), Banner: Banner(s.Runs, s.Pending)}
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

var page = template.Must(template.New("page.html").Funcs(funcs).ParseFS(files, "page.html"))

// funcs are the functions of the page's templates.
var funcs = template.FuncMap{
	"details": runreport.Details,
	"isZero":  func(t time.Time) bool { return t.IsZero() },
	"clock":   clock,
	"decided": Decided,
	"line":    func(c reconcile.Change) string { return oneline.Change(&c) },
}

// clock is t in loc, to the second, with the zone's abbreviation.
func clock(t time.Time, loc *time.Location) string {
	return t.In(loc).Format("2006-01-02 15:04:05 MST")
}
