package statuspage

import (
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/internal/util/oneline"
	"github.com/orgsync/orgsync/reconcile"
)

// The per-user lookup's bounds: the user asked for, and the entries shown
// (the latest).
const (
	maxUserLen     = 320
	maxHistoryRows = 200
)

// history serves /history?user=: a form (no script) and what orgsync did
// to that user and why, from the state directory's history, the latest
// first, like orgsync history --user; and the changes of the user that
// approvals hold now.
func (p *Page) history(w http.ResponseWriter, r *http.Request) {
	s := p.Status()
	loc := s.Location
	if loc == nil {
		loc = time.UTC
	}
	v := lookup{User: strings.TrimSpace(r.URL.Query().Get("user")), Location: loc}
	code := http.StatusOK
	switch {
	case p.History == nil:
		v.Problem, code = "the history is not kept: set state.dir", http.StatusNotFound
	case len(v.User) > maxUserLen:
		v.Problem, v.User, code = "that is not a user name: too long", "", http.StatusBadRequest
	case v.User != "":
		entries, err := p.History(v.User)
		if err != nil {
			v.Problem, code = err.Error(), http.StatusInternalServerError
		}
		v.Total = len(entries)
		v.Entries = newestEntries(entries, maxHistoryRows)
		v.Held = heldFor(s.Pending, v.User)
		v.Asked = true
	}
	htmlHeaders(w)
	w.WriteHeader(code)
	_ = lookupPage.Execute(w, v)
}

// lookup is what the per-user lookup shows.
type lookup struct {
	User     string
	Asked    bool // a user was looked up
	Problem  string
	Entries  []store.Entry // the latest first
	Total    int           // entries recorded of the user
	Held     []heldChange
	Location *time.Location
}

// heldChange is one of the user's changes an approval holds.
type heldChange struct {
	Approval, Org string
	Since         time.Time
	Change        string
}

// heldFor lists the changes of user the pending approvals hold.
func heldFor(pending []store.Approval, user string) []heldChange {
	var out []heldChange
	for _, a := range pending {
		for i := range a.Changes {
			if c := &a.Changes[i]; matchesUser(c, user) {
				out = append(out, heldChange{Approval: a.ID, Org: a.Org, Since: a.Created, Change: oneline.Change(c)})
			}
		}
	}
	return out
}

// matchesUser reports whether change c is of user (its key: an email, or
// username@domain), in any case.
func matchesUser(c *reconcile.Change, user string) bool {
	return strings.EqualFold(c.Key(), user)
}

// newestEntries returns the last n entries, the latest first.
func newestEntries(entries []store.Entry, n int) []store.Entry {
	out := make([]store.Entry, 0, min(n, len(entries)))
	for i := len(entries) - 1; i >= 0 && len(out) < n; i-- {
		out = append(out, entries[i])
	}
	return out
}

var lookupPage = template.Must(template.New("history").Funcs(funcs).Funcs(template.FuncMap{"join": strings.Join}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>orgsync: history{{with .User}} of {{.}}{{end}}</title>
<style>body { font-family: system-ui, sans-serif; margin: 1.5em 2em; color: #222; }
table { border-collapse: collapse; margin: .5em 0 1.5em; } th, td { border: 1px solid #ccc; padding: .25em .6em; text-align: left; vertical-align: top; }
th { background: #f0f0f0; } .failed { color: #a00; font-weight: bold; } .unknown { color: #8a5a00; font-weight: bold; } .note { color: #555; } input { font-size: 100%; padding: .3em; width: 24em; }
.held { border: 2px solid #b7791f; background: #fff6e0; padding: .6em 1em; }</style></head>
<body><h1>What orgsync did to a user</h1>
<form method="get" action="history"><label for="user">User (email, or username@domain)</label>
<input id="user" name="user" value="{{.User}}" maxlength="320" required> <button type="submit" id="lookup">Look up</button></form>
<p class="note">From the history orgsync keeps in its state directory, as <code>orgsync history --user USER</code> prints it. <a href="./">Back to the status page</a></p>
{{with .Problem}}<p class="failed" id="problem">{{.}}</p>{{end}}
{{if .Asked}}
{{if .Held}}<div class="held" id="held"><strong>Held for approval now:</strong><ul>{{range .Held}}<li>{{.Change}}, in approval {{.Approval}} (organization {{.Org}}, held {{clock .Since $.Location}})</li>{{end}}</ul></div>{{end}}
<h2>{{.Total}} change{{if ne .Total 1}}s{{end}} recorded of {{.User}}{{if gt .Total (len .Entries)}} (the latest {{len .Entries}} shown){{end}}</h2>
<table id="history"><tr><th>When</th><th>Organization</th><th>Change</th><th>Steps</th><th>Result</th><th>Why</th></tr>
{{range .Entries}}<tr><td>{{clock .Time $.Location}}</td><td>{{.Org}}</td><td>{{.Kind}}</td><td>{{join .Steps "; "}}</td><td class="{{.Result}}">{{.Result}}{{with .Code}} {{.}}{{end}}{{with .Message}}: {{.}}{{end}}</td><td>{{.Reason}}{{with .Approval}} (approval {{.}}{{end}}{{with .DecidedBy}}, approved by {{.}}{{end}}{{if .Approval}}){{end}}</td></tr>
{{else}}<tr><td colspan="6">no change recorded of this user</td></tr>
{{end}}</table>
{{end}}
</body></html>
`))
