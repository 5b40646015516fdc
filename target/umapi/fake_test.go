package umapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/orgsync/orgsync/target/umwire"
)

// The tests in this file exercise the transport layer (headers, retries,
// token refresh, paging guards, batch mapping) against small fake handlers
// that misbehave on purpose in ways the simulator does not; the tests
// against the simulator are in sim_test.go.

const fakeOrg = "0A1B@VendorOrg"

// fake is an httptest server with a token endpoint and an API handler.
type fake struct {
	srv         *httptest.Server
	tokenFetchs atomic.Int32
	mu          sync.Mutex
	requests    []*http.Request // API requests, in arrival order
}

func newFake(t testing.TB, api http.HandlerFunc) *fake {
	t.Helper()
	f := &fake{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+umwire.PathClientCredentials, func(w http.ResponseWriter, r *http.Request) {
		n := f.tokenFetchs.Add(1)
		writeJSONBody(w, http.StatusOK, umwire.TokenResponse{TokenType: "bearer", AccessToken: "ey-token-" + strconv.Itoa(int(n)), ExpiresIn: 3600})
	})
	mux.HandleFunc(umwire.BasePath+"/", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.requests = append(f.requests, r.Clone(r.Context()))
		f.mu.Unlock()
		api(w, r)
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fake) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

// client returns a fast-retrying OAuth client of the fake.
func (f *fake) client(t testing.TB, change ...func(*Config)) *Client {
	t.Helper()
	cfg := Config{
		BaseURL: f.srv.URL, AuthBaseURL: f.srv.URL, OrgID: fakeOrg,
		AuthMethod: AuthOAuth, ClientID: "client-1", ClientSecret: "s3cret-value",
		RetryWaitMin: time.Millisecond, RetryWaitMax: 5 * time.Millisecond, MaxRetries: 3,
		ReadLimit: 100000, AppLimit: 100000, LimitWindow: time.Second,
	}
	for _, ch := range change {
		ch(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func writeJSONBody(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// pageOf answers a users page with the given headers (-1 omits one).
func pageOf(w http.ResponseWriter, current, pageCount int, last bool, users ...umwire.User) {
	if current >= 0 {
		w.Header().Set(umwire.HeaderCurrentPage, strconv.Itoa(current))
	}
	if pageCount >= 0 {
		w.Header().Set(umwire.HeaderPageCount, strconv.Itoa(pageCount))
	}
	w.Header().Set(umwire.HeaderPageSize, strconv.Itoa(len(users)))
	writeJSONBody(w, http.StatusOK, umwire.UsersPage{LastPage: last, Result: umwire.ResultSuccess, Users: users})
}
