package restapi

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// TestGoogleErrors: a Google API's error body gives the StatusError its
// reason and message, and a 403 is throttling only for a rate-limit
// reason; the body stays readable after the check.
func TestGoogleErrors(t *testing.T) {
	t.Parallel()
	body := func(code int, reason string) string {
		return `{"error":{"code":` + strconv.Itoa(code) + `,"message":"m ` + reason + `","errors":[{"domain":"global","reason":"` + reason + `","message":"x"}]}}`
	}
	for _, c := range []struct {
		status    int
		body      string
		throttled bool
		code, msg string
	}{
		{403, body(403, "userRateLimitExceeded"), true, "userRateLimitExceeded", "m userRateLimitExceeded"},
		{403, body(403, "rateLimitExceeded"), true, "rateLimitExceeded", "m rateLimitExceeded"},
		{403, body(403, "quotaExceeded"), true, "quotaExceeded", "m quotaExceeded"}, // too many requests at once
		{403, body(403, "forbidden"), false, "forbidden", "m forbidden"},
		{403, body(403, "insufficientPermissions"), false, "insufficientPermissions", "m insufficientPermissions"},
		{400, body(400, "invalidParameter"), false, "invalidParameter", "m invalidParameter"},
		{403, `{"error":{"code":"Authorization_RequestDenied","message":"graph"}}`, false, "Authorization_RequestDenied", "graph"},
		{403, `not json`, false, "", ""},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(c.status)
			_, _ = io.WriteString(w, c.body)
		}))
		resp, err := http.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		if got := throttled(resp); got != c.throttled {
			t.Errorf("%s: throttled %v, want %v", c.body, got, c.throttled)
		}
		if retry, _ := checkRetry(t.Context(), resp, nil); retry != c.throttled {
			t.Errorf("%s: retried %v", c.body, retry)
		}
		se := newStatusError(resp)
		if se.Code != c.code || se.Message != c.msg {
			t.Errorf("%s: code %q message %q, want %q %q", c.body, se.Code, se.Message, c.code, c.msg)
		}
		resp.Body.Close()
		srv.Close()
	}
}

// TestJWTBearerHidesItsKey: printing the sign-in shows no key.
func TestJWTBearerHidesItsKey(t *testing.T) {
	t.Parallel()
	j := JWTBearer{TokenURL: "https://oauth2.googleapis.com/token", Email: "sa@p.iam.gserviceaccount.com",
		PrivateKey: "-----BEGIN PRIVATE KEY-----\nsecret-bytes\n-----END PRIVATE KEY-----\n", Subject: "admin@example.com"}
	for _, f := range []string{"%v", "%+v", "%#v", "%s"} {
		if out := fmt.Sprintf(f, j); strings.Contains(out, "secret-bytes") {
			t.Errorf("%s shows the key: %s", f, out)
		}
	}
}
