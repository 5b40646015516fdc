package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/target/umsim"
)

// The address mistakes a newcomer makes each get one message that names
// the key to fix, at once instead of after minutes of retries: https://
// to a plain-HTTP service, the API path in baseURL (the documentation
// says the API lives there), and the address of a web server that is not
// the service (also as the API address alone, the sign-in's being right).
func TestAddressMistakesNameTheKey(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNotImplemented)
	}))
	defer web.Close()
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html>intranet</html>"))
	}))
	defer page.Close()
	for _, c := range []struct {
		name, url string
		args      []string
		want      []string
		replace   []string
	}{
		{"https to plain HTTP", strings.Replace(s.url, "http://", "https://", 1), []string{"plan"},
			[]string{"answers plain HTTP, not HTTPS", "check the scheme of target.baseURL"}, nil},
		{"API path in baseURL", s.url + "/v2/usermanagement", []string{"validate"},
			[]string{"target.baseURL", "holds the API path /v2/usermanagement", `write "` + s.url + `"`}, nil},
		{"not the service", web.URL, []string{"plan"},
			[]string{"does not answer like the service", "HTTP 501", "check target.baseURL"}, nil},
		{"API address a web page, sign-in right", page.URL, []string{"plan"},
			[]string{"the address " + page.URL + " does not answer like the service (", "check target.baseURL"},
			[]string{"  baseURL: " + page.URL + "\n", "  baseURL: " + page.URL + "\n  authBaseURL: " + s.url + "\n"}},
	} {
		cfg := configFor(t, dir, "csv", c.url, c.replace...)
		start := time.Now()
		r := runBinary(t, nil, append(c.args, "--config", cfg)...)
		out := r.stdout + r.stderr
		if r.code != exitError || time.Since(start) > 10*time.Second {
			t.Errorf("%s: exit %d after %s, want 1 at once\n%s", c.name, r.code, time.Since(start), out)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: output does not say %q:\n%s", c.name, w, out)
			}
		}
		for _, bad := range []string{"umapi:", "umtarget:", "attempt 2 of", "decoding the answer", "invalid character"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s: output says %q:\n%s", c.name, bad, out)
			}
		}
	}
}
