package umapi

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/target/umwire"
)

func errorResponse(status int, retryAfter, body string) *http.Response {
	h := http.Header{}
	h.Set(umwire.HeaderRetryAfter, retryAfter)
	h.Set(umwire.HeaderRequestID, "req-1")
	return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(strings.NewReader(body))}
}

// Each error body shape of the service gives its code and message.
func TestAPIErrorBodies(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status          int
		body            string
		code, message   string
		retry           time.Duration
		notFound, limit bool
	}{
		{404, `{"result":"error.user.not_found","message":"no such user"}`, "error.user.not_found", "no such user", 0, true, false},
		{404, `{"status":"invites.pending.not_found","statusMessage":"none"}`, umwire.InviteNotFound, "none", 0, true, false},
		{429, `{"error_code":"429050","message":"Too many requests"}`, umwire.RateLimitCode, "Too many requests", 3 * time.Second, false, true},
		{400, `{"error":"invalid_client","error_description":"bad secret"}`, "invalid_client", "bad secret", 0, false, false},
		{401, ``, "", "", 0, false, false},
		// The specification names the fields, not always their types: a
		// code sent as a number still gives the code and the message.
		{429, `{"error_code":429050,"message":"Too many requests"}`, umwire.RateLimitCode, "Too many requests", 3 * time.Second, false, true},
		{500, `{"status":500,"statusMessage":"resend failed"}`, "500", "resend failed", 0, false, false},
	} {
		retryAfter := ""
		if tc.retry > 0 {
			retryAfter = "3"
		}
		ae := newAPIError(EndpointUser, errorResponse(tc.status, retryAfter, tc.body))
		if ae.Code != tc.code || ae.Message != tc.message || ae.RetryAfter != tc.retry || ae.RequestID != "req-1" ||
			IsNotFound(ae) != tc.notFound || IsRateLimited(ae) != tc.limit {
			t.Errorf("%d %s: got %+v", tc.status, tc.body, ae)
		}
	}
}

// FuzzAPIError: any answer gives an error that names the endpoint and
// status, with a Retry-After that is never negative.
func FuzzAPIError(f *testing.F) {
	f.Add(429, "7", `{"error_code":"429050","message":"x"}`)
	f.Add(500, "Fri, 31 Dec 1999 23:59:59 GMT", `{"result":1}`)
	f.Add(404, "-5", `not json`)
	f.Fuzz(func(t *testing.T, status int, retryAfter, body string) {
		ae := newAPIError(EndpointAction, errorResponse(status, retryAfter, body))
		if ae.RetryAfter < 0 || ae.StatusCode != status || !strings.HasPrefix(ae.Error(), "action: HTTP") {
			t.Fatalf("status %d retry %q body %q: %+v", status, retryAfter, body, ae)
		}
	})
}
