package statuspage

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestAFailedDecisionsPageEscapesWhy: the result page of a failed
// decision says in its heading whether the approval is still pending and
// the phase, and shows the error (a directory value or a server's answer
// may be in it) as text, never as markup.
func TestAFailedDecisionsPageEscapesWhy(t *testing.T) {
	fail := func(context.Context, Decision) (Outcome, error) {
		return Outcome{State: "still pending", Pending: true, Phase: "read"}, errors.New(`the service answered <script>alert("x")</script>`)
	}
	h := protected(&Access{Credentials: Credentials{User: "ops", Password: "pw"}}, fail)
	_, page := get(t, h, "/", basicOps...)
	code, body := post(h, "/approvals/0123abcd/review", []string{"csrf", formToken(t, page, "approvals/0123abcd/review")},
		append([]string{"Sec-Fetch-Site", "same-origin"}, basicOps...)...)
	if code != 409 || !strings.Contains(body, ">Approval 0123abcd is still pending: approving failed in phase read</h1>") ||
		strings.Contains(body, "<script>") || !strings.Contains(body, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;") {
		t.Errorf("a failed review's page: %d\n%s", code, body)
	}
}
