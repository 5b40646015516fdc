package restapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/hashicorp/go-retryablehttp"

	"github.com/orgsync/orgsync/internal/util/crash"
)

// Page decodes one page's answer and returns the URL of the next page,
// "" after the last.
type Page func(resp *http.Response) (next string, err error)

// Walk gets the page at first (a URL or a path below the base URL) and
// then each next page that page returns, with the header hdr. It stops at
// the first error: a read is whole or fails.
func (c *Client) Walk(ctx context.Context, first string, hdr http.Header, page Page) error {
	seen := map[string]bool{}
	for u := first; u != ""; {
		abs, err := c.resolveNew(u, seen)
		if err != nil {
			return err
		}
		resp, err := c.fetch(ctx, abs, hdr)
		if err != nil {
			return err
		}
		u, err = page(resp)
		resp.Body.Close()
		if err != nil {
			return fmt.Errorf("GET %s: reading the answer: %w", pathOf(abs), err)
		}
	}
	return nil
}

// WalkLinked is Walk for an API whose next page is named by the Link
// header (rel="next"): the next page is requested while this one is
// decoded, so that the server and the decoding work at the same time.
func (c *Client) WalkLinked(ctx context.Context, first string, hdr http.Header, decode func(io.Reader) error) error {
	return c.WalkAhead(ctx, first, hdr, func(h http.Header, _ []byte) (string, error) { return NextLink(h), nil }, decode)
}

// WalkAhead is Walk that reads each page whole and asks next for the URL
// of the page after it ("" after the last; from the headers, or from the
// body, as a nextPageToken), then requests that page while decode reads
// this one. The page's bytes are reused once decode returns: next and
// decode keep nothing of them but copies (strings decoded from them).
func (c *Client) WalkAhead(ctx context.Context, first string, hdr http.Header, next func(http.Header, []byte) (string, error),
	decode func(io.Reader) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	seen := map[string]bool{}
	start := func(u string) (<-chan body, error) {
		abs, err := c.resolveNew(u, seen)
		if err != nil {
			return nil, err
		}
		ch := make(chan body, 1)
		go func() {
			var b body
			if err := crash.Call(func() error { b = c.fetchBody(ctx, abs, hdr); return nil }); err != nil {
				b = body{abs: abs, err: err}
			}
			ch <- b
		}()
		return ch, nil
	}
	pending, err := start(first)
	for err == nil && pending != nil {
		cur := <-pending
		if cur.err != nil {
			return cur.err
		}
		pending, err = readPage(cur, next, decode, start)
		pages.Put(cur.data)
	}
	return err
}

// readPage asks next for the page after cur, starts it, and decodes cur;
// pending is the page started, nil after the last.
func readPage(cur body, next func(http.Header, []byte) (string, error), decode func(io.Reader) error,
	start func(string) (<-chan body, error)) (pending <-chan body, err error) {
	u, err := next(cur.header, cur.data.Bytes())
	if err != nil {
		return nil, fmt.Errorf("GET %s: reading the answer: %w", pathOf(cur.abs), err)
	}
	if u != "" {
		if pending, err = start(u); err != nil {
			return nil, err
		}
	}
	if err := decode(bytes.NewReader(cur.data.Bytes())); err != nil {
		return nil, fmt.Errorf("GET %s: reading the answer: %w", pathOf(cur.abs), err)
	}
	return pending, nil
}

// body is one page read whole.
type body struct {
	abs    string
	header http.Header
	data   *bytes.Buffer // from pages
	err    error
}

// pages are the buffers WalkAhead reads pages into, reused: a read of
// 100,000 users reads some 60 MB of pages, and a buffer grown anew for
// each page was a quarter of all it allocated.
var pages = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// fetchBody gets the page at abs and reads it whole into a buffer of
// pages.
func (c *Client) fetchBody(ctx context.Context, abs string, hdr http.Header) body {
	resp, err := c.fetch(ctx, abs, hdr)
	if err != nil {
		return body{err: err}
	}
	defer resp.Body.Close()
	buf := pages.Get().(*bytes.Buffer)
	buf.Reset()
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		pages.Put(buf)
		return body{err: fmt.Errorf("GET %s: reading the answer: %w", pathOf(abs), err)}
	}
	return body{abs: abs, header: resp.Header, data: buf}
}

// GetJSON gets one document and decodes it into v.
func (c *Client) GetJSON(ctx context.Context, path string, hdr http.Header, v any) error {
	return c.Walk(ctx, path, hdr, func(resp *http.Response) (string, error) {
		return "", Decode(resp.Body, v)
	})
}

// Decode decodes the JSON document r into v with the JSON v2 decoder
// (github.com/go-json-experiment/json, the module of encoding/json/v2):
// it reads a large page at about twice the speed of encoding/json, which
// is most of a source's own time. Unknown members are ignored.
func Decode(r io.Reader, v any) error { return jsonv2.UnmarshalRead(r, v) }

// fetch gets the page at abs; any answer but 200 OK is an error.
func (c *Client) fetch(ctx context.Context, abs string, hdr http.Header) (*http.Response, error) {
	if err := c.wait(ctx); err != nil {
		return nil, err
	}
	req, err := retryablehttp.NewRequestWithContext(ctx, http.MethodGet, abs, nil)
	if err != nil {
		return nil, err
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", pathOf(abs), unwrapURL(err))
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		return nil, newStatusError(resp)
	}
	return resp, nil
}

// resolveNew resolves u (see resolve) and fails when a walk has seen it.
func (c *Client) resolveNew(u string, seen map[string]bool) (string, error) {
	abs, err := c.resolve(u)
	if err != nil {
		return "", err
	}
	if seen[abs] {
		return "", fmt.Errorf("GET %s: the API sent this page's own address as the next page's: stopping", pathOf(abs))
	}
	seen[abs] = true
	return abs, nil
}

// resolve makes u absolute against the base URL and checks that it stays
// on the base's scheme and host.
func (c *Client) resolve(u string) (string, error) {
	ref, err := url.Parse(u)
	if err != nil {
		return "", fmt.Errorf("%q is not a URL: %w", u, err)
	}
	abs := c.base.ResolveReference(ref)
	if abs.Scheme != c.base.Scheme || !strings.EqualFold(abs.Host, c.base.Host) {
		return "", fmt.Errorf("the API sent a next-page link to %s://%s, not %s://%s: refusing to send the credentials there",
			abs.Scheme, abs.Host, c.base.Scheme, c.base.Host)
	}
	return abs.String(), nil
}

// unwrapURL drops url.Error's repetition of the method and URL, which the
// caller names; an AuthError is returned as it is.
func unwrapURL(err error) error {
	var auth *AuthError
	if errors.As(err, &auth) {
		return auth
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// pathOf returns the path of u, for messages: queries can be long.
func pathOf(u string) string {
	if p, err := url.Parse(u); err == nil {
		return p.Path
	}
	return u
}

// StatusError is an answer other than 200 OK, after any retries.
type StatusError struct {
	Path   string
	Status int
	// Code and Message are the API's own, when its answer has them
	// (Microsoft Graph's error.code and error.message, Okta's errorCode
	// and errorSummary, Google's error.errors[0].reason and
	// error.message).
	Code, Message string
}

func (e *StatusError) Error() string {
	s := fmt.Sprintf("GET %s: %d %s", e.Path, e.Status, http.StatusText(e.Status))
	if e.Code != "" {
		s += ": " + e.Code
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// IsNotFound reports whether err is a StatusError of 404 Not Found.
func IsNotFound(err error) bool {
	var se *StatusError
	return errors.As(err, &se) && se.Status == http.StatusNotFound
}

// newStatusError reads the error answer resp.
func newStatusError(resp *http.Response) *StatusError {
	e := &StatusError{Path: resp.Request.URL.Path, Status: resp.StatusCode}
	var body struct {
		Error        json.RawMessage `json:"error"`
		ErrorCode    string          `json:"errorCode"`
		ErrorSummary string          `json:"errorSummary"`
	}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if json.Unmarshal(data, &body) != nil {
		return e
	}
	var graph struct{ Code, Message string }
	if json.Unmarshal(body.Error, &graph) == nil {
		e.Code, e.Message = graph.Code, graph.Message
	}
	if reason, msg, ok := googleError(body.Error); ok {
		e.Code, e.Message = reason, msg
	}
	if body.ErrorCode != "" {
		e.Code, e.Message = body.ErrorCode, body.ErrorSummary
	}
	return e
}

// googleErrorBody is the error member of a Google API's error answer:
// {"error": {"code": 403, "message": "...", "errors": [{"domain":
// "global", "reason": "forbidden", "message": "..."}]}}.
type googleErrorBody struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Errors  []struct {
		Reason string `json:"reason"`
	} `json:"errors"`
}

// googleError reads a Google API's error member: its first reason and
// its message.
func googleError(raw json.RawMessage) (reason, message string, ok bool) {
	var g googleErrorBody
	if json.Unmarshal(raw, &g) != nil || g.Code == 0 {
		return "", "", false
	}
	if len(g.Errors) > 0 {
		reason = g.Errors[0].Reason
	}
	return reason, g.Message, true
}

// NextLink returns the URL of a Link header's rel="next" (RFC 8288), ""
// when there is none.
func NextLink(h http.Header) string {
	for _, v := range h.Values("Link") {
		for _, link := range strings.Split(v, ",") {
			target, params, ok := strings.Cut(link, ";")
			target = strings.TrimSpace(target)
			if !ok || !strings.HasPrefix(target, "<") || !strings.HasSuffix(target, ">") {
				continue
			}
			for _, p := range strings.Split(params, ";") {
				k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
				if strings.EqualFold(k, "rel") && hasToken(strings.Trim(v, `"`), "next") {
					return target[1 : len(target)-1]
				}
			}
		}
	}
	return ""
}

func hasToken(list, tok string) bool {
	for _, f := range strings.Fields(list) {
		if strings.EqualFold(f, tok) {
			return true
		}
	}
	return false
}

// UsesOperator reports whether a filter or search expression uses the
// operator op (a word such as "ne") outside quoted strings.
func UsesOperator(expr, op string) bool {
	bare := quotedString.ReplaceAllString(expr, `""`)
	return slices.Contains(strings.FieldsFunc(bare, func(r rune) bool { return r == ' ' || r == '(' || r == ')' }), op)
}

// quotedString is a double-quoted string with backslash escapes.
var quotedString = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// Attr returns the value at path ("mail", "profile.email",
// "onPremisesExtensionAttributes.extensionAttribute1") of a decoded JSON
// object as text: a list gives its first element, a number or boolean its
// JSON text, anything missing or null "".
func Attr(obj map[string]any, path string) string {
	var v any = obj
	for more := true; more; {
		var key string
		key, path, more = strings.Cut(path, ".")
		m, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = m[key]
	}
	if list, ok := v.([]any); ok {
		if len(list) == 0 {
			return ""
		}
		v = list[0]
	}
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case json.Number:
		return x.String()
	}
	return ""
}

// StringMember returns the top-level member name of a JSON object (a
// page's nextPageToken or @odata.nextLink), "" when it has none, skipping
// the others undecoded: the next page can be asked for before this one is
// decoded.
func StringMember(data []byte, name string) (string, error) {
	d := jsontext.NewDecoder(bytes.NewReader(data))
	if t, err := d.ReadToken(); err != nil || t.Kind() != '{' {
		return "", errors.New("the answer is not a JSON object")
	}
	for d.PeekKind() == '"' {
		key, err := d.ReadToken()
		if err != nil {
			return "", err
		}
		if key.String() == name {
			v, err := d.ReadToken()
			if err == nil && v.Kind() != '"' {
				err = fmt.Errorf("%s is not a string", name)
			}
			return v.String(), err
		}
		if err := d.SkipValue(); err != nil {
			return "", err
		}
	}
	return "", nil
}
