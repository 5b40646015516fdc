package statuspage

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"html/template"
	"net/http"

	"github.com/orgsync/orgsync/internal/store"
)

// Decide approves or rejects (action) pending approval id, decided by
// who, and returns what it did, in a few lines.
type Decide func(ctx context.Context, id, action string, who store.Decider) (string, error)

// The actions of the page's forms.
const (
	ActionApprove = "approve"
	ActionReject  = "reject"
)

// forms makes and checks the anti-forgery token of the page's forms: an
// HMAC, under a key of this process, of who the page was shown to and
// what the form does. A form another site made, or one shown to someone
// else, does not carry it.
type forms struct{ key []byte }

func newForms() *forms {
	key := make([]byte, 32)
	_, _ = rand.Read(key) // never fails (Go 1.24)
	return &forms{key: key}
}

// token is the token of the form that does action on approval id for who.
func (f *forms) token(who store.Decider, id, action string) string {
	m := hmac.New(sha256.New, f.key)
	for _, s := range []string{who.By, who.Via, id, action} {
		m.Write([]byte(s))
		m.Write([]byte{0})
	}
	return hex.EncodeToString(m.Sum(nil))
}

// valid reports whether got is the token of that form.
func (f *forms) valid(who store.Decider, id, action, got string) bool {
	return hmac.Equal([]byte(got), []byte(f.token(who, id, action)))
}

// decision serves POST /approvals/{id}/{action}: only on a page with
// authentication, from its own form (Go's cross-origin protection in
// front refuses a cross-site request; the token, a form of another page).
func (s *server) decision(w http.ResponseWriter, r *http.Request) {
	who, ok := Who(r)
	id, action := r.PathValue("id"), r.PathValue("action")
	switch {
	case action != ActionApprove && action != ActionReject:
		http.NotFound(w, r)
		return
	case !ok || s.decide == nil:
		http.Error(w, "approving and rejecting on the status page needs its authentication: set status.token, or status.username and status.password "+
			"(orgsync approve ID and orgsync reject ID work without it)", http.StatusForbidden)
		return
	case !s.forms.valid(who, id, action, r.PostFormValue("csrf")):
		http.Error(w, "this form is not the status page's, or is stale: open the status page again and use its button", http.StatusForbidden)
		return
	}
	msg, err := s.decide(context.WithoutCancel(r.Context()), id, action, who)
	code := http.StatusOK
	if err != nil {
		code, msg = http.StatusConflict, msg+err.Error()
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", csp)
	w.WriteHeader(code)
	_ = decided.Execute(w, map[string]any{"ID": id, "Action": action, "Who": who.String(), "Message": msg, "Failed": err != nil})
}

var decided = template.Must(template.New("decided").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>orgsync: approval {{.ID}}</title>
<style>body { font-family: system-ui, sans-serif; margin: 1.5em 2em; color: #222; } .failure { color: #a00; }</style></head>
<body><h1>Approval {{.ID}}: {{.Action}}{{if .Failed}} <span class="failure">failed</span>{{end}}</h1>
<p>Decided by {{.Who}}.</p>
<pre id="outcome">{{.Message}}</pre>
<p><a href="../../">Back to the status page</a></p></body></html>
`))
