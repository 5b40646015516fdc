package umapi

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// An API address that is a web server, not the service, while the token
// server is right (baseURL and authBaseURL apart): its pages (a 404 page,
// a 200 HTML page) are reported as not the service's answers, at once;
// the service's own JSON refusals are not.
func TestAPIEndpointUnlikeTheService(t *testing.T) {
	t.Parallel()
	f := newFake(t, okUser)
	for _, c := range []struct {
		status      int
		contentType string
		body        string
		notService  bool
	}{
		{http.StatusNotFound, "text/plain; charset=utf-8", "404 page not found\n", true},
		{http.StatusNotFound, "text/html", "<html>not found</html>", true},
		{http.StatusOK, "text/html", "<html>welcome</html>", true},
		{http.StatusMethodNotAllowed, "text/html", "<html>no</html>", true},
		{http.StatusNotFound, "application/json", `{"result":"error.user.not_found","message":"no such user"}`, false},
		{http.StatusBadRequest, "application/json", `{"result":"error.request.malformed"}`, false},
	} {
		web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", c.contentType)
			w.WriteHeader(c.status)
			_, _ = io.WriteString(w, c.body)
		}))
		cl := mustClient(t, Config{AuthMethod: AuthOAuth, BaseURL: web.URL, AuthBaseURL: f.srv.URL, OrgID: fakeOrg, ClientID: "c", ClientSecret: "s",
			MaxRetries: 1, RetryWaitMin: time.Millisecond, RetryWaitMax: time.Millisecond})
		_, err := cl.GetUser(context.Background(), "a@b.c", "")
		web.Close()
		var ue *UnreachableError
		got := errors.As(err, &ue) && ue.Reason == ReasonNotService && ue.URL == web.URL
		if got != c.notService || err == nil {
			t.Errorf("HTTP %d %s: err = %v, not the service: %v, want %v", c.status, c.contentType, err, got, c.notService)
		}
		if c.notService && (!strings.Contains(err.Error(), "does not answer like the service (") || strings.Contains(err.Error(), "authorization server")) {
			t.Errorf("HTTP %d: error %q does not say the API address is not the service's", c.status, err)
		}
	}
}
