package umapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/orgsync/orgsync/target/umwire"
)

// TestTokenAnswerShapes: the token endpoint's expires_in may come as a
// JSON number or as a string holding one, and may be far longer than a
// time.Duration holds; each token is fetched once and reused, and an
// answer without a usable lifetime is an error that says so.
func TestTokenAnswerShapes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, expiresIn string
		wantErr         bool
	}{
		{"number", `3600`, false},
		{"string", `"3600"`, false},
		{"fraction", `3600.5`, false},
		{"centuries", `99999999999999`, false},
		{"past what a duration holds", `9999999999`, false},
		{"zero", `0`, true},
		{"negative", `-5`, true},
		{"not a number", `"soon"`, true},
		{"absent", ``, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var fetches atomic.Int32
			mux := http.NewServeMux()
			mux.HandleFunc("POST "+umwire.PathClientCredentials, func(w http.ResponseWriter, r *http.Request) {
				fetches.Add(1)
				w.Header().Set("Content-Type", "application/json;charset=UTF-8")
				body := `{"token_type":"bearer","access_token":"ey-token"`
				if tc.expiresIn != "" {
					body += `,"expires_in":` + tc.expiresIn
				}
				_, _ = w.Write([]byte(body + "}"))
			})
			mux.HandleFunc(umwire.BasePath+"/", func(w http.ResponseWriter, r *http.Request) {
				pageOf(w, 0, 1, true, user("u0"))
			})
			srv := httptest.NewServer(mux)
			t.Cleanup(srv.Close)
			c := mustClient(t, Config{AuthMethod: AuthOAuth, BaseURL: srv.URL, AuthBaseURL: srv.URL, OrgID: fakeOrg, ClientID: "client-1",
				ClientSecret: "s3cret-value", RetryWaitMin: time.Millisecond, RetryWaitMax: 5 * time.Millisecond})
			for range 3 {
				_, err := c.OrgUsersPage(context.Background(), 0, OrgUsersOptions{})
				if tc.wantErr != (err != nil) {
					t.Fatalf("error %v, want one: %v", err, tc.wantErr)
				}
			}
			if !tc.wantErr && fetches.Load() != 1 {
				t.Errorf("%d token fetches for 3 requests, want 1", fetches.Load())
			}
		})
	}
}

// FuzzTokenLifetime: any expires_in gives either no lifetime or one in
// (0, maxTokenLifetime], never a panic.
func FuzzTokenLifetime(f *testing.F) {
	for _, s := range []string{`3600`, `"3600"`, `3600.5`, `9999999999`, `-1`, `"NaN"`, `"Inf"`, `1e400`, `null`, `{}`, ``} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		life, ok := tokenLifetime([]byte(raw))
		if ok != (life > 0) || life > maxTokenLifetime {
			t.Fatalf("tokenLifetime(%q) = %s, %v", raw, life, ok)
		}
	})
}

// TestIsLastBoundsEveryListing: over the whole range of what a page can
// say, a listing that reads on while IsLast is false ends by the page at
// index X-Page-Count (once the service gives the header), ends at once
// when lastPage is true, and never ends early when lastPage says more
// follow before the page at index X-Page-Count-1.
func TestIsLastBoundsEveryListing(t *testing.T) {
	t.Parallel()
	for _, sent := range []bool{false, true} {
		for _, last := range []bool{false, true} {
			for count := -1; count <= 12; count++ {
				for page := 0; page <= 14; page++ {
					p := PageInfo{Page: page, PageCount: count, LastPage: last && sent, lastPageSent: sent}
					switch got := p.IsLast(); {
					case p.LastPage && !got:
						t.Errorf("%+v: lastPage true, not last", p)
					case count >= 0 && page >= count && !got:
						t.Errorf("%+v: at or past X-Page-Count, not last", p)
					case sent && !p.LastPage && page+1 < count && got:
						t.Errorf("%+v: lastPage false before X-Page-Count-1, last", p)
					case count < 0 && !p.LastPage && got:
						t.Errorf("%+v: no end mark, last", p)
					}
				}
			}
		}
	}
}
