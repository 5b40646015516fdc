package umapi

import (
	"context"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/orgsync/orgsync/target/umwire"
)

func okUser(w http.ResponseWriter, _ *http.Request) {
	writeJSONBody(w, http.StatusOK, umwire.UserInfo{Result: umwire.ResultSuccess, User: &umwire.User{Email: "a@b.c"}})
}

// TLS: verification is on by default (an unknown CA fails, once, without
// retries), a CA bundle makes the server trusted, and InsecureSkipVerify
// turns verification off.
func TestTLSVerification(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+umwire.PathClientCredentials, func(w http.ResponseWriter, r *http.Request) {
		writeJSONBody(w, http.StatusOK, umwire.TokenResponse{TokenType: "bearer", AccessToken: "ey", ExpiresIn: 3600})
	})
	mux.HandleFunc(umwire.BasePath+"/", okUser)
	srv := httptest.NewTLSServer(mux)
	defer srv.Close()
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(caFile, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	base := Config{AuthMethod: AuthOAuth, BaseURL: srv.URL, AuthBaseURL: srv.URL, OrgID: fakeOrg, ClientID: "c", ClientSecret: "s",
		RetryWaitMin: time.Millisecond, RetryWaitMax: time.Millisecond}
	for _, tc := range []struct {
		name   string
		change func(*Config)
		ok     bool
	}{
		{"system roots only", func(*Config) {}, false},
		{"CA bundle", func(c *Config) { c.CAFile = caFile }, true},
		{"verification off", func(c *Config) { c.InsecureSkipVerify = true }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := base
			tc.change(&cfg)
			c := mustClient(t, cfg)
			_, err := c.GetUser(context.Background(), "a@b.c", "")
			if (err == nil) != tc.ok {
				t.Fatalf("err = %v, want success %v", err, tc.ok)
			}
			if !tc.ok && c.Stats().Total() != 1 {
				t.Errorf("a certificate error was retried: %v", c.Stats().Requests)
			}
		})
	}
	if _, err := New(Config{AuthMethod: AuthOAuth, BaseURL: srv.URL, AuthBaseURL: srv.URL, OrgID: fakeOrg, ClientID: "c", ClientSecret: "s",
		CAFile: filepath.Join(t.TempDir(), "missing.pem")}); err == nil {
		t.Error("a missing CA file is not reported")
	}
}

// An explicit proxy carries every request, token request included.
func TestProxy(t *testing.T) {
	t.Parallel()
	f := newFake(t, okUser)
	var proxied atomic.Int32
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxied.Add(1)
		out := r.Clone(r.Context())
		out.RequestURI = ""
		resp, err := http.DefaultTransport.RoundTrip(out)
		if err != nil {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	}))
	defer proxy.Close()
	c := f.client(t, func(cfg *Config) { cfg.ProxyURL = proxy.URL })
	if _, err := c.GetUser(context.Background(), "a@b.c", ""); err != nil {
		t.Fatal(err)
	}
	if proxied.Load() != 2 || f.count() != 1 {
		t.Errorf("proxied %d requests (want 2: token and API), server saw %d API requests", proxied.Load(), f.count())
	}
}

// An attempt that outlasts Timeout is abandoned and retried.
func TestAttemptTimeout(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			<-r.Context().Done() // hang until the client gives up
			return
		}
		okUser(w, r)
	})
	c := f.client(t, func(cfg *Config) { cfg.Timeout = 500 * time.Millisecond })
	if _, err := c.GetUser(context.Background(), "a@b.c", ""); err != nil {
		t.Fatal(err)
	}
	s := c.Stats()
	if s.Requests[EndpointUser][StatusTransportError] != 1 || s.Requests[EndpointUser][http.StatusOK] != 1 || s.Retries != 1 {
		t.Errorf("stats %+v, want one timed-out attempt and one retry", s)
	}
}

// UsertypeUnknown sends X-UMAPI-Usertype-Unknown: true; without it the
// header is absent.
func TestUsertypeUnknownHeader(t *testing.T) {
	t.Parallel()
	for _, on := range []bool{false, true} {
		f := newFake(t, okUser)
		c := f.client(t, func(cfg *Config) { cfg.UsertypeUnknown = on })
		if _, err := c.GetUser(context.Background(), "a@b.c", ""); err != nil {
			t.Fatal(err)
		}
		want := map[bool]string{false: "", true: "true"}[on]
		if got := f.requests[0].Header.Get(umwire.HeaderUsertypeUnknown); got != want {
			t.Errorf("UsertypeUnknown %v: header %q, want %q", on, got, want)
		}
	}
}
