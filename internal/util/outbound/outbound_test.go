package outbound_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/util/outbound"
	"github.com/orgsync/orgsync/internal/util/outbound/outboundtest"
)

// The credentials the layers add: a bearer token, an API key, a cookie,
// and a form secret in the body.
const (
	token      = "Bearer secret-token-1234"
	apiKey     = "secret-api-key-5678"
	cookie     = "session=secret-cookie-9012"
	formSecret = "client_secret=secret-form-3456"
)

// credentials is a layer that adds them to every request it sends, as
// the oauth2 transports and the service client's transport do.
func credentials(next http.RoundTripper) http.RoundTripper {
	return roundTripper(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", token)
		r.Header.Set("X-Api-Key", apiKey)
		r.Header.Set("Cookie", cookie)
		return next.RoundTrip(r)
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// redirector answers every request with status and a Location on to.
func redirector(t *testing.T, to string, status int) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		outboundtest.Redirect(w, r, to, status)
	}))
	t.Cleanup(s.Close)
	return s
}

// post sends a credentialed form POST with hc.
func post(hc *http.Client, u string) (*http.Response, error) {
	return hc.Post(u, "application/x-www-form-urlencoded", strings.NewReader(formSecret))
}

// TestRedirectToAnotherOriginCarriesNothing: every redirect status to
// another host, another port or another scheme is refused before a byte
// reaches it, with an error naming both origins; by the client's policy,
// and by the transport alone under a client that follows redirects
// (http.Client's own policy resends headers a transport adds, and a
// 307/308 form body).
func TestRedirectToAnotherOriginCarriesNothing(t *testing.T) {
	t.Parallel()
	other := outboundtest.NewCatcher(t)
	ours := outbound.New(outbound.Options{}, credentials)
	followsAnything := &http.Client{Transport: ours.Transport} // the default redirect policy
	for _, status := range outboundtest.RedirectStatuses {
		from := redirector(t, other.URL, status)
		for name, hc := range map[string]*http.Client{"client": ours, "transport alone": followsAnything} {
			resp, err := post(hc, from.URL+"/token")
			if resp != nil {
				resp.Body.Close()
			}
			var re *outbound.RedirectError
			if !errors.As(err, &re) || re.Status != status || !strings.Contains(err.Error(), strings.TrimPrefix(from.URL, "http://")) ||
				!strings.Contains(err.Error(), strings.TrimPrefix(other.URL, "http://")) {
				t.Errorf("%d, %s: %v, want a RedirectError naming both hosts", status, name, err)
			}
		}
	}
	other.Check(t, "redirects", token, apiKey, cookie, formSecret)
}

// TestRedirectWithinTheOriginIsFollowed: a redirect to another path of
// the same origin is followed, with the credentials.
func TestRedirectWithinTheOriginIsFollowed(t *testing.T) {
	t.Parallel()
	var got string
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/new", http.StatusTemporaryRedirect)
			return
		}
		body, _ := io.ReadAll(r.Body)
		got = r.Header.Get("Authorization") + " " + string(body)
	}))
	defer s.Close()
	resp, err := post(outbound.New(outbound.Options{}, credentials), s.URL+"/old")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got != token+" "+formSecret {
		t.Errorf("the same origin received %q", got)
	}
}

// TestOrigin: the default port counts as named; case does not count.
func TestOrigin(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"https://Example.com/x":     "https://example.com:443",
		"http://example.com:80/x":   "http://example.com:80",
		"http://example.com:8080/x": "http://example.com:8080",
		"http://[::1]:9/":           "http://[::1]:9",
	} {
		u, _ := url.Parse(raw)
		if got := outbound.Origin(u); got != want {
			t.Errorf("Origin(%s) = %s, want %s", raw, got, want)
		}
	}
}

// TestMetadataNeverProxied: with a proxy for everything, the well-known
// metadata addresses and those the client names go direct, the rest
// through the proxy.
func TestMetadataNeverProxied(t *testing.T) {
	t.Parallel()
	proxy := outboundtest.NewProxy(t)
	var direct, viaProxy int
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Forwarded-For") != "" {
			viaProxy++
			http.Error(w, "relayed", http.StatusBadRequest)
			return
		}
		direct++
	}))
	defer s.Close()
	get := func(o outbound.Options) {
		resp, err := outbound.New(o).Get(s.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	get(outbound.Options{Proxy: proxy.Func(), Metadata: []string{s.URL + "/metadata/identity/oauth2/token"}})
	get(outbound.Options{Proxy: proxy.Func(), Metadata: []string{strings.TrimPrefix(s.URL, "http://")}})
	if direct != 2 || viaProxy != 0 || proxy.Total() != 0 {
		t.Errorf("metadata endpoint: %d direct, %d through the proxy, want 2 and 0", direct, viaProxy)
	}
	get(outbound.Options{Proxy: proxy.Func()})
	if viaProxy != 1 || proxy.Total() != 1 {
		t.Errorf("another endpoint: %d through the proxy, want 1", viaProxy)
	}
	for raw, want := range map[string]bool{
		"http://169.254.169.254/metadata/identity/oauth2/token": true, "http://metadata.google.internal/computeMetadata/v1/": true,
		"http://[fd00:ec2::254]/latest/meta-data/": true, "http://169.254.170.2/v2/credentials": true, "http://[fe80::1]/": true,
		"https://graph.microsoft.com/v1.0/users": false, "http://10.0.0.1/": false, "https://sts.googleapis.com/v1/token": false,
	} {
		u, _ := url.Parse(raw)
		if got := outbound.IsMetadata(u); got != want {
			t.Errorf("IsMetadata(%s) = %v", raw, got)
		}
	}
}

// TestEveryRequestTimesOut: a server that answers nothing, and one that
// trickles its body, are given up at the timeout.
func TestEveryRequestTimesOut(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/trickle" {
			w.WriteHeader(http.StatusOK)
			for i := 0; i < 100; i++ {
				fmt.Fprint(w, "x")
				w.(http.Flusher).Flush()
				select {
				case <-release:
					return
				case <-time.After(50 * time.Millisecond):
				}
			}
		}
		<-release
	}))
	defer s.Close()
	defer close(release)
	hc := outbound.New(outbound.Options{Timeout: 300 * time.Millisecond})
	var te *outbound.TimeoutError
	if _, err := hc.Get(s.URL + "/silent"); !errors.As(err, &te) {
		t.Errorf("a silent server: %v, want a TimeoutError", err)
	}
	resp, err := hc.Get(s.URL + "/trickle")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := io.ReadAll(resp.Body); !errors.As(err, &te) {
		t.Errorf("a trickled body: %v, want a TimeoutError", err)
	}
}

// TestBodiesAreBounded: a body of MaxBody bytes is read whole, one byte
// more fails.
func TestBodiesAreBounded(t *testing.T) {
	t.Parallel()
	const limit = 1000
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := limit
		if r.URL.Path == "/over" {
			n++
		}
		_, _ = io.WriteString(w, strings.Repeat("a", n))
	}))
	defer s.Close()
	hc := outbound.New(outbound.Options{MaxBody: limit})
	read := func(path string) (int, error) {
		resp, err := hc.Get(s.URL + path)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return len(b), err
	}
	if n, err := read("/at"); n != limit || err != nil {
		t.Errorf("at the bound: %d bytes, %v", n, err)
	}
	var tl *outbound.TooLargeError
	if n, err := read("/over"); n != limit || !errors.As(err, &tl) {
		t.Errorf("over the bound: %d bytes, %v, want %d and a TooLargeError", n, err, limit)
	}
}
