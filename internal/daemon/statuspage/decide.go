package statuspage

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"html/template"
	"net/http"
	"time"

	"github.com/orgsync/orgsync/internal/store"
)

// The actions of the page's forms: review shows what approving applies
// now (the confirm step; nothing is applied), approve applies it,
// reject discards the approval.
const (
	ActionReview  = "review"
	ActionApprove = "approve"
	ActionReject  = "reject"
)

// Decision is one decision taken on the page.
type Decision struct {
	ID, Action string
	Who        store.Decider
	// Reviewed is, for an approve, the Digest of the review the approver
	// confirmed: the approval is applied only while what it applies is
	// still that.
	Reviewed string
}

// Outcome is what a decision did, for its result page.
type Outcome struct {
	// Text says what it did (a review: what approving applies), in a few
	// lines.
	Text string
	// Applies and Digest are a review's: whether approving applies
	// anything, and what identifies what it applies.
	Applies bool
	Digest  string
	// State is the approval's state after the decision, in words;
	// Pending says that it is still pending. Phase is where a decision
	// that failed stopped (sources, sign-in, read, apply...), as the run
	// records it; "" when it did not run.
	State   string
	Pending bool
	Phase   string
}

// Decide takes decision d and says what it did. An approve whose review
// no longer holds returns ErrReviewChanged with a fresh review.
type Decide func(ctx context.Context, d Decision) (Outcome, error)

// ErrReviewChanged is an approve's error when what approving applies
// changed since the approver reviewed it: nothing was applied.
var ErrReviewChanged = errors.New("what approving applies changed since you reviewed it: nothing was applied; review it again")

// decisionTimeout bounds the writing of a decision's result page: an
// approve plans and applies, which can take minutes, longer than the
// server's write timeout.
const decisionTimeout = 2 * time.Hour

// forms makes and checks the anti-forgery token of the page's forms: an
// HMAC, under a key of this process, of the page's credentials, who the
// page was shown to and what the form does. A form another site made,
// one shown to someone else, or one shown before the token or password
// changed does not carry it.
type forms struct{ key []byte }

// token is the token of the form that does action on approval id for
// who, under credentials c; extra binds what the form carries (a
// review's digest).
func (f *forms) token(c *Credentials, who store.Decider, id, action, extra string) string {
	m := hmac.New(sha256.New, f.key)
	m.Write(c.fingerprint())
	for _, s := range []string{who.By, who.Via, id, action, extra} {
		m.Write([]byte(s))
		m.Write([]byte{0})
	}
	return hex.EncodeToString(m.Sum(nil))
}

// valid reports whether got is the token of that form.
func (f *forms) valid(c *Credentials, who store.Decider, id, action, extra, got string) bool {
	return hmac.Equal([]byte(got), []byte(f.token(c, who, id, action, extra)))
}

// decision serves POST /approvals/{id}/{action}: only on a page with
// authentication, from its own form (Go's cross-origin protection in
// front refuses a cross-site request; the token, a form of another page
// or of other credentials). Review shows what approving applies, with
// the button that applies exactly that.
func (p *Page) decision(w http.ResponseWriter, r *http.Request) {
	who, ok := Who(r)
	id, action := r.PathValue("id"), r.PathValue("action")
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	reviewed := r.PostFormValue("reviewed")
	c := p.creds()
	switch {
	case action != ActionReview && action != ActionApprove && action != ActionReject:
		http.NotFound(w, r)
		return
	case !ok || p.Decide == nil:
		http.Error(w, "approving and rejecting on the status page needs its authentication: set status.token, or status.username and status.password "+
			"(orgsync approve ID and orgsync reject ID work without it)", http.StatusForbidden)
		return
	case !p.forms.valid(c, who, id, action, reviewed, r.PostFormValue("csrf")):
		http.Error(w, "this form is not the status page's, or is stale (the page's token or password changed since): open the status page again and use its button", http.StatusForbidden)
		return
	}
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(decisionTimeout))
	out, err := p.Decide(context.WithoutCancel(r.Context()), Decision{ID: id, Action: action, Who: who, Reviewed: reviewed})
	res := result{ID: id, Action: action, Who: who.String(), Outcome: out}
	code := http.StatusOK
	switch {
	case errors.Is(err, ErrReviewChanged):
		res.Action, res.Changed, code = ActionReview, true, http.StatusConflict
	case err != nil:
		res.Error, code = err.Error(), http.StatusConflict
	}
	if (res.Action == ActionReview && err == nil) || res.Changed {
		res.Apply = p.forms.token(c, who, id, ActionApprove, out.Digest)
	}
	htmlHeaders(w)
	w.WriteHeader(code)
	_ = decided.Execute(w, res)
}

// result is what a decision's page shows.
type result struct {
	ID, Action, Who string
	Outcome
	Error   string // why it failed
	Changed bool   // the review no longer held: here is the new one
	Apply   string // a review's: the token of the form that applies it
}

var decided = template.Must(template.New("decided").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>orgsync: approval {{.ID}}</title>
<style>body { font-family: system-ui, sans-serif; margin: 1.5em 2em; color: #222; } .failure { color: #a00; }
pre { background: #f6f6f6; padding: .6em; white-space: pre-wrap; }
form { display: inline; } .actions { margin: 1.2em 0; }
button.apply { background: #b3261e; color: #fff; border: 0; border-radius: 4px; padding: .5em 1.2em; font-size: 100%; font-weight: bold; cursor: pointer; }
a.cancel { display: inline-block; margin-left: 2.5em; padding: .45em 1.2em; border: 1px solid #888; border-radius: 4px; color: #222; text-decoration: none; background: #fff; }</style></head>
<body>
{{- if .Error}}
<h1 id="result-title" class="failure">Approval {{.ID}}{{if .Pending}} is still pending:{{else}}:{{end}} {{if eq .Action "reject"}}rejecting{{else}}approving{{end}} failed{{with .Phase}} in phase {{.}}{{end}}</h1>
<p>Tried by {{.Who}}.</p>
<p><strong>Why:</strong></p><pre id="error">{{.Error}}</pre>
{{with .State}}<p id="state"><strong>The approval now:</strong> {{.}}</p>{{end}}
{{with .Text}}<p>What it did before it failed:</p><pre id="outcome">{{.}}</pre>{{end}}
<p>Fix the cause and try again from the status page, or run <code>orgsync {{if eq .Action "reject"}}reject{{else}}approve{{end}} {{.ID}}</code> on the daemon's machine to see every step.</p>
{{- else if eq .Action "review"}}
<h1 id="review-title">Approval {{.ID}}: review before applying</h1>
{{if .Changed}}<p class="failure" id="changed"><strong>What approving applies changed since you reviewed it: nothing was applied.</strong> Here is what it applies now.</p>{{end}}
<p>This is what approving sends to the service now (planned afresh from the sources and the organization; nothing has been sent yet):</p>
<pre id="outcome">{{.Text}}</pre>
<div class="actions"><form method="post" action="approve"><input type="hidden" name="csrf" value="{{.Apply}}"><input type="hidden" name="reviewed" value="{{.Digest}}">
<button type="submit" class="apply" id="apply-{{.ID}}">{{if .Applies}}Apply these changes{{else}}Approve (nothing to apply: drops the approval){{end}}</button></form>
<a class="cancel" id="cancel" href="../../">Cancel: back to the status page</a></div>
<p>As {{.Who}}. Applying is refused if what it sends changes before you confirm.</p>
{{- else}}
<h1 id="result-title">Approval {{.ID}}: {{if eq .Action "approve"}}approved{{else}}rejected{{end}}</h1>
<p>Decided by {{.Who}}.</p>
<pre id="outcome">{{.Text}}</pre>
{{with .State}}<p id="state">{{.}}</p>{{end}}
{{- end}}
<p><a href="../../">Back to the status page</a></p></body></html>
`))
