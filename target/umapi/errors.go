package umapi

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/orgsync/orgsync/internal/util/outbound"
	"github.com/orgsync/orgsync/target/umwire"
)

// APIError is an answer of the service (or of the authorization server)
// that is not a success.
type APIError struct {
	Endpoint   string        // endpoint name, one of the Endpoint* constants
	StatusCode int           // HTTP status
	Code       string        // result code, invite status, 429 error_code or token error
	Message    string        // the service's message, when it gave one
	RetryAfter time.Duration // Retry-After of the answer, when present
	RequestID  string        // X-Request-Id of the failing attempt
	// page is set when the body is a web page, or text that is no JSON:
	// the service's answers never are.
	page bool
}

// Error describes the failure without any credential.
func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: HTTP %d", endpointLabel(e.Endpoint), e.StatusCode)
	if e.Code != "" {
		fmt.Fprintf(&b, " %s", e.Code)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, " (retry after %s)", e.RetryAfter)
	}
	if e.RequestID != "" {
		fmt.Fprintf(&b, " [request %s]", e.RequestID)
	}
	return b.String()
}

// NoAnswerError is the error of a request that changes something, sent
// whole (its body written to the service), that got no answer saying
// what the service did with it: the connection dropped or timed out
// before the answer, the answer was a 5xx or could not be read, or the
// run stopped while it waited. The service may have applied it.
type NoAnswerError struct{ Err error }

func (e *NoAnswerError) Error() string { return e.Err.Error() }
func (e *NoAnswerError) Unwrap() error { return e.Err }

// noAnswer returns err as a *NoAnswerError when unanswered is set (and
// err is not one already), else err.
func noAnswer(err error, unanswered bool) error {
	var na *NoAnswerError
	if err == nil || !unanswered || errors.As(err, &na) {
		return err
	}
	return &NoAnswerError{Err: err}
}

// endpointLabel names an endpoint in a message: the token endpoints as
// the sign-in, the others by their names.
func endpointLabel(endpoint string) string {
	if endpoint == EndpointToken {
		return "sign-in"
	}
	return endpoint
}

// StatusOf returns the HTTP status of an *APIError in err's chain, or 0.
func StatusOf(err error) int {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.StatusCode
	}
	return 0
}

// IsNotFound reports whether err is a 404 (user, group, domain, invites or
// product not found).
func IsNotFound(err error) bool { return StatusOf(err) == http.StatusNotFound }

// IsUnauthorized reports whether err is a 401 (invalid or expired token,
// invalid organization) that survived a token refresh.
func IsUnauthorized(err error) bool { return StatusOf(err) == http.StatusUnauthorized }

// IsForbidden reports whether err is a 403 (API key missing or not
// permitted, organization migrating).
func IsForbidden(err error) bool { return StatusOf(err) == http.StatusForbidden }

// IsRateLimited reports whether err is a 429 that outlived the retries.
func IsRateLimited(err error) bool { return StatusOf(err) == http.StatusTooManyRequests }

// IsAuthFailure reports whether err means the credentials are not accepted:
// the token request failed with a 4xx, or the service answered 401 or 403.
// Sending more requests with the same configuration is pointless.
func IsAuthFailure(err error) bool {
	var ae *APIError
	if !errors.As(err, &ae) {
		return false
	}
	if ae.Endpoint == EndpointToken {
		return ae.StatusCode >= 400 && ae.StatusCode < 500 && ae.StatusCode != http.StatusTooManyRequests
	}
	return ae.StatusCode == http.StatusUnauthorized || ae.StatusCode == http.StatusForbidden
}

// errorBody holds every error field the service's bodies use: read
// endpoints and whole-request action failures (result, message), invites
// (status, statusMessage), 429 (error_code, message) and the token
// endpoints (error, error_description).
type errorBody struct {
	Result           text `json:"result"`
	Message          text `json:"message"`
	Status           text `json:"status"`
	StatusMessage    text `json:"statusMessage"`
	ErrorCode        text `json:"error_code"`
	Error            text `json:"error"`
	ErrorDescription text `json:"error_description"`
}

// text is an error body's field: a JSON string, or a number or boolean
// kept as written (the specification names the fields of error bodies,
// not always their types); other values are left empty.
type text string

// UnmarshalJSON reads a string, number or boolean; it never fails, so
// that one field of an unexpected type does not lose the others.
func (t *text) UnmarshalJSON(b []byte) error {
	var s string
	switch {
	case json.Unmarshal(b, &s) == nil:
		*t = text(s)
	case len(b) > 0 && b[0] != '{' && b[0] != '[' && string(b) != "null":
		*t = text(b)
	}
	return nil
}

// maxErrorBody bounds how much of an error body is read.
const maxErrorBody = 64 << 10

// newAPIError builds the error of a non-success response and closes its body.
func newAPIError(endpoint string, resp *http.Response) *APIError {
	defer resp.Body.Close()
	ae := &APIError{
		Endpoint:   endpoint,
		StatusCode: resp.StatusCode,
		RetryAfter: parseRetryAfter(resp.Header.Get(umwire.HeaderRetryAfter), time.Now()),
		RequestID:  requestIDOf(resp),
	}
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	ae.page = webPage(resp) || len(bytes.TrimSpace(raw)) > 0 && !json.Valid(raw)
	var body errorBody
	if json.Unmarshal(raw, &body) == nil {
		ae.Code = string(cmp.Or(body.Result, body.Status, body.ErrorCode, body.Error))
		ae.Message = string(cmp.Or(body.Message, body.StatusMessage, body.ErrorDescription))
	}
	return ae
}

// webPage reports whether an answer says it is a web page (HTML), which
// the service, whose every body is JSON, never sends.
func webPage(resp *http.Response) bool {
	return strings.Contains(strings.ToLower(resp.Header.Get("Content-Type")), "html")
}

// notService returns, for a refusal of an API request, the error to give
// when it is no refusal of the service but a web server's page: the
// service's refusals are JSON with an error code (but its 401, which may
// be empty, and the 429s and 5xx a proxy in front of it may send). nil
// otherwise.
func (e *APIError) notService(origin string) error {
	s := e.StatusCode
	if e.Code != "" || !e.page || s == http.StatusUnauthorized || s == http.StatusTooManyRequests || s >= 500 && s != http.StatusNotImplemented {
		return nil
	}
	return &UnreachableError{Endpoint: e.Endpoint, URL: origin, Attempts: 1, Reason: ReasonNotService, Err: e}
}

// requestIDOf returns the answer's X-Request-Id, else the one the attempt
// was sent with.
func requestIDOf(resp *http.Response) string {
	if id := resp.Header.Get(umwire.HeaderRequestID); id != "" {
		return id
	}
	if resp.Request != nil {
		return resp.Request.Header.Get(umwire.HeaderRequestID)
	}
	return ""
}

// maxRetryAfter bounds the wait a Retry-After can ask for: a longer one
// (or one too large to count in nanoseconds) is taken as this.
const maxRetryAfter = time.Hour

// parseRetryAfter reads a Retry-After value in seconds or as an HTTP date
// (relative to now), at most maxRetryAfter; it returns 0 when the value is
// absent or unreadable.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		return time.Duration(min(max(secs, 0), int64(maxRetryAfter/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return min(max(t.Sub(now), 0), maxRetryAfter)
	}
	return 0
}

// Reason says why an address that has never answered this client cannot
// be used.
type Reason string

// The reasons of UnreachableError.
const (
	ReasonRefused     Reason = "refused"      // nothing listens there, or no route to it
	ReasonUnknownHost Reason = "unknown host" // its host name does not resolve
	ReasonNoAnswer    Reason = "no answer"    // it accepts connections and answers nothing within Config.Timeout
	ReasonPlainHTTP   Reason = "plain HTTP"   // an https:// address whose server speaks plain HTTP
	ReasonNotService  Reason = "not service"  // a web server that does not answer like the service (its token endpoint)
)

// attempts is how many attempts a reason gets: a refused connection or an
// unknown host may be a service starting or a name server catching up, so
// it is tried fastAttempts times; waiting Config.Timeout again for an
// address that never answered, or asking again in a protocol the server
// does not speak, only delays the error.
func (r Reason) attempts() int {
	if r == ReasonRefused || r == ReasonUnknownHost {
		return fastAttempts
	}
	return 1
}

// reasonOf classifies a failed attempt's error: "" when it is no reason
// to think the address is wrong.
func reasonOf(err error) Reason {
	var dns *net.DNSError
	var timeout *outbound.TimeoutError
	switch {
	case errors.As(err, &dns):
		if dns.IsTimeout || dns.IsTemporary {
			return ""
		}
		return ReasonUnknownHost
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return ReasonRefused
	case errors.As(err, &timeout):
		return ReasonNoAnswer
	case strings.Contains(err.Error(), plainHTTPError):
		return ReasonPlainHTTP
	}
	return ""
}

// plainHTTPError is the text of net/http's error for an https:// request
// answered in plain HTTP (it has no error type of its own).
const plainHTTPError = "server gave HTTP response to HTTPS client"

// UnreachableError is a request to an address that never answered this
// client and cannot be used: it refused the connection (or its host name
// does not resolve) on every one of a few quick attempts, it accepted the
// connection and answered nothing within the attempt timeout, or it
// answered plain HTTP to an https:// address. A wrong address or a service
// that is down is reported at once rather than after the full back-off.
type UnreachableError struct {
	Endpoint string // endpoint name; EndpointToken for the authorization server
	URL      string // scheme://host:port that was tried
	Attempts int
	Reason   Reason
	Err      error // the last attempt's error
}

// Error names the server, the address and the cause.
func (e *UnreachableError) Error() string {
	what := "the service"
	if e.Endpoint == EndpointToken {
		what = "the authorization server"
	}
	switch e.Reason {
	case ReasonNoAnswer:
		return fmt.Sprintf("%s at %s accepts connections but gave %s", what, e.URL, e.Err)
	case ReasonPlainHTTP:
		return fmt.Sprintf("%s at %s answers plain HTTP, not HTTPS", what, e.URL)
	case ReasonNotService:
		if e.Endpoint == EndpointToken {
			what = "the service's authorization server"
		}
		return fmt.Sprintf("the address %s does not answer like %s (%s)", e.URL, what, e.Err)
	}
	return fmt.Sprintf("cannot reach %s at %s after %d attempts: %s", what, e.URL, e.Attempts, unreachableCause(e.Err))
}

// Unwrap returns the last attempt's error.
func (e *UnreachableError) Unwrap() error { return e.Err }

// unreachableCause says in a few words why an address cannot be reached.
func unreachableCause(err error) string {
	var dns *net.DNSError
	switch {
	case errors.As(err, &dns):
		return "unknown host " + dns.Name
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused (nothing listens there)"
	}
	return err.Error()
}
